"""The harness's rows, and the table the issue asks for: one line per system, size and database."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Row:
    system: str
    games: int
    what: str
    database: str
    seconds: float
    peak_mb: float
    note: str = ""

    def line(self) -> str:
        rate = f"{self.games / self.seconds / 1e6:8.2f}" if self.seconds > 0 and self.what in (
            "engine", "reference") else f"{'':8s}"
        return (f"| {self.system:6s} | {self.games:>10,} | {self.what:12s} | {self.database:10s} | "
                f"{self.seconds:9.2f} | {rate} | {self.peak_mb:8.0f} | {self.note} |")


HEADER = ("| system | games      | what         | database   | seconds   | M games/s | peak MB | note |\n"
          "|--------|-----------:|--------------|------------|----------:|---------:|--------:|------|")



SUMMARY = ("| system | games | database | first run s | night s | month s | backfill s | what-if s | site s "
           "| peak MB | marginal / floor | engine / plain loop |\n"
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def _seconds(rows: list[Row], what: str) -> str:
    got = [r.seconds for r in rows if r.what == what]
    return f"{got[0]:.1f}" if got else "-"


def summary(groups: list[tuple[str, int, list[Row]]]) -> str:
    """The rows of each ``(system, games, rows)`` benched, a line per database they ran on.

    The peak is the highest of the database's rows and the engine's; marginal / floor is
    the first run less the empty run over the I/O floor; engine / plain loop compares the
    games per second of the whole engine call and of the scalar reference (same run).

    Examples
    --------
    >>> rows = [Row("fide", 1000, "engine", "-", 0.01, 300.0), Row("fide", 100, "reference", "-", 0.1, 200.0),
    ...         Row("fide", 1000, "io floor", "sqlite", 1.0, 250.0), Row("fide", 0, "fixed", "sqlite", 2.0, 280.0),
    ...         Row("fide", 1000, "run", "sqlite", 5.0, 900.0), Row("fide", 50, "incremental", "sqlite", 3.0, 500.0)]
    >>> print(summary([("fide", 1000, rows)]).splitlines()[-1])
    | fide | 1,000 | sqlite | 5.0 | 3.0 | - | - | - | - | 900 | 3.0x | 100.0x |
    """
    lines = [SUMMARY]
    for system, games, rows in groups:
        engine = [r for r in rows if r.what == "engine"]
        reference = [r for r in rows if r.what == "reference"]
        ratio = "-"
        if engine and reference and engine[0].seconds > 0 and reference[0].seconds > 0:
            ratio = f"{(engine[0].games / engine[0].seconds) / (reference[0].games / reference[0].seconds):.1f}x"
        for db in dict.fromkeys(r.database for r in rows if r.database != "-"):
            mine = [r for r in rows if r.database == db]
            floor, fixed, run = (next((r.seconds for r in mine if r.what == w), None) for w in ("io floor", "fixed", "run"))
            marginal = f"{(run - fixed) / floor:.1f}x" if floor and fixed is not None and run is not None else "-"
            peak = max(r.peak_mb for r in mine + engine)
            cells = [_seconds(mine, w) for w in ("run", "incremental", "month", "backfill", "whatif", "site")]
            stopped = " (stopped)" if any(r.what == "stopped" for r in mine) else ""
            lines.append(f"| {system} | {games:,} | {db}{stopped} | {' | '.join(cells)} | {peak:.0f} | {marginal} | {ratio} |")
    return "\n".join(lines)

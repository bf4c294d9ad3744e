"""A canonical dump of what a run leaves behind: every warehouse table, every report and every
page of the site, as one SHA-256 per table or file.

Two runs of the same inbox give the same dump, whatever the machine, the folder or the time:
rows are sorted, the columns that record *when* (a load's timestamp, a run's start) and *where*
(the temporary folder) are left out or written as placeholders, and so is the day itself
(an edition's publication date). A refactoring that moves one
figure, one line of a report or one byte of a page changes that entry's digest, and the test
names it.

``python -m tests.canonical`` writes the golden digests of ``tests/golden/`` (only on purpose:
a changed digest is a changed behaviour).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import polars as pl
import sqlalchemy as sa

#: Columns that record when something happened, or a run's own identity: not behaviour.
VOLATILE_COLUMNS = frozenset({
    "loaded_at", "created_at", "updated_at", "requested_at", "decided_at", "started_at", "finished_at",
    "sent_at", "attempted_at", "published_at", "at", "last_attempt_at", "next_attempt_at", "heartbeat_at",
})
#: Tables about the run rather than its results (the lock, the migrations' own version).
VOLATILE_TABLES = frozenset({"alembic_version", "run_lock"})
#: A date and time, as the pages print when a file was loaded (a plain date stays).
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(\+00:00|Z| UTC)?")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _today() -> tuple[str, ...]:
    """The day the run is taken (UTC and local, and the day before: a run across midnight)."""
    days = {datetime.now(UTC).date(), date.today()}
    days |= {d - timedelta(days=1) for d in days}
    return tuple(sorted(d.isoformat() for d in days))


def _clean(text: str, folders: dict[str, str]) -> str:
    for folder, placeholder in folders.items():
        text = text.replace(folder, placeholder)
    text = _TIMESTAMP.sub("<time>", text)
    for day in _today():   # the day an edition was published: the run's own day
        text = text.replace(day, "<today>")
    return text


def _parquet_rows(data: bytes) -> str:
    """A Parquet file's rows as CSV: what it holds, not the bytes its writer chose."""
    return pl.read_parquet(io.BytesIO(data)).write_csv()


def _value(value: object, folders: dict[str, str]) -> str:
    if isinstance(value, str):
        return _clean(value, folders)
    if isinstance(value, date) and value.isoformat()[:10] in _today():
        return "<today>"
    if isinstance(value, bytes | memoryview):
        # A frame stored as Parquet (derived_checkpoints): its rows, not the writer's bytes (which
        # name the polars version that wrote them).
        return _digest(_parquet_rows(bytes(value)))
    return repr(value)


def warehouse_dump(url: str, folders: dict[str, str]) -> dict[str, str]:
    """``table -> digest`` of every table's rows (volatile columns out, rows sorted)."""
    engine = sa.create_engine(url)
    out: dict[str, str] = {}
    try:
        meta = sa.MetaData()
        meta.reflect(engine)
        with engine.connect() as connection:
            for name, table in sorted(meta.tables.items()):
                if name in VOLATILE_TABLES:
                    continue
                columns = [c for c in table.columns if c.name not in VOLATILE_COLUMNS]
                rows = sorted(
                    json.dumps([_value(v, folders) for v in row])
                    for row in connection.execute(sa.select(*columns))
                )
                header = ",".join(c.name for c in columns)
                out[f"warehouse/{name}"] = _digest("\n".join([header, *rows]))
    finally:
        engine.dispose()
    return out


def folder_dump(root: Path, label: str, folders: dict[str, str]) -> dict[str, str]:
    """``label/relative path -> digest`` of every file under ``root`` (text cleaned, bytes as they are)."""
    out: dict[str, str] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name == ".pages.json":
            # The site's manifest: its "code" is a hash of website/*.py, and each page's digest of
            # its inputs starts from that hash, so only the pages' names are compared.
            manifest = json.loads(data)
            manifest.pop("code", None)
            manifest["pages"] = sorted(manifest.get("pages", {}))
            data = json.dumps(manifest, sort_keys=True).encode("utf-8")
        elif path.suffix == ".parquet":
            # A frame the site keeps (``website.frames``): its rows, not the writer's bytes (which
            # name the polars version that wrote them), as a Parquet column of the warehouse.
            data = _parquet_rows(data).encode("utf-8")
        elif path.parent.name == ".frames" and path.suffix == ".json":
            # What the frame beside it holds, less that file's checksum (of the writer's bytes).
            meta = json.loads(data)
            meta.pop("sha256", None)
            data = json.dumps(meta, sort_keys=True).encode("utf-8")
        try:
            digest = _digest(_clean(data.decode("utf-8"), folders))
        except UnicodeDecodeError:
            digest = hashlib.sha256(data).hexdigest()
        out[f"{label}/{path.relative_to(root).as_posix()}"] = digest
    return out


def dump(url: str, *, reports: Path, site: Path | None, tmp: Path) -> dict[str, str]:
    """The whole canonical dump of one run: its warehouse, its reports and its site."""
    folders = {str(tmp.resolve()): "<tmp>", str(tmp): "<tmp>"}
    out = warehouse_dump(url, folders)
    out.update(folder_dump(reports, "reports", folders))
    if site is not None:
        out.update(folder_dump(site, "site", folders))
    return out


def differences(ours: dict[str, str], golden: dict[str, str]) -> list[str]:
    """What differs between two dumps, one line per entry (missing, new, or changed)."""
    lines = [f"missing: {k}" for k in sorted(set(golden) - set(ours))]
    lines += [f"new: {k}" for k in sorted(set(ours) - set(golden))]
    lines += [f"changed: {k}" for k in sorted(set(ours) & set(golden)) if ours[k] != golden[k]]
    return lines


# ------------------------------------------------------------------ the two runs it is taken of
#: The mixed night: the bundled AJUSC sample, two real FIDE TRF reports, a real EGF OpenGotha
#: save and an unfinished one (rejected), all in one inbox.
MIXED_FILES = ("chess/san_viator_madrid_2018_B.trf", "chess/karl_mala_frankfurt_2005.trf",
               "go/opengotha_frioul_2018.xml", "go/opengotha_egc2024_main_open_partial.xml")
GOLDEN = Path(__file__).resolve().parent / "golden"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "inbox"


def _ratings(*args: str) -> None:
    from typer.testing import CliRunner

    from flows.cli import app

    result = CliRunner().invoke(app, list(args))
    if result.exit_code != 0:
        raise AssertionError(f"ratings {' '.join(args)} exited {result.exit_code}:\n{result.output}")


def season_run(shared_data: Path, tmp: Path, *run_options: str) -> str:
    """The real AJUSC season 2025-26: its seeded list, then its championships in one run."""
    import shutil

    season = shared_data / "ajusc" / "barruf_2025_26"
    inbox = tmp / "inbox"
    shutil.copytree(season / "results", inbox)
    shutil.copy(season / "season.players.csv", inbox)
    url = f"sqlite:///{tmp / 'ratings.db'}"
    _ratings("seed", "--federation", "ajusc", str(season / "season.ratings.csv"), "--warehouse", url)
    _ratings("run", "--inbox", str(inbox), "--warehouse", url, "--as-of", "2026-08-31",
             "--reports", str(tmp / "reports"), "--site", str(tmp / "site"), *run_options)
    return url


def mixed_run(shared_data: Path, tmp: Path, *run_options: str) -> str:
    """One night of the three federations' files (:data:`MIXED_FILES` and the bundled sample)."""
    import shutil

    inbox = tmp / "inbox"
    shutil.copytree(EXAMPLES, inbox)
    for name in MIXED_FILES:
        shutil.copy(shared_data / name, inbox)
    url = f"sqlite:///{tmp / 'ratings.db'}"
    _ratings("run", "--inbox", str(inbox), "--warehouse", url, "--as-of", "2026-08-31",
             "--reports", str(tmp / "reports"), "--site", str(tmp / "site"), *run_options)
    return url


def take(name: str, shared_data: Path, tmp: Path, *run_options: str) -> dict[str, str]:
    """Run scenario ``name`` (``season`` or ``mixed``) in ``tmp`` and dump what it left
    (``run_options``: more options of its ``ratings run``)."""
    url = {"season": season_run, "mixed": mixed_run}[name](shared_data, tmp, *run_options)
    return dump(url, reports=tmp / "reports", site=tmp / "site", tmp=tmp)


if __name__ == "__main__":   # regenerate the golden digests, on purpose only
    import sys
    import tempfile

    data = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "data"
    GOLDEN.mkdir(exist_ok=True)
    for scenario in ("season", "mixed"):
        with tempfile.TemporaryDirectory() as folder:
            digests = take(scenario, data, Path(folder))
        (GOLDEN / f"canonical_{scenario}.json").write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
        print(scenario, len(digests), "entries")

"""Dates no competition can have: after the run's date, or before the federation's seed list.

A file dated 2027 on a run of 2026, or 9999-12-31, would become the list "in force" from
that day and every later edition would inherit it; one dated 0001-01-01 would be rated
before the seeded list. Such a competition is held for the rating officer (``ratings
approve`` or ``ratings decline``) with a finding that names the date field, instead of
being rated.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from formats.schema import FINDINGS_SCHEMA, empty

__all__ = ["AFTER_RUN", "BEFORE_SEED", "implausible_dates"]

#: Rule id: the competition ends after the run's date.
AFTER_RUN = "dates.after_run"
#: Rule id: the competition starts before the federation's seeded list.
BEFORE_SEED = "dates.before_seed"


def implausible_dates(
    competitions: pl.DataFrame, *, as_of: date, seed_as_of: date | None, federation: str,
) -> pl.DataFrame:
    """A ``hold`` finding for each competition dated after ``as_of`` or before ``seed_as_of``.

    Examples
    --------
    >>> comps = pl.DataFrame({"competition_id": ["A", "B", "C"], "source": ["a.csv", "b.csv", "c.csv"],
    ...                       "start_date": [date(2027, 5, 1), date(1, 1, 1), date(2026, 1, 3)],
    ...                       "end_date": [date(2027, 5, 1), date(1, 1, 1), date(2026, 1, 4)]})
    >>> found = implausible_dates(comps, as_of=date(2026, 12, 2), seed_as_of=date(2025, 9, 1), federation="ajusc")
    >>> found.select("competition_id", "rule", "severity", "field").rows()
    [('A', 'dates.after_run', 'hold', 'end_date'), ('B', 'dates.before_seed', 'hold', 'start_date')]
    """
    if not competitions.height or "end_date" not in competitions.columns:
        return empty(FINDINGS_SCHEMA)
    rows: list[dict[str, object]] = []
    columns = ["competition_id", "start_date", "end_date"] + (["source"] if "source" in competitions.columns else [])
    for row in competitions.select(columns).iter_rows(named=True):
        start, end = row["start_date"], row["end_date"] or row["start_date"]
        source = row.get("source")
        where = f"{source}, " if source else ""
        if end is not None and end > as_of:
            rows.append({
                "rule": AFTER_RUN, "field": "end_date", "competition_id": row["competition_id"], "source": source,
                "message": (f"{where}field 'end_date': the competition ends on {end}, after the run's date "
                            f"{as_of}: held until the rating officer checks the date (`ratings approve` or "
                            "`ratings decline`); correct the date in the file if it is wrong"),
            })
        elif start is not None and seed_as_of is not None and start < seed_as_of:
            rows.append({
                "rule": BEFORE_SEED, "field": "start_date", "competition_id": row["competition_id"], "source": source,
                "message": (f"{where}field 'start_date': the competition starts on {start}, before the "
                            f"federation's starting list of {seed_as_of}: held until the rating officer checks "
                            "the date (`ratings approve` or `ratings decline`); correct the date in the file if "
                            "it is wrong"),
            })
    if not rows:
        return empty(FINDINGS_SCHEMA)
    return pl.DataFrame(
        [{**r, "federation": federation, "severity": "hold", "line": None} for r in rows], schema=FINDINGS_SCHEMA,
    )

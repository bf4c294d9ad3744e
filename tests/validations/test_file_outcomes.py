"""``validations.file_outcomes``: one outcome per file, read in bulk (a night may bring thousands of files).

The reference below is the rule as written before the bulk version: every file and
competition looked up one by one. The bulk version must say the same on any night.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validations import deciding_findings, file_outcomes, summary_findings

_SEVERITY = {"rejected": "reject", "held": "hold", "accepted_with_exclusions": "exclude"}
_KINDS = {
    "interchange-players": "a players list (names, clubs and grades for the lists and reports)",
    "interchange-aliases": "an alias table (one player under several ids)",
}


def _one_by_one(files: pl.DataFrame, competitions: pl.DataFrame, findings: pl.DataFrame,
                statuses: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """The outcome of each file, looked up row by row in plain Python."""
    found = findings.to_dicts()
    comps = competitions.to_dicts()
    out: dict[str, str] = {}
    for row in files.unique("source", maintain_order=True).to_dicts():
        source, fed = row["source"], row["federation"]
        mine = [c for c in comps if c["source"] == source]
        if mine:
            parts: dict[str, set[str]] = {}
            for c in mine:
                status = statuses.get(str(c["federation"] or fed), {}).get(str(c["competition_id"]), "pending")
                parts.setdefault(status, set()).update(
                    f["rule"] for f in found
                    if f["competition_id"] is not None and f["competition_id"] == c["competition_id"]
                    and f["severity"] == _SEVERITY.get(status, "-"))
            out[source] = "; ".join(sorted(f"{s} ({', '.join(sorted(r))})" if r else s for s, r in parts.items()))
            continue
        status_of_file = next((s[source] for s in statuses.values() if source in s), None)
        if status_of_file is None:
            out[source] = f"loaded: {_KINDS.get(str(row['format']), 'read, nothing to rate')}"
            continue
        rules = sorted({f["rule"] for f in found if f["source"] == source and f["competition_id"] is None
                        and f["severity"] == "reject"})
        out[source] = f"unreadable: {status_of_file}" + (f" ({', '.join(rules)})" if rules else "")
    return out


_FEDS = st.sampled_from(["ajusc", "fide", None])
_IDS = st.sampled_from([f"C{i}" for i in range(6)])
_SOURCES = st.sampled_from([f"f{i}" for i in range(8)])
_STATUS = st.sampled_from(["rejected", "held", "accepted_with_exclusions", "accepted", "published"])


@pytest.mark.hypothesis
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.lists(st.tuples(_FEDS, _SOURCES, st.sampled_from([None, "trf", *_KINDS])), max_size=8),
    comps=st.lists(st.tuples(_FEDS, _IDS, _SOURCES), max_size=8),
    found=st.lists(st.tuples(_FEDS, st.one_of(st.none(), _IDS), st.sampled_from(["r1", "r2", "r3"]),
                             st.sampled_from(["reject", "hold", "exclude", "warn"]), _SOURCES), max_size=12),
    statuses=st.dictionaries(st.sampled_from(["ajusc", "fide", "None", "unknown"]),
                             st.dictionaries(st.one_of(_IDS, _SOURCES), _STATUS, max_size=6), max_size=4),
)
def test_bulk_outcomes_equal_the_one_by_one_rule(
    files: list[tuple[str | None, str, str | None]],
    comps: list[tuple[str | None, str, str]],
    found: list[tuple[str | None, str | None, str, str, str]],
    statuses: dict[str, dict[str, str]],
) -> None:
    f = pl.DataFrame(files, schema={"federation": pl.Utf8, "source": pl.Utf8, "format": pl.Utf8}, orient="row")
    c = pl.DataFrame(comps, schema={"federation": pl.Utf8, "competition_id": pl.Utf8, "source": pl.Utf8},
                     orient="row")
    x = pl.DataFrame(found, schema={"federation": pl.Utf8, "competition_id": pl.Utf8, "rule": pl.Utf8,
                                    "severity": pl.Utf8, "source": pl.Utf8}, orient="row")
    got = file_outcomes(files=f, competitions=c, statuses=statuses, findings=x)
    assert got == _one_by_one(f, c, x, statuses)


def test_a_night_of_many_files_has_one_outcome_each() -> None:
    n = 2_000
    names = [f"club-{i}.results.csv" for i in range(n)]
    files = pl.DataFrame({"federation": ["ajusc"] * n, "source": names, "format": ["interchange-results"] * n})
    comps = pl.DataFrame({"federation": ["ajusc"] * n, "competition_id": [f"C{i}" for i in range(n)],
                          "source": names})
    found = pl.DataFrame({"federation": ["ajusc"] * 2, "competition_id": ["C7", None],
                          "rule": ["format.csv.bad_score", "format.unknown"], "severity": ["reject", "reject"],
                          "source": [names[7], "junk.bin"]})
    statuses = {"ajusc": {**{f"C{i}": "published" for i in range(n)}, "C7": "rejected"},
                "unknown": {"junk.bin": "rejected"}}
    files = pl.concat([files, pl.DataFrame({"federation": ["unknown"], "source": ["junk.bin"], "format": [None]},
                                           schema=files.schema)])
    out = file_outcomes(files=files, competitions=comps, statuses=statuses, findings=found)
    assert len(out) == n + 1
    assert out[names[7]] == "rejected (format.csv.bad_score)"
    assert out[names[8]] == "published"
    assert out["junk.bin"] == "unreadable: rejected (format.unknown)"


@pytest.mark.hypothesis
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.lists(st.tuples(_FEDS, _SOURCES, st.sampled_from([None, "trf"])), max_size=8),
    comps=st.lists(st.tuples(_FEDS, _IDS, _SOURCES), max_size=8),
    found=st.lists(st.tuples(_FEDS, st.one_of(st.none(), _IDS), st.sampled_from(["r1", "r2", "r3"]),
                             st.sampled_from(["reject", "hold", "exclude", "warn"]), _SOURCES,
                             st.one_of(st.none(), st.integers(1, 9)), st.sampled_from([None, "result", "round"])),
                   max_size=20),
    statuses=st.dictionaries(st.sampled_from(["ajusc", "fide", "None", "unknown"]),
                             st.dictionaries(st.one_of(_IDS, _SOURCES), _STATUS, max_size=6), max_size=4),
)
def test_the_summary_s_findings_give_the_outcomes_and_the_deciding_places_of_all_of_them(
    files: list[tuple[str | None, str, str | None]],
    comps: list[tuple[str | None, str, str]],
    found: list[tuple[str | None, str | None, str, str, str, int | None, str | None]],
    statuses: dict[str, dict[str, str]],
) -> None:
    """A night in blocks keeps, of each block's findings, only ``summary_findings`` (flows/nightly.py):
    the file outcomes and the deciding finding of each refused file are the same on them."""
    f = pl.DataFrame(files, schema={"federation": pl.Utf8, "source": pl.Utf8, "format": pl.Utf8}, orient="row")
    c = pl.DataFrame(comps, schema={"federation": pl.Utf8, "competition_id": pl.Utf8, "source": pl.Utf8},
                     orient="row")
    x = pl.DataFrame(found, schema={"federation": pl.Utf8, "competition_id": pl.Utf8, "rule": pl.Utf8,
                                    "severity": pl.Utf8, "source": pl.Utf8, "line": pl.Int32, "field": pl.Utf8},
                     orient="row")
    kept = summary_findings(x)
    outcomes = file_outcomes(files=f, competitions=c, statuses=statuses, findings=x)
    assert file_outcomes(files=f, competitions=c, statuses=statuses, findings=kept) == outcomes
    assert deciding_findings(outcomes, kept) == deciding_findings(outcomes, x)

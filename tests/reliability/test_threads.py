"""validate() and the readers from several threads: no deadlock, the same answer.

The Dask runner of the performance work and Prefect's thread task runner call the
stages from several threads at once. polars ``to_pandas`` beside a ``collect`` that
called back into Python (``map_elements``) deadlocked: every thread waited at
near-zero CPU. The hot path now holds no Python callback and the pandas
conversion is serialised.
"""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pytest

from tests.validations.conftest import Batch

REPO = Path(__file__).resolve().parents[2]


def _batch() -> dict[str, pl.DataFrame]:
    b = Batch("egf")
    b.competition("T1", rounds=2, event_class="A", basic_time_min=45.0, adjusted_time_min=57.0)
    g = b.competition("T2", rounds=3, basic_time_min=70.0, adjusted_time_min=80.0)
    g[0].update(status="forfeit")
    b.competition("T3", rounds=3, event_class="Z", online=True, basic_time_min=40.0)
    b.players = [{"federation": "egf", "player_id": p, "name": f"P{p}", "declared_rank": r}
                 for p, r in zip("1234", ("3k", "1d", "x", "2p"), strict=True)]
    return b.frames()


@pytest.mark.timeout(300)
def test_validate_from_four_threads_in_a_loop_does_not_deadlock() -> None:
    """4 threads validating in a loop: Python callbacks inside polars expressions once hung it
    within 30 iterations."""
    from validations import validate

    f = _batch()

    def one(_: int) -> pl.DataFrame:
        return validate(f["competitions"], f["games"], federation="egf", players=f["players"]).findings

    expected = one(0)
    assert expected.height > 0
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(30):
            results = list(pool.map(one, range(4)))
            assert all(r.equals(expected) for r in results)


HOT_PATH = ("validations", "formats", "tasks")


def test_no_python_callbacks_in_polars_expressions_on_the_hot_path() -> None:
    """No ``map_elements`` / ``map_batches`` / ``apply`` on a polars expression in the stages."""
    offenders = []
    for package in HOT_PATH:
        for path in sorted((REPO / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and node.attr in {"map_elements", "map_batches"}:
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


def test_event_class_derivation_matches_the_scalar_rules() -> None:
    """The vectorised class derivation equals :func:`tournament_class` row by row."""
    from itertools import product

    from validations.egf import CLASS_ORDER, tournament_class
    from validations.tables import _aggregate

    cases = list(product((None, 20.0, 30.0, 45.0, 60.0), (None, 30.0, 55.0, 80.0), (False, True),
                         (None, "A", "B", "C", "D", "Z")))
    comps = pl.DataFrame({
        "row_id": list(range(len(cases))), "competition_id": [f"c{i}" for i in range(len(cases))],
        "name": ["x"] * len(cases), "start_date": [None] * len(cases), "end_date": [None] * len(cases),
        "source": ["s"] * len(cases), "rounds_declared": [None] * len(cases), "rounds": [3] * len(cases),
        "modality": [None] * len(cases), "results_public": [None] * len(cases),
        "event_class": [c[3] for c in cases], "basic_time_min": [c[0] for c in cases],
        "adjusted_time_min": [c[1] for c in cases], "online": [c[2] for c in cases],
        # What the readers declare for eligibility; not read by the class derivation.
        "language": [None] * len(cases), "time_control": [None] * len(cases),
    }, schema_overrides={"language": pl.Utf8, "time_control": pl.Utf8, "start_date": pl.Date, "end_date": pl.Date, "rounds_declared": pl.Int32,
                         "modality": pl.Utf8, "results_public": pl.Boolean, "event_class": pl.Utf8})
    g = pl.DataFrame(schema={"competition_id": pl.Utf8, "round": pl.Int32, "status": pl.Utf8})
    app = pl.DataFrame(schema={"competition_id": pl.Utf8, "player_id": pl.Utf8})
    result = _aggregate(comps, g, app, None).select("time_control_class", "event_class", "class_consistent")
    order = {c: i for i, c in enumerate(CLASS_ORDER)}
    rows = []
    for basic, adjusted, online, declared in cases:
        allowed = tournament_class(basic, adjusted, online=online) or ("none" if basic is not None else None)
        if allowed is None:
            rated = declared if declared in order else None
            ok = True
        elif allowed == "none":
            rated, ok = None, True
        else:
            within = declared in order and order[declared] >= order[allowed]
            rated = declared if within else allowed
            ok = True if declared is None else within
        rows.append((allowed, rated, ok))
    expected = pl.DataFrame(rows, schema=result.schema, orient="row")
    from polars.testing import assert_frame_equal

    assert_frame_equal(result, expected)


def test_grades_match_the_scalar_rule() -> None:
    from validations.egf import grade_expr, grade_value

    ranks = [None, "", "1k", "30k", "31k", "0k", "1d", "9d", "10d", "1p", "9P", " 5 K ", "x", "3kyu"]
    result = pl.DataFrame({"r": ranks}).select(grade_expr(pl.col("r"))).to_series().to_list()
    assert result == [grade_value(r) for r in ranks]

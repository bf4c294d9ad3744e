"""The rule table itself: well-formed, dated, and every message fillable from its table."""

from __future__ import annotations

import string
from datetime import date

import pytest

from tests.validations.conftest import Batch
from validations import RuleDefinitionError, load_rules, rules_for, rules_frame
from validations.rules import EXPECTS, SEVERITIES, TABLES, edition_of, editions, parse_rules
from validations.tables import build_tables

_GOOD = '''
[[rule]]
id = "x.r"
federations = ["x"]
severity = "warn"
table = "games"
expect = "between"
column = "round"
min = 1
message = "round {round}"
'''


@pytest.mark.parametrize(("patch", "error"), [
    (("severity = \"warn\"", "severity = \"fatal\""), "severity must be one of"),
    (("table = \"games\"", "table = \"moves\""), "table must be one of"),
    (("expect = \"between\"", "expect = \"regex\""), "expect must be one of"),
    (("min = 1", "colour = 1"), "unknown keys \\['colour'\\]"),
    (("min = 1", ""), "between\\) needs min or max"),
    (("column = \"round\"", ""), "lacks \\['column'\\]"),
    (("id = \"x.r\"", "id = \"\""), "without an id"),
    (("min = 1", "min = 1\neffective_from = \"2024-13-01\""), "effective_from must be an ISO date"),
    (("[[rule]]", "[[rule]"), "not valid TOML"),
])
def test_malformed_rules_are_refused_with_the_reason(patch: tuple[str, str], error: str) -> None:
    with pytest.raises(RuleDefinitionError, match=error):
        parse_rules(_GOOD.replace(*patch), origin="test.toml")


def test_packaged_table_is_well_formed() -> None:
    rules = load_rules()
    assert all(r.severity in SEVERITIES and r.table in TABLES and r.expect in EXPECTS for r in rules)
    assert all(r.field and r.source for r in rules), "each rule names the field to fix and its source"
    # One rule per id and federation in any edition: a suite maps failures back by id.
    for fed in ("ajusc", "fide", "egf"):
        for ed in editions(fed):
            ids = [r.id for r in rules_for(fed, ed or date(1900, 1, 1))]
            assert len(ids) == len(set(ids)), (fed, ed)


def test_every_message_placeholder_is_a_column_of_its_table() -> None:
    b = Batch("fide")
    b.competition("C")
    f = b.frames()
    tables = build_tables(f["competitions"], f["games"], federation="fide")
    for rule in load_rules():
        columns = set(tables.get(rule.table).columns) | {"min", "max"}
        fields = {name for _, name, _, _ in string.Formatter().parse(rule.message) if name}
        assert fields <= columns, (rule.id, fields - columns)
        assert set(rule.checked_columns) <= set(tables.get(rule.table).columns), rule.id


def test_editions_and_dating() -> None:
    assert editions("ajusc") == (None,)
    assert edition_of("fide", date(2011, 12, 31)) is None
    assert edition_of("fide", date(2024, 2, 29)) == date(2012, 1, 1)     # rapid and blitz rated from 2012
    assert edition_of("fide", date(2024, 3, 1)) == date(2024, 3, 1)
    old = {r.id: r for r in rules_for("egf", date(2020, 12, 31))}
    new = {r.id: r for r in rules_for("egf", date(2021, 1, 1))}
    assert "egf.event_class" not in old and new["egf.event_class"].severity == "warn"


def test_rules_frame_documents_every_rule() -> None:
    frame = rules_frame()
    assert frame.height == len(load_rules())
    assert frame.filter(frame["id"] == "ajusc.min_rounds").item(0, "severity") == "reject"


def test_readme_catalogue_matches_the_rule_table() -> None:
    from pathlib import Path

    from validations.rules import render_rules

    readme = (Path(__file__).resolve().parents[2] / "validations" / "README.md").read_text(encoding="utf-8")
    assert readme.rstrip().endswith(render_rules().rstrip()), "regenerate the catalogue with render_rules()"

"""``validate``: eligibility rules and data-quality suites over a batch of competitions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl

from formats.schema import COMPETITIONS_SCHEMA, FINDINGS_SCHEMA, GAMES_SCHEMA, empty
from validations import gx_process, row_checks
from validations.errors import GxProjectError
from validations.rules import SEVERITIES, Rule, edition_of, rules_for
from validations.suites import suite_name
from validations.tables import Tables, build_tables, start_dates


@dataclass(frozen=True)
class Validation:
    """What :func:`validate` decided for a batch."""

    competitions: pl.DataFrame  #: input + ``status``: accepted | held | rejected
    games: pl.DataFrame         #: input + bool ``rated`` (False: excluded, unplayed or rejected)
    findings: pl.DataFrame      #: FINDINGS_SCHEMA (eligibility + data quality)


def _great_expectations(federation: str, gx_root: Path | None, name: str, frame: pl.DataFrame,
                        columns: list[str], masks: dict[str, pl.Series]) -> None:
    """Suite ``name`` run by Great Expectations (in its own process, :mod:`validations.gx_process`)
    on ``columns`` of :func:`validations.row_checks.sample` of ``frame``; its verdict must be the row
    checks' own.

    Raises
    ------
    GxProjectError
        When they disagree on a row: the row checks no longer say what the suite says.
    """
    checked = row_checks.sample(frame, masks).select(columns)
    reported = {failure.rule_id: set(failure.row_ids)
                for failure in gx_process.call("run_suite", federation, None if gx_root is None else str(gx_root),
                                               name, checked)}
    differs = row_checks.disagreement(masks, frame, checked, reported)
    if differs is not None:
        raise GxProjectError(f"suite {name!r}: {differs}")


def _rule_index(federation: str, days: set[date | None]) -> dict[tuple[str, date | None], dict[str, Rule]]:
    """(table, edition) -> rule id -> rule, for the editions the batch touches."""
    index: dict[tuple[str, date | None], dict[str, Rule]] = {}
    for day in days:
        edition = edition_of(federation, day)
        for rule in rules_for(federation, edition or date(1900, 1, 1)):
            index.setdefault((rule.table, edition), {})[rule.id] = rule
    return index


def validate(
    competitions: pl.DataFrame,
    games: pl.DataFrame,
    *,
    federation: str,
    byes: pl.DataFrame | None = None,
    players: pl.DataFrame | None = None,
    ratings: pl.DataFrame | None = None,
    config: dict[str, Any] | None = None,
    gx_root: Path | None = None,
) -> Validation:
    """Check a batch of competitions against the federation's rules.

    Every rule of ``validations/rules.toml`` in force at a competition's start
    date runs as a Great Expectations expectation over a derived table; each
    unexpected row becomes a finding naming the file (``source``), the line (the
    game's ``source_line``; null for a whole-competition finding), the field and
    how to fix it.

    Parameters
    ----------
    competitions, games
        Canonical frames (``formats.schema``); ``games`` may lack optional columns.
    federation
        ``ajusc``, ``fide`` or ``egf``: chooses the rule set.
    byes, players, ratings
        Optional: byes count as participants; ``players`` gives declared ranks and
        ratings; ``ratings`` (the current list) tells rated from unrated players.
    config
        The federation's table of ``federations.toml``; ``eligibility`` names the
        rule set when it differs from the federation id.
    gx_root
        ``None``: an in-memory Great Expectations context. A folder: the file
        project there (created if absent), whose results feed Data Docs.

    Returns
    -------
    Validation
        ``competitions`` + ``status`` (rejected when any ``reject`` finding),
        ``games`` + ``rated`` (False for ``exclude`` findings, unplayed games and
        games of rejected competitions), and the findings.

    Raises
    ------
    UnknownFederationError
        When the federation has no rule set.

    Examples
    --------
    >>> from datetime import date
    >>> comps = pl.DataFrame({"competition_id": ["C1"], "start_date": [date(2025, 10, 4)],
    ...                       "source": ["c1.results.csv"]})
    >>> games = pl.DataFrame({"competition_id": ["C1"] * 2, "round": [1, 2],
    ...                       "player_a": ["1", "1"], "player_b": ["2", "2"],
    ...                       "score_a": [1.0, 0.0], "source_line": [2, 3]})
    >>> v = validate(comps, games, federation="ajusc")  # doctest: +SKIP
    >>> v.findings.select("rule", "severity", "line").sort("rule")  # doctest: +SKIP
    shape: (2, 3)
    ┌───────────────────┬──────────┬──────┐
    │ rule              ┆ severity ┆ line │
    │ ---               ┆ ---      ┆ ---  │
    │ str               ┆ str      ┆ i32  │
    ╞═══════════════════╪══════════╪══════╡
    │ ajusc.min_players ┆ reject   ┆ null │
    │ ajusc.min_rounds  ┆ reject   ┆ null │
    └───────────────────┴──────────┴──────┘
    """
    rule_set = str((config or {}).get("eligibility", federation))
    rules_for(rule_set, None)  # raises UnknownFederationError early
    if "competition_id" not in competitions.columns:
        competitions = empty(COMPETITIONS_SCHEMA)
    if "competition_id" not in games.columns:
        games = empty(GAMES_SCHEMA)
    tables = build_tables(competitions, games, federation=rule_set, byes=byes,
                          players=players, ratings=ratings)
    dates = start_dates(competitions)
    editions = {cid: edition_of(rule_set, day) for cid, day in dates.items()}
    index = _rule_index(rule_set, set(dates.values()) | {None})
    rows, excluded = _run_rules(tables, index, editions, rule_set, federation, gx_root)
    return _outcome(competitions, games, tables, _findings_frame(rows), excluded)


def _run_rules(
    tables: Tables, index: dict[tuple[str, date | None], dict[str, Rule]], editions: dict[Any, date | None],
    rule_set: str, federation: str, gx_root: Path | None,
) -> tuple[list[dict[str, Any]], set[int]]:
    """Every rule of ``index`` run over its table's rows of its edition: one finding row per
    unexpected row, and the ``row_id`` of each game a rule excludes."""
    sources = {cid: src for cid, src in tables.competitions.select("competition_id", "source").iter_rows()}
    rows: list[dict[str, Any]] = []
    excluded: set[int] = set()
    for (table_name, edition), by_id in sorted(index.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        frame = _rows_of_edition(tables, table_name, editions, edition, rule_set)
        if frame.is_empty():
            continue
        # Great Expectations needs only the checked columns (and row_id to report rows); the
        # findings and their messages come from the row checks, which it has confirmed.
        needed = ["row_id", *dict.fromkeys(c for r in by_id.values() for c in r.checked_columns)]
        masks = {rule_id: row_checks.failing(rule, frame) for rule_id, rule in by_id.items()}
        _great_expectations(rule_set, gx_root, suite_name(rule_set, table_name, edition), frame,
                            [c for c in needed if c in frame.columns], masks)
        for rule_id, rule in by_id.items():
            failing = frame.filter(masks[rule_id])
            if failing.is_empty():
                continue
            if rule.expect == "unique":
                # Every copy of a duplicated key fails; the first one is not the mistake.
                failing = failing.sort("row_id").filter(
                    pl.int_range(pl.len()).over(list(rule.columns)) > 0
                )
            for row in failing.iter_rows(named=True):
                cid = row.get("competition_id")
                rows.append({
                    "federation": federation,
                    "competition_id": cid,
                    "rule": rule.id,
                    "severity": rule.severity,
                    "message": rule.render_message(row),
                    "source": sources.get(cid),
                    "line": row.get("source_line"),
                    "field": rule.field,
                })
                if rule.severity == "exclude" and table_name == "games":
                    excluded.add(int(row["row_id"]))
    return rows, excluded


def _outcome(competitions: pl.DataFrame, games: pl.DataFrame, tables: Tables, findings: pl.DataFrame,
             excluded: set[int]) -> Validation:
    """Each competition's status and each game's ``rated``, from the findings."""
    rejected = set(findings.filter(pl.col("severity") == "reject")["competition_id"].drop_nulls().to_list())
    held = set(findings.filter(pl.col("severity") == "hold")["competition_id"].drop_nulls().to_list())
    # Held: loaded, not rated until the rating officer approves it (its games keep
    # ``rated``, so that an approval needs no re-validation).
    out_competitions = competitions.with_columns(
        pl.when(pl.col("competition_id").is_in(list(rejected))).then(pl.lit("rejected"))
        .when(pl.col("competition_id").is_in(list(held))).then(pl.lit("held"))
        .otherwise(pl.lit("accepted")).alias("status")
    )
    out_competitions = _with_rated_class(out_competitions, tables)
    # Rated: a played game, not excluded by a rule, in a competition that is not rejected.
    rated = tables.games.select(
        ((pl.col("status") == "played")
         & ~pl.col("row_id").is_in(sorted(excluded))
         & ~pl.col("competition_id").is_in(sorted(rejected)).fill_null(False)).fill_null(False)
    ).to_series()
    out_games = games.with_columns(rated.alias("rated"))
    return Validation(competitions=out_competitions, games=out_games, findings=findings)


def _with_rated_class(competitions: pl.DataFrame, tables: Tables) -> pl.DataFrame:
    """EGF: the class a competition is rated at, where its time control decides it.

    A declared class above what the time control allows is lowered (the finding
    ``egf.class_time_control`` says so); a missing one is filled in. Without a time
    control the declared class stays as it is.
    """
    derived = tables.aggregate.filter(
        pl.col("time_control_class").is_not_null() & pl.col("event_class").is_not_null()
    ).select("competition_id", pl.col("event_class").alias("_rated_class")).unique("competition_id")
    if derived.is_empty() or "competition_id" not in competitions.columns:
        return competitions
    if "event_class" not in competitions.columns:
        competitions = competitions.with_columns(pl.lit(None, pl.Utf8()).alias("event_class"))
    return competitions.join(derived, on="competition_id", how="left").with_columns(
        pl.coalesce("_rated_class", "event_class").alias("event_class")
    ).drop("_rated_class").select(competitions.columns)


def _rows_of_edition(
    tables: Tables, table_name: str, editions: dict[str | None, date | None],
    edition: date | None, federation: str,
) -> pl.DataFrame:
    frame = tables.get(table_name)
    if frame.is_empty():
        return frame
    if "competition_id" not in frame.columns:
        return frame
    ids = [cid for cid, e in editions.items() if e == edition]
    in_edition = pl.col("competition_id").is_in([c for c in ids if c is not None])
    if edition == edition_of(federation, None):
        # Rows of competitions missing from the competitions frame use today's rules.
        known = [c for c in editions if c is not None]
        in_edition = in_edition | ~pl.col("competition_id").is_in(known) | pl.col("competition_id").is_null()
    return frame.filter(in_edition)


_SEVERITY_ORDER = {s: i for i, s in enumerate(SEVERITIES)}


def _findings_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    if not rows:
        return empty(FINDINGS_SCHEMA)
    frame = pl.DataFrame(rows, schema=FINDINGS_SCHEMA).unique(maintain_order=True)
    return frame.with_columns(
        pl.col("severity").replace_strict(_SEVERITY_ORDER, default=len(SEVERITIES)).alias("_order")
    ).sort("competition_id", "_order", "line", "rule", nulls_last=True).drop("_order")

"""What-if: the stages of the ``whatif`` flow (``flows/whatif.py``), and its pure helpers.

The flow reads the federation's history from the warehouse, changes it as asked (a
player's entry rating or declared rank, a competition left out, a file added or
replacing its competition), re-rates it with the same code as the nightly run
(:func:`rating.rate`) and lists every player whose current rating would change.
Nothing here writes to the warehouse.

The history is read without its games, and re-rated from the seed in blocks of months
(:func:`rating.blocks.rate_in_blocks`): a block's games are read when it is rated, so memory
follows one block and the players, not the archive.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

import polars as pl

import warehouse
from formats.limits import check_value
from formats.schema import RATINGS_SCHEMA, conform
from rating.blocks import plan_history, rate_in_blocks
from tasks.ingest import BLOCK_GAMES, FederationBatch, copy_to_inbox, read_inbox
from tasks.runtime import create_table_artifact, get_run_logger, task

#: Columns of the answer, in order (DESIGN.md, CLI: ``ratings whatif``).
RIPPLE_SCHEMA: dict[str, pl.DataType] = {
    "player_id": pl.Utf8(),
    "name": pl.Utf8(),
    "rating_now": pl.Float64(),
    "rating_whatif": pl.Float64(),
    "delta": pl.Float64(),
}

#: Ratings closer than this are the same figure (both sides come from the same arithmetic).
TOLERANCE = 1e-9


class WhatIfError(ValueError):
    """A what-if that cannot be asked: an unknown player or competition, an unreadable file."""


@dataclass
class WhatIf:
    """The answer: every player whose current rating would change, largest |delta| first."""

    federation: str
    ripple: pl.DataFrame                                     #: RIPPLE_SCHEMA
    competitions_rated: int = 0
    added: dict[str, str] = field(default_factory=dict)      #: added competition -> status after validation
    #: ``ripple`` as the federation's lists print it: whole ratings where its system publishes
    #: them (the change is then the difference of the two whole figures); None: as ``ripple``.
    shown: pl.DataFrame | None = None


def as_published(ripple: pl.DataFrame, federation: str, config: Mapping[str, object]) -> pl.DataFrame:
    """The what-if's figures as the lists print them: whole, rounded half away from zero, where the
    federation's system publishes whole ratings; the change is the difference of the whole figures.

    Examples
    --------
    >>> r = pl.DataFrame({"player_id": ["17"], "name": ["M"], "rating_now": [1340.0], "rating_whatif": [1327.5],
    ...                   "delta": [-12.5]})
    >>> as_published(r, "ajusc", {}).row(0)
    ('17', 'M', 1340, 1328, -12)
    """
    import numpy as np

    from engine import system_for
    from engine.rounding import INTEGER_SYSTEMS, round_half_away_array

    if system_for(federation, config) not in INTEGER_SYSTEMS:
        return ripple

    def whole(column: str) -> pl.Series:
        values = ripple.get_column(column).cast(pl.Float64).fill_null(np.nan).to_numpy().astype(np.float64)
        return pl.Series(column, round_half_away_array(values)).fill_nan(None).cast(pl.Int64)

    now, then = whole("rating_now"), whole("rating_whatif")
    return ripple.with_columns(now, then, (then - now).alias("delta"))


def added_outcome(batch: FederationBatch) -> dict[str, str]:
    """Each added competition's status after validation; a refused one with its deciding finding
    (rule, message, file, line and field), as the night's report would give it.

    Examples
    --------
    >>> from formats.schema import FINDINGS_SCHEMA
    >>> comps = pl.DataFrame({"competition_id": ["C-1"], "status": ["rejected"]})
    >>> found = conform(pl.DataFrame({"competition_id": ["C-1"], "rule": ["ajusc.min_rounds"], "severity": ["reject"],
    ...     "message": ["3 rounds, at least 5 needed"], "source": ["c1.results.csv"], "line": [None], "field": [None]}),
    ...     FINDINGS_SCHEMA)
    >>> added_outcome(FederationBatch(federation="ajusc", competitions=comps, findings=found))
    {'C-1': 'rejected: ajusc.min_rounds: 3 rounds, at least 5 needed (c1.results.csv)'}
    """
    out: dict[str, str] = {}
    for cid, status in batch.competitions.select("competition_id", "status").iter_rows():
        text = str(status)
        deciding = {"rejected": "reject", "held": "hold"}.get(text)
        if deciding is not None and batch.findings.height:
            found = batch.findings.filter((pl.col("competition_id") == cid) & (pl.col("severity") == deciding))
            if found.height:
                text = f"{text}: {where_found(found.row(0, named=True))}"
        out[str(cid)] = text
    return out


def where_found(finding: Mapping[str, object]) -> str:
    """A finding in one line: ``rule: message (file, line N, field F)``.

    >>> where_found({"rule": "format.date", "message": "not a date", "source": "a.csv", "line": 3, "field": "end_date"})
    "format.date: not a date (a.csv, line 3, field 'end_date')"
    """
    at = [str(finding["source"])] if finding.get("source") else []
    if finding.get("line") is not None:
        at.append(f"line {finding['line']}")
    if finding.get("field"):
        at.append(f"field {finding['field']!r}")
    return f"{finding['rule']}: {finding['message']}" + (f" ({', '.join(at)})" if at else "")


def parse_assignment(text: str, option: str, what: str) -> tuple[str, str]:
    """``"1001=1250"`` -> ``("1001", "1250")``.

    Raises
    ------
    WhatIfError
        Not ``PLAYER=VALUE``.

    Examples
    --------
    >>> parse_assignment("1001=1250", "--set-rating", "RATING")
    ('1001', '1250')
    """
    player, sep, value = text.partition("=")
    if not sep or not player.strip() or not value.strip():
        raise WhatIfError(f"{option} expects PLAYER={what}, not {text!r}")
    return player.strip(), value.strip()


def _known_players(history: warehouse.History, batch: FederationBatch, in_games: set[str]) -> set[str]:
    ids: set[str] = set(history.seed.get_column("player_id").to_list()) | in_games
    ids |= set(history.players.get_column("player_id").to_list())
    ids |= set(batch.players.get_column("player_id").to_list())
    for frame in (history.games, batch.games):
        ids |= set(frame.get_column("player_a").to_list()) | set(frame.get_column("player_b").to_list())
    ids.discard(None)
    return ids


def check_request(
    history: warehouse.History,
    batch: FederationBatch,
    *,
    set_rating: Mapping[str, float],
    set_rank: Mapping[str, str],
    exclude: Sequence[str],
    in_games: set[str] | None = None,
) -> None:
    """Refuse, with one line, a what-if about a player or competition the federation does not know.

    ``in_games``: the players the stored games name, when ``history`` was read without its games
    (:func:`warehouse.players_of_games`).

    Raises
    ------
    WhatIfError
        An unknown player, a declared rank for a seeded player (the seeded rating wins),
        an invalid grade, or an unknown competition.
    """
    from engine import egf_gor

    federation = batch.federation
    for player, rating in set_rating.items():
        why = check_value("rating", rating)   # 1e999 is inf, nan compares with nothing
        if why is not None:
            raise WhatIfError(f"--set-rating {player}={rating!r}: {why}")
    known = _known_players(history, batch, in_games or set())
    for option, players in (("--set-rating", set_rating), ("--set-rank", set_rank)):
        for player in players:
            if player not in known:
                raise WhatIfError(f"{option}: unknown {federation} player {player!r}")
    seeded = set(history.seed.get_column("player_id").to_list())
    for player, rank in set_rank.items():
        if player in seeded:
            raise WhatIfError(
                f"--set-rank: {federation} player {player!r} is on the seeded list, whose rating wins over a "
                "declared rank: use --set-rating"
            )
        try:
            egf_gor.grade_rating(rank)
        except ValueError as error:
            raise WhatIfError(f"--set-rank {player}={rank}: {error}") from None
    competitions = set(history.competitions.get_column("competition_id").to_list())
    for competition in exclude:
        if competition not in competitions:
            raise WhatIfError(f"--exclude: unknown {federation} competition {competition!r}")


def apply_changes(
    history: warehouse.History,
    *,
    set_rating: Mapping[str, float] | None = None,
    set_rank: Mapping[str, str] | None = None,
    exclude: Iterable[str] = (),
) -> warehouse.History:
    """The history as it would be with the change (pure; the warehouse is not touched).

    ``set_rating``: the player's entry rating, on the seeded list (a player not on it
    is added to it with no games, as a newcomer starting from that rating).
    ``set_rank``: the declared grade an EGF newcomer starts from (a declared rating
    in the files is dropped, since it would win over the grade). ``exclude``: the
    competitions left out, games and all.

    Examples
    --------
    >>> from formats.schema import empty, COMPETITIONS_SCHEMA, GAMES_SCHEMA, PLAYERS_SCHEMA
    >>> seed = conform(pl.DataFrame({"player_id": ["7"], "rating": [1100.0], "games": [60]}), RATINGS_SCHEMA)
    >>> h = warehouse.History(seed, empty(COMPETITIONS_SCHEMA), empty(GAMES_SCHEMA), empty(PLAYERS_SCHEMA))
    >>> apply_changes(h, set_rating={"7": 1250.0, "8": 990.0}).seed.select("player_id", "rating", "games").rows()
    [('7', 1250.0, 60), ('8', 990.0, 0)]
    """
    set_rating = dict(set_rating or {})
    set_rank = dict(set_rank or {})
    excluded = list(exclude)
    seed = history.seed
    if set_rating:
        federation = seed.get_column("federation").drop_nulls().first() if seed.height else None
        newcomers = [p for p in set_rating if p not in set(seed.get_column("player_id").to_list())]
        names = dict(history.players.select("player_id", "name").iter_rows())
        added = conform(
            pl.DataFrame({
                "federation": [federation] * len(newcomers), "player_id": newcomers,
                "name": [names.get(p) for p in newcomers], "rating": [set_rating[p] for p in newcomers],
                "games": [0] * len(newcomers),
            }, schema_overrides={"federation": pl.Utf8, "name": pl.Utf8}),
            RATINGS_SCHEMA,
        )
        new_rating = pl.col("player_id").replace_strict(set_rating, default=None, return_dtype=pl.Float64)
        seed = pl.concat([
            seed.with_columns(pl.coalesce(new_rating, pl.col("rating")).alias("rating")),
            added,
        ]).sort("player_id")
    players = history.players
    if set_rank:
        rank = pl.col("player_id").replace_strict(set_rank, default=None, return_dtype=pl.Utf8)
        missing = [p for p in set_rank if p not in set(players.get_column("player_id").to_list())]
        if missing:
            players = pl.concat([players, conform(pl.DataFrame({"player_id": missing}), dict(players.schema))])
        chosen = pl.col("player_id").is_in(list(set_rank))
        players = players.with_columns(
            pl.coalesce(rank, pl.col("declared_rank")).alias("declared_rank"),
            pl.when(chosen).then(None).otherwise(pl.col("declared_rating")).alias("declared_rating"),
        )
    competitions, games = history.competitions, history.games
    if excluded:
        competitions = competitions.filter(~pl.col("competition_id").is_in(excluded))
        games = games.filter(~pl.col("competition_id").is_in(excluded))
    return replace(history, seed=seed, competitions=competitions, games=games, players=players)


def ripple(now: pl.DataFrame, whatif: pl.DataFrame) -> pl.DataFrame:
    """Every player whose rating differs between two states, largest |delta| first.

    A player on one side only (a newcomer of an added file, a player of an excluded
    competition only) is listed with the other side empty and no delta, after the others.

    Examples
    --------
    >>> now = pl.DataFrame({"player_id": ["1", "2", "3"], "name": ["A", "B", "C"], "rating": [1000.0, 1100.0, 1200.0]})
    >>> new = pl.DataFrame({"player_id": ["1", "2", "3"], "name": ["A", "B", "C"], "rating": [1003.0, 1100.0, 1190.0]})
    >>> ripple(now, new).rows()
    [('3', 'C', 1200.0, 1190.0, -10.0), ('1', 'A', 1000.0, 1003.0, 3.0)]
    """
    left = now.select("player_id", pl.col("name").alias("_name_now"), pl.col("rating").alias("rating_now"))
    right = whatif.select("player_id", "name", pl.col("rating").alias("rating_whatif"))
    joined = left.join(right, on="player_id", how="full", coalesce=True).with_columns(
        pl.coalesce("name", "_name_now").alias("name"),
        (pl.col("rating_whatif") - pl.col("rating_now")).alias("delta"),
    )
    changed = joined.filter(
        (pl.col("rating_now").is_null() != pl.col("rating_whatif").is_null())
        | (pl.col("delta").abs() > TOLERANCE)
    )
    return (
        changed.with_columns(pl.col("delta").abs().alias("_size"))
        .sort(["_size", "player_id"], descending=[True, False], nulls_last=True)
        .select(list(RIPPLE_SCHEMA))
        .cast(RIPPLE_SCHEMA)  # type: ignore[arg-type]
    )


def read_added(paths: Sequence[str | Path], federation: str) -> FederationBatch:
    """Read the added files as the nightly run reads its inbox (one batch of ``federation``).

    Raises
    ------
    WhatIfError
        A file is missing, unreadable, or holds no competition of ``federation``.
    """
    if not paths:
        return FederationBatch(federation=federation)
    with tempfile.TemporaryDirectory(prefix="ratings-whatif-") as folder:
        inbox = Path(folder)
        copy_to_inbox(paths, inbox, error=WhatIfError, label="--add ")
        ingested = read_inbox(inbox, set(), federation)
    batch = ingested.batches.get(federation, FederationBatch(federation=federation))
    unreadable = batch.findings.filter(pl.col("competition_id").is_null() & (pl.col("severity") == "reject"))
    if unreadable.height:
        first = unreadable.row(0, named=True)
        line = f", line {first['line']}" if first.get("line") is not None else ""
        raise WhatIfError(f"--add {first['source']}: cannot read the file{line}: {first['message']}")
    if not batch.competitions.height:
        names = ", ".join(str(p) for p in paths)
        raise WhatIfError(f"--add {names}: no {federation} competition in the file(s)")
    return batch


@dataclass(frozen=True)
class State:
    """What the warehouse holds for one federation (read once, never written)."""

    history: warehouse.History   #: without its games (``games_from=date.max``): read block by block
    ratings: pl.DataFrame        #: the current ratings (the seed when nothing is rated yet)
    in_games: set[str] = field(default_factory=set)   #: every player the stored games name
    #: ``competition_id, games``: the size of each stored competition (the blocks are planned by it)
    sizes: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema={"competition_id": pl.Utf8,
                                                                             "games": pl.Int64}))


def _read(warehouse_url: str | None, federation: str) -> State:
    db = warehouse.get_engine(warehouse_url)
    history = warehouse.history(db, federation, games_from=date.max)   # everything but the games
    current = warehouse.current_ratings(db, federation)
    return State(history=history, ratings=current if current.height else history.seed,
                 in_games=warehouse.players_of_games(db, federation),
                 sizes=warehouse.games_per_competition(db, federation))


@task(name="read_state")
def read_state(warehouse_url: str | None, federation: str) -> State:
    """The federation's history (without its games), current ratings, and what the games name."""
    return _read(warehouse_url, federation)


@task(name="read_added")
def read_added_files(paths: list[str], federation: str) -> FederationBatch:
    """The added files, read as the nightly run reads its inbox."""
    return read_added(paths, federation)


def check_whatif(
    warehouse_url: str | None,
    federation: str,
    *,
    set_rating: Mapping[str, float],
    set_rank: Mapping[str, str],
    exclude: Sequence[str],
    add: Sequence[str],
) -> None:
    """Refuse an unknown player, competition or file in one line, before a what-if runs
    (``ratings whatif`` calls it before starting the flow).

    Raises
    ------
    WhatIfError
        As :func:`check_request` and :func:`read_added`.
    """
    state = _read(warehouse_url, federation)
    check_request(state.history, read_added(add, federation), set_rating=set_rating, set_rank=set_rank,
                  exclude=exclude, in_games=state.in_games)


@task(name="rate_whatif")
def rate_whatif(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object], as_of: date | None,
    warehouse_url: str | None = None, sizes: pl.DataFrame | None = None, block_games: int = BLOCK_GAMES,
) -> tuple[pl.DataFrame, int]:
    """The ratings the changed history gives (the nightly run's own rating code), and how
    many competitions were rated.

    ``history`` holds no games: they are read from ``warehouse_url`` block by block, in blocks
    of about ``block_games`` games (``sizes``: each stored competition's games; 0: one block).
    """
    sizes = sizes if sizes is not None else pl.DataFrame(schema={"competition_id": pl.Utf8, "games": pl.Int64})
    replaced = batch.competitions.get_column("competition_id").implode()
    everything = pl.concat([history.competitions.filter(~pl.col("competition_id").is_in(replaced))
                            .select("competition_id", "start_date", "end_date"),
                            batch.competitions.select("competition_id", "start_date", "end_date")])
    added = batch.games.group_by("competition_id").agg(pl.len().cast(pl.Int64).alias("games"))
    blocks = plan_history(everything, pl.concat([sizes.filter(~pl.col("competition_id").is_in(replaced)), added]),
                          block_games)
    rated = rate_in_blocks(warehouse.get_engine(warehouse_url), history, batch, blocks, config, as_of)
    if len(blocks) > 1:
        get_run_logger().info("%s: re-rated from the seed in %d blocks of months", batch.federation, len(blocks))
    return rated.run.ratings, rated.competitions.height


@task(name="report_whatif")
def report_whatif(result: WhatIf) -> None:
    """The ripple as a table artifact (its first 1,000 rows) and one log line."""
    create_table_artifact(
        key=f"whatif-{result.federation}",
        table=(result.ripple if result.shown is None else result.shown).head(1000).to_dicts(),
        description=f"What-if for {result.federation}: {result.ripple.height} player(s) would change",
    )
    get_run_logger().info("%s: %d competition(s) re-rated, %d player(s) would change", result.federation,
                          result.competitions_rated, result.ripple.height)

"""Canonical frames shared by every stage (``../shared/DESIGN.md``, "Canonical frames").

Every reader turns a federation's file into these frames before any other step,
the way a staging model renames and converts columns ahead of the marts. The
schemas are the contract: later stages may rely on the column names and dtypes
below, and new columns are only ever *added*.

Pure constants: no IO, importable from any package (``engine`` excepted, which
imports nothing of the others: the schemas of the frames it reads and writes are
defined in ``engine._frames`` and imported here).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any

import polars as pl

from engine import _frames

# The engine's frames are defined where the engine, the lowest layer, can import them.
RATINGS_SCHEMA: dict[str, pl.DataType] = _frames.RATINGS_SCHEMA
RATING_CHANGES_SCHEMA: dict[str, pl.DataType] = _frames.RATING_CHANGES_SCHEMA
EXPLANATIONS_SCHEMA: dict[str, pl.DataType] = _frames.EXPLANATIONS_SCHEMA
RATING_LIST_SCHEMA: dict[str, pl.DataType] = _frames.RATING_LIST_SCHEMA

#: One row per competition (tournament / championship) found in a file.
COMPETITIONS_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "competition_id": pl.Utf8(),
    "name": pl.Utf8(),
    "start_date": pl.Date(),
    "end_date": pl.Date(),
    "rounds": pl.Int32(),           # rounds with games in the file
    "modality": pl.Utf8(),          # classic, duplicate, rapid, blitz, standard, ...
    "results_public": pl.Boolean(),
    "event_class": pl.Utf8(),       # EGF tournament class A/B/C/D (null elsewhere)
    "source": pl.Utf8(),            # file name the competition was read from
    "source_sha256": pl.Utf8(),     # checksum of that file's bytes
    "rounds_declared": pl.Int32(),  # rounds the file announces (TRF XXR, OpenGotha numberOfRounds); null if unsaid
    "organiser_email": pl.Utf8(),   # who receives the report (interchange organiser_email); null: the registry's
}

#: Eligibility facts a native file declares about a competition, carried beside
#: ``COMPETITIONS_SCHEMA`` from the readers to validation (not stored in the warehouse):
#: null where the format cannot say.
DECLARATIONS_SCHEMA: dict[str, pl.DataType] = {
    "language": pl.Utf8(),          # ISO 639-1 of the declared lexicon (ca, en ...); "undeclared": could say, did not
    "online": pl.Boolean(),         # played on a server (lichess, chess.com ...); null if unsaid
    "time_control": pl.Utf8(),      # the time control as the file states it (TRF 122); null if unsaid
}

#: One row per player appearing in a file (or a players list).
PLAYERS_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "player_id": pl.Utf8(),
    "name": pl.Utf8(),
    "country": pl.Utf8(),
    "club": pl.Utf8(),
    "birth_year": pl.Int32(),
    "declared_rank": pl.Utf8(),     # EGF grade as declared in the file ("3k", "1d")
    "declared_rating": pl.Float64(),  # rating printed in the file (TRF, OpenGotha); null if none
    "declared_rating_origin": pl.Utf8(),  # whose list that rating comes from: FIDE, EGF, FFG, ...; null if unsaid
}

#: One row per game. ``score_a`` is 1, 0.5 or 0 for ``player_a`` (null when unknown).
GAMES_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "competition_id": pl.Utf8(),
    "round": pl.Int32(),
    "player_a": pl.Utf8(),
    "player_b": pl.Utf8(),
    "score_a": pl.Float64(),
    "status": pl.Utf8(),            # played | forfeit | unknown
    "handicap": pl.Int32(),         # Go: stones given by player_a (negative: received)
    "colour_a": pl.Utf8(),          # w | b | null
    "source_line": pl.Int32(),      # 1-based line (or element line) in the source file
}

#: Byes are not games; readers drop them from ``games`` but keep them here for reports.
BYES_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "competition_id": pl.Utf8(),
    "round": pl.Int32(),
    "player_id": pl.Utf8(),
    "kind": pl.Utf8(),              # full | half | zero | pairing | absent
    "source_line": pl.Int32(),
}

#: What every check (reader, eligibility rule, Great Expectations suite) produces.
FINDINGS_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "competition_id": pl.Utf8(),    # null when a file could not be tied to a competition
    "rule": pl.Utf8(),              # stable id, e.g. "ajusc.min_rounds", "format.trf.bad_result"
    "severity": pl.Utf8(),          # reject | hold | exclude | warn
    "message": pl.Utf8(),           # what is wrong and how to fix it
    "source": pl.Utf8(),            # file name
    "line": pl.Int32(),             # 1-based line in that file (null: whole file/competition)
    "field": pl.Utf8(),             # column / record field concerned (null: whole line)
}

#: Same person under another id or spelling (``*.aliases.csv``): ``alias`` -> ``player_id``.
ALIASES_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "alias": pl.Utf8(),             # an id or a name as some file spells it
    "player_id": pl.Utf8(),         # the federation's id of that person
}

def empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """An empty frame with ``schema``.

    Examples
    --------
    >>> empty(BYES_SCHEMA).columns
    ['federation', 'competition_id', 'round', 'player_id', 'kind', 'source_line']
    """
    key = tuple(schema.items())
    held = _EMPTY.get(key)
    if held is None:
        held = _EMPTY[key] = pl.DataFrame(schema=schema)
    return held.clear()  # a new frame object: building one from the schema costs ~100x more


_EMPTY: dict[tuple[tuple[str, pl.DataType], ...], pl.DataFrame] = {}


def conform(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Select and cast ``frame`` to ``schema``; missing columns become nulls.

    Extra columns are dropped, so a frame that gained columns upstream still
    satisfies the contract downstream.

    Examples
    --------
    >>> conform(pl.DataFrame({"player_id": ["7"], "rating": [1100]}), RATINGS_SCHEMA).row(0)
    (None, '7', None, 1100.0, None, None, None, None, None, None)
    """
    if frame.width == 0:
        # Selecting literals from a frame without columns would make one row of nulls.
        return empty(schema)
    if frame.columns == list(schema) and frame.dtypes == list(schema.values()):
        return frame  # already conforming: a select would cost a query per frame
    cols = [
        (pl.col(name).cast(dtype, strict=False) if name in frame.columns else pl.lit(None, dtype)).alias(name)
        for name, dtype in schema.items()
    ]
    return frame.select(cols)


#: The Python type each column type takes as is (``bool`` is not an ``int`` here, nor a datetime a date).
_PLAIN_TYPES: dict[type[pl.DataType], type] = {
    pl.Utf8: str, pl.Int32: int, pl.Int64: int, pl.Float64: float, pl.Date: date, pl.Boolean: bool,
}
_PLAIN: dict[tuple[tuple[str, pl.DataType], ...], list[tuple[str, type]] | None] = {}


def plain_frame(rows: Sequence[Mapping[str, Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame | None:
    """``rows`` as a frame of ``schema`` when every value already has its column's Python type
    (``str`` for text, ``int`` for integers, ``float``, ``date``, ``bool``, or None); else None.

    The fast way to build a small frame (one call into polars, ~3x faster than a series a
    column). A value of another type is left to the caller's strict, column by
    column construction, which names it; a value too large for its column raises
    ``polars.exceptions.ComputeError``.

    Examples
    --------
    >>> plain_frame([{"player_id": "7", "round": 2}], BYES_SCHEMA).row(0)
    (None, None, 2, '7', None, None)
    >>> plain_frame([{"player_id": 7}], BYES_SCHEMA) is None
    True
    """
    key = tuple(schema.items())
    if key not in _PLAIN:
        found = [(name, _PLAIN_TYPES.get(type(dtype))) for name, dtype in schema.items()]
        _PLAIN[key] = [(n, k) for n, k in found if k is not None] if all(k for _, k in found) else None
    kinds = _PLAIN[key]
    if kinds is None:
        return None
    for name, kind in kinds:
        for row in rows:
            value = row.get(name)
            if value is not None and type(value) is not kind:
                return None
    return pl.from_dicts(rows, schema=schema, strict=True)


def merge_players(players: pl.DataFrame) -> pl.DataFrame:
    """One row per player (``federation``, ``player_id``, in first-seen order): the last non-null
    value of each column, the rows in order (older files first).

    A file that names a player without a detail (a results file gives no birth year) must not
    blank what an earlier file gave: FIDE's K-factor of a junior comes from the birth year, so a
    blanked one re-rates the player's whole history. The warehouse keeps players the same way
    (later files fill what was missing; nulls never erase).

    Examples
    --------
    >>> older = pl.DataFrame({"federation": ["fide"] * 2, "player_id": ["1", "2"], "birth_year": [2008, 1970],
    ...                       "name": ["Ann", "Bo"]})
    >>> tonight = pl.DataFrame({"federation": ["fide"], "player_id": ["1"], "birth_year": [None],
    ...                         "name": ["Anna"]})
    >>> merge_players(pl.concat([older, tonight], how="diagonal_relaxed")).rows()
    [('fide', '1', 2008, 'Anna'), ('fide', '2', 1970, 'Bo')]
    """
    if players.height == 0:
        return players
    key = ["federation", "player_id"]
    return players.group_by(key, maintain_order=True).agg(
        [pl.col(c).drop_nulls().last() for c in players.columns if c not in key]
    ).select(players.columns)


def concat(frames: Iterable[pl.DataFrame], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Concatenate frames that may carry extra columns; the result keeps the schema's
    columns first and any extra columns (``status``, ``rated``) after them.

    Examples
    --------
    >>> from formats.schema import BYES_SCHEMA
    >>> concat([], BYES_SCHEMA).height
    0

    Empty frames still bring their extra columns, so that a night whose batch holds no
    competition (only unreadable files) still has a ``status`` column downstream:

    >>> from formats.schema import COMPETITIONS_SCHEMA
    >>> validated = empty(COMPETITIONS_SCHEMA).with_columns(pl.lit("accepted").alias("status"))
    >>> "status" in concat([empty(COMPETITIONS_SCHEMA), validated], COMPETITIONS_SCHEMA).columns
    True
    """
    given = [f for f in frames if f is not None]
    extra: dict[str, pl.DataType] = {}
    for frame in given:
        for name, dtype in zip(frame.columns, frame.dtypes, strict=True):
            if name not in schema:
                extra.setdefault(name, dtype)
    full = {**schema, **extra}
    parts = [f for f in given if f.height > 0]
    if not parts:
        return empty(full)
    if all(f.columns == parts[0].columns and f.dtypes == parts[0].dtypes for f in parts):
        return conform(pl.concat(parts), full)  # one query for thousands of files, not one a file
    return pl.concat([conform(f, full) for f in parts], how="vertical_relaxed")

"""The value every reader returns: :class:`ReadResult` (``docs/CONTRACTS.md``)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from formats._common import Findings, FormatError
from formats.schema import (
    ALIASES_SCHEMA,
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATINGS_SCHEMA,
    conform,
    empty,
    plain_frame,
)

__all__ = ["FieldValueError", "ReadResult", "bye_row", "frame", "sha256", "single_competition"]


def sha256(data: bytes) -> str:
    """Hex sha256 of a file's bytes (the load ledger's key)."""
    return hashlib.sha256(data).hexdigest()


class FieldValueError(FormatError):
    """A value a reader produced cannot be stored in its column (too large, wrong type)."""

    def __init__(self, message: str, *, field: str, line: int | None) -> None:
        super().__init__(message)
        self.field = field  #: the column
        self.line = line    #: the row's source line, when the row has one


def frame(rows: Sequence[Mapping[str, Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Rows of plain values as a frame of ``schema`` (empty rows: an empty frame).

    Built strictly: a value that does not fit its column (``99999999999999999999``
    games, a name where a number belongs) raises :class:`FieldValueError` naming the
    field and line, instead of becoming a silent null.

    Examples
    --------
    >>> frame([{"player_id": "7", "kind": "half"}], BYES_SCHEMA).row(0)
    (None, None, None, '7', 'half', None)
    >>> frame([{"round": 99999999999999999999, "source_line": 4}], BYES_SCHEMA)
    Traceback (most recent call last):
    formats.result.FieldValueError: field 'round': 99999999999999999999 on line 4 does not fit a 32-bit integer column
    """
    if not rows:
        return empty(schema)
    try:
        built = plain_frame(rows, schema)
        if built is not None:
            return built
    except pl.exceptions.PolarsError:
        pass  # a value out of its column's range: named below
    data = {n: [r.get(n) for r in rows] for n in schema}
    try:
        return pl.DataFrame([pl.Series(n, data[n], dtype=dtype, strict=True) for n, dtype in schema.items()])
    except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
        raise _unfit(data, schema) from None


def _unfit(data: dict[str, list[Any]], schema: dict[str, pl.DataType]) -> FieldValueError:
    """The first value of ``data`` that does not fit its column, as an error."""
    lines = data.get("source_line") or [None] * len(next(iter(data.values()), []))
    for name, dtype in schema.items():
        for i, value in enumerate(data[name]):
            try:
                pl.Series(name, [value], dtype=dtype, strict=True)
            except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
                line = lines[i] if i < len(lines) and isinstance(lines[i], int) else None
                kind = {pl.Int32(): "a 32-bit integer", pl.Int64(): "a 64-bit integer",
                        pl.Float64(): "a number", pl.Utf8(): "a text", pl.Date(): "a date",
                        pl.Boolean(): "a true/false"}.get(dtype, str(dtype))
                shown = repr(value) if not isinstance(value, int) else str(value)
                where = f" on line {line}" if line is not None else f" (row {i + 1})"
                return FieldValueError(f"field {name!r}: {shown}{where} does not fit {kind} column",
                                       field=name, line=line)
    return FieldValueError("a value does not fit its column", field="?", line=None)


def _empty_players() -> pl.DataFrame:
    return empty(PLAYERS_SCHEMA)


@dataclass(frozen=True)
class ReadResult:
    """What one file (or one Swiss Perfect tournament folder) holds, as canonical frames.

    Examples
    --------
    >>> r = ReadResult.refused("x.bin", b"\\x00", "format.unknown", "not a results file")
    >>> r.format, r.games.height, r.findings.row(0)[2:4]
    (None, 0, ('format.unknown', 'reject'))
    """

    source: str  #: file name
    source_sha256: str  #: sha256 of the file's bytes
    format: str | None  #: detected format ("trf", "opengotha", ...), None when not recognised
    competitions: pl.DataFrame  #: COMPETITIONS_SCHEMA
    players: pl.DataFrame  #: PLAYERS_SCHEMA
    games: pl.DataFrame  #: GAMES_SCHEMA (byes are not games)
    byes: pl.DataFrame  #: BYES_SCHEMA
    findings: pl.DataFrame  #: FINDINGS_SCHEMA: what could not be read, with line and field
    #: RATINGS_SCHEMA: a starting list (``*.ratings.csv``, EGD ``allworld_lp``); empty otherwise.
    ratings: pl.DataFrame = field(default_factory=lambda: empty(RATINGS_SCHEMA))
    #: ALIASES_SCHEMA: an alias table (``*.aliases.csv``); empty otherwise.
    aliases: pl.DataFrame = field(default_factory=lambda: empty(ALIASES_SCHEMA))
    #: The edition number a starting list declares (optional ``edition`` column of
    #: ``*.ratings.csv``, DESIGN.md *Publication*); later editions are numbered from it.
    list_edition: int | None = None

    @property
    def ok(self) -> bool:
        """True when no finding rejects anything in the file."""
        return self.findings.filter(pl.col("severity") == "reject").height == 0

    def with_aliases(self, aliases: pl.DataFrame) -> ReadResult:
        """The same result with every player id rewritten through an alias table (``ALIASES_SCHEMA``).

        Players that become one are merged (the first non-null value of each column wins).

        Examples
        --------
        >>> from formats.interchange import from_interchange
        >>> r = from_interchange(b"federation,competition_id,start_date,round,player_a,player_b,score_a\\n"
        ...                      b"egf,C,2025-10-04,1,name:jan-kowalski,7,1\\n", "c.results.csv")
        >>> a = pl.DataFrame({"federation": ["egf"], "alias": ["Kowalski, Jan"], "player_id": ["10950"]})
        >>> r.with_aliases(a).games.select("player_a", "player_b").row(0)
        ('10950', '7')
        """
        from formats.identity import apply_aliases

        if aliases.height == 0:
            return self
        feds = set(aliases["federation"].drop_nulls())

        def each(frame: pl.DataFrame, cols: tuple[str, ...]) -> pl.DataFrame:
            for fed in feds:
                frame = apply_aliases(frame, aliases, fed, cols)
            return frame

        players = each(self.players, ("player_id",))
        if players.height:
            players = players.group_by("federation", "player_id", maintain_order=True).agg(
                [
                    pl.col(c).drop_nulls().first()
                    for c in players.columns
                    if c not in ("federation", "player_id")
                ]
            )
        return ReadResult(
            source=self.source,
            source_sha256=self.source_sha256,
            format=self.format,
            competitions=self.competitions,
            players=conform(players, PLAYERS_SCHEMA),
            games=each(self.games, ("player_a", "player_b")),
            byes=each(self.byes, ("player_id",)),
            findings=self.findings,
            ratings=each(self.ratings, ("player_id",)),
            aliases=self.aliases,
            list_edition=self.list_edition,
        )

    @classmethod
    def build(
        cls,
        source: str,
        data_sha256: str,
        fmt: str | None,
        findings: Findings,
        *,
        competitions: pl.DataFrame | None = None,
        players: pl.DataFrame | None = None,
        games: pl.DataFrame | None = None,
        byes: pl.DataFrame | None = None,
        ratings: pl.DataFrame | None = None,
        aliases: pl.DataFrame | None = None,
        list_edition: int | None = None,
    ) -> ReadResult:
        """Assemble a result, conforming every frame to its schema."""

        def c(f: pl.DataFrame | None, schema: dict[str, pl.DataType]) -> pl.DataFrame:
            return empty(schema) if f is None else conform(f, schema)

        return cls(
            source=source,
            source_sha256=data_sha256,
            format=fmt,
            competitions=c(competitions, COMPETITIONS_SCHEMA),
            players=c(players, PLAYERS_SCHEMA),
            games=c(games, GAMES_SCHEMA),
            byes=c(byes, BYES_SCHEMA),
            findings=findings.frame(),
            ratings=c(ratings, RATINGS_SCHEMA),
            aliases=c(aliases, ALIASES_SCHEMA),
            list_edition=list_edition,
        )

    @classmethod
    def refused(
        cls,
        source: str,
        data: bytes,
        rule: str,
        message: str,
        *,
        fmt: str | None = None,
        federation: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> ReadResult:
        """A file refused as a whole with one ``reject`` finding."""
        f = Findings(source, federation)
        f.add(rule, "reject", message, line=line, field=field)
        return cls.build(source, sha256(data), fmt, f)


def bye_row(
    federation: str | None, rnd: int, player_id: str, kind: str, line: int | None, *, competition_id: str | None = None
) -> dict[str, Any]:
    """One ``BYES_SCHEMA`` row (the readers stamp the competition later when the file has one).

    Examples
    --------
    >>> bye_row("egf", 2, "7", "full", 14)
    {'federation': 'egf', 'competition_id': None, 'round': 2, 'player_id': '7', 'kind': 'full', 'source_line': 14}
    """
    return {"federation": federation, "competition_id": competition_id, "round": rnd, "player_id": player_id,
            "kind": kind, "source_line": line}


def single_competition(
    fmt: str,
    findings: Findings,
    source: str,
    digest: str,
    competition: Mapping[str, Any],
    *,
    players: list[dict[str, Any]],
    games: list[dict[str, Any]],
    byes: list[dict[str, Any]],
    keep: bool = True,
) -> ReadResult:
    """The tail every reader of one competition per file shares (EGD, TRF, OpenGotha, pairgoth, Swiss Perfect).

    Stamps the competition's id on every game, bye and finding that has none, adds
    the columns every such file has alike (its source and checksum, public
    results, the ``classic`` modality and no event class unless ``competition``
    says otherwise) and builds the :class:`ReadResult`. ``keep=False`` leaves
    the competition out (a file with no player or no round).

    Examples
    --------
    >>> f = Findings("a.h9", "egf")
    >>> f.add("format.egd.bad_class", "warn", "CL[Z] is not a class")
    >>> games = [{"federation": "egf", "round": 1, "player_a": "1", "player_b": "2", "score_a": 1.0}]
    >>> r = single_competition("egd", f, "a.h9", "00", {"federation": "egf", "competition_id": "C", "rounds": 1},
    ...                        players=[], games=games, byes=[])
    >>> r.games["competition_id"].to_list(), r.findings["competition_id"].to_list()
    (['C'], ['C'])
    >>> r.competitions.select("source", "modality", "results_public").row(0)
    ('a.h9', 'classic', True)
    """
    cid = competition["competition_id"]
    for row in (*games, *byes):
        row["competition_id"] = cid
    for row in findings.rows:
        row["competition_id"] = row["competition_id"] or cid
    comp = {"modality": "classic", "results_public": True, "event_class": None, **competition,
            "source": source, "source_sha256": digest}
    return ReadResult.build(
        source,
        digest,
        fmt,
        findings,
        competitions=frame([comp] if keep else [], COMPETITIONS_SCHEMA),
        players=frame(players, PLAYERS_SCHEMA),
        games=frame(games, GAMES_SCHEMA),
        byes=frame(byes, BYES_SCHEMA),
    )

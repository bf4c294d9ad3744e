"""The value every reader returns: :class:`ReadResult` (``docs/CONTRACTS.md``)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from formats._common import Findings
from formats.schema import (
    ALIASES_SCHEMA,
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATINGS_SCHEMA,
    conform,
    empty,
)

__all__ = ["ReadResult", "frame", "sha256"]


def sha256(data: bytes) -> str:
    """Hex sha256 of a file's bytes (the load ledger's key)."""
    return hashlib.sha256(data).hexdigest()


def frame(rows: Sequence[Mapping[str, Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Rows of plain values as a frame of ``schema`` (empty rows: an empty frame).

    Examples
    --------
    >>> frame([{"player_id": "7", "kind": "half"}], BYES_SCHEMA).row(0)
    (None, None, None, '7', 'half', None)
    """
    if not rows:
        return empty(schema)
    names = list(schema)
    data = {n: [r.get(n) for r in rows] for n in names}
    return conform(pl.DataFrame(data, schema=schema, strict=False), schema)


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

"""Player identity: the same person in two files is one player.

Rules, in order:

1. A federation id where the file has one: the FIDE id (TRF columns 58–68),
   the EGF PIN (OpenGotha ``egfPin``, EGD ``|PIN``), the AJUSC player id of the
   interchange CSV. Ids are kept as the file writes them, without leading zeros.
2. Otherwise a *normalised name key*, ``name:<key>`` (see :func:`name_key`):
   accents removed, case folded, punctuation dropped, the words sorted, so that
   ``"Sarabia Utrilla, Joaquin"`` and ``"Joaquín SARABIA-UTRILLA"`` meet.
3. An alias table (``*.aliases.csv``: ``federation, alias, player_id``) that a
   rating officer drops in the inbox maps an id or a name (any spelling: it is
   compared by its name key) to the federation's id. :func:`apply_aliases`
   rewrites every id column of a frame with it.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from datetime import date

import polars as pl

from formats._common import is_digits

__all__ = [
    "NAME_PREFIX",
    "alias_map",
    "aliases_from_names",
    "apply_aliases",
    "competition_key",
    "name_key",
    "player_id",
]

#: Prefix of ids derived from names (never a federation id: those have no colon).
NAME_PREFIX = "name:"

_NON_WORD = re.compile(r"[^0-9a-z]+")


@functools.lru_cache(maxsize=65_536)  # the same players come back in file after file
def name_key(name: str) -> str:
    """The normalised key of a person's name.

    NFKD-decomposed with combining marks dropped (``í`` -> ``i``; ``l·l`` keeps its
    letters), case-folded (``ß`` -> ``ss``), every run of other characters a
    separator, words sorted and joined by ``-``. Word order and commas do not
    matter ("Lastname, Firstname" equals "Firstname Lastname").

    Examples
    --------
    >>> name_key("Sarabia Utrilla, Joaquin") == name_key("Joaquín SARABIA-UTRILLA")
    True
    >>> name_key("Mateu Xurí"), name_key("Col·lectiu  Ñandú")
    ('mateu-xuri', 'col-lectiu-nandu')
    """
    decomposed = unicodedata.normalize("NFKD", name)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    words = [w for w in _NON_WORD.split(plain) if w]
    return "-".join(sorted(words))


def player_id(federation_id: str | None, name: str | None) -> str | None:
    """A player's id: the federation id when present (not blank nor 0), else ``name:<key>``.

    Examples
    --------
    >>> player_id("  2268957", "Sarabia"), player_id("0", "Test Player0001"), player_id(None, None)
    ('2268957', 'name:player0001-test', None)
    >>> player_id("00123", None)
    '123'
    """
    fid = (federation_id or "").strip()
    if fid and fid.strip("0"):
        return fid.lstrip("0") if is_digits(fid) else fid
    key = name_key(name) if name else ""
    return NAME_PREFIX + key if key else None


def alias_map(aliases: pl.DataFrame, federation: str) -> dict[str, str]:
    """``alias -> player_id`` of one federation; aliases that are names are keyed by their name id.

    Examples
    --------
    >>> a = pl.DataFrame({"federation": ["egf", "egf"], "alias": ["Jan Kowalski", "1234"],
    ...                   "player_id": ["10950", "10950"]})
    >>> alias_map(a, "egf")
    {'name:jan-kowalski': '10950', 'Jan Kowalski': '10950', '1234': '10950'}
    """
    out: dict[str, str] = {}
    for alias, pid in (
        aliases.filter(pl.col("federation") == federation).select("alias", "player_id").iter_rows()
    ):
        a = str(alias).strip()
        key = a if is_digits(a) or a.startswith(NAME_PREFIX) else (player_id(None, a) or a)
        out[key] = str(pid).strip()
        out.setdefault(a, str(pid).strip())
    return out


def apply_aliases(
    frame: pl.DataFrame,
    aliases: pl.DataFrame,
    federation: str,
    columns: tuple[str, ...] = ("player_id", "player_a", "player_b"),
) -> pl.DataFrame:
    """Rewrite the id columns of ``frame`` through the alias table of ``federation``.

    Rows of other federations (column ``federation``) are left alone.

    Examples
    --------
    >>> g = pl.DataFrame({"federation": ["egf"], "player_a": ["name:jan-kowalski"], "player_b": ["7"]})
    >>> a = pl.DataFrame({"federation": ["egf"], "alias": ["KOWALSKI Jan"], "player_id": ["10950"]})
    >>> apply_aliases(g, a, "egf").row(0)
    ('egf', '10950', '7')
    """
    mapping = alias_map(aliases, federation)
    if not mapping:
        return frame
    in_fed = pl.col("federation") == federation if "federation" in frame.columns else pl.lit(True)
    exprs = [
        pl.when(in_fed).then(pl.col(c).replace(mapping)).otherwise(pl.col(c)).alias(c)
        for c in columns
        if c in frame.columns
    ]
    return frame.with_columns(exprs)


def aliases_from_names(players: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    """An alias table linking name-keyed players to the registry's ids when the name key is unique there.

    ``players`` are the players a file gave (ids ``name:...``); ``registry`` is a
    federation's players list (``*.players.csv``, a rating list) with real ids.
    A name key shared by two registered players is left alone: a rating officer
    must decide (an explicit ``*.aliases.csv`` row).

    Examples
    --------
    >>> file_players = pl.DataFrame({"federation": ["ajusc", "ajusc"], "player_id": ["name:mateu-xuri", "name:x-y"]})
    >>> registry = pl.DataFrame({"federation": ["ajusc"], "player_id": ["2"], "name": ["Xurí, Mateu"]})
    >>> aliases_from_names(file_players, registry).rows()
    [('ajusc', 'name:mateu-xuri', '2')]
    """
    keyed = players.filter(pl.col("player_id").str.starts_with(NAME_PREFIX)).select(
        "federation", "player_id"
    )
    named = registry.filter(pl.col("name").is_not_null())
    # Keys computed in Python beside polars, not in a callback inside an expression:
    # polars callbacks deadlock when stages run in several threads.
    keys = pl.Series("key", [NAME_PREFIX + name_key(n) for n in named.get_column("name").to_list()],
                     dtype=pl.Utf8)
    reg = named.select("federation", pl.col("player_id").alias("registered")).with_columns(keys)
    unique = (
        reg.group_by("federation", "key")
        .agg(pl.col("registered").first(), pl.len().alias("n"))
        .filter(pl.col("n") == 1)
    )
    return (
        keyed.join(
            unique, left_on=["federation", "player_id"], right_on=["federation", "key"], how="inner"
        )
        .select(
            "federation",
            pl.col("player_id").alias("alias"),
            pl.col("registered").alias("player_id"),
        )
        .unique(maintain_order=True)
    )


def competition_key(name: str | None, start: date | None, fallback: str) -> str:
    """A stable competition id for formats that carry none (TRF, OpenGotha, EGD, Swiss Perfect).

    The name's words (accents removed, lower case) and the start date, so a
    corrected file of the same event supersedes the old one whatever its file name.

    Examples
    --------
    >>> competition_key("XX Open Internacional de Gros", date(2010, 9, 24), "x")
    'xx-open-internacional-de-gros-2010-09-24'
    >>> competition_key(None, None, "ManaCup_25-26")
    'manacup_25-26'
    """
    if not name or not name_key(name):
        base = fallback.lower()
    else:
        decomposed = unicodedata.normalize("NFKD", name)
        plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
        base = "-".join(w for w in _NON_WORD.split(plain) if w)[:60].strip("-")
    return f"{base}-{start.isoformat()}" if start else base

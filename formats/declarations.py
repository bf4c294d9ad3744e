"""What a native file declares about a competition's eligibility.

The readers record facts, never verdicts: the language of the lexicon a Scrabble
file names, whether a chess event was played on a server, the time control as
written. :mod:`validations` decides with the federation's rules (``rules.toml``).
Pure functions, no IO.
"""

from __future__ import annotations

import re
from dataclasses import replace

import polars as pl

from formats.result import ReadResult
from formats.schema import COMPETITIONS_SCHEMA, DECLARATIONS_SCHEMA, conform

__all__ = ["UNDECLARED", "declare", "fide_modality", "language_of", "looks_online"]

#: ``language`` of a file whose format can name its lexicon but did not.
UNDECLARED = "undeclared"

# Lexicons and rating lists, by language. Sources: WESPA and NASPA lexicon names
# (NWL/TWL/OWL/OSPD: North America; CSW/SOWPODS: Collins), NASPA's rating system
# ``nsa2008`` and list ``nsa``; FISE (Spanish), ODS (French), DISC (Catalan:
# Diccionari Informatitzat de l'Scrabble en Català), LEXIMOTS (Catalan).
_LANGUAGE_TOKENS: tuple[tuple[str, str], ...] = (
    (r"disc|catal[aà]n?|leximots|\bca\b|\bcat\b", "ca"),
    (r"nwl|twl|owl|ospd|csw|sowpods|collins|nsa|naspa|wespa|absp|english", "en"),
    (r"fise|espa[nñ]ol|spanish|\bes\b", "es"),
    (r"\bods\b|fran[cç]ais|french", "fr"),
)


def language_of(*declared: str | None) -> str | None:
    """The language of the first declaration (lexicon, rating system, list) that names one.

    Returns None when none of them names a lexicon the table knows.

    Examples
    --------
    >>> language_of(None, "nsa2008"), language_of("DISC 2.14"), language_of("NWL2023"), language_of("xyz")
    ('en', 'ca', 'en', None)
    """
    for text in declared:
        if not text:
            continue
        low = str(text).lower()
        for pattern, code in _LANGUAGE_TOKENS:
            if re.search(pattern, low):
                return code
    return None


_ONLINE = re.compile(r"lichess|chess\.com|chess24|playchess|internet chess club|\bicc\b|\bonline\b|https?://")


def looks_online(*texts: str | None) -> bool:
    """Whether a header names a chess server or says the event was online.

    Examples
    --------
    >>> looks_online("Mai 5 Plus 0 Turnier", "https://lichess.org/swiss/FaLp5fSD"), looks_online("Madrid", "ESP")
    (True, False)
    """
    return any(t and _ONLINE.search(t.lower()) for t in texts)


_MOVES_PER_TIME = re.compile(r"(\d+)\s*/\s*(\d+)")            # 40/120: minutes for the first moves
_BASE_PLUS = re.compile(r"(\d+)\s*(?:'|min\w*|m\b)?\s*\+\s*(\d+)")  # 90+30, 90 minutes + 30 seconds
_MINUTES = re.compile(r"(\d+)\s*(?:'|min)")                     # 100'x40mm, 25 min


def fide_modality(time_control: str | None) -> str | None:
    """The FIDE list a time control belongs to: ``standard``, ``rapid``, ``blitz``, ``bullet``,
    None when nothing is stated and ``unknown`` when the text cannot be read.

    FIDE (rapid and blitz lists, from 2012): time for 60 moves (base + 60 x
    increment) of at least 60 minutes is standard, 15 to 60 rapid, 5 to 15 blitz;
    below 5 is not rated.

    Examples
    --------
    >>> [fide_modality(t) for t in ("40/120, 60", "90 minutes + 30 seconds per move", "90+30",
    ...                             "100'x40mm + 50'x20mm + 30\\" from move 1", "15+10", "3+2", "", "moves/time, increment")]
    ['standard', 'standard', 'standard', 'standard', 'rapid', 'blitz', None, 'unknown']
    """
    if time_control is None or not time_control.strip():
        return None
    text = time_control.lower()
    if m := _MOVES_PER_TIME.search(text):
        minutes = float(m[2])
    elif m := _BASE_PLUS.search(text):
        minutes = float(m[1]) + float(m[2])     # + increment in seconds x 60 moves / 60
    elif m := _MINUTES.search(text):
        minutes = float(m[1])
    elif re.fullmatch(r"\s*\d+\s*", text):
        minutes = float(text)
    else:
        return "unknown"
    if minutes >= 60:
        return "standard"
    if minutes >= 15:
        return "rapid"
    if minutes >= 5:
        return "blitz"
    return "bullet"


def declare(result: ReadResult, **values: object) -> ReadResult:
    """``result`` with the declaration columns (:data:`formats.schema.DECLARATIONS_SCHEMA`) set on
    every competition; a value may be a scalar or a per-competition list."""
    comps = result.competitions
    full = {**COMPETITIONS_SCHEMA, **DECLARATIONS_SCHEMA}
    if comps.columns == list(COMPETITIONS_SCHEMA):
        # Fresh from a reader: the columns are added as series, without a query.
        added = [
            pl.Series(name, value if isinstance(value, list) else [value] * comps.height, dtype=dtype)
            for name, dtype in DECLARATIONS_SCHEMA.items()
            for value in [values.get(name)]
        ]
        return replace(result, competitions=conform(comps.hstack(added), full))
    cols: list[pl.Series | pl.Expr] = []
    for name, value in values.items():
        dtype = DECLARATIONS_SCHEMA[name]
        if isinstance(value, list):
            cols.append(pl.Series(name, value, dtype=dtype))
        else:
            cols.append(pl.lit(value, dtype).alias(name))
    comps = comps.with_columns(cols) if comps.height else comps
    return replace(result, competitions=conform(comps, full))

"""Swiss Perfect exports as AJUSC clubs send them (``../shared/rules/swissperfect.md``).

A tournament is a *set* of files sharing a stem:

* ``<stem>.<n>.rnd`` — one round's games, ``|``-separated with a header
  ``ROUND|TABLE_NO|WHITE_ID|BLACK_ID|WHITE_SCORE|BLACK_SCORE``. The source of
  truth for results. A ``BLACK_ID`` of ``0`` (or empty) is a bye.
* ``<stem>.<n>.stg`` — cumulative standings, used only to list the entrants and
  to cross-check (a disagreement is a warning: the number in its name is not
  reliably the number of rounds it covers).
* ``<stem>.ini`` — ``[Tournament Info]`` ``Name``, ``Rounds``; organisers may add
  ``StartDate=YYYY-MM-DD`` and ``EndDate=`` there: Swiss Perfect's text dumps
  carry no dates, and a competition without a date cannot be rated.
* ``<stem>.trn`` — the dBase participants table (``ID``, ``START_NO``,
  ``SURNAME``, ``FIRSTNAME``, ``CLUB``, ``FEDER``, ``LOC_ID``), read with
  :mod:`dbfread` in Windows-1252: it gives names to the start numbers.

Player ids: ``LOC_ID`` from the ``.trn`` when set (the AJUSC id), else the
name key ``name:...``, else — no ``.trn`` — ``local:<competition>:<start no>``,
which an alias table (``*.aliases.csv``) maps to AJUSC ids. ``source_line`` of
a game is its line in the round's own ``.rnd`` file (header = line 1).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

from formats._common import Findings, decode, is_digits, parse_date, split_lines
from formats._sp_rounds import RND_HEADER, STG_HEADER, read_rnd, read_stg
from formats._sp_trn import read_trn
from formats.declarations import UNDECLARED, declare, language_of
from formats.identity import competition_key
from formats.result import ReadResult, sha256, single_competition

__all__ = ["RND_HEADER", "STG_HEADER", "from_swissperfect", "from_swissperfect_set", "stem_of"]

_NAME = re.compile(r"^(?P<stem>.+?)(?:\.(?P<n>\d+))?\.(?P<ext>rnd|stg|ini|trn|sco)$", re.IGNORECASE)


def stem_of(name: str) -> tuple[str, int | None, str] | None:
    """(stem, number, extension) of a Swiss Perfect file name; None for other names.

    Examples
    --------
    >>> stem_of("ManaCup_25-26.12.rnd"), stem_of("ManaCup_25-26.ini"), stem_of("x.csv")
    (('ManaCup_25-26', 12, 'rnd'), ('ManaCup_25-26', None, 'ini'), None)
    """
    m = _NAME.match(Path(name).name)
    if not m:
        return None
    return m["stem"], int(m["n"]) if m["n"] else None, m["ext"].lower()


def from_swissperfect(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read one Swiss Perfect file on its own (a single ``.rnd``, ``.stg`` or ``.ini``).

    Prefer :func:`from_swissperfect_set` with every file of the tournament:
    one round alone is only part of a competition (a warning says so).
    """
    return from_swissperfect_set({name: data}, federation=federation, single=True)


def from_swissperfect_set(
    files: Mapping[str, bytes], *, federation: str | None = None, single: bool = False
) -> ReadResult:
    """Read a Swiss Perfect tournament from the files of one stem (``name -> bytes``).

    Examples
    --------
    >>> rnd1 = b"ROUND|TABLE_NO|WHITE_ID|BLACK_ID|WHITE_SCORE|BLACK_SCORE\\r\\n1|1|3|1|0|1\\r\\n1|2|2|4|0.5|0.5\\r\\n"
    >>> ini = b"[Tournament Info]\\r\\nName=Lliga\\r\\nRounds=2\\r\\nStartDate=2025-10-04\\r\\n"
    >>> r = from_swissperfect_set({"Lliga.1.rnd": rnd1, "Lliga.ini": ini})
    >>> r.games.select("round", "player_a", "player_b", "score_a", "source_line").rows()
    [(1, 'local:lliga-2025-10-04:3', 'local:lliga-2025-10-04:1', 0.0, 2), (1, 'local:lliga-2025-10-04:2', 'local:lliga-2025-10-04:4', 0.5, 3)]
    >>> r.findings.select("rule", "severity").rows()
    [('format.swissperfect.no_names', 'warn'), ('format.swissperfect.missing_rounds', 'warn')]
    """
    fed = federation or "ajusc"
    by_kind, stems = _by_kind(files)
    stem = min(stems) if stems else "swissperfect"
    main = next(iter(by_kind.get("ini", [])), None)
    source = main[0] if main else (f"{stem}.rnd" if not single else next(iter(files)))
    digest = sha256(b"".join(sha256(files[k]).encode() + k.encode() for k in sorted(files)))
    if single:
        digest = sha256(next(iter(files.values())))
    f = Findings(source, fed)
    if len(stems) > 1:
        f.add(
            "format.swissperfect.mixed_set",
            "reject",
            f"files of different tournaments were sent together: {', '.join(sorted(stems))}",
        )
    info = _ini(by_kind.get("ini", []), fed)
    title = info.get("name") or stem
    start, end = _dates(info, main, f)
    cid = competition_key(title, start, stem)
    names = read_trn(by_kind.get("trn", []), f, fed)
    entrants: dict[int, None] = {}

    def pid(n: int) -> str:
        entrants.setdefault(n, None)
        if n in names:
            return str(names[n]["player_id"])
        return f"local:{cid}:{n}"

    games: list[dict[str, Any]] = []
    byes: list[dict[str, Any]] = []
    rounds_seen: dict[int, str] = {}
    for fname, number, data in sorted(by_kind.get("rnd", []), key=lambda t: (t[1] or 0, t[0])):
        read_rnd(fname, number, data, f, fed, pid, games, byes, rounds_seen)
    for fname, _, data in by_kind.get("stg", []):
        read_stg(fname, data, f, entrants, games, byes)
    _check_set(f, by_kind, main, info, single=single, dated=start is not None, named=bool(names),
               entrants=bool(entrants), rounds_seen=rounds_seen)
    players = [
        {
            "federation": fed,
            "player_id": pid(n),
            "name": names.get(n, {}).get("name"),
            "club": names.get(n, {}).get("club"),
            "country": names.get(n, {}).get("country"),
        }
        for n in sorted(entrants)
    ]
    comp = {"federation": fed, "competition_id": cid, "name": title, "start_date": start, "end_date": end,
            "rounds": len(rounds_seen)}
    result = single_competition("swissperfect", f, source, digest, comp, players=players, games=games, byes=byes,
                                keep=bool(rounds_seen))
    # The settings may name the lexicon or language ([Tournament Info] Lexicon=, Language=).
    declared = [info.get(k) for k in ("lexicon", "dictionary", "language", "idioma", "llengua", "diccionari")]
    return declare(result, language=language_of(*declared) or UNDECLARED)


_Member = tuple[str, int | None, bytes]  # file name, the number in it (round), bytes


def _by_kind(files: Mapping[str, bytes]) -> tuple[dict[str, list[_Member]], set[str]]:
    """The set's files by extension (``rnd``, ``stg``, ``ini``, ``trn``), in name order, and the
    stems they share (more than one: files of different tournaments)."""
    by_kind: dict[str, list[_Member]] = {}
    stems: set[str] = set()
    for fname, data in sorted(files.items()):
        parts = stem_of(fname)
        if parts is None:
            continue
        stems.add(parts[0])
        by_kind.setdefault(parts[2], []).append((fname, parts[1], data))
    return by_kind, stems


def _dates(info: dict[str, Any], main: _Member | None, f: Findings) -> tuple[date | None, date | None]:
    """``StartDate=`` and ``EndDate=`` of the ``.ini`` (the end defaults to the start)."""
    start = end = None
    if info.get("startdate"):
        start = parse_date(info["startdate"])
        if start is None:
            _finding(
                f,
                main,
                "format.swissperfect.bad_date",
                "reject",
                f"StartDate {info['startdate']!r} is not a date (YYYY-MM-DD)",
                info.get("_line_startdate"),
                "StartDate",
            )
    if info.get("enddate"):
        end = parse_date(info["enddate"])
        if end is None:
            _finding(
                f,
                main,
                "format.swissperfect.bad_date",
                "reject",
                f"EndDate {info['enddate']!r} is not a date (YYYY-MM-DD)",
                info.get("_line_enddate"),
                "EndDate",
            )
    return start, end or start


def _check_set(
    f: Findings,
    by_kind: dict[str, list[_Member]],
    main: _Member | None,
    info: dict[str, Any],
    *,
    single: bool,
    dated: bool,
    named: bool,
    entrants: bool,
    rounds_seen: dict[int, str],
) -> None:
    """What the set as a whole lacks: round files, a date, names, declared rounds."""
    if not by_kind.get("rnd"):
        f.add(
            "format.swissperfect.no_rounds",
            "reject" if not single else "warn",
            "no round file (.rnd): nothing to rate; export every round from Swiss Perfect",
        )
    if single and by_kind.get("rnd"):
        f.add(
            "format.swissperfect.single_round",
            "warn",
            "one round file read on its own: send the whole tournament (its folder, or the .ini with every .rnd)",
        )
    if not dated and by_kind.get("rnd"):
        _finding(
            f,
            main,
            "format.swissperfect.missing_date",
            "reject",
            "Swiss Perfect text exports carry no date: add StartDate=YYYY-MM-DD (and EndDate=) under "
            "[Tournament Info] in the .ini, or send the interchange CSV",
            info.get("_line_section"),
            "StartDate",
        )
    if not named and entrants:
        f.add(
            "format.swissperfect.no_names",
            "warn",
            "no participants table (.trn): players are tournament start numbers ('local:...'); send the .trn or "
            "an aliases file mapping them to AJUSC ids",
        )
    declared = info.get("rounds", "")
    if is_digits(declared) and rounds_seen and int(declared) > len(rounds_seen):
        missing = sorted(set(range(1, int(declared) + 1)) - set(rounds_seen))
        f.add(
            "format.swissperfect.missing_rounds",
            "warn",
            f"{declared} rounds declared in the .ini; no round file for round(s) "
            f"{', '.join(map(str, missing[:30]))}{' ...' if len(missing) > 30 else ''}",
        )


def _finding(
    f: Findings,
    main: tuple[str, int | None, bytes] | None,
    rule: str,
    severity: str,
    msg: str,
    line: Any,
    field: str,
) -> None:
    f.add(
        rule,
        severity,
        msg,
        line=line if isinstance(line, int) and main else None,
        field=field,
        source=main[0] if main else None,
    )


def _ini(inis: list[tuple[str, int | None, bytes]], fed: str) -> dict[str, Any]:
    if not inis:
        return {}
    text = decode(inis[0][2]).text
    out: dict[str, Any] = {}
    section = None
    for n, line in enumerate(split_lines(text), start=1):
        s = line.strip()
        if s.startswith("[") and s.endswith("]"):
            section = s[1:-1].strip().lower()
            if section == "tournament info":
                out["_line_section"] = n
            continue
        if section == "tournament info" and "=" in s:
            k, v = s.split("=", 1)
            out[k.strip().lower()] = v.strip()
            out[f"_line_{k.strip().lower()}"] = n
    return out



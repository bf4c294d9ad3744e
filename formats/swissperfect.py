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
import struct
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from formats._common import Findings, decode, is_digits, parse_date, split_lines
from formats.declarations import UNDECLARED, declare, language_of
from formats.identity import competition_key, player_id
from formats.result import ReadResult, bye_row, sha256, single_competition

__all__ = ["RND_HEADER", "STG_HEADER", "from_swissperfect", "from_swissperfect_set", "stem_of"]

RND_HEADER = "ROUND|TABLE_NO|WHITE_ID|BLACK_ID|WHITE_SCORE|BLACK_SCORE"
STG_HEADER = "PLACING|SHORT_PLACING|PLAYER_ID|TOTAL_SCORE"
_SCORES = {"1": 1.0, "1.0": 1.0, "0": 0.0, "0.0": 0.0, "0.5": 0.5, ".5": 0.5}
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
    by_kind: dict[str, list[tuple[str, int | None, bytes]]] = {}
    stems: set[str] = set()
    for fname, data in sorted(files.items()):
        parts = stem_of(fname)
        if parts is None:
            continue
        stems.add(parts[0])
        by_kind.setdefault(parts[2], []).append((fname, parts[1], data))
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
    end = end or start
    cid = competition_key(title, start, stem)
    names = _trn(by_kind.get("trn", []), f, fed)
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
        _rnd(fname, number, data, f, fed, pid, games, byes, rounds_seen)
    for fname, _, data in by_kind.get("stg", []):
        _stg(fname, data, f, entrants, games, byes)
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
    if start is None and by_kind.get("rnd"):
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
    if not names and entrants:
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
    players = []
    for n in sorted(entrants):
        p = names.get(n, {})
        players.append(
            {
                "federation": fed,
                "player_id": pid(n),
                "name": p.get("name"),
                "club": p.get("club"),
                "country": p.get("country"),
            }
        )
    comp = {"federation": fed, "competition_id": cid, "name": title, "start_date": start, "end_date": end,
            "rounds": len(rounds_seen)}
    result = single_competition("swissperfect", f, source, digest, comp, players=players, games=games, byes=byes,
                                keep=bool(rounds_seen))
    # The settings may name the lexicon or language ([Tournament Info] Lexicon=, Language=).
    declared = [info.get(k) for k in ("lexicon", "dictionary", "language", "idioma", "llengua", "diccionari")]
    return declare(result, language=language_of(*declared) or UNDECLARED)


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


def _dbase_header_problem(data: bytes) -> str | None:
    """Why ``data`` cannot be a whole dBase III table, or None.

    Checked before :mod:`dbfread` sees it: the reader trusts the header's record
    count, so a corrupt header would have it loop over billions of records.

    Examples
    --------
    >>> _dbase_header_problem(b"\\x03" + bytes(10))
    'shorter than its 32-byte header'
    """
    if len(data) < 32:
        return "shorter than its 32-byte header"
    count, header_len, record_len = struct.unpack_from("<IHH", data, 4)
    if header_len < 33 or record_len < 1:
        return f"header length {header_len} or record length {record_len} is impossible"
    if header_len + count * record_len > len(data):
        return f"{count} records of {record_len} bytes do not fit in {len(data)} bytes"
    return None


def _trn(
    trns: list[tuple[str, int | None, bytes]], f: Findings, fed: str
) -> dict[int, dict[str, Any]]:
    if not trns:
        return {}
    from dbfread import DBF  # a dBase reader: the .trn is a dBase III table
    from dbfread.exceptions import DBFNotFound

    fname, _, data = trns[0]
    out: dict[int, dict[str, Any]] = {}
    problem = _dbase_header_problem(data)
    if problem is not None:
        f.add(
            "format.swissperfect.bad_trn",
            "warn",
            f"the participants table is not a complete dBase table ({problem}); players stay start "
            "numbers: send the .trn again",
            source=fname,
        )
        return {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "players.dbf"
            path.write_bytes(data)
            table = DBF(
                str(path),
                encoding="cp1252",
                ignore_missing_memofile=True,
                char_decode_errors="replace",
            )
            records = list(table)
    except (ValueError, DBFNotFound, OSError, KeyError, IndexError, EOFError, struct.error) as exc:
        f.add(
            "format.swissperfect.bad_trn",
            "warn",
            f"the participants table cannot be read ({exc}); players stay start numbers",
            source=fname,
        )
        return {}
    for i, rec in enumerate(records, start=1):
        surname = str(rec.get("SURNAME") or "").strip()
        if not surname:
            continue  # Swiss Perfect keeps blank spare records at the end of the table
        key = rec.get("ID") if isinstance(rec.get("ID"), int) else None
        if key is None:
            start_no = str(rec.get("START_NO") or "").strip()
            key = int(start_no) if is_digits(start_no) else None
        if key is None:
            f.add(
                "format.swissperfect.bad_trn",
                "reject",
                f"participant {surname!r} has no ID nor START_NO",
                line=i,
                field="ID",
                source=fname,
            )
            continue
        first = str(rec.get("FIRSTNAME") or "").strip()
        full = f"{first} {surname}".strip()
        loc = str(rec.get("LOC_ID") or "").strip()
        out[key] = {
            "player_id": player_id(loc, full) or full,
            "name": full,
            "club": str(rec.get("CLUB") or "").strip() or None,
            "country": str(rec.get("FEDER") or "").strip() or None,
        }
    return out


def _rnd(
    fname: str,
    number: int | None,
    data: bytes,
    f: Findings,
    fed: str,
    pid: Any,
    games: list[dict[str, Any]],
    byes: list[dict[str, Any]],
    rounds_seen: dict[int, str],
) -> None:
    def add(rule: str, severity: str, msg: str, line: int | None, field: str | None = None) -> None:
        f.add(rule, severity, msg, line=line, field=field, source=fname)

    dec = decode(data)
    lines = split_lines(dec.text)
    if not lines or not lines[0].strip():
        add("format.swissperfect.empty", "reject", "the round file is empty", 1)
        return
    header = [h.strip().upper() for h in lines[0].split("|")]
    need = RND_HEADER.split("|")
    if header[: len(need)] != need:
        add(
            "format.swissperfect.bad_header",
            "reject",
            f"expected the header {RND_HEADER!r} (Swiss Perfect text dump with InclHeader=1), found {lines[0]!r}",
            1,
        )
        return
    this_round: set[int] = set()
    busy: dict[str, int] = {}
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 6:
            add(
                "format.swissperfect.field_count",
                "reject",
                f"expected 6 fields ({RND_HEADER}), found {len(cells)}: the line is truncated",
                n,
            )
            continue
        rnd_txt, _, w_txt, b_txt, ws_txt, bs_txt = cells[:6]
        if not is_digits(rnd_txt) or not 1 <= int(rnd_txt) <= 999:
            add(
                "format.swissperfect.bad_round",
                "reject",
                f"ROUND {rnd_txt!r} is not a round number from 1 to 999",
                n,
                "ROUND",
            )
            continue
        rnd = int(rnd_txt)
        if number is not None and rnd != number:
            add(
                "format.swissperfect.mixed_rounds",
                "reject",
                f"round {rnd} in the file of round {number}: each .rnd holds one round",
                n,
                "ROUND",
            )
            continue
        if rnd in rounds_seen and rounds_seen[rnd] != fname:
            add(
                "format.swissperfect.repeated_round",
                "reject",
                f"round {rnd} is also in {rounds_seen[rnd]}: remove one of the two files",
                n,
                "ROUND",
            )
            continue
        this_round.add(rnd)
        if not is_digits(w_txt) or int(w_txt) < 1:
            add(
                "format.swissperfect.bad_player",
                "reject",
                f"WHITE_ID {w_txt!r} is not a start number",
                n,
                "WHITE_ID",
            )
            continue
        if b_txt not in ("", "0") and not is_digits(b_txt):
            add(
                "format.swissperfect.bad_player",
                "reject",
                f"BLACK_ID {b_txt!r} is not a start number",
                n,
                "BLACK_ID",
            )
            continue
        ws, bs = _SCORES.get(ws_txt), _SCORES.get(bs_txt)
        if ws is None:
            add(
                "format.swissperfect.bad_score",
                "reject",
                f"WHITE_SCORE {ws_txt!r} is not 1, 0.5 or 0",
                n,
                "WHITE_SCORE",
            )
            continue
        if b_txt in ("", "0"):
            kind = "full" if ws == 1 else "half" if ws == 0.5 else "zero"
            byes.append(bye_row(fed, rnd, pid(int(w_txt)), kind, n))
            continue
        if bs is None:
            add(
                "format.swissperfect.bad_score",
                "reject",
                f"BLACK_SCORE {bs_txt!r} is not 1, 0.5 or 0",
                n,
                "BLACK_SCORE",
            )
            continue
        if ws + bs != 1:
            add(
                "format.swissperfect.bad_score",
                "reject",
                f"scores {ws_txt}|{bs_txt} do not sum to 1",
                n,
                "BLACK_SCORE",
            )
            continue
        if w_txt == b_txt:
            add(
                "format.swissperfect.self_pairing",
                "reject",
                f"player {w_txt} is paired with himself",
                n,
                "BLACK_ID",
            )
            continue
        clash = next((p for p in (w_txt, b_txt) if p in busy), None)
        if clash is not None:
            add(
                "format.swissperfect.double_pairing",
                "reject",
                f"player {clash} already plays in round {rnd} (line {busy[clash]})",
                n,
                "WHITE_ID" if clash == w_txt else "BLACK_ID",
            )
            continue
        busy[w_txt] = busy[b_txt] = n
        games.append(
            {
                "federation": fed,
                "round": rnd,
                "player_a": pid(int(w_txt)),
                "player_b": pid(int(b_txt)),
                "score_a": ws,
                "status": "played",
                "handicap": None,
                "colour_a": None,
                "source_line": n,
            }
        )
    for r in this_round:
        rounds_seen[r] = fname


def _stg(
    fname: str,
    data: bytes,
    f: Findings,
    entrants: dict[int, None],
    games: list[dict[str, Any]],
    byes: list[dict[str, Any]],
) -> None:
    lines = split_lines(decode(data).text)
    if not lines or not lines[0].upper().startswith(STG_HEADER):
        f.add(
            "format.swissperfect.bad_header",
            "warn",
            f"standings header is not {STG_HEADER}...; file ignored",
            line=1,
            source=fname,
        )
        return
    total = 0.0
    for n, line in enumerate(lines[1:], start=2):
        cells = line.split("|")
        if len(cells) < 4 or not is_digits(cells[2].strip()):
            f.add(
                "format.swissperfect.bad_standing",
                "warn",
                "standings row without a PLAYER_ID; ignored",
                line=n,
                field="PLAYER_ID",
                source=fname,
            )
            continue
        entrants.setdefault(int(cells[2]), None)
        try:
            total += float(cells[3])
        except ValueError:
            pass
    read = float(len(games)) + sum(
        1.0 if b["kind"] == "full" else 0.5 if b["kind"] == "half" else 0.0 for b in byes
    )
    if abs(total - read) > 1e-9:
        f.add(
            "format.swissperfect.standings_mismatch",
            "warn",
            f"the standings total {total:g} points but the round files read give {read:g}: a round file is "
            "missing or the standings are from another round",
            source=fname,
        )

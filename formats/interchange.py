"""Interchange CSV: ``*.results.csv``, ``*.players.csv``, ``*.ratings.csv``, ``*.aliases.csv``.

The reference format every federation accepts (``../shared/DESIGN.md``,
"Interchange CSV"). UTF-8, a header row, ``,`` separated, quotes as in RFC 4180.
Line numbers count physical lines with the header as line 1.

Severity of reader findings, as an organiser would expect them:

* ``reject`` — a row that cannot be read (wrong number of fields, bad score,
  date, round or player id, unknown federation) or a missing required column:
  the competition's record is incomplete, so it is not rated until a corrected
  file arrives.
* ``exclude`` — a game listed twice (same round, same two players): the
  repetition is not rated, the first row is.
* ``warn`` — unknown columns, a file not in UTF-8 (decoded as Windows-1252),
  a competition name that differs between rows.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from datetime import date

import polars as pl

from formats._common import (
    KNOWN_FEDERATIONS,
    Findings,
    decode,
    is_digits,
    parse_date,
    split_lines,
)
from formats.limits import check_value
from formats.result import ReadResult, frame, sha256
from formats.schema import (
    ALIASES_SCHEMA,
    COMPETITIONS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATINGS_SCHEMA,
)

__all__ = [
    "RESULTS_COLUMNS",
    "RESULTS_REQUIRED",
    "from_interchange",
    "kind_of_header",
]

#: Columns of ``*.results.csv`` (plus the optional ``colour_a``).
RESULTS_COLUMNS = (
    "federation",
    "competition_id",
    "competition_name",
    "start_date",
    "end_date",
    "round",
    "player_a",
    "player_b",
    "score_a",
    "status",
    "handicap",
    "results_public",
    "modality",
    "event_class",
    "colour_a",
)
#: Required columns of ``*.results.csv`` (``end_date`` defaults to ``start_date``).
RESULTS_REQUIRED = (
    "federation",
    "competition_id",
    "start_date",
    "round",
    "player_a",
    "player_b",
    "score_a",
)
PLAYERS_COLUMNS = tuple(PLAYERS_SCHEMA)
PLAYERS_REQUIRED = ("federation", "player_id")
#: ``edition`` (optional, DESIGN.md *Publication*): the list's edition number, one value per file.
RATINGS_COLUMNS = (*RATINGS_SCHEMA, "edition")
RATINGS_REQUIRED = ("federation", "player_id", "rating")
ALIASES_COLUMNS = tuple(ALIASES_SCHEMA)
ALIASES_REQUIRED = ALIASES_COLUMNS

_CSV_ERROR = "\x00csv-error"
#: Highest round number accepted (a season-long league has a few dozen).
MAX_ROUND = 999
_STATUSES = ("played", "forfeit", "unknown")
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}
_SCORES = {
    "1": 1.0,
    "1.0": 1.0,
    "1.00": 1.0,
    "0.5": 0.5,
    ".5": 0.5,
    "0.50": 0.5,
    "½": 0.5,
    "0": 0.0,
    "0.0": 0.0,
    "0.00": 0.0,
}
_FED = re.compile(r"^[a-z][a-z0-9_-]*$")


def kind_of_header(columns: list[str]) -> str | None:
    """Which interchange file a header row is: ``results``, ``players``, ``ratings``, ``aliases``.

    Examples
    --------
    >>> kind_of_header(["federation", "player_id", "name", "rating", "games", "as_of"])
    'ratings'
    >>> kind_of_header(["ROUND", "TABLE_NO"]) is None
    True
    """
    cols = {c.strip().lower() for c in columns}
    if {"competition_id", "player_a", "player_b"} <= cols:
        return "results"
    if {"alias", "player_id"} <= cols:
        return "aliases"
    if {"player_id", "rating"} <= cols:
        return "ratings"
    if {"federation", "player_id"} <= cols:
        return "players"
    return None


def _rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """(first physical line, fields) of each non-blank record."""
    physical = split_lines(text) if '"' in text else []
    reader = csv.reader(io.StringIO(text, newline=""), strict=False)
    before = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error:
            yield before + 1, [_CSV_ERROR]
            return
        start, before = before + 1, reader.line_num
        # An unterminated quote swallows the rest of the file into one field.
        if sum(line.count('"') for line in physical[start - 1 : before]) % 2:
            yield start, [_CSV_ERROR]
            return
        if row and any(cell.strip() for cell in row):
            yield start, row


def _federation(value: str, expected: str | None) -> str | None:
    v = value.strip().lower()
    if not v or not _FED.match(v):
        return None
    if v in KNOWN_FEDERATIONS or v == expected:
        return v
    return None


def from_interchange(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read any interchange CSV file.

    Parameters
    ----------
    data
        The file's bytes.
    name
        File name, reported in findings and in ``source``.
    federation
        Expected federation: rows of another one are refused; a federation not
        among :data:`~formats._common.KNOWN_FEDERATIONS` is accepted only if it is this one.

    Returns
    -------
    ReadResult
        ``format`` is ``interchange-results``, ``-players``, ``-ratings`` or ``-aliases``.

    Examples
    --------
    >>> csv_ = (b"federation,competition_id,start_date,round,player_a,player_b,score_a\\n"
    ...         b"ajusc,C1,2025-10-04,1,7,9,1\\najusc,C1,2025-10-04,2,9,7,x\\n")
    >>> r = from_interchange(csv_, "c1.results.csv")
    >>> r.games.select("player_a", "player_b", "score_a", "source_line").rows()
    [('7', '9', 1.0, 2)]
    >>> r.findings.select("rule", "severity", "line", "field").rows()
    [('format.csv.bad_score', 'reject', 3, 'score_a')]
    """
    digest = sha256(data)
    f = Findings(name, federation)
    if not data.strip():
        f.add("format.csv.empty", "reject", "the file is empty: send the results with a header row")
        return ReadResult.build(name, digest, None, f)
    dec = decode(data)
    if dec.first_non_utf8_line is not None:
        f.add(
            "format.csv.encoding",
            "warn",
            str(dec.warning()),
            line=dec.first_non_utf8_line,
        )
    rows = _rows(dec.text)
    first = next(rows, None)
    if first is None:
        f.add("format.csv.empty", "reject", "the file has no header row")
        return ReadResult.build(name, digest, None, f)
    header = [h.strip().lower().lstrip("\ufeff") for h in first[1]]
    kind = kind_of_header(header)
    if kind is None:
        f.add(
            "format.csv.unknown_header",
            "reject",
            f"not an interchange file: header {','.join(first[1])!r} has none of the "
            "column sets of *.results.csv, *.players.csv, *.ratings.csv, *.aliases.csv",
            line=first[0],
        )
        return ReadResult.build(name, digest, None, f)
    if kind == "results":
        fast = _results_fast(name, digest, header, first[0], dec.text, f, federation)
        if fast is not None:
            return fast
    reader = {"results": _results, "players": _players, "ratings": _ratings, "aliases": _aliases}[
        kind
    ]
    return reader(name, digest, header, first[0], rows, f, federation)


def _results_fast(
    name: str,
    digest: str,
    header: list[str],
    hline: int,
    text: str,
    f: Findings,
    federation: str | None,
) -> ReadResult | None:
    """Vectorised reading of a results file in which every row is valid; None declines.

    The row-by-row reader (:func:`_results`) is exact but reads about 10k rows a
    second; history backfills bring files of a million games. This path checks
    every rule of the row reader with polars expressions and returns the same
    frames, or declines as soon as anything would be a finding (the row reader
    then names each problem) or the text does not map one record per line
    (blank lines, quoted line breaks). ``tests/formats/test_interchange.py``
    holds the two paths equal.
    """
    g = Findings(f.source, f.federation, rows=list(f.rows))
    if not _check_header(header, hline, RESULTS_COLUMNS, RESULTS_REQUIRED, g):
        return None
    if len(g.rows) != len(f.rows):
        return None  # unknown columns: leave the warnings to the row reader
    lines = split_lines(text)
    data_lines = [n for n, ln in enumerate(lines[hline:], start=hline + 1) if ln.strip()]
    if not data_lines or any(not ln.strip() for ln in lines[hline - 1 : data_lines[-1]][1:]):
        return None
    body = "\n".join(lines[hline : data_lines[-1]]) + "\n"
    if '"' not in body:
        # No quoting: one record per line, and a line's fields are its commas plus one.
        commas = pl.Series(lines[hline : data_lines[-1]]).str.count_matches(",", literal=True)
        if (commas != len(header) - 1).any():
            return None
        raw = pl.read_csv(
            io.StringIO(body),
            has_header=False,
            new_columns=header,
            infer_schema=False,
            quote_char=None,
        ).fill_null("")
    else:
        # the csv module splits exactly as the row reader does; polars then checks the values
        records = list(csv.reader(io.StringIO(body, newline=""), strict=False))
        if any(len(r) != len(header) for r in records):
            return None
        raw = pl.DataFrame(
            {h: list(col) for h, col in zip(header, zip(*records, strict=True), strict=True)},
            schema=dict.fromkeys(header, pl.Utf8),
        )
    if raw.height != len(data_lines):
        return None
    raw = raw.select(pl.all().str.strip_chars()).with_columns(
        pl.Series("source_line", data_lines, dtype=pl.Int32)
    )
    for col in RESULTS_COLUMNS:
        if col not in raw.columns:
            raw = raw.with_columns(pl.lit("").alias(col))
    fed = raw["federation"].str.to_lowercase()
    allowed = set(KNOWN_FEDERATIONS) | ({federation} if federation else set())
    if federation is not None:
        allowed = {federation} if federation in allowed else set()
    if not fed.is_in(sorted(allowed)).all():
        return None
    values = pl.concat([raw["start_date"], raw["end_date"]]).unique().to_list()
    dates = {v: parse_date(v) for v in values if v}
    if any(d is None for d in dates.values()):
        return None
    status = raw["status"].str.to_lowercase()
    score_txt = raw["score_a"]
    base_ok = (
        (raw["competition_id"] != "")
        & (raw["start_date"] != "")
        & raw["round"].str.contains(r"^[0-9]{1,3}$")
        & (raw["player_a"] != "")
        & (raw["player_b"] != "")
        & (raw["player_a"] != raw["player_b"])
        & ((raw["handicap"] == "") | raw["handicap"].str.contains(r"^-?[0-9]{1,2}$"))
        & raw["results_public"].str.to_lowercase().is_in(["", *_TRUE, *_FALSE])
        & raw["colour_a"].str.to_lowercase().is_in(["", "w", "b"])
    )
    score_ok = (
        score_txt.is_in(sorted(_SCORES))
        & status.is_in(["", "played", "forfeit"])
        & ~((status == "forfeit") & score_txt.is_in(["0.5", ".5", "0.50", "½"]))
    ) | ((score_txt == "") & status.is_in(["", "unknown"]))
    if not (base_ok & score_ok).all():
        return None
    if (raw["round"].str.to_integer(strict=False) < 1).any():
        return None
    start = raw["start_date"].replace_strict(dates, return_dtype=pl.Date)
    end = pl.when(raw["end_date"] == "").then(raw["start_date"]).otherwise(raw["end_date"])
    frame_ = raw.with_columns(
        federation=fed,
        start=start,
        end=pl.Series(raw.select(end).to_series()).replace_strict(dates, return_dtype=pl.Date),
        status_=pl.when(score_txt == "")
        .then(pl.lit("unknown"))
        .otherwise(pl.when(status == "").then(pl.lit("played")).otherwise(status)),
        score=score_txt.replace_strict({**_SCORES, "": None}, return_dtype=pl.Float64),
        round_=raw["round"].str.to_integer().cast(pl.Int32),
        handicap_=pl.when(raw["handicap"] == "")
        .then(None)
        .otherwise(raw["handicap"])
        .cast(pl.Int32),
        public=~raw["results_public"].str.to_lowercase().is_in(sorted(_FALSE)),
        modality_=pl.when(raw["modality"] == "")
        .then(pl.lit("classic"))
        .otherwise(raw["modality"].str.to_lowercase()),
        class_=pl.when(raw["event_class"] == "")
        .then(None)
        .otherwise(raw["event_class"].str.to_uppercase()),
        colour=pl.when(raw["colour_a"] == "")
        .then(None)
        .otherwise(raw["colour_a"].str.to_lowercase()),
        cname=pl.when(raw["competition_name"] == "").then(None).otherwise(raw["competition_name"]),
    )
    if (frame_["end"] < frame_["start"]).any():
        return None
    per_comp = frame_.group_by("federation", "competition_id", maintain_order=True).agg(
        pl.col("start").n_unique().alias("n_start"),
        pl.col("end").n_unique().alias("n_end"),
        pl.col("public").n_unique().alias("n_public"),
        pl.col("modality_").n_unique().alias("n_modality"),
        pl.col("class_").n_unique().alias("n_class"),
        pl.col("cname").drop_nulls().n_unique().alias("n_name"),
        pl.col("cname").drop_nulls().first().alias("name"),
        pl.col("start").first(),
        pl.col("end").first(),
        pl.col("public").first(),
        pl.col("modality_").first(),
        pl.col("class_").first(),
        pl.col("round_").n_unique().alias("rounds"),
    )
    if (
        per_comp.select(
            pl.max_horizontal("n_start", "n_end", "n_public", "n_modality", "n_class", "n_name")
        ).to_series()
        > 1
    ).any():
        return None
    pair_lo = pl.min_horizontal("player_a", "player_b").alias("lo")
    pair_hi = pl.max_horizontal("player_a", "player_b").alias("hi")
    if frame_.select(
        pl.struct("federation", "competition_id", "round_", pair_lo, pair_hi).is_duplicated().any()
    ).item():
        return None
    games = frame_.select(
        "federation",
        "competition_id",
        pl.col("round_").alias("round"),
        "player_a",
        "player_b",
        pl.col("score").alias("score_a"),
        pl.col("status_").alias("status"),
        pl.col("handicap_").alias("handicap"),
        pl.col("colour").alias("colour_a"),
        "source_line",
    )
    competitions = per_comp.select(
        "federation",
        "competition_id",
        "name",
        pl.col("start").alias("start_date"),
        pl.col("end").alias("end_date"),
        "rounds",
        pl.col("modality_").alias("modality"),
        pl.col("public").alias("results_public"),
        pl.col("class_").alias("event_class"),
        pl.lit(name).alias("source"),
        pl.lit(digest).alias("source_sha256"),
    )
    ids = (
        games.select(
            pl.concat_list(
                pl.struct(pl.col("federation"), pl.col("player_a").alias("player_id")),
                pl.struct(pl.col("federation"), pl.col("player_b").alias("player_id")),
            ).alias("p")
        )
        .explode("p")
        .unnest("p")
    )
    players = ids.unique(maintain_order=True)
    return ReadResult.build(
        name,
        digest,
        "interchange-results",
        g,
        competitions=competitions,
        players=players,
        games=games,
    )


def _check_header(
    header: list[str], line: int, known: tuple[str, ...], required: tuple[str, ...], f: Findings
) -> bool:
    ok = True
    for col in required:
        if col not in header:
            f.add(
                "format.csv.missing_column",
                "reject",
                f"required column {col!r} is missing from the header",
                line=line,
                field=col,
            )
            ok = False
    seen: set[str] = set()
    for col in header:
        if col in seen:
            f.add(
                "format.csv.duplicate_column",
                "reject",
                f"column {col!r} appears twice in the header",
                line=line,
                field=col,
            )
            ok = False
        seen.add(col)
        if col not in known:
            f.add(
                "format.csv.unknown_column",
                "warn",
                f"column {col!r} is not part of the format; ignored",
                line=line,
                field=col,
            )
    return ok


def _records(
    header: list[str], rows: Iterator[tuple[int, list[str]]], f: Findings, key: str | None
) -> Iterator[tuple[int, dict[str, str]]]:
    """Records as dicts; rows with a wrong number of fields become findings."""
    n = len(header)
    for line, row in rows:
        if row == [_CSV_ERROR]:
            f.add(
                "format.csv.bad_quote",
                "reject",
                "a quoted field is never closed: the rest of the file cannot be read",
                line=line,
            )
            continue
        if len(row) != n:
            cid = (
                row[header.index(key)].strip()
                if key in header and header.index(key) < len(row)
                else None
            )
            f.add(
                "format.csv.field_count",
                "reject",
                f"expected {n} fields as in the header, found {len(row)} (truncated or extra separator?)",
                line=line,
                competition_id=cid or None,
            )
            continue
        yield line, {h: v.strip() for h, v in zip(header, row, strict=True)}


def _results(
    name: str,
    digest: str,
    header: list[str],
    hline: int,
    rows: Iterator[tuple[int, list[str]]],
    f: Findings,
    federation: str | None,
) -> ReadResult:
    fmt = "interchange-results"
    if not _check_header(header, hline, RESULTS_COLUMNS, RESULTS_REQUIRED, f):
        return ReadResult.build(name, digest, fmt, f)
    games: list[dict[str, object]] = []
    comps: dict[tuple[str, str], dict[str, object]] = {}
    rounds: dict[tuple[str, str], set[int]] = {}
    seen_pairs: dict[tuple[str, str, int, frozenset[str]], int] = {}
    for line, rec in _records(header, rows, f, "competition_id"):
        cid = rec.get("competition_id", "")
        bad = False

        def err(rule: str, msg: str, fld: str | None, cid: str = cid, line: int = line) -> None:
            nonlocal bad
            bad = True
            f.add(
                rule,
                "reject",
                msg + "; the competition is not rated until this row is fixed",
                line=line,
                field=fld,
                competition_id=cid or None,
            )

        fed = _federation(rec["federation"], federation)
        if fed is None:
            err(
                "format.csv.unknown_federation",
                f"unknown federation {rec['federation']!r} (known: {', '.join(sorted(KNOWN_FEDERATIONS))})",
                "federation",
            )
        elif federation is not None and fed != federation:
            err(
                "format.csv.federation_mismatch",
                f"federation {fed!r} in a file sent for {federation!r}",
                "federation",
            )
        if not cid:
            err("format.csv.missing_value", "competition_id is empty", "competition_id")
        start = parse_date(rec["start_date"])
        if start is None:
            err(
                "format.csv.bad_date",
                f"start_date {rec['start_date']!r} is not a date (YYYY-MM-DD)",
                "start_date",
            )
        end = start
        if rec.get("end_date"):
            end = parse_date(rec["end_date"])
            if end is None:
                err(
                    "format.csv.bad_date",
                    f"end_date {rec['end_date']!r} is not a date (YYYY-MM-DD)",
                    "end_date",
                )
            elif start is not None and end < start:
                err(
                    "format.csv.bad_date",
                    f"end_date {end} is before start_date {start}",
                    "end_date",
                )
        rnd: int | None = None
        if is_digits(rec["round"]) and 1 <= int(rec["round"]) <= MAX_ROUND:
            rnd = int(rec["round"])
        else:
            err(
                "format.csv.bad_round",
                f"round must be an integer from 1 to {MAX_ROUND}, not {rec['round']!r}",
                "round",
            )
        a, b = rec["player_a"], rec["player_b"]
        for col, pid in (("player_a", a), ("player_b", b)):
            if not pid:
                err("format.csv.missing_value", f"{col} is empty", col)
        if a and a == b:
            err("format.csv.self_pairing", f"player {a!r} is paired with himself", "player_b")
        status = (rec.get("status") or "").lower()
        if status and status not in _STATUSES:
            err(
                "format.csv.bad_status",
                f"status must be one of {', '.join(_STATUSES)}, not {rec['status']!r}",
                "status",
            )
        raw = rec["score_a"]
        score: float | None = None
        if raw == "":
            if status in ("", "unknown"):
                status = "unknown"
            else:
                err(
                    "format.csv.bad_score",
                    f"score_a is empty but status is {status!r} (empty means unknown)",
                    "score_a",
                )
        elif raw in _SCORES:
            score = _SCORES[raw]
            if status == "unknown":
                f.add(
                    "format.csv.score_of_unknown",
                    "warn",
                    f"status is 'unknown' but score_a is {raw!r}: the score is ignored",
                    line=line,
                    field="score_a",
                    competition_id=cid or None,
                )
                score = None
            elif status == "forfeit" and score == 0.5:
                err("format.csv.bad_score", "a forfeit scores 1 or 0, not 0.5", "score_a")
        else:
            err(
                "format.csv.bad_score",
                f"score_a must be 1, 0.5 or 0 (empty: unknown), not {raw!r}",
                "score_a",
            )
        status = status or "played"
        handicap: int | None = None
        if rec.get("handicap"):
            if re.fullmatch(r"-?[0-9]{1,2}", rec["handicap"]):
                handicap = int(rec["handicap"])
            else:
                err(
                    "format.csv.bad_handicap",
                    f"handicap must be a number of stones (-99 to 99), not {rec['handicap']!r}",
                    "handicap",
                )
        public = True
        if rec.get("results_public"):
            v = rec["results_public"].lower()
            if v in _TRUE or v in _FALSE:
                public = v in _TRUE
            else:
                err(
                    "format.csv.bad_boolean",
                    f"results_public must be true or false, not {rec['results_public']!r}",
                    "results_public",
                )
        colour = (rec.get("colour_a") or "").lower() or None
        if colour not in (None, "w", "b"):
            err(
                "format.csv.bad_colour",
                f"colour_a must be w or b, not {rec['colour_a']!r}",
                "colour_a",
            )
        if bad or fed is None or rnd is None or start is None or end is None:
            continue
        key = (fed, cid)
        comp = {
            "federation": fed,
            "competition_id": cid,
            "name": rec.get("competition_name") or None,
            "start_date": start,
            "end_date": end,
            "modality": (rec.get("modality") or "classic").lower(),
            "results_public": public,
            "event_class": (rec.get("event_class") or "").upper() or None,
            "source": name,
            "source_sha256": digest,
        }
        if key not in comps:
            comps[key] = comp | {"_line": line}
        else:
            first = comps[key]
            for col in ("start_date", "end_date", "results_public", "modality", "event_class"):
                if first[col] != comp[col]:
                    f.add(
                        "format.csv.inconsistent_competition",
                        "reject",
                        f"{col} is {comp[col]!r} here but {first[col]!r} on line {first['_line']} "
                        f"of the same competition",
                        line=line,
                        field=col,
                        competition_id=cid,
                    )
            if comp["name"] and first["name"] != comp["name"]:
                f.add(
                    "format.csv.inconsistent_competition",
                    "warn",
                    f"competition_name {comp['name']!r} differs from {first['name']!r} on line {first['_line']}",
                    line=line,
                    field="competition_name",
                    competition_id=cid,
                )
        pair = (fed, cid, rnd, frozenset((a, b)))
        if pair in seen_pairs:
            f.add(
                "format.csv.duplicate_game",
                "exclude",
                f"{a} v {b} in round {rnd} is already on line {seen_pairs[pair]}: this repetition is not rated",
                line=line,
                competition_id=cid,
            )
            continue
        seen_pairs[pair] = line
        rounds.setdefault(key, set()).add(rnd)
        games.append(
            {
                "federation": fed,
                "competition_id": cid,
                "round": rnd,
                "player_a": a,
                "player_b": b,
                "score_a": score,
                "status": status,
                "handicap": handicap,
                "colour_a": colour,
                "source_line": line,
            }
        )
    comp_rows = [
        {k: v for k, v in c.items() if k != "_line"} | {"rounds": len(rounds.get(key, ()))}
        for key, c in comps.items()
    ]
    seen_players: dict[tuple[str, str], None] = {}
    for g in games:
        for col in ("player_a", "player_b"):
            seen_players[(str(g["federation"]), str(g[col]))] = None
    players = [{"federation": fed, "player_id": pid} for fed, pid in seen_players]
    if not games and not f.has_reject():
        f.add("format.csv.no_games", "reject", "the results file has a header but no games")
    return ReadResult.build(
        name,
        digest,
        fmt,
        f,
        competitions=frame(comp_rows, COMPETITIONS_SCHEMA),
        players=frame(players, PLAYERS_SCHEMA),
        games=frame(games, GAMES_SCHEMA),
    )


def _int(
    rec: dict[str, str], col: str, line: int, f: Findings, *, severity: str = "reject"
) -> int | None:
    v = rec.get(col, "")
    if not v:
        return None
    try:
        # "12.0" is 12; never through float, which rounds 99999999999999999999.
        return int(v.split(".")[0]) if re.fullmatch(r"-?\d+\.0+", v) else int(v)
    except ValueError:
        f.add(
            f"format.csv.bad_{col}",
            severity,
            f"{col} must be an integer, not {v!r}",
            line=line,
            field=col,
        )
        return None


#: Federations whose player ids are numbers (FIDE id, EGF PIN).
_NUMERIC_IDS = frozenset({"fide", "egf"})


def _alias_target_problem(federation: str, target: str) -> str | None:
    """Why ``target`` cannot be a player id of ``federation`` (``None``: it can)."""
    target = target.strip()
    if target.startswith("name:"):
        return f"player_id {target!r} is a name key, not an id of {federation}"
    if federation in _NUMERIC_IDS and not target.isdigit():
        return f"player_id {target!r} is not a {federation.upper()} id (digits only)"
    return None


def _out_of_range(f: Findings, line: int, **values: object) -> bool:
    """Add a reject finding for every value out of its range (``formats.limits``); any?"""
    bad = False
    for field, value in values.items():
        problem = check_value(field, value)
        if problem is not None:
            f.add("format.csv.out_of_range", "reject", f"{problem}: correct the value", line=line, field=field)
            bad = True
    return bad


def _players(
    name: str,
    digest: str,
    header: list[str],
    hline: int,
    rows: Iterator[tuple[int, list[str]]],
    f: Findings,
    federation: str | None,
) -> ReadResult:
    fmt = "interchange-players"
    if not _check_header(header, hline, PLAYERS_COLUMNS, PLAYERS_REQUIRED, f):
        return ReadResult.build(name, digest, fmt, f)
    out: list[dict[str, object]] = []
    for line, rec in _records(header, rows, f, None):
        fed = _federation(rec["federation"], federation)
        if fed is None or (federation is not None and fed != federation):
            f.add(
                "format.csv.unknown_federation",
                "reject",
                f"federation {rec['federation']!r} is unknown or not {federation!r}",
                line=line,
                field="federation",
            )
            continue
        if not rec["player_id"]:
            f.add(
                "format.csv.missing_value",
                "reject",
                "player_id is empty",
                line=line,
                field="player_id",
            )
            continue
        rating: float | None = None
        if rec.get("declared_rating"):
            try:
                rating = float(rec["declared_rating"])
            except ValueError:
                f.add(
                    "format.csv.bad_rating",
                    "reject",
                    f"declared_rating {rec['declared_rating']!r} is not a number",
                    line=line,
                    field="declared_rating",
                )
        birth_year = _int(rec, "birth_year", line, f)
        if _out_of_range(f, line, declared_rating=rating, birth_year=birth_year):
            continue
        out.append(
            {
                "federation": fed,
                "player_id": rec["player_id"],
                "name": rec.get("name") or None,
                "country": rec.get("country") or None,
                "club": rec.get("club") or None,
                "birth_year": birth_year,
                "declared_rank": rec.get("declared_rank") or None,
                "declared_rating": rating,
                "declared_rating_origin": rec.get("declared_rating_origin") or None,
            }
        )
    return ReadResult.build(name, digest, fmt, f, players=frame(out, PLAYERS_SCHEMA))


def _ratings(
    name: str,
    digest: str,
    header: list[str],
    hline: int,
    rows: Iterator[tuple[int, list[str]]],
    f: Findings,
    federation: str | None,
) -> ReadResult:
    fmt = "interchange-ratings"
    if not _check_header(header, hline, RATINGS_COLUMNS, RATINGS_REQUIRED, f):
        return ReadResult.build(name, digest, fmt, f)
    out: list[dict[str, object]] = []
    seen: dict[tuple[str, str], int] = {}
    editions: dict[int, int] = {}   # edition -> first line declaring it
    for line, rec in _records(header, rows, f, None):
        edition = _int(rec, "edition", line, f)
        if edition is not None:
            if edition < 0:
                f.add("format.csv.bad_edition", "reject",
                      f"edition must be a whole number >= 0, not {rec['edition']!r}", line=line, field="edition")
            elif editions and edition not in editions:
                first, first_line = next(iter(editions.items()))
                f.add("format.csv.bad_edition", "reject",
                      f"edition {edition} differs from edition {first} on line {first_line}: "
                      "a starting list is one edition", line=line, field="edition")
            else:
                editions.setdefault(edition, line)
        fed = _federation(rec["federation"], federation)
        if fed is None or (federation is not None and fed != federation):
            f.add(
                "format.csv.unknown_federation",
                "reject",
                f"federation {rec['federation']!r} is unknown or not {federation!r}",
                line=line,
                field="federation",
            )
            continue
        pid = rec["player_id"]
        if not pid:
            f.add(
                "format.csv.missing_value",
                "reject",
                "player_id is empty",
                line=line,
                field="player_id",
            )
            continue
        if (fed, pid) in seen:
            f.add(
                "format.csv.duplicate_player",
                "reject",
                f"player {pid!r} is already listed on line {seen[(fed, pid)]}",
                line=line,
                field="player_id",
            )
            continue
        seen[(fed, pid)] = line
        rating: float | None = None
        if rec["rating"]:
            try:
                rating = float(rec["rating"])
            except ValueError:
                f.add(
                    "format.csv.bad_rating",
                    "reject",
                    f"rating must be a number (empty: unrated), not {rec['rating']!r}",
                    line=line,
                    field="rating",
                )
                continue
        as_of: date | None = None
        if rec.get("as_of"):
            as_of = parse_date(rec["as_of"])
            if as_of is None:
                f.add(
                    "format.csv.bad_date",
                    "reject",
                    f"as_of {rec['as_of']!r} is not a date (YYYY-MM-DD)",
                    line=line,
                    field="as_of",
                )
                continue
        rated_max: float | None = None
        if rec.get("rated_max"):
            try:
                rated_max = float(rec["rated_max"])
            except ValueError:
                f.add(
                    "format.csv.bad_rated_max",
                    "reject",
                    f"rated_max {rec['rated_max']!r} is not a number",
                    line=line,
                    field="rated_max",
                )
        games = _int(rec, "games", line, f)
        k = _int(rec, "k", line, f)
        if _out_of_range(f, line, rating=rating, rated_max=rated_max, games=games, k=k, edition=edition):
            continue
        out.append(
            {
                "federation": fed,
                "player_id": pid,
                "name": rec.get("name") or None,
                "rating": rating,
                "games": games if games is not None else 0,
                "as_of": as_of,
                "k": k,
                "status": rec.get("status") or None,
                "last_played": rec.get("last_played") or None,
                "rated_max": rated_max,
            }
        )
    ratings = frame(out, RATINGS_SCHEMA)
    players = ratings.select("federation", "player_id", "name")
    return ReadResult.build(name, digest, fmt, f, ratings=ratings, players=players,
                            list_edition=next(iter(editions), None))


def _aliases(
    name: str,
    digest: str,
    header: list[str],
    hline: int,
    rows: Iterator[tuple[int, list[str]]],
    f: Findings,
    federation: str | None,
) -> ReadResult:
    fmt = "interchange-aliases"
    if not _check_header(header, hline, ALIASES_COLUMNS, ALIASES_REQUIRED, f):
        return ReadResult.build(name, digest, fmt, f)
    out: list[dict[str, object]] = []
    targets: dict[tuple[str, str], tuple[str, int]] = {}   # (federation, alias) -> (player_id, line)
    for line, rec in _records(header, rows, f, None):
        fed = _federation(rec["federation"], federation)
        if fed is None or (federation is not None and fed != federation):
            # Checked against the federation it is applied to: an alias table dropped in
            # inbox/<federation>/ may only speak of that federation's players (issue 9).
            f.add(
                "format.csv.unknown_federation",
                "reject",
                f"federation {rec['federation']!r} is unknown"
                + (f" or not {federation!r}, the federation this file was sent to" if federation else ""),
                line=line,
                field="federation",
            )
            continue
        if not rec["alias"] or not rec["player_id"]:
            fld = "alias" if not rec["alias"] else "player_id"
            f.add("format.csv.missing_value", "reject", f"{fld} is empty", line=line, field=fld)
            continue
        problem = _alias_target_problem(fed, rec["player_id"])
        if problem is None and rec["alias"].strip() == rec["player_id"].strip():
            problem = "an alias of itself changes nothing"
        held = targets.get((fed, rec["alias"].strip()))
        if problem is None and held is not None and held[0] != rec["player_id"].strip():
            problem = f"alias {rec['alias']!r} already points to {held[0]!r} on line {held[1]}"
        if problem is not None:
            f.add("format.csv.bad_alias", "reject", f"{problem}: correct the row", line=line, field="player_id")
            continue
        targets.setdefault((fed, rec["alias"].strip()), (rec["player_id"].strip(), line))
        out.append({"federation": fed, "alias": rec["alias"], "player_id": rec["player_id"]})
    return ReadResult.build(name, digest, fmt, f, aliases=frame(out, ALIASES_SCHEMA))

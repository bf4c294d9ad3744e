"""Interchange CSV ``*.results.csv``: the vectorised reader of a clean file and the exact
row-by-row reader that finds every problem (``formats.interchange``)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

import polars as pl

from formats._common import (
    KNOWN_FEDERATIONS,
    Findings,
    is_digits,
    parse_iso_date,
    split_lines,
)
from formats.address import AddressError, email_address
from formats.interchange_csv import (
    _FALSE,
    _SCORES,
    _STATUSES,
    _TRUE,
    MAX_ROUND,
    RESULTS_COLUMNS,
    RESULTS_REQUIRED,
    _check_header,
    _federation,
    _records,
)
from formats.result import ReadResult, frame
from formats.schema import (
    COMPETITIONS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
)

_HANDICAP = re.compile(r"-?[0-9]{1,2}")


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
        # the csv module splits exactly as the row reader does; polars then checks the values.
        # An odd count of quotes on a line is a quote the row reader refuses (format.csv.bad_quote).
        if any(ln.count('"') % 2 for ln in lines[hline : data_lines[-1]]):
            return None
        records = list(csv.reader(io.StringIO(body, newline=""), strict=False))
        if any(len(r) != len(header) for r in records):
            return None
        raw = pl.DataFrame(
            {h: list(col) for h, col in zip(header, zip(*records, strict=True), strict=True)},
            schema=dict.fromkeys(header, pl.Utf8),
        )
    if raw.height != len(data_lines):
        return None
    # Expressions, each step one polars query: a query costs ~0.1 ms whatever the size.
    raw = raw.select(
        pl.all().str.strip_chars(),
        *(pl.lit("").alias(c) for c in RESULTS_COLUMNS if c not in raw.columns),
    ).with_columns(pl.Series("source_line", data_lines, dtype=pl.Int32))
    col = pl.col
    fed = col("federation").str.to_lowercase()
    allowed = set(KNOWN_FEDERATIONS) | ({federation} if federation else set())
    if federation is not None:
        allowed = {federation} if federation in allowed else set()
    status = col("status").str.to_lowercase()
    score_txt = col("score_a")
    base_ok = (
        (col("competition_id") != "")
        & (col("start_date") != "")
        & col("round").str.contains(r"^[0-9]{1,3}$")
        & (col("player_a") != "")
        & (col("player_b") != "")
        & (col("player_a") != col("player_b"))
        & ((col("handicap") == "") | col("handicap").str.contains(r"^-?[0-9]{1,2}$"))
        & col("results_public").str.to_lowercase().is_in(["", *_TRUE, *_FALSE])
        & col("colour_a").str.to_lowercase().is_in(["", "w", "b"])
    )
    score_ok = (
        score_txt.is_in(sorted(_SCORES))
        & status.is_in(["", "played", "forfeit"])
        & ~((status == "forfeit") & score_txt.is_in(["0.5", ".5", "0.50", "½"]))
    ) | ((score_txt == "") & status.is_in(["", "unknown"]))
    fed_ok, rows_ok, round_below_one = raw.select(
        fed.is_in(sorted(allowed)).all(),
        (base_ok & score_ok).all().alias("rows_ok"),
        (col("round").str.to_integer(strict=False) < 1).any().alias("round_below_one"),
    ).row(0)
    if not fed_ok:
        return None
    values = set(raw.get_column("start_date").to_list()) | set(raw.get_column("end_date").to_list())
    dates = {v: parse_iso_date(v) for v in values if v}
    if any(d is None for d in dates.values()):
        return None
    if not rows_ok or round_below_one:
        return None
    end = pl.when(col("end_date") == "").then(col("start_date")).otherwise(col("end_date"))
    frame_ = raw.with_columns(
        federation=fed,
        start=col("start_date").replace_strict(dates, return_dtype=pl.Date),
        end=end.replace_strict(dates, return_dtype=pl.Date),
        status_=pl.when(score_txt == "")
        .then(pl.lit("unknown"))
        .otherwise(pl.when(status == "").then(pl.lit("played")).otherwise(status)),
        score=score_txt.replace_strict({**_SCORES, "": None}, return_dtype=pl.Float64),
        round_=col("round").str.to_integer().cast(pl.Int32),
        handicap_=pl.when(col("handicap") == "")
        .then(None)
        .otherwise(col("handicap"))
        .cast(pl.Int32),
        public=~col("results_public").str.to_lowercase().is_in(sorted(_FALSE)),
        modality_=pl.when(col("modality") == "")
        .then(pl.lit("classic"))
        .otherwise(col("modality").str.to_lowercase()),
        class_=pl.when(col("event_class") == "")
        .then(None)
        .otherwise(col("event_class").str.to_uppercase()),
        colour=pl.when(col("colour_a") == "")
        .then(None)
        .otherwise(col("colour_a").str.to_lowercase()),
        cname=pl.when(col("competition_name") == "").then(None).otherwise(col("competition_name")),
    )
    addresses = {v: _normalised(v) for v in frame_.get_column("organiser_email").unique().to_list() if v}
    if any(v is None for v in addresses.values()):
        return None   # the row reader names the line of a bad address
    frame_ = frame_.with_columns(
        email=col("organiser_email").replace_strict({**addresses, "": None}, return_dtype=pl.Utf8))
    if frame_.select((col("end") < col("start")).any()).item():
        return None
    per_comp = frame_.group_by("federation", "competition_id", maintain_order=True).agg(
        pl.col("start").n_unique().alias("n_start"),
        pl.col("end").n_unique().alias("n_end"),
        pl.col("public").n_unique().alias("n_public"),
        pl.col("modality_").n_unique().alias("n_modality"),
        pl.col("class_").n_unique().alias("n_class"),
        pl.col("cname").drop_nulls().n_unique().alias("n_name"),
        pl.col("cname").drop_nulls().first().alias("name"),
        pl.col("email").drop_nulls().n_unique().alias("n_email"),
        pl.col("email").drop_nulls().first().alias("organiser_email"),
        pl.col("start").first(),
        pl.col("end").first(),
        pl.col("public").first(),
        pl.col("modality_").first(),
        pl.col("class_").first(),
        pl.col("round_").n_unique().alias("rounds"),
    )
    if (
        per_comp.select(
            pl.max_horizontal("n_start", "n_end", "n_public", "n_modality", "n_class", "n_name", "n_email")
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
        pl.col("rounds").cast(pl.Int32),
        pl.col("modality_").alias("modality"),
        pl.col("public").alias("results_public"),
        pl.col("class_").alias("event_class"),
        pl.lit(name).alias("source"),
        pl.lit(digest).alias("source_sha256"),
        pl.lit(None, pl.Int32).alias("rounds_declared"),
        "organiser_email",
    )  # already COMPETITIONS_SCHEMA: no second query to conform it
    players = (  # one query: the chain runs lazily
        games.lazy()
        .select(
            pl.concat_list(
                pl.struct(pl.col("federation"), pl.col("player_a").alias("player_id")),
                pl.struct(pl.col("federation"), pl.col("player_b").alias("player_id")),
            ).alias("p")
        )
        .explode("p")
        .unnest("p")
        .unique(maintain_order=True)
        .select(pl.col(c) if c in ("federation", "player_id") else pl.lit(None, dtype).alias(c)
                for c, dtype in PLAYERS_SCHEMA.items())
        .collect()
    )
    return ReadResult.build(
        name,
        digest,
        "interchange-results",
        g,
        competitions=competitions,
        players=players,
        games=games,
    )


def _normalised(text: str) -> str | None:
    """``text``'s normalised address, or ``None`` when it is not one."""
    try:
        return email_address(text)
    except AddressError:
        return None


def _organiser_email(text: str, f: Findings, line: int, cid: str) -> str | None:
    """A row's ``organiser_email``, normalised; a bad one is a warning (the report then goes
    to the registry's address, or to the officer's digest) and ``None``."""
    if not text:
        return None
    try:
        return email_address(text)
    except AddressError as error:
        f.add("format.csv.bad_email", "warn",
              f"{error}: the report goes to the organiser registered for the competition, else to the "
              "rating officer", line=line, field="organiser_email", competition_id=cid or None)
        return None


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
        start = parse_iso_date(rec["start_date"])
        if start is None:
            err(
                "format.csv.bad_date",
                f"start_date {rec['start_date']!r} is not a date (YYYY-MM-DD)",
                "start_date",
            )
        end = start
        if rec.get("end_date"):
            end = parse_iso_date(rec["end_date"])
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
            if _HANDICAP.fullmatch(rec["handicap"]):
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
        address = _organiser_email(rec.get("organiser_email") or "", f, line, cid)
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
            "organiser_email": address,
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
            if address and not first["organiser_email"]:
                first["organiser_email"] = address
            elif address and first["organiser_email"] != address:
                f.add(
                    "format.csv.inconsistent_competition",
                    "warn",
                    f"organiser_email {address!r} differs from {first['organiser_email']!r} on line "
                    f"{first['_line']}: the report goes to the first",
                    line=line,
                    field="organiser_email",
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



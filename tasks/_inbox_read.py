"""What ``tasks.ingest.read_inbox`` does with each unit of the inbox and with what it read:
each new file read once, identical copies and re-sends skipped, each file given to its
federation, one version per competition, the aliases' rewriting, the federations' batches.

Prefect-free policy of the ingest task (``tasks.ingest``, which re-exports the public names),
beside it for the reason given in ``tasks/_inbox.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from pathlib import Path

import polars as pl

import formats
from formats.batch import FILES_SCHEMA, FederationBatch
from formats.identity import alias_map
from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    DECLARATIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    concat,
    merge_players,
)
from tasks._inbox import (
    SEED_SUFFIX,
    _federation_in_rows,
    _organiser_folder,
    _subfolder_federation,
)


@dataclass
class Ingested:
    """What the inbox held tonight."""

    batches: dict[str, FederationBatch]
    files_seen: int
    files_skipped: list[str]
    files_ignored: list[str]
    #: File name -> its outcome line, for the entries that were not read: identical copies
    #: of a file of the same night, special files, symlinks out of the inbox.
    file_outcomes: dict[str, str] = field(default_factory=dict)


def _as_version(result: formats.ReadResult, version: str) -> formats.ReadResult:
    """``result`` read again at the officer's request: its competitions are the new version
    ``version`` (``warehouse.reprocess.version_sha256``), which supersedes the one loaded."""
    return replace(result, source_sha256=version, competitions=result.competitions.with_columns(
        pl.lit(version, pl.Utf8()).alias("source_sha256")))


def _federation_of(result: formats.ReadResult, default: str | None) -> str | None:
    """The federation the file's rows (or its format) declare; ``default`` when they declare none."""
    for frame in (result.competitions, result.players, result.findings, result.games):
        if frame.height and "federation" in frame.columns:
            values = frame.get_column("federation")
            nulls = values.null_count()
            if nulls < values.len():   # the first non-null, without a query per file
                return str(values[0] if nulls == 0 else values.drop_nulls()[0])
    return default


#: Rule id of the finding that records a version replaced by a later one of the same night.
SUPERSEDED_SAME_NIGHT = "ingest.superseded_same_night"


def _competition_keys(result: formats.ReadResult) -> list[tuple[str | None, str]]:
    """(federation, competition_id) of each competition of a file (read off the columns: no query)."""
    comps = result.competitions
    if not comps.height:
        return []
    return list(zip(comps.get_column("federation").to_list(), comps.get_column("competition_id").to_list(),
                    strict=True))


def keep_latest_versions(results: list[formats.ReadResult], sent: dict[str, float]) -> list[formats.ReadResult]:
    """One version per competition in a night: the file that reached the inbox last wins.

    An organiser who sends a corrected file on the day of the first one leaves two
    different files of one competition in the inbox. The one modified last (ties: the
    later file name) is the competition; the earlier one is kept in the load ledger
    (so it is never read again) without its competitions, and the competition's report
    says which file was replaced by which, with a ``warn`` finding.

    Examples
    --------
    >>> from formats.interchange import from_interchange
    >>> head = b"federation,competition_id,start_date,round,player_a,player_b,score_a\\n"
    >>> old = from_interchange(head + b"ajusc,C,2025-10-04,1,1,2,1\\n", "c.results.csv")
    >>> new = from_interchange(head + b"ajusc,C,2025-10-04,1,1,2,0\\n", "c-fixed.results.csv")
    >>> kept = keep_latest_versions([old, new], {"c.results.csv": 1.0, "c-fixed.results.csv": 2.0})
    >>> [(r.source, r.competitions.height) for r in kept]
    [('c.results.csv', 0), ('c-fixed.results.csv', 1)]
    >>> kept[1].findings.select("rule", "severity", "source").row(0)
    ('ingest.superseded_same_night', 'warn', 'c.results.csv')
    """
    latest: dict[tuple[str | None, str], formats.ReadResult] = {}
    for result in results:
        for fed, cid in _competition_keys(result):
            key = (fed, cid)
            held = latest.get(key)
            if held is None or (sent.get(result.source, 0.0), result.source) > (
                sent.get(held.source, 0.0), held.source
            ):
                latest[key] = result
    replaced: dict[str, list[tuple[str | None, str, str]]] = {}   # losing source -> (fed, id, winner)
    for result in results:
        for fed, cid in _competition_keys(result):
            winner = latest[(fed, cid)]
            if winner is not result and winner.source_sha256 != result.source_sha256:
                replaced.setdefault(result.source, []).append((fed, cid, winner.source))
    if not replaced:
        return results
    notes: dict[str, list[dict[str, object]]] = {}   # winning source -> findings to add
    out: list[formats.ReadResult] = []
    for result in results:
        lost = replaced.get(result.source, [])
        for fed, cid, winning_source in lost:
            notes.setdefault(winning_source, []).append({
                "federation": fed, "competition_id": cid, "rule": SUPERSEDED_SAME_NIGHT,
                "severity": "warn",
                "message": (f"{result.source} was replaced by {winning_source}, a later version of competition "
                            f"{cid!r} sent the same night (the file that reached the inbox last is "
                            "rated); nothing to fix unless the earlier file was the right one"),
                "source": result.source, "line": None, "field": None,
            })
        if lost:
            ids = [cid for _, cid, _ in lost]
            keep = ~pl.col("competition_id").is_in(ids)
            result = replace(
                result,
                competitions=result.competitions.filter(keep),
                games=result.games.filter(keep),
                byes=result.byes.filter(keep),
                findings=result.findings.filter(pl.col("competition_id").is_null() | keep),
            )
        out.append(result)
    return [
        replace(r, findings=concat([r.findings, pl.DataFrame(notes[r.source], schema=FINDINGS_SCHEMA)],
                                   FINDINGS_SCHEMA))
        if r.source in notes else r
        for r in out
    ]


def _alias_keys(aliases: pl.DataFrame) -> set[str]:
    """Every id an alias table rewrites, in any federation (the keys ``with_aliases`` looks up)."""
    feds = aliases.get_column("federation").drop_nulls().unique().to_list()
    return {key for fed in feds for key in alias_map(aliases, str(fed))}


def _touched_by(result: formats.ReadResult, keys: set[str]) -> bool:
    """Whether ``result.with_aliases`` can change anything: an id of the file is an alias, or
    two player rows share an id (it merges them). Reading the columns costs no query, so a
    night of thousands of files with an alias table rewrites only the files it concerns."""
    ids: set[object] = set()
    for frame, columns in ((result.players, ("player_id",)), (result.games, ("player_a", "player_b")),
                           (result.byes, ("player_id",)), (result.ratings, ("player_id",))):
        for column in columns:
            if frame.height and column in frame.columns:
                ids.update(frame.get_column(column).to_list())
    if not ids.isdisjoint(keys):
        return True
    players = result.players
    if not players.height:
        return False
    pairs = set(zip(players.get_column("federation").to_list(), players.get_column("player_id").to_list(),
                    strict=True))
    return len(pairs) != players.height


def _file_findings_on_competitions(result: formats.ReadResult) -> formats.ReadResult:
    """A file-level finding (no competition) of a file that holds competitions belongs to
    each of them: the file then has one outcome, its competitions', never a second
    contradicting "unreadable" one."""
    findings = result.findings
    if not result.competitions.height and findings.height and findings.get_column("competition_id").drop_nulls().len():
        # Every row refused (a typo in the federation, impossible dates): no competition is
        # left to carry the findings, so they are the file's, and its report says what to fix.
        return replace(result, findings=findings.with_columns(pl.lit(None, pl.Utf8()).alias("competition_id")))
    if not result.competitions.height or not findings.height or not findings.get_column("competition_id").null_count():
        return result
    loose = findings.filter(pl.col("competition_id").is_null())
    if not loose.height:
        return result
    ids = result.competitions.get_column("competition_id").drop_nulls().unique(maintain_order=True).to_list()
    attached = [loose.with_columns(pl.lit(cid, pl.Utf8()).alias("competition_id")) for cid in ids]
    return replace(result, findings=pl.concat([findings.filter(pl.col("competition_id").is_not_null()), *attached]))


@dataclass
class _Night:
    """What :func:`read_inbox` knows of the night, and what it has read so far."""

    inbox: Path
    seen: set[str]
    federation: str | None
    known: AbstractSet[str]
    folders: Mapping[tuple[str, str], str]
    again: Mapping[str, str]
    digests: dict[Path, str | None]
    originals: dict[str, Path]
    outcomes: dict[str, str]
    skipped: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    reads: dict[str, list[formats.ReadResult]] = field(default_factory=dict)
    sent: dict[str, float] = field(default_factory=dict)   # file name -> when it reached the inbox (mtime)
    tonight: dict[str, str] = field(default_factory=dict)   # checksum -> the file of the night read for it


def _read_unit(night: _Night, unit: Path | list[Path]) -> None:
    """Read one unit of the inbox into ``night``: skipped, ignored or told apart as a copy, else
    read into its federation's results."""
    first = unit[0] if isinstance(unit, list) else unit
    if Path(first).name.endswith(SEED_SUFFIX):
        night.ignored.append(Path(first).name)
        return
    digest = night.digests.get(unit) if isinstance(unit, Path) else None
    if digest is not None and digest in night.seen and digest not in night.again:
        night.skipped.append(first.name)   # an identical re-send: not even parsed again
        return
    if digest is not None and night.originals[digest] != unit:
        night.outcomes[first.name] = f"identical copy of {night.originals[digest].name}"
        return
    result = formats.read(unit, federation=night.federation)
    if result.source_sha256 in night.again:
        result = _as_version(result, night.again[result.source_sha256])
    if result.source_sha256 in night.seen:
        night.skipped.append(result.source)
        return
    if result.source_sha256 in night.tonight:
        night.outcomes[result.source] = f"identical copy of {night.tonight[result.source_sha256]}"
        return
    night.tonight[result.source_sha256] = result.source
    if result.ratings.height and not result.competitions.height and not result.findings.height:
        night.ignored.append(result.source)   # a published rating list: `ratings seed` imports it
        return
    result = _file_findings_on_competitions(result)
    fed = _federation_for(night, result, unit)
    if night.federation is not None and fed != night.federation:
        night.ignored.append(result.source)
        return
    address = night.folders.get((fed, _organiser_folder(unit, night.inbox, fed) or ""))
    if address is not None and result.competitions.height:
        result = replace(result, competitions=result.competitions.with_columns(
            pl.col("organiser_email").fill_null(address)))
    night.reads.setdefault(fed, []).append(result)
    night.sent[result.source] = max(p.stat().st_mtime for p in (unit if isinstance(unit, list) else [unit]))


def _federation_for(night: _Night, result: formats.ReadResult, unit: Path | list[Path]) -> str:
    """The federation of a file: its rows', its folder's, the run's, else ``unknown``."""
    fed = (
        _federation_of(result, None)
        or (_federation_in_rows(unit) if isinstance(unit, Path) and unit.is_file() else None)
        or _subfolder_federation(unit, night.inbox, night.known)
        or night.federation
        or "unknown"
    )
    if fed not in night.known and fed != night.federation and fed != "unknown":
        # A federation no table names (a typo: ``ajsuc``): the reader's findings say so,
        # and the file's report goes to the rating officer with the other unknown files.
        fed = "unknown"
    return fed


def _federation_batch(fed: str, results: list[formats.ReadResult]) -> FederationBatch:
    """The night's batch of one federation: its files and their frames, concatenated."""
    files = pl.DataFrame(
        {
            "federation": [fed] * len(results),
            "source": [r.source for r in results],
            "source_sha256": [r.source_sha256 for r in results],
            "format": [r.format for r in results],
            "n_findings": [r.findings.height for r in results],
        },
        schema=FILES_SCHEMA,
    )
    findings = concat([r.findings for r in results], FINDINGS_SCHEMA).with_columns(
        pl.col("federation").fill_null(fed)
    )
    return FederationBatch(
        federation=fed,
        files=files,
        # The readers' declarations (language, online, time control) travel to validation.
        competitions=concat([r.competitions for r in results], {**COMPETITIONS_SCHEMA, **DECLARATIONS_SCHEMA}),
        players=merge_players(concat([r.players for r in results], PLAYERS_SCHEMA)),
        games=concat([r.games for r in results], GAMES_SCHEMA),
        byes=concat([r.byes for r in results], BYES_SCHEMA),
        findings=findings,
    )

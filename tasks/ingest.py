"""Ingest: read every new file of the inbox into the canonical frames.

Thin: the reading is :func:`formats.read`; this task lists the inbox, skips what
the load ledger already holds (a re-sent identical file is a no-op) and groups
what is left by federation.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import shutil
import stat
from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from pathlib import Path

import polars as pl

import formats
import warehouse
from formats._common import KNOWN_FEDERATIONS, decode
from formats.batch import FILES_SCHEMA, FederationBatch
from formats.identity import alias_map
from formats.limits import too_large
from formats.schema import (
    ALIASES_SCHEMA,
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    DECLARATIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    concat,
    merge_players,
)
from tasks.runtime import get_run_logger, task

__all__ = [
    "FILES_SCHEMA",
    "SEED_SUFFIX",
    "SUPERSEDED_SAME_NIGHT",
    "FederationBatch",
    "Ingested",
    "copy_to_inbox",
    "inbox_entries",
    "inbox_units",
    "ingest_inbox",
    "keep_latest_versions",
    "read_inbox",
]

#: Starting lists are imported with ``ratings seed``, never by the nightly run.
SEED_SUFFIX = ".ratings.csv"

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


def inbox_units(inbox: Path) -> list[Path | list[Path]]:
    """The files (or file groups, as folders) of ``inbox`` that the readers take, sorted.

    Hidden files are ignored; starting lists (``*.ratings.csv``) are left to ``ratings seed``;
    what is not a regular file of the inbox is left out (:func:`inbox_entries` says why).
    """
    return inbox_entries(inbox)[0]


def inbox_entries(inbox: Path) -> tuple[list[Path | list[Path]], dict[str, str]]:
    """The units the readers take (see :func:`inbox_units`), and the entries left unread with
    their outcome line: special files (a FIFO, a socket, a device), dangling symlinks,
    symlinked folders, and symlinks that lead out of the inbox (never read: the inbox holds
    what was sent, not a way to read the rest of the machine)."""
    if not inbox.is_dir():
        return [], {}
    root = inbox.resolve()
    paths: list[Path] = []
    left_out: dict[str, str] = {}

    def visit(folder: Path) -> None:
        try:
            entries = sorted(folder.iterdir())
        except OSError as error:
            left_out[folder.name] = f"skipped: the folder cannot be read ({error.strerror})"
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                mode = entry.lstat().st_mode
                if stat.S_ISDIR(mode):
                    visit(entry)
                    continue
                if stat.S_ISLNK(mode):
                    why = _symlink_left_out(entry, root)
                    if why is not None:
                        left_out[entry.name] = why
                        continue
                    paths.append(entry)
                elif stat.S_ISREG(mode):
                    paths.append(entry)
                else:
                    left_out[entry.name] = "skipped: not a regular file (a FIFO, socket or device)"
            except OSError as error:
                left_out[entry.name] = f"skipped: not a regular file ({error.strerror})"

    visit(inbox)
    return formats.group_inbox(paths), left_out


def _symlink_left_out(link: Path, root: Path) -> str | None:
    """Why the symlink ``link`` of the inbox ``root`` is not read (``None``: it is, a file inside)."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return "skipped: not a regular file (a dangling symlink)"
    if target.is_dir():
        return "skipped: not a regular file (a symlinked folder)"
    if root not in target.parents:
        return "skipped: a symlink to a file outside the inbox, not read"
    if not target.is_file():
        return "skipped: not a regular file (a FIFO, socket or device)"
    return None


def copy_to_inbox(paths: Sequence[str | Path], folder: Path, *, error: type[ValueError] = ValueError,
                  label: str = "") -> None:
    """Copy ``paths`` into the inbox ``folder`` for a run that reads files given on the command
    line: together, as in the inbox (the files of one Swiss Perfect tournament, ``.ini``,
    ``.rnd``, ``.stg``, are read as one unit), except that two files of the same name go to
    subfolders of their own and stay apart.

    Raises
    ------
    ValueError
        (``error``) A file is missing or unreadable: ``<label><name>: cannot read the file: ...``.
    """
    used: list[set[str]] = []
    for name in paths:
        path = Path(name)
        index = next((i for i, names in enumerate(used) if path.name not in names), len(used))
        if index == len(used):
            used.append(set())
        used[index].add(path.name)
        target = folder / f"{index:03d}"
        target.mkdir(exist_ok=True)
        try:
            if path.is_dir():
                shutil.copytree(path, target / path.name)
            else:
                shutil.copy(path, target / path.name)
        except OSError as failure:
            raise error(f"{label}{name}: cannot read the file: {failure.strerror or failure}") from None


def file_sha256(path: Path) -> str | None:
    """The checksum the readers record for a single file (sha256 of its bytes); ``None`` when
    the file is over the size limit (checked first, so an oversize file is never read) or
    cannot be read: the reader then refuses it with its finding."""
    try:
        if too_large(path.stat().st_size) is not None:
            return None
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return None


_COPY_NAME = re.compile(r"(?: \(\d+\)| - Copy(?: \(\d+\))?|\.~\d+~)(?=\.|$)")


def _original_first(path: Path) -> tuple[bool, float, str]:
    """Sort key among identical files: a name that says it is a copy last, then the newer, then by name."""
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = float("inf")
    return bool(_COPY_NAME.search(path.name)), mtime, path.name


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
            if nulls < values.len():   # the first non-null, without a query per file (issue 11)
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


def _federation_in_rows(path: Path) -> str | None:
    """The federation a CSV file's ``federation`` column names most often, even when the
    file cannot be read as a whole (a missing column, a wrong header): every row says it."""
    try:
        with path.open("rb") as handle:   # the head only: an oversize file is never read whole
            data = handle.read(1_000_000)
    except OSError:
        return None
    text = decode(data).text
    rows = csv.reader(io.StringIO(text))
    # A binary file, a compressed one or a field over the csv module's limit is the reader's
    # to report (with the file's name and line): here it only means no federation is read.
    try:
        header = [h.strip().lower().lstrip("\ufeff") for h in next(rows, [])]
        if "federation" not in header:
            return None
        at = header.index("federation")
        counts = Counter(r[at].strip().lower() for r in rows if len(r) > at and r[at].strip())
    except csv.Error:
        return None
    return counts.most_common(1)[0][0] if counts else None


def _subfolder_federation(unit: Path | list[Path], inbox: Path, known: AbstractSet[str]) -> str | None:
    """``inbox/<federation>/...``: the federation of the subfolder a file was dropped in."""
    first = Path(unit[0] if isinstance(unit, list) else unit)
    try:
        parts = first.relative_to(inbox).parts
    except ValueError:
        return None
    return parts[0].lower() if len(parts) > 1 and parts[0].lower() in known else None


def _organiser_folder(unit: Path | list[Path], inbox: Path, federation: str) -> str | None:
    """``inbox/<federation>/<folder>/...``: the organiser's subfolder a file was dropped in."""
    first = Path(unit[0] if isinstance(unit, list) else unit)
    try:
        parts = first.relative_to(inbox).parts
    except ValueError:
        return None
    return parts[1] if len(parts) > 2 and parts[0].lower() == federation else None


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


def read_inbox(
    inbox: Path, seen: set[str], federation: str | None = None,
    known: AbstractSet[str] = KNOWN_FEDERATIONS, folders: Mapping[tuple[str, str], str] | None = None,
    again: Mapping[str, str] | None = None,
) -> Ingested:
    """Read every unit of ``inbox`` whose checksum is not in ``seen``; group them by federation.

    A file the officer asked to process again (``again``: its checksum -> the version
    checksum of the request, ``warehouse.reprocess``) is read although it is in ``seen``,
    as that version: a new version of its competitions.

    A file belongs to the federation its rows (or its format) declare; when it
    declares none, to the ``inbox/<federation>/`` subfolder it was dropped in (one
    of ``known``); only then to ``unknown``, whose reports go to the rating officer.
    A file in ``inbox/<federation>/<folder>/`` whose competitions give no
    ``organiser_email`` takes the registry's address of that folder (``folders``:
    (federation, folder) -> address).
    """
    batches: dict[str, FederationBatch] = {}
    skipped: list[str] = []
    ignored: list[str] = []
    units, outcomes = inbox_entries(inbox)
    left_out = len(outcomes)
    reads: dict[str, list[formats.ReadResult]] = {}
    sent: dict[str, float] = {}   # file name -> when it reached the inbox (mtime)
    digests = {unit: file_sha256(unit) for unit in units
               if isinstance(unit, Path) and not unit.name.endswith(SEED_SUFFIX)}
    # Two copies of one file (a browser's ``name (1).csv``) are one file, read once: the
    # original is the one not named as a copy, then the older, then the first by name.
    originals: dict[str, Path] = {}
    for path, digest in sorted(digests.items(), key=lambda item: _original_first(item[0])):
        if digest is not None:
            originals.setdefault(digest, path)
    tonight: dict[str, str] = {}   # checksum -> the file of the night read for it
    again = again or {}
    for unit in units:
        first = unit[0] if isinstance(unit, list) else unit
        if Path(first).name.endswith(SEED_SUFFIX):
            ignored.append(Path(first).name)
            continue
        digest = digests.get(unit) if isinstance(unit, Path) else None
        if digest is not None and digest in seen and digest not in again:
            skipped.append(first.name)   # an identical re-send: not even parsed again
            continue
        if digest is not None and originals[digest] != unit:
            outcomes[first.name] = f"identical copy of {originals[digest].name}"
            continue
        result = formats.read(unit, federation=federation)
        if result.source_sha256 in again:
            result = _as_version(result, again[result.source_sha256])
        if result.source_sha256 in seen:
            skipped.append(result.source)
            continue
        if result.source_sha256 in tonight:
            outcomes[result.source] = f"identical copy of {tonight[result.source_sha256]}"
            continue
        tonight[result.source_sha256] = result.source
        if result.ratings.height and not result.competitions.height and not result.findings.height:
            ignored.append(result.source)   # a published rating list: `ratings seed` imports it
            continue
        result = _file_findings_on_competitions(result)
        fed = (
            _federation_of(result, None)
            or (_federation_in_rows(unit) if isinstance(unit, Path) and unit.is_file() else None)
            or _subfolder_federation(unit, inbox, known)
            or federation
            or "unknown"
        )
        if fed not in known and fed != federation and fed != "unknown":
            # A federation no table names (a typo: ``ajsuc``): the reader's findings say so,
            # and the file's report goes to the rating officer with the other unknown files.
            fed = "unknown"
        if federation is not None and fed != federation:
            ignored.append(result.source)
            continue
        address = (folders or {}).get((fed, _organiser_folder(unit, inbox, fed) or ""))
        if address is not None and result.competitions.height:
            result = replace(result, competitions=result.competitions.with_columns(
                pl.col("organiser_email").fill_null(address)))
        reads.setdefault(fed, []).append(result)
        sent[result.source] = max(p.stat().st_mtime for p in (unit if isinstance(unit, list) else [unit]))
    reads = {fed: keep_latest_versions(results, sent) for fed, results in reads.items()}
    # The same person under another id or spelling (``*.aliases.csv`` dropped by the
    # rating officer) becomes one player in every file of the night.
    aliases = concat([r.aliases for results in reads.values() for r in results], ALIASES_SCHEMA)
    if aliases.height:
        keys = _alias_keys(aliases)
        reads = {fed: [r.with_aliases(aliases) if _touched_by(r, keys) else r for r in results]
                 for fed, results in reads.items()}
    for fed, results in reads.items():
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
        batches[fed] = FederationBatch(
            federation=fed,
            files=files,
            # The readers' declarations (language, online, time control) travel to validation.
            competitions=concat([r.competitions for r in results], {**COMPETITIONS_SCHEMA, **DECLARATIONS_SCHEMA}),
            players=merge_players(concat([r.players for r in results], PLAYERS_SCHEMA)),
            games=concat([r.games for r in results], GAMES_SCHEMA),
            byes=concat([r.byes for r in results], BYES_SCHEMA),
            findings=findings,
        )
    return Ingested(batches=batches, files_seen=len(units) + left_out, files_skipped=skipped,
                    files_ignored=ignored, file_outcomes=outcomes)


@task(name="ingest_inbox", retries=2, retry_delay_seconds=[5, 30])
def ingest_inbox(inbox: str, warehouse_url: str | None, federation: str | None = None) -> Ingested:
    """Read tonight's new files; identical re-sends (checksum in the ledger) are skipped."""
    logger = get_run_logger()
    engine = warehouse.get_engine(warehouse_url)
    folder = Path(inbox)
    if not folder.is_dir():
        # A deployment's inbox that was never made: say so, not "0 file(s)" as on a quiet night.
        logger.warning("inbox folder %s does not exist: no file read tonight", folder.resolve())
        return Ingested(batches={}, files_seen=0, files_skipped=[], files_ignored=[])
    from warehouse.deliveries import organisers
    from warehouse.reprocess import open_reprocessing

    registry = organisers(engine).filter(pl.col("folder").is_not_null())
    folders = {(fed, sub): email for fed, sub, email in registry.select("federation", "folder", "email").rows()}
    again = open_reprocessing(engine)
    ingested = read_inbox(folder, warehouse.seen_checksums(engine), federation, folders=folders, again=again)
    logger.info(
        "inbox folder %s: %d file(s), %d already loaded, %d new batch(es): %s",
        inbox, ingested.files_seen, len(ingested.files_skipped), len(ingested.batches),
        ", ".join(f"{f} ({b.files.height} file(s), {b.games.height} games)" for f, b in ingested.batches.items()) or "none",
    )
    for name in ingested.files_ignored:
        logger.info("ignored %s (starting lists are imported with `ratings seed`)", name)
    return ingested

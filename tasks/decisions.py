"""The rating officer's approvals reach the ratings: what the nightly run does with them.

An approved held competition is ``accepted`` in the warehouse, so the history the
rating step reads (``warehouse.history``) holds it. A run re-rates a federation
only when its inbox holds something new; :func:`with_pending_approvals` adds an
empty batch for every federation with approvals not rated yet, so the next run
rates them even with an empty inbox, and :func:`record_approvals_rated` marks
them rated once the federation's load committed. :func:`record_decision` records the
officer's own decision (the ``decide`` flow, ``ratings approve`` / ``decline``), and
:func:`request_reprocess` the officer's request to read a kept file again (the
``reprocess`` flow, ``ratings reprocess FILE``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import warehouse
from tasks.ingest import FederationBatch, Ingested
from tasks.runtime import get_run_logger, task


@task(name="pending_approvals")
def with_pending_approvals(
    ingested: Ingested, warehouse_url: str | None, federation: str | None = None,
) -> dict[str, list[str]]:
    """Give every federation with pending approvals a batch (empty when nothing new arrived);
    return the pending competition ids by federation."""
    pending = warehouse.decisions.pending_approvals(warehouse.get_engine(warehouse_url), federation)
    for fed, ids in pending.items():
        ingested.batches.setdefault(fed, FederationBatch(federation=fed)).rerate.extend(ids)
        get_run_logger().info("%s: re-rating for %d approved competition(s): %s", fed, len(ids), ", ".join(ids))
    return pending


@task(name="record_approvals_rated")
def record_approvals_rated(federation: str, warehouse_url: str | None) -> int:
    """After the federation's load: its approved competitions are rated."""
    return warehouse.decisions.mark_applied(warehouse.get_engine(warehouse_url), federation)


@dataclass(frozen=True)
class Decision:
    """One decision recorded (returned by the ``decide`` flow, printed by the CLI)."""

    federation: str
    competition_id: str
    decision: str      #: approve | decline
    officer: str       #: who decided: ``$RATINGS_OFFICER``, else the login name
    status: str        #: the competition's status now: ``accepted`` (rated by the next run) or ``rejected``


@task(name="record_decision")
def record_decision(
    federation: str, competition_id: str, decision: str, note: str | None, warehouse_url: str | None,
) -> Decision:
    """Record the rating officer's ``approve`` or ``decline`` of a held competition.

    Raises
    ------
    warehouse.UnknownCompetitionError
        No current competition ``competition_id`` in ``federation``.
    warehouse.decisions.DecisionError
        The competition is not held, or a decline without a reason.
    """
    who = warehouse.decisions.officer()
    status = warehouse.decisions.decide(
        warehouse.get_engine(warehouse_url), federation, competition_id, decision, note=note, who=who,
    )
    get_run_logger().info("%s: %s %s by %s; now %s", federation, competition_id, decision, who, status)
    return Decision(federation=federation, competition_id=competition_id, decision=decision, officer=who,
                    status=status)


@dataclass(frozen=True)
class ReprocessRequest:
    """The officer's request to process a kept file again (returned by the ``reprocess`` flow)."""

    source: str        #: the file's name
    federation: str    #: the federation it was loaded under; ``''``: not loaded, the next run reads it anyway
    request: int       #: the request's number (0: nothing recorded)
    new: bool          #: False: an open request already existed, or nothing was recorded
    officer: str       #: who asked: ``$RATINGS_OFFICER``, else the login name


class NotInInboxError(ValueError):
    """The file to process again is not in the inbox (it must be kept there to be read)."""


def _inbox_unit(path: Path, inbox: Path) -> Path | list[Path]:
    """The inbox's unit (a file, or a Swiss Perfect file set) that ``path`` names: a path, or a
    file name anywhere under ``inbox``."""
    from tasks.ingest import inbox_units

    units = inbox_units(inbox) if inbox.is_dir() else []
    wanted = path.resolve() if path.exists() else None
    for unit in units:
        members = unit if isinstance(unit, list) else [unit]
        if any((wanted is not None and member.resolve() == wanted) or
               (wanted is None and member.name == path.name) for member in members):
            return unit
    raise NotInInboxError(f"{path}: no such file in the inbox {inbox}: a file is processed again from the inbox, "
                          "where it is kept")


@task(name="request_reprocess")
def request_reprocess(file: str, inbox: str, note: str | None, warehouse_url: str | None) -> ReprocessRequest:
    """Record that the next run reads the kept file ``file`` of ``inbox`` again.

    Raises
    ------
    NotInInboxError
        ``file`` is not in ``inbox``.
    """
    import formats
    from tasks.ingest import file_sha256
    from warehouse.reprocess import request_reprocessing

    unit = _inbox_unit(Path(file), Path(inbox))
    first = unit[0] if isinstance(unit, list) else unit
    # The ledger's checksum of a single file is its bytes' (read in chunks, not parsed); a Swiss
    # Perfect set's, or a file too large to hash, is the one its reader records.
    sha = (file_sha256(unit) if isinstance(unit, Path) else None) or formats.read(unit).source_sha256
    who = warehouse.decisions.officer()
    federation, number, new = request_reprocessing(
        warehouse.get_engine(warehouse_url), first.name, sha, note=note, who=who)
    if new:
        get_run_logger().info("%s: %s will be read again by the next run (request %d, by %s)",
                              federation, first.name, number, who)
    return ReprocessRequest(source=first.name, federation=federation, request=number, new=new, officer=who)

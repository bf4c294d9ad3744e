"""Decide: the rating officer approves or declines a held competition.

A held competition waits for the officer (``validations/README.md``);
``ratings approve`` and ``ratings decline`` run this flow, whose one task records the
decision (:func:`tasks.decisions.record_decision`). The next ``nightly`` rates an
approved competition.
"""

from __future__ import annotations

from flows.config import federation_config
from tasks.decisions import Decision, record_decision
from tasks.runtime import flow

__all__ = ["Decision", "decide"]


@flow(name="decide", description="Record the rating officer's approval or refusal of a held competition.")
def decide(
    federation: str, competition_id: str, decision: str, note: str | None = None, warehouse_url: str | None = None,
) -> Decision:
    """Record ``decision`` (``approve`` or ``decline``) on the held competition ``competition_id``.

    Parameters
    ----------
    federation
        The competition's federation.
    competition_id
        The held competition.
    decision
        ``approve`` (the next run rates it) or ``decline`` (it is not rated).
    note
        Why: the approval's note, the refusal's reason (required); shown in the report.
    warehouse_url
        ``None`` (always, from the CLI): ``$RATINGS_WAREHOUSE_URL`` or the default warehouse.

    Raises
    ------
    flows.config.ConfigError
        An unknown federation.
    warehouse.UnknownCompetitionError, warehouse.decisions.DecisionError
        No such competition, one that is not held, or a decline without a reason.
    """
    federation_config(federation)
    return record_decision(federation, competition_id, decision, note, warehouse_url)

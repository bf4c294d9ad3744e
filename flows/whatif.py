"""What-if: re-rate a federation's history in memory with one change, and show the ripple.

The question the EGF source article ends on: how much does one player's entry rating
move everyone else? The flow reads the federation's history from the warehouse,
changes it as asked (a player's entry rating or declared rank, a competition left
out, a file added or replacing its competition), re-rates it with the same code as
the nightly run (:func:`rating.rate`) and lists every player whose current
rating would change. It writes nothing to the warehouse. Its stages and helpers are
in :mod:`tasks.whatif`.

Run by ``ratings whatif`` or by the ``whatif`` deployment of ``prefect.yaml``.
"""

from __future__ import annotations

from datetime import date

from flows.config import federation_config
from tasks.gx import end_great_expectations
from tasks.ingest import BLOCK_GAMES
from tasks.runtime import flow
from tasks.validate import validate_batch
from tasks.whatif import (
    RIPPLE_SCHEMA,
    TOLERANCE,
    State,
    WhatIf,
    WhatIfError,
    added_outcome,
    apply_changes,
    as_published,
    check_request,
    check_whatif,
    parse_assignment,
    rate_whatif,
    read_added,
    read_added_files,
    read_state,
    report_whatif,
    ripple,
)

__all__ = [
    "RIPPLE_SCHEMA", "TOLERANCE", "State", "WhatIf", "WhatIfError", "apply_changes", "check_request",
    "check_whatif", "parse_assignment", "read_added", "ripple", "whatif",
]


@flow(name="whatif", description="Re-rate a federation in memory with one change and list the ripple; writes nothing.")
def whatif(
    federation: str,
    set_rating: dict[str, float] | None = None,
    set_rank: dict[str, str] | None = None,
    exclude: list[str] | None = None,
    add: list[str] | None = None,
    warehouse_url: str | None = None,
    as_of: date | None = None,
    block_games: int = BLOCK_GAMES,
) -> WhatIf:
    """What would every player's current rating be with the change?

    Parameters
    ----------
    federation
        The federation (``ajusc``, ``fide``, ``egf``).
    set_rating
        Player id -> entry rating (the seeded list's figure).
    set_rank
        Player id -> declared grade an EGF newcomer starts from (``"3k"``, ``"1d"``).
    exclude
        Competition ids left out of the history.
    add
        Result files (paths readable by the worker) added to the history; a file whose
        competition is already rated replaces it, as a corrected file would.
    warehouse_url
        The warehouse to read (``None``: ``$RATINGS_WAREHOUSE_URL`` or ``sqlite:///ratings.db``).
    as_of
        The day the question is asked (FIDE progress; default today).
    block_games
        The history is re-rated in blocks of months of about as many games, each block's games
        read when it is rated (``rating.blocks``), with the outcome of one run; ``0``: one block.

    Raises
    ------
    WhatIfError
        An unknown player or competition, or an unreadable added file.
    """
    config = federation_config(federation)
    state = read_state(warehouse_url, federation)
    batch = read_added_files(list(add or []), federation)
    check_request(state.history, batch, set_rating=set_rating or {}, set_rank=set_rank or {}, exclude=exclude or [],
                  in_games=state.in_games)
    if batch.competitions.height:
        try:
            batch = validate_batch(batch, config, None, warehouse_url)
        finally:
            end_great_expectations()   # its memory goes before the rating's
    changed = apply_changes(state.history, set_rating=set_rating, set_rank=set_rank, exclude=exclude or [])
    ratings, rated = rate_whatif(changed, batch, config, as_of, warehouse_url, state.sizes, block_games)
    answer = ripple(state.ratings, ratings)
    result = WhatIf(
        federation=federation,
        ripple=answer,
        competitions_rated=rated,
        added=added_outcome(batch) if batch.competitions.height else {},
        shown=as_published(answer, federation, config),
    )
    report_whatif(result)
    return result

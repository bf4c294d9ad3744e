"""Reprocess: the rating officer has a kept file read again by the next run.

A file is read once; its identical copies are skipped. When the file is right and
what read it has changed (a federation's table, a corrected reader), ``ratings
reprocess FILE`` runs this flow, whose one task records the request, like a decision
(:func:`tasks.decisions.request_reprocess`, ``warehouse/reprocess.py``). The next
``nightly`` reads the file again as a new version of its competitions.
"""

from __future__ import annotations

from tasks.decisions import ReprocessRequest, request_reprocess
from tasks.runtime import flow

__all__ = ["ReprocessRequest", "reprocess"]


@flow(name="reprocess", description="Have the next run read a kept file of the inbox again.")
def reprocess(file: str, inbox: str = "inbox", note: str | None = None,
              warehouse_url: str | None = None) -> ReprocessRequest:
    """Record that the next run reads ``file`` of ``inbox`` again.

    Parameters
    ----------
    file
        The kept file: its path, or its name anywhere under ``inbox``.
    inbox
        The inbox folder the nightly run reads.
    note
        Why, in the officer's words (kept with the request).
    warehouse_url
        ``None`` (always, from the CLI): ``$RATINGS_WAREHOUSE_URL`` or the default warehouse.

    Raises
    ------
    tasks.decisions.NotInInboxError
        ``file`` is not in ``inbox``.
    """
    return request_reprocess(file, inbox, note, warehouse_url)

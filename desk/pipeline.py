"""What the desk needs of the pipeline, passed in by whoever serves it.

The desk imports no flow and no task: the ``desk`` flow (``flows/desk.py``, run by ``ratings
serve``) builds a :class:`Pipeline` of the pipeline's own code and hands it to
:func:`desk.app.create_app`, so the pre-check is the same code as ``ratings check``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Pipeline"]


@dataclass(frozen=True)
class Pipeline:
    """The pipeline's callables the desk's pages run."""

    #: ``precheck(paths, federation, warehouse_url)``: the report the next night would give for
    #: each competition of the files, as records (``tasks.check.report_record``) with the
    #: report's ``name`` and its full HTML page (``html``).
    precheck: Callable[[list[str], str, str | None], list[dict[str, Any]]]
    #: ``report_page(warehouse_url, competition_id, federation)``: the HTML of a competition's
    #: report from the warehouse, ``None`` when there is none.
    report_page: Callable[[str | None, str, str], str | None]
    #: ``federation_config(federation)``: raises (a ``ValueError``) for an unknown federation.
    federation_config: Callable[[str], object]

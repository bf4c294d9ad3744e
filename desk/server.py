"""Run the desk under uvicorn (``ratings serve``, the ``desk`` deployment)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desk.pipeline import Pipeline

__all__ = ["serve"]


def serve(host: str, port: int, inbox: str, warehouse_url: str | None, *, pipeline: Pipeline) -> None:
    """Serve :func:`desk.app.create_app` on ``host:port`` until SIGINT or SIGTERM; its pages
    run ``pipeline``, the pipeline's code handed in by the flow that serves it.

    One process, so the pre-checks run one at a time (they share the Great Expectations
    process); no access log of addresses with query strings beyond uvicorn's own.
    """
    import uvicorn

    from desk.app import create_app

    app = create_app(inbox, warehouse_url, pipeline=pipeline)
    uvicorn.run(app, host=host, port=port, log_level="info", proxy_headers=False, server_header=False,
                date_header=True)

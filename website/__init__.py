"""The publication site: every list, edition, player and competition as static pages.

``build_site(engine, out)`` reads the warehouse (through :mod:`warehouse.site`)
and writes a folder of plain HTML that works from ``file://`` and from any
static host: no server, nothing loaded from the network. Lists are server-rendered
tables (they read without JavaScript); the plots are drawn in the browser by
Chart.js, shipped in ``static/`` (see the README for why, with the figures).
"""

from website.build import STATUS_ORDER, SiteResult, build_site
from website.errors import SiteError
from website.safe import page_name, visible

__all__ = ["STATUS_ORDER", "SiteError", "SiteResult", "build_site", "page_name", "visible"]

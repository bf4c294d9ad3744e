"""The Prefect flows the deployments of ``prefect.yaml`` run (their entrypoints).

The flow modules declare their flows with ``tasks.runtime.flow``, which imports Prefect
only when a flow is run by it (``ratings run`` in-process needs none of it).
A deployment needs Prefect's own ``Flow`` object at its entrypoint, so this module
builds them: ``flows.deployments.nightly`` is the ``nightly`` flow, and so on.
"""

from __future__ import annotations

from flows.backfill import backfill as _backfill
from flows.desk import desk as _desk
from flows.nightly import nightly as _nightly
from flows.whatif import whatif as _whatif

__all__ = ["backfill", "desk", "nightly", "whatif"]

nightly = _nightly.prefect
backfill = _backfill.prefect
whatif = _whatif.prefect
desk = _desk.prefect

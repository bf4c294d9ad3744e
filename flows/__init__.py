"""Prefect flows (nightly, backfill) and the ``ratings`` command line that runs them."""

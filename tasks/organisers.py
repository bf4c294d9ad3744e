"""The organiser registry and the delivery record, as the ``organiser`` and ``deliveries``
flows use them (``ratings organiser add|list|remove``, ``ratings deliveries``)."""

from __future__ import annotations

import polars as pl

import warehouse
from formats.address import email_address
from tasks.runtime import task
from warehouse.deliveries import add_organiser, deliveries, organisers, remove_organiser

__all__ = ["delivery_record", "list_organisers", "register_organiser", "unregister_organiser"]


@task(name="register_organiser")
def register_organiser(
    warehouse_url: str | None, federation: str, email: str, name: str | None, competitions: str | None,
    folder: str | None,
) -> int:
    """Add an organiser's address (validated and normalised here, where it enters); its entry id.

    Raises
    ------
    formats.address.AddressError
        ``email`` is not an e-mail address.
    warehouse.deliveries.DeliveryError
        The same entry exists, or both a pattern and a folder were given.
    """
    folder = folder.strip().strip("/") if folder else None
    if folder and ("/" in folder or folder in (".", "..")):
        raise ValueError(f"--folder is one subfolder of inbox/{federation}/, not a path: {folder!r}")
    return add_organiser(warehouse.get_engine(warehouse_url), federation, email_address(email), name=name,
                         competitions=competitions or None, folder=folder or None)


@task(name="unregister_organiser")
def unregister_organiser(warehouse_url: str | None, entry: int) -> dict[str, object]:
    """Remove registry entry ``entry``; what it held."""
    return remove_organiser(warehouse.get_engine(warehouse_url), entry)


@task(name="list_organisers")
def list_organisers(warehouse_url: str | None, federation: str | None) -> pl.DataFrame:
    """The registry (``warehouse.deliveries.ORGANISERS_SCHEMA``)."""
    return organisers(warehouse.get_engine(warehouse_url), federation)


@task(name="delivery_record")
def delivery_record(warehouse_url: str | None, failed: bool, federation: str | None) -> pl.DataFrame:
    """The delivery record (``warehouse.deliveries.DELIVERIES_SCHEMA``), newest first."""
    return deliveries(warehouse.get_engine(warehouse_url), failed=failed, federation=federation)

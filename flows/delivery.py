"""The organiser registry and the delivery record: ``ratings organiser add|list|remove`` and
``ratings deliveries`` run these flows. The night's delivery itself is a step of
``nightly`` (:func:`tasks.deliver.deliver_night`)."""

from __future__ import annotations

from typing import Any, Literal

from flows.config import federation_config
from tasks.organisers import (
    delivery_record,
    list_organisers,
    register_organiser,
    unregister_organiser,
)
from tasks.runtime import flow

__all__ = ["deliveries", "organiser"]


@flow(name="organiser", description="Add, list or remove organisers' addresses in the registry.")
def organiser(
    action: Literal["add", "list", "remove"],
    federation: str | None = None,
    email: str | None = None,
    name: str | None = None,
    competitions: str | None = None,
    folder: str | None = None,
    entry: int | None = None,
    warehouse_url: str | None = None,
) -> Any:
    """Keep the organiser registry.

    ``add``: the entry id of a new address for ``federation``, matched by the inbox
    subfolder ``folder``, by the pattern ``competitions`` over competition ids, or
    neither (the federation's default organiser). ``list``: the registry (a frame).
    ``remove``: what entry ``entry`` held.

    Raises
    ------
    formats.address.AddressError
        ``email`` is not an e-mail address.
    warehouse.deliveries.DeliveryError
        A duplicate entry, or an unknown one to remove.
    """
    if federation is not None:
        federation_config(federation)   # a typo fails here, with the known ids
    if action == "add":
        if federation is None or email is None:
            raise ValueError("ratings organiser add needs --federation and --email")
        return register_organiser(warehouse_url, federation, email, name, competitions, folder)
    if action == "remove":
        if entry is None:
            raise ValueError("ratings organiser remove needs the entry's number (ratings organiser list)")
        return unregister_organiser(warehouse_url, entry)
    return list_organisers(warehouse_url, federation)


@flow(name="deliveries", description="The record of the reports e-mailed to organisers and of the digests.")
def deliveries(failed: bool = False, federation: str | None = None, warehouse_url: str | None = None) -> Any:
    """The delivery record, newest first (``failed``: only what is not delivered yet)."""
    if federation is not None:
        federation_config(federation)
    return delivery_record(warehouse_url, failed, federation)

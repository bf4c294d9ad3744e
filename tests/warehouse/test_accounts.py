"""The desk's tables on both real databases: accounts, sessions, the sign-in rate limit,
uploads and the audit record (``warehouse/accounts.py``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import warehouse
from tests.conftest import postgres_database
from warehouse import accounts


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'w.db'}"
        return
    with postgres_database() as found:
        yield found


def test_accounts_sessions_and_the_rate_limit(url: str) -> None:
    db = warehouse.get_engine(url)
    hashed = accounts.hash_password("a password of some length")
    accounts.add_account(db, "anna", hashed, "organiser", "ajusc")
    with pytest.raises(accounts.AccountError, match="exists already"):
        accounts.add_account(db, "anna", hashed, "organiser", "ajusc")
    with pytest.raises(accounts.AccountError, match="a role is organiser or officer"):
        accounts.add_account(db, "x", hashed, "admin")
    with pytest.raises(accounts.AccountError, match="user name"):
        accounts.add_account(db, "../x", hashed, "officer")
    with pytest.raises(accounts.AccountError, match="hashed"):
        accounts.add_account(db, "plain", "a password of some length", "officer")
    assert accounts.record_login(db, "anna", "wrong", "10.0.0.1") is None
    assert accounts.record_login(db, "nobody", "wrong", "10.0.0.1") is None
    signed = accounts.record_login(db, "anna", "a password of some length", "10.0.0.1")
    assert signed is not None and signed.federation == "ajusc"
    token, csrf = accounts.new_session(db, "anna")
    found = accounts.session_account(db, token)
    assert found is not None and found[0].username == "anna" and found[1] == csrf
    again, _ = accounts.new_session(db, "anna", replaces=token)
    assert accounts.session_account(db, token) is None and accounts.session_account(db, again) is not None
    accounts.set_disabled(db, "anna")
    assert accounts.session_account(db, again) is None
    assert accounts.record_login(db, "anna", "a password of some length", "10.0.0.1") is None
    # Failures count per user name and per address, within the window only.
    for _ in range(accounts.MAX_FAILURES_PER_USER - 2):   # two failures above, and the disabled sign-in
        accounts.record_login(db, "anna", "wrong", "10.0.0.2")
    assert accounts.login_refused(db, "anna", "10.0.0.9")
    assert not accounts.login_refused(db, "bernat", "10.0.0.9")
    later = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=accounts.THROTTLE_MINUTES + 1)
    assert not accounts.login_refused(db, "anna", "10.0.0.9", now=later)


def test_uploads_and_concurrent_audit_writes(url: str) -> None:
    db = warehouse.get_engine(url)
    first = accounts.record_upload(db, "anna", "ajusc", "accepted", [("a.results.csv", "s1", 10), ("b.t", "s2", 5)])
    accounts.record_upload(db, "bernat", "ajusc", "rejected", [("c.results.csv", "s3", 7)])
    assert accounts.upload(db, first, "bernat") is None
    mine = accounts.upload(db, first, "anna")
    assert mine is not None and [f.name for f in mine.files] == ["a.results.csv", "b.t"] and mine.confirmed_at is None
    assert accounts.own_checksums(db, "anna") == set()
    accounts.confirm_file(db, first, "a.results.csv", "ajusc/anna/x/a.results.csv")
    accounts.confirm_file(db, first, "b.t", "ajusc/anna/x/b.t")
    assert accounts.own_checksums(db, "anna") == {"s1", "s2"} and accounts.own_checksums(db, "bernat") == set()
    assert [u.username for u in accounts.uploads(db)] == ["bernat", "anna"]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda n: accounts.audit(db, f"user{n % 4}", "upload", str(n)), range(40)))
    log = accounts.audit_log(db)
    assert log.height == 40 and sorted(int(t) for t in log.get_column("target")) == list(range(40))

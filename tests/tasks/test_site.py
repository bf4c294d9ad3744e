"""The publish_site task: the whole site, one federation's part, or nothing yet to publish."""

from __future__ import annotations

from pathlib import Path

from markupsafe import escape
from prefect.logging import disable_run_logger

from flows.config import federations
from tasks.site import publish_site, site_names
from tests.website.conftest import SmallSeason


def test_publish_site_generates_and_names_the_federation(small_season: SmallSeason, tmp_path: Path) -> None:
    with disable_run_logger():
        result = publish_site.fn(small_season.url, str(tmp_path / "site"), "ajusc", configs=federations())
    assert result is not None and result.players == {"ajusc": 8} and result.written == result.pages
    assert str(escape(site_names(federations())["ajusc"]["name"])) in (tmp_path / "site" / "ajusc" / "index.html").read_text(encoding="utf-8")


def test_a_federation_without_a_list_publishes_nothing(small_season: SmallSeason, tmp_path: Path) -> None:
    with disable_run_logger():
        assert publish_site.fn(small_season.url, str(tmp_path / "site"), "fide") is None
    assert not (tmp_path / "site").exists()

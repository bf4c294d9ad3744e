"""Fixtures shared with the site's tests."""

from tests.website.conftest import small_season  # noqa: F401 - a fixture

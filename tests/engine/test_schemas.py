"""The engine's copies of the canonical schemas must equal ``formats.schema``."""

from __future__ import annotations

import pytest

from engine import _frames
from formats import schema


@pytest.mark.parametrize(
    "name", ["RATINGS_SCHEMA", "RATING_CHANGES_SCHEMA", "EXPLANATIONS_SCHEMA", "RATING_LIST_SCHEMA"]
)
def test_engine_schemas_match_formats(name: str) -> None:
    ours = getattr(_frames, name)
    theirs = getattr(schema, name)
    assert list(ours) == list(theirs)
    assert [str(t) for t in ours.values()] == [str(t) for t in theirs.values()]

"""The engine's schemas are the canonical ones: ``formats.schema`` holds the very same objects."""

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
    assert ours is theirs

"""The mixed night (AJUSC's sample, real FIDE TRF reports, real EGF OpenGotha saves) leaves the
canonical dump of ``tests/golden``: warehouse, reports and site, entry for entry. The season's
dump is checked in ``test_official_season.py``, on the run its other tests read.

Source: ``../shared/data/chess/`` and ``../shared/data/go/`` (SOURCES.tsv), ``examples/inbox``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import canonical


@pytest.mark.slow
def test_a_mixed_night_leaves_the_canonical_dump(shared_data: Path, tmp_path: Path) -> None:
    ours = canonical.take("mixed", shared_data, tmp_path)
    golden = json.loads((canonical.GOLDEN / "canonical_mixed.json").read_text(encoding="utf-8"))
    assert canonical.differences(ours, golden) == []


def test_the_dump_names_what_changed() -> None:
    """The comparison is not vacuous: a changed, a missing and a new entry are each named."""
    golden = {"warehouse/ratings": "a", "reports/x.md": "b", "site/index.html": "c"}
    ours = {"warehouse/ratings": "a", "reports/x.md": "B", "site/new.html": "d"}
    assert canonical.differences(ours, golden) == ["missing: site/index.html", "new: site/new.html",
                                                   "changed: reports/x.md"]

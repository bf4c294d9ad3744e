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


#: The mixed night taken in blocks (``--block-games 1``: FIDE 2005, then EGF 2018 and FIDE 2018,
#: then AJUSC's months, then EGF 2024) against the one batch's golden. Besides what any run in
#: blocks leaves otherwise (``test_official_season.BLOCKS_DIFFER``; here the surrogate keys of the
#: competitions also order the games, byes and findings otherwise), the EGF players named in both
#: OpenGotha files keep the later file's name, club and rank, by date (as when the files arrive on
#: two nights), where the one batch keeps the later file by name: their cards, the lists and pages
#: that name them, and the search shards. Every rating, explanation, checkpoint and report is the
#: same, and every FIDE and AJUSC page.
MIXED_BLOCKS_DIFFER = [
    "changed: site/.pages.json", "changed: site/egf/competitions/frioul-2018-2018-09-07.html",
    "changed: site/egf/editions/1.html", "changed: site/egf/index.html",
    "changed: site/egf/players/~1e405179db9f2e0da5af2cf9cb8f86b3.html",
    "changed: site/egf/players/~3a2ac7b6ead5dbacdfcf1d5427db3395.html",
    "changed: site/egf/players/~921b6e4b87fc59bcf850c8b6d48efa17.html",
    "changed: site/egf/players/~bf74b94de9701ccbe58a479cd8ec4f0d.html",
    "changed: site/egf/players/~f404b323397c5bf89a0b01170c2523ee.html",
    "changed: site/egf/search/i-na.js", "changed: site/egf/search/n-cr.js", "changed: site/index.html",
    "changed: warehouse/byes", "changed: warehouse/competitions", "changed: warehouse/derived_state",
    "changed: warehouse/findings", "changed: warehouse/games", "changed: warehouse/load_ledger",
    "changed: warehouse/loads", "changed: warehouse/player_aliases", "changed: warehouse/players",
    "changed: warehouse/rating_list_lines", "changed: warehouse/rating_lists", "changed: warehouse/ratings",
]


@pytest.mark.slow
def test_a_mixed_night_in_blocks_differs_only_where_blocks_must(shared_data: Path, tmp_path: Path) -> None:
    ours = canonical.take("mixed", shared_data, tmp_path, "--block-games", "1")
    golden = json.loads((canonical.GOLDEN / "canonical_mixed.json").read_text(encoding="utf-8"))
    assert canonical.differences(ours, golden) == MIXED_BLOCKS_DIFFER
    assert {"warehouse/rating_changes", "warehouse/explanations", "warehouse/derived_checkpoints"} <= set(golden)

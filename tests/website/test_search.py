"""The player search's prebuilt index (``<fed>/search/``): every player of the current list once, found
by a name with or without its accents, rewritten only where its players changed."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import sqlalchemy as sa

import warehouse
import website
from tests.website.conftest import FED, PATH_ID, SCRIPT_NAME, SmallSeason
from website._search import search_form, shard_key

ACCENTED = "Àngela Müller-Ñúñez"


def _shards(site: Path) -> dict[str, list[list[Any]]]:
    """Each shard's entries, read back from its script (``window.ratingsSearch["key"] = [...];``)."""
    out = {}
    for path in sorted((site / FED / "search").glob("[ni]-*.js")):
        found = re.fullmatch(r'window\.ratingsSearch = window\.ratingsSearch \|\| \{\};\n'
                             r'window\.ratingsSearch\["([a-z0-9_-]+)"\] = (.*);\n', path.read_text(encoding="utf-8"),
                             re.DOTALL)
        assert found, path
        assert found.group(1) == path.stem
        out[path.stem] = json.loads(found.group(2))
    return out


def _find(site: Path, query: str) -> list[str]:
    """The ids site.js shows for ``query``: the entries of its two shards whose name (or id) starts with it."""
    needle = search_form(query)
    shards = _shards(site)
    key = shard_key(needle)
    found = [e[1] for e in shards.get(f"n-{key}", []) if search_form(e[0]).startswith(needle)]
    return found + [e[1] for e in shards.get(f"i-{key}", []) if search_form(e[1]).startswith(needle)
                    and e[1] not in found]


def test_the_index_holds_every_listed_player_exactly_once(small_site: Path, small_season: SmallSeason) -> None:
    listed = warehouse.rating_list(warehouse.get_engine(small_season.url), FED)
    shards = _shards(small_site)
    for kind, field in (("n", 0), ("i", 1)):
        mine = {k: v for k, v in shards.items() if k.startswith(f"{kind}-")}
        ids = Counter(entry[1] for entries in mine.values() for entry in entries)
        assert ids == Counter(listed.get_column("player_id").to_list()), kind
        for shard, entries in mine.items():
            assert all(f"{kind}-{shard_key(entry[field])}" == shard for entry in entries)
    for entries in shards.values():
        for name, pid, href, rating in entries:
            assert (small_site / FED / href).is_file()
            row = listed.row(listed.get_column("player_id").to_list().index(pid), named=True)
            assert rating == f"{row['rating']:.0f}"
    index = (small_site / FED / "search" / "index.js").read_text(encoding="utf-8")
    assert index == f"window.ratingsSearchShards = {json.dumps(sorted(shards), separators=(',', ':'))};\n"
    # A hostile name is data: escaped so that no text of it can end a script, and never markup.
    for path in (small_site / FED / "search").glob("*.js"):
        assert "<" not in path.read_text(encoding="utf-8") and ">" not in path.read_text(encoding="utf-8")
    assert _find(small_site, "<script>al") == ["3"] and _find(small_site, SCRIPT_NAME) == ["3"]


def test_a_player_is_found_by_a_name_with_accents_or_without(small_season: SmallSeason, tmp_path: Path) -> None:
    shutil.copy(small_season.url.removeprefix("sqlite:///"), tmp_path / "accents.db")
    db = warehouse.get_engine(f"sqlite:///{tmp_path / 'accents.db'}")
    with db.begin() as conn:
        conn.execute(sa.text("UPDATE players SET name = :n WHERE federation = :f AND player_id = '2'"),
                     {"n": ACCENTED, "f": FED})
    site = tmp_path / "site"
    website.build_site(db, site, generated=date(2026, 1, 1))
    for query in ("angela", "Àngela Mü", "ANGELA MULLER-NUNEZ", "àngelamüllerñ", ACCENTED):
        assert _find(site, query) == ["2"], query
    assert _find(site, "ángel") == ["2"]
    assert _find(site, "müller") == []              # a name is found from its start
    assert _find(site, "../../../esc") == [PATH_ID] and _find(site, "path t") == [PATH_ID]
    assert _find(site, "an") == ["2", "1"]           # Àngela Müller-Ñúñez, Anna Serra: by search form


def test_a_shard_is_rewritten_only_when_its_players_change(small_site: Path, small_season: SmallSeason,
                                                           tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(small_site, site)
    shutil.copy(small_season.url.removeprefix("sqlite:///"), tmp_path / "renamed.db")
    db = warehouse.get_engine(f"sqlite:///{tmp_path / 'renamed.db'}")
    with db.begin() as conn:
        conn.execute(sa.text("UPDATE players SET name = :n WHERE federation = :f AND player_id = '2'"),
                     {"n": ACCENTED, "f": FED})
    search = site / FED / "search"
    before = {p.name: p.read_bytes() for p in search.glob("*.js")}
    website.build_site(db, site, generated=date(2026, 1, 1))
    after = {p.name: p.read_bytes() for p in search.glob("*.js")}
    assert after.keys() == before.keys()
    # Berta Puig leaves n-be (Bell… stays there), Àngela joins n-an; her id's shard shows the new name.
    assert {name for name in after if after[name] != before[name]} == {"n-be.js", "n-an.js", "i-2_.js"}
    # The list shrinks to no one whose name starts with "be" but Bell: then to none, and the shard goes.
    with db.begin() as conn:
        conn.execute(sa.text("UPDATE players SET name = 'Zed' WHERE federation = :f AND player_id = '5'"), {"f": FED})
    result = website.build_site(db, site, generated=date(2026, 1, 1))
    assert not (search / "n-be.js").exists() and (search / "n-ze.js").is_file() and result.removed == 1
    assert "n-be" not in (search / "index.js").read_text(encoding="utf-8")

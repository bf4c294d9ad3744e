"""The player search of a federation's list: a prebuilt index in ``<fed>/search/``, read by site.js.

A list of 400,000 players is split into pages (:mod:`website._paging`), so the filter of a page
finds only the players on it; the search finds anyone on the current edition. It works from
``file://``, where a browser refuses to ``fetch()`` a file: every file of the index is a script that
assigns its part (``window.ratingsSearch[shard] = [...]``), which site.js loads by inserting a
``<script>`` element, only the part a query needs.

A name is searched by its *search form* (:func:`search_form`): accents folded (NFKD, marks
dropped), lower case, letters and digits only, so ``Àngela Müller`` is found by ``angela mu``
and ``O'Brien`` by ``obrien``. A shard holds the players whose name (``n-<key>.js``), or id
(``i-<key>.js``), starts with the same :data:`SHARD_CHARS` characters of its search form
(:func:`shard_key`). ``index.js`` lists the shards, so that no query asks for a file that is not
there. site.js computes both the same way, by the same Unicode categories.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from website._manifest import _digest
from website._templates import _json_block
from website._writer import _Writer
from website.safe import page_name, visible

#: The characters of a search form that choose its shard: two, so that a shard of a list of
#: 400,000 names holds hundreds of them, not tens of thousands.
SHARD_CHARS = 2

#: A shard key's characters as they are; any other becomes ``_`` (a file name of its own, and
#: one shard for every name of another script).
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")

_NOT_ASCII_ALNUM = re.compile("[^A-Za-z0-9]")


def search_form(text: str) -> str:
    """What a name or an id is searched by: accents folded, lower case, letters and digits only
    (Unicode categories L and N, as ``\\p{L}\\p{N}`` in site.js).

    Examples
    --------
    >>> search_form("Àngela Müller-Ñúñez"), search_form("O'Brien"), search_form("../x 7")
    ('angelamullernunez', 'obrien', 'x7')
    """
    if text.isascii():
        # Most names and ids: the ASCII letters and digits are exactly its categories L and N.
        return _NOT_ASCII_ALNUM.sub("", text).lower()
    folded = unicodedata.normalize("NFKD", text)
    return "".join(c for c in folded if unicodedata.category(c)[0] in "LN").lower()


def shard_key(text: str) -> str:
    """The shard of a name or an id: the first :data:`SHARD_CHARS` characters of its search form,
    ``_`` for one outside ``a-z0-9`` or missing.

    Examples
    --------
    >>> shard_key("Àngela"), shard_key("Ж"), shard_key("?")
    ('an', '__', '__')
    """
    return _key(search_form(text))


def _key(form: str) -> str:
    return _head_key(form[:SHARD_CHARS])


@functools.lru_cache(maxsize=1 << 14)
def _head_key(head: str) -> str:
    # Cached: 400,000 names share a few hundred heads.
    return "".join(c if c in _KEY_CHARS else "_" for c in head.ljust(SHARD_CHARS, "_"))


def search_entries(rows: Iterable[Mapping[str, Any]], names: Mapping[str, str | None]) -> dict[str, list[list[Any]]]:
    """The shards of the players of ``rows`` (an edition's lines): shard -> entries, each
    ``[name, id, card page relative to the federation's folder, rating]``, ordered by search form.

    Examples
    --------
    >>> shards = search_entries([{"player_id": "7", "rating": 1523.6}], {"7": "Àlex"})
    >>> shards
    {'n-al': [['Àlex', '7', 'players/7.html', '1524']], 'i-7_': [['Àlex', '7', 'players/7.html', '1524']]}
    """
    shards: dict[str, list[tuple[str, str, list[Any]]]] = defaultdict(list)
    for row in rows:
        pid = row["player_id"]
        if pid is None:
            continue
        name = visible(names.get(pid) or pid)
        rating = row["rating"]
        entry = [name, visible(pid), f"players/{page_name(pid)}", None if rating is None else f"{rating:.0f}"]
        by_name, by_id = search_form(name), search_form(pid)
        shards[f"n-{_key(by_name)}"].append((by_name, pid, entry))
        shards[f"i-{_key(by_id)}"].append((by_id, pid, entry))
    return {shard: [entry for _, _, entry in sorted(found, key=lambda f: (f[0], f[1]))]
            for shard, found in shards.items()}


def _shard_script(shard: str, entries: list[list[Any]]) -> str:
    # The shard's name is made of a-z, 0-9, _ and -; json.dumps quotes it all the same.
    return ("window.ratingsSearch = window.ratingsSearch || {};\n"
            f"window.ratingsSearch[{json.dumps(shard)}] = {_json_block(entries)};\n")


def write_search(writer: _Writer, base: str, rows: Iterable[Mapping[str, Any]],
                 names: Mapping[str, str | None], stable: str) -> None:
    """Write the search index of a federation's current edition into ``<base>/search/``: each
    shard and ``index.js`` (the shards there are), each rewritten only when its entries change
    (``stable``: the key of the code and of what every page of the federation shows)."""
    shards = search_entries(rows, names)
    for shard, entries in sorted(shards.items()):
        writer.write_keyed(f"{base}/search/{shard}.js", _digest(stable, "search", shard, entries),
                           functools.partial(_shard_script, shard, entries))
    listed = sorted(shards)
    writer.write_keyed(f"{base}/search/index.js", _digest(stable, "search", listed),
                       lambda: f"window.ratingsSearchShards = {_json_block(listed)};\n")

"""Player identity: name keys, federation ids and aliases."""

from __future__ import annotations

import random

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from formats.identity import (
    NAME_PREFIX,
    aliases_from_names,
    apply_aliases,
    competition_key,
    name_key,
    player_id,
)

WORDS = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzàéíòúçñü", min_size=1, max_size=8),
    min_size=1,
    max_size=4,
)


@pytest.mark.hypothesis
@given(WORDS, st.randoms())
def test_name_key_ignores_order_case_and_punctuation(words: list[str], rnd: random.Random) -> None:
    shuffled = list(words)
    rnd.shuffle(shuffled)
    a = " ".join(words)
    b = ", ".join(w.upper() for w in shuffled)
    assert name_key(a) == name_key(b)
    assert name_key(name_key(a).replace("-", " ")) == name_key(a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Sarabia Utrilla, Joaquin", "Joaquín SARABIA-UTRILLA"),
        ("Xurí, Mateu", "Mateu Xuri"),
        ("Müller Jörg", "MULLER, Jorg"),
        ("Taşkın Gözde", "Gozde Taskın"),
    ],
)
def test_same_person_same_key(a: str, b: str) -> None:
    assert name_key(a) == name_key(b)


def test_federation_ids_win_over_names() -> None:
    assert player_id("13400304", "Mirzoev Azer") == "13400304"
    assert player_id("0", "Mirzoev Azer") == NAME_PREFIX + "azer-mirzoev"
    assert player_id("", "") is None


def test_aliases_rewrite_ids_of_their_federation_only() -> None:
    games = pl.DataFrame(
        {
            "federation": ["egf", "fide"],
            "player_a": ["name:ann-lee", "name:ann-lee"],
            "player_b": ["1", "2"],
        }
    )
    aliases = pl.DataFrame({"federation": ["egf"], "alias": ["LEE Ann"], "player_id": ["777"]})
    out = apply_aliases(games, aliases, "egf")
    assert out["player_a"].to_list() == ["777", "name:ann-lee"]


def test_ambiguous_names_are_not_linked() -> None:
    players = pl.DataFrame({"federation": ["ajusc"], "player_id": ["name:joan-puig"]})
    registry = pl.DataFrame(
        {
            "federation": ["ajusc", "ajusc"],
            "player_id": ["10", "11"],
            "name": ["Joan Puig", "Puig, Joan"],
        }
    )
    assert aliases_from_names(players, registry).height == 0


def test_competition_key_is_stable_across_file_names() -> None:
    from datetime import date

    a = competition_key("XX Open Internacional de Gros", date(2010, 9, 24), "gros.trf")
    b = competition_key("XX Open Internacional de Gros", date(2010, 9, 24), "gros-corrected.trf")
    assert a == b == "xx-open-internacional-de-gros-2010-09-24"

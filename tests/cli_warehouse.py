"""A small AJUSC warehouse for the tests of the command line's flows and their tasks
(``tests/flows/test_cli_flows.py``, ``tests/tasks/test_cli_tasks.py``)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl

import warehouse

#: A starting list of edition 190: the next editions are 191, 192, ...
SEED = "federation,player_id,name,rating,games,as_of,edition\najusc,6,Bo,1200.5,10,2025-09-01,190\najusc,7,Ann,1100,40,2025-09-02,190\n"

#: 4 players, 3 rounds, a round robin in a TSH ``.t`` file without ``#lexicon``: loaded
#: ``held`` (as in tests/flows/test_officer.py).
HELD_T = """#date 2025-10-04
Puig, Anna 1200 2 3 4; 400 400 400
Vila, Pere 1100 1 4 3; 300 400 400
Roca, Marta 1000 4 1 2; 400 300 300
Soler, Jan 1000 3 2 1; 300 300 300
"""


def write_seed(folder: Path) -> Path:
    """:data:`SEED` as ``start.ratings.csv`` in ``folder``."""
    path = folder / "start.ratings.csv"
    path.write_text(SEED, encoding="utf-8")
    return path


def held_competition(tmp_path: Path, url: str) -> str:
    """One held AJUSC competition in the warehouse (a nightly run in-process); its id."""
    from flows.nightly import nightly

    inbox = tmp_path / "inbox"
    (inbox / "ajusc").mkdir(parents=True)
    (inbox / "ajusc" / "lliga-manresa.t").write_text(HELD_T, encoding="utf-8")
    night = nightly.fn(inbox=str(inbox), warehouse_url=url, as_of=date(2025, 10, 31),
                       reports_dir=str(tmp_path / "reports"), site_dir=None)
    ((cid, status),) = night.competitions["ajusc"].items()
    assert status == "held"
    return str(cid)


def publish_two_editions(url: str, *, seeded: bool = False) -> None:
    """Two editions of the AJUSC list, on 2025-10-04 and 2025-11-08 (191 and 192 after a
    seeded list of edition 190, which ``seeded`` loads first)."""
    db = warehouse.get_engine(url)
    if seeded:
        seed = pl.DataFrame({"player_id": ["7"], "name": ["Ann"], "rating": [1100.0]})
        warehouse.load_seed(db, "ajusc", seed, source="s.ratings.csv", source_sha256="s", edition=190)
    for day, rating in ((date(2025, 10, 4), 1110.5), (date(2025, 11, 8), 1120.0)):
        frame = pl.DataFrame({"federation": ["ajusc"], "player_id": ["7"], "name": ["Ann"], "rating": [rating]})
        warehouse.publish_edition(db, "ajusc", frame, as_of=day, covers=f"{day}|{day}|C")

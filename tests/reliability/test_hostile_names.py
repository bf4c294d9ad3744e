"""Names with SQL, HTML, control characters or right-to-left marks: stored verbatim, shown escaped."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import cast

import pytest
import sqlalchemy as sa

import warehouse
from flows.nightly import NightlyRun, nightly

pytestmark = pytest.mark.usefixtures("prefect_harness")

HOSTILE = [
    "Robert'); DROP TABLE players;--",
    "<script>alert('x')</script> Anna",
    "Zoë \u202eevil\u202c Ortega",
    "Tab\tand\u0007bell",
    "Pipe | Star * Under_score [link](http://x)",
]


def test_hostile_names_are_stored_verbatim_and_rendered_escaped(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    lines = ["federation,player_id,name"] + [
        f'ajusc,{900 + i},"{n}"' for i, n in enumerate(HOSTILE)
    ]
    (inbox / "club.players.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    pairs = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    rows = ["federation,competition_id,competition_name,start_date,round,player_a,player_b,score_a"] + [
        f"ajusc,EVIL-1,\"<b>Open</b> '; --\",2025-10-04,{r + 1},{900 + a},{900 + b},1"
        for r, (a, b) in enumerate(pairs)
    ]
    (inbox / "evil.results.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'w.db'}"
    run = cast(NightlyRun, nightly(inbox=str(inbox), warehouse_url=url, as_of=date(2026, 2, 1),
                                   reports_dir=str(tmp_path / "r")))
    assert "EVIL-1" in run.competitions["ajusc"]
    db = warehouse.get_engine(url)
    with db.connect() as conn:
        stored = set(conn.execute(sa.text("SELECT name FROM players WHERE federation = 'ajusc'")).scalars())
        assert (conn.execute(sa.text("SELECT count(*) FROM players")).scalar() or 0) >= 5   # the table is still there
    assert set(HOSTILE) <= stored
    html = (tmp_path / "r" / "ajusc" / "EVIL-1.html").read_text(encoding="utf-8")
    assert "<script>" not in html and "<b>Open</b>" not in html
    assert "&lt;script&gt;" in html or "&lt;b&gt;" in html

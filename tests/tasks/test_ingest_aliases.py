"""With an alias table in the inbox, only the files it concerns are rewritten;
the night's frames are those of rewriting every file (``tasks.ingest.read_inbox``)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import formats
from tasks import ingest

HEADER = "federation,competition_id,competition_name,start_date,round,player_a,player_b,score_a\n"


def _results(cid: str, players: tuple[str, str, str, str]) -> str:
    a, b, c, d = players
    rows = [f"ajusc,{cid},Open,2025-10-04,{r},{x},{y},1" for r, (x, y) in enumerate(
        [(a, b), (c, d), (a, c), (b, d)], start=1)]
    return HEADER + "\n".join(rows) + "\n"


def _inbox(folder: Path) -> Path:
    (folder / "A.results.csv").write_text(_results("A", ("1", "2", "3", "4")))
    (folder / "B.results.csv").write_text(_results("B", ("5", "6", "Kowalski Jan", "8")))
    (folder / "C.results.csv").write_text(_results("C", ("9", "10", "11", "12")))
    (folder / "ajusc.players.csv").write_text("federation,player_id,name\najusc,9,Ann\najusc,9001,Ann B\n")
    (folder / "ajusc.aliases.csv").write_text("federation,alias,player_id\n"
                                              "ajusc,Kowalski Jan,9001\najusc,5,9001\n")
    return folder


def test_only_the_files_an_alias_concerns_are_rewritten(tmp_path: Path) -> None:
    inbox = _inbox(tmp_path)
    rewritten: list[str] = []
    original = formats.ReadResult.with_aliases

    def noting(self: formats.ReadResult, aliases: pl.DataFrame) -> formats.ReadResult:
        rewritten.append(self.source)
        return original(self, aliases)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(formats.ReadResult, "with_aliases", noting)
        batch = ingest.read_inbox(inbox, set()).batches["ajusc"]
        assert sorted(rewritten) == ["B.results.csv"]
        rewritten.clear()
        patch.setattr(ingest, "_touched_by", lambda result, keys: True)
        reference = ingest.read_inbox(inbox, set()).batches["ajusc"]
        assert len(rewritten) == 5   # the old way: every file
    for name in ("competitions", "players", "games", "byes", "findings"):
        assert getattr(batch, name).equals(getattr(reference, name)), name
    games = batch.games.filter(pl.col("competition_id") == "B")
    assert "9001" in games.get_column("player_a").to_list() + games.get_column("player_b").to_list()
    assert "5" not in games.get_column("player_a").to_list()

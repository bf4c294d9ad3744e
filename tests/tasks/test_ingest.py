"""One outcome per file, encodings, and whose file it is (``tasks.ingest.read_inbox``)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from formats._common import decode
from tasks.ingest import read_inbox

HEADER = "federation,competition_id,competition_name,start_date,round,player_a,player_b,score_a\n"


def _results(cid: str, name: str = "Open Vilafranca") -> str:
    rows = [f"ajusc,{cid},{name},2025-10-04,{r},{a},{b},1" for r, (a, b) in enumerate(
        [("1", "2"), ("3", "4"), ("1", "3"), ("2", "4"), ("1", "4"), ("2", "3")], start=1)]
    return HEADER + "\n".join(rows) + "\n"


def test_a_latin1_file_has_one_outcome_and_a_warning_naming_the_bytes(tmp_path: Path) -> None:
    (tmp_path / "L1-1.results.csv").write_bytes(_results("L1-1", "Open Marçà").encode("latin-1"))
    batch = read_inbox(tmp_path, set()).batches["ajusc"]
    assert batch.competitions.get_column("competition_id").to_list() == ["L1-1"]
    (warning,) = batch.findings.filter(pl.col("rule") == "format.csv.encoding").to_dicts()
    # Tied to the competition: no second, file-level ("unreadable") report for the same file.
    assert warning["competition_id"] == "L1-1" and warning["severity"] == "warn"
    assert "bytes e7 e0 on line 2 were read as cp1252 ('çà')" in warning["message"]
    assert batch.findings.filter(pl.col("competition_id").is_null()).height == 0
    assert batch.competitions.get_column("name").to_list() == ["Open Marçà"]


def test_utf16_and_bom_files_are_read(tmp_path: Path) -> None:
    (tmp_path / "U16.results.csv").write_bytes(_results("U16", "Obert Xàtiva").encode("utf-16"))      # with BOM
    (tmp_path / "U16BE.results.csv").write_bytes(_results("U16BE").encode("utf-16-be"))            # without
    (tmp_path / "BOM.results.csv").write_bytes(b"\xef\xbb\xbf" + _results("BOM").encode("utf-8"))
    batch = read_inbox(tmp_path, set()).batches["ajusc"]
    assert sorted(batch.competitions.get_column("competition_id").to_list()) == ["BOM", "U16", "U16BE"]
    assert "Obert Xàtiva" in batch.competitions.get_column("name").to_list()
    assert batch.findings.filter(pl.col("severity") == "reject").height == 0
    assert decode("a,b\n".encode("utf-16")).encoding == "utf-16-le"


def test_a_file_belongs_to_its_rows_then_its_subfolder_then_unknown(tmp_path: Path) -> None:
    # Every row says ajusc, but a required column is missing: still AJUSC's file.
    broken = _results("NOROUND").replace(",round", ",rnd")
    (tmp_path / "noround.results.csv").write_text(broken, encoding="utf-8")
    (tmp_path / "egf").mkdir()
    (tmp_path / "egf" / "notes.txt").write_text("see you at the next tournament\n", encoding="utf-8")
    (tmp_path / "manacup_2025_26").mkdir()     # a tournament folder is not a federation
    (tmp_path / "manacup_2025_26" / "notes.txt").write_text("nothing\n", encoding="utf-8")
    batches = read_inbox(tmp_path, set()).batches
    assert set(batches) == {"ajusc", "egf", "unknown"}
    assert batches["ajusc"].findings.get_column("source").unique().to_list() == ["noround.results.csv"]
    assert batches["egf"].files.get_column("source").to_list() == ["notes.txt"]
    assert batches["unknown"].files.get_column("source").to_list() == ["notes.txt"]

"""``ratings list --format fide-txt|fide-xml|egd|xlsx``: the federations' own list files, written by
the real command after a real night and read back by our own readers."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from formats import ReadResult
from formats.fide_lists import from_fide_txt, from_fide_xml
from formats.list_exports import read_xlsx
from tasks.lookup import LIST_FILE_FORMATS
from tests.reliability.cli import ratings

INBOX = Path(__file__).resolve().parents[2] / "examples" / "inbox"


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample inbox's night on a fresh SQLite warehouse, and the list it published as CSV."""
    tmp = tmp_path_factory.mktemp("list-files")
    shutil.copytree(INBOX, tmp / "inbox")
    done = ratings(tmp, "run", "--inbox", "inbox")
    assert done.returncode == 0, done.stderr
    return tmp


def _csv(tmp: Path) -> pl.DataFrame:
    done = ratings(tmp, "list", "--federation", "ajusc", "--format", "csv")
    assert done.returncode == 0, done.stderr
    return pl.read_csv(io.StringIO(done.stdout), schema_overrides={"player_id": pl.Utf8})


def test_the_cli_offers_every_writer() -> None:
    import flows.cli

    assert set(flows.cli._LIST_FILE_FORMATS) == set(LIST_FILE_FORMATS)
    assert {f.value for f in flows.cli.ListFormat} >= set(LIST_FILE_FORMATS)


@pytest.mark.parametrize(("fmt", "reader"), [("fide-txt", from_fide_txt), ("fide-xml", from_fide_xml)])
def test_fide_files_read_back_as_the_published_list(night: Path, fmt: str, reader: Callable[..., ReadResult]) -> None:
    out = night / f"list.{fmt}"
    done = ratings(night, "list", "--federation", "ajusc", "--format", fmt, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert f"written to {out}" in done.stderr
    # The reader takes the list's date from the month label (TXT) or the file's name (XML).
    name = done.stderr.rsplit("download name: ", 1)[1].rstrip(")\n")
    back = reader(out.read_bytes(), name, federation="ajusc")
    assert back.findings.filter(pl.col("severity") == "reject").height == 0
    published = _csv(night).select("player_id", "name", pl.col("rating").cast(pl.Float64)).sort("player_id")
    read = back.ratings.select("player_id", "name", pl.col("rating").cast(pl.Float64)).sort("player_id")
    assert read.rows() == published.rows()


def test_xlsx_reads_back_and_is_the_same_file_each_time(night: Path) -> None:
    first, second = night / "a.xlsx", night / "b.xlsx"
    for path in (first, second):
        done = ratings(night, "list", "--federation", "ajusc", "--format", "xlsx", "--out", str(path))
        assert done.returncode == 0, done.stderr
    assert first.read_bytes() == second.read_bytes()
    sheet = read_xlsx(first.read_bytes())
    published = _csv(night)
    assert sheet.get_column("player_id").cast(pl.Utf8).to_list() == published.get_column("player_id").to_list()
    assert sheet.get_column("rating").cast(pl.Float64).to_list() == published.get_column("rating").cast(
        pl.Float64).to_list()


def test_a_missing_edition_is_one_line(night: Path) -> None:
    done = ratings(night, "list", "--federation", "ajusc", "--edition", "999", "--format", "egd")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == ["ratings: no list published for ajusc edition 999: run `ratings run` first"]


def test_the_site_offers_each_edition_in_the_federations_format(night: Path) -> None:
    """``ratings run`` wrote the site (``site/``): beside each AJUSC edition, its spreadsheet,
    byte for byte the file ``ratings list --edition N --format xlsx`` writes, linked from the
    edition's page."""
    folder = night / "site" / "ajusc" / "downloads"
    files = sorted(folder.glob("*.xlsx"))
    pages = sorted((night / "site" / "ajusc" / "editions").glob("[0-9]*.html"))
    assert len(files) == len(pages) > 0
    for page in pages[:2] + pages[-1:]:
        number = page.stem
        out = night / f"edition-{number}.xlsx"
        done = ratings(night, "list", "--federation", "ajusc", "--edition", number, "--format", "xlsx", "--out", str(out))
        assert done.returncode == 0, done.stderr
        (beside,) = [f for f in files if f"-edition-{number}-" in f.name]
        assert beside.read_bytes() == out.read_bytes()
        assert f'href="../../ajusc/downloads/{beside.name}" download>spreadsheet (xlsx)</a>' in page.read_text(
            encoding="utf-8")
    stamp = {f: f.stat().st_mtime_ns for f in files}
    again = ratings(night, "site", "--out", "site")
    assert again.returncode == 0, again.stderr
    assert {f: f.stat().st_mtime_ns for f in files} == stamp   # a published edition's file is written once


def test_the_downloads_of_many_editions_open_the_warehouse_once(night: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing every edition's file opens one engine, not one per edition: each engine keeps its
    pooled connection until it is collected, and a first run of FIDE's archive (hundreds of monthly
    editions) took more connections than a PostgreSQL server allows (100 by default)."""
    import warehouse
    from flows.config import federations
    from tasks.site import write_list_downloads

    opened: list[str | None] = []
    real = warehouse.get_engine

    def counted(url: str | None = None, **kw: object) -> object:
        opened.append(url)
        return real(url, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(warehouse, "get_engine", counted)
    url = f"sqlite:///{night / 'ratings.db'}"
    written = write_list_downloads(url, str(tmp_path / "site"), "ajusc", federations())
    assert written > 2 and written == len(list((tmp_path / "site" / "ajusc" / "downloads").iterdir()))
    assert len(opened) == 1


def test_every_download_is_its_edition_read_on_its_own(night: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The downloads replay the list's editions in order (``warehouse.edition_contents``, here one
    edition's lines a read); each file is the one the edition read on its own gives, byte for byte."""
    import warehouse
    import warehouse._editions_read as reader
    from flows.config import federations
    from tasks.lookup import Edition, edition_rows, export_entries, list_file
    from tasks.site import write_list_downloads

    monkeypatch.setattr(reader, "_EDITIONS_PER_READ", 1)
    url = f"sqlite:///{night / 'ratings.db'}"
    config = federations()["ajusc"]
    assert write_list_downloads(url, str(tmp_path / "site"), "ajusc", federations()) >= 3
    db = warehouse.get_engine(url)
    for row in warehouse.editions(db, "ajusc").iter_rows(named=True):
        edition = Edition("ajusc", int(row["list_id"]), int(row["edition"]), str(row["kind"]), row["as_of"],
                          row["list_name"])
        name, data = list_file.fn(export_entries.fn(edition_rows(db, edition.list_id), edition, config), edition,
                                  "xlsx")
        assert (tmp_path / "site" / "ajusc" / "downloads" / name).read_bytes() == data, name

"""The reports the night writes, ``ratings report`` reads back and ``ratings check`` prints all
count a file's byes beside its games: a TRF's result rows outnumber its games, and the
organiser reads why."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from flows.cli import app

runner = CliRunner()
#: Frankfurt 2005 (FIDE TRF): 980 games, 10 of them unplayed, and seven byes.
SAID = "- Games: 980 (10 not rated) (and 7 byes, not games)"


def test_the_published_checked_and_read_back_reports_count_the_byes(shared_data: Path, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    trf = shutil.copy(shared_data / "chess" / "karl_mala_frankfurt_2005.trf", inbox)
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    checked = runner.invoke(app, ["check", str(trf), "--warehouse", url])
    assert checked.exit_code == 0, checked.output
    assert SAID in checked.stdout.splitlines(), checked.stdout

    night = runner.invoke(app, ["run", "--inbox", str(inbox), "--warehouse", url, "--as-of", "2005-08-01",
                                "--reports", str(tmp_path / "reports"), "--no-site"])
    assert night.exit_code == 0, night.output
    written = sorted((tmp_path / "reports" / "fide").glob("*.md"))
    assert len(written) == 1
    assert SAID in written[0].read_text(encoding="utf-8").splitlines()
    html = written[0].with_suffix(".html").read_text(encoding="utf-8")
    assert "<dt>Games</dt><dd>980 (10 not rated) (and 7 byes, not games)</dd>" in html

    read_back = runner.invoke(app, ["report", "karl_mala_frankfurt_2005.trf", "--warehouse", url])
    assert read_back.exit_code == 0, read_back.output
    assert SAID in read_back.stdout.splitlines(), read_back.stdout

"""The installation's config (``--config FILE`` / ``$RATINGS_CONFIG``) and the
inactivity windows the packaged config no longer pins."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import engine
import formats
from flows import config
from flows.cli import app

DATA = Path(__file__).with_name("data") / "egf_article"
runner = CliRunner()


@pytest.fixture(autouse=True)
def packaged_config_afterwards() -> Iterator[None]:
    """``--config`` holds for the rest of the process: give the next test the packaged one."""
    yield
    config.use_config(None)


def write(tmp_path: Path, text: str, name: str = "federations.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_packaged_config_validates_against_the_declared_schema() -> None:
    config.use_config(None)
    tables = config.federations()
    assert sorted(tables) == ["ajusc", "egf", "fide"]
    for table in tables.values():
        config.FederationTable.model_validate(table)
    # Editions and elig add keys here: declared now, so the packaged file may use them.
    assert {"publication", "lists"} <= set(config.FederationTable.model_fields)


def test_installation_overrides_key_by_key_and_adds_a_federation(tmp_path: Path) -> None:
    path = write(tmp_path, '[egf]\nrule_set = "egf-gor-1998"\n\n'
                           '[nsw]\nname = "Scrabble NSW"\ngame = "Scrabble"\nsystem = "barruf"\nnewcomer_rating = 1000\n')
    config.use_config(path)
    egf = config.federation_config("egf")
    assert egf["rule_set"] == "egf-gor-1998"
    assert egf["system"] == "egf-gor" and egf["eligibility"] == "egf"   # the rest stays packaged
    assert config.federation_config("nsw")["newcomer_rating"] == 1000
    assert sorted(config.federations()) == ["ajusc", "egf", "fide", "nsw"]


def test_environment_variable_names_the_installation_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(config.CONFIG_ENV, str(write(tmp_path, '[ajusc]\nnewcomer_rating = 900\n')))
    config.use_config(None)
    assert config.federation_config("ajusc")["newcomer_rating"] == 900


def test_by_date_lets_the_engine_registry_choose(tmp_path: Path) -> None:
    config.use_config(write(tmp_path, '[egf]\nrule_set = "by-date"\n'))
    egf = config.federation_config("egf")
    assert "rule_set" not in egf
    assert engine.rule_set_for("egf-gor", date(2010, 5, 2), config=egf).name == "egf-gor-1998"
    assert engine.rule_set_for("egf-gor", date(2022, 5, 2), config=egf).name == "egf-gor-2021"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[egf]\nrule_sett = "egf-gor-1998"\n', "unknown key [egf].rule_sett"),
        ('[egf]\nnewcomer_rating = "many"\n', "[egf].newcomer_rating must be a number, not 'many' (str)"),
        ('[ajusc]\ninactive_after_seasons = true\n', "[ajusc].inactive_after_seasons must be an integer"),
        ('[fide]\nlists = ["standard", 3]\n', "[fide].lists must be a list of strings"),
        ('[fide]\npublication = "weekly"\n', "[fide].publication must be one of 'per-competition', 'monthly'"),
        ('[egf]\nrule_set = "fide-2014"\n', "[egf].rule_set must be 'by-date' or a egf-gor rule set"),
        ('[nsw]\nsystem = "barruf"\n', "[nsw] needs name, game"),
        ('rule_set = "egf-gor-1998"\n', "key 'rule_set' must be a [federation] table"),
        ('[egf\n', "not valid TOML"),
    ],
)
def test_a_bad_config_is_one_line_naming_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(config.ConfigError) as raised:
        config.use_config(path)
    assert str(path) in str(raised.value) and message in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("where", ["before", "after", "equals", "env"])
def test_cli_refuses_a_bad_config_at_start_with_one_line(tmp_path: Path, where: str, sqlite_url: str) -> None:
    path = write(tmp_path, '[egf]\nrule_sett = "egf-gor-1998"\n')
    command = ["list", "--federation", "egf", "--warehouse", sqlite_url]
    args, env = {
        "before": (["--config", str(path), *command], {}),
        "after": ([*command, "--config", str(path)], {}),
        "equals": ([*command, f"--config={path}"], {}),
        "env": (command, {"RATINGS_CONFIG": str(path)}),
    }[where]
    result = runner.invoke(app, args, env=env)
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"ratings: {path}: unknown key [egf].rule_sett (known keys: {', '.join(config.FederationTable.model_fields)})"
    )
    missing = runner.invoke(app, [*command, "--config", str(tmp_path / "absent.toml")])
    assert missing.exit_code == 1 and "absent.toml: cannot read the config file" in missing.output
    assert "Traceback" not in result.output + missing.output


def test_config_egf_gor_1998_rates_the_article_example_through_the_cli(tmp_path: Path) -> None:
    """The seed's EGF example (1721 loses to 2073, beats 1724 and 1617) rated with
    the classic GoR chosen by the installation's config gives 1750.57.

    Source: "Sistema EGF" (tests/engine/data/egf_article_example.csv); the figure is the
    three reproducible games of the article, whole tournament at the pre-tournament 1721.
    """
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    installation = write(tmp_path, '[egf]\nrule_set = "egf-gor-1998"\n')
    seeded = runner.invoke(app, ["seed", "--federation", "egf", str(DATA / "egf_article.ratings.csv"), "--warehouse", url])
    assert seeded.exit_code == 0, seeded.output
    ran = runner.invoke(app, ["run", "--config", str(installation), "--inbox", str(DATA / "inbox"), "--warehouse", url,
                              "--federation", "egf", "--as-of", "2010-06-01", "--reports", str(tmp_path / "reports")])
    assert ran.exit_code == 0, ran.output
    listed = runner.invoke(app, ["list", "--federation", "egf", "--format", "csv", "--warehouse", url])
    assert listed.exit_code == 0, listed.output
    rows = {r["player_id"]: r for r in csv.DictReader(io.StringIO(listed.stdout))}
    # The list prints GoR whole, as the EGD publishes it ...
    assert rows["me"]["rating"] == "1751"
    # ... and the organiser's report, through the CLI too, shows the exact figure.
    report = runner.invoke(app, ["report", "EGF-ARTICLE-2010", "--federation", "egf", "--warehouse", url])
    assert report.exit_code == 0, report.output
    line = next(ln for ln in report.stdout.splitlines() if ln.startswith("| me "))
    assert float(line.rstrip(" |").rsplit("|", 1)[1]) == pytest.approx(1750.57, abs=0.005)


def test_inactivity_follows_the_engine_dated_windows_from_2026_27() -> None:
    """The packaged config no longer pins ``inactive_after_seasons = 2``.

    From 2026-27 (gestioAjusc ``lib/barruf/constants.ts``: current + previous season) a
    player whose last season was 2024-25 is inactive; in 2025-26 (current + two previous)
    the same player is active.
    """
    config.use_config(None)
    ajusc = config.federation_config("ajusc")
    assert "inactive_after_seasons" not in ajusc
    ratings = pl.DataFrame({"player_id": ["1"], "rating": [1200.0], "games": [100], "last_played": ["2024-25"]})

    def status(day: date, cfg: dict[str, Any]) -> object:
        return engine.rating_list("ajusc", ratings, as_of=day, config=cfg)["status"][0]

    assert status(date(2026, 8, 31), ajusc) == "active"      # 2025-26
    assert status(date(2026, 9, 1), ajusc) == "inactive"     # 2026-27: the dated rule


def test_an_installation_may_still_pin_its_own_inactivity_window(tmp_path: Path) -> None:
    config.use_config(write(tmp_path, "[ajusc]\ninactive_after_seasons = 2\n"))
    pinned = config.federation_config("ajusc")
    ratings = pl.DataFrame({"player_id": ["1"], "rating": [1200.0], "games": [100], "last_played": ["2024-25"]})
    assert engine.rating_list("ajusc", ratings, as_of=date(2026, 9, 1), config=pinned)["status"][0] == "active"


SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inbox"


def _renamed_inbox(folder: Path, federation: str) -> Path:
    """The bundled sample inbox with every row's federation column set to ``federation``."""
    folder.mkdir()
    for path in SAMPLE.iterdir():
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        body = [f"{federation},{line.split(',', 1)[1]}" for line in lines[1:]]
        (folder / path.name.replace("ajusc", federation)).write_text("".join([lines[0], *body]), encoding="utf-8")
    return folder


def _listed(url: str, federation: str, installation: Path) -> list[tuple[str, str]]:
    listed = runner.invoke(app, ["list", "--config", str(installation), "--federation", federation,
                                 "--format", "csv", "--warehouse", url])
    assert listed.exit_code == 0, listed.output
    return [(r["player_id"], r["rating"]) for r in csv.DictReader(io.StringIO(listed.stdout))]


def test_a_new_federation_is_a_config_table_and_nothing_else(tmp_path: Path) -> None:
    """A federation the code never heard of ("nsw", a Scrabble club rated with BARRUF under
    AJUSC's eligibility) is one table of the installation's config: its files are read,
    checked, rated and listed exactly as the same files under AJUSC."""
    installation = write(tmp_path, '[nsw]\nname = "North Scrabble Wanderers"\ngame = "Scrabble"\n'
                                    'system = "barruf"\neligibility = "ajusc"\nnewcomer_rating = 950\n'
                                    'publication = "per-competition"\n')
    runs = {}
    for federation in ("nsw", "ajusc"):
        inbox = _renamed_inbox(tmp_path / f"inbox-{federation}", federation)
        url = f"sqlite:///{tmp_path / f'{federation}.db'}"
        ran = runner.invoke(app, ["run", "--config", str(installation), "--inbox", str(inbox), "--warehouse", url,
                                  "--as-of", "2026-02-01", "--reports", str(tmp_path / f"reports-{federation}")])
        assert ran.exit_code == 0, ran.output
        runs[federation] = _listed(url, federation, installation)
    assert len(runs["nsw"]) == 12
    assert runs["nsw"] == runs["ajusc"]
    # Without the table, the readers know the packaged federations only.
    config.use_config(None)
    assert sorted(formats.KNOWN_FEDERATIONS) == ["ajusc", "egf", "fide"]

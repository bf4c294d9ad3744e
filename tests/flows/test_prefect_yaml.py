"""Every deployment of prefect.yaml loads its entrypoint and validates its parameters."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no inline types; types-PyYAML is not a dependency

if TYPE_CHECKING:
    from prefect import Flow

REPO = Path(__file__).resolve().parents[2]

#: Parameters a person supplies when triggering an unscheduled deployment.
SUPPLIED = {"backfill": {"from_date": "2025-09-01"}}


def _deployments() -> list[dict[str, Any]]:
    spec = yaml.safe_load((REPO / "prefect.yaml").read_text(encoding="utf-8"))
    return list(spec["deployments"])


@pytest.mark.parametrize("deployment", _deployments(), ids=lambda d: d["name"])
def test_entrypoint_loads_and_parameters_validate(
    deployment: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Loaded from the data folder the pull step moves into, not from the clone: a file-path
    entrypoint would crash there with FileNotFoundError."""
    from prefect.flows import load_flow_from_entrypoint

    monkeypatch.chdir(tmp_path)
    flow: Flow[..., Any] = load_flow_from_entrypoint(deployment["entrypoint"])
    parameters = {**deployment.get("parameters", {}), **SUPPLIED.get(deployment["name"], {})}
    validated = flow.validate_parameters(parameters)
    assert set(parameters) <= set(validated)
    assert deployment["work_pool"]["name"] == "ratings-process"


def test_nightly_deployments_cover_every_federation_on_a_schedule() -> None:
    from flows.config import federations

    nightly = [d for d in _deployments() if d["entrypoint"] == "flows.deployments.nightly"]
    assert sorted(d["parameters"]["federation"] for d in nightly) == sorted(federations())
    for deployment in nightly:
        (schedule,) = deployment["schedules"]
        assert schedule["cron"].split()[1] in {"2", "3"} and schedule["timezone"].startswith("Europe/")


def test_invalid_parameters_are_refused() -> None:
    from prefect.exceptions import ParameterTypeError
    from prefect.flows import load_flow_from_entrypoint

    flow: Flow[..., Any] = load_flow_from_entrypoint("flows.deployments.backfill")
    with pytest.raises(ParameterTypeError):
        flow.validate_parameters({"federation": "ajusc", "from_date": "not a date"})


def test_pull_step_moves_into_the_data_folder_and_code_is_imported() -> None:
    spec = yaml.safe_load((REPO / "prefect.yaml").read_text(encoding="utf-8"))
    (step,) = spec["pull"]
    assert step["prefect.deployments.steps.set_working_directory"]["directory"] == "{{ $RATINGS_HOME }}"
    for deployment in _deployments():
        assert ":" not in deployment["entrypoint"] and not deployment["entrypoint"].endswith(".py")

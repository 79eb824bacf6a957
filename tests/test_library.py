"""Scenario library: SQLite store beside read-only presets."""

from __future__ import annotations

from pathlib import Path

import pytest

import neoplan
from neoplan.library import Library, default_path
from neoplan.scenario import ScenarioError


@pytest.fixture
def lib(tmp_path: Path) -> Library:
    return Library(tmp_path / "lib.sqlite")


def test_presets_are_listed_read_only(lib: Library) -> None:
    entries = {e.name: e for e in lib.entries()}
    for name in ("reference", "optimized", "h100_256", "h100_2048", "h200_1024"):
        assert entries[name].read_only
    with pytest.raises(ScenarioError, match="read-only"):
        lib.save("optimized", neoplan.load_scenario("reference"))
    with pytest.raises(ScenarioError, match="read-only"):
        lib.delete("reference")


def test_save_survives_a_restart_and_reloads_exactly(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    scenario = neoplan.load_scenario({"base": "optimized", "cluster": {"gpus": 2048}, "pricing": {"utilization": 0.7}})
    Library(path).save("My plan", scenario)
    again = Library(path).load("My plan")  # a new instance: as after an app restart
    assert again.name == "My plan"
    assert again.model_dump(exclude={"name"}) == scenario.model_dump(exclude={"name"})
    assert neoplan.evaluate(again).capex_total_usd == neoplan.evaluate(scenario).capex_total_usd


def test_duplicate_and_delete(lib: Library) -> None:
    lib.duplicate("reference", "Ref copy")
    assert lib.load("Ref copy").node.preset == "oem_default"
    with pytest.raises(ScenarioError, match="already exists"):
        lib.duplicate("reference", "Ref copy")
    lib.delete("Ref copy")
    assert "Ref copy" not in lib.names()
    with pytest.raises(ScenarioError, match="no scenario named"):
        lib.load("Ref copy")


def test_save_replaces_and_rejects_bad_names(lib: Library) -> None:
    lib.save("A", neoplan.load_scenario("optimized"))
    lib.save("A", neoplan.load_scenario("reference"))
    assert lib.load("A").fabric.topology == "reference"
    assert lib.names().count("A") == 1
    for bad in ("", "   ", "x" * 121):
        with pytest.raises(ScenarioError):
            lib.save(bad, neoplan.load_scenario("optimized"))


def test_location_is_configurable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NEOPLAN_LIBRARY", str(tmp_path / "x" / "s.sqlite"))
    assert default_path() == tmp_path / "x" / "s.sqlite"
    monkeypatch.delenv("NEOPLAN_LIBRARY")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_path() == tmp_path / "data" / "neoplan" / "scenarios.sqlite"

"""Scenario library: SQLite store beside read-only presets."""

from __future__ import annotations

import os
import re
import sqlite3
import stat
import time
from pathlib import Path

import pytest

import neoplan
from neoplan import library
from neoplan.library import Draft, Library, LibraryError, check_name, default_path
from neoplan.scenario import ScenarioError, preset_names


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


def test_new_library_is_private_to_the_user(tmp_path: Path) -> None:
    lib = Library(tmp_path / "private" / "lib.sqlite")
    lib.save("Mine", neoplan.load_scenario("optimized"))
    assert stat.S_IMODE((tmp_path / "private").stat().st_mode) == 0o700
    assert stat.S_IMODE(lib.path.stat().st_mode) == 0o600


def test_corrupt_file_keeps_presets_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    path.write_bytes(b"this is not an SQLite file, just some text " * 100)
    lib = Library(path)
    assert lib.names()[: len(preset_names())] == preset_names()
    assert [e.name for e in lib.entries()] == preset_names()  # the presets, nothing else, no exception
    assert lib.error is not None and str(path) in lib.error and "not a readable SQLite database" in lib.error
    assert lib.load("reference").fabric.topology == "reference"  # presets never touch the file
    with pytest.raises(LibraryError, match="corrupt"):
        lib.save("Mine", neoplan.load_scenario("optimized"))
    with pytest.raises(ScenarioError, match=re.escape(str(path))):  # a ScenarioError: pages' handlers catch it
        lib.load("Mine")
    assert path.read_bytes().startswith(b"this is not")  # never overwritten


def test_locked_file_fails_fast_with_a_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "lib.sqlite"
    lib = Library(path)
    lib.save("Mine", neoplan.load_scenario("optimized"))
    monkeypatch.setattr(library, "TIMEOUT_S", 0.2)
    other = sqlite3.connect(path)
    other.execute("BEGIN EXCLUSIVE")  # another program holds the file
    try:
        fresh = Library(path)
        assert [e.name for e in fresh.entries()] == preset_names()
        assert fresh.error is not None and "locked" in fresh.error and str(path) in fresh.error
        started = time.monotonic()
        with pytest.raises(LibraryError, match="locked"):
            fresh.save("Other", neoplan.load_scenario("reference"))
        assert time.monotonic() - started < 0.1  # fails fast after the first failure, no second wait
    finally:
        other.rollback()
        other.close()
    monkeypatch.setattr(library, "RETRY_AFTER_S", 0.0)
    assert "Mine" in fresh.names() and fresh.error is None  # recovers once the lock is gone


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any folder")
def test_unreadable_folder(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir(mode=0o000)
    try:
        lib = Library(folder / "lib.sqlite")
        assert [e.name for e in lib.entries()] == preset_names()
        assert lib.error is not None and str(folder) in lib.error
    finally:
        folder.chmod(0o700)


def test_folder_that_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    lib = Library(blocker / "sub" / "lib.sqlite")
    assert [e.name for e in lib.entries()] == preset_names()
    assert lib.error is not None and str(blocker) in lib.error
    with pytest.raises(LibraryError):
        lib.save("Mine", neoplan.load_scenario("optimized"))


def test_drafts_round_trip_and_reject_bad_ids(lib: Library) -> None:
    draft = Draft(body='{"a": 1}', baseline='{"a": 0}', origin=None, source="file plan.yaml")
    lib.save_draft("x" * 22, draft)
    assert lib.load_draft("x" * 22) == draft
    lib.save_draft("x" * 22, Draft(body="{}", baseline="{}", origin="optimized", source="preset optimized"))
    assert lib.load_draft("x" * 22) == Draft("{}", "{}", "optimized", "preset optimized")
    assert lib.load_draft("y" * 22) is None
    for bad in ("", "short", "../../etc/passwd-xxxxxxxxxx", "x" * 65, "a b" * 10):
        assert lib.load_draft(bad) is None
        with pytest.raises(ValueError):
            lib.save_draft(bad, draft)
    assert "x" * 22 not in lib.names()  # drafts are not saved scenarios


def test_old_drafts_are_pruned(lib: Library) -> None:
    lib.save_draft("o" * 20, Draft("{}", "{}", None, "old"))
    with sqlite3.connect(lib.path) as db:
        db.execute("UPDATE drafts SET updated_at = '2000-01-01T00:00:00+00:00'")
    lib.save_draft("n" * 20, Draft("{}", "{}", None, "new"))
    assert lib.load_draft("o" * 20) is None
    assert lib.load_draft("n" * 20) is not None


def test_names_with_control_characters_are_refused(lib: Library) -> None:
    for bad in ("two\nlines", "tab\there", "bell\x07"):
        with pytest.raises(ScenarioError, match="control characters"):
            lib.save(bad, neoplan.load_scenario("optimized"))
    shared = "![x](http://example.invalid/p.png) <b>hi</b>"
    assert check_name(f"  {shared}  ") == shared  # stored as typed; the app shows it as text
    assert lib.exists("optimized") and not lib.exists("nothing here")

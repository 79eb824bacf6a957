"""Scenario library, the embedded SQLite file: presets beside it, where it lives, a broken or busy file, migration.

The same behaviour on both backends is in ``test_store.py``; this file holds what only a file has.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import stat
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

import neoplan
from neoplan.errors import ScenarioError
from neoplan.inputs.presets import preset_names
from neoplan.library import Draft, Library, LibraryError, check_name, default_path
from neoplan.store import backend, default_url, migrate, redact
from neoplan.store.connection import close_store
from neoplan.store.migrate import head

LEGACY = Path(__file__).parent / "fixtures" / "library-0.1-3222bab.sqlite"
"""A library file written by neoplan 0.1 (commit 3222bab, before migrations): two scenarios and one draft."""


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
    with pytest.raises(ScenarioError, match="no versions"):
        lib.history("reference")


def test_save_survives_a_restart_and_reloads_exactly(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    scenario = neoplan.load_scenario({"base": "optimized", "cluster": {"gpus": 2048}, "pricing": {"utilization": 0.7}})
    Library(path).save("My plan", scenario)
    close_store(f"sqlite:///{path}")  # as after an app restart
    again = Library(path).load("My plan")
    assert again.name == "My plan"
    assert again.model_dump(exclude={"name"}) == scenario.model_dump(exclude={"name"})
    assert neoplan.evaluate(again).capex_total_usd == neoplan.evaluate(scenario).capex_total_usd


def test_duplicate_and_delete(lib: Library) -> None:
    lib.duplicate("reference", "Ref copy")
    assert lib.load("Ref copy").node.preset == "oem_default"
    assert [v.message for v in lib.history("Ref copy")] == ["copy of “reference”"]
    with pytest.raises(ScenarioError, match="already exists"):
        lib.duplicate("reference", "Ref copy")
    lib.delete("Ref copy")
    assert "Ref copy" not in lib.names()
    with pytest.raises(ScenarioError, match="no scenario named"):
        lib.load("Ref copy")


def test_location_is_configurable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NEOPLAN_LIBRARY", str(tmp_path / "x" / "s.sqlite"))
    assert default_path() == tmp_path / "x" / "s.sqlite"
    assert default_url() == f"sqlite:///{tmp_path / 'x' / 's.sqlite'}"
    monkeypatch.setenv("NEOPLAN_DATABASE_URL", "postgresql+psycopg://planner:hunter2@db.internal/neoplan")
    assert default_url() == "postgresql+psycopg://planner:hunter2@db.internal/neoplan"
    assert redact(default_url()) == "postgresql+psycopg://planner:***@db.internal/neoplan"
    monkeypatch.delenv("NEOPLAN_DATABASE_URL")
    monkeypatch.delenv("NEOPLAN_LIBRARY")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_path() == tmp_path / "data" / "neoplan" / "scenarios.sqlite"


def test_new_library_is_private_to_the_user_and_in_wal_mode(tmp_path: Path) -> None:
    lib = Library(tmp_path / "private" / "lib.sqlite")
    lib.save("Mine", neoplan.load_scenario("optimized"))
    assert lib.path is not None
    assert stat.S_IMODE((tmp_path / "private").stat().st_mode) == 0o700
    assert stat.S_IMODE(lib.path.stat().st_mode) == 0o600
    with sqlite3.connect(lib.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("SELECT version_num FROM alembic_version").fetchone() == (head(),)


def test_corrupt_file_keeps_presets_and_tells_the_log_where(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "lib.sqlite"
    path.write_bytes(b"this is not an SQLite file, just some text " * 100)
    lib = Library(path)
    with caplog.at_level(logging.ERROR, logger="neoplan.store"):
        assert [e.name for e in lib.entries()] == preset_names()  # the presets, nothing else, no exception
    assert lib.error is not None and "not a readable database" in lib.error
    assert str(tmp_path) not in lib.error  # visitors never see where the library is ...
    assert str(path) in caplog.text  # ... the server's log does
    assert lib.load("reference").fabric.topology == "reference"  # presets never touch the file
    with pytest.raises(LibraryError, match="corrupt"):
        lib.save("Mine", neoplan.load_scenario("optimized"))
    with pytest.raises(ScenarioError, match="corrupt"):  # a ScenarioError: pages' handlers catch it
        lib.load("Mine")
    assert path.read_bytes().startswith(b"this is not")  # never overwritten


def test_a_lock_held_for_a_while_is_waited_for_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite"
    lib = Library(path)
    lib.save("Mine", neoplan.load_scenario("optimized"))
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN EXCLUSIVE")  # another program holds the file for 1.5 s
    threading.Timer(1.5, lambda: other.execute("ROLLBACK")).start()
    started = time.monotonic()
    try:
        saved = lib.save("Mine", neoplan.load_scenario("reference"), message="while locked")
    finally:
        time.sleep(max(0.0, 1.6 - (time.monotonic() - started)))
        other.close()
    assert saved.version == 2 and lib.error is None
    assert 1.0 < time.monotonic() - started < 10


def test_a_busy_file_is_retried_with_back_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "lib.sqlite"
    Library(path).save("Mine", neoplan.load_scenario("optimized"))
    close_store(f"sqlite:///{path}")
    monkeypatch.setattr(backend, "BUSY_TIMEOUT_S", 0.02)  # SQLite gives up at once: the retries must carry it
    lib = Library(path)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN EXCLUSIVE")
    threading.Timer(0.6, lambda: other.execute("ROLLBACK")).start()
    try:
        saved = lib.save("Mine", neoplan.load_scenario("reference"))
    finally:
        time.sleep(0.7)
        other.close()
    stats = lib.store.backend.stats
    assert saved.version == 2 and stats.refused == 0
    assert 3 <= stats.retries <= 40 and stats.longest_wait_s >= 0.5  # exponential: a handful of tries in 0.6 s


def test_a_lock_never_released_is_refused_once_with_a_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "lib.sqlite"
    lib = Library(path)
    lib.save("Mine", neoplan.load_scenario("optimized"))
    monkeypatch.setattr(backend, "BUSY_TIMEOUT_S", 0.05)
    monkeypatch.setattr(backend, "RETRY_BUDGET_S", 0.5)
    close_store(f"sqlite:///{path}")  # a new engine with the short busy timeout
    fresh = Library(path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        with pytest.raises(LibraryError, match="busy"):
            fresh.save("Other", neoplan.load_scenario("reference"))
        assert time.monotonic() - started < 3
        assert fresh.error is not None and str(tmp_path) not in fresh.error
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert "Mine" in fresh.names() and fresh.error is None  # the next call works: no outage window


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any folder")
def test_unreadable_folder(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir(mode=0o000)
    try:
        lib = Library(folder / "lib.sqlite")
        assert [e.name for e in lib.entries()] == preset_names()
        assert lib.error is not None and "cannot be opened" in lib.error
    finally:
        folder.chmod(0o700)


def test_folder_that_cannot_be_created(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    lib = Library(blocker / "sub" / "lib.sqlite")
    with caplog.at_level(logging.ERROR, logger="neoplan.store"):
        assert [e.name for e in lib.entries()] == preset_names()
    assert lib.error is not None and str(blocker) not in lib.error and str(blocker) in caplog.text
    with pytest.raises(LibraryError):
        lib.save("Mine", neoplan.load_scenario("optimized"))


def test_old_drafts_are_pruned(lib: Library) -> None:
    lib.save_draft("o" * 20, Draft("{}", "{}", None, "old"))
    assert lib.path is not None
    with sqlite3.connect(lib.path) as db:
        db.execute("UPDATE drafts SET updated_at = '2000-01-01T00:00:00+00:00'")
    lib.save_draft("n" * 20, Draft("{}", "{}", None, "new"))
    assert lib.load_draft("o" * 20) is None
    assert lib.load_draft("n" * 20) is not None


def test_stored_as_typed_shown_as_text(lib: Library) -> None:
    shared = "![x](http://example.invalid/p.png) <b>hi</b>"
    assert check_name(f"  {shared}  ") == shared  # stored as typed; the app shows it as text
    assert lib.exists("optimized") and not lib.exists("nothing here")


def test_a_library_of_neoplan_0_1_migrates_in_place(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "scenarios.sqlite"
    shutil.copy(LEGACY, path)
    path.chmod(0o600)
    with sqlite3.connect(path) as db:  # the file as neoplan 0.1 left it: no schema version
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        before = dict(db.execute("SELECT name, body FROM scenarios").fetchall())
    assert tables == {"scenarios", "drafts"}
    lib = Library(path)
    with caplog.at_level(logging.INFO, logger="neoplan.store"):
        entries = {e.name: e for e in lib.entries() if not e.read_only}
    assert "migrated from no schema version (new, or from neoplan 0.1) to 0004" in caplog.text
    assert set(entries) == {"Team plan", "Référence ✓ 東京"} == set(before)
    for name, entry in entries.items():
        assert (entry.version, entry.owner, entry.shared) == (1, "", True)  # everyone saw them before: still shared
        assert lib.load(name).model_dump() == neoplan.parse_scenario(before[name], name).model_dump()
        assert [(v.version, v.message) for v in lib.history(name)] == [(1, "saved before versions")]
    assert lib.load("Team plan").cluster.gpus == 2048
    draft = lib.load_draft("legacy-draft-0123456789")
    assert draft is not None and draft.origin == "Team plan" and draft.origin_version is None
    lib.save("Team plan", neoplan.load_scenario("reference"), message="after the migration", expected_version=1)
    assert [v.version for v in lib.history("Team plan")] == [1, 2]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # in place: the same file, still private
    close_store(f"sqlite:///{path}")
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="neoplan.store"):
        assert "Team plan" in Library(path).names()  # opened again: nothing left to migrate
    assert "migrated" not in caplog.text


def test_the_page_state_revision_goes_down_and_up_again(tmp_path: Path) -> None:
    """Revision 0003 only adds drafts.page_state: down to 0002 drops the column, up again brings it back."""
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'lib.sqlite'}")

    def columns() -> set[str]:
        return {c["name"] for c in sa.inspect(engine).get_columns("drafts")}

    with engine.begin() as connection:
        command.upgrade(migrate._config(connection), "0003")
    assert "page_state" in columns()
    with engine.begin() as connection:
        command.downgrade(migrate._config(connection), "0002")
        assert migrate.current(connection) == "0002"
    assert "page_state" not in columns()
    with engine.begin() as connection:
        assert migrate.upgrade(connection) and migrate.current(connection) == migrate.head()
    assert "page_state" in columns()
    engine.dispose()


def test_revision_0004_keeps_every_row_and_never_gives_an_id_twice(tmp_path: Path) -> None:
    """A library at 0003 (ids as SQLite's rowid: the largest plus one) is rebuilt with AUTOINCREMENT: scenarios,
    versions and their cascade kept; an id deleted after the migration is never given again."""
    path = tmp_path / "lib.sqlite"
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        command.upgrade(migrate._config(connection), "0003")
    old = Library(path)  # the store migrates on first use: write the 0003 rows by hand instead
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO scenarios (id, owner, name, shared, version, created_at, updated_at) VALUES (?,?,?,?,?,?,?)",
            [(1, "", "One", 1, 2, "t", "t"), (7, "a@x", "Seven", 0, 1, "t", "t")],
        )
        body = neoplan.load_scenario("optimized").to_json()
        db.executemany(
            "INSERT INTO versions VALUES (?,?,?,?,?,?)",
            [(1, 1, body, "", "", "t1"), (1, 2, body, "", "", "t2"), (7, 1, body, "a@x", "", "t3")],
        )
    engine.dispose()
    assert {e.name for e in old.entries() if not e.read_only} == {"One", "Seven"}  # migrated to 0004 here
    with sqlite3.connect(path) as db:
        ddl = db.execute("SELECT sql FROM sqlite_master WHERE name = 'scenarios'").fetchone()[0]
        assert "AUTOINCREMENT" in ddl
        assert db.execute("SELECT scenario_id, version, saved_at FROM versions ORDER BY 1, 2").fetchall() == [
            (1, 1, "t1"),
            (1, 2, "t2"),
            (7, 1, "t3"),
        ]
        assert (
            'REFERENCES "scenarios"'
            in db.execute("SELECT sql FROM sqlite_master WHERE name = 'versions'").fetchone()[0]
        )
    assert [v.version for v in old.history("One")] == [1, 2]
    saved = old.save("Eight", neoplan.load_scenario("reference"))
    old.delete("Eight")
    old.delete("Seven")  # cascades to its versions, as before
    old.save("Nine", neoplan.load_scenario("reference"))
    with sqlite3.connect(path) as db:
        ids = dict(db.execute("SELECT name, id FROM scenarios").fetchall())
        assert db.execute("SELECT count(*) FROM versions WHERE scenario_id = 7").fetchone()[0] == 0
    assert saved.version == 1 and ids == {"One": 1, "Nine": 9}  # 8 was deleted: never given again
    close_store(f"sqlite:///{path}")

"""Scenario library: named scenarios saved in an embedded SQLite file, beside the read-only presets.

The store lives at ``$NEOPLAN_LIBRARY`` if set, else ``$XDG_DATA_HOME/neoplan/scenarios.sqlite``
(``~/.local/share/neoplan/scenarios.sqlite``). Scenarios are stored as their full JSON, so a
saved scenario reloads exactly; preset names are reserved and cannot be overwritten.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .scenario import Scenario, ScenarioError, load_scenario, parse_scenario, preset_names

MAX_NAME_CHARS = 120
_SCHEMA = """
CREATE TABLE IF NOT EXISTS scenarios (
    name TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    saved_at TEXT NOT NULL
)
"""


def default_path() -> Path:
    """Where the library lives unless told otherwise."""
    if os.environ.get("NEOPLAN_LIBRARY"):
        return Path(os.environ["NEOPLAN_LIBRARY"]).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "neoplan" / "scenarios.sqlite"


@dataclass(frozen=True)
class Entry:
    """One scenario the user can open: a shipped preset (read-only) or a saved one."""

    name: str
    read_only: bool
    saved_at: str = ""


class Library:
    """Saved scenarios in one SQLite file, plus the shipped presets (read-only)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.execute(_SCHEMA)

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        con = sqlite3.connect(self.path, timeout=5)
        try:
            with con:
                yield con
        finally:
            con.close()

    def entries(self) -> list[Entry]:
        """Presets first, then saved scenarios by name."""
        with self._db() as db:
            rows = db.execute("SELECT name, saved_at FROM scenarios ORDER BY name COLLATE NOCASE").fetchall()
        return [Entry(p, True) for p in preset_names()] + [Entry(n, False, s) for n, s in rows]

    def names(self) -> list[str]:
        """Names of every scenario that can be opened."""
        return [e.name for e in self.entries()]

    def is_preset(self, name: str) -> bool:
        """Whether ``name`` is a shipped, read-only preset."""
        return name in preset_names()

    def load(self, name: str) -> Scenario:
        """The scenario saved (or shipped) under ``name``."""
        if self.is_preset(name):
            return load_scenario(name)
        with self._db() as db:
            row = db.execute("SELECT body FROM scenarios WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise ScenarioError(f"library: no scenario named {name!r}")
        return parse_scenario(row[0], name)

    def save(self, name: str, scenario: Scenario) -> Scenario:
        """Save ``scenario`` under ``name`` (replacing a saved one of that name); returns it renamed."""
        name = _check_name(name)
        if self.is_preset(name):
            raise ScenarioError(f"library: {name!r} is a read-only preset; save under another name")
        named = scenario.model_copy(update={"name": name})
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        with self._db() as db:
            db.execute(
                "INSERT INTO scenarios(name, body, saved_at) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET body = excluded.body, saved_at = excluded.saved_at",
                (name, named.to_json(), stamp),
            )
        return named

    def duplicate(self, name: str, new_name: str) -> Scenario:
        """Save a copy of ``name`` (preset or saved) as ``new_name``."""
        if new_name in self.names():
            raise ScenarioError(f"library: a scenario named {new_name!r} already exists")
        return self.save(new_name, self.load(name))

    def delete(self, name: str) -> None:
        """Delete the saved scenario ``name``; presets cannot be deleted."""
        if self.is_preset(name):
            raise ScenarioError(f"library: {name!r} is a read-only preset")
        with self._db() as db:
            db.execute("DELETE FROM scenarios WHERE name = ?", (name,))


def _check_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise ScenarioError("library: a scenario needs a name")
    if len(name) > MAX_NAME_CHARS:
        raise ScenarioError(f"library: names are at most {MAX_NAME_CHARS} characters")
    return name

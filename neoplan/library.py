"""Scenario library: named scenarios saved in an embedded SQLite file, beside the read-only presets.

The store lives at ``$NEOPLAN_LIBRARY`` if set, else ``$XDG_DATA_HOME/neoplan/scenarios.sqlite``
(``~/.local/share/neoplan/scenarios.sqlite``). Scenarios are stored as their full JSON, so a
saved scenario reloads exactly; preset names are reserved and cannot be overwritten.

The same file keeps the app's *drafts*: the scenario each browser session is editing, keyed by a
random id, so that a page refresh loses nothing. Drafts not touched for ``DRAFT_DAYS`` are pruned.

A new file is created private to the user (0600, folder 0700). A library that cannot be read (corrupt,
locked, unreadable folder) never stops the presets: listing falls back to the presets and records the
reason in :attr:`Library.error`; reading a saved scenario, saving and deleting raise :class:`LibraryError`.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from .scenario import Scenario, ScenarioError, load_scenario, parse_scenario, preset_names

MAX_NAME_CHARS = 120
DRAFT_DAYS = 30
"""Drafts untouched for this many days are deleted [days]."""
TIMEOUT_S = 2.0
"""How long a call waits for a lock held by another process [s]."""
RETRY_AFTER_S = 10.0
"""After a failure, calls fail fast with the same message for this long [s], so pages never stall on a locked file."""
DRAFT_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS scenarios (
    name TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    saved_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS quote_aliases (
    vendor TEXT NOT NULL,
    position INTEGER NOT NULL,
    pattern TEXT NOT NULL,
    category TEXT NOT NULL,
    quantity_basis TEXT,
    saved_at TEXT NOT NULL,
    PRIMARY KEY (vendor, position)
);
CREATE TABLE IF NOT EXISTS drafts (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    baseline TEXT NOT NULL,
    origin TEXT,
    source TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
"""


class LibraryError(ScenarioError):
    """The library file cannot be read or written; the message says why and where."""


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


@dataclass(frozen=True)
class Draft:
    """What a browser session is editing: the scenario, what it was opened as, and where it came from.

    ``body`` and ``baseline`` are scenario JSON; ``origin`` names the library entry it was opened from
    (None for an upload or a quote); ``source`` is a short human description ("file plan.yaml").
    """

    body: str
    baseline: str
    origin: str | None
    source: str


def _describe(exc: sqlite3.Error, path: Path) -> str:
    text = str(exc).lower()
    if "not a database" in text or "malformed" in text:
        why = "is not a readable SQLite database (corrupt?); move it away to start a new library"
    elif "locked" in text or "busy" in text:
        why = "is locked by another program; try again when it is released"
    elif "unable to open" in text or "readonly" in text or "read-only" in text:
        why = "cannot be opened or written (check the folder's permissions)"
    else:
        why = f"failed: {exc}"
    return f"scenario library {path} {why}"


class Library:
    """Saved scenarios and drafts in one SQLite file, plus the shipped presets (read-only)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.error: str | None = None
        """Why the file could not be used on the last call (None when it worked)."""
        self._failed_at = -RETRY_AFTER_S
        self._ready = False

    # -- the file --------------------------------------------------------------------------------------------

    def _create_private(self) -> None:
        """Create the folder (0700) and an empty file (0600) if missing; never loosen existing ones."""
        if not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
        if not self.path.exists():
            with suppress(FileExistsError):
                os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        if time.monotonic() - self._failed_at < RETRY_AFTER_S and self.error:
            raise LibraryError(self.error)
        try:
            if not self._ready:
                self._create_private()
            con = sqlite3.connect(self.path, timeout=TIMEOUT_S)
        except (sqlite3.Error, OSError) as exc:
            raise self._fail(exc) from exc
        try:
            with con:
                if not self._ready:
                    con.executescript(_SCHEMA)
                    self._ready = True
                yield con
            self.error = None
        except sqlite3.Error as exc:
            raise self._fail(exc) from exc
        finally:
            con.close()

    def _fail(self, exc: Exception) -> LibraryError:
        if isinstance(exc, sqlite3.Error):
            message = _describe(exc, self.path)
        else:
            message = f"scenario library {self.path} cannot be created: {getattr(exc, 'strerror', None) or exc}"
        self.error = message
        self._failed_at = time.monotonic()
        self._ready = False
        return LibraryError(message)

    # -- scenarios -------------------------------------------------------------------------------------------

    def entries(self) -> list[Entry]:
        """Presets first, then saved scenarios by name; only the presets if the file cannot be read."""
        presets = [Entry(p, True) for p in preset_names()]
        try:
            with self._db() as db:
                rows = db.execute("SELECT name, saved_at FROM scenarios ORDER BY name COLLATE NOCASE").fetchall()
        except LibraryError:
            return presets
        return presets + [Entry(n, False, s) for n, s in rows]

    def names(self) -> list[str]:
        """Names of every scenario that can be opened."""
        return [e.name for e in self.entries()]

    def is_preset(self, name: str) -> bool:
        """Whether ``name`` is a shipped, read-only preset."""
        return name in preset_names()

    def exists(self, name: str) -> bool:
        """Whether a preset or a saved scenario is called ``name`` (raises LibraryError if the file is broken)."""
        if self.is_preset(name):
            return True
        with self._db() as db:
            return db.execute("SELECT 1 FROM scenarios WHERE name = ?", (name,)).fetchone() is not None

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
        name = check_name(name)
        if self.is_preset(name):
            raise ScenarioError(f"library: {name!r} is a read-only preset; save under another name")
        named = scenario.model_copy(update={"name": name})
        with self._db() as db:
            db.execute(
                "INSERT INTO scenarios(name, body, saved_at) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET body = excluded.body, saved_at = excluded.saved_at",
                (name, named.to_json(), _now()),
            )
        return named

    def duplicate(self, name: str, new_name: str) -> Scenario:
        """Save a copy of ``name`` (preset or saved) as ``new_name``."""
        new_name = check_name(new_name)
        if self.exists(new_name):
            raise ScenarioError(f"library: a scenario named {new_name!r} already exists")
        return self.save(new_name, self.load(name))

    def delete(self, name: str) -> None:
        """Delete the saved scenario ``name``; presets cannot be deleted."""
        if self.is_preset(name):
            raise ScenarioError(f"library: {name!r} is a read-only preset")
        with self._db() as db:
            db.execute("DELETE FROM scenarios WHERE name = ?", (name,))

    # -- drafts ----------------------------------------------------------------------------------------------

    def save_draft(self, draft_id: str, draft: Draft) -> None:
        """Keep ``draft`` under ``draft_id`` (replacing it); prunes drafts older than DRAFT_DAYS."""
        if not DRAFT_ID.fullmatch(draft_id):
            raise ValueError(f"bad draft id {draft_id!r}")
        cutoff = (datetime.now(UTC) - timedelta(days=DRAFT_DAYS)).isoformat(timespec="seconds")
        with self._db() as db:
            db.execute("PRAGMA synchronous = OFF")  # a draft lost to a power cut costs one edit; saves stay FULL
            db.execute(
                "INSERT INTO drafts(id, body, baseline, origin, source, updated_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET body = excluded.body, baseline = excluded.baseline, "
                "origin = excluded.origin, source = excluded.source, updated_at = excluded.updated_at",
                (draft_id, draft.body, draft.baseline, draft.origin, draft.source, _now()),
            )
            db.execute("DELETE FROM drafts WHERE updated_at < ?", (cutoff,))

    def load_draft(self, draft_id: str) -> Draft | None:
        """The draft kept under ``draft_id``; None if there is none (or the id is malformed)."""
        if not DRAFT_ID.fullmatch(draft_id):
            return None
        with self._db() as db:
            row = db.execute("SELECT body, baseline, origin, source FROM drafts WHERE id = ?", (draft_id,)).fetchone()
        return None if row is None else Draft(*row)

    # -- quote aliases -------------------------------------------------------------------------------------------

    def save_aliases(self, vendor: str, aliases: list[dict[str, str]]) -> None:
        """Keep ``aliases`` as the alias list of ``vendor`` (replacing its list): dicts with ``pattern`` (a part
        number, else a case-insensitive regular expression of the description; see ``neoplan.quote.corrections``),
        ``category`` (a line class) and optional ``quantity_basis`` (``per_server`` or ``total``)."""
        vendor = check_name(vendor)
        rows = [_alias_row(a, k) for k, a in enumerate(aliases, start=1)]
        with self._db() as db:
            db.execute("DELETE FROM quote_aliases WHERE vendor = ?", (vendor,))
            db.executemany(
                "INSERT INTO quote_aliases(vendor, position, pattern, category, quantity_basis, saved_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(vendor, k, *row, _now()) for k, row in enumerate(rows, start=1)],
            )

    def aliases(self, vendor: str) -> list[dict[str, str]]:
        """The alias list saved for ``vendor``, in the order saved (empty when none)."""
        with self._db() as db:
            rows = db.execute(
                "SELECT pattern, category, quantity_basis FROM quote_aliases WHERE vendor = ? ORDER BY position",
                (vendor.strip(),),
            ).fetchall()
        return [{"pattern": p, "category": c, **({"quantity_basis": b} if b else {})} for p, c, b in rows]

    def alias_vendors(self) -> list[str]:
        """Vendors with a saved alias list, by name."""
        with self._db() as db:
            rows = db.execute("SELECT DISTINCT vendor FROM quote_aliases ORDER BY vendor COLLATE NOCASE").fetchall()
        return [r[0] for r in rows]


def _alias_row(alias: dict[str, str], k: int) -> tuple[str, str, str | None]:
    """(pattern, category, quantity_basis) of one alias; ScenarioError naming the entry when it is malformed."""
    pattern, category = alias.get("pattern"), alias.get("category")
    basis = alias.get("quantity_basis") or None
    if not isinstance(pattern, str) or not pattern.strip() or len(pattern) > 200:
        raise ScenarioError(f"library: alias {k} needs a pattern (at most 200 characters)")
    if not isinstance(category, str) or not category.strip():
        raise ScenarioError(f"library: alias {k} needs a category")
    if basis not in (None, "per_server", "total"):
        raise ScenarioError(f"library: alias {k} quantity_basis must be per_server or total, got {basis!r}")
    return pattern.strip(), category.strip(), basis


def check_name(name: str) -> str:
    """``name`` stripped; ScenarioError if empty, too long or holding control characters."""
    name = (name or "").strip()
    if not name:
        raise ScenarioError("library: a scenario needs a name")
    if len(name) > MAX_NAME_CHARS:
        raise ScenarioError(f"library: names are at most {MAX_NAME_CHARS} characters")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise ScenarioError("library: names cannot contain line breaks or control characters")
    return name


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")

"""The databases behind the library: one :class:`Store` per URL for the process, its schema migrated once however
many replicas start together, and every unit of work run with the retries of :mod:`neoplan.store.backend`."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from . import migrate
from .backend import Backend, LibraryError, describe, log

T = TypeVar("T")


def _upsert(conn: Connection) -> Any:
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


class Store:
    """One database (SQLite file or server), migrated on first use; shared by every view and thread of a process."""

    def __init__(self, url: str) -> None:
        self.backend = Backend(url)
        self._ready = False
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return self.backend.url

    @property
    def location(self) -> str:
        """Where the library is, without any password (server log, operator's CLI; never for visitors)."""
        return self.backend.location

    def _migrate(self, budget_s: float | None) -> None:
        with self._lock:
            if self._ready:
                return
            self.backend.run(lambda conn: None, write=False, budget_s=budget_s)  # reached, with the retry policy
            try:
                raw = self.backend.engine.raw_connection()
                try:
                    if self.backend.dialect == "sqlite":
                        raw.cursor().execute("PRAGMA journal_mode = WAL")
                finally:
                    raw.close()
            except LibraryError:
                raise
            except Exception as exc:  # a driver error before any SQLAlchemy wrapping (corrupt file, no server)
                log.error("scenario library %s cannot be opened: %s", self.location, exc)
                raise LibraryError(describe(exc)) from exc
            self.backend.run(self._upgrade, write=True, budget_s=budget_s)
            self._ready = True

    def _upgrade(self, conn: Connection) -> None:
        known = migrate.head()
        at = migrate.current(conn)
        if at is not None and at != known and not migrate.is_known(at):
            log.error("scenario library %s is at schema %s, newer than this neoplan's %s", self.location, at, known)
            raise LibraryError("the scenario library was written by a newer neoplan; upgrade neoplan to open it")
        migrate.upgrade(conn)

    def run(
        self, work: Callable[[Connection], T], *, write: bool, durable: bool = True, budget_s: float | None = None
    ) -> T:
        """``work`` in one transaction (retried while the database is busy, for ``budget_s``), after migrating on
        first use."""
        if not self._ready:
            self._migrate(budget_s)
        return self.backend.run(work, write=write, durable=durable, budget_s=budget_s)


_STORES_LOCK = threading.Lock()


def open_store(url: str) -> Store:
    """The one :class:`Store` of this process for a database (an SQLAlchemy URL), migrated on first use.

    Parameters
    ----------
    url : str
        ``sqlite:///path/to/scenarios.sqlite`` or ``postgresql+psycopg://user:password@host/db``.

    Returns
    -------
    Store
        The same object for the same URL for the life of the process, shared by every :class:`Library` on it.

    Examples
    --------
    >>> open_store("sqlite:////tmp/a.sqlite") is open_store("sqlite:////tmp/a.sqlite")  # nothing opened yet
    True
    """
    with _STORES_LOCK:
        if url not in _STORES:
            _STORES[url] = Store(url)
        return _STORES[url]


def close_store(url: str) -> None:
    """Forget this process's store for ``url`` and close its connections (tests; a server never needs it)."""
    with _STORES_LOCK:
        store = _STORES.pop(url, None)
    if store is not None:
        store.backend.close()


_STORES: dict[str, Store] = {}

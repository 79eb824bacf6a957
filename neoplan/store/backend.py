"""Where the library lives and how it is reached: the URL, the engine, retries with back-off, error wording.

The store is any SQLAlchemy URL: ``$NEOPLAN_DATABASE_URL`` if set (PostgreSQL for a team:
``postgresql+psycopg://user:password@host/neoplan``), else the embedded SQLite file at ``$NEOPLAN_LIBRARY``, else
``$XDG_DATA_HOME/neoplan/scenarios.sqlite`` (``~/.local/share/neoplan/scenarios.sqlite``).

SQLite runs in WAL mode (readers never wait for a writer) with every write transaction begun ``IMMEDIATE`` (a
writer queues for the lock up front instead of failing when it upgrades a read lock) and a busy timeout; the
threads of one process take turns to write (a lock in the process, so they queue instead of polling SQLite's busy
handler). Saves are ``synchronous = FULL`` (on disk before the call returns, through a power cut); drafts are
``NORMAL`` (they survive a crash of the app; a power cut may cost the last edit). A new file is created private
to the user (0600, folder 0700). Connections are pooled; PostgreSQL's are pinged before use.

A busy or locked database, a connection lost mid-transaction, a serialization failure or a deadlock is
*transient*: the whole transaction is retried with exponential back-off and jitter for up to the caller's budget
(``RETRY_BUDGET_S``, 30 s, for the CLI and the library API; the app passes ``APP_BUDGET_S``, 5 s, so a page is
never held long). A server that refuses connections or does not answer them (stopped, restarting, a host that is
not up) is retried for ``CONNECT_BUDGET_S`` only (3 s: a restart or a fail-over blip), then reported. SQLite's own
wait for a lock never outlasts the budget left (its busy timeout is set per attempt). Once a transaction has given
up, the database counts as *down* for ``DOWN_S`` (for writes only, when a write waited for a lock: SQLite readers
never wait in WAL mode): every transaction then makes one quick attempt (an SQLite lock waited for ``DOWN_BUSY_S``
at most) and fails fast unless it succeeds, which ends the down time. So a page that
makes several calls while the database is locked or unreachable answers within about ``APP_BUDGET_S`` plus a
fraction of a second per further call (``PAGE_BOUND_S``), and everything works again on the first call after it
recovers. Anything else fails at once. Visitors are told what is wrong in words that name no file, host or
password; the location goes to the server log, with any password replaced by ``***``.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, NoSuchModuleError, SQLAlchemyError

from ..errors import ScenarioError

log = logging.getLogger("neoplan.store")
T = TypeVar("T")

BUSY_TIMEOUT_S = 5.0
"""How long one SQLite statement waits for another writer's lock before the attempt counts as busy [s]."""
RETRY_BUDGET_S = 30.0
"""How long a transaction is retried on a transient failure before the caller is told [s] (CLI, library API)."""
APP_BUDGET_S = 5.0
"""The app's budget [s]: how long one library call of a page may be retried before the page says what is wrong."""
CONNECT_BUDGET_S = 3.0
"""How long a server that refuses or does not answer connections is retried [s]."""
DOWN_S = 5.0
"""After a transaction gave up: how long every transaction gets one quick attempt only [s]."""
DOWN_BUSY_S = 0.2
"""SQLite's wait for a lock during that time [s]."""
PAGE_BOUND_S = 10.0
"""What a page of the app takes at most while the library is locked or unreachable [s] (tests check it)."""
FIRST_BACKOFF_S = 0.005
MAX_BACKOFF_S = 1.0
_TRANSIENT_SQLSTATES = ("40001", "40P01", "55P03", "57P01", "57P02", "57P03", "08000", "08001", "08003", "08006")
"""PostgreSQL: serialization failure, deadlock, lock not available, server shutting down, connection lost."""


class LibraryError(ScenarioError):
    """The library cannot be read or written; the message says why, in words fit for any visitor."""


def default_path() -> Path:
    """Where the embedded SQLite library lives unless told otherwise.

    Returns
    -------
    pathlib.Path
        ``$NEOPLAN_LIBRARY``, else ``scenarios.sqlite`` in ``$XDG_DATA_HOME/neoplan`` (default
        ``~/.local/share/neoplan``).

    Examples
    --------
    >>> from neoplan.store import default_path
    >>> default_path().name
    'scenarios.sqlite'
    """
    if os.environ.get("NEOPLAN_LIBRARY"):
        return Path(os.environ["NEOPLAN_LIBRARY"]).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "neoplan" / "scenarios.sqlite"


def sqlite_url(path: str | Path) -> str:
    """The SQLAlchemy URL of the SQLite file at ``path``."""
    return f"sqlite:///{Path(path).expanduser()}"


def default_url() -> str:
    """The library's database unless told otherwise.

    Returns
    -------
    str
        ``$NEOPLAN_DATABASE_URL`` if set (any SQLAlchemy URL), else the SQLite file at :func:`default_path`.

    Examples
    --------
    >>> import os
    >>> from neoplan.store import default_url
    >>> default_url().startswith("sqlite:///") or "NEOPLAN_DATABASE_URL" in os.environ
    True
    """
    return os.environ.get("NEOPLAN_DATABASE_URL", "").strip() or sqlite_url(default_path())


def as_url(where: str | Path | None) -> str:
    """A URL for ``where``: a URL as is (it has ``://``), a path as its SQLite file, None as :func:`default_url`."""
    if where is None:
        return default_url()
    text = str(where)
    return text if "://" in text else sqlite_url(text)


def redact(url: str) -> str:
    """A database URL fit for a log: its password replaced by ``***``.

    Parameters
    ----------
    url : str
        An SQLAlchemy URL.

    Returns
    -------
    str
        The URL without its password (or a placeholder for a URL that cannot be read).

    Examples
    --------
    >>> from neoplan.store import redact
    >>> redact("postgresql+psycopg://neoplan:hunter2@db/neoplan")
    'postgresql+psycopg://neoplan:***@db/neoplan'
    """
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return "<an unreadable database URL>"


def describe(exc: BaseException) -> str:
    """What is wrong, for a visitor: no path, host, user or password."""
    text = str(getattr(exc, "orig", None) or exc).lower()
    if "not a database" in text or "malformed" in text:
        return "the scenario library is not a readable database (corrupt?); the server's log says where it is"
    if "locked" in text or "busy" in text or _sqlstate(exc) in _TRANSIENT_SQLSTATES[:3]:
        return "the scenario library stayed busy; try again in a moment"
    if "unable to open" in text or "readonly" in text or "read-only" in text or isinstance(exc, OSError):
        return "the scenario library cannot be opened or written (see the server's log)"
    if "no module named" in text or isinstance(exc, (ArgumentError, NoSuchModuleError, ValueError)):
        return "the scenario library's database URL is not usable (see the server's log)"
    if _is_disconnect(exc) or "connect" in text:
        return "the scenario library's database cannot be reached; try again in a moment"
    return "the scenario library failed (see the server's log)"


def _sqlstate(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None)
    return str(getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None) or "")


def _is_disconnect(exc: BaseException) -> bool:
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


_UNREACHABLE = (
    "connection refused",
    "could not connect",
    "connection failed",
    "timeout expired",
    "no route to host",
    "could not translate host name",
    "name or service not known",
    "server closed the connection",
)


def unreachable(exc: BaseException) -> bool:
    """Whether the database server refused or did not answer the connection (down, restarting, not up yet)."""
    if not isinstance(exc, DBAPIError) or _is_disconnect(exc):
        return False
    text = str(exc.orig).lower()
    return any(words in text for words in _UNREACHABLE)


def transient(exc: BaseException) -> bool:
    """Whether retrying the transaction may succeed: busy, locked, lost connection, serialization, deadlock."""
    if isinstance(exc, IntegrityError):
        return True  # two writers inserted the same new row; the retry finds it (a real violation fails again)
    if not isinstance(exc, DBAPIError):
        return False
    text = str(exc.orig).lower()
    return (
        _is_disconnect(exc)
        or _sqlstate(exc) in _TRANSIENT_SQLSTATES
        or "database is locked" in text
        or "database is busy" in text
        or "database table is locked" in text
    )


@dataclass
class Stats:
    """What the retries did, for measurements and the server log (counts since the store was opened)."""

    transactions: int = 0
    retries: int = 0
    refused: int = 0
    longest_wait_s: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, retries: int, waited_s: float, refused: bool) -> None:
        with self._lock:
            self.transactions += 1
            self.retries += retries
            self.refused += int(refused)
            self.longest_wait_s = max(self.longest_wait_s, waited_s)


def _create_private(path: Path) -> None:
    """Create the folder (0700) and an empty file (0600) if missing; never loosen existing ones."""
    if not path.parent.exists():
        path.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
    if not path.exists():
        with suppress(FileExistsError):
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def _sqlite_engine(url: sa.URL) -> Engine:
    path = Path(url.database or "")
    if url.database and url.database != ":memory:":
        _create_private(path)
    engine = sa.create_engine(
        url, pool_size=2, max_overflow=62, pool_timeout=60, connect_args={"timeout": BUSY_TIMEOUT_S}
    )

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the driver opens no transactions: _begin below does
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        options = connection.get_execution_options()
        connection.exec_driver_sql(f"PRAGMA busy_timeout = {int(options.get('neoplan_busy_s', BUSY_TIMEOUT_S) * 1000)}")
        if options.get("neoplan_write", False):
            durable = options.get("neoplan_durable", True)
            connection.exec_driver_sql(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            connection.exec_driver_sql("BEGIN")

    return engine


def make_engine(url: str) -> Engine:
    """An engine for ``url`` set up as the module docstring says (raises LibraryError, logging the location)."""
    try:
        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite":
            return _sqlite_engine(parsed)
        timeout = {"connect_timeout": int(CONNECT_BUDGET_S)} if parsed.get_backend_name() == "postgresql" else {}
        return sa.create_engine(
            parsed, pool_pre_ping=True, pool_size=8, max_overflow=24, pool_timeout=60, connect_args=timeout
        )
    except (SQLAlchemyError, OSError, ImportError, ValueError) as exc:  # ValueError: a port that is no number
        log.error("scenario library %s cannot be opened: %s", redact(url), exc)
        raise LibraryError(describe(exc)) from exc


def set_wal(connection: Connection) -> None:
    """Put an SQLite file in WAL mode (persistent: once per file); nothing on other databases."""
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql("PRAGMA journal_mode = WAL")


class Backend:
    """One database: the engine, transactions with retries, and the stats of both."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.location = redact(url)
        """The URL with no password: for the server log and the operator, never for visitors."""
        self.stats = Stats()
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self._writer = threading.Lock()
        """SQLite: this process's threads write one at a time (other processes queue on the file's lock)."""
        self._down_until = {False: 0.0, True: 0.0}
        """Until when (monotonic clock) reads (False) and writes (True) count as down: one quick attempt each. A
        locked SQLite file stops writes only (readers never wait in WAL mode); a server that is down stops both."""

    @property
    def engine(self) -> Engine:
        with self._lock:
            if self._engine is None:
                self._engine = make_engine(self.url)
            return self._engine

    def close(self) -> None:
        """Close every pooled connection (a new engine is made on the next use)."""
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextmanager
    def _transaction(self, write: bool, durable: bool, busy_s: float) -> Iterator[Connection]:
        serial = self._writer if write and self.dialect == "sqlite" else nullcontext()
        with serial, self.engine.connect() as connection:
            conn = connection.execution_options(neoplan_write=write, neoplan_durable=durable, neoplan_busy_s=busy_s)
            with conn.begin():
                yield conn

    def run(
        self, work: Callable[[Connection], T], *, write: bool, durable: bool = True, budget_s: float | None = None
    ) -> T:
        """``work(connection)`` in one transaction, retried on transient failures; LibraryError when it cannot be.

        ``durable`` False lets SQLite commit without waiting for the disk (drafts); ``budget_s`` is how long to
        retry (``RETRY_BUDGET_S`` if None); see the module docstring for what is retried and for how long.
        """
        started = time.monotonic()
        budget = RETRY_BUDGET_S if budget_s is None else budget_s
        down = started < self._down_until[write]
        if down:
            budget = 0.0
        delay = FIRST_BACKOFF_S
        retries = integrity_retries = 0
        while True:
            left = budget - (time.monotonic() - started)
            busy_s = DOWN_BUSY_S if down else min(BUSY_TIMEOUT_S, max(left, DOWN_BUSY_S))
            try:
                with self._transaction(write, durable, busy_s) as conn:
                    result = work(conn)
                self._down_until[write] = 0.0
                if write:
                    self._down_until[False] = 0.0
                self.stats.add(retries, time.monotonic() - started, refused=False)
                return result
            except (SQLAlchemyError, OSError) as exc:
                waited = time.monotonic() - started
                integrity_retries += isinstance(exc, IntegrityError)
                limit = min(budget, CONNECT_BUDGET_S) if unreachable(exc) else budget
                retry = transient(exc) or unreachable(exc)
                if not retry or waited + delay > limit or integrity_retries > 3:
                    if retry and not isinstance(exc, IntegrityError):
                        until = time.monotonic() + DOWN_S
                        for kind in (True, False) if unreachable(exc) or not write else (True,):
                            self._down_until[kind] = until
                    self.stats.add(retries, waited, refused=True)
                    log.error("scenario library %s: %s (after %d retries, %.1f s)", self.location, exc, retries, waited)
                    raise LibraryError(describe(exc)) from exc
                retries += 1
                if retries in (1, 10, 100):
                    log.info("scenario library %s busy (%s); retry %d", self.location, type(exc).__name__, retries)
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, MAX_BACKOFF_S)

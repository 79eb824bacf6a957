"""Schema versions: Alembic migrations shipped in this package (``migrations/versions``), run at startup.

:func:`upgrade` brings a database to the newest revision in one transaction that holds the database's write lock
(SQLite ``BEGIN IMMEDIATE``; a PostgreSQL advisory lock), so app replicas and CLI processes that start together
migrate it once. A library file made before migrations (neoplan 0.1: no ``alembic_version`` table) is migrated in
place: revision 0001 recognises its tables and 0002 moves its scenarios into versions.
"""

from __future__ import annotations

import logging
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from .backend import set_wal

MIGRATIONS = Path(__file__).with_name("migrations")
_PG_LOCK = 0x6E656F706C616E  # "neoplan": the advisory lock key every migrating process takes
log = logging.getLogger("neoplan.store")


def _config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest revision this neoplan knows."""
    return str(ScriptDirectory(str(MIGRATIONS)).get_current_head())


def is_known(revision: str) -> bool:
    """Whether ``revision`` is one of this neoplan's (a newer neoplan's database is not)."""
    return revision in {r.revision for r in ScriptDirectory(str(MIGRATIONS)).walk_revisions()}


def current(connection: Connection) -> str | None:
    """The revision the database is at (None: empty, or made before migrations)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection) -> bool:
    """Migrate to the newest revision inside ``connection``'s (write) transaction; whether anything ran."""
    if connection.dialect.name == "postgresql":
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK})
    at = current(connection)
    newest = head()
    if at == newest:
        return False
    command.upgrade(_config(connection), "head")
    log.info("scenario library migrated from %s to %s", at or "no schema version (new, or from neoplan 0.1)", newest)
    return True


def prepare(connection: Connection) -> None:
    """Once per database, outside any transaction: WAL mode for SQLite (persistent in the file)."""
    set_wal(connection)

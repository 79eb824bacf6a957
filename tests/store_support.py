"""Library tests on both backends: a fresh SQLite file, or a fresh schema on the PostgreSQL that ``.ci/run`` starts.

``NEOPLAN_TEST_DATABASE_URL`` names that server (``.ci/postgres`` exports it). Without it the PostgreSQL half skips
and says why; in CI (``CI`` set) it fails instead, as the browser tests do: there it must run. Each test gets its own
schema (``search_path`` in the URL), dropped afterwards, and every store it opened is closed.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest
import sqlalchemy as sa

from neoplan.store.connection import close_store

PG_ENV = "NEOPLAN_TEST_DATABASE_URL"
BACKENDS = ["sqlite", "postgresql"]


def pg_server() -> str:
    """The test server's URL; skips (fails in CI) when there is none or it does not answer."""
    url = os.environ.get(PG_ENV, "")
    reason = ""
    if not url:
        reason = f"no PostgreSQL server for the library tests: set {PG_ENV} (.ci/run starts one with .ci/postgres)"
    else:
        try:
            engine = sa.create_engine(url)
            with engine.connect() as conn:
                conn.execute(sa.text("SELECT 1"))
            engine.dispose()
        except sa.exc.SQLAlchemyError as exc:
            reason = f"the PostgreSQL server at {PG_ENV} does not answer: {str(exc).splitlines()[0]}"
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"library tests cannot run on PostgreSQL in CI: {reason}")
        pytest.skip(reason)
    return url


@contextmanager
def pg_schema() -> Iterator[str]:
    """A URL whose connections work in a new, empty schema (dropped on exit)."""
    server = pg_server()
    schema = f"t_{secrets.token_hex(6)}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE SCHEMA {schema}"))
    joiner = "&" if "?" in server else "?"
    url = f"{server}{joiner}options={quote(f'-csearch_path={schema}')}"
    try:
        yield url
    finally:
        close_store(url)
        with admin.connect() as conn:
            conn.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


@contextmanager
def database(backend: str, folder: Path) -> Iterator[str]:
    """A fresh, empty library URL on ``backend`` ("sqlite" in ``folder``, or "postgresql")."""
    if backend == "postgresql":
        with pg_schema() as url:
            yield url
        return
    url = f"sqlite:///{folder / f'library-{secrets.token_hex(4)}.sqlite'}"
    try:
        yield url
    finally:
        close_store(url)

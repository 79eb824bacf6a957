"""The scenario library: saved scenarios with versions, per-session drafts and quote aliases, in any SQL database.

The embedded SQLite file is the default; ``$NEOPLAN_DATABASE_URL`` (an SQLAlchemy URL) points a team's app replicas
and CLI at one PostgreSQL database. ``backend`` reaches the database (URL, engine, retries); ``migrate`` and
``migrations/`` keep its schema; ``schema`` names the tables;
``connection`` opens one store per URL; ``library`` is what a user sees and does, ``records`` what it hands out;
``access`` who may sign in and whether the server's secrets are safe;
``versions`` compares two versions; ``share`` signs read-only links; ``names`` checks user text.
"""

from .backend import LibraryError, default_path, default_url, redact
from .connection import Store, open_store
from .library import Library
from .names import LOCAL, MAX_MESSAGE_CHARS, User, check_message, check_name
from .records import Conflict, Draft, DraftTaken, Entry, Saved, Version
from .share import ShareError
from .versions import Diff

__all__ = [
    "LOCAL",
    "MAX_MESSAGE_CHARS",
    "Conflict",
    "Diff",
    "Draft",
    "DraftTaken",
    "Entry",
    "Library",
    "LibraryError",
    "Saved",
    "ShareError",
    "Store",
    "User",
    "Version",
    "check_message",
    "check_name",
    "default_path",
    "default_url",
    "open_store",
    "redact",
]

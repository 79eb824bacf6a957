"""The scenario library (kept importable for existing callers): everything now lives in :mod:`neoplan.store`."""

from __future__ import annotations

from .store import (
    LOCAL,
    Conflict,
    Draft,
    DraftTaken,
    Entry,
    Library,
    LibraryError,
    Saved,
    User,
    Version,
    check_name,
    default_path,
    default_url,
)
from .store.library import DRAFT_DAYS
from .store.names import DRAFT_ID, MAX_NAME_CHARS

__all__ = [
    "DRAFT_DAYS",
    "DRAFT_ID",
    "LOCAL",
    "MAX_NAME_CHARS",
    "Conflict",
    "Draft",
    "DraftTaken",
    "Entry",
    "Library",
    "LibraryError",
    "Saved",
    "User",
    "Version",
    "check_name",
    "default_path",
    "default_url",
]

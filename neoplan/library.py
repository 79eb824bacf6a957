"""The scenario library (kept importable for existing callers): everything now lives in :mod:`neoplan.store`."""

from __future__ import annotations

from .store import *  # noqa: F403  (every public name of neoplan.store)
from .store import __all__ as _STORE
from .store.library import DRAFT_DAYS
from .store.names import DRAFT_ID, MAX_NAME_CHARS

__all__ = [*_STORE, "DRAFT_DAYS", "DRAFT_ID", "MAX_NAME_CHARS"]

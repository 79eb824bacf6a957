"""Test-wide setup: a throwaway scenario library, so tests never touch the user's."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

_LIBRARY_DIR = Path(tempfile.mkdtemp(prefix="neoplan-test-library-"))
os.environ["NEOPLAN_LIBRARY"] = str(_LIBRARY_DIR / "scenarios.sqlite")

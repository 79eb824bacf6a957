"""Lint as a test, so the README's one test command also keeps the code ruff-clean."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean() -> None:
    ruff = shutil.which("ruff")
    cmd = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    proc = subprocess.run([*cmd, "check", "--output-format", "concise", "."], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_model_never_imports_streamlit() -> None:
    files = (ROOT / "neoplan").rglob("*.py")  # subpackages too (neoplan/quote/, neoplan/charts/)
    offenders = [str(p.relative_to(ROOT)) for p in files if "import streamlit" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_mypy_clean() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

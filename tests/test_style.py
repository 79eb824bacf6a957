"""Lint as a test, so the README's one test command also keeps the code ruff-clean."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    ruff = shutil.which("ruff")
    return [ruff] if ruff else [sys.executable, "-m", "ruff"]


def test_ruff_clean() -> None:
    proc = subprocess.run(
        [*_ruff(), "check", "--output-format", "concise", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_clean() -> None:
    proc = subprocess.run([*_ruff(), "format", "--check", "."], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_pre_commit_runs_the_pinned_ruff() -> None:
    """The pre-commit hook's ruff is the one requirements.txt pins, so a commit and the test suite agree."""
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    (ruff,) = [repo for repo in config["repos"] if repo["repo"].endswith("/ruff-pre-commit")]
    pinned = re.search(r"^ruff==(\S+)", (ROOT / "requirements.txt").read_text(encoding="utf-8"), re.MULTILINE)
    assert pinned and ruff["rev"] == f"v{pinned[1]}"
    assert [hook["id"] for hook in ruff["hooks"]] == ["ruff-check", "ruff-format"]


def test_model_never_imports_streamlit() -> None:
    files = (ROOT / "neoplan").rglob("*.py")  # subpackages too (neoplan/quote/, neoplan/charts/)
    offenders = [str(p.relative_to(ROOT)) for p in files if "import streamlit" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_mypy_checks_the_app_as_well_as_the_model() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert {"neoplan", "ui", "pages", "app.py"} <= set(config["files"])


def test_mypy_clean() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

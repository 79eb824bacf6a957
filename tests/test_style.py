"""Lint as a test, so the README's one test command also keeps the code ruff-clean."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import yaml
from conftest import mypy_result

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


_CACHE = re.compile(r"^\s*@(?:functools\.)?(?:lru_cache|cache)\b")


def test_no_page_takes_a_number_through_st_number_input() -> None:
    """Numbers are typed into ``field_input`` (scenario inputs) or ``number_field`` (the rest): both parse
    ``1,024`` and ``1e6``, refuse an emptied or lettered entry with the reason and keep the last valid value, where
    ``st.number_input`` would clamp ``1e12`` to its limit or quietly fall back."""
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]
    found = [f"{f.relative_to(ROOT)}:{i}" for f in files for i, ln in enumerate(f.read_text().splitlines(), 1)
             if "number_input(" in ln]  # fmt: skip
    assert not found, found


def _bare_strings(body: list[ast.stmt]) -> Iterator[int]:
    """Lines of string literals standing as statements in ``body`` and its blocks (not in functions or classes)."""
    for node in body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            yield node.lineno
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for name in ("body", "orelse", "finalbody", "handlers"):
                yield from _bare_strings(getattr(node, name, []))


def test_no_page_script_has_a_string_that_streamlit_would_draw() -> None:
    """Streamlit's magic draws a string literal standing as a statement in a page script (a docstring under a
    constant, say) as Markdown on the page; only the module's own docstring is left alone."""
    scripts = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
    found = []
    for script in scripts:
        module = ast.parse(script.read_text(encoding="utf-8"))
        body = module.body[1:] if ast.get_docstring(module) is not None else module.body
        found += [f"{script.name}:{line}" for line in _bare_strings(body)]
    assert not found, found


def test_every_model_cache_says_what_it_is_keyed_on() -> None:
    """Issue 21: a cache that stays says, on its decorator line, what it is keyed on and why it cannot go stale."""
    unexplained = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "neoplan").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if _CACHE.match(line) and "# keyed on" not in line
    ]
    assert unexplained == []


def test_mypy_checks_the_app_as_well_as_the_model() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert {"neoplan", "ui", "pages", "app.py"} <= set(config["files"])


def test_mypy_clean() -> None:
    code, output = mypy_result()  # started at collection (tests/conftest.py), so it ran beside the tests before
    assert code == 0, output

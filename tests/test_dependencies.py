"""Every third-party package the code imports is declared (issue 33: ``altair`` and ``annotated_types`` were imported
but not declared): the model package's imports in ``[project] dependencies``, the app's (``app.py``, ``pages/``,
``ui/``) there or in the ``app`` extra, each pinned in requirements.txt."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OWN = {"neoplan", "ui", "pages"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(spec: str) -> str:
    return _norm(re.split(r"[\s<>=!~;\[]", spec.strip(), maxsplit=1)[0])


def _imported(paths: list[Path]) -> set[str]:
    """Top-level module names imported anywhere in ``paths`` (relative imports and our own packages left out)."""
    out = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                out.add(node.module.split(".")[0])
    return {m for m in out if m not in OWN and m not in sys.stdlib_module_names}


def _distributions(modules: set[str]) -> dict[str, set[str]]:
    """The installed distribution(s) providing each module, normalised."""
    where = packages_distributions()
    return {m: {_norm(d) for d in where.get(m, [m])} for m in modules}


PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CORE = {_requirement_name(r) for r in PYPROJECT["dependencies"]}
APP = CORE | {_requirement_name(r) for r in PYPROJECT["optional-dependencies"]["app"]}
PINNED = {
    _requirement_name(line)
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    if "==" in line and not line.lstrip().startswith("#")
}


@pytest.mark.parametrize(
    ("files", "declared", "where"),
    [
        (sorted((ROOT / "neoplan").rglob("*.py")), CORE, "[project] dependencies"),
        ([ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))], APP, "app"),
    ],
    ids=["model", "app"],
)
def test_every_imported_package_is_declared_and_pinned(files: list[Path], declared: set[str], where: str) -> None:
    for module, dists in _distributions(_imported(files)).items():
        assert dists & declared, f"{module} ({', '.join(sorted(dists))}) is imported but not in {where}"
        assert dists & PINNED, f"{module} ({', '.join(sorted(dists))}) is imported but not pinned in requirements.txt"

"""The package's structure: grouped by stage, no import cycle (deferred and type-checking imports included), no
module over :data:`MAX_MODULE_LINES`. The picture itself: ``python docs/package_map.py --imports``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("package_map", ROOT / "docs" / "package_map.py")
assert _spec is not None and _spec.loader is not None
package_map = importlib.util.module_from_spec(_spec)
sys.modules["package_map"] = package_map
_spec.loader.exec_module(package_map)

MAX_MODULE_LINES = 800
"""A module longer than this is split by what it does (a newcomer reads a module in one sitting)."""
STAGES = ("inputs", "design", "economics", "finance", "analysis", "quote", "store", "export", "charts")
"""The subpackages, in the order the data flows (the last four serve the app and its take-away files)."""


def test_no_import_cycle() -> None:
    assert package_map.cycles(package_map.import_graph()) == []


def test_a_cycle_is_found_where_there_is_one(tmp_path: Path) -> None:
    """The cycle finder itself, on a package made for it: a → b → c → a (one deferred, one type-checking import)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import x\n")
    (pkg / "b.py").write_text("x = 1\ndef f():\n    from . import c\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n")
    (pkg / "d.py").write_text("from . import a\n")
    assert package_map.cycles(package_map.import_graph(pkg)) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_the_model_is_grouped_by_stage() -> None:
    top = {p.name for p in (ROOT / "neoplan").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert set(STAGES) <= top
    loose = sorted(p.stem for p in (ROOT / "neoplan").glob("*.py"))
    # what stays at the top: the entry points and what every stage shares (errors, formats, limits, the clock)
    assert len(loose) <= 15, loose


def test_no_module_is_too_long() -> None:
    lines = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in package_map.modules().items()}
    assert {name: n for name, n in lines.items() if n > MAX_MODULE_LINES and name not in _STILL_LONG} == {}


_STILL_LONG = {"neoplan.model", "neoplan.economics.operations"}
"""Modules over the limit, each being split by the work in progress on it (emptied as they are)."""

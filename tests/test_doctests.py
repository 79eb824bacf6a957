"""The API's docstrings: every example in ``neoplan/`` runs, and each public function documents what it takes and gives.

Each module's examples run as doctests (one test per module, so a failure names it). The examples show what the
model's parallel price and finance changes leave alone: counts, the calibration targets, signs and identities.
The public API (:data:`PUBLIC_API`, the functions and methods the manual's API pages show) must have numpydoc
``Parameters`` naming every parameter (a class: its constructor's, unless it is a record the model makes),
``Returns`` unless it returns nothing, and ``Examples``.
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import inspect
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "neoplan"
NOT_IMPORTABLE = ("neoplan.store.migrations",)
"""Alembic's scripts run inside Alembic, not on import."""
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        name = ".".join(parts)
        if not name.startswith(NOT_IMPORTABLE) and name != "neoplan.__main__":
            names.append(name)
    return names


@pytest.mark.parametrize("module", _modules())
def test_examples_run(module: str) -> None:
    mod = importlib.import_module(module)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out = io.StringIO()
    for test in finder.find(mod, module):
        if test.examples:  # the finder keeps a module to its own objects, not those it imports
            runner.run(test, out=out.write)
    assert runner.failures == 0, out.getvalue()


MANUAL = sorted(p for p in (ROOT / "docs").rglob("*.md") if ">>> " in p.read_text(encoding="utf-8"))
"""Pages of the manual with examples (``pycon`` blocks): they run as doctests too."""


@pytest.mark.parametrize("page", MANUAL, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_manuals_examples_run(page: Path) -> None:
    out = io.StringIO()
    parser = doctest.DocTestParser()
    test = parser.get_doctest(page.read_text(encoding="utf-8"), {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=out.write)
    assert test.examples and runner.failures == 0, out.getvalue()


def test_every_module_is_collected() -> None:
    """The list above covers the package: a new module's examples run without a line of test code."""
    found = _modules()
    assert "neoplan.model" in found and "neoplan.store.library" in found and "neoplan.analysis.stress.run" in found
    assert len(found) >= 100


PUBLIC_API = (
    "neoplan.evaluate",
    "neoplan.load_scenario",
    "neoplan.parse_scenario",
    "neoplan.save_scenario",
    "neoplan.Result",
    "neoplan.Result.bom_table",
    "neoplan.Result.capex_table",
    "neoplan.Result.monthly_table",
    "neoplan.Result.to_dict",
    "neoplan.Result.returns_vs_price",
    "neoplan.Result.returns_by_sale",
    "neoplan.Result.dscr_by_year",
    "neoplan.Result.llcr_by_year",
    "neoplan.Result.opex_for_year",
    "neoplan.search",
    "neoplan.SearchResult.scenario",
    "neoplan.design.sizing.design",
    "neoplan.design.sizing.size_to_power",
    "neoplan.analysis.stress.tornado",
    "neoplan.analysis.stress.grid",
    "neoplan.analysis.stress.monte_carlo",
    "neoplan.analysis.stress.solve",
    "neoplan.analysis.stress.solve_all",
    "neoplan.analysis.stress.price_for_equity_irr",
    "neoplan.analysis.stress.utilization_for_zero_npv",
    "neoplan.analysis.stress.max_debt_share_for_dscr",
    "neoplan.analysis.stress.run_all",
    "neoplan.analysis.advice.recommendations",
    "neoplan.quote.read_quote",
    "neoplan.quote.read_quote_file",
    "neoplan.quote.review_quote",
    "neoplan.quote.apply_recommendations",
    "neoplan.store.open_store",
    "neoplan.store.default_path",
    "neoplan.store.default_url",
    "neoplan.store.redact",
    "neoplan.store.check_name",
    "neoplan.store.check_message",
    "neoplan.store.Library",
    "neoplan.store.Library.check",
    "neoplan.store.Library.entries",
    "neoplan.store.Library.load",
    "neoplan.store.Library.save",
    "neoplan.store.Library.duplicate",
    "neoplan.store.Library.delete",
    "neoplan.store.Library.set_shared",
    "neoplan.store.Library.history",
    "neoplan.store.Library.diff",
    "neoplan.store.Library.restore",
    "neoplan.store.Library.share_token",
    "neoplan.store.Library.save_aliases",
)
"""The functions and methods users script against, as the manual's API pages name them."""

SESSION = ROOT / "docs" / "api" / "store.md"
SESSION_DOCUMENTED = "neoplan.store.Library"
"""The library's methods share one example, a session on the manual's page (:data:`SESSION`), run above: a
library needs a database to show anything, and one session shows how the methods work together."""


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(dotted)


def _section(doc: str, title: str) -> str:
    """The body of a numpydoc section (title, then a line of dashes as long), empty if absent."""
    found = re.search(rf"^{title}\n-{{{len(title)}}}\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, re.M | re.S)
    return found.group(1) if found else ""


def _documented(parameters: str) -> set[str]:
    """Parameter names of a Parameters section: ``name : type`` or ``a, b : type`` lines at its left margin."""
    names: set[str] = set()
    for line in parameters.splitlines():
        if line and not line[0].isspace():
            names.update(n.strip().lstrip("*") for n in line.split(" : ")[0].split(","))
    return names


@pytest.mark.parametrize("dotted", PUBLIC_API)
def test_public_api_is_documented(dotted: str) -> None:
    obj = _resolve(dotted)
    doc = inspect.getdoc(obj) or ""
    target = obj.__init__ if inspect.isclass(obj) else obj  # type: ignore[misc]
    signature = inspect.signature(target)  # type: ignore[arg-type]
    params = [p for p in signature.parameters if p not in ("self", "cls")]
    if dataclasses.is_dataclass(obj):  # a record the model makes (Result): its fields are its attributes
        params = []
    examples = _section(doc, "Examples")
    if dotted.startswith(SESSION_DOCUMENTED):  # one session on the manual's page shows the library at work
        name = dotted.rsplit(".", 1)[-1] if dotted != SESSION_DOCUMENTED else "Library"
        examples += "".join(re.findall(rf"^>>> .*\b{name}\(.*$", SESSION.read_text(encoding="utf-8"), re.M))
    assert ">>>" in examples, f"{dotted}: no runnable example (Examples section)"
    if params:
        missing = set(params) - _documented(_section(doc, "Parameters"))
        assert not missing, f"{dotted}: Parameters does not document {sorted(missing)}"
    returns_nothing = inspect.isclass(obj) or signature.return_annotation in (None, "None")
    if not returns_nothing:
        assert _section(doc, "Returns").strip(), f"{dotted}: no Returns section"


def test_the_section_reader_finds_what_numpydoc_writes() -> None:
    doc = "Summary.\n\nParameters\n----------\na, b : int\n    Two.\nc : str, optional\n    C.\n\n"
    doc += "Returns\n-------\nint\n"
    assert _documented(_section(doc, "Parameters")) == {"a", "b", "c"}
    assert _section(doc, "Returns").strip() == "int"
    assert _section(doc, "Examples") == ""

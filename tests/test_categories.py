"""data/categories.csv is the one source of the cost categories and their names: every module reads it, no module
keeps a copy, and a broken row is an error naming the file, the row and the column."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import neoplan
from neoplan import metrics
from neoplan.charts import compare, site
from neoplan.charts import quote as quote_charts
from neoplan.design import costs
from neoplan.economics import opex
from neoplan.errors import DataError
from neoplan.finance import statements
from neoplan.inputs import categories
from neoplan.quote import codes

ROOT = Path(__file__).resolve().parent.parent
HEADER = "kind,key,label,short_label,description\n"


def test_every_module_takes_the_categories_from_the_table() -> None:
    assert costs.CAPEX_CATEGORIES is categories.CAPEX_CATEGORIES
    assert statements.CAPEX_LABELS is categories.CAPEX_LABELS and statements.OPEX_LABELS is categories.OPEX_LABELS
    assert site.CAPEX_LABELS is categories.CAPEX_LABELS and site.OPEX_LABELS is categories.OPEX_LABELS
    assert codes.CATEGORIES is categories.QUOTE_CATEGORIES
    assert quote_charts.CATEGORY_LABELS is categories.QUOTE_LABELS
    assert {k: metrics.METRICS[f"capex_usd.{k}"].label for k in categories.CAPEX_CATEGORIES} == {
        k: f"{name} capex" for k, name in categories.CAPEX_LABELS.items()
    }
    assert metrics.METRICS["capex_usd.backend_network"].short == "Back-end capex"
    # opex.py keeps the model's own tuple (its home is the opex computation); it must be the table's, in order
    assert categories.keys("opex") == opex.OPEX_CATEGORIES


def test_the_table_covers_what_the_model_produces() -> None:
    result = neoplan.evaluate(neoplan.load_scenario("optimized"))
    assert set(result.capex_usd) - {"total"} == set(categories.CAPEX_CATEGORIES)
    assert {line.category for line in result.capex_lines} <= set(categories.CAPEX_CATEGORIES)
    assert set(result.ops.opex_by_category) <= set(categories.OPEX_LABELS)
    assert categories.QUOTE_CATEGORIES[: len(categories.CAPEX_CATEGORIES)] == categories.CAPEX_CATEGORIES
    assert set(categories.QUOTE_CATEGORIES) - set(categories.CAPEX_CATEGORIES) == {"software", "discount"}


def test_compare_chart_names_and_colours_categories_as_the_other_pages() -> None:
    r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    fig = compare.capex_compare_figure({"a": r})
    assert [t.name for t in fig.data] == list(categories.CAPEX_LABELS.values())
    assert [t.marker.color for t in fig.data] == [site.CATEGORY_COLORS[c] for c in categories.CAPEX_CATEGORIES]
    shown = {t.name: t.y[0] for t in fig.data}
    assert shown == {categories.CAPEX_LABELS[c]: r.capex_usd[c] for c in categories.CAPEX_CATEGORIES}


def _literal_copies(tree: ast.AST) -> list[tuple[int, str]]:
    """Tuples, lists or sets holding every key of one kind, and dicts giving three or more keys of one kind a name
    (text that is neither a colour nor another key): copies of the table."""
    kinds = {kind: set(categories.keys(kind)) for kind in ("capex", "opex")}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            found += [(node.lineno, kind) for kind, keys in kinds.items() if keys <= items]
        elif isinstance(node, ast.Dict):
            named = {
                k.value
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant)
                and isinstance(v, ast.Constant)
                and isinstance(v.value, str)
                and not re.fullmatch(r"#[0-9a-f]{6}|[a-z_]+", v.value)  # a colour, or another key
            }
            found += [(node.lineno, kind) for kind, keys in kinds.items() if len(named & keys) >= 3]
    return found


ALLOWED = {("neoplan/economics/opex.py", "opex")}
"""opex.OPEX_CATEGORIES: the model's own tuple, checked equal to the table above."""


def test_no_module_keeps_its_own_copy_of_the_categories() -> None:
    copies = []
    for folder in ("neoplan", "ui", "pages"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            copies += [f"{name}:{line} ({kind})" for line, kind in _literal_copies(tree) if (name, kind) not in ALLOWED]
    assert copies == []


def test_the_scan_finds_a_copy() -> None:
    copy = 'LABELS = {"compute": "Compute", "storage": "Storage", "other": "Other"}\nKEYS = ("power", "colocation")'
    assert _literal_copies(ast.parse(copy)) == [(1, "capex")]
    not_names = (
        '{"compute": "#264653", "storage": "#e9c46a", "other": "#b0b7c3", "power": "other", "staff": "x", "sga": "y"}'
    )
    assert _literal_copies(ast.parse(not_names)) == []
    every = ", ".join(f'"{k}"' for k in categories.keys("opex"))
    assert _literal_copies(ast.parse(f"OPEX = ({every})")) == [(1, "opex")]


# --- a broken table names the file, the row and the column ----------------------------------------------------------


def _table(tmp_path: Path, *rows: str, header: str = HEADER) -> Path:
    path = tmp_path / "categories.csv"
    path.write_text(header + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_good_table_reads_in_file_order(tmp_path: Path) -> None:
    path = _table(tmp_path, "capex,b,Bee,,Second row of two", "", "capex,a,Ay,A,First row of two")
    rows = categories.read_categories(path)
    assert [(r.key, r.label, r.short_label) for r in rows] == [("b", "Bee", None), ("a", "Ay", "A")]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("capex,compute,,,Compute servers", "categories.csv row 2, column 'label': is empty"),
        ("assets,compute,Compute,,Compute servers", "categories.csv row 2, column 'kind': input should be 'capex'"),
        ("capex,Compute!,Compute,,Compute servers", "categories.csv row 2, column 'key': string should match"),
        ("capex,compute,Compute,,short", "column 'description': must say what the category holds"),
        ("capex,compute,Compute,,Compute servers,extra", "categories.csv row 2: more cells than columns"),
    ],
)
def test_a_bad_row_names_file_row_and_column(tmp_path: Path, row: str, message: str) -> None:
    with pytest.raises(DataError, match=re.escape(message)):
        categories.read_categories(_table(tmp_path, row))


def test_a_bad_row_further_down_names_its_own_row(tmp_path: Path) -> None:
    path = _table(tmp_path, "capex,compute,Compute,,Compute servers", "capex,storage,Storage,,")
    with pytest.raises(DataError, match=re.escape("categories.csv row 3, column 'description': is empty")):
        categories.read_categories(path)


def test_a_key_or_label_appears_once_per_kind(tmp_path: Path) -> None:
    twice = _table(tmp_path, "capex,compute,Compute,,Compute servers", "capex,compute,GPUs,,Compute servers again")
    with pytest.raises(DataError, match=re.escape("categories.csv: capex key 'compute' appears twice")):
        categories.read_categories(twice)
    same_name = _table(tmp_path, "capex,a,Same,,First category", "capex,b,Same,,Second category")
    with pytest.raises(DataError, match="capex label 'Same' appears twice"):
        categories.read_categories(same_name)
    other_kind = _table(tmp_path, "opex,software,Software,,Opex licences", "quote,software,Licences,,In a quote")
    assert [r.kind for r in categories.read_categories(other_kind)] == ["opex", "quote"]


def test_a_missing_or_unknown_column_is_named(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=re.escape("categories.csv row 1: column 'description' is missing")):
        categories.read_categories(_table(tmp_path, "capex,a,A,", header="kind,key,label,short_label\n"))
    with pytest.raises(DataError, match="column 'colour' is unknown"):
        categories.read_categories(_table(tmp_path, header=HEADER.strip() + ",colour\n"))

"""The metrics registry: every figure exists in the model's output, and pages, CLI, workbook, report and manual all
take its name, format and definition from it."""

from __future__ import annotations

import ast
import html
import importlib
import io
import math
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, page_path, run_page
from openpyxl import load_workbook

import neoplan
from neoplan import cli, formats, metrics
from neoplan import export as ex
from neoplan.metrics import METRICS, lookup

PRESETS = ("reference", "optimized", "h100_256", "h100_2048", "h200_1024")
PAGES = sorted((ROOT / "pages").glob("*.py"))
FORMATS = {name for name in dir(formats) if callable(getattr(formats, name))}


@pytest.fixture(scope="module", params=PRESETS)
def preset(request: pytest.FixtureRequest) -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario(request.param))


def test_every_key_is_a_number_or_none_in_to_dict(preset: neoplan.Result) -> None:
    d = preset.to_dict()
    for key in METRICS:
        value = lookup(d, key)
        assert value is None or (isinstance(value, int | float) and math.isfinite(value)), key


def test_kpis_of_the_model_are_all_in_the_registry(optimized: neoplan.Result) -> None:
    assert set(optimized.kpis) <= set(METRICS)


def test_entries_are_complete_and_point_at_real_things() -> None:
    labels = [label for m in METRICS.values() for label in m.labels]
    assert len(labels) == len(set(labels)), "two figures share a name"
    for m in METRICS.values():
        assert m.label and m.unit and m.definition.endswith("."), m.key
        assert (ROOT / m.page).is_file(), m.page
        assert m.fmt.__module__ in ("neoplan.formats", "neoplan.metrics"), m.key
        for dotted in re.split(r" → ", m.source):  # module.function or module.Class.attribute
            module, *attrs = _module_and_attrs(dotted)
            thing = module
            for attr in attrs:
                thing = getattr(thing, attr)
        files = re.findall(r"data/[\w/*.]+\.(?:csv|yaml)", m.data)
        assert files or m.data.startswith("scenario "), m.key
        for pattern in files:  # every data file named exists
            assert list(ROOT.glob(pattern)), (m.key, pattern)


def _module_and_attrs(dotted: str) -> list[Any]:
    """The longest importable module prefix of ``dotted``, then the attribute names after it."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            return [importlib.import_module(".".join(parts[:cut])), *parts[cut:]]
        except ModuleNotFoundError:
            continue
    raise AssertionError(f"no module in {dotted!r}")


def test_keys_are_unique_and_every_capex_category_has_one() -> None:
    from neoplan.design.costs import CAPEX_CATEGORIES

    assert len(METRICS) == len(metrics._METRICS)
    assert {f"capex_usd.{c}" for c in CAPEX_CATEGORIES} <= set(METRICS)


def test_capex_categories_are_named_as_in_the_statements() -> None:
    """The capex figures are named after the categories (data/categories.csv, as the statements name them)."""
    from neoplan.finance.statements import CAPEX_LABELS

    assert {k: METRICS[f"capex_usd.{k}"].label for k in CAPEX_LABELS} == {
        k: f"{name} capex" for k, name in CAPEX_LABELS.items()
    }


@pytest.mark.parametrize("value", [None, math.nan, math.inf])
def test_undefined_values_show_as_na(value: float | None) -> None:
    for m in METRICS.values():
        assert m.text(value) == formats.NA, m.key


def test_lookup_names_a_missing_key() -> None:
    with pytest.raises(KeyError, match=r"capex_usd\.nope"):
        lookup({"capex_usd": {"total": 1.0}}, "capex_usd.nope")
    with pytest.raises(KeyError):
        lookup({"gpus": 8}, "gpus.total")


def test_card_appends_a_note_to_the_definition() -> None:
    label, value, help_text = metrics.card("npv_usd", -6_898_521.0, "Hurdle rate 11.0 %.")
    assert (label, value) == ("NPV", "−$6.90 M")
    assert help_text == f"{METRICS['npv_usd'].definition} Hurdle rate 11.0 %."
    assert metrics.card("breakeven_usd_per_gpu_hour", 3.2, short=True)[0] == "Break-even"
    assert metrics.card("npv_usd", 1.0, short=True)[0] == "NPV"  # no short label: the label


# --- pages ---------------------------------------------------------------------------------------------------------


def _metric_label_literals(path: Path) -> list[str]:
    """String literals given as the label (first argument) of ``.metric(...)`` calls on a page."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "metric":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                out.append(first.value)
    return out


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_pages_never_write_a_registry_label_themselves(path: Path) -> None:
    names = {label.lower() for m in METRICS.values() for label in m.labels}
    names |= {"tco", "capex", "break-even", "npv at hurdle", "payback [months]", "power (it peak)", "go-live"}
    written = [label for label in _metric_label_literals(path) if label.lower() in names]
    assert written == [], f"{path.name}: take these from neoplan.metrics: {written}"


def test_the_label_check_finds_a_hand_written_card(tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text('col.metric("Equity IRR", fmt.pct(k["equity_irr"]), help="IRR of equity.")\n')
    assert _metric_label_literals(page) == ["Equity IRR"]


@pytest.mark.parametrize(
    "page", ["overview", "results", "financing", "pricing", "storage_site", "compute_node", "network", "operations"]
)
def test_cards_show_the_registry_label_value_and_definition(page: str, optimized: neoplan.Result) -> None:
    d = optimized.to_dict()
    by_label = {label: m for m in METRICS.values() for label in m.labels}
    at = run_page(page_path("app" if page == "overview" else page))  # Overview links to pages: run it in app.py
    shown = [m for m in at.metric if m.label in by_label]
    assert len(shown) >= 2, [m.label for m in at.metric]
    for card in shown:
        m = by_label[card.label]
        assert card.value == m.text(lookup(d, m.key)), card.label
        assert card.proto.help.startswith(m.definition), card.label


@pytest.mark.parametrize("page", ["app", "results", "financing", "pricing", "storage_site", "compute_node", "network"])
def test_a_card_showing_a_registry_figure_carries_its_name(page: str, optimized: neoplan.Result) -> None:
    """A card whose value is that of exactly one registry figure (of the optimized preset) is named as the figure.

    ``app`` lands on Overview. Values shared by two figures, or by none, are not checked, nor counts and zeros
    (1,024 UFM licences are not the 1,024 GPUs).
    """
    d = optimized.to_dict()
    figures = [m for m in METRICS.values() if m.unit != "count" and lookup(d, m.key)]
    at = run_page(page_path(page))
    checked = 0
    for card in at.metric:
        owners = [m for m in figures if m.text(lookup(d, m.key)) == card.value]
        if len(owners) == 1:
            assert card.label in owners[0].labels, (card.label, owners[0].key)
            checked += 1
    assert checked >= 2, [(m.label, m.value) for m in at.metric]


# --- CLI, workbook, report, manual -------------------------------------------------------------------------------


def test_cli_summary_uses_the_registry(optimized: neoplan.Result) -> None:
    lines = cli.summary(optimized).splitlines()
    d = optimized.to_dict()
    for key in (
        "capex_usd.total",
        "capex_per_server_excl_storage_usd",
        "opex_usd_per_year.total",
        "tco_usd_per_gpu_hour",
        "breakeven_usd_per_gpu_hour",
        "npv_usd",
        "project_irr",
        "equity_irr",
        "payback_months",
        "min_dscr",
        "capex_usd.compute",
    ):
        m = METRICS[key]
        row = rf"{re.escape(m.label)}\s+{re.escape(m.text(lookup(d, key)))}"
        assert any(re.fullmatch(row, line) for line in lines), key
    node = METRICS["node_capex_usd"]
    assert any(ln.startswith(node.label) and node.text(d["node_capex_usd"]) in ln for ln in lines)


def test_workbook_kpi_sheet_uses_the_registry(optimized: neoplan.Result) -> None:
    ws = load_workbook(io.BytesIO(ex.workbook_bytes(optimized)))["KPIs"]
    header = [c.value for c in ws[ex.HEADER_ROW]]
    rows = {
        row[0]: dict(zip(header, row, strict=False))
        for row in ws.iter_rows(min_row=ex.HEADER_ROW + 1, values_only=True)
        if row[0] is not None
    }
    for key, m in METRICS.items():
        assert rows[key]["label"] == m.label, key
        assert rows[key]["unit"] == m.unit, key
        assert rows[key]["definition"] == m.definition, key


def test_workbook_number_format_matches_the_page_format(optimized: neoplan.Result) -> None:
    """The workbook keeps numbers as numbers: its Excel format is of the kind the page's formatter shows."""
    ws = load_workbook(io.BytesIO(ex.workbook_bytes(optimized)))["KPIs"]
    cells = {ws.cell(r, 1).value: ws.cell(r, 3) for r in range(ex.HEADER_ROW + 1, ws.max_row + 1)}
    expected = {
        formats.usd: '"$"#,##0',
        formats.usd_exact: '"$"#,##0',
        formats.usd_per_gpu_hour: '"$"#,##0.00',
        formats.pct: "0.0%",
        formats.ratio: '0.00"×"',
        formats.count: "#,##0",
        formats.months: "0.0",
    }
    for key, m in METRICS.items():
        if m.fmt in expected and cells[key].value is not None:
            assert cells[key].number_format.startswith(expected[m.fmt]), key


def test_report_cards_use_the_registry(optimized: neoplan.Result) -> None:
    page = ex.html_report(optimized)
    d = optimized.to_dict()
    for key in ex.REPORT_KPIS:
        label, value, help_text = metrics.card(key, lookup(d, key))
        card = (
            f'<div class="label">{html.escape(label)}</div><div class="value">{html.escape(value)}</div>'
            f'<div class="help">{html.escape(help_text)}</div>'
        )
        assert card in page, key


def test_the_manuals_map_is_the_registry() -> None:
    """docs/reference/metrics.md shows the map generated from the registry while the site builds (tests/test_docs.py
    builds it): its marker is there and fills with :func:`metrics.readme_table`."""
    import sys

    sys.path.insert(0, str(ROOT / "docs"))
    import gen_pages

    page = (ROOT / "docs" / "reference" / "metrics.md").read_text(encoding="utf-8")
    assert "<!-- neoplan:metrics_table -->" in page
    assert metrics.readme_table() in gen_pages.fill(page, "reference/metrics.md")

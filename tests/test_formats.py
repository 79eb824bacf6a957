"""The one money format (neoplan.formats.usd and its named uses) and the one spreadsheet escape
(neoplan.spreadsheet): reference outputs, and every caller going through them."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from neoplan import export, formats, spreadsheet
from neoplan.quote import export as quote_export

ROOT = Path(__file__).resolve().parent.parent


# --- money ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "$0"),
        (-0.0, "$0"),
        (256_400.0, "$256,400"),
        (999_999.0, "$999,999"),
        (1_000_000.0, "$1.00 M"),
        (1_740_000.0, "$1.74 M"),
        (34_561_000.0, "$34.56 M"),
        (-368_000.0, "−$368,000"),
        (-1_255_000.0, "−$1.25 M"),  # round half to even on the binary value
        (2_100_000_000.0, "$2.10 B"),
        (None, "n/a"),
        (math.nan, "n/a"),
        (math.inf, "n/a"),
    ],
)
def test_usd_reference_outputs(value: float | None, text: str) -> None:
    assert formats.usd(value) == text


def test_usd_options() -> None:
    assert formats.usd(1_740_000.0, 1) == "$1.7 M"
    assert formats.usd(0.5, decimals=2) == "$0.50"
    assert formats.usd(60_400.0, compact_from=1e3) == "$60 k"
    assert formats.usd(1_260_000.0, signed=True) == "+$1.26 M" and formats.usd(-5.0, signed=True) == "−$5"
    assert formats.usd(0.0, signed=True) == "$0"


@pytest.mark.parametrize(
    ("value", "label"),
    [(1_260_000.0, "$1.26 M"), (60_000.0, "$60 k"), (-368_000.0, "−$368 k"), (512.0, "$512"), (0.0, "$0")],
)
def test_chart_labels(value: float, label: str) -> None:
    assert formats.usd_label(value) == label


def test_signed_chart_labels() -> None:
    assert [formats.usd_label(v, signed=True) for v in (1_260_000.0, -60_000.0, 0.0, 5.0)] == [
        "+$1.26 M",
        "−$60 k",
        "$0",
        "+$5",
    ]


def test_exact_and_price() -> None:
    assert formats.usd_exact(12_345_678.0) == "$12,345,678" and formats.usd_exact(-2.5, 2) == "−$2.50"
    assert formats.usd_exact(math.nan) == "n/a"
    assert [formats.usd_price(v) for v in (0.08, 99.5, 2_600.0, 1_200_000.0, -3.0)] == [
        "$0.08",
        "$99.50",
        "$2,600",
        "$1.20 M",
        "−$3.00",
    ]
    assert formats.usd_price(None) == "n/a" and formats.usd_price(math.nan) == "n/a"


@given(st.floats(min_value=-1e13, max_value=1e13))
def test_usd_reads_back_within_its_rounding(value: float) -> None:
    text = formats.usd(value)
    number, _, suffix = text.lstrip("−$").partition(" ")
    scale = {"": 1.0, "M": 1e6, "B": 1e9}[suffix]
    sign = -1.0 if text.startswith("−") else 1.0
    assert sign * float(number.replace(",", "")) * scale == pytest.approx(value, abs=0.005 * scale + 0.5)


def test_no_module_keeps_its_own_money_formatter() -> None:
    """No function of neoplan/, ui/ or pages/ other than formats.py's is named like a money formatter."""
    names = {"_money", "money", "_usd", "usd", "_dollars", "fmt_usd", "_price"}
    found = []
    for folder in ("neoplan", "ui", "pages"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == ROOT / "neoplan" / "formats.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef) and node.name in names:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert found == []


# --- spreadsheet escape ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("=1+1", "'=1+1"),
        ("+", "'+"),
        ("-", "'-"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("-5 % fee", "'-5 % fee"),
        ("a=1+1", "a=1+1"),
        (" =1", " =1"),
        ("", ""),
        ("plain text", "plain text"),
    ],
)
def test_formula_like_text_gets_an_apostrophe(text: str, escaped: str) -> None:
    assert spreadsheet.is_formula_like(text) == (escaped != text)
    assert spreadsheet.formula_safe(text) == escaped
    assert spreadsheet.safe_cell(text) == escaped


def test_only_text_is_escaped() -> None:
    for value in (-1.0, -5, None, True):
        assert spreadsheet.formula_safe(value) is value


def test_safe_cell_normalises_every_value() -> None:
    assert [spreadsheet.safe_cell(v) for v in (None, True, False, 3, -2.5, math.nan, math.inf)] == [
        "",
        "True",
        "False",
        3,
        -2.5,
        "",
        "",
    ]
    assert spreadsheet.safe_cell("a\x00b\x07c\td\ne\rf") == "abc\td\ne\rf"  # control characters XML forbids go
    assert spreadsheet.safe_cell("\x01=1") == "'=1"  # what is left is escaped
    assert spreadsheet.xml_text("\x0b\x0c\x1f ok") == " ok"


def test_every_export_escapes_through_the_one_helper() -> None:
    assert export.csv_safe is spreadsheet.formula_safe and export.is_formula_like is spreadsheet.is_formula_like
    assert export.FORMULA_TRIGGERS is spreadsheet.FORMULA_TRIGGERS
    assert quote_export.safe_cell is spreadsheet.safe_cell
    rows = quote_export.rows_to_csv([{"Description": "=HYPERLINK(1)", "Qty": -1}], comment="@ owner")
    assert rows.decode("utf-8").splitlines() == ["# @ owner", "Description,Qty", "'=HYPERLINK(1),-1"]

"""Number inputs that cannot lie, for every numeric field of the scenario (issue 23): a walk over the pydantic
fields, not a hand list, finds each field's text input on the pages and types into it.

- empty or letters: an error next to the field names it, and the scenario keeps its last valid value (before,
  an emptied field silently became 0: a $0.00 price, a 0 % interest rate);
- out of range (``1e12``): refused with the field's range, never "got 1";
- scientific notation and thousands separators parse (``2.048e3``, ``1,024``).

Fields with no text input are listed with the reason (:data:`NOT_TYPED`); the test fails if any other numeric
field has none.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from annotated_types import Ge, Gt, Le, Lt
from conftest import page_path
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from streamlit.testing.v1 import AppTest

import neoplan
from neoplan.formats import parse_number
from neoplan.inputs.scenario import Scenario
from ui.state import SCENARIO
from ui.widgets import is_fraction

pytestmark = pytest.mark.usefixtures("run_like_the_server")

NUMBERS = (int, float, int | None, float | None)
NOT_TYPED = {
    "schema_version": "the file format's version, not a planning input",
    "cluster.gpus_per_node": "set by the GPU platform (8 for HGX, 72 for an NVL72 rack)",
    "fabric.oob.racks_per_switch": "a choice of five sharings (a selectbox), not a typed number",
    "financing.tax_period_months": "a choice of two periods (a selectbox: tax years or each month)",
}
# Views of the pages that show a field only in some state: (page, session state, scenario overrides).
VIEWS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    *((page, {}, {}) for page in ("compute_node", "network", "storage_site", "financing", "pricing")),
    ("storage_site", {"storage_site.tab": "Site & power"}, {}),
    ("storage_site", {"storage_site.tab": "Opex"}, {}),
    ("operations", {"operations.tab": "Reliability"}, {}),
    ("operations", {"operations.tab": "Effect of each choice"}, {}),
    ("financing", {}, {"timeline": {"end_of_life": "refresh"}}),
    ("financing", {}, {"financing": {"sizing": "capex_share"}}),
    ("pricing", {}, {"pricing": {"contracts": None, "reserved_usd_per_gpu_hour": 2.0}}),  # the shorthand's fields
    (
        "pricing",
        {},
        {"pricing": {"contracts": None, "price_decline_per_year": 0.1, "reserved_price_multiple": 0.85, "sell": "mix"}},
    ),
    ("operations", {"operations.tab": "The article's advice"}, {}),
    (
        "operations",
        {"operations.tab": "Reliability"},
        {"cluster": {"gpu_model": "gb200-nvl72", "platform_defaults": True}},
    ),
    ("overview", {}, {"cluster": {"size_by": "power"}, "facility": {"it_power_mw": 10}}),
]


def numeric_fields(model: type[BaseModel] = Scenario, prefix: str = "") -> Iterator[tuple[str, FieldInfo]]:
    """(dotted path, FieldInfo) of every int or float field of the scenario, nested sections included."""
    for name, info in model.model_fields.items():
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            yield from numeric_fields(ann, f"{prefix}{name}.")
        elif ann in NUMBERS:
            yield f"{prefix}{name}", info


FIELDS = dict(numeric_fields())


def _bounds(info: FieldInfo) -> tuple[float | None, float | None]:
    lo = next((float(m.ge if isinstance(m, Ge) else m.gt) for m in info.metadata if isinstance(m, Ge | Gt)), None)
    hi = next((float(m.le if isinstance(m, Le) else m.lt) for m in info.metadata if isinstance(m, Le | Lt)), None)
    return lo, hi


def _num(value: float) -> str:
    value = round(value, 10)
    return f"{int(value):,}" if value.is_integer() else f"{value:,g}"


def _value(scenario: Scenario, path: str) -> Any:
    value: Any = scenario
    for part in path.split("."):
        value = getattr(value, part)
    return value


def _open(page: str, state: dict[str, Any], overrides: dict[str, Any]) -> AppTest:
    at = AppTest.from_file(page_path("app"), default_timeout=120)
    at.run()
    at.session_state[SCENARIO] = neoplan.load_scenario({"base": "optimized", **overrides})
    for key, value in state.items():
        at.session_state[key] = value
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, at.exception
    return at


def _typed_fields(at: AppTest) -> list[str]:
    return [w.key[2:] for w in at.text_input if w.key and w.key[2:] in FIELDS and not w.disabled]


@pytest.fixture(scope="module")
def where() -> dict[str, int]:
    """Each numeric field → the index in VIEWS of the first view that shows its text input."""
    found: dict[str, int] = {}
    for i, view in enumerate(VIEWS):
        for path in _typed_fields(_open(*view)):
            found.setdefault(path, i)
    return found


def test_every_numeric_field_has_a_text_input(where: dict[str, int]) -> None:
    assert len(FIELDS) > 60  # the walk saw the whole schema
    missing = sorted(set(FIELDS) - set(where) - set(NOT_TYPED))
    assert not missing, f"numeric fields with no text input on any page: {missing}"
    assert not set(NOT_TYPED) - set(FIELDS), "NOT_TYPED names a field the schema no longer has"


def _errors(at: AppTest) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


def _type(at: AppTest, path: str, text: str) -> Any:
    at.text_input(key=f"w.{path}").input(text).run()
    assert not at.exception, at.exception
    return _value(at.session_state[SCENARIO], path)


def _shown(path: str, value: float) -> float:
    info = FIELDS[path]
    return value * 100 if is_fraction(info, info.annotation) else value


@pytest.mark.parametrize("view", range(len(VIEWS)), ids=[f"{v[0]}-{i}" for i, v in enumerate(VIEWS)])
def test_numbers_typed_badly_are_refused_and_the_value_kept(view: int, where: dict[str, int]) -> None:
    paths = sorted(p for p, i in where.items() if i == view)
    if not paths:
        pytest.skip("every field of this view is shown by an earlier one")
    at = _open(*VIEWS[view])
    for path in paths:
        info = FIELDS[path]
        optional = info.annotation in (int | None, float | None)
        before = _value(at.session_state[SCENARIO], path)
        widget = at.text_input(key=f"w.{path}")
        shown_before, name = widget.value, widget.label  # messages name the field by its label, units included
        assert f"`{path}`" in (widget.help or ""), path  # the file's name of the field: in its tooltip
        for text, reason in (("", "enter a number"), ("abc", "enter a number"), ("12,5", "use a point")):
            if optional and not text:
                continue  # empty means "derived" for an optional number (see the field's help)
            assert _type(at, path, text) == before, (path, text)
            assert at.text_input(key=f"w.{path}").value == shown_before, (path, text)  # the last valid value
            assert any(e.startswith(f"{name}: {reason}") and "kept" in e for e in _errors(at)), (path, _errors(at))
            assert not [e for e in _errors(at) if path in e], (path, _errors(at))
        lo, hi = _bounds(info)
        assert hi is not None, f"{path} has no upper bound"
        assert _type(at, path, "1e12") == before, path
        scale = 100 if is_fraction(info, info.annotation) else 1
        expected = f"{name} must be between {_num(lo * scale)} and {_num(hi * scale)}"
        assert any(e.startswith(expected) and "got 1e12" in e for e in _errors(at)), (path, _errors(at))
        same = _shown(path, float(before if before is not None else (lo or 0)))
        for text in (f"{same:e}", f"{same:,.12g}"):  # scientific notation; thousands separators
            after = _type(at, path, text)
            if before is not None:
                assert after == pytest.approx(before, rel=1e-9), (path, text)
            assert not [e for e in _errors(at) if e.startswith(name)], (path, text, _errors(at))


def test_a_valid_number_in_scientific_notation_is_stored() -> None:
    at = _open("compute_node", {}, {})
    assert _type(at, "cluster.gpus", "2.048e3") == 2048
    assert _type(at, "cluster.gpus", "4,096") == 4096
    assert _type(at, "cluster.gpus", "1e12") == 4096
    assert any("GPUs in the cluster must be between 8 and 1,000,000, got 1e12" in e for e in _errors(at))
    assert _type(at, "cluster.gpus", "1024.5") == 4096
    assert any(e.startswith("GPUs in the cluster: must be a whole number") for e in _errors(at))
    at.switch_page("pages/pricing.py").run()
    assert _type(at, "pricing.usd_per_gpu_hour", "$3.25") == pytest.approx(3.25)
    assert _type(at, "pricing.spot_share_of_idle", "70 %") == pytest.approx(0.70)
    assert not at.error, _errors(at)


def test_an_emptied_price_is_not_zero() -> None:
    at = _open("pricing", {}, {})
    before = at.session_state[SCENARIO].pricing.usd_per_gpu_hour
    assert _type(at, "pricing.usd_per_gpu_hour", "") == before
    assert math.isclose(parse_number(at.text_input(key="w.pricing.usd_per_gpu_hour").value), before)
    assert "Headline price [USD/GPU-h]: enter a number, got “”; kept 2.99" in _errors(at)


# -- numbers that are no scenario input (ui.widgets.number_field) ------------------------------------------------

EURO_QUOTE = (
    "Pos;Artikelnummer;Beschreibung;Menge;Einzelpreis;Gesamtpreis\n"
    '1;SYS-821GE-TNHR;"GPU-Server, HGX H100 8-GPU, 2x Xeon Platinum 8480+, 2TB (32x 64GB) DDR5";4;"250.000,00 €";'
    '"1.000.000,00 €"\n'
).encode()


def _free_fields(at: AppTest) -> list[str]:
    """Keys of the page's number fields that are no scenario input: their text field is ``<key>.text``."""
    return [w.key.removesuffix(".text") for w in at.text_input if w.key and w.key.endswith(".text")]


def _search() -> AppTest:
    return _open("search", {}, {})


def _quote_in_euro() -> AppTest:
    at = _open("quote_review", {}, {})
    at.file_uploader(key="quote.upload").set_value(("euro.csv", EURO_QUOTE, "text/csv")).run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("view", [_search, _quote_in_euro], ids=["design search", "quote review"])
def test_other_number_fields_refuse_bad_entries_and_keep_the_value(view: Any) -> None:
    at = view()
    keys = _free_fields(at)
    assert len(keys) >= 3, keys  # search: 4 constraints and rows; quote: servers, tolerance, exchange rate
    for key in keys:
        before = at.session_state[key]
        label = at.text_input(key=f"{key}.text").label.split(" [")[0]
        for text, reason in (("abc", "enter a number"), ("12,5", "use a point"), ("1e12", "must be between")):
            at.text_input(key=f"{key}.text").input(text).run()
            assert not at.exception, at.exception
            assert at.session_state[key] == before, (key, text)
            assert any(e.startswith(label) and reason in e and "kept" in e for e in _errors(at)), (key, _errors(at))
        at.text_input(key=f"{key}.text").input("").run()
        optional = at.session_state[key] is None
        assert optional or at.session_state[key] == before, key  # empty: "none" where the field may be empty
        assert optional or any(e.startswith(f"{label}: enter a number") for e in _errors(at)), (key, _errors(at))
        at.text_input(key=f"{key}.text").input("2").run()
        assert at.session_state[key] == 2 and not [e for e in _errors(at) if e.startswith(label)], key


def test_a_search_constraint_and_the_rows_shown_take_what_is_typed() -> None:
    at = _search()
    at.text_input(key="search.min_dscr.text").input("1.5e0").run()
    assert at.session_state["search.min_dscr"] == 1.5
    at.text_input(key="search.top.text").input("1,000").run()
    assert at.session_state["search.top"] == 1000
    at.text_input(key="search.top.text").input("").run()  # rows shown may not be empty: kept
    assert at.session_state["search.top"] == 1000
    assert "Rows shown: enter a number, got “”; kept 1,000" in _errors(at)
    at.text_input(key="search.min_dscr.text").input("").run()  # a constraint may: none
    assert at.session_state["search.min_dscr"] is None


def test_the_quote_s_server_count_refuses_1e12_with_its_range() -> None:
    at = _quote_in_euro()
    at.text_input(key="quote.servers.text").input("1e12").run()
    assert "Servers quoted must be between 1 and 100,000, got 1e12; kept as the quote says" in _errors(at)
    at.text_input(key="quote.usd_rate.text").input("1.08").run()
    at.text_input(key="quote.servers.text").input("8").run()
    assert not at.error, _errors(at)
    assert at.session_state["quote.servers"] == 8

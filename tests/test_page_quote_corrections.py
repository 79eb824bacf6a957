"""Correcting a misread quote line on the Quote review page (issue 22): AppTest and a real browser.

The journey: upload a quote whose NIC line the rules cannot read (the vendor's own name for it), correct its class
in the Lines table, see the findings change, save the correction as the vendor's alias list, upload the vendor's
next quote and see it read right, leave the page and come back with everything kept.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from conftest import page_path, run_page

PAGE = page_path("quote_review")
HEADER = ["Part Number", "Description", "Qty", "Unit Price", "Extended Price"]
NIC = "ACME-FC400"


def acme_quote(number: str, servers: int) -> bytes:
    """A quote of the vendor 'Acme Compute Systems': its NICs are 'Acme fabric card 400', a name no rule knows."""
    rows: list[list[Any]] = [
        ["Acme Compute Systems"],
        [f"Quotation {number}"],
        ["SYNTHETIC SAMPLE made for neoplan tests; not a real quote"],
        [],
        HEADER,
        ["ACME-AG8-H100", "Acme GPU node AG8, HGX H100 8-GPU, 2x Intel Xeon Gold 6530, 1TB (16x 64GB) DDR5", servers,
         "$262,000.00", f"${262_000 * servers:,.2f}"],
        [NIC, "Acme fabric card 400", 8 * servers, "$1,600.00", f"${1_600 * 8 * servers:,.2f}"],
        ["MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 2, "$36,000.00", "$72,000.00"],
    ]  # fmt: skip
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


def _codes(at: Any) -> set[str]:
    import re

    return {m.group(1) for md in at.markdown if (m := re.match(r"\*\*.+\*\*  \n`(\w+)`", md.value))}


def test_corrections_change_the_findings_and_save_as_aliases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEOPLAN_LIBRARY", str(tmp_path / "library.sqlite"))
    at = run_page(PAGE)
    at.file_uploader(key="quote.upload").set_value(("acme_a.csv", acme_quote("AQ-1", 16), "text/csv")).run()
    assert "nics_below_8" in _codes(at)
    at.session_state["quote.corrections"] = {"!7": {"category": "backend_nic"}}
    at.run()
    assert not at.exception
    assert "nics_below_8" not in _codes(at) and "missing_item" in _codes(at)
    assert at.text_input(key="quote.alias_vendor_name").value == "Acme Compute Systems"
    at.button(key="quote.save_aliases").click().run()
    assert any("Saved 1 alias" in s.value for s in at.success), [e.value for e in at.error]
    at.file_uploader(key="quote.upload").set_value(("acme_b.csv", acme_quote("AQ-2", 32), "text/csv")).run()
    assert at.selectbox(key="quote.vendor").value == "Acme Compute Systems"
    assert "nics_below_8" not in _codes(at)
    assert any("1 alias(es) of Acme Compute Systems applied" in c.value for c in at.caption)


def test_options_and_conflicting_readings_on_the_page() -> None:
    rows: list[list[Any]] = [
        ["Configuration quantity: 32 nodes"],
        HEADER,
        ["", "Option A: HGX H100", "", "", ""],
        ["XE9680", "PowerEdge XE9680, HGX H100 8-GPU, 2x Xeon Gold 6530, 1TB (16x 64GB) DDR5", 16, 250_000, 4_000_000],
        ["", "Total Option A", "", "", 4_000_000],
        ["", "Option B: HGX H200", "", "", ""],
        ["XE9680", "PowerEdge XE9680, HGX H200 8-GPU, 2x Xeon Gold 6530, 1TB (16x 64GB) DDR5", 8, 290_000, 2_320_000],
        ["", "Total Option B", "", "", 2_320_000],
    ]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    at = run_page(PAGE)
    at.file_uploader(key="quote.upload").set_value(("options.csv", buf.getvalue().encode(), "text/csv")).run()
    assert not at.exception and not at.error
    assert at.radio(key="quote.option").value == 1
    assert any("128 GPUs in 16 servers" in c.value for c in at.caption)
    at.radio(key="quote.option").set_value(2).run()
    assert any("64 GPUs in 8 servers" in c.value for c in at.caption)


# --- a real browser ---------------------------------------------------------------------------------------------------


def _editor(tab: Any) -> Any:
    """The Lines editor (its container carries the widget key quote.editor.N), scrolled into view."""
    grid = tab.locator("[class*='st-key-quote-editor-']").get_by_test_id("stDataFrame").first
    grid.scroll_into_view_if_needed()
    tab.wait_for_timeout(300)
    return grid


def _set_class(tab: Any, row: int, value: str) -> None:
    """Type ``value`` into the Class cell of data row ``row`` (0-based) of the Lines editor."""
    box = _editor(tab).bounding_box()
    x, y = box["x"] + 110, box["y"] + 36 + 35 * (row + 0.5)
    tab.mouse.click(x, y)
    tab.wait_for_timeout(200)
    tab.mouse.dblclick(x, y)
    tab.wait_for_timeout(500)
    tab.keyboard.type(value)
    tab.wait_for_timeout(300)
    tab.keyboard.press("Enter")
    settle(tab)


def _upload(tab: Any, path: Path) -> None:
    uploader = tab.get_by_test_id("stFileUploader").filter(has_text="Upload a quote")
    uploader.locator("input[type=file]").set_input_files(str(path))
    settle(tab)


def _gone(tab: Any, text: str) -> None:
    tab.wait_for_function(f"() => !document.body.innerText.includes({text!r})", timeout=30_000)


@pytest.mark.browser
def test_browser_correct_save_reuse_and_return(tab: Any, tmp_path: Path) -> None:
    first, second = tmp_path / "acme_a.csv", tmp_path / "acme_b.csv"
    first.write_bytes(acme_quote("AQ-1", 16))
    second.write_bytes(acme_quote("AQ-2", 32))
    go(tab, "Quote review")
    _upload(tab, first)
    tab.get_by_text("Fewer than 8 back-end NICs per server").first.wait_for(timeout=30_000)
    _set_class(tab, 1, "backend_nic")  # row 7 of the file: "Acme fabric card 400"
    tab.get_by_text("1 line(s) corrected by you.").first.wait_for(timeout=30_000)
    _gone(tab, "Fewer than 8 back-end NICs per server")
    tab.get_by_text("Missing item", exact=False).first.wait_for(timeout=30_000)  # the NICs' optics now count
    no_exception(tab, "Quote review after a correction")
    go(tab, "Overview")
    go(tab, "Quote review")  # the upload and its correction are kept
    tab.get_by_text("Reviewing acme_a.csv").first.wait_for(timeout=30_000)
    tab.get_by_text("1 line(s) corrected by you.").first.wait_for(timeout=30_000)
    assert tab.get_by_text("Fewer than 8 back-end NICs per server").count() == 0
    vendor = tab.get_by_label("Vendor", exact=True)
    assert vendor.input_value() == "Acme Compute Systems"
    tab.get_by_role("button", name="Save corrections as vendor aliases").click()
    settle(tab)
    tab.get_by_text("Saved 1 alias(es) for Acme Compute Systems", exact=False).first.wait_for(timeout=30_000)
    _upload(tab, second)  # the vendor's next quote: read right with the saved alias
    tab.get_by_text("256 GPUs in 32 servers", exact=False).first.wait_for(timeout=30_000)
    tab.get_by_text("1 alias(es) of Acme Compute Systems applied.").first.wait_for(timeout=30_000)
    assert tab.get_by_text("Fewer than 8 back-end NICs per server").count() == 0
    go(tab, "Overview")
    go(tab, "Quote review")
    tab.get_by_text("Reviewing acme_b.csv").first.wait_for(timeout=30_000)
    tab.get_by_text("1 alias(es) of Acme Compute Systems applied.").first.wait_for(timeout=30_000)
    tab.get_by_text("256 GPUs in 32 servers", exact=False).first.wait_for(timeout=30_000)
    assert tab.get_by_text("Fewer than 8 back-end NICs per server").count() == 0
    no_exception(tab, "Quote review after returning")


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from browser_support import streamlit_server

    with streamlit_server(tmp_path_factory.mktemp("library") / "scenarios.sqlite") as url:
        yield url


@pytest.fixture
def tab(app_url: str, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from browser_support import chromium

    with chromium(tmp_path_factory) as context:
        page = context.new_page()
        page.goto(app_url, wait_until="domcontentloaded")
        settle(page)
        yield page


from browser_support import go, no_exception, settle  # noqa: E402  # the shared browser helpers

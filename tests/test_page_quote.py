"""The Quote review page: AppTest (page alone and inside the app) and a real browser with an uploaded file.

Issue 22's journey: upload a quote whose NIC line the rules cannot read (the vendor's own name for it), correct its
class in the Lines table, see the findings change, save the correction as the vendor's alias list, upload the
vendor's next quote and see it read right, leave the page and come back with everything kept.
"""

from __future__ import annotations

import csv
import io
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, page_path, run_page
from conftest import metric as _metric
from plotly_support import drawn_charts, drawn_titles
from streamlit.testing.v1 import AppTest

from neoplan.quote import MAX_QUOTE_BYTES
from ui import format as fmt

PAGE = page_path("quote_review")
MESSY = ROOT / "data" / "quotes" / "per_server_messy.csv"
UPLOAD_SHOT = Path(tempfile.gettempdir()) / "neoplan_quote_review_upload.png"  # for a person to look at


def _page() -> AppTest:
    return run_page(PAGE)


def _table(at: AppTest, column: str):  # type: ignore[no-untyped-def]
    """The first dataframe shown with ``column`` (AppTest finds dataframes by order, not key)."""
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no dataframe with column {column!r}")


def _size(at: AppTest) -> str:
    """The caption under the quote's name: size, model, lines, skipped rows."""
    return next(c.value for c in at.caption if " lines from " in c.value)


def _codes(at: AppTest) -> list[str]:
    """Finding codes shown on the finding cards, in order."""
    return [m.group(1) for md in at.markdown if (m := re.match(r"\*\*.+\*\*  \n`(\w+)`", md.value))]


def test_page_runs_and_shows_the_padded_sample_findings() -> None:
    at = _page()
    assert not at.error, [e.value for e in at.error]
    assert at.selectbox(key="quote.sample").value == "oem_padded_1024_h100.xlsx"
    shown = _codes(at)
    assert {"cpu_top_bin", "ram_over_1tb", "dpu_bluefield", "nvaie_license", "optics_everywhere"} <= set(shown)
    assert int(_metric(at, "Findings")) == len(shown)
    assert _metric(at, "Padding findings").startswith("$") and _metric(at, "Design change").startswith("$")
    assert drawn_titles(at) == ["Saving by finding"]  # only the open tab's chart is drawn
    at.session_state["quote.findings_tab"] = "Quote vs design by category"
    at.run()
    assert drawn_titles(at) == ["Quote vs recommended design, by category"]
    assert len(_table(at, "class")) == 35 and len(at.dataframe[-1].value) == 1  # the Lines editor, unmatched lines
    assert not any("uploader" in md.value for md in at.markdown)  # no stray docstring rendered by magic


def test_clean_sample_has_no_findings() -> None:
    at = _page()
    at.selectbox(key="quote.sample").set_value("clean_1024_h100.csv").run()
    assert not at.exception
    assert _metric(at, "Findings") == "0"
    assert any("No findings" in s.value for s in at.success)


def test_per_server_sample_reads_the_server_count_from_the_quote() -> None:
    at = _page()
    at.selectbox(key="quote.sample").set_value("per_server_messy.csv").run()
    assert at.text_input(key="quote.servers.text").value == ""  # inferred: "order quantity 32"
    assert any("Read from the quote: 32 servers" in c.value for c in at.caption)
    assert "256 GPUs in 32 servers" in _size(at)
    assert "nics_below_8" in _codes(at)
    at.text_input(key="quote.servers.text").input("64").run()
    assert not at.exception
    assert "512 GPUs" in _size(at)


def test_apply_recommendations_changes_the_app_scenario() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/quote_review.py").run()
    at.selectbox(key="quote.sample").set_value("per_server_messy.csv").run()
    before = at.session_state["scenario"]
    assert before.cluster.gpus == 1024
    at.button(key="quote.apply").click().run()
    assert not at.exception, at.exception
    assert any("Scenario set to" in s.value for s in at.success)
    scenario = at.session_state["scenario"]
    assert scenario.cluster.gpus == 256 and scenario.node.cpu_tier == "mid"
    at.switch_page("pages/overview.py").run()
    assert _metric(at, "GPUs") == "256"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("garbage.csv", b"\x00\x01\x02\x03 not a quote", "binary"),
        ("empty.csv", b"", "empty"),
        ("noprice.csv", b"Description,Qty\nXeon Gold 6530,2\n", "no price column"),
        ("fake.xlsx", b"PK\x03\x04garbage", "XLSX"),
        ("big.csv", b"a" * (MAX_QUOTE_BYTES + 1), "larger than"),
    ],
)
def test_bad_upload_shows_an_error(name: str, content: bytes, message: str) -> None:
    at = _page()
    at.file_uploader(key="quote.upload").set_value((name, content, "text/csv")).run()
    assert not at.exception, at.exception
    assert any(message in e.value for e in at.error), [e.value for e in at.error]


def test_upload_takes_precedence_and_starts_fresh() -> None:
    at = _page()
    at.text_input(key="quote.servers.text").input("128").run()
    at.file_uploader(key="quote.upload").set_value(("mine.csv", MESSY.read_bytes(), "text/csv")).run()
    assert not at.exception and not at.error
    assert "mine" in at.subheader[0].value
    assert at.text_input(key="quote.servers.text").value == ""  # not carried over from the previous quote
    assert "256 GPUs" in _size(at)
    assert any(t.value == "Reviewing mine.csv" for t in at.text)


def test_uploaded_quote_and_review_survive_a_page_switch() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/quote_review.py").run()
    at.file_uploader(key="quote.upload").set_value(("mine.csv", MESSY.read_bytes(), "text/csv")).run()
    total = _metric(at, "Quote total")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    at.switch_page("pages/quote_review.py").run()
    assert not at.exception, at.exception
    assert any(t.value == "Reviewing mine.csv" for t in at.text)
    assert _metric(at, "Quote total") == total and "256 GPUs" in _size(at)
    at.button(key="quote.clear").click().run()
    assert not any(t.value.startswith("Reviewing") for t in at.text)
    assert at.subheader[0].value.startswith("oem")  # back to the sample


EURO = (
    "Pos;Artikelnummer;Beschreibung;Menge;Einzelpreis;Gesamtpreis\n"
    '1;SYS-821GE-TNHR;"GPU-Server, HGX H100 8-GPU, 2x Xeon Platinum 8480+, 2TB (32x 64GB) DDR5, 8x ConnectX-7 400G";'
    '4;"250.000,00 €";"1.000.000,00 €"\n'
    '2;MMA4Z00-NS400;"400G OSFP Transceiver, SR4 multimode";32;"1.000,00 €";"32.000,00 €"\n'
).encode()


def test_quote_in_euro_asks_for_the_rate() -> None:
    at = _page()
    at.file_uploader(key="quote.upload").set_value(("euro.csv", EURO, "text/csv")).run()
    assert not at.exception and not at.error
    assert any("EUR" in i.value for i in at.info)
    at.text_input(key="quote.usd_rate.text").input("1.1").run()
    assert not at.exception and not at.error
    assert "32 GPUs in 4 servers" in _size(at)
    assert _metric(at, "Quote total") == fmt.usd(1.1 * 1_032_000)


B300 = (
    b"Part Number,Description,Qty,Unit Price,Extended Price\n"
    b',"NVIDIA HGX B300 8-GPU baseboard, 8x Blackwell Ultra 288 GB",4,"$400,000.00","$1,600,000.00"\n'
)


def test_a_b300_quote_is_compared_with_a_b300_design_from_its_own_book() -> None:
    at = _page()
    at.file_uploader(key="quote.upload").set_value(("b300.csv", B300, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "32 GPUs in 4 servers" in _size(at)
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any(w.startswith("priced against the 2026-11 price book, the first that prices b300-sxm") for w in warnings)
    assert not any("no comparison" in w or "needs: prices_as_of" in w for w in warnings), warnings
    assert drawn_charts(at) >= 1  # quote vs recommended design


def test_user_text_is_shown_as_text_not_markdown() -> None:
    rows = (
        b"Part Number,Description,Qty,Unit Price,Extended Price\n"
        b'X1,"**bold** [link](http://example.com) Xeon Platinum 8480+",256,"$4,695.00","$1,201,920.00"\n'
        b',HGX H100 8-GPU baseboard,128,"$214,330.00","$27,434,240.00"\n'
    )
    at = _page()
    at.file_uploader(key="quote.upload").set_value(("md.csv", rows, "text/csv")).run()
    assert not at.exception
    assert "cpu_top_bin" in _codes(at)
    assert all("](http" not in md.value or "\\]" in md.value for md in at.markdown)
    assert any("**bold**" in t.value for t in at.text)


# --- a real browser ---------------------------------------------------------------------------------------------------


@pytest.mark.browser
def test_browser_upload(tab) -> None:  # type: ignore[no-untyped-def]
    """Upload the messy per-server CSV in Chromium: the server count comes from the quote, findings render."""
    go(tab, "Quote review")
    uploader = tab.get_by_test_id("stFileUploader").filter(has_text="Upload a quote")
    uploader.locator("input[type=file]").set_input_files(str(MESSY))
    settle(tab)
    tab.get_by_text("256 GPUs in 32 servers", exact=False).first.wait_for(timeout=30_000)
    tab.get_by_text("Fewer than 8 back-end NICs per server", exact=False).first.wait_for(timeout=30_000)
    no_exception(tab, "Quote review")
    tab.screenshot(path=str(UPLOAD_SHOT), full_page=True)


# --- corrections in the table, vendor aliases, options (issue 22) -------------------------------------------------


ACME_HEADER = ["Part Number", "Description", "Qty", "Unit Price", "Extended Price"]
NIC = "ACME-FC400"


def acme_quote(number: str, servers: int) -> bytes:
    """A quote of the vendor 'Acme Compute Systems': half its NICs are 'Acme fabric card 400', a name no rule knows
    (so the review reads 4 back-end NICs per server until the line is corrected)."""
    rows: list[list[Any]] = [
        ["Acme Compute Systems"],
        [f"Quotation {number}"],
        ["SYNTHETIC SAMPLE made for neoplan tests; not a real quote"],
        [],
        ACME_HEADER,
        ["ACME-AG8-H100", "Acme GPU node AG8, HGX H100 8-GPU, 2x Intel Xeon Gold 6530, 1TB (16x 64GB) DDR5", servers,
         "$262,000.00", f"${262_000 * servers:,.2f}"],
        ["MCX75310AAS-NEAT", "NVIDIA ConnectX-7 400G NDR OSFP", 4 * servers, "$1,600.00", f"${6_400 * servers:,.2f}"],
        [NIC, "Acme fabric card 400", 4 * servers, "$1,600.00", f"${6_400 * servers:,.2f}"],
        ["MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 2, "$36,000.00", "$72,000.00"],
    ]  # fmt: skip
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


def test_corrections_change_the_findings_and_save_as_aliases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEOPLAN_LIBRARY", str(tmp_path / "library.sqlite"))
    at = run_page(PAGE)
    at.file_uploader(key="quote.upload").set_value(("acme_a.csv", acme_quote("AQ-1", 16), "text/csv")).run()
    assert "nics_below_8" in set(_codes(at))
    at.session_state["quote.corrections"] = {"!8": {"category": "backend_nic"}}
    at.run()
    assert not at.exception
    assert "nics_below_8" not in set(_codes(at))
    assert at.text_input(key="quote.alias_vendor_name").value == "Acme Compute Systems"
    at.button(key="quote.save_aliases").click().run()
    assert any("Saved 1 alias" in s.value for s in at.success), [e.value for e in at.error]
    at.file_uploader(key="quote.upload").set_value(("acme_b.csv", acme_quote("AQ-2", 32), "text/csv")).run()
    assert at.selectbox(key="quote.vendor").value == "Acme Compute Systems"
    assert "nics_below_8" not in set(_codes(at))
    assert any("1 alias(es) of Acme Compute Systems applied" in c.value for c in at.caption)


def test_options_and_conflicting_readings_on_the_page() -> None:
    rows: list[list[Any]] = [
        ["Configuration quantity: 32 nodes"],
        ACME_HEADER,
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
    _set_class(tab, 2, "backend_nic")  # row 8 of the file: "Acme fabric card 400"
    tab.get_by_text("1 line(s) corrected by you.").first.wait_for(timeout=30_000)
    _gone(tab, "Fewer than 8 back-end NICs per server")  # 8 per server now
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

"""The Quote review page: AppTest (page alone and inside the app) and a real browser with an uploaded file."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from neoplan.quote import MAX_QUOTE_BYTES

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "quote_review.py")
MESSY = ROOT / "data" / "quotes" / "per_server_messy.csv"
UPLOAD_SHOT = Path(tempfile.gettempdir()) / "neoplan_quote_review_upload.png"  # for a person to look at


def _page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def _metric(at: AppTest, label: str) -> str:
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r} among {[m.label for m in at.metric]}")


def _table(at: AppTest, column: str):  # type: ignore[no-untyped-def]
    """The first dataframe shown with ``column`` (AppTest finds dataframes by order, not key)."""
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no dataframe with column {column!r}")


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
    assert _metric(at, "Saving").startswith("$")
    assert len(at.get("plotly_chart")) == 2
    assert len(_table(at, "source")) == 35 and len(at.dataframe[-1].value) == 1  # lines, unmatched lines


def test_clean_sample_has_no_findings() -> None:
    at = _page()
    at.selectbox(key="quote.sample").set_value("clean_1024_h100.csv").run()
    assert not at.exception
    assert _metric(at, "Findings") == "0"
    assert any("No findings" in s.value for s in at.success)


def test_per_server_sample_sets_the_multiplier() -> None:
    at = _page()
    at.selectbox(key="quote.sample").set_value("per_server_messy.csv").run()
    assert at.number_input(key="quote.servers").value == 32
    assert "nics_below_8" in _codes(at)
    at.number_input(key="quote.servers").set_value(64).run()
    assert not at.exception
    assert "512 GPUs" in at.caption[1].value


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


def test_upload_takes_precedence_over_the_sample() -> None:
    at = _page()
    at.number_input(key="quote.servers").set_value(32).run()
    at.file_uploader(key="quote.upload").set_value(("mine.csv", MESSY.read_bytes(), "text/csv")).run()
    assert not at.exception and not at.error
    assert at.subheader[0].value == "mine.csv"
    assert "256 GPUs" in at.caption[1].value


# --- a real browser ---------------------------------------------------------------------------------------------------


@pytest.mark.browser
def test_browser_upload(page) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """Upload the messy per-server CSV in Chromium: findings render, no exception."""
    nav = page.get_by_test_id("stSidebarNav").get_by_role("link", name=re.compile("^Quote review$"))
    nav.click()
    _settle(page)
    servers = page.get_by_role("spinbutton", name="Servers quoted")
    servers.fill("32")
    servers.press("Enter")
    _settle(page)
    main = page.get_by_test_id("stMainBlockContainer")
    main.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(MESSY))
    _settle(page)
    page.get_by_text("256 GPUs in 32 servers", exact=False).first.wait_for(timeout=30_000)
    page.get_by_text("Fewer than 8 back-end NICs per server", exact=False).first.wait_for(timeout=30_000)
    assert page.get_by_test_id("stException").count() == 0
    page.screenshot(path=str(UPLOAD_SHOT), full_page=True)


from test_browser import _settle, app_url, page  # noqa: E402, F401  # the app server and Chromium fixtures

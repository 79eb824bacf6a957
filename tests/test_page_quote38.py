"""The Quote review page keeps what the user says and never shows an absurd number (issue 38): the currency read (and
where) or the one picked, the USD rate applied or refused with the reason, the price book by the quote's date or the
one picked, the guard's sentence in place of the headline, racks counted as racks, a rate card shown as one."""

from __future__ import annotations

from pathlib import Path

from conftest import metric as _metric
from conftest import page_path, run_page
from streamlit.testing.v1 import AppTest

from ui import format as fmt

PAGE = page_path("quote_review")
CORPUS = Path(__file__).resolve().parent / "quote_corpus"
QUOTE_TOTAL_KRW = 12_395_392_000


def _upload(name: str) -> AppTest:
    at = run_page(PAGE)
    data = (CORPUS / name).read_bytes()
    mime = "text/csv" if name.endswith(".csv") else "application/octet-stream"
    at.file_uploader(key="quote.upload").set_value((name, data, mime)).run()
    assert not at.exception
    return at


def _warnings(at: AppTest) -> list[str]:
    """The warnings as read (the page escapes Markdown in the quote's own words)."""
    return [w.value.replace("\\", "") for w in at.warning]


def _size(at: AppTest) -> str:
    return next(c.value for c in at.caption if " lines from " in c.value)


def test_a_won_quote_asks_for_the_rate_and_applies_the_one_typed() -> None:
    at = _upload("ko_reseller_h100_32_won_units.xlsx")
    assert any("KRW" in i.value and "USD rate" in i.value for i in at.info)
    assert any(c.value.startswith("Read as KRW: read from") for c in at.caption)
    at.text_input(key="quote.usd_rate.text").input("0.00072").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "KRW at 0.00072 USD (you (--usd-per-unit))" in _size(at)
    assert _metric(at, "Quote total") == fmt.usd(0.00072 * QUOTE_TOTAL_KRW)


def test_a_typed_rate_is_never_dropped_it_is_applied_or_refused() -> None:
    """A $-marked quote: picking KRW brings the rate field, the rate typed is applied; back to the quote's own
    currency (USD) the typed rate stays in view and is refused with the reason, never silently ignored."""
    at = _upload("dell_xe9680_h100_16_base_module.xlsx")
    assert "quote.usd_rate.text" not in [t.key for t in at.text_input]
    at.selectbox(key="quote.currency").set_value("KRW").run()
    at.text_input(key="quote.usd_rate.text").input("0.00072").run()
    assert not at.exception and "KRW at 0.00072 USD" in _size(at)  # applied; and the guard says it looks off
    assert any("the rate of 0.00072 USD per KRW" in w and "looks off" in w for w in _warnings(at))
    at.selectbox(key="quote.currency").set_value("").run()
    assert not at.exception
    assert at.text_input(key="quote.usd_rate.text").value == "0.00072"
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert "in USD" in error and "0.00072" in error and "--currency" in error


def test_the_book_follows_the_date_and_the_selector_overrides_it() -> None:
    at = _upload("reseller_h200_64_2026.csv")
    assert "checked against the 2026-11 book (the book nearest the quote's date 2026-03-02" in _size(at)
    assert "price_above_book" not in [f.value for f in at.markdown if "price_above_book" in f.value]
    at.selectbox(key="quote.book").set_value("2024-10").run()
    assert not at.exception and "checked against the 2024-10 book (you (--book))" in _size(at)


def test_a_reading_that_breaks_a_band_shows_the_sentence_not_a_headline() -> None:
    at = _upload("ko_reseller_b200_16_krw.xlsx")
    at.selectbox(key="quote.currency").set_value("USD").run()
    assert not at.exception
    assert any(e.value.startswith("Headline withheld") for e in at.error)
    assert any("the prices are probably not in USD" in w and "KRW" in w for w in _warnings(at))
    for label in ("Quote total", "Recommended design", "Padding findings", "Design change"):
        assert _metric(at, label) == "withheld"
    assert _metric(at, "Findings") == "0"


def test_rack_scale_racks_and_a_rate_card_on_the_page() -> None:
    at = _upload("nvl72_gb200_4racks_services.csv")
    assert "288 GPUs in 4 NVL72 racks (72 compute trays)" in _size(at)
    assert any("Read from the quote: 4 NVL72 racks" in c.value for c in at.caption)
    card = _upload("broker_rate_card_2026.csv")
    assert any("is a rate card" in w for w in _warnings(card))
    rates = next(df.value for df in card.dataframe if "per_gpu_hour" in df.value.columns)
    assert len(rates) == 10 and rates["reference"].str.contains("h100-sxm").any()

"""Quote review: drop in an OEM quote, see each line classified, the padding flagged and what the design saves.

Every line's reading (class, per-server or total quantity, option, ignore) can be corrected in the Lines table;
the size, findings and comparison follow. Corrections can be kept as the vendor's alias list in the library and
are applied to the next quote from that vendor.
"""

from __future__ import annotations

import json
import logging
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from neoplan.charts.quote import findings_figure, quote_vs_recommended_figure
from neoplan.errors import ScenarioError
from neoplan.inputs.pricebook import BOOK_DATES
from neoplan.library import LibraryError
from neoplan.limits import QUOTE_FILE_MB, size_text
from neoplan.quote import (
    DEFAULT_PRICE_TOLERANCE,
    MAX_QUOTE_BYTES,
    READINGS,
    ParsedQuote,
    QuoteError,
    QuoteReview,
    aliases_from,
    annotated_records,
    apply_recommendations,
    classes,
    default_rules,
    guess_vendor,
    parse_corrections,
    parse_split,
    read_quote,
    review_quote,
    sample_quotes,
    to_csv_bytes,
    to_xlsx_bytes,
)
from neoplan.quote.cells import ISO_CURRENCIES
from ui import format as fmt
from ui.state import get_library, set_scenario
from ui.widgets import NUMBER_ERRORS, draw, lazy_expander, lazy_tabs, number_field

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
SAMPLE_LABELS = {
    "oem_padded_1024_h100.xlsx": "Padded OEM quote, 1,024 H100 (XLSX, several sheets)",
    "clean_1024_h100.csv": "Optimized BoM at price-book prices, 1,024 H100 (CSV)",
    "per_server_messy.csv": "One server, messy reseller export (CSV) × 32 servers",
    "reseller_eur_h200_32.csv": "Whole-server lines from a German reseller, 32 H200, in EUR (semicolon CSV)",
}
APPLIED = "quote.applied"
FILE = "quote.file"  # the uploaded quote (bytes, name), kept by the page: an uploader forgets it when the page is left
UPLOAD_ERROR = "quote.upload_error"
SERVERS, RATE, TOLERANCE = "quote.servers", "quote.usd_rate", "quote.tolerance_pct"  # number_field: text at key.text
OPTION, OPTION_KEPT = "quote.option", "quote.option_kept"
SIZE_FROM, SIZE_FROM_KEPT = "quote.size_from", "quote.size_from_kept"
VENDOR, VENDOR_KEPT = "quote.vendor", "quote.vendor_kept"
CURRENCY, CURRENCY_KEPT = "quote.currency", "quote.currency_kept"
BOOK, BOOK_KEPT = "quote.book", "quote.book_kept"
SPLIT_ERROR = "quote.split_error"
CURRENCY_CODES = sorted(ISO_CURRENCIES)
CORRECTIONS = "quote.corrections"  # the user's corrections of the current quote: {"sheet!row": {field: value}}
EDITOR_GEN = "quote.editor_gen"  # bumped when corrections are taken in: the editor starts from the new reading
SAVED = "quote.saved_aliases"
NO_VENDOR = "(none)"
LIMIT_MB = QUOTE_FILE_MB  # neoplan.limits: the reader's limit, shown and enforced by the uploader


def _samples() -> dict[str, Path]:
    """Shipped sample quotes by file name, the padded one first."""
    paths = {p.name: p for p in sample_quotes()}
    order = [n for n in SAMPLE_LABELS if n in paths] + sorted(n for n in paths if n not in SAMPLE_LABELS)
    return {n: paths[n] for n in order}


def _sample_label(name: str) -> str:
    return SAMPLE_LABELS.get(name, name)


def _fresh() -> None:
    """A new quote starts fresh: servers quoted, the rate, the option, corrections and the vendor are read again."""
    for key in (SERVERS, RATE, OPTION, OPTION_KEPT, SIZE_FROM, SIZE_FROM_KEPT, VENDOR, VENDOR_KEPT, CURRENCY,
                CURRENCY_KEPT, BOOK, BOOK_KEPT, CORRECTIONS, SAVED, SPLIT_ERROR):  # fmt: skip
        st.session_state.pop(key, None)
    for key in (SERVERS, RATE):
        st.session_state.get(NUMBER_ERRORS, {}).pop(key, None)
    st.session_state[EDITOR_GEN] = st.session_state.get(EDITOR_GEN, 0) + 1


def _uploaded() -> None:
    """Keep the page's own copy of a new upload (or drop it when the user removes it from the uploader)."""
    st.session_state.pop(UPLOAD_ERROR, None)
    upload = st.session_state.get("quote.upload")
    _fresh()
    if upload is None:
        st.session_state.pop(FILE, None)
    elif upload.size > MAX_QUOTE_BYTES:
        st.session_state.pop(FILE, None)
        st.session_state[UPLOAD_ERROR] = f"{upload.name} is larger than {size_text(LIMIT_MB)}"
    else:
        st.session_state[FILE] = (upload.getvalue(), upload.name)


def _clear() -> None:
    """Drop the uploaded quote; the sample is reviewed again."""
    st.session_state.pop(FILE, None)
    st.session_state.pop(UPLOAD_ERROR, None)
    _fresh()


def _keep(widget: str, kept: str) -> None:
    """Copy a widget's value to a key of the page's own (widget values are dropped when the page is left)."""
    st.session_state[kept] = st.session_state.get(widget)


@st.cache_data(max_entries=16, show_spinner="Reading the quote…")
def _parse(data: bytes, name: str, currency: str | None = None) -> ParsedQuote:
    """Read a quote (cached on its bytes)."""
    return read_quote(data, name, currency)


@st.cache_data(max_entries=32, show_spinner="Reviewing the quote…")
def _review(
    data: bytes,
    name: str,
    servers: int | None,
    tolerance: float,
    rate: float | None,
    currency: str | None = None,
    option: int | None = None,
    size_from: str | None = None,
    aliases: str = "[]",
    corrections: str = "[]",
    book: str | None = None,
) -> QuoteReview:
    """Read and review a quote (cached on its bytes and the inputs; aliases and corrections as JSON)."""
    return review_quote(
        _parse(data, name, currency),
        servers,
        price_tolerance=tolerance,
        usd_per_unit=rate,
        option=option,
        size_from=size_from,
        aliases=json.loads(aliases),
        corrections=json.loads(corrections),
        book=book,
    )


def _corrections() -> list[dict[str, Any]]:
    """The user's corrections of the current quote, as review_quote reads them."""
    out = []
    for key, fix in st.session_state.get(CORRECTIONS, {}).items():
        sheet, _, row = key.rpartition("!")
        out.append({"sheet": sheet, "row": int(row), **fix})
    return out


def _take_edits(key: str, records: list[dict[str, Any]]) -> None:
    """The Lines editor's changes as corrections (class, per server, option, ignore), then a fresh editor."""
    edits = (st.session_state.get(key) or {}).get("edited_rows", {})
    kept: dict[str, dict[str, Any]] = dict(st.session_state.get(CORRECTIONS, {}))
    for index, changes in edits.items():
        rec = records[int(index)]
        fix = dict(kept.get(rec["key"], {}))
        if "class" in changes:
            fix["category"] = changes["class"] or None
        if "per_server" in changes:
            fix["quantity_basis"] = "per_server" if changes["per_server"] else "total"
        if "option" in changes:
            fix["option"] = changes["option"] or ""
        if "ignore" in changes:
            fix["ignore"] = bool(changes["ignore"])
        if "split" in changes:
            fix["split"] = _split_text(rec["line"], changes["split"])
        kept[rec["key"]] = {k: v for k, v in fix.items() if v is not None}
    st.session_state[CORRECTIONS] = kept
    st.session_state[EDITOR_GEN] = st.session_state.get(EDITOR_GEN, 0) + 1


def _split_text(line: str, text: str | None) -> str | None:
    """A bundle's split as typed (``backend_nic×8, backend_server_link×8``), None when cleared; a bad one is kept out
    with the reason shown next to the table."""
    st.session_state.pop(SPLIT_ERROR, None)
    if not (text or "").strip():
        return None
    try:
        parse_split(text, default_rules(), f"{line}: split")
    except QuoteError as exc:
        st.session_state[SPLIT_ERROR] = str(exc)
        return None
    return str(text).strip()


def _clear_corrections() -> None:
    st.session_state.pop(CORRECTIONS, None)
    st.session_state[EDITOR_GEN] = st.session_state.get(EDITOR_GEN, 0) + 1


def _save_aliases(parsed: ParsedQuote, name_key: str) -> None:
    """Keep the corrections of lines' classes as the vendor's aliases (merged with the vendor's saved list)."""
    vendor = (st.session_state.get(name_key) or "").strip()
    if not vendor:
        st.session_state[SAVED] = ("error", "Give the vendor's name to save its aliases.")
        return
    new = aliases_from(parse_corrections(_corrections(), default_rules()), parsed.lines)
    if not new:
        st.session_state[SAVED] = ("error", "Correct a line's class first: there is nothing to save.")
        return
    library = get_library()
    try:
        old = library.aliases(vendor)
        merged = {a["pattern"]: a for a in old} | {a["pattern"]: a for a in new}
        library.save_aliases(vendor, list(merged.values()))
    except (LibraryError, ScenarioError) as exc:
        st.session_state[SAVED] = ("error", f"Could not save the aliases: {fmt.plain(exc)}")
        return
    st.session_state[VENDOR] = st.session_state[VENDOR_KEPT] = vendor
    st.session_state[SAVED] = (
        "success",
        f"Saved {len(new)} alias(es) for {fmt.plain(vendor)} ({len(merged)} in all): the next quote from this vendor "
        "is read with them.",
    )


def _vendors() -> list[str]:
    try:
        return get_library().alias_vendors()
    except LibraryError:
        return []


def _vendor_aliases(vendor: str | None) -> list[dict[str, str]]:
    if not vendor or vendor == NO_VENDOR:
        return []
    try:
        return get_library().aliases(vendor)
    except LibraryError:
        return []


def _apply(review: QuoteReview) -> None:
    """Replace the app's scenario with the quote's cluster on the recommended BoM (runs before the rerun)."""
    try:
        scenario = apply_recommendations(review)
    except (QuoteError, ScenarioError) as exc:
        st.session_state[APPLIED] = ("error", f"Could not apply the recommendations: {fmt.plain(exc)}")
        return
    set_scenario(scenario, origin=None, source=f"quote {review.name}")
    st.session_state[APPLIED] = (
        "success",
        f"Scenario set to “{fmt.plain(scenario.name)}”: {scenario.cluster.gpus:,} GPUs ({scenario.cluster.gpu_model}) "
        "with the optimized BoM. Every page now shows it; open Overview or Compute node.",
    )


def _editor_records(review: QuoteReview, parsed: ParsedQuote) -> list[dict[str, Any]]:
    """One record per line of the file (every option): its reading, editable (class, per server, option, ignore)."""
    by_row = {(ln.sheet, ln.row): ln for ln in (*review.lines, *review.ignored)}
    fixes = st.session_state.get(CORRECTIONS, {})
    out = []
    for raw in parsed.lines:
        key = f"{raw.sheet}!{raw.row}"
        ln = by_row.get((raw.sheet, raw.row))
        fix = fixes.get(key, {})
        basis = ln.quantity_basis if ln is not None else raw.quantity_basis
        out.append(
            {
                "key": key,
                "line": key if raw.sheet else f"row {raw.row}",
                "class": (ln.component if ln is not None else fix.get("category")) or None,
                "per_server": fix.get("quantity_basis", basis) in ("per_server", "per_parent"),
                "option": fix.get("option", raw.option) or "",
                "ignore": ln.status == "ignored" if ln is not None else bool(fix.get("ignore", raw.optional)),
                "split": fix.get("split") or "",
                "part_number": raw.part_number,
                "description": raw.description,
                "status": ln.status if ln is not None else "another option",
                "confidence": ln.confidence if ln is not None else None,
                "qty": ln.cluster_quantity if ln is not None else None,
                "total_usd": ln.total_usd if ln is not None else None,
                "findings": ", ".join(review.findings_of(ln.id)) if ln is not None else "",
            }
        )
    return out


def _source() -> tuple[bytes, str] | None:
    """The uploaded file's bytes and name (the page's copy), else the chosen sample's."""
    if FILE in st.session_state:
        data, name = st.session_state[FILE]
        return data, name
    name = st.session_state.get("quote.sample")
    samples = _samples()
    if name not in samples:
        return None
    return samples[name].read_bytes(), name


def _typed(key: str) -> bool:
    """True when the user typed a value into the number field ``key`` (it is never dropped unseen)."""
    return bool((st.session_state.get(f"{key}.text") or "").strip())


def _currency_field(parsed: ParsedQuote | None) -> None:
    """The currency of the prices: as the quote says it (and where, in a caption), or the one the user picks."""
    st.selectbox(
        "Currency of the prices",
        ["", *CURRENCY_CODES],
        key=CURRENCY,
        format_func=lambda c: c or "as the quote says",
        on_change=_keep,
        args=(CURRENCY, CURRENCY_KEPT),
        help="Where the quote writes its currency (signs, codes, the units line, the totals) it is read from there; "
        "pick another when the quote says it wrong or not at all (¥ without yuan or yen).",
    )
    if parsed is None:
        st.caption("The quote marks its prices ¥: yuan (CNY) or yen (JPY)? Pick one.")
    elif not st.session_state.get(CURRENCY):
        where = f"read from {parsed.currency_from}" if parsed.currency_from else "nothing in the quote names it"
        st.caption(f"Read as {parsed.currency}: {where}.")


st.title("Quote review")
st.caption(
    "Drop in an OEM or partner quote (CSV or XLSX). Each line is identified by its part number "
    "(data/quote_catalogue.csv) or its description (data/quote_rules.csv); padding is flagged with the reason "
    "(SemiAnalysis, AI Neocloud Playbook, 2024-10-03) and the saving, and the quote is compared with the optimized "
    "design at the same size."
)

inputs, notes = st.columns([3, 2], gap="large")
with inputs:
    st.file_uploader(
        "Upload a quote",
        type=["csv", "xlsx"],
        key="quote.upload",
        on_change=_uploaded,
        max_upload_size=LIMIT_MB,  # [MB]; server.maxUploadSize is the largest uploader's limit
        help=f"CSV or XLSX, at most {size_text(LIMIT_MB)}. US ($1,234.00) and European (1.234,00 €) number formats; "
        "a quote in another currency asks for its USD rate.",
    )
    if UPLOAD_ERROR in st.session_state:
        st.error(f"Could not read the quote: {fmt.plain(st.session_state[UPLOAD_ERROR])}")
    if FILE in st.session_state:
        kept, clear = st.columns([4, 1], vertical_alignment="center")
        kept.text(f"Reviewing {st.session_state[FILE][1]}")
        clear.button("Clear", key="quote.clear", on_click=_clear, help="Drop the uploaded quote.")
    samples = _samples()
    st.selectbox(
        "…or review a sample quote",
        list(samples),
        format_func=_sample_label,
        key="quote.sample",
        on_change=_fresh,
        help="Synthetic quotes shipped in data/quotes/ (made up for demos). An uploaded file takes precedence.",
    )
with notes:
    servers_in = number_field(
        "Servers quoted",
        SERVERS,
        lo=1,
        hi=100_000,
        integer=True,
        optional=True,
        kept=False,  # the quote itself lives in this session only
        placeholder="as the quote says",
        help="Empty: read from the quote (the servers it lists, or the count it states, e.g. 'order quantity 32'). "
        "Type N when the quote prices one server and you buy N.",
    )
    tolerance_pct = number_field(
        "Flag unit prices above the price book by more than [%]",
        TOLERANCE,
        default=round(DEFAULT_PRICE_TOLERANCE * 100),
        lo=0,
        hi=500,
        fmt="%.0f",
        kept=False,
    )

source = _source()
if source is None:
    st.stop()
data, name = source
try:
    for widget, kept_key in ((CURRENCY, CURRENCY_KEPT), (BOOK, BOOK_KEPT)):
        if widget not in st.session_state and st.session_state.get(kept_key):
            st.session_state[widget] = st.session_state[kept_key]
    currency = st.session_state.get(CURRENCY) or None
    try:
        parsed: ParsedQuote | None = _parse(data, name, currency)
    except QuoteError as exc:
        if "yuan" not in str(exc):
            raise
        st.error(f"Could not read the quote: {fmt.plain(exc)}")
        parsed = None
    with notes:
        _currency_field(parsed)
        st.selectbox(
            "Price book",
            ["", *BOOK_DATES],
            key=BOOK,
            format_func=lambda d: d or "as the quote's date",
            on_change=_keep,
            args=(BOOK, BOOK_KEPT),
            help="The book the lines are checked against and the design priced by: by default the one nearest the "
            "quote's date (the first that prices its platform when that one does not).",
        )
    if parsed is None:
        st.stop()
    rate: float | None = None
    mixed = len(parsed.currencies) > 1 and not any(r.usd_per_unit(c) for r in parsed.rates for c in parsed.currencies)
    if parsed.currency != "USD" or mixed or _typed(RATE):
        other = parsed.currency if parsed.currency != "USD" else next((c for c in parsed.currencies if c != "USD"), "")
        with notes:
            rate = number_field(
                f"USD per 1 {other or 'unit of the quote'}",
                RATE,
                lo=0.000001,
                hi=1_000_000.0,
                optional=True,
                fmt="%.6g",
                kept=False,
                placeholder="e.g. 1.08",
                help=f"The quote is in {other or parsed.currency}: its prices are converted to USD at this rate (a "
                "rate the quote states is used when you give none). Yours is applied, or refused with the reason.",
            )
        stated = any(r.usd_per_unit(other) for r in parsed.rates) if other else False
        if rate is None and other and not stated:
            st.info(f"The quote is in {other}: give the USD rate (USD per 1 {other}) to review it.")
            st.stop()
    for widget, kept_key in ((OPTION, OPTION_KEPT), (SIZE_FROM, SIZE_FROM_KEPT), (VENDOR, VENDOR_KEPT)):
        if widget not in st.session_state and st.session_state.get(kept_key) is not None:
            st.session_state[widget] = st.session_state[kept_key]
    vendors = _vendors()
    if VENDOR not in st.session_state:  # a saved vendor the quote's title block names
        st.session_state[VENDOR] = guess_vendor(parsed.notes, vendors) if vendors else NO_VENDOR
        if st.session_state[VENDOR] not in vendors:
            st.session_state[VENDOR] = NO_VENDOR
    with notes:
        if vendors:
            st.selectbox(
                "Vendor aliases",
                [NO_VENDOR, *vendors],
                key=VENDOR,
                on_change=_keep,
                args=(VENDOR, VENDOR_KEPT),
                help="The alias list saved for a vendor (Lines → save corrections): its lines are read with it. "
                "Picked from the quote's title when a saved vendor is named there.",
            )
    aliases = _vendor_aliases(st.session_state.get(VENDOR))
    options = parsed.options
    if options:
        if st.session_state.get(OPTION) not in range(1, len(options) + 1):
            st.session_state[OPTION] = 1
        with inputs:
            st.radio(
                "Alternative to review",
                list(range(1, len(options) + 1)),
                format_func=lambda k: options[k - 1],
                key=OPTION,
                horizontal=True,
                on_change=_keep,
                args=(OPTION, OPTION_KEPT),
                help="The quote offers alternatives (Option A/B, 'select one'): each is reviewed on its own, never "
                "summed.",
            )
    review = _review(
        data,
        name,
        int(servers_in) if servers_in else None,
        tolerance_pct / 100,
        rate,
        currency,
        st.session_state.get(OPTION) if options else None,
        st.session_state.get(SIZE_FROM) or None,
        json.dumps(aliases),
        json.dumps(_corrections()),
        st.session_state.get(BOOK) or None,
    )
except QuoteError as exc:
    st.error(f"Could not read the quote: {fmt.plain(exc)}")
    st.stop()
except Exception as exc:  # an upload must never show a traceback; the bug goes to the server log in full
    logging.getLogger("neoplan.quote").exception("internal error reviewing %s", name)
    st.error(f"Could not review the quote: internal error ({type(exc).__name__}); please report it")
    st.stop()

if servers_in is None and review.servers:
    with notes:
        read = f"{review.racks:,} NVL72 racks" if review.racks else f"{review.servers:,} servers"
        st.caption(f"Read from the quote: {read}. Type a number to override it.")
st.subheader(fmt.plain(review.name))
model = f" ({review.gpu_model})" if review.gpu_model else ""
rated = [(code, rate) for code, rate in review.rates.items() if code != "USD"]
money = "".join(f" · {code} at {rate:g} USD ({review.rate_sources.get(code, '')})" for code, rate in rated)
book = f" · checked against the {review.book} book ({review.book_from})" if review.book else ""
st.caption(
    f"{review.size_text}{model}{money}{book} · {len(review.lines)} lines from {len(review.sheets)} table(s): "
    f"{len(review.classified)} classified, {len(review.unsure)} unsure, {len(review.unmatched)} unmatched · "
    f"{sum(review.skipped.values())} rows skipped (titles, subtotals, tax, blanks)"
)
for _fix, why in review.refused:
    st.warning(f"Correction not applied: {fmt.plain(why)}")
if review.rate_card:
    for warning in review.warnings:
        st.warning(fmt.plain(warning))
    st.dataframe(
        pd.DataFrame([r.to_dict() for r in review.rate_card]),
        hide_index=True,
        key="quote.rate_card",
        column_order=["row", "label", "gpu_model", "term", "price", "unit", "per_gpu_hour", "reference"],
        column_config={
            "row": "Row",
            "label": st.column_config.TextColumn("Rate", width="large"),
            "gpu_model": "Platform",
            "term": "Term",
            "price": st.column_config.NumberColumn(f"Price ({review.currency})", format="%.2f"),
            "unit": "Per",
            "per_gpu_hour": st.column_config.NumberColumn("Per GPU-hour", format="%.2f"),
            "reference": st.column_config.TextColumn("The model's rental price", width="large"),
        },
    )
    st.stop()
if review.implausible:
    st.error("Headline withheld: the reading of this quote breaks a band, so no total, saving or comparison is shown.")
    for breach in review.implausible:
        st.warning(fmt.plain(breach.sentence))
c = st.columns(5)
option_text = f" ({fmt.plain(review.option)} only)" if review.option else ""
withheld = "withheld" if review.implausible else None
c[0].metric(
    "Quote total",
    withheld or fmt.usd(review.quote_total_usd),
    help=f"Everything the quote charges{option_text}, for the cluster.",
)
c[1].metric(
    "Recommended design",
    withheld or fmt.usd(review.recommended_total_usd),
    help="The optimized design at the quote's GPU count, over the components the quote prices "
    f"({fmt.usd(review.compared_quote_usd)} of the quote); quote minus design: {fmt.usd(review.saving_usd)}.",
)
padding = review.padding_saving_usd
c[2].metric(
    "Padding findings",
    withheld or fmt.usd(padding),
    delta=fmt.pct(padding / review.quote_total_usd) if review.quote_total_usd > 0 and not withheld else None,
    help="What the padding findings save together (overlaps counted once, never more than the lines they cite "
    "cost): CPUs, memory, DPUs, Spectrum switches, licences, prices over the book.",
)
c[3].metric(
    "Design change",
    withheld or fmt.usd(review.design_change_usd),
    help="What the recommended design changes in the fabric and storage (e.g. a 2:1 back end with DAC leaf-spine "
    "links): the quote minus the design over those categories. Not padding: a different design.",
)
c[4].metric("Findings", fmt.count(len(review.findings)), help="Flagged lines; savings may overlap.")
for conflict in review.conflicts:
    st.warning(fmt.plain(conflict.sentence))
if review.conflicts or review.size_from != "lines":
    keys = [r.key for r in review.readings] or ["lines"]
    labels = {r.key: f"{r.label}: {fmt.count(r.gpus) if r.gpus else '?'} GPUs" for r in review.readings}
    if st.session_state.get(SIZE_FROM) not in keys:
        st.session_state[SIZE_FROM] = review.size_from
    st.selectbox(
        "Size from",
        [k for k in READINGS if k in keys],
        format_func=lambda k: labels.get(k, k),
        key=SIZE_FROM,
        on_change=_keep,
        args=(SIZE_FROM, SIZE_FROM_KEPT),
        help="The readings of the cluster's size disagree: pick the one to size the cluster by.",
    )
if aliases:
    st.caption(f"{len(aliases)} alias(es) of {fmt.plain(st.session_state[VENDOR])} applied.")
for warning in review.warnings:
    st.warning(fmt.plain(warning))

status = st.session_state.pop(APPLIED, None)
if status is not None:
    (st.success if status[0] == "success" else st.error)(status[1])
act, dl1, dl2 = st.columns([2, 1, 1])
act.button(
    "Apply recommendations",
    key="quote.apply",
    type="primary",
    on_click=_apply,
    args=(review,),
    disabled=review.recommended is None,
    help="Make the app's scenario the quote's cluster (GPU count and platform) with the optimized BoM, "
    "generic front end and out-of-band, 2:1 virtual modular switch and no AI Enterprise.",
)
stem = Path(review.name).stem or "quote"
dl1.download_button(
    "⬇ Annotated XLSX",
    partial(to_xlsx_bytes, review),
    file_name=f"{stem}_reviewed.xlsx",
    mime=XLSX,
    key="quote.download_xlsx",
    on_click="ignore",
)
dl2.download_button(
    "⬇ Annotated CSV",
    partial(to_csv_bytes, review),
    file_name=f"{stem}_reviewed.csv",
    mime="text/csv",
    key="quote.download_csv",
    on_click="ignore",
)

st.subheader("Findings")
if review.findings:
    st.caption(
        f"{len(review.findings)} findings adding up to {fmt.usd(review.findings_saving_usd)}. They may overlap (two "
        "can remove the same optics), so the headline saving is the comparison with the design; a negative saving "
        "is what the fix costs. Savings use the quote's prices for what goes and price-book prices for what comes."
    )
    by_finding, by_category = lazy_tabs("quote.findings_tab", ["Saving by finding", "Quote vs design by category"])
    if by_finding.open is not False:  # only the open tab's chart is drawn
        draw(findings_figure(review), key="quote.findings_chart", where=by_finding)
    if by_category.open is not False:
        draw(quote_vs_recommended_figure(review), key="quote.compare_chart", where=by_category)
    cards = st.columns(2, gap="medium")
    for i, f in enumerate(review.findings):
        with cards[i % 2].container(border=True, key=f"quote.finding_{i}"):
            st.markdown(f"**{f.title}** · **{fmt.usd_exact(f.saving_usd)}**  \n`{f.code}` · {fmt.plain(f.where)}")
            st.text(f.detail)  # quote text: shown as text, never as Markdown
            st.caption(f"Why: {f.reason}")
else:
    st.success("No findings: nothing in this quote is padded by the article's rules.")
    draw(quote_vs_recommended_figure(review), key="quote.compare_chart")

comparison = lazy_expander("Quote vs recommended design, component by component", "quote.comparison_open")
if comparison.open:
    with comparison:
        table = pd.DataFrame([r.to_dict() for r in review.comparison])
        if not table.empty:
            st.dataframe(
                table,
                hide_index=True,
                column_config={
                    "quote_quantity": st.column_config.NumberColumn("Quote qty", format="%.0f"),
                    "recommended_quantity": st.column_config.NumberColumn("Design qty", format="%.0f"),
                    "quote_usd": st.column_config.NumberColumn("Quote", format="dollar"),
                    "recommended_usd": st.column_config.NumberColumn("Design", format="dollar"),
                    "saving_usd": st.column_config.NumberColumn("Saving", format="dollar"),
                    "in_scope": st.column_config.CheckboxColumn("Compared"),
                },
            )
        st.caption(
            "Quantities in price-book units (64 GB DIMMs, server-years, …). Compared: components the quote prices "
            "and the model knows; the design's other parts (e.g. storage a quote leaves out) are shown, not counted."
        )

st.subheader("Lines")
st.caption(
    "Each line as the file shows it (sheet!row), its identity, how sure it is, the price-book price per quoted unit "
    "(like for like only) and the findings on it. Correct a misread line in place — its class, whether its "
    "quantity is per server, its option, or ignore it — and the size, findings and comparison follow."
)
records = _editor_records(review, parsed)
editor_key = f"quote.editor.{st.session_state.get(EDITOR_GEN, 0)}"
option_choices = ["", *review.options]
st.data_editor(
    pd.DataFrame(records).drop(columns=["key"]),
    key=editor_key,
    hide_index=True,
    on_change=_take_edits,
    args=(editor_key, records),
    disabled=["line", "part_number", "description", "status", "confidence", "qty", "total_usd", "findings"],
    column_order=[
        "line",
        "class",
        "per_server",
        *(["option"] if review.options else []),
        "ignore",
        "part_number",
        "description",
        "split",
        "status",
        "confidence",
        "qty",
        "total_usd",
        "findings",
    ],
    column_config={
        "line": st.column_config.TextColumn("Sheet!row", width="small"),
        "class": st.column_config.SelectboxColumn("Class", options=classes(default_rules()), width="medium"),
        "per_server": st.column_config.CheckboxColumn("Per server", help="The quantity is per server."),
        "option": st.column_config.SelectboxColumn("Option", options=option_choices),
        "ignore": st.column_config.CheckboxColumn("Ignore", help="Not a line: left out of total, size, findings."),
        "split": st.column_config.TextColumn(
            "Split bundle",
            help="A line that sells several parts as one ('8× 400G adapters with optics'): its parts as class × count "
            "per bundle, e.g. backend_nic×8, backend_server_link×8. Each part is priced on its own.",
        ),
        "part_number": "Part number",
        "description": st.column_config.TextColumn("Description", width="large"),
        "status": "Status",
        "confidence": st.column_config.NumberColumn("Confidence", format="%.2f"),
        "qty": st.column_config.NumberColumn("Qty (order)", format="%.0f"),
        "total_usd": st.column_config.NumberColumn("Total (USD)", format="dollar"),
        "findings": "Findings",
    },
)
if SPLIT_ERROR in st.session_state:
    st.error(f"Split not applied: {fmt.plain(st.session_state[SPLIT_ERROR])}")
fixes = st.session_state.get(CORRECTIONS, {})
if fixes:
    save_name, save_button, clear_button = st.columns([3, 2, 1], vertical_alignment="bottom")
    name_key = "quote.alias_vendor_name"
    if not st.session_state.get(name_key):
        picked = st.session_state.get(VENDOR)
        st.session_state[name_key] = picked if picked and picked != NO_VENDOR else guess_vendor(parsed.notes)
    save_name.text_input("Vendor", key=name_key, help="The vendor whose next quotes are read with these aliases.")
    save_button.button(
        "Save corrections as vendor aliases",
        key="quote.save_aliases",
        on_click=_save_aliases,
        args=(parsed, name_key),
        help="Each corrected line's part number (else its description) → its class, in the scenario library.",
    )
    clear_button.button("Undo corrections", key="quote.clear_corrections", on_click=_clear_corrections)
    st.caption(f"{len(fixes)} line(s) corrected by you.")
saved = st.session_state.pop(SAVED, None)
if saved is not None:
    (st.success if saved[0] == "success" else st.error)(saved[1])
lines = pd.DataFrame(annotated_records(review))
columns: dict[str, str | fmt.ColumnConfig] = {
    "source": "Sheet!row",
    "description": st.column_config.TextColumn("Description", width="large"),
    "component": "Class",
    "status": "Status",
    "confidence": st.column_config.NumberColumn("Confidence", format="%.2f"),
    "cluster_quantity": st.column_config.NumberColumn("Qty (order)", format="%.0f"),
    "unit_price_usd": st.column_config.NumberColumn("Unit price (USD)", format="dollar"),
    "total_usd": st.column_config.NumberColumn("Total (USD)", format="dollar"),
    "book_unit_price_usd": st.column_config.NumberColumn("Book unit price", format="dollar"),
    "price_check": "Price check",
    "findings": "Findings",
    "category": "Category",
    "price_key": "Price key",
    "part_number": "Part number",
    "section": "Section",
}
short = ["source", "part_number", "description", "component", "confidence", "cluster_quantity", "total_usd"]
st.subheader("Unsure lines")
if review.unsure:
    st.caption(
        "The identity of these lines is not sure enough: they count in the quote total but are never priced into a "
        "finding. Check them by hand."
    )
    st.dataframe(
        lines[lines["status"] == "unsure"],
        hide_index=True,
        key="quote.unsure",
        column_order=short,
        column_config=columns,
    )
else:
    st.caption("Every identified line is sure enough to be used.")
st.subheader("Could not price")
if review.withheld:
    st.caption("These findings were withheld: they would break an invariant, so no saving is claimed.")
    for w in review.withheld:
        st.text(f"{w.finding.title} ({w.finding.where}): {w.reason}")
if review.could_not_price:
    st.caption(
        "These lines cost more than 3× or less than ⅓ of the price book's item of the same class: the class is "
        "probably wrong (a bundle, a whole server, a kit), so no saving is claimed. Check the classification."
    )
    order = ["source", "description", "component", "unit_price_usd", "book_unit_price_usd", "note"]
    st.dataframe(
        lines[lines["price_check"] == "could_not_price"],
        hide_index=True,
        key="quote.could_not_price",
        column_order=order,
        column_config={**columns, "note": "Why"},
    )
else:
    st.caption("Every line compared with the price book is within 3× of it.")
st.subheader("Unmatched lines")
if review.unmatched:
    st.caption("Nothing identified these lines: they count in the quote total but not in the comparison.")
    order = ["source", "part_number", "description", "cluster_quantity", "total_usd"]
    st.dataframe(
        lines[lines["status"] == "unmatched"],
        hide_index=True,
        key="quote.unmatched",
        column_order=order,
        column_config=columns,
    )
else:
    st.caption("Every line was identified.")

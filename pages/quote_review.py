"""Quote review: drop in an OEM quote, see each line classified, the padding flagged and what the design saves."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd
import streamlit as st

from neoplan.charts.quote import findings_figure, quote_vs_recommended_figure
from neoplan.quote import (
    DEFAULT_PRICE_TOLERANCE,
    MAX_QUOTE_BYTES,
    QuoteError,
    QuoteReview,
    annotated_records,
    apply_recommendations,
    read_quote,
    review_quote,
    sample_quotes,
    to_csv_bytes,
    to_xlsx_bytes,
)
from neoplan.scenario import ScenarioError
from ui import format as fmt
from ui.state import set_scenario

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
SAMPLE_LABELS = {
    "oem_padded_1024_h100.xlsx": ("Padded OEM quote, 1,024 H100 (XLSX, several sheets)", 1),
    "clean_1024_h100.csv": ("Optimized BoM at price-book prices, 1,024 H100 (CSV)", 1),
    "per_server_messy.csv": ("One server, messy reseller export (CSV) × 32 servers", 32),
}
APPLIED = "quote.applied"


def _samples() -> dict[str, Path]:
    """Shipped sample quotes by file name, the padded one first."""
    paths = {p.name: p for p in sample_quotes()}
    order = [n for n in SAMPLE_LABELS if n in paths] + sorted(n for n in paths if n not in SAMPLE_LABELS)
    return {n: paths[n] for n in order}


def _sample_label(name: str) -> str:
    return SAMPLE_LABELS.get(name, (name, 1))[0]


def _sample_changed() -> None:
    """Set the servers-quoted multiplier that fits the chosen sample."""
    name = st.session_state.get("quote.sample")
    if name in SAMPLE_LABELS:
        st.session_state["quote.servers"] = SAMPLE_LABELS[name][1]


@st.cache_data(max_entries=16, show_spinner="Reading the quote…")
def _review(data: bytes, name: str, servers: int, tolerance: float) -> QuoteReview:
    """Read and review a quote (cached on its bytes and the inputs)."""
    return review_quote(read_quote(data, name), servers, price_tolerance=tolerance)


def _apply(review: QuoteReview) -> None:
    """Replace the app's scenario with the quote's cluster on the recommended BoM (runs before the rerun)."""
    try:
        scenario = apply_recommendations(review)
    except (QuoteError, ScenarioError) as exc:
        st.session_state[APPLIED] = ("error", f"Could not apply the recommendations: {exc}")
        return
    set_scenario(scenario)
    st.session_state[APPLIED] = (
        "success",
        f"Scenario set to “{scenario.name}”: {scenario.cluster.gpus:,} GPUs ({scenario.cluster.gpu_model}) with the "
        "optimized BoM. Every page now shows it; open Overview or Compute node.",
    )


def _source() -> tuple[bytes, str] | None:
    """The uploaded file's bytes and name, else the chosen sample's; None (with st.error) for a bad upload."""
    upload = st.session_state.get("quote.upload")
    if upload is not None:
        if upload.size > MAX_QUOTE_BYTES:
            st.error(f"Could not read the quote: {upload.name} is larger than {MAX_QUOTE_BYTES // 1_000_000} MB")
            return None
        return upload.getvalue(), upload.name
    name = st.session_state.get("quote.sample")
    samples = _samples()
    if name not in samples:
        return None
    return samples[name].read_bytes(), name


st.title("Quote review")
st.caption(
    "Drop in an OEM or partner quote (CSV or XLSX). Each line is classified by the rules in "
    "data/quote_rules.csv; padding is flagged with the reason (SemiAnalysis, AI Neocloud Playbook, 2024-10-03) "
    "and the saving, and the quote is compared with the optimized design at the same size."
)

inputs, notes = st.columns([3, 2], gap="large")
with inputs:
    st.file_uploader(
        "Upload a quote",
        type=["csv", "xlsx"],
        key="quote.upload",
        max_upload_size=MAX_QUOTE_BYTES // 1_000_000,  # [MB]; the server's 1 MB default is for scenario files
        help=f"CSV or XLSX, at most {MAX_QUOTE_BYTES // 1_000_000} MB. US number format ($1,234.00); "
        "European format (1.234,00) is not supported.",
    )
    samples = _samples()
    st.selectbox(
        "…or review a sample quote",
        list(samples),
        format_func=_sample_label,
        key="quote.sample",
        on_change=_sample_changed,
        help="Synthetic quotes shipped in data/quotes/ (made up for demos). An uploaded file takes precedence.",
    )
st.session_state.setdefault("quote.servers", 1)
st.session_state.setdefault("quote.tolerance_pct", round(DEFAULT_PRICE_TOLERANCE * 100))
with notes:
    st.number_input(
        "Servers quoted",
        min_value=1,
        max_value=100_000,
        step=1,
        key="quote.servers",
        help="1 if the quote prices the whole cluster; N if it prices one server and you buy N (every quantity "
        "is multiplied by N).",
    )
    st.number_input(
        "Flag unit prices above the price book by more than [%]",
        min_value=0,
        max_value=500,
        step=5,
        key="quote.tolerance_pct",
    )

source = _source()
if source is None:
    st.stop()
data, name = source
try:
    review = _review(data, name, int(st.session_state["quote.servers"]), st.session_state["quote.tolerance_pct"] / 100)
except QuoteError as exc:
    st.error(f"Could not read the quote: {exc}")
    st.stop()
except Exception as exc:  # an upload must never show a traceback; report the bug instead
    st.error(f"Could not review {name}: internal error ({type(exc).__name__}: {exc}); please report it")
    st.stop()

st.subheader(review.name)
size = f"{review.gpus:,} GPUs in {review.servers:,} servers" if review.gpus and review.servers else "size unknown"
st.caption(
    f"{size} · {len(review.lines)} lines from {len(review.sheets)} table(s): {len(review.classified)} classified, "
    f"{len(review.unmatched)} unmatched · {sum(review.skipped.values())} rows skipped (titles, subtotals, blanks)"
)
c = st.columns(4)
c[0].metric("Quote total", fmt.usd(review.quote_total_usd), help="Everything the quote charges, for the cluster.")
c[1].metric(
    "Recommended design",
    fmt.usd(review.recommended_total_usd),
    help="The optimized design at the quote's GPU count, over the components the quote prices "
    f"({fmt.usd(review.compared_quote_usd)} of the quote).",
)
saving = review.saving_usd
c[2].metric(
    "Saving",
    fmt.usd(saving),
    delta=fmt.pct(saving / review.compared_quote_usd) if saving is not None and review.compared_quote_usd else None,
    help="Compared part of the quote minus the recommended design.",
)
c[3].metric("Findings", fmt.count(len(review.findings)), help="Flagged lines; savings may overlap.")
for warning in review.warnings:
    st.warning(warning)

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
    by_finding, by_category = st.tabs(["Saving by finding", "Quote vs design by category"])
    by_finding.plotly_chart(findings_figure(review), key="quote.findings_chart")
    by_category.plotly_chart(quote_vs_recommended_figure(review), key="quote.compare_chart")
    cards = st.columns(2, gap="medium")
    for i, f in enumerate(review.findings):
        with cards[i % 2].container(border=True, key=f"quote.finding_{i}"):
            lines = f"line{'s' if len(f.lines) > 1 else ''} {', '.join(map(str, f.lines))}"
            st.markdown(f"**{f.title}** · **{fmt.usd_exact(f.saving_usd)}**  \n`{f.code}` · {lines}")
            st.markdown(f.detail)
            st.caption(f"Why: {f.reason}")
else:
    st.success("No findings: nothing in this quote is padded by the article's rules.")
    st.plotly_chart(quote_vs_recommended_figure(review), key="quote.compare_chart")

with st.expander("Quote vs recommended design, component by component"):
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
st.caption("Each line as read, with the rule's class, the price-book price per quoted unit and the findings on it.")
lines = pd.DataFrame(annotated_records(review))
columns = {
    "line": st.column_config.NumberColumn("#", format="%d"),
    "description": st.column_config.TextColumn("Description", width="large"),
    "cluster_quantity": st.column_config.NumberColumn("Qty (cluster)", format="%.0f"),
    "unit_price_usd": st.column_config.NumberColumn("Unit price", format="dollar"),
    "total_usd": st.column_config.NumberColumn("Total (cluster)", format="dollar"),
    "component": "Class",
    "category": "Category",
    "findings": "Findings",
    "book_unit_price_usd": st.column_config.NumberColumn("Book unit price", format="dollar"),
    "price_key": "Price key",
    "part_number": "Part number",
    "section": "Section",
    "source": "Sheet!row",
}
st.dataframe(lines, hide_index=True, key="quote.lines", column_order=list(columns), column_config=columns)
st.subheader("Unmatched lines")
if review.unmatched:
    st.caption("No rule matched these lines: they count in the quote total but not in the comparison.")
    unmatched = lines[lines["classified"] == "no"]
    order = ["line", "part_number", "description", "cluster_quantity", "total_usd", "source"]
    st.dataframe(unmatched, hide_index=True, key="quote.unmatched", column_order=order, column_config=columns)
else:
    st.caption("Every line matched a rule.")

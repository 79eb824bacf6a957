"""Pricing & revenue: the contract book, what it earns over time, and the price the project needs."""

from __future__ import annotations

import hashlib
import math
from typing import Any

import pandas as pd
import streamlit as st

from neoplan import formats, metrics
from neoplan.charts.finance import irr_vs_price_figure, revenue_mix_figure, tco_figure
from neoplan.economics import inference, market, revenue
from neoplan.errors import ScenarioError
from neoplan.inputs.books import COUNTERPARTY_LABELS, KIND_LABELS, book_contracts, contract_books
from neoplan.inputs.loading import scenario_json
from neoplan.inputs.pricebook import CONTRACT_LABELS, assumed, rental_contracts, rental_market
from neoplan.inputs.scenario import Scenario
from neoplan.model import Result
from ui.format import plain
from ui.labels import humanize
from ui.state import WIDGET_PREFIX, evaluate_current, evaluate_scenario, field_errors, get_scenario, update_field
from ui.widgets import field_info, field_input, figure_tabs, lazy_expander, metric_cards

PIN = "pricing.reserved_usd_per_gpu_hour"
PINNED_KEY = WIDGET_PREFIX + PIN + ".pinned"
KPI_KEY = "pricing_kpis"
SELL_LABELS = {"gpu_hours": "GPU-hours (rent GPUs)", "tokens": "Tokens (serve an API)", "mix": "A mix of both"}
SHORT_WORKLOADS = {  # the field shows ~21 characters whole at 1,280 px; the full names are in its help
    "llama70b-chat": "Llama 70B chat",
    "llama405b-long": "Llama 405B, long",
    "llama8b-summarize": "Llama 8B summaries",
    "deepseek-r1-reasoning": "DeepSeek-R1 reasoning",
    "gpt-oss-120b": "gpt-oss-120b",
    "deepseek-r1-8k1k": "DeepSeek-R1 8k→1k",
    "gpt-oss-120b-1k8k": "gpt-oss-120b 1k→8k",
}
SCENARIO_LABELS = {
    "interactive": "Interactive (chat)",  # short enough to show whole in the field at 1,280 px; more in the help
    "server": "Server (MLPerf p99)",
    "offline": "Offline (batch)",
}


def _implied_reserved_price(result: Result | None = None) -> float:
    """Reserved price when not pinned [USD/GPU-h]: what ``result`` charges at go-live if given (the multiple ×
    the headline, after any performance discount of the Operations page), else multiple × headline."""
    if result is not None and result.scenario.pricing.reserved_usd_per_gpu_hour is None:
        prices = result.ops.revenue.reserved_usd_per_gpu_hour
        return float(prices[min(int(result.ops.dates.go_live_month), prices.size - 1)])
    scenario = get_scenario()
    return scenario.pricing.usd_per_gpu_hour * _data_value(scenario, "pricing.reserved_price_multiple")


FROM_DATA = {  # optional fields whose empty value means "from the market data", and the switch's label
    "pricing.reserved_price_multiple": "Contract price of the term (data/rental_contracts.csv)",
    "pricing.price_decline_per_year": "Generation's curve (data/price_curves.csv)",
}


def _data_value(scenario: Scenario, path: str) -> float:
    """What the market data gives ``path`` when it is empty: the contract multiple, or the curve's average decline
    over the first cluster's life [ratio or fraction]; the field's own value when it is set."""
    try:
        if path == "pricing.reserved_price_multiple":
            return market.reserved_multiple(scenario)
        go_live = revenue.dates(scenario.timeline).go_live_month
        return market.scenario_average_decline(scenario, go_live)
    except ScenarioError:  # a platform the market data does not know: the model reports it
        return 0.0


def _shown(path: str, value: float) -> float:
    """A field value as its widget shows it: fractions in percent."""
    fraction = (field_info(path)[0].json_schema_extra or {}).get("unit") == "fraction"  # type: ignore[union-attr]
    return round(100.0 * value, 6) if fraction else round(value, 6)


def _on_from_data(path: str) -> None:
    """The switch: on, the field empties (the market data gives it); off, it starts from the data's value."""
    if st.session_state[WIDGET_PREFIX + path + ".from_data"]:
        update_field(path, None)
    else:
        update_field(path, _data_value(get_scenario(), path))


def data_or_own_input(path: str, label: str, fmt: str) -> None:
    """A switch "from the market data" and the number itself: while the switch is on the field is empty and shows
    what the data gives; off, the number is the scenario's own (see :data:`FROM_DATA`)."""
    scenario, switch = get_scenario(), WIDGET_PREFIX + path + ".from_data"
    own: Any = scenario
    for part in path.split("."):
        own = getattr(own, part)
    st.session_state[switch] = own is None  # always the scenario's state
    st.checkbox(FROM_DATA[path], key=switch, on_change=_on_from_data, args=(path,))
    data = _shown(path, _data_value(scenario, path))
    field_input(path, label, fmt=fmt, disabled=own is None, placeholder=f"{fmt % data} from the data")


def market_table(scenario: Scenario) -> pd.DataFrame:
    """The platform's rows of the rental contracts in the market of the scenario's book date: contract, price, range,
    basis, date and source."""
    key = scenario.cluster.gpu_model
    rows = [
        row
        for (platform, _), row in rental_contracts(rental_market(key, scenario.prices_as_of)).items()
        if platform == key
    ]
    return pd.DataFrame(
        [
            {
                "Contract": CONTRACT_LABELS[r.contract],
                "Term [months]": r.term_months,
                "USD/GPU-h": r.usd_per_gpu_hour,
                "Low": r.low_usd_per_gpu_hour,
                "High": r.high_usd_per_gpu_hour,
                "Basis": r.basis,
                "Date": r.date,
                "Source": r.source,
            }
            for r in rows
        ]
    )


def curve_table(scenario: Scenario) -> pd.DataFrame:
    """The platform generation's rows of data/price_curves.csv."""
    curve = market.curve_of(scenario.cluster.gpu_model, scenario.prices_as_of)
    return pd.DataFrame(
        [
            {
                "Year of age": r.age_year,
                "Calendar year": curve.first_year + r.age_year,
                "Decline": r.decline_per_year,
                "Low": r.low_decline_per_year,
                "High": r.high_decline_per_year,
                "Basis": r.basis,
                "Source": r.source,
            }
            for r in curve.rows
        ]
    )


def _on_pin_toggle() -> None:
    if st.session_state[PINNED_KEY]:  # pinned at the price charged so far: nothing moves until it is edited
        try:
            result: Result | None = evaluate_scenario(get_scenario())
        except ScenarioError:
            result = None
        update_field(PIN, round(_implied_reserved_price(result), 4))
    else:
        update_field(PIN, None)


def reserved_price_input(result: Result | None) -> None:
    """Checkbox "pin reserved price" and the price itself (greyed, showing the derived price, while unpinned)."""
    pinned = get_scenario().pricing.reserved_usd_per_gpu_hour
    st.session_state[PINNED_KEY] = pinned is not None  # follows the scenario (a revert or an upload changes it)
    st.checkbox(
        "Pin reserved price",
        key=PINNED_KEY,
        on_change=_on_pin_toggle,
        help="Fix the reserved contract price instead of deriving it from the headline price.",
    )
    field_input(
        PIN,
        "Reserved price at go-live [USD/GPU-h]",
        disabled=pinned is None,
        placeholder=f"{_implied_reserved_price(result):.2f} (reserved multiple × headline)",
    )


BOOK_KEY = "pricing.book"
SHORTHAND, CUSTOM = "Shorthand: a reserved share and on demand", "Own contracts"
KIND_OPTIONS = list(KIND_LABELS)
COUNTERPARTY_OPTIONS = list(COUNTERPARTY_LABELS)


def _book_choice(scenario: Scenario) -> str:
    """What the book selector shows: the shorthand, the named book the contracts equal, or own contracts."""
    contracts = scenario.pricing.contracts
    if contracts is None:
        return SHORTHAND
    listed = [c.model_dump(mode="json") for c in contracts]
    for name in contract_books():
        if book_contracts(name) == listed:
            return name
    return CUSTOM


def _on_book() -> None:
    choice = st.session_state[BOOK_KEY]
    if choice == SHORTHAND:
        update_field("pricing.contracts", None)
    elif choice != CUSTOM:
        update_field("pricing.contracts", choice)
    elif get_scenario().pricing.contracts is None:  # own contracts start from the shorthand's book
        p = get_scenario().pricing
        own = [{"kind": "reserved", "share": p.reserved_share, "term_months": p.reserved_term_months}]
        if p.utilization > p.reserved_share:
            own.append({"kind": "on_demand", "share": round(p.utilization - p.reserved_share, 6)})
        update_field("pricing.contracts", own)


def book_selector() -> None:
    """Which book the plan sells through: the shorthand, a named book of data/contract_books.csv, or its own."""
    scenario = get_scenario()
    st.session_state[BOOK_KEY] = _book_choice(scenario)
    books = contract_books()
    options = [SHORTHAND, *books, CUSTOM]
    st.selectbox(
        "Contract book",
        options,
        key=BOOK_KEY,
        on_change=_on_book,
        help=field_info("pricing.contracts")[0].description,
    )
    chosen = books.get(st.session_state[BOOK_KEY])
    if chosen:
        st.caption(chosen[0].description)


def _contracts_frame(scenario: Scenario) -> pd.DataFrame:
    """The scenario's contracts as the editor shows them (shares and prepayments in percent)."""
    rows = [
        {
            "Kind": c.kind,
            "Share [%]": round(100 * c.share, 6),
            "Term [months]": c.term_months,
            "Prepaid [%]": round(100 * c.prepayment_share, 6),
            "Counterparty": c.counterparty,
            "Price [USD/GPU-h]": c.usd_per_gpu_hour,
            "Start [months after go-live]": c.start_month,
        }
        for c in scenario.pricing.contracts or ()
    ]
    return pd.DataFrame(rows, columns=list(EDITOR_COLUMNS))


EDITOR_COLUMNS = {
    "Kind": "kind",
    "Share [%]": "share",
    "Term [months]": "term_months",
    "Prepaid [%]": "prepayment_share",
    "Counterparty": "counterparty",
    "Price [USD/GPU-h]": "usd_per_gpu_hour",
    "Start [months after go-live]": "start_month",
}
PERCENT_COLUMNS = ("share", "prepayment_share")


def contracts_from_frame(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The editor's rows as contracts (percent back to fractions; blank cells left to the field defaults)."""
    out = []
    for record in frame.to_dict("records"):
        contract: dict[str, Any] = {}
        for column, field in EDITOR_COLUMNS.items():
            value = record.get(column)
            if value is None or (isinstance(value, float) and math.isnan(value)) or value == "":
                continue
            contract[field] = value / 100 if field in PERCENT_COLUMNS else value
        if contract:
            out.append(contract)
    return out


def contracts_editor() -> None:
    """The contracts themselves, one row each; an edit the model refuses shows why and keeps the last good book."""
    scenario = get_scenario()
    frame = _contracts_frame(scenario)
    version = hashlib.sha256(frame.to_json().encode()).hexdigest()[:12]  # a new book: a fresh editor
    edited = st.data_editor(
        frame,
        key=f"pricing.contracts_editor.{version}",
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_config={
            "Kind": st.column_config.SelectboxColumn(options=KIND_OPTIONS, required=True),
            "Counterparty": st.column_config.SelectboxColumn(options=COUNTERPARTY_OPTIONS),
            "Share [%]": st.column_config.NumberColumn(min_value=0.0, max_value=100.0, required=True),
            "Prepaid [%]": st.column_config.NumberColumn(min_value=0.0, max_value=100.0),
            "Term [months]": st.column_config.NumberColumn(min_value=0, max_value=120, step=1),
            "Price [USD/GPU-h]": st.column_config.NumberColumn(min_value=0.0, max_value=100.0, format="%.2f"),
            "Start [months after go-live]": st.column_config.NumberColumn(min_value=0, max_value=120, step=1),
        },
    )
    rows = contracts_from_frame(edited)
    if rows != contracts_from_frame(frame) and update_field("pricing.contracts", rows):
        st.rerun()
    error = field_errors().get("pricing.contracts")
    if error:
        st.error(plain(humanize(error)))


def book_table(result: Result) -> pd.DataFrame:
    """The book as the model reads it: each contract's share, term, price at go-live and credit, idle hours at spot."""
    return pd.DataFrame(
        [
            {
                "Sold as": "Idle hours at spot" if c["kind"] == "idle_spot" else KIND_LABELS[c["kind"]],
                "Share": formats.pct(c["share"], 0) + (" of idle" if c["kind"] == "idle_spot" else ""),
                "Term": f"{c['term_months']} months" if c["term_months"] else "",
                "Price at go-live": formats.usd_per_gpu_hour(c["usd_per_gpu_hour"])
                + (" (pinned)" if c["pinned"] else ""),
                "Prepaid": formats.pct(c["prepayment_share"], 0) if c["prepayment_share"] else "",
                "Counterparty": "" if c["kind"] == "idle_spot" else COUNTERPARTY_LABELS[c["counterparty"]],
                "Starts": f"month {c['start_month']:g} after go-live" if c["start_month"] else "at go-live",
            }
            for c in result.contract_book()
        ]
    )


def contract_book_note() -> None:
    """The contract book in words, with this scenario's numbers: take-or-pay, on demand, renewals."""
    scenario = get_scenario()
    p = scenario.pricing
    if p.contracts is not None:
        book_note(scenario)
        return
    decline = _data_value(scenario, "pricing.price_decline_per_year")
    path = "a flat" if p.price_decline_per_year is not None else "the generation's curve, on average"
    on_demand = max(p.utilization - p.reserved_share, 0.0)
    billed = p.reserved_share + on_demand
    st.caption(
        f"**Take-or-pay:** {100 * p.reserved_share:.0f} % of the GPU-hours are reserved and paid for from go-live "
        f"whether customers use them or not. **On demand** sells the use above that: {100 * p.utilization:.0f} % "
        f"used − {100 * p.reserved_share:.0f} % reserved = {100 * on_demand:.0f} % of the hours, ramped in over "
        f"{p.ramp_months} months, so {100 * billed:.0f} % of the hours are billed"
        + (" — more than are used: idle reserved GPUs still pay." if p.utilization < p.reserved_share else ".")
        + f" **Renewals:** every {p.reserved_term_months} months reserved contracts re-price to the market then: "
        f"the headline price along the price path ({path} {100 * decline:.1f} % a year) × the reserved multiple "
        f"{_data_value(scenario, 'pricing.reserved_price_multiple'):.3g} (a pinned price holds for the first term "
        f"only). **Idle hours** (and hot spares) sell at spot for {100 * p.spot_share_of_idle:.0f} % of them."
    )


def book_note(scenario: Scenario) -> None:
    """The contract book of ``pricing.contracts`` in words."""
    p = scenario.pricing
    contracts = p.contracts or []
    committed = sum(c.share for c in contracts if c.kind in ("take_or_pay", "reserved"))
    prepaid = [c for c in contracts if c.prepayment_share > 0]
    st.caption(
        f"**Committed:** {100 * committed:.0f} % of the GPU-hours are billed from each contract's start whether "
        "used or not, at its term's price from data/rental_contracts.csv (or its own), renewed at the market then. "
        f"**Utilization** is the sum of the shares, {100 * p.steady_utilization:.0f} %; on-demand and spot "
        f"contracts ramp in over {p.ramp_months} months. **Idle hours** (unsold, hot spares, held-back trays) sell "
        f"at spot for {100 * p.spot_share_of_idle:.0f} % of them."
        + (
            f" **Prepaid:** {len(prepaid)} contract(s) pay part of their first term with the hardware (delivery "
            "month); debt is still sized as a share of capex, so a large prepayment can fund more than the capex."
            if prepaid
            else ""
        )
    )


def token_inputs(result: Result | None) -> None:
    """What is sold: GPU-hours, tokens or a mix; the workload, its latency, token prices and their decline."""
    st.subheader("What is sold")
    field_input("pricing.sell", "Sell", options_labels=SELL_LABELS)
    p = get_scenario().pricing
    if p.sell == "mix":
        field_input("pricing.token_share", "Share served as tokens [% of GPU-hours]")
    loads = inference.workloads()
    field_input(  # short names in the field; each one's full name in the list's help
        "pricing.workload",
        "Workload",
        options=list(loads),
        options_labels={k: SHORT_WORKLOADS.get(k, w.name) for k, w in loads.items()},
    )
    field_input("pricing.serving_scenario", "Latency", options=list(SCENARIO_LABELS), options_labels=SCENARIO_LABELS)
    field_input("pricing.serving_load_factor", "Serving load factor [% of the benchmark rate]")
    ref = inference.list_price(get_scenario())
    field_input(
        "pricing.usd_per_million_tokens.input",
        "Input price [USD per million tokens]",
        fmt="%.3f",
        placeholder=f"{ref.usd_per_million_input:g} (median list price {ref.date})",
    )
    field_input(
        "pricing.usd_per_million_tokens.output",
        "Output price [USD per million tokens]",
        fmt="%.3f",
        placeholder=f"{ref.usd_per_million_output:g} (median list price {ref.date})",
    )
    trend = inference.reference_trend(loads[p.workload].model_key)
    field_input(
        "pricing.token_price_decline_per_year",
        "Token price decline [% per year]",
        placeholder=f"{100 * trend.decline_per_year:.0f} ({trend.key})",
    )
    field_input(
        "pricing.token_demand_share",
        "Demand: share of the model's API market [%]",
        placeholder="no cap (buyers for every token)",
    )
    if result is not None and result.tokens is not None:
        t = result.tokens
        st.caption(
            f"**Price per million output tokens:** ${t.usd_per_million_output:g} + ${t.usd_per_million_input:g} × "
            f"{t.workload.input_tokens:,} ÷ {t.workload.output_tokens:,} input per output tokens = "
            f"{formats.usd_per_million_tokens(t.usd_per_million_tokens)}. Source: {t.price_source}; decline: "
            f"{t.decline_source}."
        )


RENT, SERVE = "Rent GPU-hours", "Serve tokens"
WAY_FIGURES = ("project_irr", "equity_irr", "npv_usd", "payback_months", "min_dscr")


def _column(way: dict[str, float] | None, price: str, breakeven: str) -> list[str]:
    """One way of selling as a table column: its returns (NaN = undefined), its price and break-even at go-live."""
    if way is None:
        return [""] * (len(WAY_FIGURES) + 2)
    return [metrics.text(k, way[k] if way[k] == way[k] else None) for k in WAY_FIGURES] + [price, breakeven]


def sale_comparison(result: Result) -> None:
    """The same cluster rented by the GPU-hour and serving tokens: IRR, NPV and break-even each way."""
    d = result.to_dict()
    ways = result.returns_by_sale()
    st.subheader("Rent GPU-hours or serve tokens — the same cluster")
    t = result.tokens
    serve = ways.get("tokens") if t is not None and t.row is not None else None
    rent_column = _column(
        ways["gpu_hours"],
        formats.usd_per_gpu_hour(result.scenario.pricing.usd_per_gpu_hour),
        metrics.text("breakeven_usd_per_gpu_hour", d["breakeven_usd_per_gpu_hour"]),
    )
    serve_column = _column(
        serve,
        metrics.text("usd_per_million_tokens", d["usd_per_million_tokens"]),
        metrics.text("breakeven_usd_per_million_tokens", d["breakeven_usd_per_million_tokens"]),
    )
    rows = [metrics.METRICS[k].label for k in WAY_FIGURES] + ["Price at go-live", "Break-even at go-live"]
    columns = {RENT: rent_column, SERVE: serve_column}
    st.table(pd.DataFrame(columns, index=rows))
    if t is None or t.row is None:
        st.info(
            f"No published {get_scenario().pricing.serving_scenario} throughput of {get_scenario().pricing.workload} "
            f"on {result.platform.name}: token serving cannot be priced for it (data/inference_throughput.csv)."
        )
        return
    row = t.row
    st.caption(
        f"**{metrics.text('tokens_per_second_per_gpu', d['tokens_per_second_per_gpu'])} per GPU** served on average "
        f"({100 * t.serving_load_factor:.0f} % of the benchmark's {row.output_tokens_per_second_per_gpu:,.0f}) for "
        f"{t.workload.name}, measured {row.interactivity_text()}: {row.benchmark} {row.result_id} "
        f"({row.submitter}, {row.serving_stack}, {row.precision}; confidence {row.confidence}). "
        f"**{metrics.METRICS['cost_usd_per_million_tokens'].label}:** "
        f"{metrics.text('cost_usd_per_million_tokens', d['cost_usd_per_million_tokens'])} "
        f"(= TCO {metrics.text('tco_usd_per_gpu_hour', d['tco_usd_per_gpu_hour'])} ÷ million tokens per GPU-hour)."
    )
    token_assumptions(result)
    for warning in (w for w in result.warnings if w.startswith("pricing.serving_scenario")):
        st.warning(plain(humanize(warning)))


def token_assumptions(result: Result) -> None:
    """What the token revenue assumes, in words with this scenario's numbers."""
    t = result.tokens
    if t is None or t.row is None:
        return
    p, row = result.scenario.pricing, t.row
    speed = row.interactivity_tokens_per_second_per_user
    latency = row.scenario if speed is None else f"{row.scenario}, {speed:,.0f} tokens/s per user at p99"
    derived = "; derived from a sibling platform's ratio, an estimate" if row.basis == "estimate" else ""
    serving = result.to_dict()["serving"]
    per_day = serving["output_tokens_per_day"] / 1e9
    sold = (serving["sold_output_tokens_per_day"] or 0.0) / 1e9
    demand = (
        "no demand cap: every token finds a buyer"
        if t.demand is None or t.demand_share is None
        else f"demand caps it at {100 * t.demand_share:.3g} % of the model's API market of "
        f"{t.demand.output_tokens_per_day / 1e9:,.0f} billion output tokens a day (data/token_demand.csv: "
        f"{t.demand.scope}), {t.demand_output_tokens_per_day / 1e9:,.1f} billion"
    )
    st.caption(
        f"**What the token revenue assumes.** The benchmark's {row.output_tokens_per_second_per_gpu:,.0f} output "
        f"tokens/s per GPU ({latency}{derived}) is the highest steady load that meets its latency limits; a fleet "
        f"sized for its busiest hour serves {100 * t.serving_load_factor:.0f} % of it on average (the serving load "
        f"factor; {assumed('pricing.serving_load_factor'):g} from DeepSeek's published day of serving), and the "
        f"hours go through the same utilization ({100 * p.steady_utilization:.0f} %) and contract book as rented "
        "GPU-hours. "
        f"Every token sells at a chat-speed API's list price, "
        f"{formats.usd_per_million_tokens(t.usd_per_million_tokens)} ({t.workload.input_tokens:,} input tokens per "
        f"{t.workload.output_tokens:,} output: the benchmark's prompt cap, an upper bound), falling "
        f"{100 * t.decline_per_year:.0f} % a year. Serving every sellable GPU-hour needs buyers for about "
        f"{per_day:,.0f} billion output tokens a day; {demand}: the book sells {sold:,.1f} billion a day on average "
        f"({100 * result.token_demand_scale:.3g} % of the token hours find buyers, the rest sell at spot as idle "
        "hours)."
    )


st.title("Pricing & revenue")
st.caption(
    "The headline price of a GPU-hour at go-live and the share of hours sold drive every contract price "
    "(unless you pin the reserved price). Revenue starts at go-live; hot spares earn nothing."
)

result = evaluate_current()  # widget callbacks have already applied this run's edits
if result is not None:
    d = result.to_dict()
    kpis = [
        "breakeven_usd_per_gpu_hour",
        "tco_usd_per_gpu_hour",
        "equity_irr",
        "project_irr",
        "npv_usd",
        "payback_months",
    ]
    metric_cards(
        KPI_KEY,
        [metrics.cards(d, kpis)],
        font_rem=1.5,
        per_row=3,  # six in a row are cut off below ~1,600 px
    )

left, right = st.columns([1, 2.6], gap="large")
with left:
    st.subheader("Headline")
    field_input("pricing.usd_per_gpu_hour", "Headline price [USD/GPU-h]")
    booked = get_scenario().pricing.contracts is not None
    field_input(
        "pricing.utilization",
        "Utilization [% of all GPU-hours used]",
        disabled=booked,
        placeholder=None,
    )
    if booked:
        st.caption(f"Utilization: {formats.pct(get_scenario().pricing.steady_utilization, 0)} from the contract book.")
    st.subheader("Contract book")
    book_selector()
    if booked:
        contracts_editor()
    else:
        field_input("pricing.reserved_share", "Reserved share, take-or-pay [%]")
        data_or_own_input("pricing.reserved_price_multiple", "Reserved price [× headline]", "%.3f")
        reserved_price_input(result)
        field_input("pricing.reserved_term_months", "Reserved term [months]")
    field_input("pricing.spot_share_of_idle", "Idle hours sold at spot [%]")
    field_input("pricing.on_demand_price_multiple", "On-demand price [× headline]")
    data_or_own_input("pricing.price_decline_per_year", "Price decline [% per year, average]", "%.1f")
    field_input("pricing.ramp_months", "On-demand ramp-up [months]")
    field_input("pricing.sla_credit_share", "SLA credits [% of revenue]")
    field_input("pricing.receivable_days", "Receivable days [days after the month]", fmt="%.0f")
    contract_book_note()
    token_inputs(result)

if result is not None:
    with right:
        st.subheader("The book as sold")
        st.dataframe(book_table(result), hide_index=True, width="stretch", key="pricing.book_table")
        sale_comparison(result)
        inputs = scenario_json(result.scenario)
        figures = [
            ("Revenue", revenue_mix_figure, "pricing_revenue_chart"),
            ("IRR against price", irr_vs_price_figure, "pricing_irr_chart"),
            ("TCO", tco_figure, "pricing_tco_chart"),
        ]
        tabs = figure_tabs("pricing.tab", figures, result, inputs=inputs)  # one figure drawn at a time
        if tabs["IRR against price"].open is not False:
            tabs["IRR against price"].caption(
                "Each point re-runs the cash flows at that headline price, everything else unchanged. At the "
                "break-even price project NPV is zero, so the project IRR equals the hurdle rate."
            )
        if tabs["TCO"].open is not False:
            tco = metrics.METRICS["tco_usd_per_gpu_hour"]
            tabs["TCO"].caption(
                f"**{tco.label}** — {tco.definition} The break-even headline price differs from it: prices decline "
                "after go-live, reserved contracts pay their own price, and SLA credits, SG&A and tax come off "
                "revenue; the lines are what a GPU-hour sells for at go-live and on average over the life."
            )
        market_data = lazy_expander(
            "Market data: rental contracts and the price curve of this platform", "pricing.market_open"
        )
        if market_data.open:
            with market_data:
                st.caption(
                    "Prices per contract with the range their sources span (an estimate where no public price "
                    "exists; the Stress test takes those ranges), and the yearly decline of the generation's "
                    "on-demand price by year of age. The go-live date (the price book's date plus the go-live month) "
                    "sets the age."
                )
                st.dataframe(market_table(result.scenario), hide_index=True, width="stretch")
                st.dataframe(curve_table(result.scenario), hide_index=True, width="stretch")
        with st.expander("How this is computed"):
            st.markdown(revenue.__doc__ or "")
            st.markdown(market.__doc__ or "")

"""Stress test: how returns move when prices fall, utilization disappoints, capex overruns or rates rise."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from neoplan import metrics
from neoplan.analysis import stress
from neoplan.charts.stress import cdf_figure, grid_figure, histogram_figure, tornado_figure
from neoplan.errors import ScenarioError
from neoplan.formats import parse_number
from neoplan.frozen import freeze
from neoplan.inputs.loading import scenario_json
from neoplan.model import Result
from ui import format as fmt
from ui.labels import humanize
from ui.state import evaluate_current, get_scenario, page_state, remember_stress_run, save_page_state
from ui.widgets import (
    KEPT,
    chart,
    compact_metrics,
    keep,
    lazy_expander,
    lazy_tabs,
    metric_cards,
    number_text,
    put,
    typed_number,
)

KEY = "stress."
BASES = KEY + "bases"
MC_RESULT = KEY + "mc_result"
MC_INPUTS = KEY + "mc_inputs"
KPI_KEY = "stress_kpis"
SOLVER_KEY = "stress_solvers"
# Monte Carlo settings and their defaults (session-state keys ``stress.<name>``)
SETTINGS: dict[str, Any] = {"rho": 0.0}  # and draws, seed, covenant: typed as text (monte_carlo_section)
# The stress outputs one can pick, named as in neoplan.metrics.
METRIC_CHOICES = {
    key: metrics.METRICS[key].label for key in ("equity_irr", "project_irr", "npv_usd", "payback_months", "min_dscr")
}
DIST_LABELS: dict[stress.Distribution, str] = {
    "triangular": "Triangular (low, base, high)",
    "uniform": "Uniform (low–high)",
    "normal": "Normal (P10 low, P90 high)",
    "lognormal": "Lognormal (P10 low, P90 high)",
    "fixed": "Fixed at base",
}
# display of driver values: (scale to the widget's unit, widget unit label, number format, step)
DISPLAY = {
    "USD/GPU-h": (1.0, "$/GPU-h", "%.2f", 0.05),
    "fraction/year": (100.0, "%/yr", "%.1f", 1.0),
    "fraction": (100.0, "%", "%.1f", 1.0),
    "× design": (1.0, "×", "%.2f", 0.05),
    "USD/kWh": (1.0, "$/kWh", "%.3f", 0.005),
    "ratio": (1.0, "×", "%.2f", 0.05),
    "USD/kW-month": (1.0, "$/kW-mo", "%.0f", 5.0),
    "months": (1.0, "months", "%.1f", 1.0),
    "× preset": (1.0, "×", "%.2f", 0.05),
    "minutes": (1.0, "min", "%.1f", 1.0),
}


def display(unit: str) -> tuple[float, str, str, float]:
    """How a driver unit is shown (scale, label, format, step); a unit not listed shows as it is, 3 decimals."""
    return DISPLAY.get(unit, (1.0, unit, "%.3f", 0.1))


def show_metric(value: float | None, metric: str) -> str:
    """A metric for a table cell or a card: ``12.3 %``, ``$4.21 M``, ``61.2 months``, ``1.35×``."""
    if value is None or not math.isfinite(value):
        return {"payback_months": "never", "min_dscr": "no debt"}.get(metric, fmt.NA)
    if metric.endswith("irr"):
        return fmt.pct(value)
    if metric == "npv_usd":
        return fmt.usd(value)
    if metric == "payback_months":
        return fmt.months(value)
    return fmt.ratio(value).replace("-", "−")


def show_value(value: float, unit: str) -> str:
    """A driver value in its display unit: ``$2.80 /GPU-h``, ``85.0 %``, ``1.30×``."""
    scale, label, number, _ = display(unit)
    return f"{number % (value * scale)} {label}"


def percentile_text(value: float | None) -> str:
    """Where the scenario sits among the draws: ``P51``; n/a without a value."""
    return fmt.NA if value is None else f"P{value:.0f}"


SE_NOTE = (
    "√(p (1 − p) / draws). A percentile's standard error (± SE columns) is half the gap between the draws ranked "
    "n·q ∓ √(n·q·(1 − q)), the order-statistic method."
)


def with_error(probability: float, mc: stress.MonteCarlo) -> str:
    """A probability with its standard error: ``12.3 % ± 0.7 %``."""
    return f"{fmt.pct(probability)} ± {fmt.pct(mc.probability_error(probability))}"


def where_text(where: float | None, probability_of_loss: float) -> str:
    """One sentence: where the scenario's equity IRR sits in the Monte Carlo, and what the loss figure means."""
    if where is None:
        return ""
    lean = (
        "the draws lean to the downside of the scenario"
        if where > 60
        else "the draws lean to the upside of the scenario"
        if where < 40
        else "the draws sit about evenly around the scenario"
    )
    return (
        f"**Where the scenario sits:** its own equity IRR is at **{percentile_text(where)}** of the draws "
        f"({where:.0f} % of draws do worse): {lean}. The probability of loss ({fmt.pct(probability_of_loss)}) "
        "reads against that: the ranges (Drivers, above, each with its reason and source) decide where the "
        "draws fall."
    )


def typed(text: str, *, integer: bool = False) -> tuple[float | int | None, str | None]:
    """(number, None) for what was typed into a text field, or (None, why it is not a number)."""
    try:
        return typed_number(str(text), integer=integer), None
    except ValueError as exc:
        shown = str(text).strip()
        return None, f"{exc}, got “{shown if len(shown) <= 40 else shown[:39] + '…'}”"


def _shown(value: float, unit: str) -> str:
    """A driver value as its text field shows it, in the widget's unit (percent for fractions)."""
    scale, _, number, _ = display(unit)
    return number_text(round(value * scale, 10), number)


def _widget_values(key: str, rng: stress.Range) -> dict[str, Any]:
    """Widget key → value showing ``rng`` of driver ``key``."""
    unit = stress.DRIVERS[key].unit
    return {
        f"{KEY}low.{key}": _shown(rng.low, unit),
        f"{KEY}high.{key}": _shown(rng.high, unit),
        f"{KEY}dist.{key}": rng.distribution,
    }


def _reset_ranges(defaults: Mapping[str, stress.Range]) -> None:
    """Put every driver's widgets back to the default range of the current scenario."""
    for key, rng in defaults.items():
        for widget, value in _widget_values(key, rng).items():
            put(widget, value)


def follow_scenario(base: Mapping[str, float], defaults: Mapping[str, stress.Range]) -> None:
    """Reset the range of each driver whose scenario value changed since its range was set (the defaults sit
    around it); keep every other range as the user left it, across page switches too."""
    seen = page_state().get(BASES, {})  # with the draft: a refresh keeps the ranges the user set
    _reset_ranges({k: rng for k, rng in defaults.items() if seen.get(k) != base[k]})
    if seen != base:
        page_state()[BASES] = dict(base)
        save_page_state()


def range_problem(key: str, low: float | str | None, high: float | str | None, distribution: str) -> str | None:
    """What is wrong with a driver's range as typed (numbers, or the text of the fields), in the widget's units
    (percent for fractions); None if fine."""
    spec = stress.DRIVERS[key]
    scale, label, number, _ = display(spec.unit)
    lo, hi = stress.driver_bounds(key)

    def show(value: float) -> str:
        return f"{number % value} {label}"

    parsed = []
    for name, value in (("low", low), ("high", high)):
        if isinstance(value, str):
            value, why = typed(value)
            if why:
                return f"{spec.label}: {name}: {why}"
        if value is None or not math.isfinite(value) or not lo <= value / scale <= hi:
            got = "nothing" if value is None else show(value)
            return f"{spec.label}: {name} must be between {show(lo * scale)} and {show(hi * scale)}, got {got}"
        parsed.append(value)
    low, high = parsed
    assert low is not None and high is not None
    if low > high:
        return f"{spec.label}: low ({show(low)}) must be ≤ high ({show(high)})"
    if distribution == "lognormal" and low <= 0:
        return f"{spec.label}: a lognormal needs low > 0, got {show(low)}"
    return None


def driver_table(
    base: Mapping[str, float], defaults: Mapping[str, stress.Range], draw: bool = True
) -> tuple[dict[str, stress.Range], str | None]:
    """Low, high and distribution widgets per driver, an ``st.error`` under a driver whose range is wrong;
    returns the ranges in driver units and the first problem (None if every range is fine). With ``draw`` False
    (the drivers' expander is closed) nothing is drawn: the ranges are read from the widgets' kept values."""
    if draw:
        head = st.columns([2.2, 1.4, 1.2, 1.2, 2.0])
        for col, text in zip(head, ("Driver", "Base", "Low", "High", "Monte Carlo distribution"), strict=True):
            col.markdown(f"**{text}**")
    ranges = {}
    problems = []
    for key, spec in stress.DRIVERS.items():
        scale, label, _, _ = display(spec.unit)
        widgets = _widget_values(key, defaults[key])
        for widget, value in widgets.items():
            keep(widget, value)
        if draw:
            row = st.columns([2.2, 1.4, 1.2, 1.2, 2.0], vertical_alignment="center")
            reason = f"{stress.driver_description(key)} Default range: {spec.why} ({spec.source})."
            row[0].markdown(f"{spec.label} [{label}]", help=fmt.plain(reason))  # "$2.80 … $3.50" is no LaTeX
            row[1].markdown(show_value(base[key], spec.unit))
            low = row[2].text_input(f"{spec.label} low", key=f"{KEY}low.{key}", label_visibility="collapsed")
            high = row[3].text_input(f"{spec.label} high", key=f"{KEY}high.{key}", label_visibility="collapsed")
            dist = row[4].selectbox(
                f"{spec.label} distribution",
                list(DIST_LABELS),
                format_func=DIST_LABELS.__getitem__,
                key=f"{KEY}dist.{key}",
                label_visibility="collapsed",
            )
        else:
            low, high, dist = (st.session_state[widget] for widget in widgets)
        problem = range_problem(key, low, high, dist)
        if problem:
            problems.append(problem)
            if draw:
                st.error(fmt.plain(problem))
        else:
            ranges[key] = stress.Range(parse_number(low) / scale, parse_number(high) / scale, dist)
    return ranges, problems[0] if problems else None


def drivers_section(
    base: Mapping[str, float], defaults: Mapping[str, stress.Range]
) -> tuple[dict[str, stress.Range], str | None]:
    """The drivers' expander: a form of every driver's range, drawn only while open (23 rows of fields); closed,
    the ranges are the kept values of its fields. Returns :func:`driver_table`'s ranges and first problem."""
    box = lazy_expander("Drivers: low / high values and Monte Carlo distributions", f"{KEY}drivers_open")
    if not box.open:
        return driver_table(base, defaults, draw=False)
    with box:
        # A form: typing a range reruns nothing; "Apply ranges" recomputes the tornado, grid and Monte Carlo once.
        with st.form(f"{KEY}ranges_form", border=False):
            ranges, problem = driver_table(base, defaults)
            st.form_submit_button(
                "Apply ranges",
                type="primary",
                key=f"{KEY}apply_ranges",
                help="Recompute the tornado, grid and Monte Carlo with the ranges above.",
            )
        st.button(
            "Reset to defaults",
            key=f"{KEY}reset",
            on_click=_reset_ranges,
            args=(defaults,),
            help="Put every range back to its default around the scenario's values.",
        )
        st.markdown(
            "**Why the default ranges are what they are.** They sit evenly around the scenario's values (so a "
            "triangular draw averages the scenario) unless the reason says otherwise; the one-sided delay is on "
            "purpose."
        )
        st.dataframe(range_reasons(defaults), hide_index=True, key="stress_range_reasons")
    return ranges, problem


def range_reasons(defaults: Mapping[str, stress.Range]) -> pd.DataFrame:
    """Each driver's default range with why and source."""
    return pd.DataFrame(
        [
            {
                "Driver": spec.label,
                "Default low": show_value(defaults[key].low, spec.unit),
                "Default high": show_value(defaults[key].high, spec.unit),
                "Why": spec.why,
                "Source": spec.source,
            }
            for key, spec in stress.DRIVERS.items()
        ]
    )


def _ranges_text(ranges: Mapping[str, stress.Range]) -> str:
    return json.dumps({k: vars(r) for k, r in ranges.items()}, sort_keys=True)


# Stress results are cached on the scenario's JSON and the ranges (shared by every session, like evaluate): a
# rerun that changes neither (a metric picked, a chart switched, a page revisited) recomputes nothing.
@st.cache_resource(max_entries=32, show_spinner=False)
def cached_tornado(scenario_text: str, ranges_text: str, _result: Result, _ranges: Mapping[str, stress.Range]) -> Any:
    """``stress.tornado`` of ``_result`` (whose scenario JSON is ``scenario_text``) over ``_ranges``."""
    return freeze(stress.tornado(_result, _ranges))


@st.cache_resource(max_entries=32, show_spinner=False)
def cached_grid(
    scenario_text: str,
    ranges_text: str,
    x: str,
    y: str,
    points: int,
    _result: Result,
    _ranges: Mapping[str, stress.Range],
) -> stress.Grid:
    """``stress.grid`` of ``_result`` over drivers ``x`` × ``y`` (raises ScenarioError like it)."""
    return freeze(stress.grid(_result, x, y, points=points, ranges=_ranges))


@st.cache_resource(max_entries=32, show_spinner=False)
def cached_solvers(scenario_text: str, target_irr: float, covenant: float, _result: Result) -> tuple[Any, Any, Any]:
    """The price, utilization and debt-share solutions (raises ScenarioError like the solvers)."""
    return freeze(
        (
            stress.price_for_equity_irr(_result, target_irr),
            stress.utilization_for_zero_npv(_result),
            stress.max_debt_share_for_dscr(_result, covenant),
        )
    )


def kpi_cards(kpis: dict[str, Any]) -> None:
    """The scenario's own returns, for reference above the stress results."""
    keys = ("equity_irr", "project_irr", "npv_usd", "payback_months", "min_dscr", "breakeven_usd_per_gpu_hour")
    cards = [metrics.card(key, kpis[key], short=True) for key in keys]  # "never", "no debt" where undefined
    metric_cards(
        KPI_KEY,
        [
            [
                (label, show_metric(kpis[key], key) if key in stress.METRICS else value, help_text)
                for key, (label, value, help_text) in zip(keys, cards, strict=True)
            ]
        ],
        font_rem=1.4,
        per_row=3,
    )


def tornado_section(result: Any, ranges: dict[str, stress.Range]) -> None:
    """Tornado of one driver at a time, with the metric chosen and a table of the values."""
    keep(f"{KEY}tornado_metric", "equity_irr")
    metric = st.radio(
        "Tornado metric",
        ["equity_irr", "npv_usd", "payback_months", "project_irr", "min_dscr"],
        format_func=METRIC_CHOICES.get,
        horizontal=True,
        key=f"{KEY}tornado_metric",
    )
    torn = cached_tornado(scenario_json(result.scenario), _ranges_text(ranges), result, ranges)
    chart(
        tornado_figure,
        torn,
        metric,
        inputs=scenario_json(result.scenario) + _ranges_text(ranges) + metric,
        key="stress_tornado_chart",
    )
    st.caption(
        "Each bar moves one driver to its low (orange) or high (green) value with every other driver at "
        "the scenario's value; the longest bars matter most. The vertical line is the scenario itself."
    )
    table = lazy_expander("Tornado table", f"{KEY}tornado_table_open")
    if not table.open:
        return
    with table:
        rows = [
            {
                "Driver": r["label"],
                "Low": show_value(r["low_value"], stress.DRIVERS[r["driver"]].unit),
                "High": show_value(r["high_value"], stress.DRIVERS[r["driver"]].unit),
                f"{METRIC_CHOICES[metric]} at low": show_metric(r["metric_at_low"], metric),
                f"{METRIC_CHOICES[metric]} at high": show_metric(r["metric_at_high"], metric),
            }
            for r in torn.records(metric)
        ]
        st.dataframe(pd.DataFrame(rows), hide_index=True, key="stress_tornado_table")


def grid_section(result: Any, ranges: dict[str, stress.Range]) -> None:
    """Heat map of a metric over two drivers with the break-even line."""
    keys = list(stress.DRIVERS)
    for name, default in (
        ("grid_x", "usd_per_gpu_hour"),
        ("grid_y", "utilization"),
        ("grid_metric", "equity_irr"),
        ("grid_points", 21),
    ):
        keep(KEY + name, default)
    c = st.columns([1.3, 1.3, 1.3, 1])
    x = c[0].selectbox("Across (x)", keys, key=f"{KEY}grid_x", format_func=lambda k: stress.DRIVERS[k].label)
    y = c[1].selectbox("Down (y)", keys, key=f"{KEY}grid_y", format_func=lambda k: stress.DRIVERS[k].label)
    metric = c[2].radio(
        "Grid metric",
        ["equity_irr", "npv_usd"],
        format_func=METRIC_CHOICES.get,
        horizontal=True,
        key=f"{KEY}grid_metric",
    )
    points = c[3].slider("Points per axis", 5, 41, step=2, key=f"{KEY}grid_points")
    try:
        two_way = cached_grid(scenario_json(result.scenario), _ranges_text(ranges), x, y, points, result, ranges)
    except ScenarioError as exc:
        st.error(f"Grid not drawn: {fmt.plain(humanize(str(exc)))}")
        return
    inputs = json.dumps([scenario_json(result.scenario), _ranges_text(ranges), x, y, points, metric])
    chart(grid_figure, two_way, metric, inputs=inputs, key="stress_grid_chart")
    st.caption(
        "Each cell re-runs the cash flows with the two drivers at those values over their ranges (set "
        "above); the dashed line is the break-even where project NPV at the hurdle rate is zero, the cross "
        "the scenario itself."
    )


def monte_carlo_section(result: Any, ranges: dict[str, stress.Range]) -> float:
    """Monte Carlo settings, run (cached per inputs) and results; returns the DSCR covenant chosen."""
    covenant_default = stress.covenant_of(result.scenario)
    texts = {"draws": f"{stress.DEFAULT_DRAWS:,}", "seed": "0", "covenant": f"{covenant_default:.2f}"}
    for name, value in {**SETTINGS, **texts}.items():
        keep(KEY + name, value)
    form = st.form(f"{KEY}mc_form", border=False)  # settings apply together, on "Run", not on every keystroke
    c = form.columns(4)
    draws_text = c[0].text_input(
        "Draws",
        key=f"{KEY}draws",
        help=f"Joint draws of all drivers ({stress.MIN_DRAWS:,} to {stress.MAX_DRAWS:,}).",
    )
    seed_text = c[1].text_input(
        "Seed", key=f"{KEY}seed", help="Random seed: the same seed and inputs give the same result."
    )
    rho = c[2].slider(
        "Price–utilization correlation",
        -1.0,
        1.0,
        step=0.05,
        key=f"{KEY}rho",
        help="Rank correlation of the price and utilization draws (0 = independent). Negative: "
        "when prices are high, fewer hours sell.",
    )
    covenant_text = c[3].text_input(
        "DSCR covenant [×]",
        key=f"{KEY}covenant",
        help="Minimum yearly DSCR the lender requires; used for the breach probability and the debt solver below.",
    )
    form.form_submit_button("Run Monte Carlo", key=f"{KEY}run_mc", help="Run the draws with these settings.")
    fields = {
        "draws": typed(draws_text, integer=True),
        "seed": typed(seed_text, integer=True),
        "covenant": typed(covenant_text),
    }
    bad = [f"{name}: {why}" for name, (_, why) in fields.items() if why]
    values = [v for v, _ in fields.values()]
    if bad or None in values:  # nothing typed is guessed at
        st.error(f"Monte Carlo not run: {fmt.plain('; '.join(bad))}")
        return covenant_default if fields["covenant"][0] is None else float(fields["covenant"][0])
    draws, seed, covenant = (float(v) for v in values if v is not None)
    inputs = json.dumps(
        [scenario_json(result.scenario), _ranges_text(ranges), draws, seed, rho, covenant], sort_keys=True, default=str
    )
    if st.session_state.get(MC_INPUTS) != inputs:
        bar = st.progress(0.0, text="Running the Monte Carlo …")

        def show_progress(done: int, total: int) -> None:
            bar.progress(done / total, text=f"Running the Monte Carlo: {done:,} of {total:,} draws")

        try:
            mc = stress.monte_carlo(
                result,
                ranges,
                draws=int(draws),
                seed=int(seed),
                correlation=float(rho),
                covenant_dscr=float(covenant),
                progress=show_progress,
            )
        except ScenarioError as exc:
            bar.empty()
            st.session_state.pop(MC_RESULT, None)
            st.session_state.pop(MC_INPUTS, None)
            st.error(f"Monte Carlo not run: {fmt.plain(humanize(str(exc)))}")
            return float(covenant)
        bar.empty()
        st.session_state[MC_RESULT], st.session_state[MC_INPUTS] = mc, inputs
    mc = st.session_state[MC_RESULT]
    p = st.columns(3)
    p[0].metric(
        "Probability of loss",
        with_error(mc.probability_of_loss, mc),
        border=True,
        help="Share of draws in which equity gets back less cash than it put in (equity MOIC < 1). "
        f"± its standard error, {SE_NOTE}",
    )
    p[1].metric(
        "Probability NPV < 0",
        with_error(mc.probability_npv_negative, mc),
        border=True,
        help=f"Share of draws in which the project misses the hurdle rate. ± its standard error, {SE_NOTE}",
    )
    p[2].metric(
        f"Min DSCR < {mc.covenant_dscr:.2f}×",
        with_error(mc.probability_dscr_breach, mc),
        border=True,
        help="Share of draws whose minimum yearly DSCR falls below the covenant (the scenario's "
        f"financing.covenant_dscr unless changed here). ± its standard error, {SE_NOTE}",
    )
    events = mc.probabilities()
    e = st.columns(3)
    for col, key, label, text in (
        (
            e[0],
            "probability_covenant_breach",
            "Covenant breach",
            "Share of draws in which a quarterly test of the trailing 12 months' DSCR falls below the scenario's "
            "covenant: distributions lock up and all surplus sweeps into the senior loan.",
        ),
        (
            e[1],
            "probability_lockup",
            "Lock-up",
            "Share of draws whose distributions are locked up at least one month (a test below the lock-up DSCR).",
        ),
        (
            e[2],
            "probability_payment_default",
            "Payment default",
            "Share of draws in which CFADS, the cash held and the debt service reserve cannot pay the debt service "
            "due in some month.",
        ),
    ):
        if key in events:
            col.metric(label, with_error(events[key], mc), border=True, help=f"{text} ± its standard error, {SE_NOTE}")
    st.caption(
        "Every draw meets the debt fixed at close (sizes, installments, fixed rates, the reserve) through the cash "
        "waterfall; the debt share is held at close (a structuring question: the grid and the debt solver vary it)."
    )
    table = pd.DataFrame(
        [
            {
                "Metric": METRIC_CHOICES[m],
                **{k.upper(): show_metric(v, m) for k, v in mc.percentiles(m).items()},
                **{f"± SE {k.upper()}": show_metric(v, m) for k, v in mc.percentile_errors(m).items()},
                "Scenario": show_metric(mc.deterministic.get(m), m),
                "Scenario sits at": percentile_text(mc.base_percentile(m)),
            }
            for m in METRIC_CHOICES
        ]
    )
    st.dataframe(table, hide_index=True, key="stress_mc_table")
    where = mc.base_percentile("equity_irr")
    st.markdown(where_text(where, mc.probability_of_loss))
    measured = mc.measured_correlation
    drawn = f" (drawn: {measured:.3f})" if mc.correlation and measured is not None else ""
    st.caption(
        f"{mc.draws:,} draws, seed {mc.seed}, price–utilization rank correlation {mc.correlation:g}{drawn}. P10 is "
        "the 10th percentile: nine draws in ten do better on IRR and NPV. “Scenario sits at P51” means 51 % of "
        "the draws come out below the scenario's own value. Payback “never” and DSCR “no debt” mean that "
        f"percentile falls on draws that never pay back or carry no debt. {mc.share_undefined('equity_irr'):.1%} "
        "of draws have no equity IRR."
    )
    keep(f"{KEY}mc_metric", "equity_irr")
    metric = st.radio(
        "Distribution of", list(METRIC_CHOICES), format_func=METRIC_CHOICES.get, horizontal=True, key=f"{KEY}mc_metric"
    )
    left, right = st.columns(2)
    mc_inputs = st.session_state[MC_INPUTS] + metric
    chart(histogram_figure, mc, metric, inputs=mc_inputs, key="stress_hist_chart", where=left)
    chart(cdf_figure, mc, metric, inputs=mc_inputs, key="stress_cdf_chart", where=right)
    return float(covenant)


def covenant_typed(result: Result) -> float:
    """The DSCR covenant typed in the Monte Carlo settings (kept while its tab is closed), else the scenario's."""
    text = st.session_state.get(f"{KEY}covenant", page_state().get(KEPT, {}).get(f"{KEY}covenant"))
    value = None if text is None else typed(str(text))[0]
    return stress.covenant_of(result.scenario) if value is None or value <= 0 else float(value)


def solver_section(result: Any, covenant: float) -> None:
    """The three break-even solvers, every other driver at the scenario's value."""
    st.caption(
        "Each solver moves one driver with every other driver at the scenario's value: the rental price "
        "that earns the target equity IRR, the utilization at which NPV is zero, and the largest debt share "
        f"whose minimum yearly DSCR meets the {covenant:.2f}× covenant set in the Monte Carlo."
    )
    keep(f"{KEY}target_irr", f"{stress.DEFAULT_TARGET_EQUITY_IRR * 100:.1f}")
    typed_target = st.columns(3)[0].text_input("Target equity IRR [%]", key=f"{KEY}target_irr")
    target, bad_target = typed(typed_target)
    if bad_target or target is None:
        st.error(f"Solvers not run: target equity IRR: {fmt.plain(bad_target)}")
        return
    scenario = result.scenario
    try:
        price, util, debt = cached_solvers(scenario_json(scenario), target / 100, covenant, result)
    except ScenarioError as exc:
        st.error(f"Solvers not run: {fmt.plain(humanize(str(exc)))}")
        return
    compact_metrics(SOLVER_KEY, 1.5)
    with st.container(key=SOLVER_KEY):
        c = st.columns(3)
        c[0].metric(
            f"Price for {target:.1f} % equity IRR",
            fmt.usd_per_gpu_hour(price.value),
            border=True,
            help=fmt.plain(price.message),
            delta_color="inverse",
            delta=None
            if price.value is None
            else f"{price.value - scenario.pricing.usd_per_gpu_hour:+.2f} $/GPU-h vs scenario",
        )
        c[1].metric(
            "Utilization for NPV = 0",
            fmt.pct(util.value),
            border=True,
            help=fmt.plain(util.message),
            delta_color="inverse",
            delta=None
            if util.value is None
            else f"{(util.value - scenario.pricing.steady_utilization) * 100:+.1f} points vs scenario",
        )
        c[2].metric(
            "Max debt share",
            fmt.pct(debt.value),
            border=True,
            help=fmt.plain(debt.message),
            delta=None
            if debt.value is None
            else f"{(debt.value - scenario.financing.debt_share) * 100:+.1f} points vs scenario",
        )
    for solution in (price, util, debt):
        if solution.value is None or solution.achieved is None:
            st.caption(f"⚠ {fmt.plain(solution.message)}")


def _run_settings(result: Result) -> dict[str, Any]:
    """Draws, seed, correlation and covenant of the Monte Carlo the page shows (its last run for this scenario),
    else as typed in its settings (kept while its tab is closed) when they are valid, else the defaults."""
    mc = st.session_state.get(MC_RESULT)
    inputs = json.loads(st.session_state.get(MC_INPUTS) or "[null]")  # [scenario JSON, ranges, draws, seed, …]
    if mc is not None and inputs[0] == scenario_json(result.scenario):
        return {"draws": mc.draws, "seed": mc.seed, "correlation": mc.correlation, "covenant_dscr": mc.covenant_dscr}
    kept = page_state().get(KEPT, {})
    typed_values = {
        name: typed(str(st.session_state.get(f"{KEY}{name}", kept.get(f"{KEY}{name}", ""))), integer=True)[0]
        for name in ("draws", "seed")
    }
    out: dict[str, Any] = {"correlation": float(st.session_state.get(f"{KEY}rho", kept.get(f"{KEY}rho", 0.0)))}
    draws, seed = typed_values["draws"], typed_values["seed"]
    if draws is not None and stress.MIN_DRAWS <= draws <= stress.MAX_DRAWS:
        out["draws"] = int(draws)
    if seed is not None and seed >= 0:
        out["seed"] = int(seed)
    covenant = covenant_typed(result)
    if covenant != stress.covenant_of(result.scenario):
        out["covenant_dscr"] = covenant
    return out


def remember_for_export(result: Result, ranges: dict[str, stress.Range]) -> None:
    """Leave the run the page shows for the exports (:func:`ui.state.remember_stress_run`): the driver ranges, the
    Monte Carlo's draws, seed, correlation and covenant, the grid's axes and points and the solvers' target."""
    state = st.session_state
    target = typed(str(state.get(f"{KEY}target_irr", "")))[0]
    target = math.nan if target is None else float(target)
    if not -99 < target < 1000:  # outside what run_all accepts (the solver section says what is wrong): default
        target = stress.DEFAULT_TARGET_EQUITY_IRR * 100
    kept = page_state().get(KEPT, {})
    x, y = (state.get(f"{KEY}grid_{a}", kept.get(f"{KEY}grid_{a}")) for a in ("x", "y"))
    axes = {"grid_x": x, "grid_y": y} if x in stress.DRIVERS and y in stress.DRIVERS and x != y else {}
    settings = stress.Settings(
        ranges=dict(ranges),
        **_run_settings(result),
        **axes,  # the grid refuses one driver twice: then the default axes
        grid_points=int(state.get(f"{KEY}grid_points", kept.get(f"{KEY}grid_points", 21))),
        target_equity_irr=target / 100,
        run="the run on the Stress test page",
    )
    remember_stress_run(settings)


st.title("Stress test")
st.caption(
    "How bad can it get? Move the drivers an investor or lender worries about — rental prices, their "
    "decline, utilization, capex, rates, power and colocation prices, delivery slips, asset life and "
    "residual value — one at a time (tornado), two at a time (grid) or all at once (Monte Carlo)."
)

result = evaluate_current()
if result is None:
    st.stop()
scenario = get_scenario()
base = stress.base_values(result)  # a loan fixed at close: the debt share drawn then
defaults = stress.default_ranges(result)
follow_scenario(base, defaults)

kpi_cards(result.kpis)
ranges, problem = drivers_section(base, defaults)
if problem is None:
    try:
        stress.check_ranges(ranges)
    except ScenarioError as exc:
        problem = str(exc)
if problem:
    st.error(f"Fix the driver ranges first (Drivers, above): {fmt.plain(problem)}")
    st.stop()

# One section at a time: only the open tab runs (the Monte Carlo's draws too) and draws its figures.
tab_tornado, tab_grid, tab_mc, tab_solvers = lazy_tabs(
    f"{KEY}tab", ["Tornado: one at a time", "Grid: two at a time", "Monte Carlo: all at once", "Break-even solvers"]
)
if tab_tornado.open is not False:
    with tab_tornado:
        tornado_section(result, ranges)
if tab_grid.open is not False:
    with tab_grid:
        grid_section(result, ranges)
if tab_mc.open is not False:
    with tab_mc:
        monte_carlo_section(result, ranges)
if tab_solvers.open is not False:
    with tab_solvers:
        solver_section(result, covenant_typed(result))
remember_for_export(result, ranges)
with st.expander("How this is computed"):
    st.markdown(stress.__doc__ or "")

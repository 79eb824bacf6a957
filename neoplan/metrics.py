"""The headline figures of a plan, one entry each: name, unit, format, definition, where it is explained and made.

Every page's metric cards, the CLI summary, the workbook's KPI sheet and the HTML report take a figure's label,
formatted value and help text from :data:`METRICS`, so a figure has one name and one definition everywhere.
``key`` is the figure's dotted key in ``Result.to_dict()`` (``capex_usd.total`` = ``to_dict()["capex_usd"]["total"]``);
``unit`` is the unit of that stored value; ``fmt`` shows it (``neoplan.formats``); ``source`` is the function that
makes it and ``data`` the rows it reads (the manual's map of figures is generated from these: :func:`readme_table`).

Presentation only, like ``neoplan.formats``: the model never imports this module.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from . import formats
from .inputs.categories import CAPEX_LABELS, short_labels

PRICES = "data/prices/*.csv"


@dataclass(frozen=True)
class Metric:
    """One headline figure (see the module docstring for the fields)."""

    key: str
    label: str
    unit: str
    fmt: Callable[[float | None], str]
    definition: str
    page: str
    source: str
    data: str
    short: str = ""
    """A shorter label for a card whose section already names the noun (``Per GPU`` under Capex); else ``label``."""

    def text(self, value: float | None) -> str:
        """``value`` formatted as every page, the CLI and the report show it (``n/a`` when undefined)."""
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return formats.NA
        return self.fmt(value)

    @property
    def labels(self) -> tuple[str, ...]:
        """The names this figure may carry on a card: its label and, if any, its short label."""
        return (self.label, self.short) if self.short else (self.label,)


def per_month(value: float | None) -> str:
    """A rate per month with one decimal: ``8.5 a month``."""
    return formats.NA if value is None or not math.isfinite(value) else f"{value:,.1f} a month"


def month_point(value: float | None) -> str:
    """A point on the month axis counted from the purchase order: ``month 4.4``."""
    return formats.NA if value is None or not math.isfinite(value) else f"month {value:,.1f}"


_NETWORK_SHORT = {key: f"{short} capex" for key, short in short_labels("capex").items()}
"""Short names of the network capex figures on the Network page, whose section already says which network."""
TOKEN_KEYS = (
    "tokens_per_second_per_gpu",
    "cost_usd_per_million_tokens",
    "breakeven_usd_per_million_tokens",
    "usd_per_million_tokens",
)
"""The token-serving figures, in the order the CLI and the pages show them."""
_CASH = "neoplan.finance.engine.Cases.kpis"
_OPS = "data/operations.csv, data/assumptions.csv (operations.*), scenario operations.*"
_FLOWS = f"{PRICES} (capex), data/assumptions.csv (opex, financing, pricing, timeline)"

_METRICS: tuple[Metric, ...] = (
    Metric(
        "gpus",
        "GPUs",
        "count",
        formats.count,
        "GPUs in service, hot spares excluded.",
        "pages/compute_node.py",
        "neoplan.model.Result.gpus",
        "scenario cluster.gpus",
    ),
    Metric(
        "servers",
        "Servers",
        "count",
        formats.count,
        "Compute servers in service: GPUs ÷ GPUs per server, hot spares excluded.",
        "pages/compute_node.py",
        "neoplan.design.node.compute_servers",
        "scenario cluster.gpus, data/gpu_platforms.csv",
    ),
    Metric(
        "spare_servers",
        "Hot-spare servers",
        "count",
        formats.count,
        "Extra servers bought and racked to replace failed ones: hot-spare share × servers, rounded up.",
        "pages/compute_node.py",
        "neoplan.design.node.compute_servers",
        "scenario cluster.hot_spare_share",
    ),
    Metric(
        "node_capex_usd",
        "Node price",
        "USD",
        formats.usd_exact,
        "Price of one compute server: the sum of its bill of materials.",
        "pages/compute_node.py",
        "neoplan.design.node.node_lines",
        f"{PRICES} (compute rows)",
    ),
    Metric(
        "oem_default_node_capex_usd",
        "OEM-default node price",
        "USD",
        formats.usd_exact,
        "Price of the OEM's default server on the same platform and NIC count.",
        "pages/compute_node.py",
        "neoplan.design.node.node_lines",
        f"{PRICES} (compute rows), data/node_presets.yaml",
    ),
    Metric(
        "node_saving_vs_oem_usd",
        "Saving vs OEM default",
        "USD",
        formats.usd_exact,
        "OEM-default node price minus this node price, per server.",
        "pages/compute_node.py",
        "neoplan.model.Result.node_saving_vs_oem_usd",
        f"{PRICES} (compute rows)",
    ),
    Metric(
        "capex_usd.total",
        "Total capex",
        "USD",
        formats.usd,
        "Everything bought up front: servers, networks, storage, management, racks, installation and burn-in.",
        "pages/storage_site.py",
        "neoplan.model.Result.capex_usd",
        PRICES,
    ),
    *(
        Metric(
            f"capex_usd.{c}",
            f"{name} capex",
            "USD",
            formats.usd,
            f"Capex of the {name.lower()} lines of the capex table.",
            "pages/network.py" if c.endswith("_network") else "pages/storage_site.py",
            "neoplan.model.Result.capex_usd",
            f"{PRICES} ({c} lines)",
            short=_NETWORK_SHORT.get(c, ""),
        )
        for c, name in CAPEX_LABELS.items()
    ),
    Metric(
        "capex_per_gpu_usd",
        "Capex per GPU",
        "USD",
        formats.usd_exact,
        "Total capex ÷ GPUs in service.",
        "pages/storage_site.py",
        "neoplan.model.Result.capex_per_gpu_usd",
        PRICES,
        short="Per GPU",
    ),
    Metric(
        "capex_per_server_excl_storage_usd",
        "Capex per server excl. storage",
        "USD",
        formats.usd_exact,
        "Total capex less storage ÷ compute servers in service (the SemiAnalysis calibration figure).",
        "pages/storage_site.py",
        "neoplan.model.Result.capex_per_server_excl_storage_usd",
        PRICES,
        short="Per server excl. storage",
    ),
    Metric(
        "opex_usd_per_year.total",
        "Opex per year (run rate)",
        "USD/year",
        formats.usd,
        "Run-rate opex: the first full operating year after the hardware warranty ends.",
        "pages/storage_site.py",
        "neoplan.model.Result.opex_usd_per_year",
        f"data/assumptions.csv (opex.*, facility.*), {PRICES} (software rows)",
    ),
    Metric(
        "it_power_peak_kw",
        "Power (IT peak)",
        "kW",
        formats.mw,
        "IT load with every server, switch and storage node at maximum power: the power to contract.",
        "pages/storage_site.py",
        "neoplan.design.facility.design_facility",
        "data/gpu_platforms.csv, data/network_catalogue.csv, data/storage_catalogue.csv (power columns)",
        short="IT peak",
    ),
    Metric(
        "racks",
        "Racks",
        "count",
        formats.count,
        "Compute, network, storage and management racks.",
        "pages/storage_site.py",
        "neoplan.design.facility.design_facility",
        "scenario site.rack_power_kw",
    ),
    Metric(
        "it_power_envelope_kw",
        "IT envelope",
        "kW",
        formats.mw,
        "IT load the site can deliver, which a power-first plan fills (facility.it_power_mw); n/a when sized by GPUs.",
        "pages/overview.py",
        "neoplan.design.sizing.size_to_power",
        "scenario facility.it_power_mw",
    ),
    Metric(
        "it_power_left_kw",
        "Envelope left",
        "kW",
        formats.kw,
        "IT envelope the largest design that fits leaves unused: less than one more node with its network, storage "
        "and cooling would need.",
        "pages/overview.py",
        "neoplan.design.sizing.size_to_power",
        "scenario facility.it_power_mw, data/gpu_platforms.csv (node power)",
    ),
    Metric(
        "envelope_fill_share",
        "Envelope used",
        "fraction",
        formats.pct,
        "Peak IT load of the design ÷ the IT envelope.",
        "pages/overview.py",
        "neoplan.design.cluster.Envelope.fill_share",
        "scenario facility.it_power_mw",
    ),
    Metric(
        "revenue_usd_per_mw_year",
        "Revenue per MW-year",
        "USD per MW-year",
        formats.usd,
        "Revenue over the horizon ÷ the years in service ÷ the peak IT load in MW: what a MW of IT power earns a year.",
        "pages/overview.py",
        "neoplan.model.Result.revenue_usd_per_mw_year",
        "scenario pricing.*, data/assumptions.csv (pricing)",
    ),
    Metric(
        "tco_usd_per_gpu_hour",
        "TCO / GPU-h",
        "USD/GPU-h",
        formats.usd_per_gpu_hour,
        "Cost per sold GPU-hour, before tax: present value of capex less the residual plus opex before SG&A, ÷ "
        "present value of sold GPU-hours, both at the hurdle rate.",
        "pages/results.py",
        "neoplan.finance.returns._tco",
        _FLOWS,
    ),
    Metric(
        "sold_usd_per_gpu_hour_at_go_live",
        "Sold at go-live",
        "USD/GPU-h",
        formats.usd_per_gpu_hour,
        "Average price of a GPU-hour sold in the first full month of operation: revenue after SLA credits ÷ billed "
        "GPU-hours, reserved and on-demand together.",
        "pages/pricing.py",
        "neoplan.model.Result.sold_usd_per_gpu_hour_at_go_live",
        _FLOWS,
        short="At go-live",
    ),
    Metric(
        "sold_usd_per_gpu_hour_lifetime",
        "Sold on average",
        "USD/GPU-h",
        formats.usd_per_gpu_hour,
        "Lifetime-average price of a sold GPU-hour, levelised as TCO is: present value of revenue ÷ present value of "
        "sold GPU-hours at the hurdle rate. Below TCO the price path does not recover the cost.",
        "pages/pricing.py",
        "neoplan.model.Result.sold_usd_per_gpu_hour_lifetime",
        _FLOWS,
        short="On average",
    ),
    Metric(
        "breakeven_usd_per_gpu_hour",
        "Break-even price",
        "USD/GPU-h",
        formats.usd_per_gpu_hour,
        "Go-live headline price at which project NPV at the hurdle rate is zero, all else equal.",
        "pages/pricing.py",
        "neoplan.finance.returns.breakeven_price",
        _FLOWS,
        short="Break-even",
    ),
    Metric(
        "tokens_per_second_per_gpu",
        "Tokens per GPU",
        "tokens/s",
        formats.tokens_per_second,
        "Output tokens per second one GPU serves on average for the workload at the serving scenario's latency: the "
        "published rate (MLPerf Inference, InferenceMAX; or derived from a sibling platform's ratio) × the serving "
        "load factor; n/a when nothing is published for the platform and workload.",
        "pages/pricing.py",
        "neoplan.economics.inference.throughput",
        "data/inference_throughput.csv (is_default rows), data/inference_derivations.csv, data/workloads.csv, "
        "data/assumptions.csv (pricing.serving_load_factor)",
        short="Tokens/GPU",
    ),
    Metric(
        "tokens_per_second_per_mw",
        "Tokens per MW",
        "tokens/s per MW",
        formats.tokens_per_second,
        "Output tokens per second the cluster serves at the achieved rate (published × serving load factor) per MW "
        "of peak IT load.",
        "pages/overview.py",
        "neoplan.model.Result.tokens_per_second_per_mw",
        "data/inference_throughput.csv, data/gpu_platforms.csv (node power)",
    ),
    Metric(
        "usd_per_million_tokens",
        "Token price",
        "USD per million tokens",
        formats.usd_per_million_tokens,
        "Go-live price of a million output tokens with their requests' input tokens: output price + input price × "
        "input ÷ output tokens of the workload.",
        "pages/pricing.py",
        "neoplan.economics.inference.blended_usd_per_million",
        "data/token_prices.csv, data/workloads.csv, scenario pricing.usd_per_million_tokens",
    ),
    Metric(
        "cost_usd_per_million_tokens",
        "Cost per million tokens",
        "USD per million tokens",
        formats.usd_per_million_tokens,
        "Levelised cost of a million output tokens (their input tokens included): PV of capex and opex over PV of "
        "the tokens served in the sold GPU-hours, at the hurdle rate; TCO per GPU-hour ÷ million tokens per GPU-hour.",
        "pages/pricing.py",
        "neoplan.model.token_figures",
        f"data/inference_throughput.csv, {_FLOWS}",
        short="Cost /M tokens",
    ),
    Metric(
        "breakeven_usd_per_million_tokens",
        "Token break-even",
        "USD per million tokens",
        formats.usd_per_million_tokens,
        "Go-live token price at which project NPV at the hurdle rate is zero when every sellable GPU-hour serves "
        "tokens, declining at the token price decline, all else equal.",
        "pages/pricing.py",
        "neoplan.model.token_figures",
        f"data/inference_throughput.csv, data/token_price_trends.csv, {_FLOWS}",
    ),
    Metric(
        "npv_usd",
        "NPV",
        "USD",
        formats.usd,
        "Project free cash flow (after project-level tax, before financing) discounted at the hurdle rate.",
        "pages/results.py",
        f"{_CASH} → neoplan.finance.project.npv",
        _FLOWS,
    ),
    Metric(
        "project_irr",
        "Project IRR",
        "fraction/year",
        formats.pct,
        "Annual IRR of the project free cash flow, unlevered and after tax.",
        "pages/results.py",
        f"{_CASH} → neoplan.finance.irr.irr_annual",
        _FLOWS,
    ),
    Metric(
        "equity_irr",
        "Equity IRR",
        "fraction/year",
        formats.pct,
        "Annual IRR of the cash flow to and from equity, after debt service.",
        "pages/financing.py",
        f"{_CASH} → neoplan.finance.irr.irr_annual",
        f"{_FLOWS}, scenario financing.*",
    ),
    Metric(
        "equity_npv_usd",
        "Equity NPV",
        "USD",
        formats.usd,
        "The cash flow to and from equity (after debt service, the reserve and the sweep) discounted at the hurdle "
        "rate: read it beside the equity IRR when equity puts cash in again after distributions.",
        "pages/financing.py",
        f"{_CASH} → neoplan.finance.project.npv",
        f"{_FLOWS}, scenario financing.*",
    ),
    Metric(
        "equity_mirr",
        "Equity MIRR",
        "fraction/year",
        formats.pct,
        "Modified IRR of the equity cash flow: outflows discounted at the loan's all-in rate (the finance rate), "
        "inflows compounded to the horizon at the hurdle rate (reinvestment); one root, whatever the signs.",
        "pages/financing.py",
        f"{_CASH} → neoplan.finance.project.mirr_annual",
        f"{_FLOWS}, scenario financing.*",
    ),
    Metric(
        "payback_months",
        "Payback",
        "months",
        formats.months,
        "Months from the purchase order until cumulative project cash turns positive for good (linear within "
        "the month); n/a = it ends the horizon below zero.",
        "pages/results.py",
        f"{_CASH} → neoplan.finance.project.payback_months",
        _FLOWS,
    ),
    Metric(
        "discounted_payback_months",
        "Discounted payback",
        "months",
        formats.months,
        "Payback of the project cash flows discounted at the hurdle rate; n/a = NPV below zero.",
        "pages/results.py",
        f"{_CASH} → neoplan.finance.project.payback_months",
        _FLOWS,
    ),
    Metric(
        "min_dscr",
        "Min DSCR",
        "ratio",
        formats.ratio,
        "Lowest CFADS (revenue collected − opex − tax on operations, sales left out) ÷ debt service due over "
        "12-month periods from the first repayment month to the last month with debt service; n/a = no debt.",
        "pages/financing.py",
        f"{_CASH} → neoplan.finance.project.min_dscr",
        f"{_FLOWS}, scenario financing.*",
    ),
    Metric(
        "debt_usd",
        "Debt drawn",
        "USD",
        formats.usd,
        "Debt drawn with the capex payments, every tranche: by default the senior loan sculpted to the target DSCR "
        "on the contracted cash flow the forecast carries (at most the maximum debt share of capex); or debt share × "
        "capex; fixed at financial close (the Overview says how much and why).",
        "pages/financing.py",
        "neoplan.finance.debt.build_pieces",
        f"{_FLOWS}, scenario financing.*",
    ),
    Metric(
        "llcr",
        "LLCR",
        "ratio",
        formats.ratio,
        "Loan life cover ratio at the first repayment month: CFADS to the last maturity discounted at the debt's "
        "average rate ÷ debt outstanding then (each period's on the Financing page); n/a = no debt.",
        "pages/financing.py",
        "neoplan.finance.cover.llcr",
        f"{_FLOWS}, scenario financing.*",
    ),
    Metric(
        "covenant_breaches",
        "Covenant breaches",
        "count",
        formats.count,
        "Quarterly tests of the trailing 12 months' DSCR below the covenant DSCR: each locks distributions up and "
        "sweeps all surplus cash into the senior loan until a test meets the covenant again.",
        "pages/financing.py",
        "neoplan.finance.waterfall.run",
        f"{_FLOWS}, scenario financing.covenant_dscr",
    ),
    Metric(
        "lockup_months",
        "Months locked up",
        "months",
        formats.months,
        "Months in which distributions are locked up: a test below the lock-up DSCR holds the cash in the project "
        "until two tests in a row pass.",
        "pages/financing.py",
        "neoplan.finance.waterfall.run",
        f"{_FLOWS}, scenario financing.lockup_dscr",
    ),
    Metric(
        "payment_default_months",
        "Months in default",
        "months",
        formats.months,
        "Months in which CFADS, the cash held and the debt service reserve cannot pay the debt service due; the "
        "model has the sponsor pay it (an equity cure).",
        "pages/financing.py",
        "neoplan.finance.waterfall.run",
        f"{_FLOWS}, scenario financing.*",
    ),
    Metric(
        "sponsor_cure_usd",
        "Sponsor cure",
        "USD",
        formats.usd,
        "Debt service the sponsor paid in months of payment default, over the horizon.",
        "pages/financing.py",
        "neoplan.finance.waterfall.run",
        f"{_FLOWS}, scenario financing.*",
    ),
    Metric(
        "covenant_headroom",
        "Covenant headroom",
        "fraction",
        formats.pct,
        "How far CFADS can fall in the weakest year before its DSCR breaches the covenant: 1 − covenant DSCR "
        "÷ min DSCR; below 0 = in breach; n/a = no debt service, or CFADS ≤ 0 in that year (a breach whatever "
        "the fall).",
        "pages/financing.py",
        "neoplan.model.Result.covenant_headroom",
        f"{_FLOWS}, scenario financing.covenant_dscr",
    ),
    Metric(
        "gross_margin",
        "Gross margin",
        "fraction",
        formats.pct,
        "1 − (power, colocation, hardware support and software) ÷ revenue, over the horizon.",
        "pages/results.py",
        _CASH,
        _FLOWS,
    ),
    Metric(
        "ebitda_margin",
        "EBITDA margin",
        "fraction",
        formats.pct,
        "EBITDA ÷ revenue, over the horizon.",
        "pages/results.py",
        _CASH,
        _FLOWS,
    ),
    Metric(
        "equity_moic",
        "Equity MOIC",
        "ratio",
        formats.ratio,
        "Cash returned to equity ÷ cash put in by equity, over the horizon.",
        "pages/financing.py",
        _CASH,
        f"{_FLOWS}, scenario financing.*",
    ),
    Metric(
        "go_live_month",
        "Go-live",
        "months",
        month_point,
        "Month from the purchase order when the cluster starts earning: after delivery, OEM burn-in, site "
        "installation and on-site burn-in.",
        "pages/financing.py",
        "neoplan.economics.revenue.dates",
        "data/assumptions.csv (timeline.*)",
    ),
    Metric(
        "interruptions_per_month",
        "Interruptions / month",
        "count/month",
        per_month,
        "Job-interrupting failures per month of the whole cluster at steady state: the failure preset's rate "
        "per GPU × GPUs ÷ the MTBF multiple, network failures scaled by the fabric's optics.",
        "pages/operations.py",
        "neoplan.economics.operations.interruptions_by_cause",
        _OPS,
    ),
    Metric(
        "availability",
        "Availability",
        "fraction",
        formats.pct,
        "Share of sellable GPU-hours whose server is up: servers waiting for parts or rebooting and not "
        "covered by a hot spare are down.",
        "pages/operations.py",
        "neoplan.economics.operations.outcome",
        _OPS,
    ),
    Metric(
        "goodput",
        "Goodput",
        "fraction",
        formats.pct,
        "Availability less the job GPU-hours lost to interruptions (detection, half a checkpoint interval, "
        "restore, restart) in the first operating year, early-life failures included.",
        "pages/operations.py",
        "neoplan.economics.operations.operations_report",
        _OPS,
    ),
    Metric(
        "performance_factor",
        "Delivered performance",
        "fraction",
        formats.pct,
        "Training throughput vs the NVIDIA reference design with the full software stack: back-end NICs, "
        "spine oversubscription, rail layout, GPUDirect RDMA, topology.conf, NCCL topology in VMs.",
        "pages/operations.py",
        "neoplan.economics.operations.performance_factor",
        _OPS,
    ),
    Metric(
        "sla_credits_usd_per_year",
        "SLA credits / year",
        "USD/year",
        formats.usd,
        "Revenue given back in the first operating year: unavailability × the SLA credit multiple (or the "
        "fixed share) plus early-life failure losses at the performance elasticity.",
        "pages/operations.py",
        "neoplan.finance.engine.Reliability.credit_share",
        _OPS,
    ),
)

METRICS: Mapping[str, Metric] = {m.key: m for m in _METRICS}
"""Every headline figure by its dotted ``Result.to_dict()`` key, in the order the manual lists them."""

HEADLINE = (
    "capex_usd.total",
    "capex_per_gpu_usd",
    "opex_usd_per_year.total",
    "tco_usd_per_gpu_hour",
    "breakeven_usd_per_gpu_hour",
    "npv_usd",
    "project_irr",
    "equity_irr",
    "payback_months",
    "min_dscr",
    "ebitda_margin",
)
"""The figures of the HTML report's KPI cards, in order."""


def lookup(data: Mapping[str, Any], key: str) -> Any:
    """The value at dotted ``key`` of a ``Result.to_dict()``; ``KeyError`` naming the key if it is absent."""
    value: Any = data
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise KeyError(key)
        value = value[part]
    return value


def text(key: str, value: float | None) -> str:
    """``value`` of the figure ``key`` formatted as everywhere else."""
    return METRICS[key].text(value)


def delta(key: str, value: float | None, reference: float | None) -> str:
    """The change of figure ``key`` from ``reference`` to ``value``: rates in percentage points (``+1.2 pp``), the rest
    in the figure's own format (``−$1.26 M``, ``+0.15×``); empty when either is undefined or nothing changed as shown.
    """
    if value is None or reference is None or not (math.isfinite(value) and math.isfinite(reference)):
        return ""
    m = METRICS[key]
    diff = value - reference
    shown = f"{abs(diff) * 100:,.1f} pp" if m.unit.startswith("fraction") else m.text(abs(diff))
    if not any(ch in "123456789" for ch in shown):
        return ""
    return f"{'+' if diff > 0 else formats.MINUS}{shown}"


Card = tuple[str, str, str]
"""A metric card: (label, formatted value, help text)."""


def card(key: str, value: float | None, note: str = "", *, short: bool = False) -> Card:
    """(label, formatted value, help) of the figure ``key``: help is its definition, then ``note`` if given."""
    m = METRICS[key]
    label = m.short if short and m.short else m.label
    return label, m.text(value), f"{m.definition} {note}".strip()


def cards(data: Mapping[str, Any], keys: list[str] | tuple[str, ...]) -> list[Card]:
    """Cards of ``keys`` with their values read from ``data`` (a ``Result.to_dict()``)."""
    return [card(k, lookup(data, k)) for k in keys]


def readme_table() -> str:
    """The map of figures as a Markdown table, one row per metric: the manual's Metrics page, generated while the site
    builds (``docs/gen_pages.py``)."""
    rows = ["| Figure | Key in `to_dict()` | Unit | Explained on | Made by | Reads |", "|---|---|---|---|---|---|"]
    rows += [f"| {m.label} | `{m.key}` | {m.unit} | `{m.page}` | `{m.source}` | {m.data} |" for m in METRICS.values()]
    return "\n".join(rows)

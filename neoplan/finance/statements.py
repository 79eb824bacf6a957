"""Financial statements of a :class:`~neoplan.model.Result`: the tables the pages draw and the exports write.

- :func:`pnl_by_year`: profit and loss per **project year** [USD].
- :func:`debt_by_month` and :func:`debt_by_year`: the debt schedule [USD]; :func:`cover_by_year`: the lender's
  DSCR per 12-month period of operation [USD, ratio].
- :func:`capex_by_category`: capex per category with its share [USD, fraction].
- :func:`opex_by_year`: opex per category and **operating year** [USD].
- :func:`tco_by_source`: where a sold GPU-hour's cost goes: the TCO components, capital split over the capex
  categories [USD/GPU-h].
- Display labels of their rows and columns: :data:`PNL_LABELS`, :data:`DEBT_LABELS`; the category names
  :data:`CAPEX_LABELS` and :data:`OPEX_LABELS` come from ``data/categories.csv`` (:mod:`neoplan.inputs.categories`).

"Year" (as in :mod:`neoplan.timebase`): a **project year** ``y`` is months 12 (y − 1) … 12 y − 1 counted from the
purchase order (month 0), so construction falls in project year 1; project years are labelled ``Y1`` … ``Yn``
(:func:`year_labels`). An **operating year** ``k`` is the k-th 12 months after go-live (fractional month), labelled
``Year 1`` … (:func:`operating_year_label`); only the opex table counts in operating years.

Money in nominal USD; in the P&L costs are negative, so every column adds up. Rates are fractions.
Pure pandas/numpy: nothing here draws, sizes or prices anything.
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..design.costs import CAPEX_CATEGORIES
from ..economics.opex import OPEX_CATEGORIES
from ..inputs.categories import CAPEX_LABELS, OPEX_LABELS
from ..timebase import MONTHS_PER_YEAR
from . import debt as debt_terms
from . import project as finance
from .engine import COST_OF_REVENUE

if TYPE_CHECKING:
    from ..model import Result

__all__ = [
    "CAPEX_LABELS",
    "COVER_LABELS",
    "DEBT_LABELS",
    "OPERATING_YEAR_NOTE",
    "OPEX_LABELS",
    "PNL_BOLD",
    "PNL_LABELS",
    "PNL_ROWS",
    "PROJECT_YEAR_NOTE",
    "TOTAL",
    "capex_by_category",
    "cover_by_year",
    "debt_by_month",
    "debt_by_year",
    "loan_at_close",
    "operating_year_label",
    "operating_years",
    "opex_by_year",
    "pnl_by_year",
    "tco_by_source",
    "tranches_by_month",
    "year_labels",
    "year_of_month",
]

PNL_ROWS = [
    "revenue_usd",
    "cost_of_revenue_usd",
    "gross_profit_usd",
    "other_opex_usd",
    "ebitda_usd",
    "depreciation_usd",
    "ebit_usd",
    "interest_usd",
    "fees_usd",
    "gain_on_sale_usd",
    "tax_usd",
    "net_income_usd",
    "gross_margin",
    "ebitda_margin",
    "net_margin",
    "project_fcf_usd",
    "equity_fcf_usd",
]
"""Columns of :func:`pnl_by_year`, top to bottom of a P&L."""
PNL_LABELS = {
    "revenue_usd": "Revenue (net of SLA credits)",
    "cost_of_revenue_usd": "Cost of revenue",
    "gross_profit_usd": "Gross profit",
    "other_opex_usd": "Other opex",
    "ebitda_usd": "EBITDA",
    "depreciation_usd": "Depreciation (incl. capitalised IDC)",
    "ebit_usd": "EBIT",
    "interest_usd": "Interest expense (after construction)",
    "fees_usd": "Debt fees",
    "gain_on_sale_usd": "Gain / loss on residual sale",
    "tax_usd": "Tax",
    "net_income_usd": "Net income",
    "gross_margin": "Gross margin",
    "ebitda_margin": "EBITDA margin",
    "net_margin": "Net margin",
    "project_fcf_usd": "Project free cash flow",
    "equity_fcf_usd": "Equity free cash flow",
}
"""Display names of the :data:`PNL_ROWS`."""
PNL_BOLD = ("gross_profit_usd", "ebitda_usd", "ebit_usd", "net_income_usd")
"""Subtotal rows of the P&L, shown in bold."""
DEBT_LABELS = {
    "draws_usd": "Draws",
    "interest_accrued_usd": "Interest accrued",
    "interest_capitalized_usd": "… of which capitalised",
    "interest_paid_usd": "… of which paid",
    "principal_usd": "Principal repaid (installments fixed at close)",
    "cash_sweep_usd": "Cash swept into the senior loan",
    "sweep_usd": "Swept from sale proceeds",
    "payoff_usd": "Payoff at horizon",
    "fee_usd": "Upfront fee",
    "debt_service_usd": "Debt service (interest paid + principal)",
    "cfads_usd": "CFADS (collected revenue − opex − tax on operations)",
    "reserve_funded_usd": "Debt service reserve funded",
    "reserve_draw_usd": "Debt service reserve drawn",
    "reserve_topup_usd": "Debt service reserve refilled",
    "reserve_released_usd": "Debt service reserve released",
    "distributions_usd": "Distributed to equity",
    "sponsor_cure_usd": "Paid by the sponsor (payment default)",
    "lockup_months": "Months locked up",
    "covenant_breaches": "Covenant tests breached",
    "cash_held_usd": "Cash held by a lock-up (at the end)",
    "balance_end_usd": "Balance at year end",
    "balance_usd": "Balance at month end",
}
"""Display names of the columns of :func:`debt_by_year` and :func:`debt_by_month`."""
TOTAL = "Total"
"""Label of the row that sums a table."""
PROJECT_YEAR_NOTE = "Y1 = months 0–11 after the purchase order (construction included)"
"""What a project-year label means, for captions of yearly tables."""
OPERATING_YEAR_NOTE = "year 1 starts at go-live"
"""What an operating-year label means, for captions of the opex table."""


# --- years ----------------------------------------------------------------------------------------
def year_of_month(months: int) -> np.ndarray:
    """Project year of each month of a ``months``-long horizon: 1 for months 0–11, 2 for 12–23, … [int]."""
    return np.arange(months) // MONTHS_PER_YEAR + 1


def year_labels(result: Result) -> list[str]:
    """``Y1`` … ``Yn`` for the project years of the horizon; a short last year says how many months it has."""
    months = result.ops.dates.months
    labels = []
    for year in range(1, (months - 1) // MONTHS_PER_YEAR + 2):
        length = min(MONTHS_PER_YEAR, months - MONTHS_PER_YEAR * (year - 1))
        labels.append(f"Y{year}" if length == MONTHS_PER_YEAR else f"Y{year} ({length} mo)")
    return labels


def operating_years(result: Result) -> list[tuple[int, float]]:
    """Operating years inside the horizon as (year, months of operation in it) [1-based year, months]."""
    dates = result.ops.dates
    months_live = max(dates.months - dates.go_live_month, 0.0)
    years = math.ceil(months_live / MONTHS_PER_YEAR - 1e-9)
    return [(y, min(MONTHS_PER_YEAR, months_live - MONTHS_PER_YEAR * (y - 1))) for y in range(1, years + 1)]


def operating_year_label(year: int, months: float) -> str:
    """``Year 3``, or ``Year 6 (4.5 mo)`` for an operating year the horizon cuts short."""
    return f"Year {year}" if months >= MONTHS_PER_YEAR - 1e-6 else f"Year {year} ({months:.1f} mo)"


# --- profit and loss ------------------------------------------------------------------------------
_PNL: dict[int, pd.DataFrame] = {}
"""pnl_by_year by id of a Result while it lives: a page draws the table and the margin chart from one computation."""


def pnl_by_year(result: Result) -> pd.DataFrame:
    """Profit and loss per project year (rows ``Y1`` … and ``Total``; columns :data:`PNL_ROWS`) [USD]; a fresh copy.

    Costs are negative so each column adds up: revenue + cost of revenue = gross profit;
    gross profit + other opex = EBITDA; EBITDA + D&A = EBIT; EBIT + interest + fees + gain on
    the residual sale + tax = net income. Margins are fractions of revenue (nan without revenue).
    Cost of revenue = power, colocation, hardware support and software opex (as the model's
    gross margin). The ``Total`` row sums the years.
    """
    key = id(result)
    if key not in _PNL:
        _PNL[key] = _pnl_by_year(result)
        weakref.finalize(result, _PNL.pop, key, None)  # forget it with the Result (its id may be reused)
    return _PNL[key].copy()


def _pnl_by_year(result: Result) -> pd.DataFrame:
    m = result.monthly_table()
    m["year"] = year_of_month(len(m))
    cost_cols = [f"opex_{k}_usd" for k in COST_OF_REVENUE if f"opex_{k}_usd" in m]
    m["cost_of_revenue_usd"] = m[cost_cols].sum(axis=1)
    g = m.groupby("year").sum(numeric_only=True)
    g.loc["total"] = g.sum()
    out = pd.DataFrame(index=g.index)
    out["revenue_usd"] = g["revenue_usd"]
    out["cost_of_revenue_usd"] = -g["cost_of_revenue_usd"]
    out["gross_profit_usd"] = g["revenue_usd"] - g["cost_of_revenue_usd"]
    out["other_opex_usd"] = -(g["opex_usd"] - g["cost_of_revenue_usd"])
    out["ebitda_usd"] = g["ebitda_usd"]
    out["depreciation_usd"] = -g["depreciation_usd"]
    out["ebit_usd"] = g["ebit_usd"]
    out["interest_usd"] = -g["interest_usd"]
    out["fees_usd"] = -g["fees_usd"]
    out["tax_usd"] = -g["tax_usd"]
    out["net_income_usd"] = g["net_income_usd"]
    gain = out["net_income_usd"] - (out["ebit_usd"] + out["interest_usd"] + out["fees_usd"] + out["tax_usd"])
    out["gain_on_sale_usd"] = gain.round(2)  # proceeds of the residual sale less book value; float noise dropped
    with np.errstate(divide="ignore", invalid="ignore"):
        revenue = out["revenue_usd"].where(out["revenue_usd"] > 0)
        out["gross_margin"] = out["gross_profit_usd"] / revenue
        out["ebitda_margin"] = out["ebitda_usd"] / revenue
        out["net_margin"] = out["net_income_usd"] / revenue
    out["project_fcf_usd"] = g["project_fcf_usd"]
    out["equity_fcf_usd"] = g["equity_fcf_usd"]
    out = out[PNL_ROWS]
    out.index = [*year_labels(result), TOTAL]
    out.index.name = "year"
    return out


# --- debt -----------------------------------------------------------------------------------------
def debt_by_month(result: Result) -> pd.DataFrame:
    """Monthly debt schedule and cash waterfall, one row per month from the purchase order [USD].

    Columns (:data:`DEBT_LABELS`): ``month``, draws, interest accrued = capitalised (added to the loan before
    operation) + paid in cash, principal on the installments fixed at close, the cash sweep, the sweep of sale
    proceeds, payoff at the horizon, upfront fee, debt service (interest paid + principal), CFADS (revenue collected −
    opex − tax on operations), the debt service reserve funded by equity, drawn, refilled and released, what the
    waterfall distributed, what the sponsor paid in a payment default, whether distributions were locked up and a
    covenant test breached [1 or 0], the cash held by a lock-up and the balance at month end = previous balance +
    draws + capitalised interest − principal − sweeps − payoff. Every tranche together (:func:`tranches_by_month`:
    one by one).
    """
    c = result.ops.cash
    d, w = c.debt, c.waterfall
    return pd.DataFrame(
        {
            "month": np.arange(result.ops.dates.months),
            "draws_usd": d.draws[0],
            "interest_accrued_usd": d.interest[0],
            "interest_capitalized_usd": d.interest_capitalized[0],
            "interest_paid_usd": d.interest_paid[0],
            "principal_usd": d.principal[0],
            "cash_sweep_usd": d.cash_sweep[0],
            "sweep_usd": w.sale_sweep.sum(axis=0)[0],
            "payoff_usd": d.payoff[0],
            "fee_usd": d.fee[0],
            "debt_service_usd": d.debt_service[0],
            "cfads_usd": c.cfads[0],
            "reserve_funded_usd": d.reserve_funded[0],
            "reserve_draw_usd": w.reserve_draw[0],
            "reserve_topup_usd": w.reserve_topup[0],
            "reserve_released_usd": d.reserve_released[0],
            "distributions_usd": w.distributions[0],
            "sponsor_cure_usd": w.cure[0],
            "lockup_months": w.locked[0].astype(float),
            "covenant_breaches": w.breach[0].astype(float),
            "cash_held_usd": w.held[0],
            "balance_usd": d.balance[0],
        }
    )


def tranches_by_month(result: Result) -> pd.DataFrame:
    """Each tranche's draws, interest, principal, prepayments (sweeps and the payoff) and balance by month [USD]:
    columns ``month`` and ``<tranche> <flow>_usd``."""
    d = result.ops.cash.debt
    columns: dict[str, np.ndarray] = {"month": np.arange(result.ops.dates.months)}
    for name in dict.fromkeys(d.pieces.names):
        for flow, values in d.tranche(name).items():
            columns[f"{name} {flow}_usd"] = values[0]
    return pd.DataFrame(columns)


STOCKS = ("cash_held_usd", "balance_usd")
"""Columns of :func:`debt_by_month` that are balances (a year shows its last month's), not flows."""


def debt_by_year(result: Result) -> pd.DataFrame:
    """Debt schedule and waterfall per project year (rows ``Y1`` … and ``Total``) [USD]; flows summed, balances at
    year end.

    Columns as :func:`debt_by_month` without ``month``, ``balance_end_usd`` (the balance at the end of the project
    year's last month) instead of ``balance_usd`` and the cash held at the year's end. The ``Total`` row sums the
    flows; its balances are the final ones (0 once the payoff at the horizon has cleared the loan).
    """
    monthly = debt_by_month(result)
    months = result.ops.dates.months
    ends = {k: monthly[k].to_numpy() for k in STOCKS}
    frame = monthly.drop(columns=["month", *STOCKS])
    frame["year"] = year_of_month(months)
    g = frame.groupby("year").sum()
    last = np.minimum(g.index.to_numpy() * MONTHS_PER_YEAR, months) - 1
    g["cash_held_usd"] = ends["cash_held_usd"][last]
    g["balance_end_usd"] = ends["balance_usd"][last]
    total = g.sum()
    total["cash_held_usd"] = ends["cash_held_usd"][-1]
    total["balance_end_usd"] = ends["balance_usd"][-1]
    g.loc["total"] = total
    g.index = [*year_labels(result), TOTAL]
    g.index.name = "year"
    return g


def _rate_text(terms: debt_terms.LoanTerms, rate_at_close: float) -> str:
    """A tranche's rate for people: ``11.00 % fixed`` or ``SOFR + 6.25 %``."""
    if terms.floating:
        return f"SOFR + {100 * rate_at_close:.2f} %"
    return f"{100 * rate_at_close:.2f} % fixed"


def _tranche_rows(result: Result) -> list[tuple[str, str, Any, str]]:
    """Rows of :func:`loan_at_close` for each tranche: size, rate, repayment."""
    fin = result.scenario.financing
    pieces = result.ops.cash.debt.pieces
    rows: list[tuple[str, str, Any, str]] = []
    for i, terms in enumerate(debt_terms.loan_terms(fin)):
        mine = pieces.tranche == i
        drawn = pieces.draws[mine, 0].sum(axis=-1) > 0
        start = int(pieces.start[mine, 0][drawn].min()) if drawn.any() else 0
        end = int(pieces.maturity[mine, 0].max()) - 1
        sculpted = i == 0 and terms.share is None and fin.sizing == "dscr"
        amortization = "sculpted" if sculpted else terms.amortization
        rows += [
            (
                f"tranche_{i}_usd",
                f"{terms.name} ({terms.kind.replace('_', ' ')})",
                float(pieces.draws[mine, 0].sum()),
                "USD",
            ),
            (
                f"tranche_{i}_rate",
                "… rate at close",
                _rate_text(terms, float(pieces.rates_at_close[mine, 0][0])),
                "text",
            ),
            (
                f"tranche_{i}_repayment",
                "… repayment",
                f"{amortization.replace('_', ' ')}, months {start}–{end}",
                "text",
            ),
        ]
    return rows


def loan_at_close(result: Result) -> pd.DataFrame:
    """The debt as fixed at financial close and what happened to it: one row per term (``key``, ``label``,
    ``value``, ``unit``): how it was sized, each tranche's size, rate and repayment, the debt service reserve, the
    waterfall's rules and events, the sweeps and the payoff at the horizon [USD, fractions, months]."""
    fin, c = result.scenario.financing, result.ops.cash
    d, w = c.debt, c.waterfall
    drawn = float(d.drawn_usd[0])
    reserve = float(d.reserve_funded[0].sum())
    released = int(np.argmax(d.reserve_released[0] > 0)) if reserve and d.reserve_released[0].any() else None
    share = drawn / result.capex_total_usd if result.capex_total_usd else 0.0
    defaults = int((w.cure[0] > finance.CASH_TOLERANCE_USD).sum())
    rows: list[tuple[str, str, Any, str]] = [
        ("sizing", "Sized on", fin.sizing.replace("_", " "), "text"),
        ("lending", "How much and why", result.lending["sentence"], "text"),
        ("debt_usd", "Debt drawn", drawn, "USD"),
        ("debt_share", "… as a share of capex", share, "fraction"),
        *_tranche_rows(result),
        ("reserve_usd", f"Debt service reserve ({fin.dsra_months} months), funded at close", reserve, "USD"),
        ("reserve_released_month", "… released in month", released, "month"),
        ("lockup_dscr", "Lock-up below DSCR (quarterly tests; two passes release)", fin.lockup_dscr, "ratio"),
        ("covenant_dscr", "Covenant DSCR (a breach sweeps 100 %)", fin.covenant_dscr, "ratio"),
        ("cash_sweep_share", "Cash sweep of the surplus", fin.cash_sweep_share, "fraction"),
        ("covenant_breaches", "Covenant tests breached", int(w.breach[0].sum()), "count"),
        ("lockup_months", "Months locked up", int(w.locked[0].sum()), "months"),
        ("payment_default_months", "Months in payment default", defaults, "months"),
        ("cash_sweep_usd", "Cash swept into the senior loan", float(d.cash_sweep[0].sum()), "USD"),
        ("sweep_usd", "Sale proceeds swept into the loan", float(w.sale_sweep[:, 0].sum()), "USD"),
        ("payoff_usd", "Paid off at the horizon (by equity, no refinancing)", float(d.payoff[0].sum()), "USD"),
    ]
    return pd.DataFrame(rows, columns=["key", "label", "value", "unit"])


COVER_LABELS = {
    "months": "Months",
    "cfads_usd": "CFADS",
    "debt_service_usd": "Debt service",
    "dscr": "DSCR",
    "llcr": "LLCR at the period's start",
    "headroom": "Headroom to covenant",
}
"""Display names of the columns of :func:`cover_by_year`."""


def cover_by_year(result: Result) -> pd.DataFrame:
    """Debt cover per 12-month period of repayment from the first repayment month (rows ``Year 1`` …), up to the
    last month with debt service due (:mod:`neoplan.finance.cover`).

    Columns: ``months`` (first–last month of the period), CFADS and debt service due summed over it [USD], ``dscr``
    = their ratio (nan without debt service), ``llcr`` = the loan life cover ratio at the period's first month
    (:func:`neoplan.finance.project.llcr_table`) and ``headroom`` = 1 − covenant DSCR ÷ DSCR, the share CFADS can
    fall in that period before a breach [fraction]. No rows without debt.
    """
    c = result.ops.cash
    if not c.debt.drawn_usd[0] > 0:
        return pd.DataFrame(columns=["year", *COVER_LABELS]).set_index("year")
    starts, table = finance.dscr_by_period(c)
    cover = finance.llcr_table(c)[0]
    end = int(finance.repayment_periods(c)[1][0])
    rows = []
    for k, (start, dscr) in enumerate(zip(starts.tolist(), table[0].tolist(), strict=True)):
        stop = min(start + MONTHS_PER_YEAR, end)
        rows.append(
            {
                "year": f"Year {k + 1}",
                "months": f"{start}–{stop - 1}",
                "cfads_usd": float(c.cfads[0, start:stop].sum()),
                "debt_service_usd": float(c.debt.debt_service[0, start:stop].sum()),
                "dscr": dscr,
                "llcr": float(cover[k]),
                "headroom": float(finance.covenant_headroom(dscr, result.scenario.financing.covenant_dscr)),
            }
        )
    return pd.DataFrame(rows, columns=["year", *COVER_LABELS]).set_index("year")


# --- capex and opex -------------------------------------------------------------------------------
def capex_by_category(result: Result) -> pd.DataFrame:
    """Capex per category (:data:`CAPEX_LABELS` order) and a ``Total`` row [USD, fraction of the total].

    Columns ``category`` (display name), ``capex_usd`` and ``share`` (nan when the total is 0).
    """
    capex = result.capex_usd
    total = capex["total"]
    rows = [
        {"category": CAPEX_LABELS.get(c, c), "capex_usd": capex[c], "share": capex[c] / total if total else math.nan}
        for c in CAPEX_CATEGORIES
    ]
    rows.append({"category": TOTAL, "capex_usd": total, "share": 1.0 if total else math.nan})
    return pd.DataFrame(rows)


def tco_by_source(result: Result) -> pd.DataFrame:
    """Where the cost of a sold GPU-hour goes: each TCO component (``result.tco_breakdown_usd_per_gpu_hour``), the
    capital component split over the capex categories [USD/GPU-h].

    Columns ``source`` (a capex category's display name for capital; the component itself otherwise), ``component``
    and ``usd_per_gpu_hour``; rows in :data:`CAPEX_LABELS` order, then the other components. The split is exact,
    not an allocation rule: every capex line is paid, depreciated and sold on the same schedule (the capital flows
    of :mod:`neoplan.returns` are capex × flows per dollar), so a category's capital cost is the capital component
    × its share of capex. Categories with no capex are left out; the rows add up to TCO per sold GPU-hour.
    """
    tco = result.tco_breakdown_usd_per_gpu_hour
    capex = result.capex_usd
    total = capex["total"]
    rows = [
        {
            "source": CAPEX_LABELS.get(c, c),
            "component": "capital",
            "usd_per_gpu_hour": tco["capital"] * capex[c] / total,
        }
        for c in CAPEX_CATEGORIES
        if total > 0 and capex[c] > 0
    ]
    rows += [{"source": k, "component": k, "usd_per_gpu_hour": v} for k, v in tco.items() if k != "capital"]
    return pd.DataFrame(rows, columns=["source", "component", "usd_per_gpu_hour"])


def opex_by_year(result: Result) -> pd.DataFrame:
    """Opex per category (rows by display name, then ``Total``) and operating year (columns) [USD].

    Columns are :func:`operating_year_label` of each operating year inside the horizon; a short last year holds
    only its months. Values from ``result.opex_for_year``; ``Total`` is the sum of every category.
    """
    columns = {}
    for year, months in operating_years(result):
        opex = result.opex_for_year(year)
        columns[operating_year_label(year, months)] = [opex.get(c, 0.0) for c in OPEX_CATEGORIES] + [opex["total"]]
    return pd.DataFrame(columns, index=[*(OPEX_LABELS.get(c, c) for c in OPEX_CATEGORIES), TOTAL])

"""``evaluate``: Scenario + PriceBook → Result, the one entry point of the model.

Order of work: the design (:func:`neoplan.design.sizing.design`: node BoM → storage → fabric → management and
site → capex lines; sized to the power envelope with ``cluster.size_by: power``) → :func:`economics` of that
design: monthly revenue and opex → cash flows → KPIs.

Where each step lives: the design in :mod:`neoplan.design.cluster` over :mod:`neoplan.design.node`,
:mod:`neoplan.design.storage`, :mod:`neoplan.design.facility`, :mod:`neoplan.design.fabric`; the monthly engine
(revenue, opex, cash flows of n cases) in :mod:`neoplan.finance.engine` with opex from :mod:`neoplan.economics.opex`;
TCO, NPV and break-even price in :mod:`neoplan.finance.returns`. The engine and returns names are re-exported here, so
``from neoplan.model import Drivers`` keeps working.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from .design.cluster import Design, Envelope
from .design.costs import CAPEX_CATEGORIES, CostLine, total_usd
from .design.fabric import FabricDesign
from .design.facility import FacilityDesign, it_average_kw_at
from .design.sizing import design
from .design.storage import StorageDesign
from .economics import contracts, customers, inference, operations, revenue
from .economics.operations import OperationsReport
from .errors import ScenarioError
from .finance import lender
from .finance import project as finance
from .finance.engine import (
    COST_OF_REVENUE,
    Cases,
    Drivers,
    OperatingBasis,
    capex_payments,
    monthly_opex,
    operating_basis,
    run_cases,
)
from .finance.irr_notes import irr_notes
from .finance.returns import (
    BREAKEVEN_MAX_USD_PER_GPU_HOUR,
    KPI_LABELS,
    TCO_CATEGORIES,
    CapitalPerUsd,
    _tco,
    breakeven_price,
    capital_flows,
    project_npv,
    undefined_kpi_warnings,
)
from .finance.selling import sales_terms, token_figures, token_warnings
from .inputs.pricebook import (
    BOOK_DATES,
    Platform,
    PriceBook,
    months_apart,
    rental_contracts,
    rental_market,
)
from .inputs.scenario import Scenario
from .timebase import MONTHS_PER_YEAR, operating_year_share

MAX_CASES = 200_000
"""Most cases of the stress drivers one :meth:`Result.drivers` table holds (the Monte Carlo's largest run)."""
MAX_ENGINE_CASES = 10_000
"""Most cases in one engine run (:meth:`Result.cases`): ~40 MB of monthly arrays per 1,000 cases."""

__all__ = [
    "BREAKEVEN_MAX_USD_PER_GPU_HOUR",
    "COST_OF_REVENUE",
    "KPI_LABELS",
    "MAX_CASES",
    "MAX_ENGINE_CASES",
    "TCO_CATEGORIES",
    "Cases",
    "Drivers",
    "OperatingBasis",
    "Operations",
    "Result",
    "breakeven_price",
    "capex_payments",
    "evaluate",
    "monthly_opex",
    "operating_basis",
    "project_npv",
    "run_cases",
    "undefined_kpi_warnings",
]
"""Engine and returns names are re-exported here so ``from neoplan.model import …`` keeps working."""


@dataclass(frozen=True)
class Operations:
    """Monthly operating schedule of one scenario: arrays of shape (months,) unless noted."""

    dates: revenue.Dates
    revenue: revenue.RevenueSchedule
    opex_by_category: dict[str, np.ndarray]
    cash: finance.CashFlows

    @property
    def opex_total(self) -> np.ndarray:
        """All opex per month [USD]."""
        return sum(self.opex_by_category.values())  # type: ignore[return-value]


@dataclass(frozen=True)
class Result:
    """Everything the model computes for one scenario: the design, the monthly accounts and the KPIs.

    Made by :func:`evaluate`, never by hand. Money in nominal USD, counts as ints, rates as fractions (``0.11``),
    time in months from the purchase order (month 0); an undefined figure (no IRR because cash never turns positive,
    no payback within the horizon) is ``None`` in :attr:`kpis` and :meth:`to_dict`, NaN in arrays, and
    :attr:`warnings` says why. Tables (pandas DataFrames) are built on demand by the ``*_table`` methods, so that
    ``evaluate`` itself stays fast. The app shares one result per scenario among its visitors, frozen
    (:func:`neoplan.frozen.freeze`: arrays read-only, mappings and lists refusing changes); copy what you change.

    Examples
    --------
    >>> import neoplan
    >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    >>> r.gpus, r.servers, r.node_capex_usd
    (1024, 128, 256400.0)
    >>> r.capex_usd["total"] == sum(v for k, v in r.capex_usd.items() if k != "total")
    True
    >>> isinstance(r.kpis["project_irr"], float)  # a fraction per year; None when undefined
    True
    """

    scenario: Scenario
    design: Design
    """The sized design (:func:`neoplan.design.sizing.design`): node, storage, fabric, site and capex lines."""
    ops: Operations
    kpis: dict[str, float | None]
    tco_breakdown_usd_per_gpu_hour: dict[str, float]
    warnings: list[str] = field(default_factory=list)
    basis: OperatingBasis | None = None
    """What :meth:`cases` needs to re-run the monthly engine for other driver values."""
    operations: OperationsReport | None = None
    """Failures, availability, goodput and delivered performance (:mod:`neoplan.economics.operations`)."""
    customers: customers.CustomersReport | None = None
    """Market tier, on-demand premium, churn and the acceptance test (:mod:`neoplan.economics.customers`)."""
    tokens: inference.Terms | None = None
    """What the cluster sells as tokens: workload, published rate, prices (:mod:`neoplan.economics.inference`)."""
    token_figures: dict[str, float | None] = field(default_factory=dict)
    """Tokens per second per GPU, cost and break-even per million tokens (see :func:`token_figures`)."""
    irr_notes: dict[str, str] = field(default_factory=dict)
    """Why the project or equity IRR is not a meaningful return, by KPI key (:mod:`neoplan.finance.irr_notes`)."""
    token_demand_scale: float = 1.0
    """Share of the GPU-hours planned for tokens that find buyers (the demand cap) [fraction]."""

    # --- the design ---------------------------------------------------------------------------------
    @property
    def book(self) -> PriceBook:
        """The price book with the scenario's overrides."""
        return self.design.book

    @property
    def platform(self) -> Platform:
        """The GPU platform."""
        return self.design.platform

    @property
    def servers(self) -> int:
        """Compute servers in service (NVL72: racks) [count]."""
        return self.design.servers

    @property
    def spare_servers(self) -> int:
        """Hot-spare servers [count]."""
        return self.design.spare_servers

    @property
    def node_lines(self) -> list[CostLine]:
        """BoM lines of one server [USD per server]."""
        return self.design.node_lines

    @property
    def oem_default_node_lines(self) -> list[CostLine]:
        """BoM lines of one OEM-default server on the same platform and fabric [USD per server]."""
        return self.design.oem_default_node_lines

    @property
    def storage(self) -> StorageDesign:
        """The storage cluster."""
        return self.design.storage

    @property
    def facility(self) -> FacilityDesign:
        """Management, racks and power."""
        return self.design.facility

    @property
    def fabric(self) -> FabricDesign:
        """Back end, front end and out-of-band networks."""
        return self.design.fabric

    @property
    def capex_lines(self) -> list[CostLine]:
        """Every capex line [USD]."""
        return self.design.capex_lines

    @property
    def envelope(self) -> Envelope | None:
        """How a power-first design fills ``facility.it_power_mw`` (None when sized by GPU count)."""
        return self.design.envelope

    @property
    def revenue_usd_per_mw_year(self) -> float:
        """Revenue per MW of peak IT load per year in service: revenue over the horizon ÷ the years the cluster
        is live (go-live to the horizon or the end of service) ÷ the design's peak IT load [USD per MW-year]."""
        live_years = float(np.sum(self.ops.dates.live_share)) / MONTHS_PER_YEAR
        mw = self.facility.it_peak_mw
        return float(np.sum(self.ops.cash.revenue[0])) / live_years / mw if live_years > 0 and mw > 0 else math.nan

    @property
    def tokens_per_second_per_mw(self) -> float | None:
        """Output tokens per second the cluster serves at its achieved rate (published × serving load factor) per
        MW of peak IT load [tokens/s per MW]; None without a published rate for the workload."""
        rate = self.token_figures.get("tokens_per_second_per_gpu")
        mw = self.facility.it_peak_mw
        return None if rate is None or mw <= 0 else rate * self.gpus / mw

    @property
    def sold_output_tokens_per_day(self) -> float:
        """Output tokens a day the book sold, on average over the months in service [tokens/day]; 0 without a
        published rate or token sales."""
        if self.tokens is None:
            return 0.0
        live = float(np.sum(self.ops.dates.live_share))
        return inference.sold_output_tokens_per_day(self.ops.revenue.token_gpu_hours, self.tokens, live)

    def contract_book(self) -> list[dict[str, Any]]:
        """The contract book as the model reads it, one entry per contract, then the idle hours at spot
        (:func:`neoplan.economics.contracts.book_records`)."""
        book = self.basis.book if self.basis is not None and self.basis.book is not None else None
        premium = 0.0 if self.customers is None else self.customers.on_demand_premium
        p = self.scenario.pricing
        return contracts.book_records(
            book or contracts.book_of(self.scenario), p.usd_per_gpu_hour, p.on_demand_price_multiple * (1.0 + premium)
        )

    def returns_by_sale(self) -> dict[str, dict[str, float]]:
        """The returns of this design sold two ways, all else equal: GPU-hours rented or tokens served.

        One batch of the monthly engine: every sellable GPU-hour rented (``gpu_hours``), or every one served as
        tokens of the scenario's workload at its token prices (``tokens``).

        Returns
        -------
        dict of str to dict of str to float
            ``{"gpu_hours": {...}, "tokens": {...}}``, each with ``project_irr`` and ``equity_irr`` [fraction per
            year], ``npv_usd`` [USD], ``payback_months`` [months] and ``min_dscr`` [ratio]; NaN where undefined.
            ``tokens`` is left out when nothing is published for the platform and workload.

        Examples
        --------
        >>> import neoplan
        >>> r = neoplan.evaluate(neoplan.load_scenario({"base": "b200_1024", "pricing": {"sell": "tokens"}}))
        >>> ways = r.returns_by_sale()
        >>> sorted(ways), sorted(ways["tokens"])
        (['gpu_hours', 'tokens'], ['equity_irr', 'min_dscr', 'npv_usd', 'payback_months', 'project_irr'])
        """
        ways = ("gpu_hours", "tokens") if self.token_figures.get("tokens_per_second_per_gpu") else ("gpu_hours",)
        shares = np.array([0.0, 1.0][: len(ways)])
        k = self.cases(self.drivers(len(ways)).with_values(token_share=shares)).kpis(
            self.scenario.financing.hurdle_rate
        )
        keys = ("project_irr", "equity_irr", "npv_usd", "payback_months", "min_dscr")
        return {way: {key: float(k[key][i]) for key in keys} for i, way in enumerate(ways)}

    @property
    def sold_usd_per_gpu_hour_at_go_live(self) -> float:
        """Average price of a GPU-hour sold in the first full month of operation: revenue after SLA credits ÷
        billed GPU-hours, reserved and on-demand together [USD/GPU-h]; nan if none is sold then."""
        month = min(math.ceil(self.ops.dates.go_live_month), self.ops.dates.months - 1)
        rev = self.ops.revenue
        hours = float(rev.sold_gpu_hours[..., month].sum())
        return float(rev.revenue_usd[..., month].sum()) / hours if hours > 0 else math.nan

    @property
    def sold_usd_per_gpu_hour_lifetime(self) -> float:
        """Lifetime-average price of a sold GPU-hour, levelised as TCO is: present value of revenue after SLA credits
        ÷ present value of billed GPU-hours, both at the hurdle rate [USD/GPU-h]; nan if no hour is sold. Below TCO,
        the price path does not recover the cost, whatever the go-live price."""
        rev = self.ops.revenue
        flows = np.array([np.ravel(rev.revenue_usd), np.ravel(rev.sold_gpu_hours)])
        revenue_pv, hours_pv = finance.npv(self.scenario.financing.hurdle_rate, flows).tolist()
        return revenue_pv / hours_pv if hours_pv > 0 else math.nan

    @property
    def sla_credits_usd_per_year(self) -> float:
        """SLA and early-failure credits of the first operating year [USD]."""
        d = self.ops.dates
        return float((self.ops.revenue.sla_credits_usd * operating_year_share(d.months, d.go_live_month, 1)).sum())

    # --- headline figures -----------------------------------------------------------------------
    @property
    def gpus(self) -> int:
        """GPUs in service [count] (hot spares excluded)."""
        return self.scenario.cluster.gpus

    @property
    def node_capex_usd(self) -> float:
        """Price of one compute server [USD]."""
        return total_usd(self.node_lines)

    @property
    def node_capex_per_gpu_usd(self) -> float:
        """Price of one compute node per GPU it holds [USD per GPU]: an HGX server and an NVL72 rack side by side."""
        return self.node_capex_usd / self.platform.gpus_per_node

    @property
    def oem_default_node_capex_usd(self) -> float:
        """Price of one server with the OEM-default BoM on the same platform and fabric [USD]."""
        return total_usd(self.oem_default_node_lines)

    @property
    def node_saving_vs_oem_usd(self) -> float:
        """OEM-default server price minus this server's price [USD per server]."""
        return self.oem_default_node_capex_usd - self.node_capex_usd

    @cached_property
    def capex_usd(self) -> dict[str, float]:
        """Capex by category [USD]; every category present, ``total`` = their sum."""
        out = dict.fromkeys(CAPEX_CATEGORIES, 0.0)
        for line in self.capex_lines:
            out[line.category] += line.total_usd
        out["total"] = sum(out[c] for c in CAPEX_CATEGORIES)
        return out

    def capex_by_category(self) -> dict[str, float]:
        """Capex by category [USD] (a copy of :attr:`capex_usd`)."""
        return dict(self.capex_usd)

    @property
    def capex_total_usd(self) -> float:
        """Total capex [USD]."""
        return self.capex_usd["total"]

    @property
    def capex_per_server_excl_storage_usd(self) -> float:
        """Capex less storage, per compute server in service [USD]."""
        return (self.capex_usd["total"] - self.capex_usd["storage"]) / self.servers

    @property
    def capex_per_server_usd(self) -> float:
        """All capex per compute server in service [USD]."""
        return self.capex_usd["total"] / self.servers

    @property
    def capex_per_gpu_usd(self) -> float:
        """All capex per GPU in service [USD]."""
        return self.capex_usd["total"] / self.gpus

    @property
    def capex_per_gpu_excl_storage_usd(self) -> float:
        """Capex less storage per GPU in service [USD]."""
        return (self.capex_usd["total"] - self.capex_usd["storage"]) / self.gpus

    def opex_for_year(self, year: int) -> dict[str, float]:
        """Opex of one operating year, by category.

        Parameters
        ----------
        year : int
            The operating year: 1 is the first 12 months from go-live.

        Returns
        -------
        dict of str to float
            Opex of that year by category (``power``, ``colocation``, ``staff``, …) and their ``total`` [USD];
            SG&A included, as a share of revenue.

        Examples
        --------
        >>> import neoplan
        >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
        >>> first = r.opex_for_year(1)
        >>> first["total"] == sum(v for k, v in first.items() if k != "total") and first["total"] > 0
        True
        """
        weight = operating_year_share(self.ops.dates.months, self.ops.dates.go_live_month, year)
        out = {k: float((v * weight).sum()) for k, v in self.ops.opex_by_category.items()}
        out["total"] = sum(out.values())
        return out

    @property
    def opex_usd_per_year(self) -> dict[str, float]:
        """Opex of the first full year after the warranty ends (run rate) by category, with ``total`` [USD].

        Capped at the last full year of the horizon and of the useful life (nothing runs after a shutdown).
        """
        life_years = max(self.scenario.timeline.useful_life_months // MONTHS_PER_YEAR, 1)  # a year in service
        year = min(
            self.scenario.node.warranty_years + 1, max(int(self.ops.dates.months // MONTHS_PER_YEAR) - 1, 1), life_years
        )
        return self.opex_for_year(year)

    # --- curves (vectorised over cases) ------------------------------------------------------------
    def drivers(self, n: int = 1) -> Drivers:
        """This scenario's own driver values, repeated for ``n`` cases, 1 to :data:`MAX_CASES` (replace some with
        ``with_values``).

        For a loan fixed at financial close (sculpted, or sized on contracted revenue) the debt share is the share
        drawn at close, so a case at these values repeats the base case on the closing schedule.
        """
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= MAX_CASES:
            raise ScenarioError(f"cases must be a whole number between 1 and {MAX_CASES:,}, got {n!r}")
        drivers = Drivers.of(self.scenario, int(n))
        closing = None if self.basis is None else self.basis.closing
        return drivers if closing is None else drivers.with_values(debt_share=closing.debt_share)

    def cases(self, drivers: Drivers) -> Cases:
        """Re-run the monthly engine of this design for n cases of the stress drivers (see :func:`run_cases`), at most
        :data:`MAX_ENGINE_CASES` in one call (``neoplan.analysis.stress`` runs more in chunks)."""
        if self.basis is None:
            raise ValueError("this Result carries no operating basis; build it with neoplan.evaluate")
        if drivers.n > MAX_ENGINE_CASES:
            raise ScenarioError(
                f"at most {MAX_ENGINE_CASES:,} cases in one engine run, got {drivers.n:,} "
                "(neoplan.analysis.stress runs more in chunks)"
            )
        return run_cases(self.scenario, self.basis, drivers)

    def returns_vs_price(self, usd_per_gpu_hour: Any) -> dict[str, np.ndarray]:
        """Returns at other headline prices, everything else as the scenario has it.

        All prices run as one batch of the vectorised monthly engine (the design and its capex do not depend on the
        price); the loan stays as fixed at financial close.

        Parameters
        ----------
        usd_per_gpu_hour : float or array_like
            Headline on-demand prices at go-live [USD/GPU-h], 1 to :data:`MAX_ENGINE_CASES` of them.

        Returns
        -------
        dict of str to numpy.ndarray
            ``usd_per_gpu_hour`` (the prices), ``project_irr`` and ``equity_irr`` [fraction per year], ``npv_usd``
            [USD] at the hurdle rate and ``payback_months`` [months], one value per price; NaN where undefined.

        Raises
        ------
        ScenarioError
            For no price or more than :data:`MAX_ENGINE_CASES`.

        Examples
        --------
        >>> import numpy as np, neoplan
        >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
        >>> curve = r.returns_vs_price([2.0, 3.0, 4.0])
        >>> bool(np.all(np.diff(curve["npv_usd"]) > 0))  # a dearer GPU-hour is worth more
        True
        """
        prices = np.asarray(usd_per_gpu_hour, dtype=float).reshape(-1)
        if not 1 <= prices.size <= MAX_ENGINE_CASES:
            raise ScenarioError(f"returns_vs_price takes 1 to {MAX_ENGINE_CASES:,} prices, got {prices.size:,}")
        k = self.cases(self.drivers(prices.size).with_values(usd_per_gpu_hour=prices)).kpis(
            self.scenario.financing.hurdle_rate
        )
        return {
            "usd_per_gpu_hour": prices,
            **{key: k[key] for key in ("project_irr", "equity_irr", "npv_usd", "payback_months")},
        }

    def dscr_by_year(self) -> dict[str, np.ndarray]:
        """Debt service cover ratio for each 12-month period of repayment.

        DSCR = CFADS ÷ scheduled debt service over 12 months from the first repayment month (the sale and its tax
        left out; :mod:`neoplan.finance.cover`; the manual's Conventions page states the rest).

        Returns
        -------
        dict of str to numpy.ndarray
            ``start_month`` [months from the purchase order] and ``dscr`` [ratio] of each period; NaN where no debt
            service falls due.

        Examples
        --------
        >>> import neoplan
        >>> table = neoplan.evaluate(neoplan.load_scenario("optimized")).dscr_by_year()
        >>> sorted(table), len(table["dscr"]) == len(table["start_month"])
        (['dscr', 'start_month'], True)
        """
        starts, table = finance.dscr_by_period(self.ops.cash)
        return {"start_month": starts, "dscr": table[0]}

    # --- lender's view ---------------------------------------------------------------------------
    @property
    def debt_usd(self) -> float:
        """Debt drawn [USD]: debt share × capex, or for a sculpted loan the size its CFADS supports if lower."""
        return float(self.ops.cash.debt.drawn_usd[0])

    @cached_property
    def lending(self) -> dict[str, Any]:
        """How much was lent at close and why: amount, share of capex, sizing, the contracted cash flow it is sized on,
        the tranches and a sentence (:func:`neoplan.finance.lender.lending`)."""
        return lender.lending(self.ops.cash, self.scenario.financing, self.capex_total_usd)

    @property
    def tax_losses_carried_usd(self) -> float:
        """Tax losses still carried forward at the horizon [USD]: the model does not value them (the cluster is sold
        at the horizon and no later income inside it offsets them); their worth is this × the tax rate."""
        fin = self.scenario.financing
        taxable = self.ops.cash.taxable_income[0]
        return float(finance.losses_carried(taxable, period_months=fin.tax_period_months))

    @property
    def llcr(self) -> float:
        """Loan life cover ratio at the first repayment month [ratio]; nan without debt (see ``finance.llcr``)."""
        return float(finance.llcr(self.ops.cash)[0])

    def llcr_by_year(self) -> dict[str, np.ndarray]:
        """Loan life cover ratio at the start of each 12-month period of repayment.

        LLCR = CFADS to maturity discounted at the loan's all-in rate ÷ debt outstanding
        (:func:`neoplan.finance.project.llcr_table`).

        Returns
        -------
        dict of str to numpy.ndarray
            ``start_month`` [months from the purchase order] and ``llcr`` [ratio]; NaN where no debt is outstanding.

        Examples
        --------
        >>> import neoplan
        >>> no_debt = {"base": "optimized", "financing": {"sizing": "capex_share", "debt_share": 0}}
        >>> r = neoplan.evaluate(neoplan.load_scenario(no_debt))
        >>> bool(all(r.llcr_by_year()["llcr"] != r.llcr_by_year()["llcr"]))  # no debt: NaN throughout
        True
        """
        starts, _dscr = finance.dscr_by_period(self.ops.cash)
        return {"start_month": starts, "llcr": finance.llcr_table(self.ops.cash)[0]}

    @property
    def covenant_headroom(self) -> float:
        """Share CFADS can fall in the weakest year before its DSCR breaches ``financing.covenant_dscr`` [fraction]."""
        low = self.kpis.get("min_dscr")
        return float(finance.covenant_headroom(math.nan if low is None else low, self.scenario.financing.covenant_dscr))

    # --- tables ---------------------------------------------------------------------------------
    def bom_table(self) -> Any:
        """The bill of materials of one compute server (or one NVL72 rack), line by line.

        Returns
        -------
        pandas.DataFrame
            One row per line: ``category``, ``item``, ``key`` (the price-book key), ``quantity``, ``unit``,
            ``unit_price_usd`` [USD per unit], ``total_usd`` [USD] and the price's ``basis``.

        Examples
        --------
        >>> import neoplan
        >>> bom = neoplan.evaluate(neoplan.load_scenario("optimized")).bom_table()
        >>> float(bom["total_usd"].sum())  # the article's recommended HGX H100 server
        256400.0
        """
        import pandas as pd

        return pd.DataFrame([line.as_record() for line in self.node_lines])

    def capex_table(self) -> Any:
        """Every capex line of the cluster: servers, switches, optics, cables, storage, racks, installation.

        Returns
        -------
        pandas.DataFrame
            Columns as :meth:`bom_table`, one row per line of the whole cluster; ``total_usd`` [USD] sums to
            ``capex_usd["total"]``.

        Examples
        --------
        >>> import neoplan
        >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
        >>> lines = r.capex_table()
        >>> bool(abs(lines["total_usd"].sum() - r.capex_usd["total"]) < 1e-6 * r.capex_usd["total"])
        True
        """
        import pandas as pd

        return pd.DataFrame([line.as_record() for line in self.capex_lines])

    def monthly_table(self) -> Any:
        """The monthly accounts and cash flows, one row per month of the horizon.

        Beside the accounts, the cash waterfall (:mod:`neoplan.finance.waterfall`): CFADS, debt service due, the
        reserve drawn (paid into debt service), refilled and its balance, the covenant test's DSCR (nan without one)
        and a breach, whether distributions are locked up, the cash held by a lock-up, the distributions and what the
        sponsor paid in a payment default; ``sweep_usd`` is every prepayment (cash sweep and sale proceeds).

        Returns
        -------
        pandas.DataFrame
            ``month`` (0 = the purchase order), ``sold_gpu_hours`` [GPU-h], then signed money per month [USD]:
            revenue earned and collected, opex by category and in total, EBITDA, depreciation, EBIT, interest,
            fees, tax, net income, capex and resale (``residual_usd``), debt draws, principal, sweep, interest
            paid, the debt balance and reserve, the waterfall's accounts, project and equity free cash flow and their
            running sums. Outflows are negative.

        Examples
        --------
        >>> import neoplan
        >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
        >>> months = r.monthly_table()
        >>> len(months) == r.scenario.timeline.horizon_months, bool(months["capex_usd"].sum() < 0)
        (True, True)
        """
        import pandas as pd

        c, ops = self.ops.cash, self.ops
        cols = {
            "month": np.arange(ops.dates.months),
            "sold_gpu_hours": ops.revenue.sold_gpu_hours,
            "revenue_usd": c.revenue[0],
            "revenue_collected_usd": c.revenue_collected[0],
            **{f"opex_{k}_usd": v for k, v in ops.opex_by_category.items()},
            "opex_usd": c.opex[0],
            "ebitda_usd": c.ebitda[0],
            "depreciation_usd": c.depreciation[0],
            "tax_depreciation_usd": (c.depreciation if c.tax_depreciation is None else c.tax_depreciation)[0],
            "ebit_usd": c.ebit[0],
            "interest_usd": c.interest[0],
            "fees_usd": c.fees[0],
            "tax_usd": c.tax[0],
            "net_income_usd": c.net_income[0],
            "capex_usd": -c.capex[0],
            "residual_usd": c.residual[0],
            "debt_draw_usd": c.debt.draws[0],
            "principal_usd": -(c.debt.principal[0] + c.debt.payoff[0]),
            "sweep_usd": -c.debt.swept[0],
            "cash_sweep_usd": -c.debt.cash_sweep[0],
            "interest_paid_usd": -c.debt.interest_paid[0],
            "debt_balance_usd": c.debt.balance[0],
            "reserve_usd": c.debt.reserve_flow[0],
            "reserve_draw_usd": c.waterfall.reserve_draw[0],
            "reserve_topup_usd": -c.waterfall.reserve_topup[0],
            "reserve_balance_usd": c.waterfall.reserve_balance[0],
            "cfads_usd": c.cfads[0],
            "debt_service_usd": -c.debt.debt_service[0],
            "covenant_test_dscr": c.waterfall.test_dscr[0],
            "covenant_breach": c.waterfall.breach[0],
            "lockup": c.waterfall.locked[0],
            "cash_held_usd": c.waterfall.held[0],
            "distribution_usd": c.waterfall.distributions[0],
            "sponsor_cure_usd": -c.waterfall.cure[0],
            "project_fcf_usd": c.project_fcf[0],
            "equity_fcf_usd": c.equity_fcf[0],
            "cumulative_project_usd": np.cumsum(c.project_fcf[0]),
            "cumulative_equity_usd": np.cumsum(c.equity_fcf[0]),
        }
        return pd.DataFrame(cols)

    # --- contract -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The result as the JSON contract of ``neoplan evaluate --json``.

        Returns
        -------
        dict of str to Any
            JSON-safe values in base units (USD, fractions, months, counts); an undefined value is ``None`` and
            ``warnings`` says why. The manual's Command line page lists the keys; a headline figure's dotted key
            (``capex_usd.total``) is its name in the metrics map (:data:`neoplan.metrics.METRICS`).

        Examples
        --------
        >>> import json, neoplan
        >>> d = neoplan.evaluate(neoplan.load_scenario("optimized")).to_dict()
        >>> d["gpus"], d["backend"]["spine_switches"], d["node_capex_usd"]
        (1024, 8, 256400.0)
        >>> isinstance(json.dumps(d), str)
        True
        """
        b = self.fabric.backend
        return {
            "scenario": self.scenario.name,
            "gpus": self.gpus,
            "servers": self.servers,
            "spare_servers": self.spare_servers,
            "gpu_model": self.platform.key,
            "node_capex_usd": _clean(self.node_capex_usd),
            "oem_default_node_capex_usd": _clean(self.oem_default_node_capex_usd),
            "node_saving_vs_oem_usd": _clean(self.node_saving_vs_oem_usd),
            "backend": {
                "topology": b.topology,
                "oversubscription": b.oversubscription,
                "leaf_switches": b.leaf_switches,
                "spine_switches": b.spine_switches,
                "core_switches": b.core_switches,
                "transceivers": b.transceivers,
                "cables": b.cables,
                "capex_usd": _clean(self.capex_usd["backend_network"]),
            },
            "capex_usd": {k: _clean(v) for k, v in self.capex_usd.items()},
            "capex_per_server_excl_storage_usd": _clean(self.capex_per_server_excl_storage_usd),
            "capex_per_gpu_usd": _clean(self.capex_per_gpu_usd),
            "opex_usd_per_year": {k: _clean(v) for k, v in self.opex_usd_per_year.items()},
            "it_power_peak_kw": _clean(self.facility.it_peak_kw),
            "racks": self.facility.racks,
            **self._envelope_dict(),
            "revenue_usd_per_mw_year": _clean(self.revenue_usd_per_mw_year),
            "storage": {
                "servers": self.storage.servers,
                "usable_pb": self.storage.usable_pb,
                "read_gbyte_per_s": _clean(self.storage.read_gbyte_per_s),
            },
            **{k: _clean(v) for k, v in self.kpis.items()},
            "tco_breakdown_usd_per_gpu_hour": {k: _clean(v) for k, v in self.tco_breakdown_usd_per_gpu_hour.items()},
            "sold_usd_per_gpu_hour_at_go_live": _clean(self.sold_usd_per_gpu_hour_at_go_live),
            "sold_usd_per_gpu_hour_lifetime": _clean(self.sold_usd_per_gpu_hour_lifetime),
            "debt_usd": _clean(self.debt_usd),
            "lending": _lending_dict(self.lending),
            "tax_losses_carried_usd": _clean(self.tax_losses_carried_usd),
            "llcr": _clean(self.llcr),
            "covenant_headroom": _clean(self.covenant_headroom),
            **self._operations_dict(),
            **self._tokens_dict(),
            "contracts": self.contract_book(),
            "irr_notes": dict(self.irr_notes),
            "warnings": list(self.warnings),
        }

    def _envelope_dict(self) -> dict[str, Any]:
        """The power-envelope keys of :meth:`to_dict` (``None`` when sized by GPU count)."""
        e = self.envelope
        return {
            "size_by": self.scenario.cluster.size_by,
            "it_power_envelope_kw": None if e is None else _clean(e.it_power_kw),
            "it_power_left_kw": None if e is None else _clean(e.left_kw),
            "envelope_fill_share": None if e is None else _clean(e.fill_share),
            "envelope": None if e is None else e.to_dict(),
        }

    def _tokens_dict(self) -> dict[str, Any]:
        """The token keys of :meth:`to_dict`: the figures (``None`` without a published rate) and what is sold."""
        t, sc = self.tokens, self.scenario
        row = None if t is None else t.row
        serving = None
        if t is not None:
            serving = {
                "sell": self.scenario.pricing.sell,
                "token_share": t.token_share,
                "workload": t.workload.key,
                "serving_scenario": t.serving_scenario,
                "published_tokens_per_second_per_gpu": None
                if row is None
                else _clean(row.output_tokens_per_second_per_gpu),
                "serving_load_factor": t.serving_load_factor,
                "output_tokens_per_day": None if row is None else _clean(inference.output_tokens_per_day(sc, t)),
                "sold_output_tokens_per_day": None if row is None else _clean(self.sold_output_tokens_per_day),
                "demand_output_tokens_per_day": None if t.demand is None else _clean(t.demand_output_tokens_per_day),
                "token_demand_share": t.demand_share,
                "token_demand_scale": _clean(self.token_demand_scale),
                "usd_per_million_input_tokens": t.usd_per_million_input,
                "usd_per_million_output_tokens": t.usd_per_million_output,
                "price_source": t.price_source,
                "token_price_decline_per_year": t.decline_per_year,
                "decline_source": t.decline_source,
                "interactivity_tokens_per_second_per_user": None
                if row is None
                else row.interactivity_tokens_per_second_per_user,
                "interactivity": None if row is None else row.interactivity_text(),
                "throughput_source": None if row is None else f"{row.benchmark} {row.result_id} ({row.source})",
                "serving_stack": None if row is None else row.serving_stack,
                "confidence": None if row is None else row.confidence,
                "throughput_basis": None if row is None else row.basis,
            }
        return {
            **{k: _clean(v) for k, v in self.token_figures.items()},
            "tokens_per_second_per_mw": _clean(self.tokens_per_second_per_mw),
            "usd_per_million_tokens": None if t is None else _clean(t.usd_per_million_tokens),
            "serving": serving,
        }

    def _operations_dict(self) -> dict[str, Any]:
        """The operations keys of :meth:`to_dict` (``None`` when the Result carries no operations report)."""
        o = self.operations
        return {
            "availability": None if o is None else _clean(o.availability),
            "goodput": None if o is None else _clean(o.goodput),
            "interruptions_per_month": None if o is None else _clean(o.interruptions_per_month),
            "performance_factor": None if o is None else _clean(o.performance_factor),
            "sla_credits_usd_per_year": _clean(self.sla_credits_usd_per_year),
            "operations": None if o is None else o.to_dict(),
            "customers": None if self.customers is None else self.customers.to_dict(),
        }


def _lending_dict(lending: dict[str, Any]) -> dict[str, Any]:
    """:attr:`Result.lending` for the JSON contract (numbers cleaned)."""
    return {
        **{k: (_clean(v) if isinstance(v, float) else v) for k, v in lending.items() if k != "tranches"},
        "tranches": [{**t, "debt_usd": _clean(t["debt_usd"])} for t in lending["tranches"]],
    }


def _clean(value: float | None) -> float | None:
    """``None`` for undefined or non-finite values, else a plain float."""
    if value is None or not math.isfinite(value):
        return None
    return float(value)


RENTAL_DATE_GAP_MONTHS = 12
"""Months between the hardware book and the reference rental price beyond which the result warns."""


def rental_date_warning(platform: Platform, book: PriceBook) -> str | None:
    """A warning when the reference rental price the scenario's market gives the platform is dated far from the
    book's date (the book's own market does not rent it, so a later or earlier one did), else None."""
    platform_key, as_of = platform.key, book.as_of
    market = rental_market(platform_key, as_of)
    rental = rental_contracts(market).get((platform_key, "on_demand"))
    if rental is None:
        return None
    gap = months_apart(as_of, rental.date)
    if gap <= RENTAL_DATE_GAP_MONTHS:
        return None
    nearest = min(BOOK_DATES, key=lambda d: months_apart(d, rental.date))
    fix = f"choose prices_as_of {nearest}, or use" if nearest != as_of else "use"
    return (
        f"prices_as_of: hardware is priced as of {as_of} but the reference rental price of {platform_key} "
        f"(${rental.usd_per_gpu_hour:.2f}/GPU-hour) is dated {rental.date}, {gap} months apart (the {as_of} market "
        f"rents no {platform_key}); {fix} a rental price of {as_of}"
    )


def evaluate(scenario: Scenario, book: PriceBook | None = None) -> Result:
    """Design, price and finance a scenario: the one entry point of the model.

    The design first (:func:`neoplan.design.sizing.design`: node bill of materials, storage, fabric, management and
    site, capex lines; sized to the power envelope when ``cluster.size_by`` is ``power``), then its economics:
    monthly revenue and opex, cash flows, debt, tax and the KPIs.

    Parameters
    ----------
    scenario : Scenario
        The plan, as :func:`neoplan.load_scenario` returns it (validated).
    book : PriceBook, optional
        Unit prices to design with [USD per unit]. Default: the shipped book of ``scenario.prices_as_of`` with the
        scenario's ``prices:`` overrides on top.

    Returns
    -------
    Result
        The design, the monthly accounts and the KPIs; money in USD, rates as fractions, time in months.

    Raises
    ------
    ScenarioError
        For a design the inputs make impossible, with a message naming the field (an impossible fabric's
        :class:`~neoplan.design.fabric.FabricError` is passed on as one). Any other error is a bug and propagates
        as is.

    See Also
    --------
    neoplan.load_scenario : a scenario from a preset, a file or a mapping.

    Examples
    --------
    >>> import neoplan
    >>> result = neoplan.evaluate(neoplan.load_scenario("optimized"))
    >>> result.gpus, result.servers
    (1024, 128)
    >>> result.node_capex_usd  # the article's recommended HGX H100 server [USD]
    256400.0
    >>> result.fabric.backend.spine_switches  # 2:1 at the leaf: half the reference's 16 spines
    8
    >>> result.kpis["tco_usd_per_gpu_hour"] > 0  # [USD per sold GPU-hour]
    True
    """
    return economics(design(scenario, book))


@dataclass(frozen=True)
class Operating:
    """What the monthly engine needs of one design, worked out once: the dates, the operating basis (opex by year,
    power, reliability, tokens per GPU-hour), the failure model at the scenario's own drivers and the token terms."""

    dates: revenue.Dates
    basis: OperatingBasis
    report: OperationsReport
    own: operations.Outcome
    tokens: inference.Terms
    customers: customers.Terms
    """Tier, premium, churn and acceptance at the scenario's own drivers (:mod:`neoplan.economics.customers`)."""
    capital: CapitalPerUsd
    """The capital flows per USD of capex (:func:`neoplan.finance.returns.capital_flows`) the price solvers and the
    TCO discount."""


def operating(plan: Design) -> Operating:
    """The :class:`Operating` basis of a sized design (what :func:`economics` and :mod:`neoplan.analysis.search` run
    on)."""
    scenario, platform, storage, site = plan.scenario, plan.platform, plan.storage, plan.facility
    d = revenue.dates(scenario.timeline)
    f = scenario.facility
    it_idle_kw = it_average_kw_at(site, 0.0, f.idle_power_share, f.busy_power_share)
    it_busy_kw = it_average_kw_at(site, 1.0, f.idle_power_share, f.busy_power_share)
    basis = operating_basis(scenario, plan.book, site, storage, plan.capex_lines, d, it_idle_kw, it_busy_kw)
    reliability = operations.design_of(
        scenario,
        transceivers=plan.fabric.backend.transceivers,
        checkpoint_tb=storage.checkpoint_tb,
        read_gbyte_per_s=storage.read_gbyte_per_s,
        spare_servers=plan.spare_servers,
        trays_per_server=platform.compute_trays if platform.rack_scale else 1,
    )
    own = operations.own_outcome(scenario.operations, reliability)  # the failure model at the own drivers, once
    report = operations.operations_report(scenario, reliability, own)
    tokens = inference.terms(scenario)  # refuses selling tokens on a platform with no published rate
    terms = customers.terms(scenario, reliability, own, report.reference_goodput)
    basis = replace(
        basis,
        reliability=reliability,
        reference_goodput=report.reference_goodput,
        tokens_per_gpu_hour=tokens.published_tokens_per_gpu_hour,  # the engine applies the load factor
        book=contracts.book_of(scenario),
        spare_gpus=plan.spare_servers * scenario.cluster.gpus_per_node,
        token_demand_per_day=tokens.demand_output_tokens_per_day,
        own_customers=terms,
    )
    return Operating(d, basis, report, own, tokens, terms, capital_flows(scenario, d))


def levelised(
    scenario: Scenario, op: Operating, capex_usd: float, opex_fixed: dict[str, np.ndarray], sold_gpu_hours: np.ndarray
) -> tuple[dict[str, float], float]:
    """(TCO per sold GPU-hour by category [USD/GPU-h], break-even headline price [USD/GPU-h]) of one design; neither
    depends on the financing."""
    tco = _tco(scenario, op.dates, capex_usd, opex_fixed, sold_gpu_hours, op.capital)
    sold = operations.as_sold(scenario, op.report)
    terms = sales_terms(scenario, op.dates, op.customers, op.report.utilization_factor, op.basis.spare_gpus)
    return tco, operations.headline_price(
        op.report, breakeven_price(sold, op.dates, capex_usd, opex_fixed, terms=terms, capital=op.capital)
    )


def economics(plan: Design) -> Result:
    """The monthly economics of a sized design: revenue and opex, cash flows, KPIs and warnings."""
    scenario, book, platform = plan.scenario, plan.book, plan.platform
    storage, site, fabric = plan.storage, plan.facility, plan.fabric
    capex = total_usd(plan.capex_lines)
    op = operating(plan)
    d, basis, ops_report, tokens = op.dates, op.basis, op.report, op.tokens
    cases = run_cases(scenario, basis, Drivers.of(scenario), op.own)  # financial close: the loan is sized here
    basis = replace(basis, closing=finance.closing_of(cases.cash))  # every other case meets this debt
    returns = cases.kpis(scenario.financing.hurdle_rate)
    opex_by_category = {k: v[0] for k, v in cases.opex_by_category.items()}
    opex_fixed = {k: v for k, v in opex_by_category.items() if k != "sga"}
    rev = _first(cases.revenue)
    cf = cases.cash

    tco, breakeven = levelised(scenario, op, capex, opex_fixed, rev.sold_gpu_hours)
    kpis: dict[str, float | None] = {
        "tco_usd_per_gpu_hour": sum(tco.values()),
        "breakeven_usd_per_gpu_hour": breakeven,
        **{k: float(v[0]) for k, v in returns.items()},
    }
    terms = sales_terms(scenario, d, op.customers, ops_report.utilization_factor, basis.spare_gpus)
    per_token = token_figures(
        scenario, tokens, ops_report, d, capex, opex_fixed, rev.sold_gpu_hours, terms, capital=op.capital
    )
    rental_warning = rental_date_warning(platform, book)
    warnings = [*storage.warnings, *site.warnings, *fabric.warnings, *([rental_warning] if rental_warning else [])]
    warnings += [plan.envelope.sentence()] if plan.envelope is not None else []
    warnings += end_of_life_warnings(scenario, d, cf, capex)
    view = _lender_view(cf, d, kpis.get("min_dscr"), scenario.financing.covenant_dscr)
    warnings += undefined_kpi_warnings({**kpis, **view}, cf, rev.sold_gpu_hours, scenario.timeline.horizon_months)
    warnings += finance.sculpted_size_warnings(scenario.financing, cf, capex)
    warnings += _loan_warnings(scenario, d, cf, kpis)
    warnings += token_warnings(tokens, per_token, float(np.sum(rev.sold_gpu_hours)))
    warnings += inference.interactivity_warnings(scenario, tokens)
    demand_scale = float(cases.token_demand_scale[0])
    warnings += inference.demand_warnings(scenario, tokens, demand_scale)
    return Result(
        scenario=scenario,
        design=plan,
        ops=Operations(d, rev, opex_by_category, cf),
        kpis=kpis,
        tco_breakdown_usd_per_gpu_hour=tco,
        warnings=warnings,
        basis=basis,
        operations=ops_report,
        tokens=tokens,
        token_figures=per_token,
        customers=customers.report(scenario, op.customers),
        irr_notes=irr_notes(cf),
        token_demand_scale=demand_scale,
    )


def _lender_view(
    cf: finance.CashFlows, d: revenue.Dates, min_dscr: float | None, covenant_dscr: float
) -> dict[str, float | None]:
    """LLCR and covenant headroom of one case (``nan`` where undefined; see :mod:`neoplan.finance.project`)."""
    low = math.nan if min_dscr is None else min_dscr
    return {
        "llcr": float(finance.llcr(cf)[0]),
        "covenant_headroom": float(finance.covenant_headroom(low, covenant_dscr)),
    }


def _loan_warnings(
    scenario: Scenario, d: revenue.Dates, cf: finance.CashFlows, kpis: dict[str, float | None]
) -> list[str]:
    """Sponsor support, debt left at the horizon, a term past the useful life (:mod:`neoplan.finance.lender`)."""
    term_end = int(cf.debt.pieces.maturity[:, 0].max(initial=0))  # the last maturity, horizon or not
    return [
        *lender.waterfall_warnings(cf, scenario.financing),
        *lender.sponsor_support_warnings(cf, kpis, scenario.financing.hurdle_rate),
        *lender.horizon_debt_warnings(cf, d.months, term_end),
        *lender.term_past_life_warnings(cf, float(revenue.end_of_life_month(d)), d.end_of_life, term_end),
    ]


def end_of_life_warnings(scenario: Scenario, d: revenue.Dates, cf: finance.CashFlows, capex_usd: float) -> list[str]:
    """One sentence when the horizon runs past the hardware's useful life, saying what the model does then."""
    t = scenario.timeline
    end = revenue.end_of_life_month(d)
    if end >= d.months:
        return []
    head = (
        f"The {d.months}-month horizon runs past the hardware's useful life ({t.useful_life_months} months from "
        f"go-live, month {end:.1f})"
    )
    sold = cf.residual[0]
    resale = "the resale curve" if t.residual_value_share is None else "a flat share"
    first = float(sold[int(end)]) / capex_usd if capex_usd > 0 else 0.0
    if t.end_of_life == "shutdown":
        return [
            f"{head}: the cluster shuts down then (no revenue or opex after it, sold for {100 * first:.3g} % of capex "
            f"by {resale}); set timeline.end_of_life to refresh to buy a new one."
        ]
    refreshes = revenue.refresh_go_live_months(d)
    when = ", ".join(f"{m:.1f}" for m in refreshes)
    age = d.months - refreshes[-1]
    cost = capex_usd * t.refresh_capex_multiple
    last = float(sold[-1]) / cost if cost > 0 else 0.0
    return [
        f"{head}: {len(refreshes)} refresh cluster(s) go live in month(s) {when}, each costing "
        f"{t.refresh_capex_multiple:g} × the designed capex, paid by equity; the last, {age:.1f} months old, is "
        f"sold at the horizon for {100 * last:.3g} % of its capex by {resale} (a horizon of "
        f"{math.floor(refreshes[-1])} months ends at an end of life instead)."
    ]


def _first(rev: revenue.RevenueSchedule) -> revenue.RevenueSchedule:
    """A one-case schedule with its leading axis dropped."""
    return revenue.RevenueSchedule(*(np.atleast_2d(a)[0] for a in revenue.schedule_arrays(rev)))

"""The monthly engine: revenue, opex and cash flows of n cases of one sized design at once.

:func:`run_cases` takes a design's :class:`OperatingBasis` (what the sizing fixed) and a :class:`Drivers`
(one value per case of every stress driver) and returns :class:`Cases`: schedules of shape (n, months).
:func:`neoplan.evaluate` runs it for n = 1; :mod:`neoplan.analysis.stress` for many cases. Opex comes from
:mod:`neoplan.economics.opex` (yearly table by operating year, then :func:`~neoplan.economics.opex.monthly_opex`); the
clock and the meaning of "year" from :mod:`neoplan.timebase`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from ..design.costs import CostLine, total_usd
from ..design.facility import FacilityDesign
from ..design.storage import StorageDesign
from ..economics import contracts, customers, inference, market, operations, residual, revenue
from ..economics.opex import hardware_capex_usd as _hardware_capex_usd
from ..economics.opex import monthly_opex, opex_basis, opex_by_year, sga_usd_per_year
from ..inputs.pricebook import PriceBook
from ..inputs.scenario import Scenario
from ..timebase import HOURS_PER_MONTH, MONTHS_PER_YEAR
from . import irr, phases
from . import project as finance

COST_OF_REVENUE = ("power", "colocation", "hardware_support", "repairs", "software")
"""Opex categories in cost of revenue; gross margin excludes depreciation, as neoclouds report it."""
PER_RATE = {"staff": "staff_fte_per_1000_gpus", "hardware_support": "support_rate"}
"""Yearly opex categories proportional to a stress driver: category → the driver that multiplies its unit table."""


@dataclass(frozen=True)
class Drivers:
    """Per-case values of the stress drivers: each field an array of shape (n,) in the unit its name gives.

    :meth:`of` repeats the scenario's own values; :meth:`with_values` replaces some of them. The design
    (BoM, fabric, site) does not depend on any driver, so n cases share one :class:`OperatingBasis`.
    """

    usd_per_gpu_hour: np.ndarray
    """Headline on-demand price at go-live [USD/GPU-h]."""
    price_decline_per_year: np.ndarray
    """Average yearly fall of on-demand and renewal prices over the first cluster's life [fraction]; the case runs
    the scenario's price path (flat or the generation's curve) tilted to that average
    (:mod:`neoplan.economics.market`)."""
    utilization: np.ndarray
    """Share of sellable GPU-hours sold at steady state [fraction]."""
    capex_multiple: np.ndarray
    """Capex as a multiple of the designed capex [ratio]; insurance and hardware support follow it."""
    interest_rate: np.ndarray
    """Annual interest rate on the debt [fraction]."""
    debt_share: np.ndarray
    """Share of capex funded by debt [fraction]; for a loan fixed at close (:attr:`OperatingBasis.closing`), the share
    each case draws on the closing schedule (:meth:`neoplan.model.Result.drivers` starts from the size at close)."""
    electricity_usd_per_kwh: np.ndarray
    """Electricity price [USD/kWh]; no effect when the colocation price includes electricity."""
    pue: np.ndarray
    """Power usage effectiveness [ratio]; scales energy, not the colocation rent on IT kW."""
    colo_usd_per_kw_month: np.ndarray
    """Colocation price per contracted IT kW [USD/kW-month]."""
    delivery_delay_months: np.ndarray
    """Slip of the delivery date; everything after delivery moves with it [months]."""
    useful_life_months: np.ndarray
    """Useful life of the hardware from go-live [months]: depreciation, and the end of service (shutdown or
    refresh, ``timeline.end_of_life``) when it ends inside the horizon."""
    residual_value_share: np.ndarray
    """Resale value of the first cluster when it leaves service (at its end of life, or at the horizon) in the
    scenario's own timeline [fraction of capex]; with the resale curve (``timeline.residual_value_share`` empty) it
    scales the curve, so a cluster sold at another age (another life, a delay, a refresh) follows the curve."""
    mtbf_multiple: np.ndarray
    """Mean time between failures as a multiple of the failure preset's [ratio]."""
    detection_minutes: np.ndarray
    """Mean time to detect a job interruption [minutes]."""
    performance_penalty: np.ndarray
    """Delivered-performance loss on top of the design's own [fraction]; moves the price by the elasticity."""
    token_share: np.ndarray
    """Share of the sellable GPU-hours served as tokens, the rest rented [fraction]
    (:mod:`neoplan.economics.inference`)."""
    usd_per_million_tokens: np.ndarray
    """Token price at go-live [USD per million output tokens, their requests' input tokens included]."""
    token_price_decline_per_year: np.ndarray
    """Yearly fall of token prices [fraction]."""
    serving_load_factor: np.ndarray
    """Tokens served on average as a share of the published rate [fraction]; moves token revenue only."""
    reserved_price_multiple: np.ndarray
    """Committed price ÷ the headline price [ratio] (:func:`neoplan.economics.market.reserved_multiple`; for a book
    of several contracts, their share-weighted multiple: each contract's moves in proportion)."""
    spot_share_of_idle: np.ndarray
    """Share of idle GPU-hours (unsold, hot spares, held-back trays) sold at spot [fraction]."""
    sga_rate: np.ndarray
    """Sales, general and administrative costs [fraction of revenue]."""
    support_rate: np.ndarray
    """Hardware support after the warranty [fraction of hardware capex per year]."""
    staff_fte_per_1000_gpus: np.ndarray
    """Operations staff per 1,000 GPUs [FTE]."""

    @classmethod
    def of(cls, scenario: Scenario, n: int = 1) -> Drivers:
        """The scenario's own values, repeated for ``n`` cases."""
        p, f, fin, t = scenario.pricing, scenario.facility, scenario.financing, scenario.timeline
        go_live = revenue.dates(t).go_live_month
        tokens = inference.terms(scenario, strict=False)
        base = {
            "usd_per_gpu_hour": p.usd_per_gpu_hour,
            "price_decline_per_year": market.scenario_average_decline(scenario, go_live),
            "utilization": p.steady_utilization,
            "capex_multiple": 1.0,
            "interest_rate": fin.interest_rate,
            "debt_share": fin.debt_share,
            "electricity_usd_per_kwh": f.electricity_usd_per_kwh,
            "pue": f.pue,
            "colo_usd_per_kw_month": f.colo_usd_per_kw_month,
            "delivery_delay_months": 0.0,
            "useful_life_months": float(t.useful_life_months),
            "residual_value_share": residual.base_share(scenario),
            "mtbf_multiple": scenario.operations.mtbf_multiple,
            "detection_minutes": operations.detection_minutes(scenario.operations),
            "performance_penalty": 0.0,
            "token_share": tokens.token_share,
            "usd_per_million_tokens": tokens.usd_per_million_tokens,
            "token_price_decline_per_year": tokens.decline_per_year,
            "serving_load_factor": tokens.serving_load_factor,
            "reserved_price_multiple": market.reserved_multiple(scenario),
            "spot_share_of_idle": p.spot_share_of_idle,
            "sga_rate": scenario.opex.sga_rate,
            "support_rate": scenario.opex.support_rate,
            "staff_fte_per_1000_gpus": scenario.opex.staff_fte_per_1000_gpus,
        }
        table = np.array(list(base.values()), dtype=float)[:, None].repeat(n, axis=1)  # one row per driver
        return cls(*table)  # ``base`` lists the fields in declaration order

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Field names, in declaration order."""
        return tuple(f.name for f in fields(cls))

    @property
    def n(self) -> int:
        """Number of cases."""
        return int(self.usd_per_gpu_hour.shape[0])

    def with_values(self, **values: Any) -> Drivers:
        """A copy with some drivers replaced by scalars or arrays (broadcast to (n,))."""
        unknown = set(values) - set(self.names())
        if unknown:
            raise ValueError(f"unknown driver(s): {', '.join(sorted(unknown))}")
        n = max([self.n, *(np.size(v) for v in values.values())])
        current = {k: np.broadcast_to(getattr(self, k), (n,)) for k in self.names()}
        new = {k: np.broadcast_to(np.asarray(v, dtype=float).reshape(-1), (n,)) for k, v in values.items()}
        return Drivers(**{k: np.array(v, dtype=float) for k, v in {**current, **new}.items()})

    def take(self, index: np.ndarray | slice) -> Drivers:
        """The cases at ``index`` (a slice or an index array)."""
        return Drivers(**{k: getattr(self, k)[index] for k in self.names()})


@dataclass(frozen=True)
class OperatingBasis:
    """What the monthly engine needs from the sized design; none of it depends on a stress driver."""

    dates: revenue.Dates
    """Key dates of the scenario (no delay)."""
    capex_usd: float
    """Designed capex [USD]."""
    it_idle_kw: float
    """Average IT load with every server idle [kW]."""
    it_busy_kw: float
    """Average IT load with every server sold (utilization 1) [kW]."""
    it_peak_kw: float
    """kW the colocation rent is paid on: contracted (peak) IT load plus any liquid-cooling premium [kW]."""
    opex_usd_per_year: dict[str, np.ndarray]
    """Yearly opex by category other than power and colocation, index 0 = operating year 1 [USD/year]."""
    opex_per_rate: dict[str, np.ndarray]
    """``staff`` per FTE per 1,000 GPUs and ``hardware_support`` per unit of support rate, by operating year
    [USD/year per unit]: the stress drivers of those rates multiply them."""
    reliability: operations.Design | None = None
    """What the failure model needs from the design; None = no reliability effects (revenue as before)."""
    reference_goodput: float = 1.0
    """Goodput of the same cluster run the reference way [fraction]
    (:func:`neoplan.economics.operations.reference_goodput`)."""
    tokens_per_gpu_hour: float = 0.0
    """Output tokens a GPU serves per sold hour at its published rate, before the serving load factor (a driver)
    [tokens]; 0 = no published rate."""
    closing: finance.Closing | None = None
    """The loan fixed at financial close on the base case (a sculpted loan, or one sized on contracted revenue);
    every case of :func:`run_cases` meets it. None = each case sizes its own loan (the base case itself)."""
    book: contracts.Book | None = None
    """The contract book (:func:`neoplan.economics.contracts.book_of`); None = read from the scenario."""
    spare_gpus: int = 0
    """GPUs of hot-spare servers and held-back trays: idle, sold at spot for the spot share of idle [count]."""
    token_demand_per_day: float = float("inf")
    """Output tokens a day the plan can sell (its share of the model's API market) [tokens/day]; inf = no cap."""


def operating_basis(
    scenario: Scenario,
    book: PriceBook,
    site: FacilityDesign,
    storage: StorageDesign,
    capex_lines: list[CostLine],
    d: revenue.Dates,
    it_idle_kw: float,
    it_busy_kw: float,
) -> OperatingBasis:
    """Yearly opex by year of operation and the power figures of the sized design (see :class:`OperatingBasis`).

    Years are tabulated far enough for any go-live from month 0 to the horizon.
    """
    capex = total_usd(capex_lines)
    basis = opex_basis(
        scenario,
        facility=site,
        storage=storage,
        capex_usd=capex,
        hardware_capex_usd=_hardware_capex_usd(capex_lines, book),
    )
    years = d.months // MONTHS_PER_YEAR + 2
    table = opex_by_year(scenario, book, basis, years, ufm_subscription=scenario.opex.ufm_subscription)
    unit_opex = scenario.opex.model_copy(update={"support_rate": 1.0, "staff_fte_per_1000_gpus": 1.0})
    unit = opex_by_year(scenario.model_copy(update={"opex": unit_opex}), book, basis, years)
    per_rate = {c: unit[c] for c in PER_RATE}
    return OperatingBasis(d, capex, it_idle_kw, it_busy_kw, site.colo_kw, table, per_rate)


def capex_payments(
    capex_usd: float | np.ndarray, d: revenue.AnyDates, deposit_share: float, *, order_month: Any = 0.0
) -> np.ndarray:
    """Capex paid per month (n, months): the deposit at the order, ``order_month`` (month 0 unless a later phase is
    ordered later), the balance in the delivery month [USD].

    ``capex_usd``, ``order_month`` and the delivery month may each be one value or one per case (n,); n is the
    largest count.
    """
    capex = np.asarray(capex_usd, dtype=float).reshape(-1)
    delivery = np.asarray(d.delivery_month, dtype=float).reshape(-1)
    order = np.asarray(order_month, dtype=float).reshape(-1)
    n = max(capex.size, delivery.size, order.size)
    pay = np.zeros((n, d.months))
    rows = np.arange(n)
    ordered = np.minimum(np.floor(order).astype(int), d.months - 1)
    pay[rows, np.broadcast_to(ordered, (n,))] += deposit_share * np.broadcast_to(capex, (n,))
    month = np.minimum(np.floor(delivery).astype(int), d.months - 1)
    pay[rows, np.broadcast_to(month, (n,))] += (1.0 - deposit_share) * np.broadcast_to(capex, (n,))
    return pay


def refresh_payments(
    capex_usd: np.ndarray, d: revenue.AnyDates, deposit_share: float, multiple: float, *, order_month: Any = 0.0
) -> np.ndarray:
    """Capex of the refresh clusters paid per month (n, months) [USD]; zero unless ``end_of_life`` is refresh.

    Each refresh repeats the order of the first cluster shifted by k useful lives, so that it goes live as the
    old one's life ends (go-live + k × life, inside the horizon): the deposit k lives after the first order
    (``order_month``), the balance k lives after delivery. ``capex_usd`` (n,) is the designed capex; each refresh
    costs ``multiple`` × it.
    """
    months = d.months
    capex = np.asarray(capex_usd, dtype=float).reshape(-1, 1) * multiple
    go_live = np.asarray(d.go_live_month, dtype=float).reshape(-1, 1)
    life = np.asarray(d.life_months, dtype=float).reshape(-1, 1)
    order = np.asarray(order_month, dtype=float).reshape(-1, 1)
    pay = np.zeros((max(capex.shape[0], go_live.shape[0], life.shape[0], order.shape[0]), months))  # sizes n or 1
    if d.end_of_life != "refresh":
        return pay
    delivery = np.asarray(d.delivery_month, dtype=float).reshape(-1, 1)
    t = np.arange(months)
    k = 1
    while np.any(go_live + k * life < months):
        due = go_live + k * life < months
        placed, deliver = np.floor(order + k * life), np.minimum(np.floor(delivery + k * life), months - 1)
        pay += np.where(due & (t == placed), deposit_share * capex, 0.0)
        pay += np.where(due & (t == deliver), (1.0 - deposit_share) * capex, 0.0)
        k += 1
    return pay


@dataclass(frozen=True)
class Cases:
    """n cases of one design evaluated at once: schedules of shape (n, months) [USD unless named]."""

    drivers: Drivers
    dates: revenue.CaseDates
    revenue: revenue.RevenueSchedule
    opex_by_category: dict[str, np.ndarray]
    cash: finance.CashFlows
    token_demand_scale: np.ndarray = field(default_factory=lambda: np.ones(1))
    """Share of each case's GPU-hours planned for tokens that find buyers (n,) [fraction]."""

    @property
    def first_operating_month(self) -> np.ndarray:
        """First full month of operation of each case (n,) [month]."""
        return np.ceil(np.asarray(self.dates.go_live_month, dtype=float).reshape(-1)).astype(int)

    def kpis(self, hurdle_rate: float, keys: Collection[str] | None = None) -> dict[str, np.ndarray]:
        """Returns of each case (n,): the KPIs of :func:`evaluate` other than TCO and break-even price (:data:`KPIS`);
        only ``keys`` of them if given (the Monte Carlo asks for the figures it reports).

        ``npv_usd`` at ``hurdle_rate`` [per year]; IRRs annual; ``payback_months`` from month 0 (and
        ``discounted_payback_months``, of the flows discounted at ``hurdle_rate``), only when reached for good;
        ``min_dscr`` over 12-month periods from each case's first repayment month; the waterfall's events
        (:func:`events`); margins over the horizon; ``equity_moic`` = cash to equity / cash from equity;
        ``equity_npv_usd``, the equity cash flow at ``hurdle_rate``, and ``equity_mirr``
        (:func:`neoplan.finance.project.mirr_annual`: finance rate = the loan's average rate, reinvestment at
        ``hurdle_rate``). Undefined values are ``nan``. Mid-month capex (``timeline.capex_timing``) is counted half a
        month early by NPV, IRR, MIRR and discounted payback.
        """
        want = set(KPIS if keys is None else keys)
        cf = self.cash
        project_mid, equity_mid = cf.project_mid_month, cf.equity_mid_month  # None: capex at month ends
        out: dict[str, np.ndarray] = {}
        if want & {"project_irr", "equity_irr"}:
            out.update(_irrs(cf, hurdle_rate, project_mid, equity_mid, want))
        figures: dict[str, Callable[[], np.ndarray]] = {
            "npv_usd": lambda: finance.npv(hurdle_rate, cf.project_fcf, project_mid),
            "equity_npv_usd": lambda: finance.npv(hurdle_rate, cf.equity_fcf, equity_mid),
            "equity_mirr": lambda: finance.mirr_annual(cf.equity_fcf, finance.loan_rate(cf), hurdle_rate, equity_mid),
            "payback_months": lambda: finance.payback_months(cf.project_fcf),
            "discounted_payback_months": lambda: finance.payback_months(cf.project_fcf, hurdle_rate, project_mid),
            "min_dscr": lambda: finance.min_dscr(cf),
            "go_live_month": lambda: np.asarray(self.dates.go_live_month, dtype=float).reshape(-1),
        }
        out.update({k: f() for k, f in figures.items() if k in want})
        if want & set(EVENTS):
            out.update({k: v for k, v in events(cf).items() if k in want})
        if want & {"ebitda_margin", "gross_margin", "equity_moic"}:
            out.update({k: v for k, v in self._ratios().items() if k in want})
        return {k: out[k] for k in KPIS if k in want}

    def _ratios(self) -> dict[str, np.ndarray]:
        """EBITDA and gross margin over the horizon, equity MOIC (n,) [fraction, ratio]."""
        cf = self.cash
        revenue_total = cf.revenue.sum(axis=1)
        earns = revenue_total > 0
        per_revenue = np.where(earns, revenue_total, 1.0)
        cost_of_revenue = sum(self.opex_by_category[k].sum(axis=1) for k in COST_OF_REVENUE)
        equity = cf.equity_fcf
        equity_in = -np.where(equity < 0, equity, 0.0).sum(axis=1)
        equity_out = np.where(equity > 0, equity, 0.0).sum(axis=1)
        with np.errstate(over="ignore"):  # a revenue or equity near 0 (a price of 1e-320) gives ±inf: undefined
            return {
                "ebitda_margin": np.where(earns, cf.ebitda.sum(axis=1) / per_revenue, np.nan),
                "gross_margin": np.where(earns, 1.0 - cost_of_revenue / per_revenue, np.nan),
                "equity_moic": np.where(equity_in > 0, equity_out / np.where(equity_in > 0, equity_in, 1.0), np.nan),
            }


def _irrs(
    cf: finance.CashFlows,
    hurdle_rate: float,
    project_mid: np.ndarray | None,
    equity_mid: np.ndarray | None,
    want: set[str],
) -> dict[str, np.ndarray]:
    """Project and equity IRR (n,) [per year], both in one call when both are wanted."""
    flows = {"project_irr": (cf.project_fcf, project_mid), "equity_irr": (cf.equity_fcf, equity_mid)}
    keys = [k for k in flows if k in want]
    rows = np.concatenate([flows[k][0] for k in keys])
    mids = [flows[k][1] for k in keys]
    given = [m for m in mids if m is not None]
    mid = np.concatenate(given) if len(given) == len(mids) else None  # capex mid-month: every row's part
    values = irr.irr_annual(rows, hurdle=hurdle_rate, mid_month=mid)
    n = cf.project_fcf.shape[0]
    return {k: values[i * n : (i + 1) * n] for i, k in enumerate(keys)}


EVENTS = ("covenant_breaches", "lockup_months", "payment_default_months", "sponsor_cure_usd")
"""The cash waterfall's events among the KPIs (:func:`events`)."""
KPIS = (
    "npv_usd",
    "project_irr",
    "equity_irr",
    "equity_npv_usd",
    "equity_mirr",
    "payback_months",
    "discounted_payback_months",
    "min_dscr",
    *EVENTS,
    "ebitda_margin",
    "gross_margin",
    "equity_moic",
    "go_live_month",
)
"""Every figure :meth:`Cases.kpis` returns, in order."""


def events(cf: finance.CashFlows) -> dict[str, np.ndarray]:
    """What the cash waterfall counted in each case (n,): ``covenant_breaches`` (quarterly tests below the covenant
    DSCR), ``lockup_months`` (months distributions were locked up), ``payment_default_months`` (months the cash and
    the reserve could not pay the debt service due) and ``sponsor_cure_usd`` (what the sponsor paid in those months)
    [count, months, months, USD]."""
    w = cf.waterfall
    cured = w.cure > finance.CASH_TOLERANCE_USD
    return {
        "covenant_breaches": w.breach.sum(axis=1).astype(float),
        "lockup_months": w.locked.sum(axis=1).astype(float),
        "payment_default_months": cured.sum(axis=1).astype(float),
        "sponsor_cure_usd": np.where(cured, w.cure, 0.0).sum(axis=1),
    }


@dataclass(frozen=True)
class Reliability:
    """What the failure model does to revenue in n cases (arrays (n,))."""

    outcome: operations.Outcome
    design: operations.Design
    price_factor: np.ndarray
    """Multiplier on the headline price from the performance customers cannot see at signature [ratio]."""
    utilization_factor: float
    """Multiplier on utilization from checklist gaps and spec cuts [ratio]."""
    customers: customers.Terms
    """Tier, premium, churn and acceptance of each case (:mod:`neoplan.economics.customers`)."""

    def credit_share(self, scenario: Scenario) -> np.ndarray | float:
        """Share of gross revenue given back as SLA credits, a column (n, 1) [fraction]: from unavailability
        (``failure_model``), else the fixed share."""
        ops, out = scenario.operations, self.outcome
        if ops.sla_credits == "failure_model":
            return operations.sla_credit_share(ops, out.availability)[:, None]
        return scenario.pricing.sla_credit_share

    def losses(self, scenario: Scenario, d: revenue.AnyDates) -> dict[str, np.ndarray]:
        """The customer losses as ``revenue_schedule`` takes them (n, months) [fraction]: a failed acceptance test
        of all gross revenue, churn of the reserved book's (:mod:`neoplan.economics.customers`)."""
        return {
            "customer_loss_share": customers.acceptance_share(scenario, d, self.customers),
            "reserved_loss_share": customers.churn_share(scenario, d, self.customers),
        }


def _reliability(
    scenario: Scenario, basis: OperatingBasis, drivers: Drivers, own: operations.Outcome | None = None
) -> Reliability | None:
    """The failure model's effect on n cases, or None when the basis carries no design figures.

    ``own``: :func:`operations.own_outcome` of the basis's design, to reuse when ``drivers`` are the scenario's own.
    """
    design = basis.reliability
    if design is None:
        return None
    ops = scenario.operations
    out = operations.outcome(ops, design, drivers.mtbf_multiple, drivers.detection_minutes) if own is None else own
    factor = operations.price_factor(ops, design, drivers.performance_penalty)
    terms = customers.terms(scenario, design, out, basis.reference_goodput)
    return Reliability(out, design, factor, design.utilization_factor, terms)


def _operate(
    scenario: Scenario, basis: OperatingBasis, drivers: Drivers, d: revenue.CaseDates, own: operations.Outcome | None
) -> tuple[revenue.RevenueSchedule, dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """(revenue, opex by category other than SG&A, SG&A, the share of planned tokens that find buyers (n,)) of n cases
    of the whole cluster on dates ``d``."""
    gpus = scenario.cluster.gpus
    price, util = drivers.usd_per_gpu_hour, drivers.utilization
    on_demand = np.full(price.shape, scenario.pricing.on_demand_price_multiple)
    reliability = _reliability(scenario, basis, drivers, own)
    sellable = gpus
    if reliability is not None:
        price, util = price * reliability.price_factor, util * reliability.utilization_factor
        on_demand = on_demand * (1.0 + reliability.customers.premium)
        sellable = reliability.design.sellable_gpus
    own_decline = market.scenario_average_decline(scenario, basis.dates.go_live_month)
    path = market.scenario_path(scenario, d.go_live_month).tilted(drivers.price_decline_per_year[:, None], own_decline)
    achieved = basis.tokens_per_gpu_hour * drivers.serving_load_factor  # tokens per sold GPU-hour
    token_price = drivers.usd_per_million_tokens * (achieved / inference.TOKENS_PER_MILLION)
    if reliability is not None:
        token_price = token_price * reliability.price_factor
    planned = drivers.token_share * sellable * inference.HOURS_PER_DAY * util * achieved  # tokens a day
    demand_scale = inference.demand_scale(planned, basis.token_demand_per_day)
    rev = revenue.sales_schedule(
        scenario.pricing,
        sellable,
        d,
        book=basis.book if basis.book is not None else contracts.book_of(scenario),
        spare_gpus=basis.spare_gpus + gpus - sellable,
        spot_share_of_idle=drivers.spot_share_of_idle[:, None],
        usd_per_gpu_hour=price[:, None],
        utilization=util[:, None],
        sla_credit_share=None if reliability is None else reliability.credit_share(scenario),
        price_path=path,
        reserved_price_multiple=drivers.reserved_price_multiple[:, None],
        on_demand_price_multiple=on_demand[:, None],
        **({} if reliability is None else reliability.losses(scenario, d)),
        token_share=drivers.token_share[:, None],
        token_usd_per_gpu_hour=token_price[:, None],
        token_price_decline_per_year=drivers.token_price_decline_per_year[:, None],
        token_demand_scale=demand_scale[:, None],
    )
    opex_fixed = monthly_opex(
        scenario,
        d,
        opex_usd_per_year={**basis.opex_usd_per_year, **basis.opex_per_rate},
        scale={c: getattr(drivers, driver) for c, driver in PER_RATE.items()},
        it_idle_kw=basis.it_idle_kw,
        it_busy_kw=basis.it_busy_kw,
        it_peak_kw=basis.it_peak_kw,
        utilization_by_month=np.minimum(rev.used_gpu_hours / (gpus * HOURS_PER_MONTH), 1.0),
        electricity_usd_per_kwh=drivers.electricity_usd_per_kwh,
        pue=drivers.pue,
        colo_usd_per_kw_month=drivers.colo_usd_per_kw_month,
        capex_multiple=drivers.capex_multiple,
        repairs_usd_per_month=None
        if reliability is None
        else operations.repair_usd_per_month(scenario.opex.remote_hands_usd_per_hour, reliability.outcome),
    )
    return rev, opex_fixed, sga_usd_per_year(rev.revenue_usd, drivers.sga_rate[:, None]), demand_scale


def run_cases(
    scenario: Scenario, basis: OperatingBasis, drivers: Drivers, own: operations.Outcome | None = None
) -> Cases:
    """Revenue, opex and cash flows of n cases of one design at once, vectorised across cases.

    Each case takes its own value of every driver (:class:`Drivers`); arrays are (n, months) and the only Python
    loop is the cash waterfall's loop over months (:mod:`neoplan.finance.waterfall`). A phased build
    (``timeline.phases``) is the sum of its phases (:mod:`neoplan.economics.phases`). Every case takes the same code
    path, alone or in a batch, so :func:`evaluate` (n = 1) and a stress test of unchanged drivers agree to rounding
    (numpy may sum arrays of another shape in another order: a relative 1e-12 covers it). ``own``:
    :func:`operations.own_outcome` of the basis's design when already computed and ``drivers`` are
    ``Drivers.of(scenario)`` (one case at the scenario's own values), so the failure model runs once.
    """
    timeline = scenario.timeline
    d = revenue.delayed(basis.dates, drivers.delivery_delay_months, drivers.useful_life_months)
    plan = phases.of(timeline, drivers.n)
    rows = drivers if plan.k == 1 else drivers.take(plan.case_of_row)
    row_dates = d if plan.k == 1 else plan.dates(basis.dates, drivers.delivery_delay_months, drivers.useful_life_months)
    own_rows = own if plan.k == 1 else None
    rev_rows, opex_rows, sga_rows, demand_rows = _operate(scenario, basis, rows, row_dates, own_rows)
    demand_scale = demand_rows if plan.k == 1 else demand_rows[:: plan.k]  # rows run case by case, phase by phase
    capex = basis.capex_usd * rows.capex_multiple
    share = plan.share_of_row
    rev_rows = plan.scaled_revenue(rev_rows)
    opex_rows = {k: plan.scaled(v) for k, v in {**opex_rows, "sga": sga_rows}.items()}
    opex_rows_total = sum(opex_rows.values(), np.zeros(1))
    contracted_rows = contracted_cfads_by_credit(scenario, rev_rows, opex_rows_total, basis.book)
    pay_rows = capex_payments(capex * share, row_dates, timeline.deposit_share, order_month=plan.order_of_row)
    refreshing = timeline.end_of_life == "refresh"
    refresh_rows = (
        refresh_payments(
            capex * share,
            row_dates,
            timeline.deposit_share,
            timeline.refresh_capex_multiple,
            order_month=plan.order_of_row,
        )
        if refreshing
        else None
    )
    rev = plan.combine_revenue(rev_rows)
    opex_by_category = {k: plan.total(v) for k, v in opex_rows.items()}
    opex = opex_rows_total if plan.k == 1 else plan.total(opex_rows_total)
    assets = plan.assets(
        capex * share,
        row_dates,
        rows.residual_value_share,
        residual_shape=residual.shape(scenario),
        refresh_capex_usd=capex * share * timeline.refresh_capex_multiple
        if timeline.end_of_life == "refresh"
        else None,
        tax_method=scenario.financing.tax_depreciation,
        tax_life_months=scenario.financing.tax_life_months,
        book_life_months=scenario.financing.depreciation_life_months,
    )
    groups = plan.groups(pay_rows, row_dates, contracted_rows, refresh_rows)
    cash = finance.phased_cash_flows(
        scenario.financing,
        revenue=rev.revenue_usd,
        opex=opex,
        groups=groups,
        assets=assets,
        bought=plan.total(pay_rows) + (0.0 if refresh_rows is None else plan.total(refresh_rows)),
        contracted={c: plan.total(a) for c, a in contracted_rows.items()},
        receivable_days=scenario.pricing.receivable_days,
        rate_shift=drivers.interest_rate - scenario.financing.interest_rate,
        debt_share=drivers.debt_share,
        prepayment_flow=prepayment_flow(rev, scenario.pricing.receivable_days),
        closing=basis.closing,
        capex_timing=timeline.capex_timing,
        as_of=scenario.prices_as_of,
    )
    return Cases(drivers, d, rev, opex_by_category, cash, demand_scale)


def prepayment_flow(rev: revenue.RevenueSchedule, receivable_days: float) -> np.ndarray | None:
    """Cash prepayments move (n, months) [USD]: received at signing, less the bills they settle (collected as the
    bills would be, ``receivable_days`` after their month); sums to 0. None without prepayments."""
    if not np.any(rev.prepayment_received_usd):
        return None
    return np.asarray(rev.prepayment_received_usd - finance.collections(rev.prepaid_revenue_usd, receivable_days))


def contracted_cfads_by_credit(
    scenario: Scenario, rev: revenue.RevenueSchedule, opex: np.ndarray, basis_book: contracts.Book | None = None
) -> dict[str, np.ndarray]:
    """The contracted cash flow at financial close by counterparty credit (``investment_grade``,
    ``sub_investment_grade``), each (n, months) [USD]: what a loan sized on contracts is sized on, and what sets the
    spread of a tranche whose spread follows the credit of its contracts.

    The committed revenue of the contracts signed at close (each take-or-pay and reserved contract's first term on
    the first cluster, renewals are not contracted at close: :func:`neoplan.economics.revenue.
    contracted_revenue_by_credit`) less its credit's committed share of each month's opex, before tax; a credit with
    no committed contract is left out. The shorthand's reserved contracts are of ``pricing.reserved_counterparty``.
    """
    book = basis_book if basis_book is not None else contracts.book_of(scenario)
    out = {}
    for credit, contracted in revenue.contracted_revenue_by_credit(rev).items():
        share = sum(line.share for line in book.committed if line.counterparty == credit)
        if share > 0:
            out[credit] = np.asarray(contracted - share * opex)
    return out

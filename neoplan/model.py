"""``evaluate``: Scenario + PriceBook → Result, the one entry point of the model.

Order of work: node BoM → storage → management and site → fabric (front-end and
OOB ports of storage and management feed it; its racks and power feed the site,
iterated to a fixed point) → capex → monthly revenue and opex → cash flows → KPIs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from . import finance, revenue
from .costs import CAPEX_CATEGORIES, CostLine, total_usd
from .fabric import FabricDesign, design_fabric
from .facility import FacilityDesign, design_facility
from .node import compute_servers, node_lines
from .opex import OPEX_CATEGORIES, opex_basis, opex_for_year
from .opex import hardware_capex_usd as _hardware_capex_usd
from .pricebook import Platform, PriceBook, default_platforms, default_price_book
from .scenario import Node, Scenario, ScenarioError
from .storage import StorageDesign, design_storage

TCO_CATEGORIES = ("capital", "power", "colocation", "staff", "software", "other")
_TCO_OF_OPEX = {
    "power": "power",
    "colocation": "colocation",
    "staff": "staff",
    "software": "software",
    "hardware_support": "other",
    "insurance": "other",
    "transit": "other",
}
FIXED_POINT_PASSES = 4
COST_OF_REVENUE = ("power", "colocation", "hardware_support", "software")
"""Opex categories in cost of revenue; gross margin excludes depreciation, as neoclouds report it."""


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
    """Everything the model computes for one scenario. Money in USD, counts as ints, rates as fractions.

    Tables (pandas DataFrames) are built on demand by the ``*_table`` methods so that
    ``evaluate`` itself stays fast.
    """

    scenario: Scenario
    book: PriceBook
    platform: Platform
    servers: int
    spare_servers: int
    node_lines: list[CostLine]
    oem_default_node_lines: list[CostLine]
    storage: StorageDesign
    facility: FacilityDesign
    fabric: FabricDesign
    capex_lines: list[CostLine]
    ops: Operations
    kpis: dict[str, float | None]
    tco_breakdown_usd_per_gpu_hour: dict[str, float]
    _energy_slope: float = 0.0
    warnings: list[str] = field(default_factory=list)

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
        """Opex of operating year ``year`` (1 = first year after go-live) by category, with ``total`` [USD]."""
        start = self.ops.dates.go_live_month + 12 * (year - 1)
        t = np.arange(self.ops.dates.months, dtype=float)
        weight = np.clip(t + 1 - start, 0, 1) - np.clip(t + 1 - start - 12, 0, 1)
        out = {k: float((v * weight).sum()) for k, v in self.ops.opex_by_category.items()}
        out["total"] = sum(out.values())
        return out

    @property
    def opex_usd_per_year(self) -> dict[str, float]:
        """Opex of the first full year after the warranty ends (run rate) by category, with ``total`` [USD]."""
        year = min(self.scenario.node.warranty_years + 1, max(int(self.ops.dates.months // 12) - 1, 1))
        return self.opex_for_year(year)

    # --- curves (vectorised over cases) ------------------------------------------------------------
    def returns_vs_price(self, usd_per_gpu_hour: Any) -> dict[str, np.ndarray]:
        """Project IRR, equity IRR, NPV and payback at each headline price [USD/GPU-h] (all else equal)."""
        prices = np.asarray(usd_per_gpu_hour, dtype=float).reshape(-1)
        _, cf, _ = operations(
            self.scenario,
            self.ops.dates,
            self.capex_total_usd,
            self._opex_fixed,
            self._energy_slope,
            usd_per_gpu_hour=prices[:, None],
        )
        return {
            "usd_per_gpu_hour": prices,
            "project_irr": finance.irr_annual(cf.project_fcf),
            "equity_irr": finance.irr_annual(cf.equity_fcf),
            "npv_usd": finance.npv(self.scenario.financing.hurdle_rate, cf.project_fcf),
            "payback_months": finance.payback_months(cf.project_fcf),
        }

    def dscr_by_year(self) -> dict[str, np.ndarray]:
        """DSCR per 12-month period of operation: ``start_month`` and ``dscr`` (nan where no debt service)."""
        starts, table = finance.dscr_by_period(self.ops.cash, int(np.ceil(self.ops.dates.go_live_month)))
        return {"start_month": starts, "dscr": table[0]}

    @property
    def _opex_fixed(self) -> dict[str, np.ndarray]:
        return {k: v for k, v in self.ops.opex_by_category.items() if k != "sga"}

    # --- tables ---------------------------------------------------------------------------------
    def bom_table(self) -> Any:
        """Node BoM lines as a DataFrame (one server)."""
        import pandas as pd

        return pd.DataFrame([line.as_record() for line in self.node_lines])

    def capex_table(self) -> Any:
        """Cluster capex lines as a DataFrame."""
        import pandas as pd

        return pd.DataFrame([line.as_record() for line in self.capex_lines])

    def monthly_table(self) -> Any:
        """Monthly accounts and cash flows as a DataFrame (one row per month) [USD]."""
        import pandas as pd

        c, ops = self.ops.cash, self.ops
        cols = {
            "month": np.arange(ops.dates.months),
            "sold_gpu_hours": ops.revenue.sold_gpu_hours,
            "revenue_usd": c.revenue[0],
            **{f"opex_{k}_usd": v for k, v in ops.opex_by_category.items()},
            "opex_usd": c.opex[0],
            "ebitda_usd": c.ebitda[0],
            "depreciation_usd": c.depreciation[0],
            "ebit_usd": c.ebit[0],
            "interest_usd": c.interest[0],
            "fees_usd": c.fees[0],
            "tax_usd": c.tax[0],
            "net_income_usd": c.net_income[0],
            "capex_usd": -c.capex[0],
            "residual_usd": c.residual[0],
            "debt_draw_usd": c.debt.draws[0],
            "principal_usd": -(c.debt.principal[0] + c.debt.payoff[0]),
            "interest_paid_usd": -c.debt.interest_paid[0],
            "debt_balance_usd": c.debt.balance[0],
            "project_fcf_usd": c.project_fcf[0],
            "equity_fcf_usd": c.equity_fcf[0],
            "cumulative_project_usd": np.cumsum(c.project_fcf[0]),
            "cumulative_equity_usd": np.cumsum(c.equity_fcf[0]),
        }
        return pd.DataFrame(cols)

    # --- contract -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON contract (ARCHITECTURE.md): base units, undefined values as ``None``."""
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
            "storage": {
                "servers": self.storage.servers,
                "usable_pb": self.storage.usable_pb,
                "read_gbyte_per_s": _clean(self.storage.read_gbyte_per_s),
            },
            **{k: _clean(v) for k, v in self.kpis.items()},
            "tco_breakdown_usd_per_gpu_hour": {k: _clean(v) for k, v in self.tco_breakdown_usd_per_gpu_hour.items()},
            "warnings": list(self.warnings),
        }


def _clean(value: float | None) -> float | None:
    """``None`` for undefined or non-finite values, else a plain float."""
    if value is None or not math.isfinite(value):
        return None
    return float(value)


def _platform(scenario: Scenario, platforms: dict[str, Platform]) -> Platform:
    key = scenario.cluster.gpu_model
    if key not in platforms:
        raise ScenarioError(f"cluster.gpu_model must be one of {', '.join(sorted(platforms))}, got {key!r}")
    platform = platforms[key]
    if scenario.cluster.gpus_per_node != platform.gpus_per_node:
        raise ScenarioError(
            f"cluster.gpus_per_node must be {platform.gpus_per_node} for {platform.name}, "
            f"got {scenario.cluster.gpus_per_node}"
        )
    return platform


def _scaled(lines: list[CostLine], count: int) -> list[CostLine]:
    """Per-server lines multiplied up to ``count`` servers."""
    return [
        CostLine(ln.category, ln.item, ln.key, ln.quantity * count, ln.unit, ln.unit_price_usd, ln.basis)
        for ln in lines
    ]


def _site(
    scenario: Scenario,
    book: PriceBook,
    storage: StorageDesign,
    fabric: FabricDesign | None,
    utilization: float | None = None,
) -> FacilityDesign:
    f = scenario.facility
    racks = 0 if fabric is None else fabric.backend.network_racks + fabric.frontend.network_racks
    power = 0.0 if fabric is None else sum(fabric.power_kw.values())
    return design_facility(
        scenario,
        book,
        utilization=utilization,
        network_power_kw=power,
        network_racks=racks,
        storage_power_kw=storage.power_kw,
        storage_racks=storage.racks,
        storage_servers=storage.servers,
        management_nodes=f.management_nodes,
        firewall_pairs=f.firewall_pairs,
        idle_power_share=f.idle_power_share,
        busy_power_share=f.busy_power_share,
    )


def _networks(scenario: Scenario, book: PriceBook, storage: StorageDesign, site: FacilityDesign) -> FabricDesign:
    return design_fabric(
        scenario,
        book,
        frontend_extra_ports=storage.frontend_ports + site.frontend_ports,
        oob_extra_ports=storage.oob_ports + site.oob_ports - site.pdus,
        pdus=site.pdus,
    )


def _monthly_opex(
    scenario: Scenario,
    book: PriceBook,
    site: FacilityDesign,
    storage: StorageDesign,
    capex_lines: list[CostLine],
    d: revenue.Dates,
    utilization_by_month: np.ndarray,
    energy_idle_usd_per_year: float,
    energy_slope_usd_per_year: float,
) -> dict[str, np.ndarray]:
    """Opex per month by category [USD] (SG&A excluded: it follows revenue and is added in finance).

    Colocation, power and insurance run from the start of site installation; staff from delivery;
    software, transit and hardware support from go-live (support only after the warranty).
    Power follows the month's sold share of GPU-hours (burn-in months at full load).
    """
    capex = total_usd(capex_lines)
    basis = opex_basis(
        scenario,
        facility=site,
        storage=storage,
        capex_usd=capex,
        hardware_capex_usd=_hardware_capex_usd(capex_lines, book),
    )
    months = d.months
    t = np.arange(months, dtype=float)
    site_on = revenue.active_share(months, d.install_start_month)
    staffed = revenue.active_share(months, d.delivery_month)
    live = revenue.active_share(months, d.go_live_month)
    year = np.maximum(np.floor((t + 0.5 - d.go_live_month) / 12.0), 0).astype(int) + 1
    n_years = int(year.max())
    yearly = [
        opex_for_year(scenario, book, basis, y, ufm_subscription=scenario.opex.ufm_subscription)
        for y in range(1, n_years + 1)
    ]
    by_year = {c: np.array([yr[c] for yr in yearly])[year - 1] / 12.0 for c in OPEX_CATEGORIES}
    burn_in = site_on - live  # share of the month installed but not yet earning: run at full load
    util = np.where(live > 0, utilization_by_month, 0.0)
    energy = (energy_idle_usd_per_year * site_on + energy_slope_usd_per_year * (util * live + burn_in)) / 12.0
    return {
        "power": energy,
        "colocation": by_year["colocation"] * site_on,
        "staff": by_year["staff"] * staffed,
        "hardware_support": by_year["hardware_support"] * live,
        "software": by_year["software"] * live,
        "insurance": by_year["insurance"] * site_on,
        "transit": by_year["transit"] * live,
    }


def capex_payments(capex_usd: float, d: revenue.Dates, deposit_share: float) -> np.ndarray:
    """Capex paid per month: the deposit at month 0, the balance in the delivery month [USD]."""
    pay = np.zeros(d.months)
    pay[0] += deposit_share * capex_usd
    pay[min(int(d.delivery_month), d.months - 1)] += (1.0 - deposit_share) * capex_usd
    return pay


def operations(
    scenario: Scenario,
    d: revenue.Dates,
    capex_usd: float,
    opex_fixed: dict[str, np.ndarray],
    energy_slope_usd_per_year: float,
    *,
    usd_per_gpu_hour: np.ndarray | float | None = None,
    interest_rate: float | None = None,
) -> tuple[revenue.RevenueSchedule, finance.CashFlows, np.ndarray]:
    """Revenue and cash flows for one or many headline prices; returns (revenue, cash flows, opex) (n, months)."""
    rev = revenue.revenue_schedule(scenario.pricing, scenario.cluster.gpus, d, usd_per_gpu_hour=usd_per_gpu_hour)
    sga = scenario.opex.sga_rate * rev.revenue_usd
    opex = sum(opex_fixed.values()) + sga
    pay = capex_payments(capex_usd, d, scenario.timeline.deposit_share)
    cf = finance.cash_flows(
        scenario.financing,
        revenue=rev.revenue_usd,
        opex=opex,
        capex_payments=pay,
        capex_total=capex_usd,
        go_live=d.go_live_month,
        life_months=scenario.timeline.useful_life_months,
        residual_share=scenario.timeline.residual_value_share,
        interest_rate=interest_rate,
    )
    return rev, cf, np.atleast_2d(opex)


def _tco(
    scenario: Scenario,
    d: revenue.Dates,
    capex_usd: float,
    opex_fixed: dict[str, np.ndarray],
    sold_gpu_hours: np.ndarray,
) -> dict[str, float]:
    """Levelised cost per sold GPU-hour by TCO category: PV(costs) / PV(sold hours) at the hurdle rate."""
    rate = scenario.financing.hurdle_rate
    hours = float(finance.npv(rate, sold_gpu_hours))
    if hours <= 0:
        return dict.fromkeys(TCO_CATEGORIES, math.nan)
    pay = capex_payments(capex_usd, d, scenario.timeline.deposit_share)
    pay[-1] -= scenario.timeline.residual_value_share * capex_usd
    out = dict.fromkeys(TCO_CATEGORIES, 0.0)
    out["capital"] = float(finance.npv(rate, pay)) / hours
    for category, flow in opex_fixed.items():
        out[_TCO_OF_OPEX[category]] += float(finance.npv(rate, flow)) / hours
    return out


def project_npv(
    scenario: Scenario, d: revenue.Dates, capex_usd: float, opex_fixed: dict[str, np.ndarray], prices: np.ndarray
) -> np.ndarray:
    """Project NPV at the hurdle rate for each headline price in ``prices`` (1-D) [USD]; financing plays no part."""
    rev = revenue.revenue_schedule(scenario.pricing, scenario.cluster.gpus, d, usd_per_gpu_hour=prices[:, None])
    ebitda = rev.revenue_usd * (1.0 - scenario.opex.sga_rate) - sum(opex_fixed.values())
    pay = capex_payments(capex_usd, d, scenario.timeline.deposit_share)
    dep = finance.depreciation(np.array([capex_usd]), d.months, d.go_live_month, scenario.timeline.useful_life_months)
    residual, gain = finance.residual_flows(
        np.array([capex_usd]), dep, d.months, scenario.timeline.residual_value_share
    )
    _, fcf = finance.project_flows(ebitda, pay, dep, residual, gain, scenario.financing.tax_rate)
    return finance.npv(scenario.financing.hurdle_rate, fcf)


def breakeven_price(
    scenario: Scenario,
    d: revenue.Dates,
    capex_usd: float,
    opex_fixed: dict[str, np.ndarray],
    max_usd_per_gpu_hour: float = 1000.0,
    points: int = 48,
    rounds: int = 3,
) -> float:
    """Headline price at which project NPV at the hurdle rate is 0 [USD/GPU-h]; nan if none up to the max.

    NPV rises with price and is piecewise linear (tax switches on), so a vectorised grid is zoomed in on
    the sign change ``rounds`` times and the root is interpolated linearly inside the last bracket.
    """
    lo, hi = 0.0, max_usd_per_gpu_hour
    grid = np.concatenate([[0.0], np.geomspace(0.01, hi, points)])
    for _ in range(rounds):
        values = project_npv(scenario, d, capex_usd, opex_fixed, grid)
        if values[0] >= 0:
            return float(grid[0])
        above = np.nonzero(values >= 0)[0]
        if above.size == 0:
            return math.nan
        i = int(above[0])
        lo, hi, f_lo, f_hi = grid[i - 1], grid[i], values[i - 1], values[i]
        grid = np.linspace(lo, hi, points)
    return float(lo - f_lo * (hi - lo) / (f_hi - f_lo))


def evaluate(scenario: Scenario, book: PriceBook | None = None) -> Result:
    """Evaluate ``scenario`` with ``book`` (default: the shipped price book + the scenario's overrides)."""
    try:
        return _evaluate(scenario, book)
    except ScenarioError:
        raise
    except ValueError as exc:  # sizing and finance modules name the field in their messages
        raise ScenarioError(str(exc)) from None


def _evaluate(scenario: Scenario, book: PriceBook | None) -> Result:
    base_book = book if book is not None else default_price_book()
    book = base_book.with_overrides({**base_book.overrides, **scenario.prices})
    platform = _platform(scenario, default_platforms())
    servers, spares = compute_servers(scenario.cluster.servers, scenario.cluster.hot_spare_share)

    lines = node_lines(scenario.node, scenario.fabric, platform, book)
    oem_lines = node_lines(Node(preset="oem_default"), scenario.fabric, platform, book)
    st = scenario.storage
    storage = design_storage(scenario, book, server_model=st.server_model, bytes_per_param=st.bytes_per_param)
    site = _site(scenario, book, storage, None)
    fabric = _networks(scenario, book, storage, site)
    for _ in range(FIXED_POINT_PASSES):
        site = _site(scenario, book, storage, fabric)
        again = _networks(scenario, book, storage, site)
        if again.lines == fabric.lines and again.power_kw == fabric.power_kw:
            break
        fabric = again
    capex_lines = _scaled(lines, servers + spares) + list(fabric.lines) + list(storage.lines) + list(site.lines)
    capex = total_usd(capex_lines)

    d = revenue.dates(scenario.timeline)
    idle = _site(scenario, book, storage, fabric, utilization=0.0).energy_usd_per_year
    slope = _site(scenario, book, storage, fabric, utilization=1.0).energy_usd_per_year - idle
    capacity = scenario.cluster.gpus * revenue.HOURS_PER_MONTH
    rev0 = revenue.revenue_schedule(scenario.pricing, scenario.cluster.gpus, d)
    util_by_month = rev0.sold_gpu_hours / capacity
    opex_fixed = _monthly_opex(scenario, book, site, storage, capex_lines, d, util_by_month, idle, slope)
    rev, cf, _ = operations(scenario, d, capex, opex_fixed, slope)
    opex_by_category = {**opex_fixed, "sga": scenario.opex.sga_rate * rev.revenue_usd}

    tco = _tco(scenario, d, capex, opex_fixed, rev.sold_gpu_hours)
    first_operating = int(np.ceil(d.go_live_month))
    revenue_total = float(cf.revenue.sum())
    equity_out = float(-cf.equity_fcf[cf.equity_fcf < 0].sum())
    kpis: dict[str, float | None] = {
        "tco_usd_per_gpu_hour": sum(tco.values()),
        "breakeven_usd_per_gpu_hour": breakeven_price(scenario, d, capex, opex_fixed),
        "npv_usd": float(finance.npv(scenario.financing.hurdle_rate, cf.project_fcf)[0]),
        "project_irr": float(finance.irr_annual(cf.project_fcf[0])),
        "equity_irr": float(finance.irr_annual(cf.equity_fcf[0])),
        "payback_months": float(finance.payback_months(cf.project_fcf[0])),
        "min_dscr": float(finance.min_dscr(cf, first_operating)[0]),
        "ebitda_margin": float(cf.ebitda.sum() / revenue_total) if revenue_total > 0 else math.nan,
        "gross_margin": float(1.0 - sum(opex_fixed[k].sum() for k in COST_OF_REVENUE) / revenue_total)
        if revenue_total > 0
        else math.nan,
        "equity_moic": float(cf.equity_fcf[cf.equity_fcf > 0].sum() / equity_out) if equity_out > 0 else math.nan,
        "go_live_month": d.go_live_month,
    }
    warnings = [*storage.warnings, *site.warnings, *fabric.warnings]
    return Result(
        scenario=scenario,
        book=book,
        platform=platform,
        servers=servers,
        spare_servers=spares,
        node_lines=lines,
        oem_default_node_lines=oem_lines,
        storage=storage,
        facility=site,
        fabric=fabric,
        capex_lines=capex_lines,
        ops=Operations(d, _first(rev), {k: np.asarray(v) for k, v in opex_by_category.items()}, cf),
        kpis=kpis,
        tco_breakdown_usd_per_gpu_hour=tco,
        warnings=warnings,
    )


def _first(rev: revenue.RevenueSchedule) -> revenue.RevenueSchedule:
    """A one-case schedule with its leading axis dropped."""
    return revenue.RevenueSchedule(
        *(
            np.atleast_2d(a)[0]
            for a in (
                rev.reserved_gpu_hours,
                rev.on_demand_gpu_hours,
                rev.reserved_usd_per_gpu_hour,
                rev.on_demand_usd_per_gpu_hour,
                rev.gross_usd,
                rev.sla_credits_usd,
            )
        )
    )

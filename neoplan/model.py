"""``evaluate``: Scenario + PriceBook → Result, the one entry point of the model.

Order of work: node BoM → storage → management and site → fabric (front-end and
OOB ports of storage and management feed it; its racks and power feed the site,
iterated to a fixed point) → capex → monthly revenue and opex → cash flows → KPIs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from . import finance, revenue
from .costs import CAPEX_CATEGORIES, CostLine, total_usd
from .fabric import FabricDesign, FabricError, design_fabric
from .facility import FacilityDesign, colo_usd_per_year, design_facility, energy_kwh_per_year
from .node import compute_servers, node_lines
from .opex import hardware_capex_usd as _hardware_capex_usd
from .opex import opex_basis, opex_for_year
from .pricebook import Platform, PriceBook, PriceBookError, default_platforms, default_price_book
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
    basis: OperatingBasis | None = None
    """What :meth:`cases` needs to re-run the monthly engine for other driver values."""

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
    def drivers(self, n: int = 1) -> Drivers:
        """This scenario's own driver values, repeated for ``n`` cases (replace some with ``with_values``)."""
        return Drivers.of(self.scenario, n)

    def cases(self, drivers: Drivers) -> Cases:
        """Re-run the monthly engine of this design for n cases of the stress drivers (see :func:`run_cases`)."""
        if self.basis is None:
            raise ValueError("this Result carries no operating basis; build it with neoplan.evaluate")
        return run_cases(self.scenario, self.basis, drivers)

    def returns_vs_price(self, usd_per_gpu_hour: Any) -> dict[str, np.ndarray]:
        """Project IRR, equity IRR, NPV and payback at each headline price [USD/GPU-h] (all else equal)."""
        prices = np.asarray(usd_per_gpu_hour, dtype=float).reshape(-1)
        k = self.cases(self.drivers(prices.size).with_values(usd_per_gpu_hour=prices)).kpis(
            self.scenario.financing.hurdle_rate
        )
        return {
            "usd_per_gpu_hour": prices,
            **{key: k[key] for key in ("project_irr", "equity_irr", "npv_usd", "payback_months")},
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


@lru_cache(maxsize=1)
def _oem_default_node() -> Node:
    """The OEM-default node BoM (validated once; shared read-only)."""
    return Node(preset="oem_default")


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


@dataclass(frozen=True)
class Drivers:
    """Per-case values of the stress drivers: each field an array of shape (n,) in the unit its name gives.

    :meth:`of` repeats the scenario's own values; :meth:`with_values` replaces some of them. The design
    (BoM, fabric, site) does not depend on any driver, so n cases share one :class:`OperatingBasis`.
    """

    usd_per_gpu_hour: np.ndarray
    """Headline on-demand price at go-live [USD/GPU-h]."""
    price_decline_per_year: np.ndarray
    """Yearly fall of on-demand and renewal prices [fraction]."""
    utilization: np.ndarray
    """Share of sellable GPU-hours sold at steady state [fraction]."""
    capex_multiple: np.ndarray
    """Capex as a multiple of the designed capex [ratio]; insurance and hardware support follow it."""
    interest_rate: np.ndarray
    """Annual interest rate on the debt [fraction]."""
    debt_share: np.ndarray
    """Share of capex funded by debt [fraction]."""
    electricity_usd_per_kwh: np.ndarray
    """Electricity price [USD/kWh]; no effect when the colocation price includes electricity."""
    pue: np.ndarray
    """Power usage effectiveness [ratio]; scales energy, not the colocation rent on IT kW."""
    colo_usd_per_kw_month: np.ndarray
    """Colocation price per contracted IT kW [USD/kW-month]."""
    delivery_delay_months: np.ndarray
    """Slip of the delivery date; everything after delivery moves with it [months]."""
    useful_life_months: np.ndarray
    """Depreciation life of the hardware [months]."""
    residual_value_share: np.ndarray
    """Resale value at the horizon [fraction of capex]."""

    @classmethod
    def of(cls, scenario: Scenario, n: int = 1) -> Drivers:
        """The scenario's own values, repeated for ``n`` cases."""
        p, f, fin, t = scenario.pricing, scenario.facility, scenario.financing, scenario.timeline
        base = {
            "usd_per_gpu_hour": p.usd_per_gpu_hour,
            "price_decline_per_year": p.price_decline_per_year,
            "utilization": p.utilization,
            "capex_multiple": 1.0,
            "interest_rate": fin.interest_rate,
            "debt_share": fin.debt_share,
            "electricity_usd_per_kwh": f.electricity_usd_per_kwh,
            "pue": f.pue,
            "colo_usd_per_kw_month": f.colo_usd_per_kw_month,
            "delivery_delay_months": 0.0,
            "useful_life_months": float(t.useful_life_months),
            "residual_value_share": t.residual_value_share,
        }
        return cls(**{k: np.full(n, float(v)) for k, v in base.items()})

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
    """Contracted (peak) IT load the colocation rent is paid on [kW]."""
    opex_usd_per_year: dict[str, np.ndarray | float]
    """Yearly opex by category other than power and colocation, index 0 = operating year 1 [USD/year];
    a float where it is the same every year."""


BASIS_CATEGORIES = ("staff", "hardware_support", "software", "insurance", "transit")
"""Opex categories taken from :func:`~neoplan.opex.opex_for_year`; power and colocation follow the drivers."""
CAPEX_LINKED = ("hardware_support", "insurance")
"""Opex categories proportional to capex: they scale with :attr:`Drivers.capex_multiple`."""


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
    years = d.months // 12 + 2
    ufm = scenario.opex.ufm_subscription
    yearly = [opex_for_year(scenario, book, basis, y, ufm_subscription=ufm) for y in range(1, years + 1)]
    table = {c: _per_year(np.array([yr[c] for yr in yearly])) for c in BASIS_CATEGORIES}
    return OperatingBasis(d, capex, it_idle_kw, it_busy_kw, site.it_peak_kw, table)


def _per_year(values: np.ndarray) -> np.ndarray | float:
    """Yearly values as they are, or one float when every year's value is the same."""
    return float(values[0]) if np.all(values == values[0]) else values


def _by_year(table: np.ndarray | float, year: np.ndarray) -> np.ndarray | float:
    """``table[year]`` [USD/year]; a float table is the same every year (no (n, months) lookup)."""
    return table if isinstance(table, float) else table[year]


def monthly_opex(
    scenario: Scenario,
    basis: OperatingBasis,
    d: revenue.CaseDates,
    drivers: Drivers,
    utilization_by_month: np.ndarray,
) -> dict[str, np.ndarray]:
    """Opex per month by category for n cases (n, months) [USD]; SG&A excluded (it follows revenue).

    Colocation, power and insurance run from the start of site installation; staff from delivery;
    software, transit and hardware support from go-live (support only after the warranty).
    Power follows the month's sold share of GPU-hours (burn-in months at full load) and is priced at
    the case's electricity price and PUE; colocation at the case's price per IT kW. ``d`` holds
    per-case dates (columns (n, 1), see :func:`~neoplan.revenue.delayed`).
    """
    months = d.months
    t = np.arange(months, dtype=float)
    site_on = revenue.active_share(months, d.install_start_month)
    staffed = revenue.active_share(months, d.delivery_month)
    live = revenue.active_share(months, d.go_live_month)
    year = np.maximum(np.floor((t + 0.5 - d.go_live_month) / 12.0), 0).astype(int)  # 0 = first year
    by_year = {c: _by_year(basis.opex_usd_per_year[c], year) / 12.0 for c in BASIS_CATEGORIES}

    price = 0.0 if scenario.facility.electricity_in_colo else drivers.electricity_usd_per_kwh
    pue: Any = drivers.pue  # the facility formulas are plain arithmetic: they work per case on arrays
    idle = np.asarray(energy_kwh_per_year(basis.it_idle_kw, pue)) * price
    slope = np.asarray(energy_kwh_per_year(basis.it_busy_kw, pue)) * price - idle
    burn_in = site_on - live  # share of the month installed but not yet earning: run at full load
    util = np.where(live > 0, utilization_by_month, 0.0)
    energy = (idle[:, None] * site_on + slope[:, None] * (util * live + burn_in)) / 12.0
    colo_price: Any = drivers.colo_usd_per_kw_month
    colo = np.asarray(colo_usd_per_year(basis.it_peak_kw, colo_price))[:, None] / 12.0
    capex_multiple = drivers.capex_multiple[:, None]
    return {
        "power": energy,
        "colocation": colo * site_on,
        "staff": by_year["staff"] * staffed,
        "hardware_support": by_year["hardware_support"] * live * capex_multiple,
        "software": by_year["software"] * live,
        "insurance": by_year["insurance"] * site_on * capex_multiple,
        "transit": by_year["transit"] * live,
    }


def capex_payments(capex_usd: float | np.ndarray, d: revenue.AnyDates, deposit_share: float) -> np.ndarray:
    """Capex paid per month: the deposit at month 0, the balance in the delivery month [USD].

    One case: ``capex_usd`` a float and scalar dates → (months,). Many: ``capex_usd`` (n,) and/or
    per-case dates → (n, months).
    """
    if np.ndim(capex_usd) == 0 and np.ndim(d.delivery_month) == 0:
        pay = np.zeros(d.months)
        pay[0] += deposit_share * capex_usd
        pay[min(int(d.delivery_month), d.months - 1)] += (1.0 - deposit_share) * capex_usd
        return pay
    capex = np.asarray(capex_usd, dtype=float).reshape(-1, 1)
    at = np.minimum(np.floor(np.asarray(d.delivery_month, dtype=float)).astype(int), d.months - 1)
    t = np.arange(d.months)
    return np.where(t == 0, deposit_share * capex, 0.0) + np.where(t == at, (1.0 - deposit_share) * capex, 0.0)


@dataclass(frozen=True)
class Cases:
    """n cases of one design evaluated at once: schedules of shape (n, months) [USD unless named]."""

    drivers: Drivers
    dates: revenue.CaseDates
    revenue: revenue.RevenueSchedule
    opex_by_category: dict[str, np.ndarray]
    cash: finance.CashFlows

    @property
    def first_operating_month(self) -> np.ndarray:
        """First full month of operation of each case (n,) [month]."""
        return np.ceil(np.asarray(self.dates.go_live_month, dtype=float).reshape(-1)).astype(int)

    def kpis(self, hurdle_rate: float) -> dict[str, np.ndarray]:
        """Returns of each case (n,): the KPIs of :func:`evaluate` other than TCO and break-even price.

        ``npv_usd`` at ``hurdle_rate`` [per year]; IRRs annual; ``payback_months`` from month 0;
        ``min_dscr`` over 12-month periods from each case's first operating month; margins over the
        horizon; ``equity_moic`` = cash to equity / cash from equity. Undefined values are ``nan``.
        """
        cf = self.cash
        revenue_total = cf.revenue.sum(axis=1)
        earns = revenue_total > 0
        per_revenue = np.where(earns, revenue_total, 1.0)
        cost_of_revenue = sum(self.opex_by_category[k].sum(axis=1) for k in COST_OF_REVENUE)
        equity = cf.equity_fcf
        equity_in = -np.where(equity < 0, equity, 0.0).sum(axis=1)
        equity_out = np.where(equity > 0, equity, 0.0).sum(axis=1)
        n = cf.project_fcf.shape[0]
        irr = finance.irr_annual(np.concatenate([cf.project_fcf, cf.equity_fcf]))  # one solve for both
        with np.errstate(over="ignore"):  # a revenue or equity near 0 (a price of 1e-320) gives ±inf: undefined
            ratios = {
                "ebitda_margin": np.where(earns, cf.ebitda.sum(axis=1) / per_revenue, np.nan),
                "gross_margin": np.where(earns, 1.0 - cost_of_revenue / per_revenue, np.nan),
                "equity_moic": np.where(equity_in > 0, equity_out / np.where(equity_in > 0, equity_in, 1.0), np.nan),
            }
        return {
            "npv_usd": finance.npv(hurdle_rate, cf.project_fcf),
            "project_irr": irr[:n],
            "equity_irr": irr[n:],
            "payback_months": finance.payback_months(cf.project_fcf),
            "min_dscr": finance.min_dscr(cf, self.first_operating_month),
            **ratios,
            "go_live_month": np.asarray(self.dates.go_live_month, dtype=float).reshape(-1),
        }


def run_cases(scenario: Scenario, basis: OperatingBasis, drivers: Drivers) -> Cases:
    """Revenue, opex and cash flows of n cases of one design at once, vectorised across cases.

    Each case takes its own value of every driver (:class:`Drivers`); arrays are (n, months) and the
    only Python loop is the debt schedule's loop over months. A case gives the same numbers alone or
    in a batch, so :func:`evaluate` (n = 1) and a stress test of unchanged drivers agree exactly.
    """
    d = revenue.delayed(basis.dates, drivers.delivery_delay_months)
    gpus = scenario.cluster.gpus
    rev = revenue.revenue_schedule(
        scenario.pricing,
        gpus,
        d,
        usd_per_gpu_hour=drivers.usd_per_gpu_hour[:, None],
        utilization=drivers.utilization[:, None],
        price_decline_per_year=drivers.price_decline_per_year[:, None],
    )
    util_by_month = rev.sold_gpu_hours / (gpus * revenue.HOURS_PER_MONTH)
    opex_fixed = monthly_opex(scenario, basis, d, drivers, util_by_month)
    sga = scenario.opex.sga_rate * rev.revenue_usd
    opex = sum(opex_fixed.values()) + sga
    capex = basis.capex_usd * drivers.capex_multiple
    cash = finance.cash_flows(
        scenario.financing,
        revenue=rev.revenue_usd,
        opex=opex,
        capex_payments=capex_payments(capex, d, scenario.timeline.deposit_share),
        capex_total=capex,
        go_live=np.asarray(d.go_live_month).reshape(-1),
        life_months=drivers.useful_life_months,
        residual_share=drivers.residual_value_share,
        interest_rate=drivers.interest_rate,
        debt_share=drivers.debt_share,
    )
    return Cases(drivers, d, rev, {**opex_fixed, "sga": sga}, cash)


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
    with np.errstate(over="ignore"):  # a tiny utilization (1e-320) sells too few hours: the TCO is infinite
        present = finance.npv(rate, np.stack([pay, *opex_fixed.values()])) / hours  # one discounting for all
    out = dict.fromkeys(TCO_CATEGORIES, 0.0)
    out["capital"] = float(present[0])
    for category, value in zip(opex_fixed, present[1:], strict=True):
        out[_TCO_OF_OPEX[category]] += float(value)
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


def _project_npv_curve(
    scenario: Scenario, d: revenue.Dates, capex_usd: float, opex_fixed: dict[str, np.ndarray]
) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`project_npv` as a function of the prices alone, with everything price-independent built once.

    Revenue is affine in the headline price (every contract price is proportional to it, or pinned), so
    it is tabulated at two prices and interpolated; a third price checks that, else the full model runs.
    """
    probe = np.array([0.0, 1.0, 2.0])
    rev = revenue.revenue_schedule(scenario.pricing, scenario.cluster.gpus, d, usd_per_gpu_hour=probe[:, None])
    at_zero, per_usd = rev.revenue_usd[0], rev.revenue_usd[1] - rev.revenue_usd[0]
    off_line = np.abs(rev.revenue_usd[2] - (at_zero + 2.0 * per_usd)).max(initial=0.0)
    if off_line > 1e-9 * np.abs(rev.revenue_usd[2]).max(initial=0.0) + 1e-6:
        return lambda prices: project_npv(scenario, d, capex_usd, opex_fixed, prices)
    keep = 1.0 - scenario.opex.sga_rate
    ebitda_at_zero, ebitda_per_usd = at_zero * keep - sum(opex_fixed.values()), per_usd * keep
    pay = capex_payments(capex_usd, d, scenario.timeline.deposit_share)
    capex = np.array([capex_usd])
    dep = finance.depreciation(capex, d.months, d.go_live_month, scenario.timeline.useful_life_months)
    residual, gain = finance.residual_flows(capex, dep, d.months, scenario.timeline.residual_value_share)
    taxable_at_zero = ebitda_at_zero - dep[0] + gain[0]
    rate, tax_rate = scenario.financing.hurdle_rate, scenario.financing.tax_rate
    # project free cash flow = EBITDA − capex − tax + residual, and only the tax is not linear in price
    npv_at_zero = float(finance.npv(rate, ebitda_at_zero - pay + residual[0]))
    npv_per_usd = float(finance.npv(rate, ebitda_per_usd))

    def npv_at(prices: np.ndarray) -> np.ndarray:
        tax = finance.tax_with_loss_carry_forward(taxable_at_zero + prices[:, None] * ebitda_per_usd, tax_rate)
        return npv_at_zero + prices * npv_per_usd - finance.npv(rate, tax)

    return npv_at


KPI_LABELS = {
    "tco_usd_per_gpu_hour": "TCO",
    "breakeven_usd_per_gpu_hour": "Break-even price",
    "npv_usd": "NPV",
    "project_irr": "Project IRR",
    "equity_irr": "Equity IRR",
    "payback_months": "Payback",
    "min_dscr": "Min DSCR",
    "ebitda_margin": "EBITDA margin",
    "gross_margin": "Gross margin",
    "equity_moic": "Equity MOIC",
    "go_live_month": "Go-live month",
}
"""The KPIs of :func:`evaluate` by key, as named in the app and in the warnings about undefined ones."""
BREAKEVEN_MAX_USD_PER_GPU_HOUR = 1000.0
"""Highest headline price the break-even search tries [USD/GPU-h]."""


def _irr_reason(flows: np.ndarray, whose: str) -> str:
    """Why the IRR of monthly ``flows`` is undefined (see :func:`finance.irr_annual`)."""
    if not (flows > 0).any():
        return f"{whose} cash flows never turn positive"
    if not (flows < 0).any():
        return f"{whose} cash flows are never negative, so nothing is invested to earn a return on"
    last = flows[np.nonzero(flows)[0][-1]]
    if last < 0:
        return f"{whose} cash flows end negative, as they start, so no single rate makes their NPV zero"
    return f"the solver finds no rate from -99 % to +100 % a month that makes the NPV of the {whose} cash flows zero"


def undefined_kpi_warnings(
    kpis: dict[str, float | None], cash: finance.CashFlows, sold_gpu_hours: np.ndarray, horizon_months: int
) -> list[str]:
    """One sentence per KPI that is ``None`` or not finite, naming the KPI and saying why.

    ``cash`` holds one case (arrays of shape (1, months)); ``sold_gpu_hours`` is that case's (months,).
    """
    project, equity = cash.project_fcf[0], cash.equity_fcf[0]
    hours, revenue_usd = float(np.sum(sold_gpu_hours)), float(np.sum(cash.revenue[0]))
    equity_in_usd = -float(np.sum(equity[equity < 0]))
    no_hours, no_revenue = not hours > 0, not revenue_usd > 0
    margin = "no revenue over the horizon" if no_revenue else f"revenue of ${revenue_usd:.3g} is too small to divide by"
    reasons = {
        "tco_usd_per_gpu_hour": "no GPU-hours are sold over the horizon, so there is nothing to spread the costs over"
        if no_hours
        else f"{hours:.3g} sold GPU-hours are too few to spread the costs over",
        "breakeven_usd_per_gpu_hour": "no GPU-hours are sold, so no price recovers the costs"
        if no_hours
        else f"project NPV stays negative at every price up to ${BREAKEVEN_MAX_USD_PER_GPU_HOUR:,.0f}/GPU-hour",
        "npv_usd": "the discounted cash flows are not a finite number",
        "project_irr": _irr_reason(project, "project"),
        "equity_irr": _irr_reason(equity, "equity"),
        "payback_months": "cumulative project cash is never negative, so there is nothing to pay back"
        if not (np.cumsum(project) < 0).any()
        else f"no payback within the {horizon_months}-month horizon (cumulative project cash never gets back to 0)",
        "min_dscr": "no debt, so no DSCR"
        if not float(np.sum(cash.debt.draws[0])) > 0
        else "no debt service falls due in any 12-month period of operation",
        "ebitda_margin": margin,
        "gross_margin": margin,
        "equity_moic": "equity puts no cash in (debt funds everything)"
        if not equity_in_usd > 0
        else f"equity puts in ${equity_in_usd:.3g}, too little to divide by",
    }
    out = []
    for key, value in kpis.items():
        if value is None or not math.isfinite(value):
            label = KPI_LABELS.get(key, key)
            out.append(f"{label} undefined: {reasons.get(key, 'not a finite number')}.")
    return out


@lru_cache(maxsize=8)
def _price_grid(max_usd_per_gpu_hour: float, points: int) -> np.ndarray:
    """0 and ``points`` prices spaced evenly in log from 0.01 to the max: the first search grid [USD/GPU-h]."""
    grid = np.concatenate([[0.0], np.geomspace(0.01, max_usd_per_gpu_hour, points)])
    grid.flags.writeable = False
    return grid


def breakeven_price(
    scenario: Scenario,
    d: revenue.Dates,
    capex_usd: float,
    opex_fixed: dict[str, np.ndarray],
    max_usd_per_gpu_hour: float = BREAKEVEN_MAX_USD_PER_GPU_HOUR,
    points: int = 48,
    rounds: int = 3,
) -> float:
    """Headline price at which project NPV at the hurdle rate is 0 [USD/GPU-h]; nan if none up to the max.

    NPV rises with price and is piecewise linear (tax switches on), so a vectorised grid is zoomed in on
    the sign change up to ``rounds`` times; the root is interpolated linearly inside the bracket and
    returned as soon as NPV there is zero to rounding (no kink inside the bracket).
    """
    grid = _price_grid(float(max_usd_per_gpu_hour), points)
    npv_at = _project_npv_curve(scenario, d, capex_usd, opex_fixed)
    values = npv_at(grid)
    for _ in range(rounds):
        if values[0] >= 0:
            return float(grid[0])
        above = np.nonzero(values >= 0)[0]
        if above.size == 0:
            return math.nan
        i = int(above[0])
        lo, hi, f_lo, f_hi = grid[i - 1], grid[i], values[i - 1], values[i]
        root = lo - f_lo * (hi - lo) / (f_hi - f_lo)
        grid = np.linspace(lo, hi, points)
        values = npv_at(np.append(grid, root))
        if abs(values[-1]) <= 1e-9 * (abs(f_lo) + abs(f_hi)):
            break
        values = values[:-1]
    return float(root)


_NAMES_A_FIELD = re.compile(rf"^({'|'.join(Scenario.model_fields)})[.: ]")
"""A sizing or finance error about the user's input starts with the field or section it concerns."""


def evaluate(scenario: Scenario, book: PriceBook | None = None) -> Result:
    """Evaluate ``scenario`` with ``book`` (default: the shipped price book + the scenario's overrides).

    Raises :class:`ScenarioError` for a design the inputs make impossible (the message names the field);
    any other error is a bug and propagates as is.
    """
    try:
        return _evaluate(scenario, book)
    except ScenarioError:
        raise
    except FabricError as exc:  # an impossible fabric; the message names the field to change
        raise ScenarioError(str(exc)) from None
    except ValueError as exc:  # sizing and finance modules name the field in their messages
        if _NAMES_A_FIELD.match(str(exc)):
            raise ScenarioError(str(exc)) from None
        raise


def _design(
    scenario: Scenario, book: PriceBook, storage: StorageDesign
) -> tuple[FacilityDesign, FabricDesign]:
    """Site and networks sized together: the site's ports feed the fabric, the fabric's racks and power the site.

    Iterated to a fixed point; a pass whose site asks the fabric for the same ports stops without
    re-sizing the fabric (it would come out the same).
    """
    site = _site(scenario, book, storage, None)
    fabric = _networks(scenario, book, storage, site)
    asked = (site.frontend_ports, site.oob_ports, site.pdus)
    for _ in range(FIXED_POINT_PASSES):
        site = _site(scenario, book, storage, fabric)
        if (site.frontend_ports, site.oob_ports, site.pdus) == asked:
            break
        asked = (site.frontend_ports, site.oob_ports, site.pdus)
        again = _networks(scenario, book, storage, site)
        if again.lines == fabric.lines and again.power_kw == fabric.power_kw:
            break
        fabric = again
    return site, fabric


def _evaluate(scenario: Scenario, book: PriceBook | None) -> Result:
    base_book = book if book is not None else default_price_book()
    try:
        book = base_book.with_overrides({**base_book.overrides, **scenario.prices})
    except PriceBookError as exc:  # an unknown key or a bad value under prices:
        raise ScenarioError(str(exc)) from None
    platform = _platform(scenario, default_platforms())
    servers, spares = compute_servers(scenario.cluster.servers, scenario.cluster.hot_spare_share)

    lines = node_lines(scenario.node, scenario.fabric, platform, book)
    oem_lines = node_lines(_oem_default_node(), scenario.fabric, platform, book)
    st = scenario.storage
    storage = design_storage(scenario, book, server_model=st.server_model, bytes_per_param=st.bytes_per_param)
    site, fabric = _design(scenario, book, storage)
    capex_lines = _scaled(lines, servers + spares) + list(fabric.lines) + list(storage.lines) + list(site.lines)
    capex = total_usd(capex_lines)

    d = revenue.dates(scenario.timeline)
    it_idle_kw = _site(scenario, book, storage, fabric, utilization=0.0).it_avg_kw
    it_busy_kw = _site(scenario, book, storage, fabric, utilization=1.0).it_avg_kw
    basis = operating_basis(scenario, book, site, storage, capex_lines, d, it_idle_kw, it_busy_kw)
    cases = run_cases(scenario, basis, Drivers.of(scenario))
    returns = cases.kpis(scenario.financing.hurdle_rate)
    opex_by_category = {k: v[0] for k, v in cases.opex_by_category.items()}
    opex_fixed = {k: v for k, v in opex_by_category.items() if k != "sga"}
    rev = _first(cases.revenue)
    cf = cases.cash

    tco = _tco(scenario, d, capex, opex_fixed, rev.sold_gpu_hours)
    kpis: dict[str, float | None] = {
        "tco_usd_per_gpu_hour": sum(tco.values()),
        "breakeven_usd_per_gpu_hour": breakeven_price(scenario, d, capex, opex_fixed),
        **{k: float(v[0]) for k, v in returns.items()},
    }
    warnings = [*storage.warnings, *site.warnings, *fabric.warnings]
    warnings += undefined_kpi_warnings(kpis, cf, rev.sold_gpu_hours, scenario.timeline.horizon_months)
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
        ops=Operations(d, rev, opex_by_category, cf),
        kpis=kpis,
        tco_breakdown_usd_per_gpu_hour=tco,
        warnings=warnings,
        basis=basis,
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

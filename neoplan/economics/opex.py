"""Operating costs: the one place each opex category is computed, yearly and month by month.

Categories (``OPEX_CATEGORIES``), all in USD per year:

============== =======================================================================================
power          electricity: average IT kW × PUE × hours per year × price (0 when the colo price includes it)
colocation     contracted peak IT kW × price per kW-month × 12
staff          FTE per 1,000 GPUs × GPUs ÷ 1,000 × loaded cost per FTE
hardware_sup.  support rate × hardware capex, only in years after ``node.warranty_years``
repairs        remote hands and freight per failure that needs a part or a server swap (failure model,
               :func:`neoplan.economics.operations.repair_usd_per_month`); 0 where no failure model runs
software       NVIDIA AI Enterprise per GPU (when toggled; hot spares need licences too), UFM
               subscription per back-end endpoint (when subscribed), the engineering time an OpenSM subnet
               manager needs instead of UFM (FTE × loaded cost), storage licence (yearly term)
insurance      insurance rate × capex
transit        internet transit and cross-connects per month × 12
sga            SG&A rate × revenue (revenue is an argument, default 0)
============== =======================================================================================

Years are operating years (:mod:`neoplan.timebase`): year 1 is the first year of service.
:func:`opex_for_year` gives one year; the monthly engine (:mod:`neoplan.finance.engine`) tabulates it by
year for the categories in ``YEARLY_CATEGORIES`` (:func:`opex_by_year`) and calls :func:`monthly_opex`,
which spreads them over the months and prices power and colocation per case with :func:`power_usd_per_year` and
:func:`colo_usd_per_year` (from :mod:`neoplan.design.facility`, which reports the site's bills with them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..design.costs import CostLine
from ..design.facility import FacilityDesign, colo_usd_per_year, power_usd_per_year
from ..design.storage import StorageDesign
from ..errors import check
from ..inputs.categories import keys
from ..inputs.pricebook import PriceBook
from ..inputs.scenario import Scenario
from ..timebase import MONTHS_PER_YEAR
from . import revenue

OPEX_CATEGORIES = keys("opex")
"""The opex categories, in display order (data/categories.csv, the one table of categories and labels)."""
YEARLY_CATEGORIES = ("staff", "hardware_support", "software", "insurance", "transit")
"""Categories the engine takes from :func:`opex_for_year`; power and colocation follow the stress drivers."""
KEY_AI_ENTERPRISE = "nvidia_ai_enterprise_gpu_year"
KEY_UFM_SUBSCRIPTION = "ufm_enterprise_subscription_endpoint_year"
NON_HARDWARE_PRICE_CATEGORIES = ("software", "services")
"""Price-book categories that are not hardware (licences, installation, burn-in): no hardware support."""


@dataclass(frozen=True)
class OpexBasis:
    """The quantities yearly opex is computed from. Money in USD, energy-related figures per year."""

    gpus: int
    licensed_gpus: int
    backend_endpoints: int
    energy_usd_per_year: float
    colo_usd_per_year: float
    storage_licence_usd_per_year: float
    hardware_capex_usd: float
    capex_usd: float


# --- one category each --------------------------------------------------------------------------


def staff_usd_per_year(gpus: int, fte_per_1000_gpus: float, loaded_cost_usd: float) -> float:
    """Operations staff [USD/year]: ``fte_per_1000_gpus`` [FTE] per 1,000 GPUs × loaded cost [USD/FTE-year]."""
    return gpus / 1000.0 * fte_per_1000_gpus * loaded_cost_usd


def hardware_support_usd_per_year(
    hardware_capex_usd: float, support_rate: float, year: int, warranty_years: int
) -> float:
    """Support bought after the warranty [USD/year]: ``support_rate`` × hardware capex from year warranty + 1."""
    return hardware_capex_usd * support_rate if year > warranty_years else 0.0


def ai_enterprise_usd_per_year(book: PriceBook, licensed_gpus: int, enabled: bool) -> float:
    """NVIDIA AI Enterprise subscriptions [USD/year]: per GPU installed, when ``enabled``."""
    return licensed_gpus * book.price(KEY_AI_ENTERPRISE) if enabled else 0.0


def ufm_subscription_usd_per_year(book: PriceBook, endpoints: int, enabled: bool) -> float:
    """UFM subscription per back-end NIC endpoint [USD/year], when UFM is bought as a subscription."""
    return endpoints * book.price(KEY_UFM_SUBSCRIPTION) if enabled else 0.0


def insurance_usd_per_year(capex_usd: float, insurance_rate: float) -> float:
    """Property insurance [USD/year]: ``insurance_rate`` [fraction/year] × capex [USD]."""
    return capex_usd * insurance_rate


def transit_usd_per_year(transit_usd_per_month: float) -> float:
    """Internet transit and cross-connects [USD/year]."""
    return transit_usd_per_month * MONTHS_PER_YEAR


def sga_usd_per_year(revenue_usd: Any, sga_rate: Any) -> Any:
    """Sales, general and administrative costs: ``sga_rate`` × revenue [USD per the revenue's period] (arrays too)."""
    return revenue_usd * sga_rate


def hardware_capex_usd(lines: Iterable[CostLine], book: PriceBook) -> float:
    """Capex of hardware lines only [USD]: lines whose price-book category is software or services drop out."""
    total, rows = 0.0, book.rows
    for line in lines:
        row = rows.get(line.key)
        if row is None or row.category not in NON_HARDWARE_PRICE_CATEGORIES:
            total += line.total_usd
    return total


# --- roll-ups -----------------------------------------------------------------------------------


def opex_basis(
    scenario: Scenario,
    *,
    facility: FacilityDesign,
    storage: StorageDesign | None,
    capex_usd: float,
    hardware_capex_usd: float,
) -> OpexBasis:
    """Quantities for :func:`opex_for_year` from the scenario and the sized facility and storage."""
    check("capex_usd", capex_usd, capex_usd >= 0, "≥ 0", error=ValueError)
    hardware_ok = 0 <= hardware_capex_usd <= capex_usd + 1e-6
    check("hardware_capex_usd", hardware_capex_usd, hardware_ok, "between 0 and capex_usd", error=ValueError)
    cluster = scenario.cluster
    servers, spares = facility.servers, facility.spare_servers  # as the design counted them
    return OpexBasis(
        gpus=cluster.gpus,
        licensed_gpus=(servers + spares) * cluster.gpus_per_node,
        backend_endpoints=(servers + spares) * scenario.fabric.nics_per_node,
        energy_usd_per_year=facility.energy_usd_per_year,
        colo_usd_per_year=facility.colo_usd_per_year,
        storage_licence_usd_per_year=storage.licence_usd_per_year if storage is not None else 0.0,
        hardware_capex_usd=hardware_capex_usd,
        capex_usd=capex_usd,
    )


def software_usd_per_year(
    scenario: Scenario, book: PriceBook, basis: OpexBasis, *, ufm_subscription: bool = False
) -> dict[str, float]:
    """Software subscriptions by product [USD/year]: ``ai_enterprise``, ``ufm``, ``storage_licence``.

    UFM is InfiniBand's subnet manager: a Spectrum-X (Ethernet) back end pays no UFM subscription, as it buys no
    UFM licence (:mod:`neoplan.design.fabric.design`).
    """
    infiniband = scenario.fabric.topology != "spectrum_x"
    ufm = ufm_subscription and scenario.fabric.subnet_manager == "ufm" and infiniband
    opensm = scenario.fabric.subnet_manager == "opensm" and infiniband
    return {
        "ai_enterprise": ai_enterprise_usd_per_year(book, basis.licensed_gpus, scenario.opex.ai_enterprise),
        "ufm": ufm_subscription_usd_per_year(book, basis.backend_endpoints, ufm),
        "opensm_engineering": scenario.opex.opensm_engineering_fte * scenario.opex.staff_loaded_cost_usd
        if opensm
        else 0.0,
        "storage_licence": basis.storage_licence_usd_per_year,
    }


def opex_for_year(
    scenario: Scenario,
    book: PriceBook,
    basis: OpexBasis,
    year: int,
    *,
    revenue_usd: float = 0.0,
    ufm_subscription: bool = False,
) -> dict[str, float]:
    """Opex of operating year ``year`` (1 = first year after go-live) by category [USD/year], with ``total``.

    ``revenue_usd`` [USD/year] drives SG&A; ``ufm_subscription`` adds a yearly UFM subscription per
    back-end endpoint when the subnet manager is UFM. ``repairs`` is 0 here: the failure model prices repairs per
    case in the monthly engine (:func:`monthly_opex`), and :meth:`neoplan.model.Result.opex_for_year` reports them.
    """
    check("year", year, year >= 1, "≥ 1", error=ValueError)
    check("revenue_usd", revenue_usd, revenue_usd >= 0, "≥ 0", error=ValueError)
    opex = scenario.opex
    software = software_usd_per_year(scenario, book, basis, ufm_subscription=ufm_subscription)
    out = {
        "power": basis.energy_usd_per_year,
        "colocation": basis.colo_usd_per_year,
        "staff": staff_usd_per_year(basis.gpus, opex.staff_fte_per_1000_gpus, opex.staff_loaded_cost_usd),
        "hardware_support": hardware_support_usd_per_year(
            basis.hardware_capex_usd, opex.support_rate, year, scenario.node.warranty_years
        ),
        "repairs": 0.0,
        "software": sum(software.values()),
        "insurance": insurance_usd_per_year(basis.capex_usd, opex.insurance_rate),
        "transit": transit_usd_per_year(opex.transit_usd_per_month),
        "sga": sga_usd_per_year(revenue_usd, opex.sga_rate),
    }
    out["total"] = sum(out[c] for c in OPEX_CATEGORIES)
    return out


def opex_by_year(
    scenario: Scenario, book: PriceBook, basis: OpexBasis, years: int, *, ufm_subscription: bool = False
) -> dict[str, np.ndarray]:
    """The ``YEARLY_CATEGORIES`` of :func:`opex_for_year` for operating years 1 … ``years``, each an array by year
    (index 0 = year 1) [USD/year]."""
    by_year = [opex_for_year(scenario, book, basis, y, ufm_subscription=ufm_subscription) for y in range(1, years + 1)]
    return {c: np.array([year[c] for year in by_year]) for c in YEARLY_CATEGORIES}


def monthly_opex(
    scenario: Scenario,
    d: revenue.AnyDates,
    *,
    opex_usd_per_year: dict[str, np.ndarray],
    it_idle_kw: float,
    it_busy_kw: float,
    it_peak_kw: float,
    utilization_by_month: np.ndarray,
    electricity_usd_per_kwh: np.ndarray,
    pue: np.ndarray,
    colo_usd_per_kw_month: np.ndarray,
    capex_multiple: np.ndarray,
    repairs_usd_per_month: np.ndarray | None = None,
    scale: dict[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Opex per month by category for n cases (n, months) [USD]; SG&A excluded (it follows revenue).

    ``opex_usd_per_year`` holds the ``YEARLY_CATEGORIES`` by operating year (index 0 = year 1) [USD/year]
    (:func:`opex_by_year`). The prices, PUE, capex multiple and ``repairs_usd_per_month`` (the failure
    model's repair bill per month in service; None = no repairs) are (n,) arrays, one per case; ``scale``
    multiplies yearly categories per case (n,) (a driver times its category's table at a unit rate);
    ``d`` holds per-case dates (columns (n, 1), see :func:`~neoplan.economics.revenue.delayed`).

    Colocation, power and insurance run from the start of site installation; staff from delivery;
    software, transit, repairs and hardware support from go-live (support only after the warranty). All stop at
    a shutdown at the end of the useful life (``timeline.end_of_life``); with a refresh each new cluster
    starts again at operating year 1 and its capex multiple drives insurance and hardware support.
    Power follows the month's used share of GPU-hours (``utilization_by_month``: GPU-hours used ÷ the month's
    hours, which already counts only the part of the month after go-live) and runs at full load while installed but
    not yet live (burn-in): the bill at idle plus the busy-minus-idle bill times those shares. Colocation is paid on
    peak IT kW. Every category rises by ``opex.escalation_per_year`` in steps by project year
    (:func:`escalation`).
    """
    months = d.months
    # from the date on, 0 after a shutdown at the end of the useful life
    site_on, staffed, live = d.install_share, d.delivery_share, d.live_share
    # the operating year (:func:`~neoplan.timebase.operating_year_index`) of the cluster in service: each refresh
    # cluster starts again at year 1, with a new warranty, insured at its own capex multiple
    year = np.floor(d.cluster_months / MONTHS_PER_YEAR).astype(int)
    refreshed = revenue.cluster_index(months, d) > 0  # never without a refresh
    multiple = capex_multiple[:, None] * np.where(refreshed, scenario.timeline.refresh_capex_multiple, 1.0)
    by_year = {c: opex_usd_per_year[c][year] / MONTHS_PER_YEAR for c in YEARLY_CATEGORIES}
    for c, factor in (scale or {}).items():
        by_year[c] = by_year[c] * np.asarray(factor, dtype=float).reshape(-1, 1)

    in_colo = scenario.facility.electricity_in_colo
    idle = np.asarray(power_usd_per_year(it_idle_kw, pue, electricity_usd_per_kwh, in_colo=in_colo))
    slope = np.asarray(power_usd_per_year(it_busy_kw, pue, electricity_usd_per_kwh, in_colo=in_colo)) - idle
    burn_in = site_on - live  # share of the month installed but not yet earning: run at full load
    util = np.where(live > 0, utilization_by_month, 0.0)  # a share of the whole month: live time only
    energy = (idle[:, None] * site_on + slope[:, None] * (util + burn_in)) / MONTHS_PER_YEAR
    colo = np.asarray(colo_usd_per_year(it_peak_kw, colo_usd_per_kw_month))[:, None] / MONTHS_PER_YEAR
    rise = escalation(months, scenario.opex.escalation_per_year)
    opex = {
        "power": energy,
        "colocation": colo * site_on,
        "staff": by_year["staff"] * staffed,
        "hardware_support": by_year["hardware_support"] * live * multiple,
        "repairs": (0.0 if repairs_usd_per_month is None else repairs_usd_per_month[:, None]) * live,
        "software": by_year["software"] * live,
        "insurance": by_year["insurance"] * site_on * multiple,
        "transit": by_year["transit"] * live,
    }
    return {k: v * rise for k, v in opex.items()}


def escalation(months: int, per_year: float) -> np.ndarray:
    """Price multiple of opex in each month (months,): 1 in project year 1 (months 0–11), × (1 + ``per_year``)
    each later project year [ratio]; the scenario's prices are those of the purchase order."""
    return (1.0 + per_year) ** (np.arange(months) // MONTHS_PER_YEAR)

"""Yearly operating costs by category, for one year of operation or as a steady-state run rate.

Categories (``OPEX_CATEGORIES``), all in USD per year:

============== =======================================================================================
power          electricity: average IT kW × PUE × 8,760 h × price (0 when the colo price includes it)
colocation     contracted peak IT kW × price per kW-month × 12
staff          FTE per 1,000 GPUs × GPUs ÷ 1,000 × loaded cost per FTE
hardware_sup.  support rate × hardware capex, only in years after ``node.warranty_years``
software       NVIDIA AI Enterprise per GPU (when toggled; hot spares need licences too), UFM
               subscription per back-end endpoint (when subscribed), storage licence (yearly term)
insurance      insurance rate × capex
transit        internet transit and cross-connects per month × 12
sga            SG&A rate × revenue (revenue is an argument, default 0)
============== =======================================================================================

Years are counted from go-live: year 1 is the first year of service. The finance engine calls
:func:`opex_for_year` per year (÷ 12 per month); :func:`steady_state_opex` is the run rate after the
warranty ends, with hardware support in.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .costs import CostLine
from .facility import FacilityDesign
from .node import compute_servers
from .pricebook import PriceBook
from .scenario import Scenario
from .storage import StorageDesign

OPEX_CATEGORIES = (
    "power",
    "colocation",
    "staff",
    "hardware_support",
    "software",
    "insurance",
    "transit",
    "sga",
)
MONTHS_PER_YEAR = 12
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


def sga_usd_per_year(revenue_usd: float, sga_rate: float) -> float:
    """Sales, general and administrative costs [USD/year]: ``sga_rate`` × revenue [USD/year]."""
    return revenue_usd * sga_rate


def hardware_capex_usd(lines: Iterable[CostLine], book: PriceBook) -> float:
    """Capex of hardware lines only [USD]: lines whose price-book category is software or services drop out."""
    total = 0.0
    for line in lines:
        category = book.row(line.key).category if line.key in book else ""
        if category not in NON_HARDWARE_PRICE_CATEGORIES:
            total += line.total_usd
    return total


# --- roll-ups -----------------------------------------------------------------------------------


def _check(name: str, value: float, ok: bool, rule: str) -> None:
    if not (ok and math.isfinite(value)):
        raise ValueError(f"{name} must be {rule}, got {value!r}")


def opex_basis(
    scenario: Scenario,
    *,
    facility: FacilityDesign,
    storage: StorageDesign | None,
    capex_usd: float,
    hardware_capex_usd: float,
) -> OpexBasis:
    """Quantities for :func:`opex_for_year` from the scenario and the sized facility and storage."""
    _check("capex_usd", capex_usd, capex_usd >= 0, "≥ 0")
    _check(
        "hardware_capex_usd", hardware_capex_usd, 0 <= hardware_capex_usd <= capex_usd + 1e-6, "between 0 and capex_usd"
    )
    cluster = scenario.cluster
    servers, spares = compute_servers(cluster.servers, cluster.hot_spare_share)
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
    """Software subscriptions by product [USD/year]: ``ai_enterprise``, ``ufm``, ``storage_licence``."""
    ufm = ufm_subscription and scenario.fabric.subnet_manager == "ufm"
    return {
        "ai_enterprise": ai_enterprise_usd_per_year(book, basis.licensed_gpus, scenario.opex.ai_enterprise),
        "ufm": ufm_subscription_usd_per_year(book, basis.backend_endpoints, ufm),
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
    back-end endpoint when the subnet manager is UFM.
    """
    _check("year", year, year >= 1, "≥ 1")
    _check("revenue_usd", revenue_usd, revenue_usd >= 0, "≥ 0")
    opex = scenario.opex
    software = software_usd_per_year(scenario, book, basis, ufm_subscription=ufm_subscription)
    out = {
        "power": basis.energy_usd_per_year,
        "colocation": basis.colo_usd_per_year,
        "staff": staff_usd_per_year(basis.gpus, opex.staff_fte_per_1000_gpus, opex.staff_loaded_cost_usd),
        "hardware_support": hardware_support_usd_per_year(
            basis.hardware_capex_usd, opex.support_rate, year, scenario.node.warranty_years
        ),
        "software": sum(software.values()),
        "insurance": insurance_usd_per_year(basis.capex_usd, opex.insurance_rate),
        "transit": transit_usd_per_year(opex.transit_usd_per_month),
        "sga": sga_usd_per_year(revenue_usd, opex.sga_rate),
    }
    out["total"] = sum(out[c] for c in OPEX_CATEGORIES)
    return out


def steady_state_opex(
    scenario: Scenario,
    book: PriceBook,
    basis: OpexBasis,
    *,
    revenue_usd: float = 0.0,
    ufm_subscription: bool = False,
) -> dict[str, float]:
    """Run-rate opex after the warranty (hardware support included) by category [USD/year], with ``total``."""
    year = scenario.node.warranty_years + 1
    return opex_for_year(scenario, book, basis, year, revenue_usd=revenue_usd, ufm_subscription=ufm_subscription)


def opex_schedule(
    scenario: Scenario,
    book: PriceBook,
    basis: OpexBasis,
    years: int,
    *,
    revenue_usd_by_year: Sequence[float] | None = None,
    ufm_subscription: bool = False,
) -> list[dict[str, float]]:
    """Opex of years 1 … ``years`` (list index 0 = year 1) [USD/year each]; revenue per year drives SG&A."""
    _check("years", years, years >= 0, "≥ 0")
    revenue = list(revenue_usd_by_year) if revenue_usd_by_year is not None else [0.0] * years
    if len(revenue) != years:
        raise ValueError(f"revenue_usd_by_year must have {years} values, got {len(revenue)}")
    return [
        opex_for_year(scenario, book, basis, y + 1, revenue_usd=revenue[y], ufm_subscription=ufm_subscription)
        for y in range(years)
    ]

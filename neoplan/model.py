"""``evaluate``: Scenario + PriceBook → Result, the one entry point of the model."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .costs import CAPEX_CATEGORIES, CostLine, total_usd
from .node import compute_servers, node_lines
from .pricebook import Platform, PriceBook, default_platforms, default_price_book
from .scenario import Node, Scenario, ScenarioError


@dataclass(frozen=True)
class Result:
    """Everything the model computes for one scenario. Money in USD, counts as ints.

    Tables (pandas DataFrames) are built on demand by the ``*_table`` methods so
    that ``evaluate`` itself stays fast.
    """

    scenario: Scenario
    platform: Platform
    servers: int
    spare_servers: int
    node_lines: list[CostLine]
    oem_default_node_lines: list[CostLine]
    capex_lines: list[CostLine]
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

    def capex_by_category(self) -> dict[str, float]:
        """Capex by category [USD]; every category present, ``total`` = their sum."""
        out = dict.fromkeys(CAPEX_CATEGORIES, 0.0)
        for line in self.capex_lines:
            out[line.category] += line.total_usd
        out["total"] = sum(out[c] for c in CAPEX_CATEGORIES)
        return out

    @property
    def capex_total_usd(self) -> float:
        """Total capex [USD]."""
        return self.capex_by_category()["total"]

    @property
    def capex_per_server_excl_storage_usd(self) -> float:
        """Capex less storage, per compute server in service [USD]."""
        capex = self.capex_by_category()
        return (capex["total"] - capex["storage"]) / self.servers

    # --- tables ---------------------------------------------------------------------------------
    def bom_table(self) -> Any:
        """Node BoM lines as a DataFrame (one server)."""
        import pandas as pd

        return pd.DataFrame([line.as_record() for line in self.node_lines])

    def capex_table(self) -> Any:
        """Cluster capex lines as a DataFrame."""
        import pandas as pd

        return pd.DataFrame([line.as_record() for line in self.capex_lines])

    # --- contract -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON contract (ARCHITECTURE.md): base units, undefined values as ``None``."""
        capex = self.capex_by_category()
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
                "leaf_switches": None,
                "spine_switches": None,
                "core_switches": None,
                "transceivers": None,
                "cables": None,
                "capex_usd": None,
            },
            "capex_usd": {k: _clean(v) for k, v in capex.items()},
            "capex_per_server_excl_storage_usd": None,
            "tco_usd_per_gpu_hour": None,
            "breakeven_usd_per_gpu_hour": None,
            "project_irr": None,
            "equity_irr": None,
            "npv_usd": None,
            "payback_months": None,
            "min_dscr": None,
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


def evaluate(scenario: Scenario, book: PriceBook | None = None) -> Result:
    """Evaluate ``scenario`` with ``book`` (default: the shipped price book + the scenario's overrides)."""
    base_book = book if book is not None else default_price_book()
    try:
        book = base_book.with_overrides({**base_book.overrides, **scenario.prices})
    except ValueError as exc:
        raise ScenarioError(str(exc)) from None
    platform = _platform(scenario, default_platforms())
    servers, spares = compute_servers(scenario.cluster.servers, scenario.cluster.hot_spare_share)

    lines = node_lines(scenario.node, scenario.fabric, platform, book)
    oem_node = Node(preset="oem_default")
    oem_lines = node_lines(oem_node, scenario.fabric, platform, book)
    capex_lines = _scaled(lines, servers + spares)
    return Result(
        scenario=scenario,
        platform=platform,
        servers=servers,
        spare_servers=spares,
        node_lines=lines,
        oem_default_node_lines=oem_lines,
        capex_lines=capex_lines,
        warnings=[],
    )

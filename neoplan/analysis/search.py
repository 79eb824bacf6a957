"""Design search: every design of a space, each designed and financed for real, ranked by an objective.

``search(scenario)`` builds one design per platform × back-end topology × oversubscription × back-end NICs per node ×
storage tier (:class:`Space`; a rack-scale system's NICs are fixed by its compute trays), at the scenario's GPU
count or, with ``cluster.size_by: power``, the largest that fits its envelope; each platform comes with its profile
(:mod:`neoplan.inputs.profiles`: GPUs per node, rack power, scale-out NIC, reference rental price; the scenario's
own platform keeps its inputs). Each design is of one date, the same whatever else is searched: the scenario's own
(``prices_as_of``) when its book prices the platform and its market rents it, else the nearest date whose book and
market both do (:func:`neoplan.inputs.profiles.book_for`: 2026-11 for B200, B300 and NVL72 from a 2024-10
scenario), its hardware book, rental market, price curve and site all of that date; the ``prices_as_of`` column says
which. Every design is then financed at each debt share of the space. Each design's scenario is validated as a file
would be before it is built, so no row holds a scenario the model would refuse: a design that fails that check,
cannot be built (a fabric too small, a rack too weak) or breaks a constraint (:class:`Constraints`) stays in the
table with ``feasible`` false and the reason, below every feasible row.

Work shared across designs: the financing cases of one design run as one batch of the vectorised monthly engine
(:func:`neoplan.finance.engine.run_cases`, one case per debt share: the design, its opex and its failure model are
computed once); TCO and the break-even price, which no financing moves, once per design; a power-sized design starts
its search from the kW per node of the platform's previous design; the shipped catalogues, books and the design
modules' caches are shared by all.

Columns of :attr:`SearchResult.table` (one row per design × debt share, best first): ``rank``, ``feasible``,
``infeasible_reason``, ``gpu_model``, ``topology``, ``oversubscription``, ``nics_per_node``, ``storage``,
``debt_share``, ``gpus``, ``servers``, ``racks``, ``it_power_kw``, ``capex_usd``, ``npv_usd``, ``project_irr``,
``equity_irr``, ``min_dscr``, ``tco_usd_per_gpu_hour``, ``breakeven_usd_per_gpu_hour``, ``usd_per_gpu_hour``,
``tokens_per_second_per_gpu``, ``cost_usd_per_million_tokens``, ``breakeven_usd_per_million_tokens``,
``prices_as_of``, ``design`` (the design's
number). Units as the names say; undefined values are NaN.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from ..design.cluster import Design, design_at_count
from ..design.fabric.backend import TOPOLOGIES
from ..design.sizing import size_to_power
from ..errors import ScenarioError
from ..finance.engine import Drivers, run_cases
from ..inputs.platforms import FULL_NICS
from ..inputs.pricebook import default_platforms
from ..inputs.profiles import apply, book_for, platform_changes, validated
from ..inputs.scenario import Scenario
from ..model import levelised, operating, sales_terms, token_figures

OBJECTIVES = {
    "npv_usd": "max",
    "project_irr": "max",
    "equity_irr": "max",
    "min_dscr": "max",
    "tco_usd_per_gpu_hour": "min",
    "capex_usd": "min",
    "breakeven_usd_per_gpu_hour": "min",
    "cost_usd_per_million_tokens": "min",
    "breakeven_usd_per_million_tokens": "min",
}
"""Objectives a search may rank by, and whether higher or lower is better."""
STORAGE_TIERS = ("licensed", "self_built")
MAX_DESIGNS = 100_000
"""Most rows (designs × debt shares) one search builds: a bigger space is refused, naming its size."""
COLUMNS = (
    "rank",
    "feasible",
    "infeasible_reason",
    "gpu_model",
    "topology",
    "oversubscription",
    "nics_per_node",
    "storage",
    "debt_share",
    "gpus",
    "servers",
    "racks",
    "it_power_kw",
    "capex_usd",
    "npv_usd",
    "project_irr",
    "equity_irr",
    "min_dscr",
    "tco_usd_per_gpu_hour",
    "breakeven_usd_per_gpu_hour",
    "usd_per_gpu_hour",
    "tokens_per_second_per_gpu",
    "cost_usd_per_million_tokens",
    "breakeven_usd_per_million_tokens",
    "prices_as_of",
    "design",
)


COUNTS = ("gpus", "servers", "racks", "nics_per_node", "design", "rank")


def _priced_platforms() -> tuple[str, ...]:
    """Every platform some shipped price book prices."""
    out = []
    for key in default_platforms():
        try:
            book_for(key, "2024-10")
        except ScenarioError:
            continue
        out.append(key)
    return tuple(out)


@dataclass(frozen=True)
class Space:
    """The designs a search builds: every combination of these [platform keys, topologies, ratios, counts,
    storage vendor classes, fractions]. ``gpu_models`` None = every platform a price book prices."""

    gpu_models: tuple[str, ...] | None = None
    topologies: tuple[str, ...] = TOPOLOGIES
    oversubscriptions: tuple[float, ...] = (1.0, 2.0)
    nics_per_node: tuple[int, ...] = (4, 8)
    storage_tiers: tuple[str, ...] = STORAGE_TIERS
    debt_shares: tuple[float, ...] = (0.4, 0.6, 0.8)

    @classmethod
    def of(cls, space: Space | Mapping[str, Any] | None) -> Space:
        """A checked space from a :class:`Space`, a mapping of its fields (lists allowed) or None (the default)."""
        if space is None:
            return cls()
        if isinstance(space, Space):
            return space.checked()
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(space) - known)
        if unknown:
            raise ScenarioError(f"space.{unknown[0]}: unknown field (one of {', '.join(sorted(known))})")
        values: dict[str, Any] = {k: None if v is None else tuple(v) for k, v in space.items()}
        return cls(**values).checked()

    def checked(self) -> Space:
        """This space, its values checked (raises :class:`ScenarioError` naming ``space.<field>``)."""
        priced = _priced_platforms()
        rules: list[tuple[str, tuple[Any, ...] | None, Any]] = [
            ("gpu_models", self.gpu_models, lambda v: v in priced),
            ("topologies", self.topologies, lambda v: v in TOPOLOGIES),
            ("oversubscriptions", self.oversubscriptions, lambda v: _number(v) and 1 <= v <= 16),
            ("nics_per_node", self.nics_per_node, lambda v: v in (4, 8) and not isinstance(v, bool)),
            ("storage_tiers", self.storage_tiers, lambda v: v in STORAGE_TIERS),
            ("debt_shares", self.debt_shares, lambda v: _number(v) and 0 <= v <= 1),
        ]
        for name, values, ok in rules:
            if values is None and name == "gpu_models":
                continue
            if not values:
                raise ScenarioError(f"space.{name} must list at least one value")
            bad = next((v for v in values if not ok(v)), None)
            if bad is not None:
                raise ScenarioError(f"space.{name}: {bad!r} is not allowed")
        if self.rows > MAX_DESIGNS:
            raise ScenarioError(f"space: {self.rows:,} designs × debt shares exceed the limit of {MAX_DESIGNS:,}")
        return self

    @property
    def platforms(self) -> tuple[str, ...]:
        """The platforms searched."""
        return self.gpu_models if self.gpu_models is not None else _priced_platforms()

    def nics_for(self, platform_key: str) -> tuple[int, ...]:
        """The back-end NIC counts searched on a platform: the space's on an HGX server; on a rack-scale system only
        the one its compute trays carry (:func:`neoplan.inputs.platforms.tray_nics_problem`: fewer cannot be
        built)."""
        return (FULL_NICS,) if default_platforms()[platform_key].rack_scale else self.nics_per_node

    @property
    def designs(self) -> int:
        """Designs built [count]."""
        dims = (self.topologies, self.oversubscriptions, self.storage_tiers)
        return sum(len(self.nics_for(p)) for p in self.platforms) * math.prod(len(d) for d in dims)

    @property
    def rows(self) -> int:
        """Rows of the table: designs × debt shares [count]."""
        return self.designs * len(self.debt_shares)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class Constraints:
    """What a feasible design must meet; None = no such constraint. DSCR as a ratio, capex in USD, IRR a fraction."""

    min_dscr: float | None = None
    max_capex_usd: float | None = None
    min_equity_irr: float | None = None

    @classmethod
    def of(cls, constraints: Constraints | Mapping[str, Any] | None) -> Constraints:
        """Checked constraints from a :class:`Constraints`, a mapping of its fields or None (none)."""
        if constraints is None:
            return cls()
        if isinstance(constraints, Mapping):
            known = {f.name for f in fields(cls)}
            unknown = sorted(set(constraints) - known)
            if unknown:
                raise ScenarioError(f"constraints.{unknown[0]}: unknown constraint (one of {', '.join(sorted(known))})")
            constraints = cls(**dict(constraints))
        limits = {"min_dscr": (0.0, 100.0), "max_capex_usd": (0.0, 1e13), "min_equity_irr": (-0.99, 10.0)}
        for name, (lo, hi) in limits.items():
            value = getattr(constraints, name)
            if value is not None and not (_number(value) and lo <= value <= hi):
                raise ScenarioError(f"constraints.{name} must be between {lo:g} and {hi:g}, got {value!r}")
        return constraints

    def violations(self, row: Mapping[str, Any]) -> list[str]:
        """Why ``row`` breaks these constraints, one phrase each (empty when it meets them)."""
        out = []
        dscr = row["min_dscr"]
        if self.min_dscr is not None and math.isfinite(dscr) and dscr < self.min_dscr:
            out.append(f"min DSCR {dscr:.2f}× < {self.min_dscr:g}×")
        if self.max_capex_usd is not None and row["capex_usd"] > self.max_capex_usd:
            out.append(f"capex ${row['capex_usd']:,.0f} > ${self.max_capex_usd:,.0f}")
        irr = row["equity_irr"]
        if self.min_equity_irr is not None and not (math.isfinite(irr) and irr >= self.min_equity_irr):
            shown = f"{100 * irr:.1f} %" if math.isfinite(irr) else "undefined"
            out.append(f"equity IRR {shown} < {100 * self.min_equity_irr:g} %")
        return out

    def to_dict(self) -> dict[str, float | None]:
        """The constraints by name (None = not set)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass
class SearchResult:
    """A ranked search: ``table`` (a pandas DataFrame, best first; columns in the module docstring)."""

    table: Any
    objective: str
    constraints: Constraints
    space: Space
    base: Scenario
    changes: list[dict[str, object]] = field(default_factory=list)
    """The inputs each design changes on the base scenario, by design number (the ``design`` column)."""
    seconds: float = 0.0
    """Wall time of the search [s]."""

    def scenario(self, rank: int) -> Scenario:
        """The scenario of one row: the base with that design's changes and debt share, validated.

        Parameters
        ----------
        rank : int
            The row's rank, 1 = best.

        Returns
        -------
        Scenario
            Ready for :func:`neoplan.evaluate`, or to save.

        Raises
        ------
        ScenarioError
            For a rank outside the table.

        Examples
        --------
        >>> import neoplan
        >>> found = neoplan.search(neoplan.load_scenario("optimized"), {"gpu_models": ["h100-sxm"],
        ...     "topologies": ["tor"], "oversubscriptions": [1.0], "nics_per_node": [8],
        ...     "storage_tiers": ["licensed"], "debt_shares": [0.4]})
        >>> best = found.scenario(1)
        >>> best.fabric.topology, best.fabric.oversubscription, best.financing.debt_share
        ('tor', 1.0, 0.4)
        """
        if not 1 <= rank <= len(self.table):
            raise ScenarioError(f"rank must be between 1 and {len(self.table)}, got {rank}")
        row = self.table.iloc[rank - 1]
        changes = {**self.changes[int(row["design"])], "financing.debt_share": float(row["debt_share"])}
        return validated(apply(self.base, changes))

    def to_dict(self, top: int | None = None) -> dict[str, Any]:
        """JSON-safe summary: objective, constraints, counts and the ``top`` rows (all if None), NaN as None."""
        rows = self.table if top is None else self.table.head(top)
        records = [{k: _json(v) for k, v in rec.items()} for rec in rows.to_dict(orient="records")]
        return {
            "objective": self.objective,
            "constraints": self.constraints.to_dict(),
            "designs": int(self.table["design"].nunique()),
            "rows": len(self.table),
            "feasible": int(self.table["feasible"].sum()),
            "seconds": self.seconds,
            "table": records,
        }


def _json(value: Any) -> Any:
    """A table value as JSON: numpy scalars as Python numbers, NaN as None."""
    if value is None or value is pd_na():
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def pd_na() -> Any:
    """pandas' missing-value marker (of the nullable integer columns)."""
    import pandas as pd

    return pd.NA


def _designs(base: Scenario, space: Space) -> list[dict[str, object]]:
    """The input changes of every design of ``space`` on ``base``, platform by platform, each platform priced, rented
    and sited as of its own date (:func:`neoplan.inputs.profiles.platform_changes`)."""
    out = []
    for model in space.platforms:
        profile = platform_changes(base, model)
        for topology in space.topologies:
            for ratio in space.oversubscriptions:
                for nics in space.nics_for(model):
                    for tier in space.storage_tiers:
                        storage: dict[str, object] = {"storage.vendor_class": tier}
                        if tier != base.storage.vendor_class:
                            storage["storage.server_model"] = None  # the new tier's default server
                        out.append(
                            {
                                **profile,
                                "fabric.topology": topology,
                                "fabric.oversubscription": float(ratio),
                                "fabric.nics_per_node": int(nics),
                                **storage,
                            }
                        )
    return out


def _build(scenario: Scenario, hints: dict[str, float]) -> Design:
    """The design of ``scenario``; a power plan starts from the kW per node of its platform's last design."""
    if scenario.cluster.size_by != "power":
        return design_at_count(scenario)
    plan = size_to_power(scenario, kw_per_node=hints.get(scenario.cluster.gpu_model))
    hints[scenario.cluster.gpu_model] = plan.it_peak_kw / max(plan.servers + plan.spare_servers, 1)
    return plan


def _rows(number: int, changes: dict[str, object], base: Scenario, space: Space, hints: dict[str, float]) -> list:
    """The table rows of one design, one per debt share of ``space`` (infeasible rows if it cannot be built)."""
    shares = np.asarray(space.debt_shares, dtype=float)
    key = {
        "gpu_model": changes.get("cluster.gpu_model", base.cluster.gpu_model),
        "topology": changes["fabric.topology"],
        "oversubscription": changes["fabric.oversubscription"],
        "nics_per_node": changes["fabric.nics_per_node"],
        "storage": changes["storage.vendor_class"],
        "prices_as_of": changes.get("prices_as_of", base.prices_as_of),
        "design": number,
    }
    try:
        scenario = validated(apply(base, changes))  # every row checked as a file would be: the schema's rules too
        plan = _build(scenario, hints)
        op = operating(plan)
    except ScenarioError as exc:
        return [{**key, "debt_share": float(s), "feasible": False, "infeasible_reason": str(exc)} for s in shares]
    scenario = plan.scenario
    drivers = Drivers.of(scenario, shares.size).with_values(debt_share=shares)
    cases = run_cases(scenario, op.basis, drivers, op.own)  # every debt share of this design in one batch
    kpis = cases.kpis(scenario.financing.hurdle_rate)
    capex = plan.capex_usd
    opex_fixed = {k: v[0] for k, v in cases.opex_by_category.items() if k != "sga"}
    sold = cases.revenue.sold_gpu_hours[0]  # committed, on demand and spot
    tco, breakeven = levelised(scenario, op, capex, opex_fixed, sold)
    terms = sales_terms(scenario, op.dates, op.customers, op.report.utilization_factor, op.basis.spare_gpus)
    per_token = token_figures(scenario, op.tokens, op.report, op.dates, capex, opex_fixed, sold, terms, op.capital)
    fixed = {
        **key,
        "gpus": plan.gpus,
        "servers": plan.servers,
        "racks": plan.facility.racks,
        "it_power_kw": plan.it_peak_kw,
        "capex_usd": capex,
        "tco_usd_per_gpu_hour": sum(tco.values()),
        "breakeven_usd_per_gpu_hour": breakeven,
        "usd_per_gpu_hour": scenario.pricing.usd_per_gpu_hour,
        "tokens_per_second_per_gpu": _nan(per_token["tokens_per_second_per_gpu"]),
        "cost_usd_per_million_tokens": _nan(per_token["cost_usd_per_million_tokens"]),
        "breakeven_usd_per_million_tokens": _nan(per_token["breakeven_usd_per_million_tokens"]),
        "prices_as_of": scenario.prices_as_of,
        "feasible": True,
        "infeasible_reason": "",
    }
    names = ("npv_usd", "project_irr", "equity_irr", "min_dscr")
    return [
        {**fixed, "debt_share": float(share), **{k: float(kpis[k][i]) for k in names}} for i, share in enumerate(shares)
    ]


def _nan(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _rank(table: Any, objective: str) -> Any:
    """``table`` best first: feasible rows by the objective (undefined last), then the infeasible ones."""
    ascending = OBJECTIVES[objective] == "min"
    value = table[objective].astype(float)
    order = table.assign(
        _infeasible=~table["feasible"].astype(bool),
        _undefined=value.isna(),
        _key=value if ascending else -value,
    ).sort_values(["_infeasible", "_undefined", "_key", "capex_usd"], kind="stable", na_position="last")
    out = order.drop(columns=["_infeasible", "_undefined", "_key"]).reset_index(drop=True)
    out["rank"] = np.arange(1, len(out) + 1)
    return out[list(COLUMNS)]


def search(
    scenario: Scenario,
    space: Space | Mapping[str, Any] | None = None,
    objective: str = "npv_usd",
    constraints: Constraints | Mapping[str, Any] | None = None,
) -> SearchResult:
    """Design search: every design of a space around a scenario, each designed and financed, ranked.

    One design per platform × back-end topology × oversubscription × back-end NICs × storage tier, at the
    scenario's GPU count (or, sized by power, the largest that fits its envelope), each financed at every debt share
    of the space. What moves with the platform (GPUs per node, rack power, scale-out NIC, reference rental price)
    comes from its defaults; the scenario's own platform keeps its inputs. A design that cannot be built or breaks
    a constraint stays in the table, ``feasible`` false, with the reason.

    Parameters
    ----------
    scenario : Scenario
        The scenario the designs vary.
    space : Space or mapping, optional
        The values to combine (:class:`Space`; a mapping of its fields, lists allowed); default every platform a
        price book prices × the five topologies × 1:1 and 2:1 × 4 or 8 NICs × both storage tiers × debt 40, 60
        and 80 %.
    objective : str, optional
        What ranks the rows, a key of :data:`OBJECTIVES` (``npv_usd``, ``project_irr``, ``equity_irr``,
        ``min_dscr``: higher is better; ``tco_usd_per_gpu_hour``, ``capex_usd``, the break-even and token costs:
        lower is better).
    constraints : Constraints or mapping, optional
        ``min_dscr`` [ratio], ``max_capex_usd`` [USD], ``min_equity_irr`` [fraction per year]; None = none.

    Returns
    -------
    SearchResult
        ``table``: a pandas DataFrame, one row per design × debt share, best first (columns in the module
        docstring, units as their names say, NaN where undefined); ``scenario(rank)`` opens a row as a scenario.

    Raises
    ------
    ScenarioError
        For bad input, in one line naming ``objective``, ``space.…`` or ``constraints.…``.

    Examples
    --------
    >>> import neoplan
    >>> base = neoplan.load_scenario("optimized")
    >>> space = {"gpu_models": ["h100-sxm"], "topologies": ["vms", "tor"], "oversubscriptions": [2.0],
    ...          "nics_per_node": [8], "storage_tiers": ["licensed"], "debt_shares": [0.6]}
    >>> found = neoplan.search(base, space, objective="npv_usd")
    >>> len(found.table), found.table["rank"].tolist()
    (2, [1, 2])
    >>> bool(found.table["npv_usd"].is_monotonic_decreasing)  # best first
    True
    >>> found.scenario(1).fabric.topology in ("vms", "tor")
    True
    """
    import pandas as pd

    if objective not in OBJECTIVES:
        raise ScenarioError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    checked, limits = Space.of(space), Constraints.of(constraints)
    start = time.perf_counter()
    designs = _designs(scenario, checked)
    hints: dict[str, float] = {}
    rows = [row for number, changes in enumerate(designs) for row in _rows(number, changes, scenario, checked, hints)]
    for row in rows:
        if row["feasible"]:
            broken = limits.violations(row)
            if broken:
                row["feasible"], row["infeasible_reason"] = False, "; ".join(broken)
    table = _rank(pd.DataFrame(rows).reindex(columns=list(COLUMNS)), objective)
    table["feasible"] = table["feasible"].astype(bool)
    for name in COUNTS:  # whole numbers, empty where the design cannot be built
        table[name] = table[name].astype("Int64")
    return SearchResult(table, objective, limits, checked, scenario, designs, time.perf_counter() - start)

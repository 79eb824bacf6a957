"""The article's recommendations, each tested on a scenario: does it win, by how much, and where would it flip?

For every recommendation of the SemiAnalysis *AI Neocloud Playbook* (2024-10) the scenario is evaluated twice, once with
the recommended choice and once with the alternative, everything else as the scenario has it; the **NPV difference**
is recommended minus alternative at the scenario's hurdle rate (> 0: the recommendation wins). Each row then names
the one input that decides it (its **lever**) and solves for the value at which the two tie (the **flip point**):

* ``field``: a scenario input (the performance elasticity, the early-life failure multiple, OpenSM's engineering
  time, the share of customers refusing 4 NICs) set on both sides, solved by bracketing and the Illinois method;
* ``driver``: a stress driver (the MTBF multiple) run on both designs' monthly engines at once;
* ``premium``: the price premium over the scenario's headline price the dearer alternative would have to command
  (its model has no benefit to set against the cost);
* ``performance``: the performance loss against the recommended design at which the alternative stops paying
  (:func:`breakeven_performance_loss`), beside the loss the model gives it.

A flip point outside the lever's range is reported as none (the result holds across it). Rows that do not apply to
the platform (NICs and RAM of an NVL72 rack) or that the model refuses say why. :func:`recommendations` returns one
row per recommendation as a DataFrame (columns in :data:`COLUMNS`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..errors import ScenarioError
from ..inputs.loading import scenario_from_dict
from ..inputs.presets import deep_merge
from ..inputs.scenario import Scenario
from ..model import Result, evaluate

LeverKind = Literal["field", "driver", "premium", "performance"]
COLUMNS = (
    "key",
    "recommendation",
    "recommended",
    "alternative",
    "npv_recommended_usd",
    "npv_alternative_usd",
    "npv_difference_usd",
    "wins",
    "lever",
    "unit",
    "model_value",
    "flip_value",
    "channel",
    "note",
)
_ITERATIONS = 8
"""Illinois steps after the bracketing grid of a ``field`` lever (each is one or two model evaluations)."""
_GRID = 5
"""Points of the bracketing grid of a ``field`` lever."""


@dataclass(frozen=True)
class Lever:
    """The input that decides a recommendation, and the range its flip point is looked for in."""

    kind: LeverKind
    label: str
    unit: str
    low: float
    high: float
    path: str = ""
    """Dotted scenario field (``field``) or stress driver (``driver``)."""
    both: bool = True
    """``field``: the input moves both sides (else only the alternative's NPV is re-evaluated)."""


@dataclass(frozen=True)
class Recommendation:
    """One recommendation of the article: the two settings compared, how the model prices them and the lever."""

    key: str
    label: str
    recommended: dict[str, Any]
    alternative: dict[str, Any]
    recommended_text: str
    alternative_text: str
    channel: str
    lever: Lever
    hgx_only: bool = False
    rack_scale_only: bool = False


ELASTICITY = Lever("field", "performance elasticity", "ratio", 0.0, 1.0, "operations.performance_elasticity")
PREMIUM = Lever("premium", "price premium the alternative needs", "fraction of the headline price", -0.5, 1.0)
PERFORMANCE = Lever("performance", "performance loss at which the alternative stops paying", "fraction", -0.5, 0.95)


def _article_burn_in(scenario: Scenario) -> dict[str, Any]:
    """The article's burn-in (the scenario's when it has one, else the field defaults: 3.5 weeks and 3 days)."""
    t = scenario.timeline
    if t.integration_burn_in_weeks > 0 or t.onsite_burn_in_days > 0:
        weeks, days = t.integration_burn_in_weeks, t.onsite_burn_in_days
    else:
        fields = type(t).model_fields
        weeks, days = fields["integration_burn_in_weeks"].default, fields["onsite_burn_in_days"].default
    return {"timeline": {"integration_burn_in_weeks": weeks, "onsite_burn_in_days": days}}


def catalogue(scenario: Scenario) -> list[Recommendation]:
    """The article's recommendations, set against ``scenario`` (its own topology, spares and burn-in where it has
    them)."""
    fabric, spares = scenario.fabric, scenario.cluster.hot_spare_share
    rail = fabric.topology if fabric.topology not in ("tor",) else "vms"
    burn_in = _article_burn_in(scenario)
    t = burn_in["timeline"]
    spare_share = spares if spares > 0 else 0.03
    return [
        Recommendation(
            "nics",
            "8 back-end NICs per server, not 4",
            {"fabric": {"nics_per_node": 8}},
            {"fabric": {"nics_per_node": 4}},
            "8 × 400G",
            "4 × 400G",
            "capex of NICs and fabric vs customers who refuse 4 NICs (lost demand)",
            Lever(
                "field",
                "share of customers refusing 4 NICs",
                "fraction",
                0.0,
                1.0,
                "operations.four_nic_refusal_share",
                False,
            ),
            hgx_only=True,
        ),
        Recommendation(
            "rails",
            "Rail-optimized leaves, not top-of-rack",
            {"fabric": {"topology": rail}},
            {"fabric": {"topology": "tor"}},
            rail,
            "tor",
            "back-end capex vs top-of-rack congestion (hidden performance, at the elasticity)",
            ELASTICITY,
        ),
        Recommendation(
            "vms",
            "Virtual modular switch (copper leaf–spine), not the all-optics reference",
            {"fabric": {"topology": "vms"}},
            {"fabric": {"topology": "reference"}},
            "vms",
            "reference",
            "optics capex and laser failures; same performance",
            PREMIUM,
        ),
        Recommendation(
            "oversubscription",
            "2:1 leaf oversubscription for a small cluster",
            {"fabric": {"oversubscription": 2.0}},
            {"fabric": {"oversubscription": 1.0}},
            "2:1",
            "1:1",
            "spine capex vs data-parallel traffic slowed on the spines (hidden performance, at the elasticity)",
            ELASTICITY,
        ),
        Recommendation(
            "ufm",
            "UFM below 2,048 GPUs, not OpenSM",
            {"fabric": {"subnet_manager": "ufm"}},
            {"fabric": {"subnet_manager": "opensm"}},
            "UFM",
            "OpenSM",
            "UFM licences vs OpenSM's engineering time",
            Lever("field", "OpenSM engineering time", "FTE", 0.0, 2.0, "opex.opensm_engineering_fte", False),
        ),
        Recommendation(
            "burn_in",
            "Burn in at the OEM and on site",
            burn_in,
            {"timeline": {"integration_burn_in_weeks": 0.0, "onsite_burn_in_days": 0.0}},
            f"{t['integration_burn_in_weeks']:g} weeks + {t['onsite_burn_in_days']:g} days",
            "none",
            "a month of revenue and burn-in capex vs the acceptance test, early failures and the tier they cost",
            Lever(
                "field",
                "early-life failure multiple",
                "× steady rate",
                1.0,
                100.0,
                "operations.early_life_hazard_multiple",
            ),
        ),
        Recommendation(
            "hot_spares",
            "Hot spares for fast recovery",
            {"cluster": {"hot_spare_share": spare_share}},
            {"cluster": {"hot_spare_share": 0.0}},
            f"{spare_share:.0%} of nodes, rounded up",
            "none",
            "spare capex vs availability (SLA credits) and the tier its goodput earns (premium, churn)",
            Lever("field", "goodput gap between market tiers", "fraction", 0.001, 0.15, "customers.tier_gap"),
        ),
        Recommendation(
            "no_bluefield",
            "No BlueField-3: a plain ConnectX front end",
            {"node": {"dpus": 0, "frontend_nics": 1}},
            {"node": {"dpus": 2, "frontend_nics": 0}},
            "ConnectX",
            "2 × BlueField-3",
            "capex only (the model gives a DPU no revenue)",
            PREMIUM,
        ),
        Recommendation(
            "generic_networks",
            "Generic front-end and out-of-band switches, 2 × 100G",
            {"fabric": {"frontend": {"switch_class": "generic", "port_gbps": 100}, "oob": {"switch_class": "generic"}}},
            {
                "fabric": {
                    "frontend": {"switch_class": "spectrum", "port_gbps": 200},
                    "oob": {"switch_class": "spectrum"},
                }
            },
            "generic, 2 × 100G",
            "Spectrum, 2 × 200G",
            "capex only",
            PREMIUM,
        ),
        Recommendation(
            "ram",
            "1 TB of RAM per server, not 2 TB",
            {"node": {"ram_tb": 1.0}},
            {"node": {"ram_tb": 2.0}},
            "1 TB",
            "2 TB",
            "capex only",
            PREMIUM,
            hgx_only=True,
        ),
        Recommendation(
            "no_ai_enterprise",
            "No NVIDIA AI Enterprise",
            {"opex": {"ai_enterprise": False}},
            {"opex": {"ai_enterprise": True}},
            "none",
            "$4,500 per GPU-year",
            "licence opex only",
            PREMIUM,
        ),
        Recommendation(
            "parallel_storage",
            "Weka/Vast-class storage, not self-built",
            {"storage": {"vendor_class": "licensed"}},
            {"storage": {"vendor_class": "self_built"}},
            "licensed",
            "self-built",
            "licence capex vs small-file stalls (hidden performance, at the elasticity)",
            PERFORMANCE,
        ),
        Recommendation(
            "storage_frontend",
            "Storage on the front-end network",
            {"storage": {"network": "frontend"}},
            {"storage": {"network": "backend"}},
            "front end",
            "back end",
            "front-end ports vs GPU 0's NIC carrying storage (a straggler, at the elasticity)",
            PERFORMANCE,
        ),
        Recommendation(
            "held_back_trays",
            "Sell every tray of an NVL72 rack; let the cordon rule handle failures",
            {"cluster": {"held_back_trays_per_rack": 0}},
            {"cluster": {"held_back_trays_per_rack": 2}},
            "0 held back",
            "2 of 18 held back",
            "revenue of 2 trays a rack vs fewer cordoned racks",
            Lever("driver", "MTBF multiple (failures ÷ multiple)", "× the preset's MTBF", 0.05, 2.0, "mtbf_multiple"),
            rack_scale_only=True,
        ),
    ]


def _variant(scenario: Scenario, change: dict[str, Any]) -> Scenario:
    return scenario_from_dict(deep_merge(scenario.model_dump(mode="json"), change))


def _with_field(change: dict[str, Any], path: str, value: float) -> dict[str, Any]:
    *parents, leaf = path.split(".")
    extra: dict[str, Any] = {}
    node = extra
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value
    return deep_merge(change, extra)


def _npv(result: Result) -> float:
    value = result.kpis.get("npv_usd")
    return math.nan if value is None else float(value)


def _grid_root(xs: np.ndarray, gaps: np.ndarray) -> tuple[float, float] | None:
    """The first bracket (x₀, x₁) over which ``gaps`` changes sign, or None."""
    finite = np.isfinite(gaps)
    xs, gaps = xs[finite], gaps[finite]
    cross = np.nonzero(np.sign(gaps[:-1]) * np.sign(gaps[1:]) <= 0)[0]
    if cross.size == 0:
        return None
    i = int(cross[0])
    return float(xs[i]), float(xs[i + 1])


def _illinois(f: Callable[[float], float], a: float, b: float, fa: float, fb: float) -> float:
    """A root of ``f`` between ``a`` and ``b`` (f(a), f(b) of opposite signs) by the Illinois method."""
    for _ in range(_ITERATIONS):
        if fa == fb:
            break
        c = b - fb * (b - a) / (fb - fa)
        fc = f(c)
        if not math.isfinite(fc) or abs(fc) < 1.0:  # within a dollar of a tie
            return c
        if (fc > 0) == (fb > 0):
            fa /= 2.0
        else:
            a, fa = b, fb
        b, fb = c, fc
    return b - fb * (b - a) / (fb - fa) if fb != fa else b


def _field_flip(scenario: Scenario, rec: Recommendation, rec_npv: float) -> float | None:
    lever = rec.lever

    def gap(x: float) -> float:
        own = _npv(evaluate(_variant(scenario, _with_field(rec.recommended, lever.path, x)))) if lever.both else rec_npv
        other = _npv(evaluate(_variant(scenario, _with_field(rec.alternative, lever.path, x))))
        return own - other

    xs = np.linspace(lever.low, lever.high, _GRID)
    gaps = np.array([gap(float(x)) for x in xs])
    bracket = _grid_root(xs, gaps)
    if bracket is None:
        return None
    a, b = bracket
    fa, fb = float(gaps[list(xs).index(a)]), float(gaps[list(xs).index(b)])
    return a if fa == 0 else b if fb == 0 else _illinois(gap, a, b, fa, fb)


def _sweep(result: Result, driver: str, values: np.ndarray) -> np.ndarray:
    drivers = result.drivers(values.size).with_values(**{driver: values})
    return result.cases(drivers).kpis(result.scenario.financing.hurdle_rate)["npv_usd"]


def _refined(gap_at: Callable[[np.ndarray], np.ndarray], low: float, high: float) -> float | None:
    """The root of a vectorised gap on [low, high]: a grid, two finer grids around the crossing, then a chord."""
    lo, hi = low, high
    for _ in range(3):
        xs = np.linspace(lo, hi, 25)
        gaps = gap_at(xs)
        bracket = _grid_root(xs, gaps)
        if bracket is None:
            return None
        lo, hi = bracket
    ga, gb = gap_at(np.array([lo, hi]))
    return lo if ga == gb else lo + (hi - lo) * float(ga / (ga - gb))


def _driver_flip(rec_result: Result, alt_result: Result, driver: str, lever: Lever) -> float | None:
    return _refined(lambda x: _sweep(rec_result, driver, x) - _sweep(alt_result, driver, x), lever.low, lever.high)


def _premium_flip(alt_result: Result, rec_npv: float, lever: Lever) -> float | None:
    price = alt_result.scenario.pricing.usd_per_gpu_hour
    if price <= 0:
        return None
    return _refined(
        lambda x: rec_npv - _sweep(alt_result, "usd_per_gpu_hour", price * (1.0 + x)), lever.low, lever.high
    )


def _performance_loss(alt_result: Result, rec_result: Result) -> float:
    """The performance loss the model gives the alternative against the recommended design [fraction]."""
    a, r = alt_result.basis, rec_result.basis
    if a is None or r is None or a.reliability is None or r.reliability is None:
        return math.nan
    return 1.0 - a.reliability.priced_performance_factor / r.reliability.priced_performance_factor


def _model_value(scenario: Scenario, rec: Recommendation, rec_result: Result, alt_result: Result) -> float:
    lever = rec.lever
    if lever.kind == "field":
        value: Any = scenario
        for part in lever.path.split("."):
            value = getattr(value, part)
        return float(value)
    if lever.kind == "driver":
        return float(getattr(rec_result.drivers(), lever.path)[0])
    if lever.kind == "performance":
        return _performance_loss(alt_result, rec_result)
    return 0.0


def _row(scenario: Scenario, rec: Recommendation, rack_scale: bool) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(
        key=rec.key,
        recommendation=rec.label,
        recommended=rec.recommended_text,
        alternative=rec.alternative_text,
        lever=rec.lever.label,
        unit=rec.lever.unit,
        channel=rec.channel,
        note="",
    )
    if (rec.hgx_only and rack_scale) or (rec.rack_scale_only and not rack_scale):
        row["note"] = "does not apply to this platform"
        return row
    try:
        rec_result = evaluate(_variant(scenario, rec.recommended))
        alt_result = evaluate(_variant(scenario, rec.alternative))
    except ScenarioError as exc:
        row["note"] = f"not possible: {exc}"
        return row
    rec_npv, alt_npv = _npv(rec_result), _npv(alt_result)
    lever = rec.lever
    if lever.kind == "field":
        flip = _field_flip(scenario, rec, rec_npv)
    elif lever.kind == "driver":
        flip = _driver_flip(rec_result, alt_result, lever.path, lever)
    elif lever.kind == "premium":
        flip = _premium_flip(alt_result, rec_npv, lever)
    else:
        flip = breakeven_performance_loss(alt_result, rec_result)
    row.update(
        npv_recommended_usd=rec_npv,
        npv_alternative_usd=alt_npv,
        npv_difference_usd=rec_npv - alt_npv,
        wins=bool(rec_npv > alt_npv),
        model_value=_model_value(scenario, rec, rec_result, alt_result),
        flip_value=flip,
        note="" if flip is not None else f"no flip for {lever.label} in {lever.low:g}–{lever.high:g}",
    )
    return row


def recommendations(scenario: Scenario) -> Any:
    """The article's recommendations, each tested on a scenario: does it win, by how much, where would it flip?

    Each recommendation is evaluated against its alternative, everything else as the scenario has it, at the
    scenario's hurdle rate; then the one input that decides it (its lever) is solved for the value at which the two
    tie. Each row is a few model evaluations: expect seconds, not milliseconds.

    Parameters
    ----------
    scenario : Scenario
        The plan to test the recommendations on.

    Returns
    -------
    pandas.DataFrame
        One row per recommendation, columns :data:`COLUMNS`: ``npv_difference_usd`` = NPV with the recommendation −
        NPV with the alternative [USD] (> 0: ``wins``); ``lever`` the input that decides it, in ``unit``;
        ``model_value`` its value in the model and ``flip_value`` the value at which the two tie (None when none
        lies in the lever's range); ``note`` why a row does not apply (its NPV columns then empty).

    See Also
    --------
    markdown_table : the table as the manual shows it.

    Examples
    --------
    >>> import neoplan
    >>> from neoplan.analysis.advice import recommendations
    >>> table = recommendations(neoplan.load_scenario("optimized"))
    >>> rows = table.dropna(subset=["npv_difference_usd"])
    >>> bool(((rows["npv_difference_usd"] > 0) == rows["wins"]).all())
    True
    >>> row = table.set_index("key").loc["no_ai_enterprise"]  # no NVIDIA AI Enterprise licences
    >>> bool(row["wins"]), bool(row["npv_difference_usd"] > 1e6)  # [USD]
    (True, True)
    """
    import pandas as pd

    base = evaluate(scenario)
    rack_scale = base.platform.rack_scale
    rows = [_row(scenario, rec, rack_scale) for rec in catalogue(scenario)]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _missing(value: Any) -> bool:
    """Whether a table cell holds nothing (None or NaN)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def value_text(value: float | None, unit: str) -> str:
    """A lever's value for a table: fractions in percent, else the number and its unit; ``–`` when undefined."""
    if value is None or not math.isfinite(value):
        return "–"
    if unit.startswith("fraction"):
        return f"{100 * value:,.1f} %"
    return f"{value:,.3g}" if unit == "ratio" else f"{value:,.3g} {unit}"


def flip_text(row: Any) -> str:
    """The flip point of one row of :func:`recommendations` as a table shows it (its note when there is none)."""
    flip = row["flip_value"]
    if _missing(flip) or not math.isfinite(float(flip)):
        return str(row["note"] or "–")
    return value_text(float(flip), str(row["unit"]))


def records(table: Any) -> list[dict[str, Any]]:
    """The rows of :func:`recommendations` as JSON-safe dicts (undefined numbers as None)."""

    def clean(value: Any) -> Any:
        if isinstance(value, float | np.floating):
            return float(value) if math.isfinite(value) else None
        if isinstance(value, np.bool_):
            return bool(value)
        return value

    return [{k: clean(v) for k, v in row.items()} for row in table.to_dict(orient="records")]


def text_table(table: Any) -> str:
    """:func:`recommendations` as plain text: recommendation, NPV difference, verdict, lever, model value, flip."""
    lines = [f"{'recommendation':62} {'NPV diff':>12} {'wins':>5}  {'decided by':36} {'model':>16}  flips at"]
    for _, row in table.iterrows():
        npv = row["npv_difference_usd"]
        diff = "–" if _missing(npv) else f"${float(npv) / 1e6:+,.2f} M"
        wins = "–" if _missing(row["wins"]) else ("yes" if row["wins"] else "no")
        model = value_text(None if _missing(row["model_value"]) else float(row["model_value"]), str(row["unit"]))
        lines.append(
            f"{str(row['recommendation'])[:62]:62} {diff:>12} {wins:>5}  {str(row['lever'])[:36]:36} "
            f"{model:>16}  {flip_text(row)}"
        )
    return "\n".join(lines)


def markdown_table(table: Any) -> str:
    """:func:`recommendations` as a Markdown table (the manual's), rows that do not apply left out."""
    lines = [
        "| recommendation | recommended / alternative | NPV difference | wins | decided by | model | flips at |",
        "|---|---|---|---|---|---|---|",
    ]
    for _, row in table.iterrows():
        if _missing(row["npv_difference_usd"]):
            continue
        model = value_text(None if _missing(row["model_value"]) else float(row["model_value"]), str(row["unit"]))
        lines.append(
            f"| {row['recommendation']} | {row['recommended']} / {row['alternative']} | "
            f"{float(row['npv_difference_usd']) / 1e6:+,.2f} M | {'yes' if row['wins'] else 'no'} | {row['lever']} | "
            f"{model} | {flip_text(row)} |"
        )
    return "\n".join(lines)


def breakeven_performance_loss(cheaper: Result, recommended: Result) -> float | None:
    """Performance loss vs ``recommended`` at which ``cheaper`` stops beating it on NPV [fraction].

    Solved over the ``performance_penalty`` driver of ``cheaper`` (its NPV falls as its delivered performance
    falls, through the price elasticity); the loss is of the performance the elasticity prices. Positive: the
    cheaper design may deliver that much less than the recommended one and still pay; negative: it loses even at
    equal performance. None when performance does not move its NPV (elasticity 0) or no penalty in −50 %…95 % ties
    the two.
    """
    rec_npv = recommended.kpis.get("npv_usd")
    own = cheaper.operations
    if rec_npv is None or own is None or recommended.operations is None:
        return None
    hurdle = cheaper.scenario.financing.hurdle_rate
    lo, hi = -0.5, 0.95
    for _ in range(3):  # a grid, then two finer grids around the crossing: NPV is monotone in the penalty
        grid = np.linspace(lo, hi, 25)
        npv = cheaper.cases(cheaper.drivers(grid.size).with_values(performance_penalty=grid)).kpis(hurdle)["npv_usd"]
        gap = npv - rec_npv
        if not np.all(np.isfinite(gap)) or np.ptp(gap) == 0:
            return None
        cross = np.nonzero(np.sign(gap[:-1]) != np.sign(gap[1:]))[0]
        if cross.size == 0:
            return None
        i = int(cross[0])
        lo, hi = float(grid[i]), float(grid[i + 1])
    penalty = lo + (hi - lo) * float(gap[i] / (gap[i] - gap[i + 1]))
    return 1.0 - _priced(cheaper) * (1.0 - penalty) / _priced(recommended)


def _priced(result: Result) -> float:
    """The performance the elasticity prices in ``result`` (its design's, else its report's) [ratio]."""
    design = result.basis.reliability if result.basis is not None else None
    if design is not None:
        return design.priced_performance_factor
    return result.operations.performance_factor if result.operations is not None else 1.0

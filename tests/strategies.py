"""Hypothesis strategies shared by the tests: valid scenario mappings, section by section.

Each strategy draws a *valid* input as a plain dict (what a user writes in a scenario file), so a test
can feed it to ``scenario_from_dict``, dump it as YAML or JSON, or lay it over a ``base:`` preset.
Bounds are the documented ranges of the fields (``neoplan/scenario.py``), written out here on purpose:
if validation becomes stricter than documented, the property tests fail.

Sections draw only some of their fields (``st.fixed_dictionaries(..., optional=...)``) so that both
"field given" and "field left to the default / preset" are exercised.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import yaml
from hypothesis import strategies as st

from neoplan.inputs.pricebook import default_price_book

PRESETS = ("reference", "optimized")
NODE_PRESETS = ("oem_default", "optimized")
GPU_MODELS = ("h100-sxm", "h200-sxm")  # HGX 8-GPU platforms the foundation issue requires
CPU_TIERS = ("entry", "mid", "top")


def floats(lo: float, hi: float) -> st.SearchStrategy[float]:
    """Finite floats in [lo, hi]."""
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


# Free text a user might type (names, notes): any encodable character but surrogates (Cs), control and format
# characters (Cc, Cf: refused in names and descriptions, issue 39) and line or paragraph separators (Zl, Zp); the
# refusals are tested in test_cli_errors.py and test_scenario.py.
text = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Cf", "Zl", "Zp")).filter(lambda ch: ch != "\u180e"),
    max_size=60,
)


@st.composite
def clusters(draw: st.DrawFn, gpu_models: tuple[str, ...] = GPU_MODELS, max_servers: int = 2048) -> dict[str, Any]:
    """``cluster:`` — whole 8-GPU servers."""
    servers = draw(st.integers(1, max_servers))
    out: dict[str, Any] = {"gpus": 8 * servers, "gpus_per_node": 8}
    if draw(st.booleans()):
        out["gpu_model"] = draw(st.sampled_from(gpu_models))
    if draw(st.booleans()):
        out["hot_spare_share"] = draw(floats(0, 0.5))
    return out


@st.composite
def nodes(draw: st.DrawFn) -> dict[str, Any]:
    """``node:`` — a preset and some line-item overrides (front end always valid: DPUs + NICs ≥ 1)."""
    out: dict[str, Any] = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "preset": st.sampled_from(NODE_PRESETS),
                "cpu_tier": st.sampled_from(CPU_TIERS),
                "cpu_sockets": st.integers(1, 2),
                "ram_tb": floats(0.25, 8),
                "nvme_tb": floats(0, 500),
                "warranty_years": st.integers(0, 7),
            },
        )
    )
    if draw(st.booleans()):  # the two front-end fields are drawn together: their sum must be ≥ 1
        dpus = draw(st.integers(0, 2))
        out["dpus"] = dpus
        out["frontend_nics"] = draw(st.integers(1 if dpus == 0 else 0, 2))
    return out


def node_options() -> st.SearchStrategy[dict[str, Any]]:
    """Every ``node:`` field given explicitly (no preset filling), for BoM properties."""
    return st.builds(
        dict,
        preset=st.sampled_from(NODE_PRESETS),
        cpu_tier=st.sampled_from(CPU_TIERS),
        cpu_sockets=st.integers(1, 2),
        ram_tb=floats(0.25, 8),
        nvme_tb=floats(0, 500),
        dpus=st.integers(0, 2),
        frontend_nics=st.integers(0, 2),
        warranty_years=st.integers(0, 7),
    ).filter(lambda d: d["dpus"] + d["frontend_nics"] >= 1)


def fabrics() -> st.SearchStrategy[dict[str, Any]]:
    """``fabric:`` with its nested ``frontend:`` and ``oob:``."""
    frontend = st.fixed_dictionaries(
        {},
        optional={
            "port_gbps": st.sampled_from([100, 200, 400]),
            "ports_per_node": st.integers(1, 2),  # every node has ≥ 1 dual-port card; more is a cross-field error
            "switch_class": st.sampled_from(["generic", "spectrum"]),
        },
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "topology": st.sampled_from(["reference", "tor", "vms", "modular"]),
            "oversubscription": floats(1, 16),
            "nics_per_node": st.sampled_from([4, 8]),
            "nic_gbps": st.sampled_from([400, 800]),
            "servers_per_su": st.integers(1, 256),
            "leaf_spine_cable": st.sampled_from(["dac", "acc"]),
            "subnet_manager": st.sampled_from(["ufm", "opensm"]),
            "frontend": frontend,
            "oob": st.fixed_dictionaries({}, optional={"switch_class": st.sampled_from(["generic", "spectrum"])}),
        },
    )


def storages() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "usable_pb": floats(0, 50),
            "vendor_class": st.sampled_from(["licensed", "self_built"]),
            "licence_term": st.sampled_from(["perpetual", "yearly"]),
            "network": st.sampled_from(["frontend", "backend"]),
        },
    )


def facilities() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "rack_power_kw": floats(20, 300),
            "servers_per_rack": st.integers(1, 8),
            "pue": floats(1, 3),
            "colo_usd_per_kw_month": floats(0, 2000),
            "electricity_usd_per_kwh": floats(0, 2),
            "electricity_in_colo": st.booleans(),
        },
    )


def opexes() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "staff_fte_per_1000_gpus": floats(0, 100),
            "staff_loaded_cost_usd": floats(0, 1e6),
            "support_rate": floats(0, 1),
            "ai_enterprise": st.booleans(),
            "sga_rate": floats(0, 1),
            "escalation_per_year": floats(0, 0.3),
        },
    )


@st.composite
def financings(draw: st.DrawFn) -> dict[str, Any]:
    """``financing:`` — grace period strictly inside the term."""
    term = draw(st.integers(1, 360))
    out: dict[str, Any] = {"term_months": term, "grace_months": draw(st.integers(0, min(term - 1, 120)))}
    out.update(
        draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "debt_share": floats(0, 1),
                    "interest_rate": floats(0, 1),
                    "amortization": st.sampled_from(["annuity", "straight_line", "sculpted"]),
                    "hurdle_rate": floats(0, 1),
                    "tax_rate": floats(0, 1),
                    "capitalize_idc": st.booleans(),
                    "credit_spread": floats(0, 0.3),
                    "dsra_months": st.integers(0, 24),
                    "sizing": st.sampled_from(["capex_share", "contracted_revenue"]),
                    "tax_depreciation": st.sampled_from(["straight_line", "macrs_5"]),
                    "tax_life_months": st.none() | st.integers(12, 360),
                },
            )
        )
    )
    return out


def pricings() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "usd_per_gpu_hour": floats(0, 100),
            "utilization": floats(0, 1),
            "reserved_share": floats(0, 1),
            "reserved_usd_per_gpu_hour": st.none() | floats(0, 100),
            "price_decline_per_year": floats(0, 0.95),
            "ramp_months": st.integers(0, 36),
            "receivable_days": floats(0, 180),
        },
    )


def timelines() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "delivery_lead_months": st.integers(0, 36),
            "integration_burn_in_weeks": floats(0, 26),
            "deposit_share": floats(0, 1),
            "horizon_months": st.integers(12, 240),
            "residual_value_share": st.none() | floats(0, 1),
        },
    )


def price_overrides() -> st.SearchStrategy[dict[str, float]]:
    """``prices:`` — overrides of keys that exist in the shipped book [USD per unit]."""
    keys = sorted(default_price_book().rows)
    return st.dictionaries(st.sampled_from(keys), floats(0, 1e6), max_size=3)


def scenario_dicts(with_base: bool = True, gpu_models: tuple[str, ...] = GPU_MODELS) -> st.SearchStrategy[dict]:
    """A valid scenario mapping: any subset of sections, optionally over a ``base:`` preset."""
    optional: dict[str, st.SearchStrategy[Any]] = {
        "name": text,
        "description": text,
        "cluster": clusters(gpu_models=gpu_models),
        "node": nodes(),
        "fabric": fabrics(),
        "storage": storages(),
        "facility": facilities(),
        "opex": opexes(),
        "financing": financings(),
        "pricing": pricings(),
        "timeline": timelines(),
        "prices": price_overrides(),
    }
    if with_base:
        optional["base"] = st.sampled_from(PRESETS)
    return st.fixed_dictionaries({}, optional=optional)


def evaluable_scenario_dicts(max_servers: int = 512) -> st.SearchStrategy[dict]:
    """A preset with drawn cluster, node and price overrides: what the compute-node tests vary.

    ``evaluate`` also checks designs across sections (leaf ports per scalable unit, 800G NICs on a 400G
    switch, debt term vs construction); those sections stay at the preset's values here.
    """
    return st.fixed_dictionaries(
        {"base": st.sampled_from(PRESETS)},
        optional={
            "name": text,
            "cluster": clusters(max_servers=max_servers),
            "node": nodes(),
            "prices": price_overrides(),
        },
    )


# --- fuzzing: valid, boundary and invalid values in every section ---------------------------------------------

HUGE_INT = 10**5000  # Python refuses to turn it into text (more than 4,300 digits)
NASTY_NUMBERS: tuple[Any, ...] = (
    0,
    -0.0,
    -1,
    1,
    0.5,
    5e-324,
    -5e-324,
    1e-300,
    1e15,
    1e300,
    1e308,
    -1e308,
    float("nan"),
    float("inf"),
    float("-inf"),
    2**63,
    -(2**63),
    HUGE_INT,
    -HUGE_INT,
)
NASTY_OTHERS: tuple[Any, ...] = (
    None,
    "",
    "lots",
    "1e300",
    "5e-324",
    "nan",
    "-inf",
    "9" * 5000,
    "x" * 10_000,
    [],
    [1],
    {},
    {"a": 1},
    True,
    False,
    "\u202e\u0000",
    "\ud800",
    3 + 0j,
)
NASTY = st.sampled_from(NASTY_NUMBERS + NASTY_OTHERS)


def _annotation_models(annotation: Any) -> list[Any]:
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return []


@lru_cache(maxsize=1)
def field_paths() -> list[tuple[tuple[str, ...], Any]]:
    """(path, FieldInfo) of every leaf field of a scenario, sections and sub-sections walked."""
    from neoplan.inputs.scenario import Scenario

    out: list[tuple[tuple[str, ...], Any]] = []

    def walk(model: Any, prefix: tuple[str, ...]) -> None:
        for name, info in model.model_fields.items():
            subs = _annotation_models(info.annotation)
            if subs:
                walk(subs[0], (*prefix, name))
            else:
                out.append(((*prefix, name), info))

    walk(Scenario, ())
    return out


def boundary_values(info: Any) -> st.SearchStrategy[Any]:
    """Values at, just inside and just outside the bounds of a field, and its allowed choices if a Literal."""
    values = boundary_list(info)
    return st.sampled_from(values) if values else NASTY


def boundary_list(info: Any) -> list[Any]:
    """The values of :func:`boundary_values` as a list (empty for a field without bounds or choices)."""
    import math
    import typing

    values: list[Any] = []
    for m in info.metadata:
        for attr in ("ge", "gt", "le", "lt"):
            bound = getattr(m, attr, None)
            if bound is not None:
                values += [bound, math.nextafter(bound, math.inf), math.nextafter(bound, -math.inf)]
                values += [bound + 1, bound - 1] if isinstance(bound, int) else [bound * 1.5, bound / 2]
    literal = typing.get_origin(info.annotation) is typing.Literal
    return values + (list(typing.get_args(info.annotation)) if literal else [])


def _set_path(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = data
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[path[-1]] = value


FUZZ_SECTIONS = (
    "cluster", "node", "fabric", "storage", "facility", "opex", "financing", "pricing", "timeline", "prices", "base",
    "name",
)  # fmt: skip
UNKNOWN_KEYS: tuple[Any, ...] = ("gpuz", "Pue", "", "1", "__class__", 1, None, 2.5)


@lru_cache(maxsize=1)
def _fuzz_strategies() -> dict[str, Any]:
    """The strategies :func:`fuzzed_scenario_dicts` draws from, built once (building them is the slow part)."""
    paths = field_paths()
    book_keys = sorted(default_price_book().rows)
    return {
        "base": scenario_dicts(),
        "field": st.sampled_from(range(len(paths))),
        "paths": paths,
        "boundary": [boundary_values(info) for _, info in paths],
        "kind": st.sampled_from(("boundary", "boundary", "boundary", "nasty", "section", "unknown", "prices")),
        "section": st.sampled_from(FUZZ_SECTIONS),
        "unknown": st.sampled_from(UNKNOWN_KEYS),
        "price_key": st.sampled_from(book_keys) | st.sampled_from(("no_such_key", "", "x" * 300)),
        "price": st.sampled_from(NASTY_NUMBERS) | floats(0, 1e7) | NASTY,
    }


@st.composite
def fuzzed_scenario_dicts(draw: st.DrawFn) -> dict[str, Any]:
    """A scenario mapping from :func:`scenario_dicts` with 0–4 fields, sections or prices set to boundary,
    extreme or wrong-type values, or to unknown keys: what real users (and attackers) may send."""
    s = _fuzz_strategies()
    data: dict[str, Any] = draw(s["base"])
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(s["kind"])
        if kind in ("boundary", "nasty"):
            i = draw(s["field"])
            _set_path(data, s["paths"][i][0], draw(s["boundary"][i] if kind == "boundary" else NASTY))
        elif kind == "section":
            data[draw(s["section"])] = draw(NASTY)
        elif kind == "unknown":
            path = s["paths"][draw(s["field"])][0]
            _set_path(data, (*path[:-1], draw(s["unknown"])), 1)
        else:
            prices = data.get("prices")
            prices = dict(prices) if isinstance(prices, dict) else {}
            prices[draw(s["price_key"])] = draw(s["price"])
            data["prices"] = prices
    return data


YAML_SCALARS = (
    "1", "-0", "1e5", "1.0e+400", ".5", "0x1F", "0o17", "0b101", "1_000", "1:30", "190:20:30", "2024-13-45",
    "2024-02-03", "2001-12-14t21:59:43.10-05:00", "!!int abc", "!!float abc", "!!int 0x10", "!!float 1",
    "!!binary AAA", "!!timestamp x", "!!str 5", "!!bool yes", "!!null ''", "!!set {a, b}", "!!omap [a: 1]",
    "!!python/object:os.system x", "!<tag:yaml.org,2002:int> 7", "~", "null", "yes", "No", "on", ".nan", "-.inf",
    "'quoted'", '"\\ud800"', '"\\x00\\x1b[31m"', "&a 1", "*a", "[1, 2", "{a: 1}", "[]", "{}", "? a", "- 1",
    "\ud800", "\x85", "9" * 120, "0x" + "f" * 120, "1" + "_0" * 60, "a: b: c", "'", '"', "|", ">", "%YAML 1.1",
    "---", "...",
)  # fmt: skip


@st.composite
def yaml_texts(draw: st.DrawFn) -> str:
    """YAML text a user may type or a tool may emit: scenario-shaped lines with odd scalars, tags, anchors,
    dates, over-long numbers and broken syntax, sometimes with random text spliced in."""
    paths = field_paths()
    clean = draw(st.integers(0, 2)) == 0  # a third of the texts hold only values at or near the fields' bounds
    lines = []
    if draw(st.booleans()):
        lines.append(f"base: {draw(st.sampled_from(PRESETS))}")
    for _ in range(draw(st.integers(0, 6))):
        path, info = paths[draw(st.sampled_from(range(len(paths))))]
        near = st.sampled_from(boundary_list(info) or [1]).map(lambda v: yaml.safe_dump(v).split("\n")[0])
        scalar = draw(near if clean else st.sampled_from(YAML_SCALARS) | st.text(max_size=12) | near)
        line = path[-1] + ": " + scalar
        for part in reversed(path[:-1]):
            line = f"{part}: {{{line}}}"
        lines.append(line)
    if not clean and draw(st.booleans()):
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, draw(st.sampled_from(YAML_SCALARS) | st.text(max_size=40)))
    return "\n".join(lines) + "\n"

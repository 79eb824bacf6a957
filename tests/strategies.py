"""Hypothesis strategies shared by the tests: valid scenario mappings, section by section.

Each strategy draws a *valid* input as a plain dict (what a user writes in a scenario file), so a test
can feed it to ``scenario_from_dict``, dump it as YAML or JSON, or lay it over a ``base:`` preset.
Bounds are the documented ranges of the fields (``neoplan/scenario.py``), written out here on purpose:
if validation becomes stricter than documented, the property tests fail.

Sections draw only some of their fields (``st.fixed_dictionaries(..., optional=...)``) so that both
"field given" and "field left to the default / preset" are exercised.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from neoplan.pricebook import default_price_book

PRESETS = ("reference", "optimized")
NODE_PRESETS = ("oem_default", "optimized")
GPU_MODELS = ("h100-sxm", "h200-sxm")  # HGX 8-GPU platforms the foundation issue requires
CPU_TIERS = ("entry", "mid", "top")


def floats(lo: float, hi: float) -> st.SearchStrategy[float]:
    """Finite floats in [lo, hi]."""
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


# Free text a user might type (names, notes): any encodable character but surrogates (Cs); control characters
# such as U+0085 are covered by dedicated round-trip tests in test_scenario.py.
text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)


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
            "residual_value_share": floats(0, 1),
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

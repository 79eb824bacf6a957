"""Network page figures: the back-end designs compared, and a picture of the topology."""

from __future__ import annotations

from typing import Any

from ..design.fabric import DesignOption
from ..formats import pct
from .base import PALETTE
from .spec import Spec, chart, color, data, n, q, tip

SHORT_LABELS = {
    "reference": "Reference",
    "tor": "Top-of-rack",
    "vms": "VMS 1:1",
    "vms_2to1": "VMS 2:1",
    "modular": "Modular",
    "spectrum_x": "Spectrum-X",
}
TIER_COLOURS = {"server": "#b0b7c3", "leaf": "#2a9d8f", "spine": "#264653", "chassis": "#e76f51", "core": "#e9c46a"}


CHOSEN_NOTE = "your design"
"""Second line of the label of the scenario's own design."""


def _bar_label(option: DesignOption, chosen: str) -> str:
    short = SHORT_LABELS.get(option.name, option.label)
    return f"{short}\n{CHOSEN_NOTE}" if option.name == chosen else short


def options_figure(options: list[DesignOption], chosen: str) -> Spec:
    """Back-end capex per feasible design with Δ vs reference above each bar, the scenario's design in the accent
    colour and its label in bold [USD] (Vega-Lite spec)."""
    ok = [o for o in options if o.feasible]
    colours = {"reference": PALETTE["oem"], chosen: PALETTE["accent"]}
    labels = [_bar_label(o, chosen) for o in ok]
    values = [
        {
            "design": label,
            "usd": o.capex_usd,
            "delta": "baseline" if o.name == "reference" else pct(o.delta_vs_reference),
            "colour": colours.get(o.name, PALETTE["this"]),
            "spine_gbps": o.spine_gbps_per_gpu,
            "spines": o.spine_switches,
            "transceivers": o.transceivers,
        }
        for o, label in zip(ok, labels, strict=True)
    ]
    x = n(
        "design",
        None,
        sort=labels,
        axis={
            "labelAngle": 0,
            "labelExpr": "split(datum.label, '\\n')",  # the chosen design's label on two lines
            "labelFontWeight": {
                "condition": {"test": f"indexof(datum.label, '{CHOSEN_NOTE}') >= 0", "value": "bold"},
                "value": "normal",
            },
        },
    )
    tooltip = [
        tip("design", "design", kind="nominal"),
        tip("usd", "capex", "$,.0f"),
        tip("spine_gbps", "Gbit/s per GPU across spines", ",.0f"),
        tip("spines", "spines", ",.0f"),
        tip("transceivers", "transceivers", ",.0f"),
    ]
    bars = {
        "data": data(values),
        "mark": {"type": "bar"},
        "encoding": {
            "x": x,
            "y": q("usd", "USD", "$,.3s"),
            "color": {"field": "colour", "type": "nominal", "scale": None, "legend": None},
            "tooltip": tooltip,
        },
    }
    texts = {
        "data": data(values),
        "mark": {"type": "text", "baseline": "bottom", "dy": -3, "color": "#333"},
        "encoding": {
            "x": {"field": "design", "type": "nominal", "sort": labels},
            "y": {"field": "usd", "type": "quantitative"},
            "text": {"field": "delta"},
            "tooltip": tooltip,
        },
    }
    return chart(bars, texts, title="Back-end capex by design (hardware)", height=420)


NODE_SIZE = {"chassis": 28}
"""Marker side of a tier's nodes [px] (14 for the others)."""


def topology_figure(picture: dict[str, Any]) -> Spec:
    """Simplified drawing of the back end: a sample of each tier (square markers, one colour a tier) and how it
    connects (lines) (Vega-Lite spec)."""
    pos = {node["id"]: (node["x"], node["y"]) for node in picture["nodes"]}
    edges = []
    for e in picture["edges"]:
        (x0, y0), (x1, y1) = pos[e["source"]], pos[e["target"]]
        edges.append({"x": x0, "y": y0, "x2": x1, "y2": y1})
    totals, shown = picture["totals"], picture["shown"]
    names: list[str] = []
    colours: list[str] = []
    nodes = []
    for tier, colour in TIER_COLOURS.items():
        members = [n for n in picture["nodes"] if n["tier"] == tier]
        if not members:
            continue
        name = f"{tier}: {shown[tier]:,} of {totals[tier]:,} shown"
        names.append(name)
        colours.append(colour)
        side = NODE_SIZE.get(tier, 14)
        nodes += [{"x": m["x"], "y": m["y"], "tier": name, "label": m["label"], "size": side * side} for m in members]
    hidden = {"axis": None, "scale": {"zero": False, "padding": 24}}
    lines = {
        "data": data(edges),
        "mark": {"type": "rule", "color": "#cfd4dc", "strokeWidth": 1},
        "encoding": {
            "x": {"field": "x", "type": "quantitative", **hidden},
            "y": {"field": "y", "type": "quantitative", **hidden},
            "x2": {"field": "x2"},
            "y2": {"field": "y2"},
        },
    }
    markers = {
        "data": data(nodes),
        "mark": {"type": "square", "opacity": 1},
        "encoding": {
            "x": {"field": "x", "type": "quantitative"},
            "y": {"field": "y", "type": "quantitative"},
            "color": color("tier", names, colours),
            "size": {"field": "size", "type": "quantitative", "scale": None, "legend": None},
            "tooltip": [tip("label", "node", kind="nominal")],
        },
    }
    return chart(lines, markers, title="Back-end topology (a sample of each tier)", height=420)

"""The house palette, and the node and capex charts (Vega-Lite specs, :mod:`.spec`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .spec import Spec, chart, color, data, n, q, tip

if TYPE_CHECKING:
    from ..model import Result

PALETTE = {"this": "#2a9d8f", "oem": "#b0b7c3", "accent": "#e76f51"}
"""This plan's colour, the OEM default's, and the accent (a warning, a price line)."""


def _short(text: str, width: int = 44) -> str:
    """A label cut to ``width`` characters at a word boundary, with an ellipsis."""
    text = text.split(" (")[0] if len(text) > width else text
    return text if len(text) <= width else text[: width - 1].rsplit(" ", 1)[0] + "…"


def node_bom_figure(result: Result) -> Spec:
    """Per-line cost of this server against the OEM-default server (horizontal grouped bars, log scale) [USD]."""
    this = {ln.key: ln for ln in result.node_lines}
    oem = {ln.key: ln for ln in result.oem_default_node_lines}
    keys = sorted(
        set(this) | set(oem),
        key=lambda k: -max(this[k].total_usd if k in this else 0, oem[k].total_usd if k in oem else 0),
    )
    labels = [_short((this.get(k) or oem[k]).item) for k in keys]
    series = ("OEM default", "This node")
    values = [
        {"item": label, "server": name, "usd": side[k].total_usd if k in side else None}
        for k, label in zip(keys, labels, strict=True)
        for name, side in zip(series, (oem, this), strict=True)
    ]
    positive = [ln.total_usd for side in (this, oem) for ln in side.values() if ln.total_usd > 0]
    floor = 10 ** math.floor(math.log10(min(positive))) if positive else 1.0  # a log axis has no zero
    bars = {
        "data": data(values),
        "mark": {"type": "bar"},
        "encoding": {
            "y": n("item", None, sort=labels, axis={"labelLimit": 320}),
            "x2": {"datum": floor},
            "yOffset": n("server", sort=list(series)),
            "x": q("usd", "USD per server", "$,.0f", scale={"type": "log"}),
            "color": color("server", series, (PALETTE["oem"], PALETTE["this"])),
            "tooltip": [
                tip("item", "line", kind="nominal"),
                tip("server", "server", kind="nominal"),
                tip("usd", "USD", "$,.0f"),
            ],
        },
    }
    return chart(bars, title="Cost per server by line item", height=max(300, 40 * len(keys)))


def capex_figure(result: Result) -> Spec:
    """Cluster capex by category (bar) [USD]."""
    capex = {k: v for k, v in result.capex_by_category().items() if k != "total" and v > 0}
    bars = {
        "data": data([{"category": k, "usd": v} for k, v in capex.items()]),
        "mark": {"type": "bar", "color": PALETTE["this"]},
        "encoding": {
            "x": n("category", None, sort=list(capex), axis={"labelAngle": 0}),
            "y": q("usd", "USD", "$,.3s"),
            "tooltip": [tip("category", "category", kind="nominal"), tip("usd", "USD", "$,.0f")],
        },
    }
    return chart(bars, title="Capex by category")

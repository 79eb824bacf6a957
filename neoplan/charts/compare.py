"""Side-by-side charts for several Results (the Compare page), as Vega-Lite specs (:mod:`.spec`); categories keep the
names and colours they have on the other pages (``data/categories.csv``, :data:`.site.CATEGORY_COLORS`,
:data:`.finance.TCO_COLORS`).

The scenarios' names are the user's own words: they go into the specs as data values (and the colour scale's domain)
only, which Vega draws as plain text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..inputs.categories import CAPEX_CATEGORIES, CAPEX_LABELS
from . import site
from .base import PALETTE
from .finance import TCO_COLORS
from .spec import Spec, chart, color, data, n, q, rule_y, tip

if TYPE_CHECKING:
    from ..model import Result

SERIES_COLORS = (
    "#636efa",
    "#EF553B",
    "#00cc96",
    "#ab63fa",
    "#FFA15A",
    "#19d3f3",
    "#FF6692",
    "#B6E880",
    "#FF97FF",
    "#FECB52",
)
"""One colour per scenario line, in order (plotly's default colour sequence, as before), repeated past ten."""


def _stacked(
    results: dict[str, Result],
    values: dict[str, list[float]],
    colors: list[str],
    *,
    title: str,
    y_title: str,
    axis_fmt: str,
    tip_fmt: str,
) -> Spec:
    """Bars per scenario (x, in the given order) stacked by category (``values[label]``: one per scenario, the first
    category at the bottom, the legend in category order)."""
    labels = list(values)
    records = [
        {"scenario": name, "order": i, "category": label, "k": k, "value": values[label][i]}
        for k, label in enumerate(labels)
        for i, name in enumerate(results)
    ]
    bars = {
        "data": data(records),
        "mark": {"type": "bar", "stroke": "white", "strokeWidth": 0.5},
        "encoding": {
            "x": n("scenario", None, sort={"field": "order", "op": "min"}, axis={"labelAngle": 0}),
            "y": q("value", y_title, axis_fmt, stack="zero"),
            "color": color("category", labels, colors, legend={"symbolStrokeWidth": 0}),
            "order": {"field": "k", "type": "quantitative"},
            "tooltip": [
                tip("scenario", "scenario", kind="nominal"),
                tip("category", "category", kind="nominal"),
                tip("value", y_title, tip_fmt),
            ],
        },
    }
    return chart(bars, title=title)


def capex_compare_figure(results: dict[str, Result]) -> Spec:
    """Capex by category per scenario, stacked bars (Vega-Lite spec) [USD]."""
    values = {CAPEX_LABELS[cat]: [r.capex_usd[cat] for r in results.values()] for cat in CAPEX_CATEGORIES}
    colors = [site.CATEGORY_COLORS[cat] for cat in CAPEX_CATEGORIES]
    return _stacked(results, values, colors, title="Capex by category", y_title="USD", axis_fmt="$~s", tip_fmt="$,.0f")


def tco_compare_figure(results: dict[str, Result]) -> Spec:
    """TCO per sold GPU-hour by component per scenario, stacked bars (Vega-Lite spec) [USD/GPU-h]."""
    cats = list(next(iter(results.values())).tco_breakdown_usd_per_gpu_hour)
    values = {cat: [r.tco_breakdown_usd_per_gpu_hour[cat] for r in results.values()] for cat in cats}
    colors = [TCO_COLORS.get(cat, PALETTE["oem"]) for cat in cats]
    return _stacked(
        results,
        values,
        colors,
        title="TCO per sold GPU-hour",
        y_title="USD per GPU-hour",
        axis_fmt="$,.2f",
        tip_fmt="$,.3f",
    )


def cumulative_cash_compare_figure(results: dict[str, Result]) -> Spec:
    """Cumulative project cash flow per scenario over the horizon, one line each (Vega-Lite spec) [USD]."""
    names = list(results)
    records = [
        {"scenario": name, "month": month, "usd": usd}
        for name, r in results.items()
        for month, usd in enumerate(np.cumsum(r.ops.cash.project_fcf[0]))
    ]
    colors = [SERIES_COLORS[i % len(SERIES_COLORS)] for i in range(len(names))]
    lines = {
        "data": data(records),
        "encoding": {
            "x": q("month", "month from purchase order", scale={"nice": False}),
            "y": q("usd", "USD", "$~s"),
            "color": color("scenario", names, colors, legend={"symbolType": "stroke"}),
        },
        "layer": [
            {"mark": {"type": "line"}},
            {  # a transparent point per month carries its tooltip (plotly's hover on the line)
                "mark": {"type": "point", "opacity": 0, "size": 60, "filled": True},
                "encoding": {
                    "tooltip": [
                        tip("scenario", "scenario", kind="nominal"),
                        tip("month", "month", ",d"),
                        tip("usd", "USD", "$,.0f"),
                    ]
                },
            },
        ],
    }
    return chart(*rule_y(0, color="#888"), lines, title="Cumulative project cash")

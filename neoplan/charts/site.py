"""Figures of the Storage & site page: capex breakdown, yearly opex, power, storage bandwidth; they only draw.

Each figure is a Vega-Lite specification (:mod:`neoplan.charts.spec`) drawn from a :class:`~neoplan.model.Result`
and the statements of :mod:`neoplan.finance.statements` (capex by category, opex by operating year); nothing here sizes,
prices or rolls anything up.
The capex and opex tables and their labels used to live here; they are re-exported for old imports.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..finance.statements import CAPEX_LABELS, OPEX_LABELS, TOTAL, capex_by_category, operating_years, opex_by_year
from ..formats import usd_exact, usd_label
from .base import PALETTE
from .spec import Spec, chart, color, data, n, q, rule_x, tip

if TYPE_CHECKING:
    from ..model import Result

capex_category_table = capex_by_category
"""Old name of :func:`neoplan.finance.statements.capex_by_category`."""
opex_by_year_table = opex_by_year
"""Old name of :func:`neoplan.finance.statements.opex_by_year`."""

__all__ = [
    "CAPEX_LABELS",
    "CATEGORY_COLORS",
    "OPEX_LABELS",
    "POWER_COLORS",
    "POWER_PARTS",
    "capex_category_table",
    "capex_treemap_figure",
    "capex_waterfall_figure",
    "operating_years",
    "opex_by_year_figure",
    "opex_by_year_table",
    "power_figure",
    "storage_throughput_figure",
]

CATEGORY_COLORS = {
    "compute": PALETTE["this"],
    "backend_network": "#264653",
    "frontend_network": "#8ab17d",
    "oob_network": "#b0b7c3",
    "storage": "#e9c46a",
    "management": "#f4a261",
    "other": PALETTE["accent"],
    "power": "#e9c46a",
    "colocation": "#264653",
    "staff": PALETTE["this"],
    "hardware_support": "#f4a261",
    "repairs": "#d62828",
    "software": "#9b5de5",
    "insurance": "#b0b7c3",
    "transit": "#8ab17d",
    "sga": PALETTE["accent"],
}
POWER_PARTS = (
    ("compute", "Compute servers"),
    ("network", "Network"),
    ("storage", "Storage"),
    ("management", "Management"),
)
POWER_COLORS = {
    "compute": PALETTE["this"],
    "network": "#264653",
    "storage": "#e9c46a",
    "management": "#f4a261",
    "cooling": PALETTE["oem"],
    "cdu": "#2a9d8f",
}


def _short(text: str, width: int = 48) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _unique(labels: Sequence[str]) -> list[str]:
    """``labels`` with a repeated one numbered (``Item (2)``): a nominal axis would draw two rows as one."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


def bar_labels(values: Sequence[Spec], y: Spec, x: Spec, tooltip: Sequence[Spec]) -> list[Spec]:
    """Text layers writing each row's ``text`` at the end of its horizontal bar (``x`` a quantitative channel from
    zero): inside it in white when the bar is at least half the longest, else outside it (right of a positive bar,
    left of a negative one), so that no label runs off the plot. The labels have the bars' ``tooltip`` (a bar too
    short to point at still has its label)."""
    field = x["field"]
    longest = max((abs(v[field]) for v in values if v[field] is not None), default=0.0)
    groups = {  # (inside, negative): align, dx, colour
        (False, False): ("left", 3, "#333"),
        (False, True): ("right", -3, "#333"),
        (True, False): ("right", -4, "white"),
        (True, True): ("left", 4, "white"),
    }
    layers = []
    for (inside, negative), (align, dx, colour) in groups.items():
        part = [
            v
            for v in values
            if v[field] is not None and (0 < longest <= 2 * abs(v[field])) == inside and (v[field] < 0) == negative
        ]
        if part:  # an empty layer has an infinite extent
            layers.append(
                {
                    "data": data(part),
                    "mark": {"type": "text", "align": align, "dx": dx, "color": colour},
                    "encoding": {"y": y, "x": x, "text": {"field": "text"}, "tooltip": list(tooltip)},
                }
            )
    return layers


def labelled_bars(values: Sequence[Spec], y: Spec, x: Spec, colour: Spec, tooltip: Sequence[Spec]) -> list[Spec]:
    """Layers: a horizontal bar per row of ``values`` (rows ``y``, length ``x``, colour channel ``colour``) and its
    :func:`bar_labels`."""
    bars = {
        "data": data(values),
        "mark": {"type": "bar"},
        "encoding": {"y": y, "x": x, "color": colour, "tooltip": list(tooltip)},
    }
    return [bars, *bar_labels(values, y, x, tooltip)]


def _share(fraction: float) -> str:
    """A share of a total to one decimal of a percent, to two below 1 % (``84.9%``, ``0.04%``)."""
    return f"{fraction:.1%}" if fraction >= 0.01 else f"{fraction:.2%}"


WATERFALL_KINDS = ("up", "down", "total")
"""Bar kinds of a :func:`waterfall`: a step that adds, one that takes away, a total."""


def waterfall(
    steps: Sequence[tuple[str, str, float, str]],
    *,
    colors: Sequence[str],
    y: Spec,
    tooltip: Sequence[Spec],
    clip: bool = False,
) -> list[Spec]:
    """The layers of a waterfall (Vega-Lite has none): one bar per step from ``start`` to ``end``, coloured by kind
    (:data:`WATERFALL_KINDS`, in ``colors``), a grey connector from each bar's end to the next bar, and the step's
    label outside its end (above a bar that adds or a total, below one that takes away).

    ``steps`` are (name, measure, value, label): ``"absolute"`` sets the running total to ``value``, ``"relative"``
    adds ``value`` to it, ``"total"`` shows the running total so far (``value`` is what its tooltip and label say).
    The running totals are computed here from the values. ``y`` is the quantitative channel of ``start`` (title,
    format, scale); ``tooltip`` may use the fields step, value, start and end; ``clip`` cuts the bars at the
    plot's edge (for a ``y`` scale that does not start at zero)."""
    running = 0.0
    values: list[Spec] = []
    for name, measure, value, label in steps:
        if measure == "absolute":
            start, end, kind = 0.0, value, "total"
        elif measure == "relative":
            start, end, kind = running, running + value, "up" if value >= 0 else "down"
        else:
            start, end, kind = 0.0, running, "total"
        running = end
        values.append({"step": name, "kind": kind, "start": start, "end": end, "value": value, "text": label})
    for this, following in itertools.pairwise(values):
        this["next"] = following["step"]
    for v in values:
        v["top"], v["bottom"] = max(v["start"], v["end"]), min(v["start"], v["end"])
    order = [v["step"] for v in values]
    x = n(
        "step",
        None,
        sort=order,
        axis={"labelAngle": 30, "labelAlign": "left", "labelBaseline": "top", "labelOverlap": False, "labelLimit": 160},
    )
    source = data(values)
    connectors = {
        "data": source,
        "transform": [{"filter": "isValid(datum.next)"}],
        "mark": {"type": "rule", "color": PALETTE["oem"], "strokeWidth": 1, "clip": clip},
        "encoding": {
            "x": {**x, "bandPosition": 0.5},
            "x2": {"field": "next", "bandPosition": 0.5},
            "y": {"field": "end", "type": "quantitative"},
            "tooltip": None,
        },
    }
    bars = {
        "data": source,
        "mark": {"type": "bar", "clip": clip},
        "encoding": {
            "x": x,
            "y": y,
            "y2": {"field": "end"},
            "color": color("kind", WATERFALL_KINDS, colors, legend=None),
            "tooltip": list(tooltip),
        },
    }
    labels = [
        {
            "data": data(part),
            "mark": {"type": "text", "baseline": baseline, "dy": dy, "color": "#333", "clip": clip},
            "encoding": {
                "x": x,
                "y": {"field": field, "type": "quantitative"},
                "text": {"field": "text"},
                "tooltip": list(tooltip),
            },
        }
        for down, baseline, dy, field in ((False, "bottom", -3, "top"), (True, "top", 3, "bottom"))
        if (part := [v for v in values if (v["kind"] == "down") == down])  # an empty layer has an infinite extent
    ]
    return [connectors, bars, *labels]


# --- capex --------------------------------------------------------------------------------------


def capex_waterfall_figure(result: Result) -> Spec:
    """Cluster capex as a waterfall: each category adds to the total (zero categories left out) [USD].

    Bars from the running total before each category to the one after it, then the total from zero; each labelled
    with its amount."""
    capex = result.capex_usd
    cats = [c for c in CAPEX_LABELS if capex.get(c, 0.0) > 0]
    steps = [(CAPEX_LABELS[c], "relative", capex[c], usd_label(capex[c])) for c in cats]
    steps.append(("Total", "total", capex["total"], usd_label(capex["total"])))
    layers = waterfall(
        steps,
        colors=(PALETTE["this"], PALETTE["accent"], "#264653"),
        y=q("start", "USD", "$,.3~s"),
        tooltip=[
            tip("step", "category", kind="nominal"),
            tip("value", "USD", "$,.0f"),
            tip("end", "running total", "$,.0f"),
        ],
    )
    return chart(*layers, title="Capex by category")


def capex_treemap_figure(result: Result) -> Spec:
    """Cluster capex by category and cost line [USD]: the hierarchy a treemap showed (Vega-Lite has none) as one
    list of bars to scale. Each category (largest first) has a row with its total and share of capex (bold label),
    followed by a row per cost line (largest first) in the category's colour. Every bar is labelled with its
    amount; its tooltip (on the bar and on its label, so that a line too small to see can still be pointed at)
    gives the line's item, quantity × unit price, amount and share of capex."""
    capex = result.capex_usd
    total = capex["total"]
    cats = sorted((c for c in CAPEX_LABELS if capex.get(c, 0.0) > 0), key=lambda c: -capex[c])
    headings: list[Spec] = []
    items: list[Spec] = []
    rows: list[Spec] = []  # every one in the order drawn
    for cat in cats:
        name = CAPEX_LABELS[cat]
        headings.append(
            {
                "row": f"{name}: {usd_label(capex[cat])} ({_share(capex[cat] / total)})",
                "category": name,
                "usd": capex[cat],
                "share": capex[cat] / total,
                "text": usd_label(capex[cat]),
            }
        )
        rows.append(headings[-1])
        for ln in sorted(
            (ln for ln in result.capex_lines if ln.category == cat and ln.total_usd > 0), key=lambda ln: -ln.total_usd
        ):
            items.append(
                {
                    "row": _short(ln.item),
                    "category": name,
                    "item": ln.item,
                    "amount": f"{ln.quantity:,g} {ln.unit} × {usd_exact(ln.unit_price_usd)}",
                    "usd": ln.total_usd,
                    "share": ln.total_usd / total,
                    "text": usd_label(ln.total_usd),
                }
            )
            rows.append(items[-1])
    order = _unique([r["row"] for r in rows])
    for r, label in zip(rows, order, strict=True):
        r["row"] = label
    bold = json.dumps([h["row"] for h in headings])
    y = n(
        "row",
        None,
        sort=order,
        axis={
            "labelLimit": 220,
            "labelOverlap": False,
            "labelFontWeight": {
                "condition": {"test": f"indexof({bold}, datum.value) >= 0", "value": "bold"},
                "value": "normal",
            },
        },
    )
    x = q("usd", "USD", "$,.3~s")
    colours = color("category", [CAPEX_LABELS[c] for c in cats], [CATEGORY_COLORS[c] for c in cats], legend=None)
    heading_tip = [
        tip("category", "category", kind="nominal"),
        tip("usd", "USD", "$,.0f"),
        tip("share", "share of capex", ".1%"),
    ]
    item_tip = [
        tip("item", "line", kind="nominal"),
        tip("category", "category", kind="nominal"),
        tip("amount", "quantity × unit price", kind="nominal"),
        tip("usd", "USD", "$,.0f"),
        tip("share", "share of capex", ".1%"),
    ]
    layers = []
    for values, tooltip, band in ((headings, heading_tip, 0.9), (items, item_tip, 0.7)):
        layers.append(
            {
                "data": data(values),
                "mark": {"type": "bar", "height": {"band": band}},
                "encoding": {"y": y, "x": x, "color": colours, "tooltip": tooltip},
            }
        )
        layers += bar_labels(values, y, x, tooltip)
    return chart(
        *layers,
        title="Capex by category and line",
        subtitle="Each category's total (bold), then its cost lines; largest first",
        height=max(300, 17 * len(order)),
    )


# --- opex ---------------------------------------------------------------------------------------


def opex_by_year_figure(result: Result) -> Spec:
    """Opex per operating year, stacked by category [USD/year], each year's total above its bar; a short last year
    is labelled with its months (the column labels of :func:`~neoplan.finance.statements.opex_by_year`)."""
    table = opex_by_year(result)
    years = [str(label) for label in table.columns]
    cats = [(cat, name) for cat, name in OPEX_LABELS.items() if any(v > 0 for v in table.loc[name].tolist())]
    values = [
        {"category": name, "year": year, "usd": usd, "order": k}
        for k, (_, name) in enumerate(cats)
        for year, usd in zip(years, table.loc[name].tolist(), strict=True)
    ]
    totals = [
        {"year": year, "usd": usd, "text": usd_label(usd)}
        for year, usd in zip(years, table.loc[TOTAL].tolist(), strict=True)
    ]
    x = n("year", None, sort=years, axis={"labelAngle": 0})
    legend = list(reversed(cats))  # top of the stack first, as the bars read
    bars = {
        "data": data(values),
        "mark": {"type": "bar"},
        "encoding": {
            "x": x,
            "y": q("usd", "USD per year", "$,.3~s", stack="zero"),
            "order": {"field": "order", "type": "quantitative"},
            "color": color(
                "category", [nm for _, nm in legend], [CATEGORY_COLORS[c] for c, _ in legend], legend={"columns": 3}
            ),
            "tooltip": [
                tip("category", "category", kind="nominal"),
                tip("year", "year", kind="nominal"),
                tip("usd", "USD", "$,.0f"),
            ],
        },
    }
    labels = {
        "data": data(totals),
        "mark": {"type": "text", "baseline": "bottom", "dy": -3, "color": "#333"},
        "encoding": {
            "x": x,
            "y": {"field": "usd", "type": "quantitative"},
            "text": {"field": "text"},
            "tooltip": [tip("year", "year", kind="nominal"), tip("usd", "total", "$,.0f")],
        },
    }
    return chart(bars, labels, title="Opex per operating year")


# --- power and storage --------------------------------------------------------------------------


def power_figure(result: Result) -> Spec:
    """IT load at peak and on average by part, plus cooling and losses (PUE − 1) on top [kW] (stacked bars)."""
    f = result.facility
    shared = {"network": f.network_kw, "storage": f.storage_kw, "management": f.management_kw}
    peak = {"compute": f.compute_peak_kw, **shared}
    avg = {"compute": f.compute_avg_kw, **shared}
    series = [(name, POWER_COLORS[key], avg[key], peak[key]) for key, name in POWER_PARTS]
    if f.cooling_kw > 0:  # liquid-cooled racks: the CDU pumps are IT load (the chillers are in the PUE)
        series.append(("CDU pumps (liquid cooling)", POWER_COLORS["cdu"], f.cooling_kw, f.cooling_kw))
    series.append(
        (
            f"Cooling & losses (PUE {f.pue:g})",
            POWER_COLORS["cooling"],
            f.it_avg_kw * (f.pue - 1),
            f.facility_peak_kw - f.it_peak_kw,
        )
    )
    values = [
        {"part": name, "row": row, "kw": kw, "order": k}
        for k, (name, _, a, p) in enumerate(series)
        for row, kw in (("Average", a), ("Peak", p))
    ]
    bars = {
        "data": data(values),
        "mark": {"type": "bar"},
        "encoding": {
            "y": n("row", None, sort=["Peak", "Average"]),
            "x": q("kw", "kW", ",.0f", stack="zero"),
            "order": {"field": "order", "type": "quantitative"},
            "color": color("part", [s[0] for s in series], [s[1] for s in series], legend={"columns": 3}),
            "tooltip": [
                tip("part", "part", kind="nominal"),
                tip("row", "load", kind="nominal"),
                tip("kw", "kW", ",.0f"),
            ],
        },
    }
    return chart(bars, title="Site power: IT load by part and facility overhead", height=300)


def storage_throughput_figure(result: Result) -> Spec:
    """Aggregate storage read and write bandwidth against the read target (dashed line) [GB/s]; the read bar is
    red when it misses the target."""
    s = result.storage
    values = [
        {"way": "Read", "gbs": s.read_gbyte_per_s, "text": f"{s.read_gbyte_per_s:,.0f} GB/s"},
        {"way": "Write", "gbs": s.write_gbyte_per_s, "text": f"{s.write_gbyte_per_s:,.0f} GB/s"},
    ]
    read = PALETTE["this"] if s.meets_target else PALETTE["accent"]
    y = n("way", None, sort=["Write", "Read"])
    tooltip = [tip("way", "bandwidth", kind="nominal"), tip("gbs", "GB/s", ",.0f")]
    x = q("gbs", "GB/s", ",.0f")
    layers = labelled_bars(values, y, x, color("way", ["Read", "Write"], [read, "#264653"], legend=None), tooltip)
    if s.target_gbyte_per_s > 0:
        layers += rule_x(
            s.target_gbyte_per_s,
            color=PALETTE["accent"],
            dash=True,
            text=f"read target {s.target_gbyte_per_s:,.0f} GB/s",
        )
    return chart(*layers, title="Aggregate storage bandwidth", height=240)

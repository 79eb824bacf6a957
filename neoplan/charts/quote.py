"""Charts of an OEM quote review (the Quote review page), drawn from a QuoteReview only, as Vega-Lite specs
(:mod:`.spec`). Text from the quote file (sheet names, items) goes in as data values: Vega draws it as plain text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..formats import usd_label
from ..inputs.categories import QUOTE_LABELS
from .base import PALETTE
from .spec import Spec, chart, color, data, n, q, tip

if TYPE_CHECKING:
    from ..quote import QuoteReview

CATEGORY_LABELS = QUOTE_LABELS
"""Display names of the quote categories (``data/categories.csv``)."""
BAR_PX = 34
SERIES = ("Quote", "Recommended design")
"""The two bars of each category, top to bottom (and in the legend)."""


def _where(sources: tuple[tuple[str, int], ...]) -> str:
    """The quote's own rows of a finding, at most three: ``Compute!7, Compute!8…`` or ``row 14``."""
    shown = [f"{sheet}!{row}" if sheet else f"row {row}" for sheet, row in sources[:3]]
    return ", ".join(shown) + ("…" if len(sources) > 3 else "")


def _height(bars: int) -> int:
    """Tall enough for ``bars`` bars."""
    return max(260, 110 + BAR_PX * bars)


def _value_labels(encoding: Spec, values: list[dict[str, Any]]) -> list[Spec]:
    """The bars' value labels (field ``label``) just past the end of each bar: right of a gain, left of a loss (a
    layer for each sign the ``values`` have: an empty layer would give its scale an infinite extent)."""
    return [
        {
            "transform": [{"filter": f"datum.usd {op} 0"}],
            "mark": {"type": "text", "align": align, "baseline": "middle", "dx": dx, "fontSize": 11, "color": "#444"},
            "encoding": {**encoding, "text": {"field": "label", "type": "nominal"}},
        }
        for op, align, dx, shown in (
            (">=", "left", 3, any(v["usd"] >= 0 for v in values)),
            ("<", "right", -3, any(v["usd"] < 0 for v in values)),
        )
        if shown
    ]


def quote_vs_recommended_figure(review: QuoteReview) -> Spec:
    """Quote vs recommended design by category over the components the quote prices (horizontal grouped bars, the
    quote above the design, each with its value; Vega-Lite spec) [USD]."""
    by_cat = review.by_category()
    labels = [CATEGORY_LABELS.get(c, c) for c in by_cat]  # first category on top
    values: list[dict[str, Any]] = [
        {"category": label, "side": side, "usd": pair[i], "label": usd_label(pair[i])}
        for label, pair in zip(labels, by_cat.values(), strict=True)
        for side, i in zip(SERIES, (0, 1), strict=True)
    ]
    place = {
        "y": n("category", None, sort=labels),
        "yOffset": n("side", sort=list(SERIES)),
        "x": q("usd", "USD (components the quote prices)", "$~s", axis={"tickCount": 8}),
    }
    bars = {
        "mark": {"type": "bar"},
        "encoding": {
            **place,
            "color": color("side", SERIES, (PALETTE["oem"], PALETTE["this"])),
            "tooltip": [
                tip("category", "category", kind="nominal"),
                tip("side", "side", kind="nominal"),
                tip("usd", "USD", "$,.0f"),
            ],
        },
    }
    layers = {"data": data(values), "layer": [bars, *_value_labels(place, values)]}
    return chart(layers, title="Quote vs recommended design, by category", height=_height(2 * len(labels)))


def findings_figure(review: QuoteReview) -> Spec:
    """Saving of each finding, the largest on top (horizontal bars with their values; negative = cost to fix, in the
    accent colour; Vega-Lite spec) [USD]."""
    findings = sorted(review.findings, key=lambda f: f.saving_usd)[::-1]  # ties as before: the later one on top
    values = [
        {
            "order": i,
            "finding": f"{f.title} ({_where(f.sources)})",
            "kind": "saving" if f.saving_usd >= 0 else "cost to fix",
            "usd": f.saving_usd,
            "label": usd_label(f.saving_usd),
        }
        for i, f in enumerate(findings)
    ]
    place = {
        "y": n("finding", None, sort={"field": "order", "op": "min"}, axis={"labelLimit": 380}),
        "x": q("usd", "USD (negative = cost to fix)", "$~s", axis={"tickCount": 8}),
    }
    bars = {
        "mark": {"type": "bar"},
        "encoding": {
            **place,
            "color": color("kind", ("saving", "cost to fix"), (PALETTE["this"], PALETTE["accent"]), legend=None),
            "tooltip": [tip("finding", "finding", kind="nominal"), tip("usd", "USD", "$,.0f")],
        },
    }
    layers = {"data": data(values), "layer": [bars, *_value_labels(place, values)]}
    return chart(layers, title="Saving by finding", height=_height(len(values)))

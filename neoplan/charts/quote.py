"""Charts of an OEM quote review (the Quote review page; plotly, :mod:`.base`), drawn from a QuoteReview only. Text
from the quote file (sheet names, items, a finding's title) goes through :func:`.base.plain`: plotly shows it as
typed, never as markup."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import plotly.graph_objects as go

from ..formats import usd_exact, usd_label
from ..inputs.categories import QUOTE_LABELS
from .base import PALETTE, STYLE, Draft, hover, money_axis, plain, trace, unique

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


def _layout(bars: int) -> dict[str, Any]:
    """The shared STYLE, tall enough for ``bars`` bars and with room right of them for value labels."""
    return {**STYLE, "height": max(280, 120 + BAR_PX * bars), "margin": {**STYLE["margin"], "r": 70}}


def quote_vs_recommended_figure(review: QuoteReview) -> go.Figure:
    """Quote vs recommended design by category over the components the quote prices (horizontal grouped bars, the
    quote above the design, each with its value) [USD]."""
    by_cat = review.by_category()
    cats = list(reversed(by_cat))  # plotly draws the first category at the bottom: the first one on top
    labels = [plain(CATEGORY_LABELS.get(c, c)) for c in cats]
    fig = Draft()
    # grouped horizontal bars stack the first trace at the bottom of each group: the design first, the quote above
    for name, i, colour in ((SERIES[1], 1, PALETTE["this"]), (SERIES[0], 0, PALETTE["oem"])):
        values = [by_cat[c][i] for c in cats]
        fig.add(
            "bar",
            y=labels,
            x=values,
            name=name,
            orientation="h",
            marker_color=colour,
            text=[usd_label(v) for v in values],
            textposition="outside",
            cliponaxis=False,
            **hover(f"{label}<br>{name}: {usd_exact(v)}" for label, v in zip(labels, values, strict=True)),
        )
    fig.update(**_layout(2 * len(cats)))
    fig.update(
        barmode="group",
        title="Quote vs recommended design, by category",
        xaxis=money_axis("USD (components the quote prices)", [v for pair in by_cat.values() for v in pair]),
        legend={
            "orientation": "h",
            "x": 1,
            "xanchor": "right",
            "y": 1.02,
            "yanchor": "bottom",
            "traceorder": "reversed",
        },
    )
    return fig.figure()


def findings_figure(review: QuoteReview) -> go.Figure:
    """Saving of each finding, the largest on top (horizontal bars with their values; negative = cost to fix, in the
    accent colour) [USD]."""
    findings = sorted(review.findings, key=lambda f: f.saving_usd)  # plotly draws the first at the bottom
    names = [plain(f"{f.title} ({_where(f.sources)})") for f in findings]
    values = [f.saving_usd for f in findings]
    fig = Draft(
        trace(
            "bar",
            y=unique(names),
            x=values,
            orientation="h",
            marker_color=[PALETTE["this"] if v >= 0 else PALETTE["accent"] for v in values],
            text=[usd_label(v) for v in values],
            textposition="outside",
            cliponaxis=False,
            name="saving",
            **hover(
                f"{name}<br>{'saving' if v >= 0 else 'cost to fix'}: {usd_exact(abs(v))}"
                for name, v in zip(names, values, strict=True)
            ),
        )
    )
    fig.update(**_layout(len(findings)))
    fig.update(
        title="Saving by finding",
        xaxis=money_axis("USD (negative = cost to fix)", values),
        yaxis={"automargin": True},
        showlegend=False,
    )
    return fig.figure()

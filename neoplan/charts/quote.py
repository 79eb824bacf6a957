"""Figures of an OEM quote review (the Quote review page), drawn from a QuoteReview only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import plotly.graph_objects as go

from ..categories import QUOTE_LABELS
from ..formats import usd_label
from ..plaintext import for_plotly
from .base import PALETTE, STYLE, figure

if TYPE_CHECKING:
    from ..quote import QuoteReview

CATEGORY_LABELS = QUOTE_LABELS
"""Display names of the quote categories (``data/categories.csv``)."""
BAR_PX = 34


def _where(sources: tuple[tuple[str, int], ...]) -> str:
    """The quote's own rows of a finding, at most three: ``Compute!7, Compute!8…`` or ``row 14``.

    Sheet names come from the file: escaped (:func:`neoplan.plaintext.for_plotly`) so Plotly shows them as text.
    """
    shown = [f"{sheet}!{row}" if sheet else f"row {row}" for sheet, row in sources[:3]]
    return for_plotly(", ".join(shown) + ("…" if len(sources) > 3 else ""))


def _layout(bars: int) -> dict[str, Any]:
    """The shared STYLE, tall enough for ``bars`` bars and with room right of them for value labels."""
    margin = {**cast(dict[str, int], STYLE["margin"]), "r": 70}
    return {**STYLE, "height": max(260, 110 + BAR_PX * bars), "margin": margin}


def quote_vs_recommended_figure(review: QuoteReview) -> go.Figure:
    """Quote vs recommended design by category over the components the quote prices (horizontal bars) [USD]."""
    by_cat = review.by_category()
    cats = list(reversed(by_cat))  # first category on top
    labels = [CATEGORY_LABELS.get(c, c) for c in cats]
    fig = figure()
    for name, i, color in (("Recommended design", 1, PALETTE["this"]), ("Quote", 0, PALETTE["oem"])):
        values = [by_cat[c][i] for c in cats]
        fig.add_bar(
            y=labels,
            x=values,
            name=name,
            orientation="h",
            marker_color=color,
            text=[usd_label(v) for v in values],
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{y}<br>$%{x:,.0f}<extra>" + name + "</extra>",
        )
    layout = _layout(2 * len(cats))
    fig.update_layout(
        barmode="group",
        title="Quote vs recommended design, by category",
        xaxis_title="USD (components the quote prices)",
        legend={
            "orientation": "h",
            "x": 1,
            "xanchor": "right",
            "y": 1.02,
            "yanchor": "bottom",
            "traceorder": "reversed",
        },
        **layout,
    )
    return fig


def findings_figure(review: QuoteReview) -> go.Figure:
    """Saving of each finding (horizontal bars; negative = cost to fix) [USD]."""
    findings = sorted(review.findings, key=lambda f: f.saving_usd)
    labels = [f"{f.title} ({_where(f.sources)})" for f in findings]
    fig = figure(
        go.Bar(
            y=labels,
            x=[f.saving_usd for f in findings],
            orientation="h",
            marker_color=[PALETTE["this"] if f.saving_usd >= 0 else PALETTE["accent"] for f in findings],
            text=[usd_label(f.saving_usd) for f in findings],
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{y}<br>$%{x:,.0f}<extra></extra>",
        )
    )
    layout = _layout(len(findings))
    fig.update_layout(title="Saving by finding", xaxis_title="USD (negative = cost to fix)", **layout)
    return fig

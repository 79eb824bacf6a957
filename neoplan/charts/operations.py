"""Operations page figures: where sellable GPU-hours go, what interrupts jobs, what an interruption costs, and the
effect of each operating or design choice on NPV. They only draw: every value comes from the model's
:class:`~neoplan.operations.OperationsReport` or from evaluated variants."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import plotly.graph_objects as go

from ..formats import pct, usd_label
from .base import PALETTE, STYLE, figure, vline

if TYPE_CHECKING:
    from ..operations import OperationsReport

CAUSE_LABELS = {
    "gpu": "GPU",
    "hbm": "HBM memory",
    "network": "NIC, optics and switches",
    "host": "Host (CPU, RAM, PSU)",
    "software": "Software",
    "sdc": "Silent data corruption",
}
CAUSE_COLORS = {
    "gpu": PALETTE["this"],
    "hbm": "#264653",
    "network": PALETTE["accent"],
    "host": "#f4a261",
    "software": "#9b5de5",
    "sdc": PALETTE["oem"],
}
GAIN, LOSS = PALETTE["this"], PALETTE["accent"]


def gpu_hours_figure(report: OperationsReport) -> go.Figure:
    """Of every sellable GPU-hour: the share lost to servers down (1 − availability), the share lost to job
    interruptions (availability − goodput), the goodput, and the work delivered at the design's performance
    factor (goodput × performance) [fraction of sellable GPU-hours]."""
    down = 1 - report.availability
    interrupted = report.availability - report.goodput
    delivered = report.goodput * report.performance_factor
    labels = ["Sellable", "Servers down", "Jobs interrupted", "Goodput", "Performance", "Delivered work"]
    values = [1.0, -down, -interrupted, report.goodput, delivered - report.goodput, delivered]
    fig = figure(
        go.Waterfall(
            x=labels,
            y=values,
            measure=["absolute", "relative", "relative", "total", "relative", "total"],
            text=[pct(v, 2) for v in values],
            textposition="outside",
            cliponaxis=False,
            connector={"line": {"color": PALETTE["oem"], "width": 1}},
            increasing={"marker": {"color": GAIN}},
            decreasing={"marker": {"color": LOSS}},
            totals={"marker": {"color": "#264653"}},
            hovertemplate="%{x}<br>%{y:.2%} of sellable GPU-hours<extra></extra>",
        )
    )
    fig.update_layout(**STYLE)
    low = min(report.availability, report.goodput, delivered)
    span = max(1.0 - low, 0.005)  # the axis shows the top of the bars, where the losses are
    fig.update_layout(
        title="Where the sellable GPU-hours go (axis cut below)",
        yaxis={
            "title": "share of sellable GPU-hours",
            "tickformat": ".1%",
            "range": [max(0.0, low - 0.6 * span), 1.0 + 0.15 * span],
        },
        showlegend=False,
        height=340,
        margin={"t": 60},
    )
    return fig


def interruptions_figure(report: OperationsReport) -> go.Figure:
    """Job-interrupting failures per month by cause, steady state, whole cluster [count/month]."""
    causes = [c for c, n in report.interruptions_by_cause.items() if n > 0]
    causes.sort(key=lambda c: report.interruptions_by_cause[c])
    values = [report.interruptions_by_cause[c] for c in causes]
    fig = figure(
        go.Bar(
            y=[CAUSE_LABELS.get(c, c) for c in causes],
            x=values,
            orientation="h",
            marker_color=[CAUSE_COLORS.get(c, PALETTE["oem"]) for c in causes],
            text=[f"{v:,.2f}" for v in values],
            textposition="auto",
            hovertemplate="%{y}<br>%{x:,.2f} interruptions a month<extra></extra>",
        )
    )
    fig.update_layout(**STYLE)
    fig.update_layout(
        title=f"Interruptions a month by cause: {report.interruptions_per_month:,.1f} in all",
        xaxis_title="interruptions per month",
        showlegend=False,
        height=300,
        margin={"t": 50},
    )
    return fig


def lost_time_figure(report: OperationsReport, checkpoint_interval_minutes: float) -> go.Figure:
    """Minutes of a job lost per interruption, as the model adds them up: detection, the work since the last
    checkpoint (half the interval on average), reading the checkpoint back, and the rest of the model's total:
    relaunch plus, for hardware failures, a reboot or a swap to a hot spare [min]."""
    parts = {
        "Detection": report.detection_minutes,
        "Work since last checkpoint": checkpoint_interval_minutes / 2,
        "Checkpoint restore": report.restore_minutes,
    }
    parts["Relaunch, reboot or spare swap"] = max(report.lost_minutes_per_interruption - sum(parts.values()), 0.0)
    colors = [PALETTE["accent"], PALETTE["this"], "#264653", "#f4a261"]
    fig = figure()
    for (name, minutes), color in zip(parts.items(), colors, strict=True):
        fig.add_bar(
            y=["Per interruption"],
            x=[minutes],
            name=name,
            orientation="h",
            marker_color=color,
            text=[f"{minutes:,.1f} min"],
            textposition="inside",
            hovertemplate=f"{name}<br>%{{x:,.1f}} min<extra></extra>",
        )
    fig.update_layout(**STYLE)
    fig.update_layout(
        barmode="stack",
        title=f"Job time lost per interruption: {report.lost_minutes_per_interruption:,.0f} min",
        xaxis_title="minutes",
        height=250,
        legend={"orientation": "h", "y": -0.7},
        margin={"t": 50, "b": 20},
    )
    return fig


def choices_figure(labels: Sequence[str], delta_npv_usd: Sequence[float | None], title: str) -> go.Figure:
    """Δ NPV of each alternative against the open scenario, largest gain on top; alternatives the model could not
    evaluate (``None``) are left out [USD]."""
    rows = sorted(
        ((label, value) for label, value in zip(labels, delta_npv_usd, strict=True) if value is not None),
        key=lambda row: row[1],
    )
    values = [value for _, value in rows]
    fig = figure(
        go.Bar(
            y=[label for label, _ in rows],
            x=values,
            orientation="h",
            marker_color=[GAIN if v >= 0 else LOSS for v in values],
            text=[usd_label(v, signed=True) for v in values],
            textposition="auto",
            cliponaxis=False,
            hovertemplate="%{y}<br>Δ NPV $%{x:,.0f}<extra></extra>",
        )
    )
    vline(fig, 0.0, color="#264653", width=1)
    fig.update_layout(**STYLE)
    fig.update_layout(
        title=title,
        xaxis_title="Δ NPV vs this scenario [USD]",
        showlegend=False,
        height=max(260, 60 + 26 * len(rows)),
        margin={"t": 50, "l": 10, "r": 70},  # room for the outside labels of the largest bars
    )
    return fig

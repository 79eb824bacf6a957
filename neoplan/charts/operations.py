"""Operations page figures (plotly, :mod:`.base`): where sellable GPU-hours go, what interrupts jobs, what an
interruption costs, and the effect of each operating or design choice on NPV. They only draw: every value comes from
the model's :class:`~neoplan.economics.operations.OperationsReport` or from evaluated variants."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import plotly.graph_objects as go

from ..formats import pct, usd_exact, usd_label
from .base import LEGEND_BELOW, PALETTE, Draft, hover, money_axis, plain, trace, vline

if TYPE_CHECKING:
    from ..economics.operations import OperationsReport

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
    factor (goodput × performance) [fraction of sellable GPU-hours]. A waterfall (``go.Waterfall``), its axis cut
    below to show the top of the bars, where the losses are."""
    down = 1 - report.availability
    interrupted = report.availability - report.goodput
    delivered = report.goodput * report.performance_factor
    labels = ["Sellable", "Servers down", "Jobs interrupted", "Goodput", "Performance", "Delivered work"]
    values = [1.0, -down, -interrupted, report.goodput, delivered - report.goodput, delivered]
    after = [1.0, report.availability, report.goodput, report.goodput, delivered, delivered]
    fig = Draft(
        trace(
            "waterfall",
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
            name="GPU-hours",
            **hover(
                f"{label}: {pct(v, 2)} of sellable GPU-hours<br>after this step {pct(a, 2)}"
                for label, v, a in zip(labels, values, after, strict=True)
            ),
        )
    )
    low = min(report.availability, report.goodput, delivered)
    span = max(1.0 - low, 0.005)  # the axis shows the top of the bars, where the losses are
    fig.update(
        title="Where the sellable GPU-hours go (axis cut below)",
        yaxis={
            "title": {"text": "share of sellable GPU-hours (%)"},
            "tickformat": ".1%",
            "range": [max(0.0, low - 0.6 * span), 1.0 + 0.15 * span],
        },
        showlegend=False,
        height=360,
    )
    return fig.figure()


def interruptions_figure(report: OperationsReport) -> go.Figure:
    """Job-interrupting failures per month by cause, steady state, whole cluster (horizontal bars, most frequent on
    top) [count/month]."""
    causes = [c for c, k in report.interruptions_by_cause.items() if k > 0]
    causes.sort(key=lambda c: report.interruptions_by_cause[c])  # plotly draws the first category at the bottom
    values = [report.interruptions_by_cause[c] for c in causes]
    labels = [CAUSE_LABELS.get(c, c) for c in causes]
    total = report.interruptions_per_month
    fig = Draft(
        trace(
            "bar",
            y=labels,
            x=values,
            orientation="h",
            marker_color=[CAUSE_COLORS.get(c, PALETTE["oem"]) for c in causes],
            text=[f"{v:,.2f}" for v in values],
            textposition="auto",
            name="interruptions",
            **hover(
                f"{label}: {v:,.2f} interruptions a month" + (f" ({pct(v / total)} of all)" if total > 0 else "")
                for label, v in zip(labels, values, strict=True)
            ),
        )
    )
    fig.update(
        title=f"Interruptions a month by cause: {total:,.1f} in all",
        xaxis={"title": {"text": "interruptions per month"}},
        showlegend=False,
        height=320,
    )
    return fig.figure()


def lost_time_figure(report: OperationsReport, checkpoint_interval_minutes: float) -> go.Figure:
    """Minutes of a job lost per interruption, as the model adds them up: detection, the work since the last
    checkpoint (half the interval on average), reading the checkpoint back, and the rest of the model's total:
    relaunch plus, for hardware failures, a reboot or a swap to a hot spare [min]. One stacked bar; each part's
    minutes in its legend entry and, if it is wide enough (a tenth of the total), inside it."""
    parts = {
        "Detection": report.detection_minutes,
        "Work since last checkpoint": checkpoint_interval_minutes / 2,
        "Checkpoint restore": report.restore_minutes,
    }
    parts["Relaunch, reboot or spare swap"] = max(report.lost_minutes_per_interruption - sum(parts.values()), 0.0)
    total = sum(parts.values())
    colours = [PALETTE["accent"], PALETTE["this"], "#264653", "#f4a261"]
    fig = Draft()
    for (name, minutes), colour in zip(parts.items(), colours, strict=True):
        text = f"{minutes:,.1f} min"
        fig.add(
            "bar",
            y=["Per interruption"],
            x=[minutes],
            name=f"{name}: {text}",
            orientation="h",
            marker_color=colour,
            text=[text if minutes > 0 and minutes >= total / 10 else ""],
            textposition="inside",
            insidetextanchor="middle",
            **hover([f"{name}: {text}" + (f" ({pct(minutes / total)} of the time lost)" if total > 0 else "")]),
        )
    fig.update(
        barmode="stack",
        title=f"Job time lost per interruption: {report.lost_minutes_per_interruption:,.0f} min",
        xaxis={"title": {"text": "minutes"}, "tickformat": ",.0f"},
        yaxis={"showticklabels": False},
        height=300,
        legend={**LEGEND_BELOW, "y": -0.35, "traceorder": "normal"},
    )
    return fig.figure()


def choices_figure(labels: Sequence[str], delta_npv_usd: Sequence[float | None], title: str) -> go.Figure:
    """Δ NPV of each alternative against the open scenario (horizontal bars, green a gain and red a loss, a line at
    zero), largest gain on top; alternatives the model could not evaluate (``None``) are left out [USD]."""
    rows = sorted(
        ((plain(label), value) for label, value in zip(labels, delta_npv_usd, strict=True) if value is not None),
        key=lambda row: row[1],
    )  # plotly draws the first category at the bottom: the largest gain last
    values = [value for _, value in rows]
    fig = Draft(
        trace(
            "bar",
            y=[label for label, _ in rows],
            x=values,
            orientation="h",
            marker_color=[GAIN if v >= 0 else LOSS for v in values],
            text=[usd_label(v, signed=True) for v in values],
            textposition="outside",
            cliponaxis=False,
            name="Δ NPV",
            **hover(
                f"{label}<br>Δ NPV {usd_label(v, signed=True)} ({usd_exact(v)}) vs this scenario" for label, v in rows
            ),
        )
    )
    vline(fig, 0.0, color="#264653", width=1)
    fig.update(
        title=plain(title),
        xaxis=money_axis("Δ NPV vs this scenario [USD]", values, automargin=True),
        yaxis={"automargin": True},
        showlegend=False,
        height=max(280, 90 + 28 * len(rows)),
        margin={"l": 10, "r": 70, "t": 60, "b": 10},  # room for the outside labels of the largest bars
    )
    return fig.figure()

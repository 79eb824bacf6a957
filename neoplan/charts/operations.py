"""Operations page figures: where sellable GPU-hours go, what interrupts jobs, what an interruption costs, and the
effect of each operating or design choice on NPV, as Vega-Lite specifications (:mod:`neoplan.charts.spec`). They
only draw: every value comes from the model's :class:`~neoplan.economics.operations.OperationsReport` or from evaluated
variants."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..formats import pct, usd_label
from .base import PALETTE
from .site import labelled_bars, waterfall
from .spec import Spec, chart, color, data, n, q, rule_x, tip

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


def gpu_hours_figure(report: OperationsReport) -> Spec:
    """Of every sellable GPU-hour: the share lost to servers down (1 − availability), the share lost to job
    interruptions (availability − goodput), the goodput, and the work delivered at the design's performance
    factor (goodput × performance) [fraction of sellable GPU-hours]. A waterfall (bars from one running share to
    the next), its axis cut below to show the top of the bars, where the losses are."""
    down = 1 - report.availability
    interrupted = report.availability - report.goodput
    delivered = report.goodput * report.performance_factor
    steps = [
        ("Sellable", "absolute", 1.0),
        ("Servers down", "relative", -down),
        ("Jobs interrupted", "relative", -interrupted),
        ("Goodput", "total", report.goodput),
        ("Performance", "relative", delivered - report.goodput),
        ("Delivered work", "total", delivered),
    ]
    low = min(report.availability, report.goodput, delivered)
    span = max(1.0 - low, 0.005)  # the axis shows the top of the bars, where the losses are
    domain = [max(0.0, low - 0.6 * span), 1.0 + 0.15 * span]
    layers = waterfall(
        [(name, measure, value, pct(value, 2)) for name, measure, value in steps],
        colors=(GAIN, LOSS, "#264653"),
        y=q("start", "share of sellable GPU-hours", ".1%", scale={"domain": domain, "nice": False, "zero": False}),
        tooltip=[
            tip("step", "step", kind="nominal"),
            tip("value", "of sellable GPU-hours", ".2%"),
            tip("end", "after this step", ".2%"),
        ],
        clip=True,
    )
    return chart(*layers, title="Where the sellable GPU-hours go (axis cut below)", height=340)


def interruptions_figure(report: OperationsReport) -> Spec:
    """Job-interrupting failures per month by cause, steady state, whole cluster (horizontal bars, most frequent on
    top) [count/month]."""
    causes = [c for c, k in report.interruptions_by_cause.items() if k > 0]
    causes.sort(key=lambda c: report.interruptions_by_cause[c])
    causes.reverse()  # top first: the most frequent (of two equal, the later one on top, as before)
    labels = [CAUSE_LABELS.get(c, c) for c in causes]
    values = [
        {"cause": label, "count": report.interruptions_by_cause[c], "text": f"{report.interruptions_by_cause[c]:,.2f}"}
        for c, label in zip(causes, labels, strict=True)
    ]
    y = n("cause", None, sort=labels)
    tooltip = [tip("cause", "cause", kind="nominal"), tip("count", "interruptions a month", ",.2f")]
    x = q("count", "interruptions per month")
    colour = color("cause", labels, [CAUSE_COLORS.get(c, PALETTE["oem"]) for c in causes], legend=None)
    return chart(
        *labelled_bars(values, y, x, colour, tooltip),
        title=f"Interruptions a month by cause: {report.interruptions_per_month:,.1f} in all",
        height=300,
    )


def lost_time_figure(report: OperationsReport, checkpoint_interval_minutes: float) -> Spec:
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
    colors = [PALETTE["accent"], PALETTE["this"], "#264653", "#f4a261"]
    values: list[Spec] = []
    start = 0.0
    for name, minutes in parts.items():
        text = f"{minutes:,.1f} min"
        values.append(
            {
                "part": name,
                "legend": f"{name}: {text}",
                "row": "Per interruption",
                "start": start,
                "end": start + minutes,
                "mid": start + minutes / 2,
                "minutes": minutes,
                "text": text,
            }
        )
        start += minutes
    y = n("row", None)
    tooltip = [tip("part", "part", kind="nominal"), tip("minutes", "minutes", ",.1f")]
    bars = {
        "data": data(values),
        "mark": {"type": "bar"},
        "encoding": {
            "y": y,
            "x": q("start", "minutes", ",.0f"),
            "x2": {"field": "end"},
            "color": color("legend", [v["legend"] for v in values], colors, legend={"columns": 1}),
            "tooltip": tooltip,
        },
    }
    layers = [bars]
    if wide := [v for v in values if v["minutes"] > 0 and v["minutes"] >= start / 10]:
        layers.append(
            {
                "data": data(wide),
                "mark": {"type": "text", "color": "white"},
                "encoding": {
                    "y": y,
                    "x": {"field": "mid", "type": "quantitative"},
                    "text": {"field": "text"},
                    "tooltip": tooltip,
                },
            }
        )
    return chart(
        *layers,
        title=f"Job time lost per interruption: {report.lost_minutes_per_interruption:,.0f} min",
        height=290,
    )


def choices_figure(labels: Sequence[str], delta_npv_usd: Sequence[float | None], title: str) -> Spec:
    """Δ NPV of each alternative against the open scenario (horizontal bars, green a gain and red a loss, a line at
    zero), largest gain on top; alternatives the model could not evaluate (``None``) are left out [USD]."""
    rows = sorted(
        ((label, value) for label, value in zip(labels, delta_npv_usd, strict=True) if value is not None),
        key=lambda row: row[1],
    )[::-1]  # top first: the largest gain (of two equal, the later one on top, as before)
    values = [
        {
            "alternative": label,
            "usd": value,
            "sign": "gain" if value >= 0 else "loss",
            "text": usd_label(value, signed=True),
        }
        for label, value in rows
    ]
    y = n("alternative", None, sort=[label for label, _ in rows])
    tooltip = [tip("alternative", "alternative", kind="nominal"), tip("usd", "Δ NPV", "$,.0f")]
    x = q("usd", "Δ NPV vs this scenario [USD]", "$,.3~s")
    return chart(
        *labelled_bars(values, y, x, color("sign", ["gain", "loss"], [GAIN, LOSS], legend=None), tooltip),
        *rule_x(0.0, color="#264653"),
        title=title,
        height=max(260, 60 + 26 * len(rows)),
        padding={"left": 5, "top": 5, "bottom": 5, "right": 60},  # room for the labels of the largest gains
    )

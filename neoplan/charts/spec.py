"""Vega-Lite building blocks: every chart of neoplan is a Vega-Lite v6 specification, a plain JSON-able dict.

The app draws one with ``st.vega_lite_chart`` (Streamlit's Vega bundle starts in a fraction of plotly's time); the
offline report embeds the same dict with vega-embed. Conventions for every chart module:

- data inline, as rows (:func:`rows`) with fixed ASCII field names. User text (a scenario or saved name, a quote's
  item) goes in *values* only, never in a field name: Vega-Lite reads dots and brackets in a field name as a path.
  Vega draws values, titles, labels, legends and tooltips as plain text, so nothing is escaped;
- non-finite numbers become ``null`` (JSON has no NaN; Vega leaves those marks out);
- numbers formatted with d3-format strings (``"$,.0f"``, ``".1%"``), the same in axes and tooltips;
- a series' colour fixed by an explicit scale (:func:`color`: its ``domain`` and ``range``);
- width is the container's (the app and the report set it); a spec sets its height only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

Spec = dict[str, Any]
"""A Vega-Lite v6 specification (or one layer or encoding of it)."""
SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"
HEIGHT = 380
"""Height of a chart [px]: Streamlit fits the title, axes and legend inside it (``autosize: fit``)."""
DASH = [6, 4]
"""A dashed line (``strokeDash``)."""
DOT = [2, 3]
"""A dotted line (``strokeDash``)."""
CONFIG: Spec = {
    "legend": {"orient": "bottom", "labelLimit": 320, "columns": 4},
    "axis": {"labelLimit": 260},
    "title": {"anchor": "start", "subtitleColor": "#555"},
    "view": {"stroke": None},
}
"""The house style, on every chart."""


def clean(value: Any) -> Any:
    """``value`` as JSON takes it: numpy scalars as Python numbers, nan and ±inf as ``None``."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.datetime64):
        return str(np.datetime_as_string(value, unit="D"))
    return value


def rows(**columns: Iterable[Any]) -> list[Spec]:
    """Columns of equal length as Vega-Lite rows (``{"values": rows(...)}``), every value :func:`clean`."""
    names = list(columns)
    return [dict(zip(names, map(clean, row), strict=True)) for row in zip(*columns.values(), strict=True)]


def data(records: Sequence[Mapping[str, Any]]) -> Spec:
    """Inline data from records, every value :func:`clean`."""
    return {"values": [{k: clean(v) for k, v in r.items()} for r in records]}


def chart(
    *layers: Spec,
    title: str = "",
    subtitle: str | Sequence[str] | None = None,
    height: int = HEIGHT,
    **top: Any,
) -> Spec:
    """A layered chart of ``layers``, titled, in the house style; ``top`` adds top-level keys (``resolve``, …)."""
    heading: Spec = {"text": title}
    if subtitle:
        heading["subtitle"] = subtitle
    return {"$schema": SCHEMA, "title": heading, "height": height, "layer": list(layers), "config": CONFIG, **top}


FIT_X = {"type": "fit-x", "contains": "padding"}
"""A stack's sizing: as wide as its container, axes and legend inside (Streamlit would give a stack of layered charts
``pad``, each row as wide as the container and its y axis outside it, so the stack overflows and is clipped)."""


def stack(*charts: Spec, title: str = "", subtitle: str | Sequence[str] | None = None, **top: Any) -> Spec:
    """Charts made by :func:`chart` one above the other, sharing the x scale (their own titles kept)."""
    parts = [{k: v for k, v in c.items() if k not in ("$schema", "config")} for c in charts]
    heading: Spec = {"text": title}
    if subtitle:
        heading["subtitle"] = subtitle
    return {
        "$schema": SCHEMA,
        "title": heading,
        "vconcat": parts,
        "resolve": {"scale": {"x": "shared"}},
        "autosize": FIT_X,
        "config": CONFIG,
        **top,
    }


def q(field: str, title: str | None = None, fmt: str | None = None, **kw: Any) -> Spec:
    """A quantitative channel: ``field``, axis ``title`` (``None``: none) and d3 format ``fmt`` of its labels."""
    out: Spec = {"field": field, "type": "quantitative", "title": title, **kw}
    if fmt is not None:
        out["axis"] = {"format": fmt, **out.get("axis", {})}
    return out


def n(field: str, title: str | None = None, **kw: Any) -> Spec:
    """A nominal channel (categories, in ``sort`` order if given), axis or legend ``title`` (``None``: none)."""
    return {"field": field, "type": "nominal", "title": title, **kw}


def tip(field: str, title: str, fmt: str | None = None, kind: str = "quantitative") -> Spec:
    """One tooltip line: ``title`` and the field's value in d3 format ``fmt``."""
    out: Spec = {"field": field, "type": kind, "title": title}
    if fmt is not None:
        out["format"] = fmt
    return out


def color(field: str, domain: Sequence[str], colors: Sequence[str], title: str | None = None, **kw: Any) -> Spec:
    """A colour channel with a fixed scale: series ``domain[i]`` drawn in ``colors[i]`` (legend in that order)."""
    return {
        "field": field,
        "type": "nominal",
        "scale": {"domain": list(domain), "range": list(colors)},
        "title": title,
        **kw,
    }


def _one() -> Spec:
    return {"values": [{}]}


def _rule(color: str, dash: bool | Sequence[float], width: float) -> Spec:
    """A rule mark: solid, dashed (``dash`` True: :data:`DASH`) or in a ``strokeDash`` pattern."""
    mark: Spec = {"type": "rule", "color": color, "strokeWidth": width}
    if dash:
        mark["strokeDash"] = DASH if dash is True else list(dash)
    return mark


def rule_y(
    y: float,
    *,
    color: str,
    dash: bool | Sequence[float] = False,
    width: float = 1,
    text: str | None = None,
    below: bool = False,
) -> list[Spec]:
    """A line across the plot at ``y``, ``text`` at its right end, above it (or ``below``); ``dash`` True for
    :data:`DASH`, or a ``strokeDash`` pattern (:data:`DOT`)."""
    out: list[Spec] = [{"data": _one(), "mark": _rule(color, dash, width), "encoding": {"y": {"datum": clean(y)}}}]
    if text:
        out.append(
            {
                "data": _one(),
                "mark": {
                    "type": "text",
                    "align": "right",
                    "baseline": "top" if below else "bottom",
                    "dy": 2 if below else -2,
                    "color": color,
                },
                "encoding": {"x": {"value": "width"}, "y": {"datum": clean(y)}, "text": {"value": text}},
            }
        )
    return out


def rule_x(
    x: float | str,
    *,
    color: str,
    dash: bool | Sequence[float] = False,
    width: float = 1,
    text: str | None = None,
    dy: float = 0,
) -> list[Spec]:
    """A line up the plot at ``x``, ``text`` at its top, right of the line (``dy`` moves it down) [px]; ``dash`` as
    for :func:`rule_y`."""
    out: list[Spec] = [{"data": _one(), "mark": _rule(color, dash, width), "encoding": {"x": {"datum": clean(x)}}}]
    if text:
        out.append(
            {
                "data": _one(),
                "mark": {"type": "text", "align": "left", "baseline": "top", "dx": 3, "dy": dy, "color": color},
                "encoding": {"x": {"datum": clean(x)}, "y": {"value": 0}, "text": {"value": text}},
            }
        )
    return out


def band_x(x0: float, x1: float, *, color: str, opacity: float, text: str | None = None) -> list[Spec]:
    """A shaded band from ``x0`` to ``x1`` over the plot's height, ``text`` in its top right corner."""
    out: list[Spec] = [
        {
            "data": _one(),
            "mark": {"type": "rect", "color": color, "opacity": opacity},
            "encoding": {"x": {"datum": clean(x0)}, "x2": {"datum": clean(x1)}},
        }
    ]
    if text:
        out.append(
            {
                "data": _one(),
                "mark": {"type": "text", "align": "right", "baseline": "top", "dx": -3, "dy": 3, "color": "#555"},
                "encoding": {"x": {"datum": clean(x1)}, "y": {"value": 0}, "text": {"value": text}},
            }
        )
    return out

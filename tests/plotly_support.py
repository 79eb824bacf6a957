"""Checks every chart test shares: a figure is valid plotly in the house style, its hover text is the app's, and
what an AppTest run drew."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from neoplan.charts import base

HYPHEN_MINUS = re.compile(r"(?<![\w.])-(?=[\d$])")
"""A hyphen-minus as a number's sign (``-3.4 %``, ``-$5 M``): the app writes a minus sign (U+2212)."""


def as_json(figure: go.Figure) -> dict[str, Any]:
    """The figure as the browser gets it (plotly's JSON, parsed: numpy arrays as lists, nan as null)."""
    return dict(json.loads(pio.to_json(figure, validate=False, pretty=False)))


def _lists(value: Any) -> Any:
    """``value`` with every numpy array, tuple and base64 typed array (plotly's ``{"bdata", "dtype"}``) as a list,
    nan kept."""
    if isinstance(value, dict) and "bdata" in value and "dtype" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        return _lists(array.reshape([int(n) for n in str(shape).split(",")]) if shape else array)
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return [_lists(v) for v in value.tolist()]
    if isinstance(value, list | tuple):
        return [_lists(v) for v in value]
    return value


def traces(figure: go.Figure) -> list[dict[str, Any]]:
    """The figure's traces as plain data (``to_dict``: every attribute set, arrays as lists, nan as nan), for
    comparing what is drawn with the model."""
    return list(_lists(figure.to_dict()["data"]))


def traces_by_name(figure: go.Figure) -> dict[str, dict[str, Any]]:
    """:func:`traces` by trace name."""
    return {t["name"]: t for t in traces(figure) if "name" in t}


def hover_texts(figure: go.Figure) -> list[str]:
    """Every hover text of the figure (the strings its traces carry in ``customdata``; a Sankey's on its nodes and
    links)."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    for trace in traces(figure):
        for part in (trace, trace.get("node", {}), trace.get("link", {})):
            walk(part.get("customdata", []))
    return out


def _hover_ok(trace: dict[str, Any]) -> bool:
    """A trace shows its own hover text (:data:`neoplan.charts.base.HOVER` or a template over ``customdata``) or
    none at all."""
    if trace.get("hoverinfo") in ("skip", "none"):
        return True
    if trace["type"] == "sankey":
        return all("%{customdata}" in trace[part]["hovertemplate"] for part in ("node", "link"))
    return "%{customdata" in trace.get("hovertemplate", "") and "<extra></extra>" in trace["hovertemplate"]


def assert_house_figure(figure: Any, name: str = "") -> None:
    """``figure`` is a plotly Figure in the house style: valid as a whole (plotly re-validates it and changes
    nothing), strict JSON once plotly has written nan as null, titled, in the house template, every trace with a
    hover of its own text (or none), no hyphen-minus as a sign in any hover text, and every cartesian axis that
    shows ticks titled (its unit)."""
    assert isinstance(figure, go.Figure), f"{name}: not a plotly Figure"
    spec = as_json(figure)
    assert as_json(go.Figure(figure.to_dict())) == spec, name  # plotly validates it as a whole and changes nothing
    json.dumps(spec, allow_nan=False)
    layout = spec["layout"]
    assert layout["template"]["layout"]["plot_bgcolor"] == "white", f"{name}: not in {base.TEMPLATE}"
    assert layout["title"]["text"], f"{name}: untitled"
    assert spec["data"] or layout.get("annotations"), f"{name}: nothing drawn and no note saying why"
    for trace in spec["data"]:
        assert _hover_ok(trace), f"{name}: trace {trace.get('name')!r} hovers plotly's own text"
    signs = [t for t in hover_texts(figure) if HYPHEN_MINUS.search(t)]
    assert not signs, f"{name}: hyphen-minus as a sign in {signs[:3]}"
    for trace in spec["data"]:
        if trace["type"] in ("treemap", "sankey") or trace.get("hoverinfo") == "skip":
            continue
        for letter in ("x", "y"):
            axis = layout.get(f"{letter}axis{trace.get(f'{letter}axis', letter)[1:]}", {})
            categorical = all(isinstance(v, str) for v in trace.get(letter) or [0])  # labels name themselves
            if axis.get("visible", True) and axis.get("showticklabels", True) and not categorical:
                assert axis.get("title", {}).get("text"), f"{name}: {letter} axis of {trace.get('name')!r} untitled"


def drawn_figures(at: Any) -> list[dict[str, Any]]:
    """The plotly figures an AppTest run drew (as JSON)."""
    return [json.loads(e.proto.spec) for e in at.get("plotly_chart")]


def drawn_titles(at: Any) -> list[str]:
    """The titles of the figures an AppTest run drew."""
    return [f["layout"]["title"]["text"] for f in drawn_figures(at)]


def drawn_configs(at: Any) -> list[dict[str, Any]]:
    """The plotly ``config`` of each chart an AppTest run drew."""
    return [json.loads(e.proto.config) for e in at.get("plotly_chart")]


def drawn_charts(at: Any) -> int:
    """How many charts an AppTest run drew."""
    return len(at.get("plotly_chart"))

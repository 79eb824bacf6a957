"""Widgets bound to Scenario fields: label, help, range and choices come from the pydantic Field."""

from __future__ import annotations

import typing
from typing import Any

import streamlit as st
from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from neoplan.export import slug
from neoplan.scenario import Scenario

from .state import WIDGET_PREFIX, field_errors, get_scenario, update_field


def field_info(path: str) -> tuple[FieldInfo, Any]:
    """(FieldInfo, annotation) of a dotted Scenario field path such as ``fabric.frontend.port_gbps``."""
    model: type[BaseModel] = Scenario
    info: FieldInfo | None = None
    for part in path.split("."):
        info = model.model_fields[part]
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            model = ann
    assert info is not None
    return info, info.annotation


def current_value(path: str) -> Any:
    """Value of a dotted field path in the current scenario."""
    value: Any = get_scenario()
    for part in path.split("."):
        value = getattr(value, part)
    return value


def _bounds(info: FieldInfo) -> tuple[float | None, float | None]:
    lo = hi = None
    for meta in info.metadata:
        if isinstance(meta, Ge | Gt):
            lo = meta.ge if isinstance(meta, Ge) else meta.gt
        if isinstance(meta, Le | Lt):
            hi = meta.le if isinstance(meta, Le) else meta.lt
    return lo, hi


def _fmt(bound: float | None) -> str:
    return "any" if bound is None else f"{bound:,g}"


def _on_change(path: str) -> None:
    update_field(path, st.session_state[WIDGET_PREFIX + path])


def field_input(
    path: str,
    label: str,
    *,
    step: float | None = None,
    fmt: str | None = None,
    options_labels: dict[Any, str] | None = None,
    options: list[Any] | None = None,
    container: Any = None,
) -> Any:
    """Draw the widget for ``path`` and an ``st.error`` under it if the last edit was rejected.

    Literal fields (or ``options``) get a selectbox, bools a toggle, numbers a number input.
    """
    where = container or st
    info, ann = field_info(path)
    key = WIDGET_PREFIX + path
    value = current_value(path)
    kwargs: dict[str, Any] = {"key": key, "help": info.description, "on_change": _on_change, "args": (path,)}
    # Always show the scenario's value: a key shared by widgets on two pages must not carry stale state,
    # and a rejected edit springs back to the last good value (its error is shown under the widget).
    st.session_state[key] = value
    if options is not None or typing.get_origin(ann) is typing.Literal:
        options = options if options is not None else list(typing.get_args(ann))
        labels = options_labels or {}
        where.selectbox(label, options, format_func=lambda o: labels.get(o, str(o)), **kwargs)
    elif ann is bool:
        where.toggle(label, **kwargs)
    elif ann in (int, float):
        lo, hi = _bounds(info)
        if lo is not None or hi is not None:
            kwargs["help"] = f"{info.description} Allowed: {_fmt(lo)} to {_fmt(hi)}."
        if ann is int:
            where.number_input(label, step=int(step or 1), **kwargs)
        else:
            where.number_input(label, step=float(step or 0.1), format=fmt or "%.2f", **kwargs)
    else:
        where.text_input(label, **kwargs)
    error = field_errors().get(path)
    if error:
        where.error(error)
    return current_value(path)


def scenario_downloads(scenario: Scenario, key: str, columns: Any) -> None:
    """YAML and JSON download buttons of ``scenario``, one in each of two ``columns``, keyed ``<key>.yaml|json``."""
    stem = slug(scenario.name)
    files = (("YAML", scenario.to_yaml(), "application/x-yaml"), ("JSON", scenario.to_json(), "application/json"))
    for col, (kind, text, mime) in zip(columns, files, strict=False):
        col.download_button(f"⬇ {kind}", text, file_name=f"{stem}.{kind.lower()}", mime=mime,
                            key=f"{key}.{kind.lower()}", on_click="ignore", help=f"The scenario as {kind}.")


Card = tuple[str, str, str]
"""A metric card: (label, formatted value, help text)."""


def compact_metrics(key: str, font_rem: float) -> None:
    """Smaller metric values inside the container keyed ``key``, so long values fit more cards to a row."""
    st.html(f"<style>.st-key-{key} [data-testid='stMetricValue'] {{ font-size: {font_rem}rem; }}</style>")


def metric_cards(key: str, rows: list[list[Card]], *, font_rem: float, widths: list[float] | None = None) -> None:
    """Bordered metric cards, one row of columns per entry of ``rows``, in a container keyed ``key``."""
    compact_metrics(key, font_rem)
    with st.container(key=key):
        for row in rows:
            for col, (label, value, help_text) in zip(st.columns(widths or len(row)), row, strict=True):
                col.metric(label, value, help=help_text, border=True)

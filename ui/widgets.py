"""Widgets bound to Scenario fields: label, help, range and choices come from the pydantic Field."""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

import streamlit as st
from annotated_types import Ge, Gt, Le, Lt
from plotly.graph_objects import Figure
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from neoplan.export import slug
from neoplan.scenario import Scenario

from .format import plain
from .state import WIDGET_PREFIX, field_errors, get_scenario, update_field

KEPT = "ui.kept"
"""Session-state dict holding the last value of every widget made persistent by :func:`keep`."""


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


def is_fraction(info: FieldInfo, annotation: Any = None) -> bool:
    """Whether a numeric field holds a fraction (marked ``json_schema_extra={"unit": "fraction"}`` in the scenario):
    shown and typed as a percentage, kept as a fraction in the model."""
    extra = info.json_schema_extra
    numeric = (annotation if annotation is not None else info.annotation) in (float, float | None)
    return numeric and isinstance(extra, dict) and extra.get("unit") == "fraction"


def _bounds(info: FieldInfo) -> tuple[float | None, float | None]:
    lo: float | None = None
    hi: float | None = None
    for meta in info.metadata:
        if isinstance(meta, Ge | Gt):
            lo = _number(meta.ge if isinstance(meta, Ge) else meta.gt)
        if isinstance(meta, Le | Lt):
            hi = _number(meta.le if isinstance(meta, Le) else meta.lt)
    return lo, hi


def _number(bound: object) -> float:
    """A field bound as a number (annotated-types allows any comparable; the scenario's bounds are numbers)."""
    if not isinstance(bound, int | float):
        raise TypeError(f"a numeric field's bound must be a number, got {bound!r}")
    return bound


def _fmt(bound: float | None, scale: float = 1.0) -> str:
    return "any" if bound is None else f"{bound * scale:,g}"


def percent(fraction: float | None) -> float | None:
    """A fraction as the percentage a widget shows: 0.11 → 11.0 (rounded off float noise such as 11.000000000000002)."""
    return None if fraction is None else round(fraction * 100, 10)


def _percent_text(value: float) -> str:
    return f"{value:,.10g} %"


def _on_change(path: str) -> None:
    value = st.session_state[WIDGET_PREFIX + path]
    info, ann = field_info(path)
    if value is None or not is_fraction(info, ann):
        update_field(path, value)
        return
    lo, hi = _bounds(info)
    if (lo is not None and value / 100 < lo) or (hi is not None and value / 100 > hi):
        field_errors()[path] = (
            f"{path} must be between {_fmt(lo, 100)} and {_fmt(hi, 100)} %, got {_percent_text(value)}"
        )
        return
    update_field(path, value / 100)


def field_input(
    path: str,
    label: str,
    *,
    step: float | None = None,
    fmt: str | None = None,
    options_labels: dict[Any, str] | None = None,
    options: list[Any] | None = None,
    container: Any = None,
    placeholder: str | None = None,
) -> Any:
    """Draw the widget for ``path`` and an ``st.error`` under it if the last edit was rejected.

    Literal fields (or ``options``) get a selectbox, bools a toggle, numbers a number input. A fraction field
    (``unit: fraction`` in the scenario) is shown and typed in percent: the widget shows 11.0 for 0.11, typing 9
    stores 0.09; its ``step`` and ``fmt`` are in percent too (defaults 1 and ``%.1f``). An optional number
    (``float | None``) may be left empty, ``placeholder`` saying what empty means. Returns the model value.
    """
    where = container or st
    info, ann = field_info(path)
    key = WIDGET_PREFIX + path
    value = current_value(path)
    fraction = is_fraction(info, ann)
    description = info.description or ""
    if fraction:  # the model's "[fraction of capex]" reads "[% of capex]" next to a widget in percent
        description = description.replace("[fraction", "[%")
    kwargs: dict[str, Any] = {"key": key, "help": description or None, "on_change": _on_change, "args": (path,)}
    # Always show the scenario's value: a key shared by widgets on two pages must not carry stale state,
    # and a rejected edit springs back to the last good value (its error is shown under the widget).
    st.session_state[key] = percent(value) if fraction else value
    if options is not None or typing.get_origin(ann) is typing.Literal:
        options = options if options is not None else list(typing.get_args(ann))
        labels = options_labels or {}
        where.selectbox(label, options, format_func=lambda o: labels.get(o, str(o)), **kwargs)
    elif ann is bool:
        where.toggle(label, **kwargs)
    elif ann in (int, float, int | None, float | None) or fraction:
        lo, hi = _bounds(info)
        if ann in (int | None, float | None):  # may be cleared: empty means the field's default from data
            kwargs["placeholder"] = placeholder
            kwargs["value"] = None
        unit = " %" if fraction else ""
        if lo is not None or hi is not None:
            scale = 100.0 if fraction else 1.0
            kwargs["help"] = f"{description} Allowed: {_fmt(lo, scale)} to {_fmt(hi, scale)}{unit}."
        if ann in (int, int | None):
            where.number_input(label, step=int(step or 1), **kwargs)
        else:
            default_step, default_fmt = (1.0, "%.1f") if fraction else (0.1, "%.2f")
            where.number_input(label, step=float(step or default_step), format=fmt or default_fmt, **kwargs)
    else:
        where.text_input(label, **kwargs)
    error = field_errors().get(path)
    if error:
        where.error(plain(error))
    return current_value(path)


def scenario_downloads(scenario: Scenario, key: str, columns: Any) -> None:
    """YAML and JSON download buttons of ``scenario``, one in each of two ``columns``, keyed ``<key>.yaml|json``."""
    stem = slug(scenario.name)
    files = (("YAML", scenario.to_yaml(), "application/x-yaml"), ("JSON", scenario.to_json(), "application/json"))
    for col, (kind, text, mime) in zip(columns, files, strict=False):
        col.download_button(
            f"⬇ {kind}",
            text,
            file_name=f"{stem}.{kind.lower()}",
            mime=mime,
            key=f"{key}.{kind.lower()}",
            on_click="ignore",
            help=f"The scenario as {kind}.",
        )


Card = tuple[str, str, str]
"""A metric card: (label, formatted value, help text)."""


def compact_metrics(key: str, font_rem: float) -> None:
    """Smaller metric values inside the container keyed ``key``, so long values fit more cards to a row."""
    st.html(f"<style>.st-key-{key} [data-testid='stMetricValue'] {{ font-size: {font_rem}rem; }}</style>")


def metric_cards(
    key: str, rows: list[list[Card]], *, font_rem: float, widths: list[float] | None = None, per_row: int | None = None
) -> None:
    """Bordered metric cards in a container keyed ``key``: one row of columns per entry of ``rows``, or, with
    ``per_row``, every card in rows of that many equal columns (a short last row keeps the same widths)."""
    compact_metrics(key, font_rem)
    if per_row:
        cards = [card for row in rows for card in row]
        rows = [cards[i : i + per_row] for i in range(0, len(cards), per_row)]
    with st.container(key=key):
        for row in rows:
            columns = st.columns(per_row or widths or len(row))
            for col, (label, value, help_text) in zip(columns, row, strict=False):
                col.metric(label, value, help=help_text, border=True)


def keep(key: str, default: Any) -> None:
    """Make the page widget keyed ``key`` keep its value when the user leaves its page and comes back.

    Streamlit drops a widget's state at the end of any run that does not draw it (another page was shown); its
    next run would then re-create it empty. Call this just before drawing the widget (which must then take no
    ``value``/``index`` of its own): it records the widget's value, and puts the recorded one (or ``default``)
    back when Streamlit has dropped it.
    """
    store: dict[str, Any] = st.session_state.setdefault(KEPT, {})
    if key in st.session_state:
        store[key] = st.session_state[key]
    else:
        st.session_state[key] = store[key] = store.get(key, default)


def put(key: str, value: Any) -> None:
    """Set the value of a widget made persistent by :func:`keep` (from a callback or before it is drawn)."""
    st.session_state[key] = value
    st.session_state.setdefault(KEPT, {})[key] = value


@st.cache_resource(max_entries=256, show_spinner=False)
def _figure(name: str, inputs: str, _build: Callable[..., Figure], _args: tuple[Any, ...]) -> Figure:
    return _build(*_args)


def chart(build: Callable[..., Figure], *args: Any, inputs: str, key: str, where: Any = None) -> None:
    """``st.plotly_chart`` of ``build(*args)``, the figure cached on ``inputs``: a text that fixes every input the
    figure depends on (usually the scenario's JSON and the options chosen). Building a plotly figure takes tens of
    milliseconds; a rerun that changes none of its inputs (another widget, a page revisited) reuses it."""
    name = f"{build.__module__}.{build.__qualname__}"
    (where or st).plotly_chart(_figure(name, inputs, build, args), key=key)

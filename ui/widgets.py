"""Widgets bound to Scenario fields: label, help, range and choices come from the pydantic Field."""

from __future__ import annotations

import math
import re
import typing
from collections.abc import Callable
from typing import Any

import streamlit as st
from annotated_types import Ge, Gt, Le, Lt
from plotly.graph_objects import Figure
from pydantic.fields import FieldInfo

from neoplan.charts import mode_bar
from neoplan.export import slug
from neoplan.formats import parse_number
from neoplan.inputs.scenario import Scenario, field_of

from .format import plain
from .labels import humanize
from .state import WIDGET_PREFIX, field_errors, get_scenario, page_state, save_page_state, update_field

KEPT = "ui.kept"
"""Session-state dict holding the last value of every widget made persistent by :func:`keep`."""


def field_info(path: str) -> tuple[FieldInfo, Any]:
    """(FieldInfo, annotation) of a dotted Scenario field path such as ``fabric.frontend.port_gbps``."""
    info = field_of(path)
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
    """A bound for a message or a help text: ``1,000,000``, ``0.95``, ``any``."""
    if bound is None:
        return "any"
    value = round(bound * scale, 10)
    return f"{int(value):,}" if value.is_integer() else f"{value:,g}"


def percent(fraction: float | None) -> float | None:
    """A fraction as the percentage a widget shows: 0.11 → 11.0 (rounded off float noise such as 11.000000000000002)."""
    return None if fraction is None else round(fraction * 100, 10)


NONE_OPTION = "__none__"
"""What a select box holds for a field's ``None`` choice (a default such as "Default of the vendor class"): Streamlit
reads ``None`` as "nothing chosen" and shows its "Choose an option" placeholder instead of the default's name."""


def _on_change(path: str) -> None:
    value = st.session_state[WIDGET_PREFIX + path]
    update_field(path, None if value == NONE_OPTION else value)


def number_text(value: float | None, fmt: str | None = None, *, integer: bool = False) -> str:
    """A number as its text field shows it: ``1,024``; ``2.80`` (``fmt`` ``%.2f``); more digits when those would
    hide part of the value (``2.805``); empty for None."""
    if value is None:
        return ""
    if integer:
        return f"{int(value):,}"
    match = re.fullmatch(r"%\.(\d)f", fmt or "%.2f")
    text = f"{value:,.{int(match.group(1)) if match else 2}f}"
    if not math.isclose(float(text.replace(",", "")), value, rel_tol=1e-12, abs_tol=1e-12):
        text = f"{value:,.12g}"
    return text


def typed_number(text: str, *, integer: bool = False) -> float | int:
    """The number typed into a text field (:func:`neoplan.formats.parse_number`); ValueError with the reason."""
    value = parse_number(text)
    if integer:
        if not value.is_integer():
            raise ValueError("must be a whole number")
        return int(value)
    return value


def range_problem(value: float, lo: float | None, hi: float | None, scale: float = 1.0, unit: str = "") -> str | None:
    """``must be between 8 and 1,000,000`` when ``value`` (in the widget's unit) is outside [lo, hi] × ``scale``."""
    if (lo is not None and value < lo * scale - 1e-9) or (hi is not None and value > hi * scale + 1e-9):
        return f"must be between {_fmt(lo, scale)} and {_fmt(hi, scale)}{unit}"
    return None


def _typed_or_refusal(
    text: str, name: str, kept: str, *, integer: bool, lo: float | None, hi: float | None, unit: str = ""
) -> tuple[float | None, str | None]:
    """(the number typed in ``text``, None) if it parses and lies in [``lo``, ``hi``] (× 100 when ``unit`` is
    " %"), else (None, why, for the field's error: ``<name>: enter a number, got “abc”; kept 2.80``)."""
    echo = text.strip() if len(text.strip()) <= 40 else text.strip()[:39] + "…"  # what was typed, in the message
    try:
        typed = typed_number(text, integer=integer)
    except ValueError as exc:
        return None, f"{name}: {exc}, got “{echo}”; kept {kept}{unit}"
    problem = range_problem(typed, lo, hi, 100.0 if unit == " %" else 1.0, unit)
    if problem:
        got = f"{echo.removesuffix('%').strip()} %" if unit == " %" else echo
        return None, f"{name} {problem}, got {got}; kept {kept}{unit}"
    return typed, None


def _on_number(path: str, fmt: str | None) -> None:
    """A number typed into the text field of ``path``: parsed, checked against the field's range (in percent for a
    fraction) and stored; otherwise the scenario keeps its value and the field's error says why."""
    text = str(st.session_state[WIDGET_PREFIX + path])
    info, ann = field_info(path)
    fraction, integer = is_fraction(info, ann), ann in (int, int | None)
    unit = " %" if fraction else ""
    current = current_value(path)
    kept = number_text(percent(current) if fraction else current, fmt, integer=integer) or "empty"
    if not text.strip() and ann in (int | None, float | None):
        update_field(path, None)  # an optional number: empty means "derived" (see the field's help)
        return
    lo, hi = _bounds(info)
    typed, refusal = _typed_or_refusal(text, path, kept, integer=integer, lo=lo, hi=hi, unit=unit)
    if typed is None:
        field_errors()[path] = str(refusal)
        return
    update_field(path, typed / 100 if fraction else typed)


def field_input(
    path: str,
    label: str,
    *,
    fmt: str | None = None,
    options_labels: dict[Any, str] | None = None,
    options: list[Any] | None = None,
    container: Any = None,
    disabled: bool = False,
    placeholder: str | None = None,
) -> Any:
    """Draw the widget for ``path`` and an ``st.error`` under it if the last edit was rejected.

    Literal fields (or ``options``) get a selectbox, bools a toggle, numbers a text field that parses what is typed
    (``1,024``, ``1e6``, ``$2.80``; :func:`neoplan.formats.parse_number`): an empty, unparsable or out-of-range
    entry is refused with the reason and the range, and the scenario keeps its last valid value (no silent zero).
    A fraction field (``unit: fraction`` in the scenario) is shown and typed in percent: 11.0 for 0.11, typing 9
    stores 0.09. ``fmt`` (``%.1f``) sets the decimals shown (defaults: 1 for percent, 2 otherwise). An optional
    number (``float | None``) may be left empty, ``placeholder`` saying what empty means. Returns the model value.
    """
    where = container or st
    info, ann = field_info(path)
    key = WIDGET_PREFIX + path
    value = current_value(path)
    fraction = is_fraction(info, ann)
    description = info.description or ""
    if fraction:  # the model's "[fraction of capex]" reads "[% of capex]" next to a widget in percent
        description = description.replace("[fraction", "[%")
    description = f"{description} In a scenario file: `{path}`.".strip()  # messages name the field by its label
    kwargs: dict[str, Any] = {"key": key, "help": description, "on_change": _on_change, "args": (path,)}
    numeric = ann in (int, float, int | None, float | None) and options is None
    if numeric:
        fmt = fmt or ("%.1f" if fraction else None)
        shown = number_text(percent(value) if fraction else value, fmt, integer=ann in (int, int | None))
        # Always show the scenario's value: a key shared by widgets on two pages must not carry stale state,
        # and a rejected entry springs back to the last good value (its error is shown under the widget).
        st.session_state[key] = shown
        lo, hi = _bounds(info)
        unit = " %" if fraction else ""
        scale = 100.0 if fraction else 1.0
        kwargs.update(on_change=_on_number, args=(path, fmt))
        if lo is not None or hi is not None:
            kwargs["help"] = f"{description} Allowed: {_fmt(lo, scale)} to {_fmt(hi, scale)}{unit}."
        where.text_input(label, disabled=disabled, placeholder=placeholder, **kwargs)
    else:
        st.session_state[key] = value
        if options is not None or typing.get_origin(ann) is typing.Literal:
            options = options if options is not None else list(typing.get_args(ann))
            labels = {NONE_OPTION if k is None else k: v for k, v in (options_labels or {}).items()}
            options = [NONE_OPTION if o is None else o for o in options]
            st.session_state[key] = NONE_OPTION if value is None else value
            where.selectbox(label, options, format_func=lambda o: labels.get(o, str(o)), disabled=disabled, **kwargs)
        elif ann is bool:
            where.toggle(label, disabled=disabled, **kwargs)
        else:
            where.text_input(label, disabled=disabled, **kwargs)
    error = field_errors().get(path)
    if error:
        where.error(plain(humanize(error, {path: label})))
    return current_value(path)


NUMBER_ERRORS = "ui.number_errors"
"""Session key: the error of each :func:`number_field` whose last entry was refused, by field key."""


def number_field(
    label: str,
    key: str,
    *,
    default: float | None = None,
    lo: float | None = None,
    hi: float | None = None,
    integer: bool = False,
    optional: bool = False,
    fmt: str | None = None,
    kept: bool = True,
    where: Any = None,
    help: str | None = None,
    placeholder: str | None = None,
) -> Any:
    """A text field for a number that is no scenario input (a search constraint, a quote's server count or
    exchange rate), by :func:`field_input`'s rules: what is typed is parsed (``1,024``, ``1e6``, ``$2.80``); an
    empty (unless ``optional``: then None), unparsable or out-of-range entry ([``lo``, ``hi``]) is refused with
    the reason and the range in an ``st.error`` under it, and the field springs back to its last valid value.

    Returns that value, which lives in ``st.session_state[key]`` (the text field is ``key + ".text"``): kept across
    pages, and across a refresh too when ``kept`` (:func:`keep`)."""
    where = where or st
    if kept:
        keep(key, default)
    else:
        st.session_state.setdefault(key, default)
    value = st.session_state[key]
    st.session_state[key + ".text"] = number_text(value, fmt, integer=integer)
    if lo is not None or hi is not None:
        help = f"{help or ''} Allowed: {_fmt(lo)} to {_fmt(hi)}{', or empty' if optional else ''}.".strip()
    where.text_input(
        label,
        key=key + ".text",
        on_change=_on_number_field,
        args=(key, label, lo, hi, integer, optional, fmt, kept, placeholder),
        help=help,
        placeholder=placeholder,
    )
    error = st.session_state.get(NUMBER_ERRORS, {}).get(key)
    if error:
        where.error(plain(error))
    return value


def _on_number_field(
    key: str,
    label: str,
    lo: float | None,
    hi: float | None,
    integer: bool,
    optional: bool,
    fmt: str | None,
    kept: bool,
    placeholder: str | None,
) -> None:
    """What was typed into :func:`number_field` ``key``: stored if valid, else the field's error says why (what
    was kept: the value, or what empty means, ``placeholder``)."""
    text = str(st.session_state[key + ".text"]).strip()
    errors = st.session_state.setdefault(NUMBER_ERRORS, {})
    errors.pop(key, None)
    last = number_text(st.session_state.get(key), fmt, integer=integer) or placeholder or "empty"
    typed: float | None = None
    if text or not optional:
        typed, refusal = _typed_or_refusal(text, label.split(" [")[0], last, integer=integer, lo=lo, hi=hi)
        if refusal is not None:
            errors[key] = refusal
            return
    if kept:
        put(key, typed)
    else:
        st.session_state[key] = typed


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


def _kept() -> dict[str, Any]:
    """The recorded values of the widgets made persistent by :func:`keep` (in the draft's page state)."""
    return page_state().setdefault(KEPT, {})


def keep(key: str, default: Any) -> None:
    """Make the page widget keyed ``key`` keep its value when the user leaves its page and comes back, and across
    a browser refresh.

    Streamlit drops a widget's state at the end of any run that does not draw it (another page was shown); its
    next run would then re-create it empty. Call this just before drawing the widget (which must then take no
    ``value``/``index`` of its own): it records the widget's value in the draft's page state (so a refresh brings
    it back too), and puts the recorded one (or ``default``) back when Streamlit has dropped it. Values must be
    JSON (numbers, text, lists of them).
    """
    store = _kept()
    if key in st.session_state:
        value = st.session_state[key]
        if store.get(key, _MISSING) != value:
            store[key] = value
            save_page_state()
    else:
        st.session_state[key] = store[key] = store.get(key, default)


_MISSING = object()


def lazy_tabs(key: str, labels: list[str]) -> list[Any]:
    """Tabs whose content runs only while open (``st.tabs`` with ``on_change="rerun"``): a page draws the open tab's
    charts, not every tab's (each costs the browser tens to hundreds of milliseconds). Draw a tab's content under
    ``if tab.open is not False:`` (``None`` where Streamlit tracks no tab state: then every tab runs). The open tab
    is kept across pages and refreshes (:func:`keep`)."""
    keep(key, labels[0])
    if st.session_state[key] not in labels:
        put(key, labels[0])
    return list(st.tabs(labels, key=key, on_change="rerun"))


def lazy_expander(label: str, key: str) -> Any:
    """A collapsed expander whose content runs only while it is open (``st.expander`` with ``on_change="rerun"``):
    a page does not send, and the browser does not draw, a table or a form nobody has opened. Draw its content
    under ``if box.open:``. Whether it is open is kept across pages and refreshes (:func:`keep`)."""
    keep(key, False)
    return st.expander(label, key=key, on_change="rerun")


def figure_tabs(
    key: str, figures: list[tuple[str, Callable[..., Figure], str]], *args: Any, inputs: str
) -> dict[str, Any]:
    """:func:`lazy_tabs` of one figure each, ``(tab label, build, chart key)``: the open tab's figure is
    ``build(*args)`` (cached on ``inputs``, see :func:`chart`). Returns the tabs by label, for a caption under one."""
    tabs = lazy_tabs(key, [label for label, _, _ in figures])
    for tab, (_, build, chart_key) in zip(tabs, figures, strict=True):
        if tab.open is not False:
            chart(build, *args, inputs=inputs, key=chart_key, where=tab)
    return {label: tab for (label, _, _), tab in zip(figures, tabs, strict=True)}


def put(key: str, value: Any) -> None:
    """Set the value of a widget made persistent by :func:`keep` (from a callback or before it is drawn)."""
    st.session_state[key] = value
    _kept()[key] = value
    save_page_state()


@st.cache_resource(max_entries=256, show_spinner=False)
def _figure(name: str, inputs: str, _build: Callable[..., Figure], _args: tuple[Any, ...]) -> Figure:
    return _build(*_args)


def chart_config(key: str) -> dict[str, Any]:
    """The plotly ``config`` of the chart keyed ``key``: the house mode bar (zoom, pan, reset, download as PNG), the
    picture named after the open scenario and the chart (``optimized_article_s_bom-node_bom_chart.png``)."""
    return mode_bar(f"{slug(get_scenario().name)}-{slug(key)}")


def draw(figure: Figure, *, key: str, where: Any = None) -> None:
    """``st.plotly_chart`` of ``figure`` in the house settings: as wide as its container, its own template drawn
    (``theme=None``, as in the report and the PNG) and the mode bar of :func:`chart_config`."""
    (where or st).plotly_chart(figure, width="stretch", theme=None, key=key, config=chart_config(key))


def chart(build: Callable[..., Figure], *args: Any, inputs: str, key: str, where: Any = None) -> None:
    """:func:`draw` of ``build(*args)`` (a plotly figure from :mod:`neoplan.charts`), the figure cached on ``inputs``:
    a text that fixes every input the figure depends on (usually the scenario's JSON and the options chosen).
    Building a figure takes tens of milliseconds; a rerun that changes none of its inputs (another widget, a page
    revisited) reuses it."""
    name = f"{build.__module__}.{build.__qualname__}"
    draw(_figure(name, inputs, build, args), key=key, where=where)


def _plain_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table rows as the scenario takes them: blank cells (None, NaN) left out, numpy scalars as Python values."""
    out = []
    for row in rows:
        clean = {}
        for k, v in row.items():
            value = v.item() if hasattr(v, "item") else v
            if value is None or (isinstance(value, float) and math.isnan(value)) or value == "":
                continue
            clean[k] = value
        if clean:
            out.append(clean)
    return out


def table_field(path: str, label: str, columns: dict[str, Any], *, help_text: str = "") -> None:
    """A list field of the scenario (``financing.tranches``, ``timeline.phases``) as an editable table: one row per
    item, ``columns`` (name → ``st.column_config``) in order; rows can be added and deleted. An edit is validated as
    a whole; a refused one keeps the scenario's list and shows why under the table (as :func:`field_input`)."""
    import pandas as pd

    key = WIDGET_PREFIX + path
    rows = [item.model_dump(mode="json") for item in current_value(path)]
    frame = pd.DataFrame([{c: r.get(c) for c in columns} for r in rows], columns=list(columns))
    st.markdown(f"**{label}**", help=help_text or None)
    edited = st.data_editor(frame, key=key, num_rows="dynamic", column_config=columns, hide_index=True)
    wanted = _plain_rows(edited.to_dict("records"))
    if wanted != _plain_rows(frame.to_dict("records")) and update_field(path, wanted):
        del st.session_state[key]  # the table redraws from the scenario, defaults filled in
        st.rerun()
    error = field_errors().get(path)
    if error:
        st.error(plain(humanize(error, {path: label})))

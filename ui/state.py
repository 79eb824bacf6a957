"""The current Scenario lives in ``st.session_state``; pages read and update it here.

Widgets are keyed ``w.<dotted field path>``. Replacing the whole scenario
(preset, upload) drops those keys so every widget re-reads the new values.
An edit that fails validation keeps the last good scenario and records the
message under the field's path, shown by the widget as ``st.error``.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

import neoplan
from neoplan.library import Library, default_path
from neoplan.scenario import Scenario, ScenarioError, scenario_from_dict, scenario_json

SCENARIO = "scenario"
ORIGIN = "scenario_origin"
ERRORS = "field_errors"
WIDGET_PREFIX = "w."
DEFAULT_PRESET = "optimized"


def get_scenario() -> Scenario:
    """The scenario being edited (the default preset on first visit)."""
    if SCENARIO not in st.session_state:
        st.session_state[SCENARIO] = neoplan.load_scenario(DEFAULT_PRESET)
        st.session_state[ORIGIN] = DEFAULT_PRESET
    return st.session_state[SCENARIO]


def get_origin() -> str | None:
    """Library entry (preset or saved name) the current scenario was opened from; None if uploaded or built."""
    get_scenario()
    return st.session_state.get(ORIGIN)


def set_scenario(scenario: Scenario, origin: str | None = None) -> None:
    """Replace the whole scenario and reset every widget to it; ``origin`` names its library entry, if any."""
    st.session_state[SCENARIO] = scenario
    st.session_state[ORIGIN] = origin
    st.session_state[ERRORS] = {}
    for key in [k for k in st.session_state if isinstance(k, str) and k.startswith(WIDGET_PREFIX)]:
        del st.session_state[key]


def field_errors() -> dict[str, str]:
    """Validation messages by field path from the last edits."""
    return st.session_state.setdefault(ERRORS, {})


def _set_path(data: dict[str, Any], path: str, value: Any) -> None:
    *parents, leaf = path.split(".")
    node = data
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value


def update_field(path: str, value: Any) -> bool:
    """Set one field (dotted path) of the scenario; on bad input keep the old one and record why."""
    data = get_scenario().model_dump(mode="json")
    if path == "node.preset":
        data["node"] = {"preset": value}
        for key in [k for k in st.session_state if isinstance(k, str) and k.startswith(WIDGET_PREFIX + "node.")]:
            if key != WIDGET_PREFIX + path:
                del st.session_state[key]
    else:
        _set_path(data, path, value)
    errors = field_errors()
    try:
        st.session_state[SCENARIO] = scenario_from_dict(data)
    except ScenarioError as exc:
        errors[path] = str(exc)
        return False
    errors.pop(path, None)
    return True


@st.cache_resource(max_entries=64, show_spinner=False)
def _evaluate_cached(key: str) -> neoplan.Result:
    return neoplan.evaluate(scenario_from_dict(json.loads(key)))


def evaluate_current() -> neoplan.Result | None:
    """Result of the current scenario (cached on its JSON); shows ``st.error`` and returns None on failure."""
    scenario = get_scenario()
    try:
        return _evaluate_cached(scenario_json(scenario))
    except (ScenarioError, ValueError) as exc:
        st.error(f"This scenario cannot be evaluated: {exc}")
        return None


@st.cache_resource(show_spinner=False)
def _library(path: str) -> Library:
    return Library(path)


def get_library() -> Library:
    """The scenario library (SQLite; location from $NEOPLAN_LIBRARY or the user data folder)."""
    return _library(str(default_path()))


def evaluate_scenario(scenario: Scenario) -> neoplan.Result:
    """Cached evaluation of any scenario (raises ScenarioError on failure)."""
    return _evaluate_cached(scenario_json(scenario))

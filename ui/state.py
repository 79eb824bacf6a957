"""The open scenario: one per browser session, in ``st.session_state``; pages read and update it here.

One source of truth. ``get_scenario()`` is what every page shows; ``update_field`` (one field) and
``set_scenario`` (the whole scenario: preset, saved, upload, quote) are the only ways to change it.

It survives page switches (session state), and a browser refresh: every change is written as a *draft*
to the scenario library (SQLite) under a random id that the URL carries (``?draft=…``); a new session
that arrives with that id picks up a copy of the draft (under a new id, so two tabs never write to one
draft). ``st.navigation`` drops query parameters on a page switch, so ``sync_url()`` (called by app.py on
every run) puts the id back.

Besides the scenario, the session knows what it was opened as (the *baseline*: a library entry, a file or a
quote) so the header can mark unsaved changes and revert them; replacing a scenario that had unsaved
changes keeps it one step back, so that can be undone.

Widgets are keyed ``w.<dotted field path>``. Replacing the whole scenario drops those keys so every widget
re-reads the new values, and bumps ``generation()`` (widgets whose choices depend on the scenario, such as
the sidebar picker, put it in their key so a stale browser-side value can never fire their callback).
An edit that fails validation keeps the last good scenario and records the message under the field's path.
"""

from __future__ import annotations

import json
import secrets
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

import streamlit as st

import neoplan
from neoplan.library import Draft, Library, LibraryError, default_path
from neoplan.scenario import Scenario, ScenarioError, scenario_from_dict, scenario_json
from ui.format import plain


def _leave_pages_folder_mode() -> None:
    """Make the very first run of a fresh server go through app.py.

    Until ``st.navigation`` has run once in the process, Streamlit 1.67 treats an app with a ``pages/`` folder
    as a v1 multipage app: a first visit to ``/network`` (a refresh after a restart, a bookmark) would run
    pages/network.py alone, without app.py's navigation, sidebar and header. Every page imports this module
    during that run, so switch the mode off here and rerun: the rerun starts at app.py.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:  # a later Streamlit without this internal: nothing to do
        return
    if getattr(PagesManager, "uses_pages_directory", None) is True and get_script_run_ctx() is not None:
        PagesManager.uses_pages_directory = False
        st.rerun()


_leave_pages_folder_mode()

SCENARIO = "scenario"
ORIGIN = "scenario_origin"
BASELINE = "scenario_baseline"
SOURCE = "scenario_source"
GENERATION = "scenario_generation"
DRAFT_ID = "scenario_draft_id"
PERSISTED = "scenario_persisted"
UNDO = "scenario_undo"
ERRORS = "field_errors"
WIDGET_PREFIX = "w."
DEFAULT_PRESET = "optimized"
URL_PARAM = "draft"


@dataclass(frozen=True)
class Status:
    """What the header and sidebar say about the open scenario."""

    name: str
    origin: str | None
    """Library entry it was opened from or last saved as (None: an upload, a quote, …)."""
    source: str
    """Where it came from, for people: "preset optimized", "saved “My plan”", "file plan.yaml"."""
    dirty: bool
    """It differs from what was opened or last saved."""
    origin_is_preset: bool


# -- the session -------------------------------------------------------------------------------------------


def _start() -> None:
    """First run of a browser session: pick up the URL's draft if there is one, else the default preset."""
    draft_id = st.query_params.get(URL_PARAM) or ""
    draft = None
    with suppress(LibraryError):  # the sidebar says what is wrong with the library; start from the default preset
        draft = get_library().load_draft(draft_id)
    scenario = None
    if draft is not None:
        try:
            scenario = scenario_from_dict(json.loads(draft.body))
            baseline = scenario_json(scenario_from_dict(json.loads(draft.baseline)))
        except (ScenarioError, json.JSONDecodeError):
            scenario = None  # a draft that no longer validates (older neoplan): start afresh
    # A new id even for a found draft: a duplicated tab or a shared link gets its own copy, never a draft that
    # another tab is still writing to.
    st.session_state[DRAFT_ID] = secrets.token_urlsafe(16)
    if scenario is not None and draft is not None:
        st.session_state[SCENARIO] = scenario
        st.session_state[ORIGIN] = draft.origin
        st.session_state[BASELINE] = baseline
        st.session_state[SOURCE] = draft.source
        st.session_state[GENERATION] = 0
        _persist()
    else:
        scenario = neoplan.load_scenario(DEFAULT_PRESET)
        st.session_state[SCENARIO] = scenario
        st.session_state[ORIGIN] = DEFAULT_PRESET
        st.session_state[BASELINE] = scenario_json(scenario)
        st.session_state[SOURCE] = f"preset {DEFAULT_PRESET}"
        st.session_state[GENERATION] = 0


def get_scenario() -> Scenario:
    """The scenario being edited (a refreshed page's draft, else the default preset, on first visit)."""
    if SCENARIO not in st.session_state:
        _start()
    return st.session_state[SCENARIO]


def get_origin() -> str | None:
    """Library entry (preset or saved name) the current scenario was opened from; None if uploaded or built."""
    get_scenario()
    return st.session_state.get(ORIGIN)


def generation() -> int:
    """How many times the whole scenario has been replaced in this session (for widget keys)."""
    get_scenario()
    return int(st.session_state.get(GENERATION, 0))


def draft_id() -> str:
    """The id under which this session's draft is kept (the URL's ``?draft=``)."""
    get_scenario()
    return str(st.session_state[DRAFT_ID])


def sync_url() -> None:
    """Put the draft id in the URL (a page switch drops it), so a refresh reopens this draft."""
    if st.query_params.get(URL_PARAM) != draft_id():
        st.query_params[URL_PARAM] = draft_id()


def status() -> Status:
    """Name, origin, source and whether there are unsaved changes."""
    scenario = get_scenario()
    origin = st.session_state.get(ORIGIN)
    return Status(
        name=scenario.name,
        origin=origin,
        source=str(st.session_state.get(SOURCE, "")),
        dirty=scenario_json(scenario) != st.session_state.get(BASELINE),
        origin_is_preset=origin is not None and get_library().is_preset(origin),
    )


def _snapshot() -> Draft:
    return Draft(
        body=scenario_json(get_scenario()),
        baseline=str(st.session_state[BASELINE]),
        origin=st.session_state.get(ORIGIN),
        source=str(st.session_state.get(SOURCE, "")),
    )


def _persist() -> None:
    """Write this session's draft to the library (skipped when unchanged; a broken library is reported elsewhere)."""
    draft = _snapshot()
    if st.session_state.get(PERSISTED) == draft:
        return
    try:
        get_library().save_draft(draft_id(), draft)
    except LibraryError:
        return
    st.session_state[PERSISTED] = draft


def _reset_widgets() -> None:
    st.session_state[ERRORS] = {}
    st.session_state[GENERATION] = int(st.session_state.get(GENERATION, 0)) + 1
    for key in [k for k in st.session_state if isinstance(k, str) and k.startswith(WIDGET_PREFIX)]:
        del st.session_state[key]


def _replace(scenario: Scenario, origin: str | None, baseline: str, source: str) -> None:
    """Make ``scenario`` the open one; a scenario with unsaved changes it replaces can be brought back."""
    if SCENARIO in st.session_state:
        before = _snapshot()
        if before.body != before.baseline:  # unsaved changes: keep them one step back (else keep the older ones)
            st.session_state[UNDO] = before
    st.session_state[SCENARIO] = scenario
    st.session_state[ORIGIN] = origin
    st.session_state[BASELINE] = baseline
    st.session_state[SOURCE] = source
    _reset_widgets()
    _persist()


def set_scenario(scenario: Scenario, origin: str | None = None, *, source: str | None = None) -> None:
    """Replace the whole scenario and reset every widget to it.

    ``origin`` names its library entry, if any; ``source`` says where it came from ("file plan.yaml").
    The replaced scenario, if it had unsaved changes, can be brought back with :func:`undo`.
    """
    get_scenario()
    if source is None:
        if origin is None:
            source = "built in the app"
        elif get_library().is_preset(origin):
            source = f"preset {origin}"
        else:
            source = f"saved “{origin}”"
    _replace(scenario, origin, scenario_json(scenario), source)


def save_as(name: str) -> Scenario:
    """Save the open scenario in the library as ``name`` (replacing a saved one); it becomes the baseline.

    Raises ScenarioError (LibraryError for a broken library) with a one-line reason.
    """
    saved = get_library().save(name, get_scenario())
    st.session_state[UNDO] = None
    st.session_state[SCENARIO] = saved
    st.session_state[ORIGIN] = saved.name
    st.session_state[BASELINE] = scenario_json(saved)
    st.session_state[SOURCE] = f"saved “{saved.name}”"
    _reset_widgets()
    _persist()
    return saved


def save_unless_replacing(name: str, replace: bool = False) -> tuple[Scenario | None, bool]:
    """Save the open scenario as ``name`` unless that would replace *another* saved scenario without ``replace``.

    Returns (saved scenario, whether it replaced one); (None, True) means: ask the user first. Raises ScenarioError
    (LibraryError for a broken library) with a one-line reason.
    """
    library = get_library()
    exists = library.exists(name) and not library.is_preset(name)
    if exists and name != get_origin() and not replace:
        return None, True
    return save_as(name), exists


def revert() -> None:
    """Back to the scenario as it was opened or last saved (the discarded edits can be brought back by undo)."""
    get_scenario()
    baseline = str(st.session_state[BASELINE])
    _replace(
        scenario_from_dict(json.loads(baseline)),
        st.session_state.get(ORIGIN),
        baseline,
        str(st.session_state.get(SOURCE, "")),
    )


def undo_available() -> Draft | None:
    """The scenario (with unsaved changes) that the last replacement discarded, if any."""
    get_scenario()
    return st.session_state.get(UNDO)


def undo() -> None:
    """Bring back the scenario that the last open/upload/revert replaced, edits included."""
    draft = undo_available()
    if draft is None:
        return
    st.session_state[UNDO] = None  # used up; the scenario it replaces is kept instead if it had unsaved changes
    _replace(scenario_from_dict(json.loads(draft.body)), draft.origin, draft.baseline, draft.source)


def forget_origin(name: str) -> None:
    """``name`` was deleted from the library: the open scenario, if it came from there, is no longer saved."""
    if get_origin() == name:
        st.session_state[ORIGIN] = None
        st.session_state[SOURCE] = f"deleted “{name}”"
        _persist()


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
    _persist()
    return True


@st.cache_resource(max_entries=64, show_spinner=False)
def _evaluate_cached(key: str) -> neoplan.Result:
    return neoplan.evaluate(scenario_from_dict(json.loads(key)))


def evaluate_current() -> neoplan.Result | None:
    """Result of the current scenario (cached on its JSON); shows ``st.error`` and returns None on failure."""
    scenario = get_scenario()
    try:
        return _evaluate_cached(scenario_json(scenario))
    except ScenarioError as exc:  # bad input: one line; anything else is a bug and shows as one
        st.error(f"This scenario cannot be evaluated: {plain(str(exc))}")
        return None


@st.cache_resource(show_spinner=False)
def _library(path: str) -> Library:
    return Library(path)


def get_library() -> Library:
    """The scenario library (SQLite; location from $NEOPLAN_LIBRARY or the user data folder).

    Never raises: a broken file shows up as ``get_library().error`` and in the errors of its methods.
    """
    return _library(str(default_path()))


def evaluate_scenario(scenario: Scenario) -> neoplan.Result:
    """Cached evaluation of any scenario (raises ScenarioError on failure)."""
    return _evaluate_cached(scenario_json(scenario))


@st.cache_resource(max_entries=16, show_spinner=False)
def _search_cached(key: str, objective: str, constraints: str) -> neoplan.SearchResult:
    return neoplan.search(scenario_from_dict(json.loads(key)), objective=objective, constraints=json.loads(constraints))


def search_current(objective: str, constraints: dict[str, float | None]) -> neoplan.SearchResult:
    """The design search around the current scenario (cached on it, the objective and the constraints); raises
    ScenarioError with a one-line reason for bad input."""
    return _search_cached(scenario_json(get_scenario()), objective, json.dumps(constraints, sort_keys=True))

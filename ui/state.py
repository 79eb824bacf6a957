"""The open scenario: one per browser session, in ``st.session_state``; pages read and update it here.

One source of truth. ``get_scenario()`` is what every page shows; ``update_field`` (one field) and
``set_scenario`` (the whole scenario: preset, saved, upload, quote) are the only ways to change it.

It survives page switches (session state), and a browser refresh: every change is written as a *draft*
to the scenario library under a random id that the URL carries (``?draft=…``), one row per session updated in
place. A new session that arrives with that id (a refresh, a reopened link) takes the draft over if it is the
signed-in user's own (someone else's opens nothing); the tab it was taken from, if still open, moves to a new id
on its next edit, so two tabs never write to one draft. A draft that cannot be written (the library is down)
is said in the header, and retried on the next edit. A draft that cannot be *read* when the tab opens (a refresh
while the library is down) keeps its id: the tab shows the default preset meanwhile, says so, and writes nothing
under that id, so a refresh once the library answers brings the draft back. ``st.navigation`` drops query
parameters on a page switch, so ``sync_url()`` (called by app.py on every run) puts the id back. ``?share=…`` opens
a copy of the version a share link names.

Besides the scenario, the session knows what it was opened as (the *baseline*: a library entry, a file or a
quote) so the header can mark unsaved changes and revert them; replacing a scenario that had unsaved
changes keeps it one step back, so that can be undone.

Widgets are keyed ``w.<dotted field path>``. Replacing the whole scenario drops those keys so every widget
re-reads the new values, and bumps ``generation()`` (widgets whose choices depend on the scenario, such as
the sidebar picker, put it in their key so a stale browser-side value can never fire their callback).
An edit that fails validation keeps the last good scenario and records the message under the field's path.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import secrets
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

import streamlit as st

import neoplan
from neoplan.analysis import stress
from neoplan.errors import ScenarioError
from neoplan.frozen import freeze
from neoplan.inputs.loading import scenario_from_dict, scenario_json
from neoplan.inputs.scenario import Scenario, describe
from neoplan.store import Draft, DraftTaken, Library, LibraryError, Saved, ShareError, Store, default_url, open_store
from neoplan.store.backend import APP_BUDGET_S
from neoplan.store.names import DRAFT_ID as DRAFT_ID_FORM
from neoplan.store.records import parse_stored
from neoplan.store.versions import input_changes
from ui import auth
from ui.format import plain
from ui.labels import humanize, label_of

_log = logging.getLogger("neoplan.app")


def _server_log() -> None:
    """neoplan's log lines (the library's location, retries, failures) to the server's stderr, beside Streamlit's."""
    logger = logging.getLogger("neoplan")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


_server_log()


def _leave_pages_folder_mode() -> None:
    """Make the very first run of a fresh server go through app.py (the one Streamlit internal neoplan touches).

    Until ``st.navigation`` has run once in the process, Streamlit 1.67 treats an app with a ``pages/`` folder
    as a v1 multipage app: a first visit to ``/network`` (a refresh after a restart, a bookmark) would run
    pages/network.py alone, without app.py's navigation, sidebar and header. Every page imports this module
    during that run, so switch the mode off here and rerun: the rerun starts at app.py. Streamlit 1.67 has no
    config option or public call that does this (checked: without it that first visit shows the page alone);
    tests/test_streamlit_internals.py fails if an upgrade renames or drops the internal, to re-check then.
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
SESSION = "scenario_session"
PERSISTED = "scenario_persisted"
PAGE_STATE = "page_state"
DRAFT_ERROR = "scenario_draft_error"
UNREAD = "scenario_draft_unread"
"""Why the URL's draft could not be read when the tab opened (None: it was, or there was none)."""
ORIGIN_VERSION = "scenario_origin_version"
UNDO = "scenario_undo"
ERRORS = "field_errors"
WIDGET_PREFIX = "w."
DEFAULT_PRESET = "optimized"
URL_PARAM = "draft"
SHARE_PARAM = "share"


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
    origin_version: int | None = None
    """The version of the origin that was opened or last saved (None: a preset, or not from the library)."""


# -- the session -------------------------------------------------------------------------------------------


def _from_draft(draft: Draft) -> tuple[Scenario, str] | None:
    """The draft's scenario and baseline; None if it no longer validates (made by an older neoplan). Text stored
    before names refused invisible characters comes back with them written visibly (``parse_stored``)."""
    try:
        return parse_stored(draft.body, "draft"), scenario_json(parse_stored(draft.baseline, "draft"))
    except (ScenarioError, json.JSONDecodeError):
        return None


def _open_shared(token: str) -> tuple[Scenario, str] | None:
    """The copy a share link opens, and where it came from; None (with a message) if the link is not valid."""
    try:
        scenario, label = get_library().open_shared(token, auth.share_secret())
    except ShareError as exc:
        _set_first_message(str(exc))
        return None
    except LibraryError:
        return None  # the sidebar says what is wrong with the library
    return scenario, f"shared link to {label}"


def _set_first_message(text: str) -> None:
    st.session_state["header.message"] = (text, False)


def _start_shared(token: str) -> bool:
    """Open a copy of what the share link ``token`` names, under a new draft id; whether it opened."""
    shared = _open_shared(token)
    if shared is None:
        return False
    st.session_state[DRAFT_ID] = secrets.token_urlsafe(16)
    _open(shared[0], None, scenario_json(shared[0]), shared[1], None)
    _persist()
    return True


def _start() -> None:
    """First run of a browser session: a share link's copy, else the URL's own draft, else a share link kept across
    the sign-in, else the default preset. A draft that cannot be read keeps its id (see the module docstring)."""
    st.session_state[SESSION] = secrets.token_urlsafe(12)
    token = st.query_params.get(SHARE_PARAM) or ""
    draft_id = st.query_params.get(URL_PARAM) or ""
    st.session_state[UNREAD] = None
    if token:
        del st.query_params[SHARE_PARAM]
        if _start_shared(token):
            return
    try:  # this session takes the draft over (one row per session); another user's draft id opens nothing
        draft = get_library().claim_draft(draft_id, st.session_state[SESSION])
    except LibraryError as exc:
        draft = None
        if DRAFT_ID_FORM.fullmatch(draft_id):  # keep the id: a refresh once the library answers brings it back
            st.session_state[UNREAD] = str(exc)
    opened = None if draft is None else _from_draft(draft)
    if draft is not None and opened is not None:
        st.session_state[DRAFT_ID] = draft_id
        _open(opened[0], draft.origin, opened[1], draft.source, draft.origin_version)
        st.session_state[PAGE_STATE] = _page_state_of(draft)
        st.session_state[PERSISTED] = draft
        return
    kept = auth.pending_share() if not draft_id else None
    if kept and _start_shared(kept):
        return
    st.session_state[DRAFT_ID] = draft_id if st.session_state[UNREAD] else secrets.token_urlsafe(16)
    scenario = neoplan.load_scenario(DEFAULT_PRESET)
    _open(scenario, DEFAULT_PRESET, scenario_json(scenario), f"preset {DEFAULT_PRESET}", None)


def _open(scenario: Scenario, origin: str | None, baseline: str, source: str, origin_version: int | None) -> None:
    st.session_state[SCENARIO] = scenario
    st.session_state[ORIGIN] = origin
    st.session_state[BASELINE] = baseline
    st.session_state[SOURCE] = source
    st.session_state[ORIGIN_VERSION] = origin_version
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
        origin_version=st.session_state.get(ORIGIN_VERSION),
    )


def _page_state_of(draft: Draft) -> dict[str, Any]:
    """A draft's page state (an empty one if it cannot be read: the pages start from their defaults)."""
    try:
        data = json.loads(draft.page_state)
    except (json.JSONDecodeError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


def page_state() -> dict[str, Any]:
    """The pages' own settings that a refresh keeps (JSON values by key, written with the draft): the Stress test's
    ranges and Monte Carlo settings, the Compare selection, … Change it, then call :func:`save_page_state`."""
    return st.session_state.setdefault(PAGE_STATE, {})


def save_page_state() -> None:
    """Write the page state with the draft (skipped when nothing changed)."""
    get_scenario()
    _persist()


def _page_state_json() -> str:
    """The page state as JSON; values JSON cannot hold are left out (a page then starts them from its default)."""
    state = page_state()
    try:
        return json.dumps(state, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        kept = {}
        for key, value in state.items():
            with suppress(TypeError, ValueError):
                json.dumps(value, allow_nan=False)
                kept[key] = value
        return json.dumps(kept, sort_keys=True)


def _snapshot() -> Draft:
    return Draft(
        body=scenario_json(get_scenario()),
        baseline=str(st.session_state[BASELINE]),
        origin=st.session_state.get(ORIGIN),
        source=str(st.session_state.get(SOURCE, "")),
        page_state=_page_state_json(),
        origin_version=st.session_state.get(ORIGIN_VERSION),
    )


def _persist() -> None:
    """Write this session's draft (in place; skipped when unchanged).

    Another tab took the draft over: this session goes on under a new id (``sync_url`` puts it in the address). The
    library cannot be written (after its retries): :func:`draft_error` says so, and the next edit tries again.
    """
    draft = _snapshot()
    if st.session_state.get(PERSISTED) == draft or st.session_state.get(UNREAD):
        return  # unchanged; or this tab's draft was never read, and writing would overwrite it
    library = get_library()
    try:
        try:
            library.save_draft(draft_id(), draft, session=st.session_state[SESSION])
        except DraftTaken:
            st.session_state[DRAFT_ID] = secrets.token_urlsafe(16)
            library.save_draft(draft_id(), draft, session=st.session_state[SESSION])
    except LibraryError as exc:
        st.session_state[DRAFT_ERROR] = str(exc)
        return
    st.session_state[DRAFT_ERROR] = None
    st.session_state[PERSISTED] = draft


def draft_error() -> str | None:
    """Why this session's latest edit could not be kept as a draft (None: it was)."""
    get_scenario()
    return st.session_state.get(DRAFT_ERROR)


def draft_unread() -> str | None:
    """Why this tab's draft (the URL's ``?draft=``) could not be opened when the tab opened (None: it was, or none)."""
    get_scenario()
    return st.session_state.get(UNREAD)


def _reset_widgets() -> None:
    st.session_state[ERRORS] = {}
    st.session_state[GENERATION] = int(st.session_state.get(GENERATION, 0)) + 1
    for key in [k for k in st.session_state if isinstance(k, str) and k.startswith(WIDGET_PREFIX)]:
        del st.session_state[key]


def _replace(
    scenario: Scenario, origin: str | None, baseline: str, source: str, origin_version: int | None = None
) -> None:
    """Make ``scenario`` the open one; a scenario with unsaved changes it replaces can be brought back."""
    if SCENARIO in st.session_state:
        before = _snapshot()
        if before.body != before.baseline:  # unsaved changes: keep them one step back (else keep the older ones)
            st.session_state[UNDO] = before
    st.session_state[SCENARIO] = scenario
    st.session_state[ORIGIN] = origin
    st.session_state[BASELINE] = baseline
    st.session_state[SOURCE] = source
    st.session_state[ORIGIN_VERSION] = origin_version
    _reset_widgets()
    _persist()


def set_scenario(
    scenario: Scenario, origin: str | None = None, *, source: str | None = None, version: int | None = None
) -> None:
    """Replace the whole scenario and reset every widget to it.

    ``origin`` names its library entry, if any, and ``version`` the version opened; ``source`` says where it came
    from ("file plan.yaml"). The replaced scenario, if it had unsaved changes, can be brought back with :func:`undo`.
    """
    get_scenario()
    if source is None:
        if origin is None:
            source = "built in the app"
        elif get_library().is_preset(origin):
            source = f"preset {origin}"
        else:
            source = f"saved “{origin}”" + (f" version {version}" if version else "")
    _replace(scenario, origin, scenario_json(scenario), source, version)


def open_entry(name: str, version: int | None = None) -> None:
    """Open the library entry ``name``: its newest version, or an older ``version`` as an edit of the newest.

    An older version shows as unsaved changes against the newest, so Save makes it the newest. Raises ScenarioError.
    """
    library = get_library()
    newest, newest_version = library.load_versioned(name)
    if version is None or version == newest_version:
        set_scenario(newest, origin=name, version=newest_version)
        return
    older, _ = library.load_versioned(name, version)
    _replace(older, name, scenario_json(newest), f"saved “{name}” version {version}", newest_version)


def change_summary() -> str:
    """One line naming the inputs changed since the scenario was opened or last saved (for a version message)."""
    try:
        before = scenario_from_dict(json.loads(str(st.session_state[BASELINE])))
    except (ScenarioError, json.JSONDecodeError, KeyError):
        return ""
    paths = [label_of(c.path) for c in input_changes(before, get_scenario())]  # by the names the app gives them
    if not paths:
        return ""
    shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    return f"changed {shown}"[:200]


def save_as(name: str, *, message: str = "", expected_version: int | None = None, shared: bool | None = None) -> Saved:
    """Save the open scenario in the library as a new version of ``name``; it becomes the baseline.

    ``expected_version`` is the version the save is based on (None: on top of the newest); a message left empty
    names the inputs that changed. Raises Conflict if someone saved in between, ScenarioError (LibraryError for a
    broken library) with a one-line reason otherwise.
    """
    saved = get_library().save(
        name,
        get_scenario(),
        message=message.strip() or change_summary(),
        expected_version=expected_version,
        shared=shared,
    )
    st.session_state[UNDO] = None
    st.session_state[SCENARIO] = saved.scenario
    st.session_state[ORIGIN] = saved.name
    st.session_state[BASELINE] = scenario_json(saved.scenario)
    st.session_state[SOURCE] = f"saved “{saved.name}”"
    st.session_state[ORIGIN_VERSION] = saved.version
    _reset_widgets()
    _persist()
    return saved


def save_unless_replacing(
    name: str, replace: bool = False, *, message: str = "", shared: bool | None = None
) -> tuple[Saved | None, bool]:
    """Save the open scenario as ``name`` unless that would replace *another* saved scenario without ``replace``.

    Saving as its own origin checks that nobody saved it since it was opened (Conflict says who did); a new name
    must still be new when the save lands. Returns (what was saved, whether it replaced one); (None, True) means:
    ask the user first. Raises Conflict or ScenarioError (LibraryError for a broken library) with a one-line reason.
    """
    library = get_library()
    name = name.strip()
    entry = None if library.is_preset(name) else library.entry(name)
    own_origin = entry is not None and name == get_origin()
    if entry is not None and not own_origin and not replace:
        return None, True
    expected = st.session_state.get(ORIGIN_VERSION) if own_origin else (entry.version if entry else 0)
    return save_as(name, message=message, expected_version=expected, shared=shared), entry is not None


def revert() -> None:
    """Back to the scenario as it was opened or last saved (the discarded edits can be brought back by undo)."""
    get_scenario()
    baseline = str(st.session_state[BASELINE])
    _replace(
        scenario_from_dict(json.loads(baseline)),
        st.session_state.get(ORIGIN),
        baseline,
        str(st.session_state.get(SOURCE, "")),
        st.session_state.get(ORIGIN_VERSION),
    )


def baseline() -> dict[str, Any]:
    """The scenario as it was opened or last saved, as a mapping (what "changed by the user" is measured against)."""
    get_scenario()
    return dict(json.loads(str(st.session_state[BASELINE])))


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
    _replace(
        scenario_from_dict(json.loads(draft.body)), draft.origin, draft.baseline, draft.source, draft.origin_version
    )


def forget_origin(name: str) -> None:
    """``name`` was deleted from the library: the open scenario, if it came from there, is no longer saved."""
    if get_origin() == name:
        st.session_state[ORIGIN] = None
        st.session_state[ORIGIN_VERSION] = None
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
    return update_fields({path: value})


def update_fields(values: Mapping[str, Any], error_path: str | None = None) -> bool:
    """Set several fields (dotted paths) at once, validated together; on bad input keep the old scenario and record
    why under ``error_path`` (default: the first path). A valid update clears every field's error: each field then
    holds a valid value (a refused entry's kept one, or the one just set)."""
    data = get_scenario().model_dump(mode="json")
    for path, value in values.items():
        if path == "node.preset":
            data["node"] = {"preset": value}
            for key in [k for k in st.session_state if isinstance(k, str) and k.startswith(WIDGET_PREFIX + "node.")]:
                if key != WIDGET_PREFIX + path:
                    del st.session_state[key]
        else:
            _set_path(data, path, value)
    where = error_path or next(iter(values))
    errors = field_errors()
    try:
        st.session_state[SCENARIO] = scenario_from_dict(data)
    except ScenarioError as exc:
        errors[where] = str(exc)
        return False
    errors.clear()  # the whole scenario is valid now: no field's error stands (one edit can fix another's)
    _persist()
    return True


@st.cache_resource(max_entries=64, show_spinner=False)
def _evaluate_cached(key: str) -> neoplan.Result:
    """One Result per scenario for every session: frozen, so no page can change what another user sees."""
    return freeze(neoplan.evaluate(scenario_from_dict(json.loads(key))))


def evaluate_current() -> neoplan.Result | None:
    """Result of the current scenario (cached on its JSON); shows ``st.error`` and returns None on failure."""
    scenario = get_scenario()
    try:
        return _evaluate_cached(scenario_json(scenario))
    except ScenarioError as exc:  # bad input: one line; anything else is a bug and shows as one
        st.error(f"This scenario cannot be evaluated: {plain(humanize(str(exc)))}")
        return None


def sized_description() -> str:
    """What the open plan is, as sized (:func:`neoplan.inputs.scenario.describe` of the evaluated scenario: a plan
    sized by power counts the GPUs the sizing found); from the inputs alone when it cannot be evaluated."""
    scenario = get_scenario()
    try:
        sized = _evaluate_cached(scenario_json(scenario)).scenario
    except ScenarioError:  # the page says why; the inputs still say what the plan is
        return describe(scenario)
    return describe(sized, sized=True)


STRESS_RUN = "stress.export_run"
"""Page-state key of the stress run the Stress test page last showed: the open scenario's fingerprint and the
settings (:func:`remember_stress_run`)."""


def _fingerprint(scenario: Scenario) -> str:
    return hashlib.sha256(scenario_json(scenario).encode()).hexdigest()


def remember_stress_run(settings: stress.Settings) -> None:
    """Keep ``settings`` (ranges, draws, seed, grid, …) as the stress run of the open scenario, for the exports; kept
    with the draft (a refresh keeps it) and keyed on the scenario as entered, so a plan sized by power finds it too."""
    data = dataclasses.asdict(settings)
    kept = {"scenario": _fingerprint(get_scenario()), "settings": data}
    if page_state().get(STRESS_RUN) != kept:
        page_state()[STRESS_RUN] = kept
        save_page_state()


def stress_run_settings() -> stress.Settings | None:
    """The stress settings last run on the Stress test page for the open scenario as it is now; None if none (the
    scenario changed since, or no run): the exports then say they hold the default settings."""
    kept = page_state().get(STRESS_RUN)
    if not isinstance(kept, dict) or kept.get("scenario") != _fingerprint(get_scenario()):
        return None
    try:
        data = dict(kept["settings"])
        ranges = data.pop("ranges")
        if ranges is not None:
            ranges = {key: stress.Range(**rng) for key, rng in ranges.items()}
        return stress.Settings(ranges=ranges, **data)
    except (KeyError, TypeError, ValueError):  # written by another version: the defaults, said so
        return None


def _store() -> Store:
    """This process's store for the configured URL; its location goes to the server log once, never to a page."""
    url = default_url()
    known = url in _LOGGED
    store = open_store(url)
    if not known:
        _LOGGED.add(url)
        _log.info("scenario library: %s", store.location)
    return store


_LOGGED: set[str] = set()


def get_library() -> Library:
    """The scenario library as the signed-in user (or the one local user) sees it.

    ``$NEOPLAN_DATABASE_URL``, else the SQLite file at ``$NEOPLAN_LIBRARY`` or in the user data folder. Never raises:
    a broken library shows up as ``get_library().error`` (words fit for visitors) and in the errors of its methods.
    """
    return Library(store=_store(), user=auth.current_user(), budget_s=APP_BUDGET_S)


def evaluate_scenario(scenario: Scenario) -> neoplan.Result:
    """Cached evaluation of any scenario (raises ScenarioError on failure)."""
    return _evaluate_cached(scenario_json(scenario))


@st.cache_resource(max_entries=16, show_spinner=False)
def _search_cached(key: str, objective: str, constraints: str) -> neoplan.SearchResult:
    found = neoplan.search(
        scenario_from_dict(json.loads(key)), objective=objective, constraints=json.loads(constraints)
    )
    return freeze(found)


def search_current(objective: str, constraints: dict[str, float | None]) -> neoplan.SearchResult:
    """The design search around the current scenario (cached on it, the objective and the constraints); raises
    ScenarioError with a one-line reason for bad input."""
    return _search_cached(scenario_json(get_scenario()), objective, json.dumps(constraints, sort_keys=True))

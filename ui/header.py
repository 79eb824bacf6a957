"""The scenario header (top of every page) and the sidebar's scenario panel: name, unsaved mark, save/revert.

Drawn once per run by app.py. User text (scenario names, file names, descriptions) goes through
``ui.format.plain``, so it is shown as text, never as Markdown or HTML.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import streamlit as st

import neoplan
from neoplan.errors import ScenarioError
from neoplan.inputs.fields import MAX_FILE_BYTES
from neoplan.inputs.loading import parse_scenario
from neoplan.inputs.platform_switch import platform_defaults_note
from neoplan.limits import SCENARIO_FILE_MB, size_text
from neoplan.store import MAX_MESSAGE_CHARS, Conflict
from ui import auth, state
from ui.format import plain
from ui.labels import humanize
from ui.widgets import scenario_downloads

_log = logging.getLogger(__name__)
MESSAGE = "header.message"
CONFIRM = "header.confirm_replace"
UPLOAD_NOTE = "sidebar.upload_note"
CONFLICT = "header.conflict"
"""(name, newest version, message) of a save that found a newer version: ask whether to save on top of it."""


def _say(message: str, ok: bool = True) -> None:
    st.session_state[MESSAGE] = (message, ok)


# -- actions (widget callbacks: they run before the page script) -------------------------------------------


def _saved(saved: Any, replaced: bool = False) -> None:
    st.session_state.pop(CONFLICT, None)
    _say(f"Saved “{saved.name}” as version {saved.version}" + (" (replaced the earlier one)." if replaced else "."))


def report_conflict(exc: Conflict, message: str) -> None:
    """Someone saved first: nothing was written; offer to save on top of their version (if it still exists)."""
    if exc.current is not None:
        st.session_state[CONFLICT] = (exc.name, exc.current.version, message)
    _say(str(exc).removeprefix("library: "), ok=False)


def _save() -> None:
    origin = state.get_origin()
    if origin is None:
        return
    try:
        saved, _ = state.save_unless_replacing(origin)
    except Conflict as exc:
        report_conflict(exc, "")
        return
    except ScenarioError as exc:
        _say(str(exc), ok=False)
        return
    if saved is not None:
        _saved(saved)


def _save_on_top() -> None:
    """Save as the next version after the one someone else saved first (theirs stays in the history)."""
    pending = st.session_state.get(CONFLICT)
    if pending is None:
        return
    name, version, message = pending
    try:
        saved = state.save_as(name, message=message, expected_version=version)
    except Conflict as exc:
        report_conflict(exc, message)
        return
    except ScenarioError as exc:
        _say(str(exc), ok=False)
        return
    _saved(saved)


def _save_as(key: str, replace: bool = False) -> None:
    name = str(st.session_state.get(key, "")).strip()
    message = str(st.session_state.get(_sibling(key, "message"), ""))
    shared = bool(st.session_state.get(_sibling(key, "shared"), False)) if auth.enabled() else None
    try:
        saved, replaced = state.save_unless_replacing(name, replace, message=message, shared=shared)
    except Conflict as exc:
        report_conflict(exc, message)
        return
    except ScenarioError as exc:
        _say(str(exc), ok=False)
        return
    if saved is None:
        st.session_state[CONFIRM] = (key, name)  # ask first: the next run shows "Replace it?" beside that field
        return
    st.session_state.pop(CONFIRM, None)
    st.session_state[_popover(key)] = False  # saved: the popover has done its job and closes
    _saved(saved, replaced)


def _popover(key: str) -> str:
    """The key of the Save-as popover that holds the name field ``key`` (``header.save_as_name.3``)."""
    return key.split(".save_as_name.")[0] + ".save_as_popover"


def _sibling(key: str, what: str) -> str:
    """The key of the Save-as field ``what`` beside the name field ``key`` (``header.save_as_name.3``)."""
    return key.replace(".save_as_name.", f".save_as_{what}.")


def _cancel_replace() -> None:
    st.session_state.pop(CONFIRM, None)


def _revert() -> None:
    state.revert()
    _say("Reverted to the scenario as opened or last saved; Undo brings the edits back.")


def _undo() -> None:
    state.undo()
    _say("Brought back the scenario with its unsaved changes.")


def _rename(key: str) -> None:
    name = " ".join(str(st.session_state.get(key, "")).split())
    if not name:
        state.field_errors()["name"] = "name: enter a name (the current one is kept)"
        return
    state.update_field("name", name)


def _describe(key: str) -> None:
    """The user's own description; emptied, the description is generated from the plan again."""
    text = str(st.session_state.get(key, "")).strip()
    if text:
        state.update_fields({"description": text, "description_by_user": True})
    else:
        state.update_fields({"description": "", "description_by_user": False})


def _open(key: str) -> None:
    name = st.session_state.get(key)
    if name is None:
        return
    try:
        state.open_entry(name)
    except ScenarioError as exc:
        _say(f"Not opened: {exc}", ok=False)


# -- drawing -------------------------------------------------------------------------------------------------


def header() -> None:
    """Name, where it came from, an unsaved-changes mark and Save / Save as / Revert / Undo, above every page."""
    status = state.status()
    can_save = status.origin is not None and not status.origin_is_preset
    with st.container(key="scenario_header", border=True, horizontal=True, vertical_alignment="center", gap="small"):
        with st.container(width="stretch", gap=None):
            mark = (
                " · :orange-badge[● unsaved changes]" if status.dirty else " · :green-badge[saved]" if can_save else ""
            )
            st.markdown(f"**{plain(status.name)}**{mark}")
            source = f"from {plain(status.source)} · " if status.source else ""
            st.caption(f"{source}hardware prices as of {state.get_scenario().prices_as_of}")
        details()
        actions("header", status)
    message = st.session_state.pop(MESSAGE, None)
    if message:
        (st.success if message[1] else st.error)(plain(humanize(message[0])))
    conflict()
    unread = state.draft_unread()
    if unread:
        st.warning(
            f"Your draft could not be opened ({plain(unread)}). This tab shows the default preset meanwhile and keeps "
            "nothing you change here; your draft is untouched: refresh once the library answers to get it back.",
            icon=":material/sync_problem:",
        )
    failed = state.draft_error()
    if failed:
        st.warning(
            f"Your latest edit is open here but could not be kept as a draft ({plain(failed)}). It is tried again "
            "with your next edit; a refresh now would bring back your last edit that was kept. Save or download "
            "to keep this one for sure.",
            icon=":material/sync_problem:",
        )


def conflict() -> None:
    """After a save that found a newer version: save on top of it (a new version), or leave it."""
    pending = st.session_state.get(CONFLICT)
    if pending is None:
        return
    name, version = pending[0], pending[1]
    with st.container(horizontal=True, vertical_alignment="center", key="header_conflict"):
        st.warning(
            f"Nothing was saved: “{plain(name)}” has a newer version {version}. Save yours on top as version "
            f"{version + 1} (version {version} stays in the history), or Save as another name.",
            icon=":material/merge_type:",
        )
        st.button("Save as new version", key="header.save_on_top", on_click=_save_on_top, type="primary")
        st.button("Cancel", key="header.conflict_cancel", on_click=lambda: st.session_state.pop(CONFLICT, None))


def details() -> None:
    """Name and description of the open scenario, editable; an empty description is generated from the plan
    (:func:`neoplan.inputs.scenario.describe`) and stays true as the plan changes."""
    scenario = state.get_scenario()
    generation = state.generation()
    generated = state.sized_description()  # as sized: a power plan counts the GPUs its envelope holds
    with st.popover("Details", help="Name and description of the open scenario."):
        name_key, text_key = f"header.name.{generation}", f"header.description.{generation}"
        st.session_state[name_key] = scenario.name  # always the scenario's own (a rejected name springs back)
        st.session_state[text_key] = scenario.description if scenario.description_by_user else ""
        st.text_input("Name", key=name_key, max_chars=120, on_change=_rename, args=(name_key,))
        if state.field_errors().get("name"):
            st.error(plain(state.field_errors()["name"]))
        st.text_area(
            "Description",
            key=text_key,
            max_chars=2000,
            on_change=_describe,
            args=(text_key,),
            placeholder=generated,
            help="Your own words, kept as written. Left empty, it is generated from the plan (platform, GPUs, "
            "fabric, price book) and kept true as the plan changes.",
        )
        if state.field_errors().get("description"):
            st.error(plain(state.field_errors()["description"]))
        if scenario.description_by_user:
            st.caption(f"Generated from the plan: {plain(generated)}")
        else:
            st.caption("Generated from the plan; type your own to replace it.")


def actions(prefix: str, status: state.Status, *, undo_always: bool = True) -> None:
    """Save, Save as (asks before replacing another saved scenario), Revert and Undo; widget keys ``<prefix>.…``.

    Undo is drawn disabled when there is nothing to undo, or left out if not ``undo_always``.
    """
    can_save = status.origin is not None and not status.origin_is_preset
    st.button(
        "Save",
        key=f"{prefix}.save",
        on_click=_save,
        disabled=not (can_save and status.dirty),
        type="primary" if can_save and status.dirty else "secondary",
        help="Save the changes over the saved scenario they were opened from."
        if can_save
        else "Presets, uploads and quotes are saved with “Save as”.",
    )
    key = f"{prefix}.save_as_name.{state.generation()}"
    with st.popover(
        "Save as", help="Save under a new name in the library.", key=_popover(key), on_change="rerun"
    ):  # keyed and tracked: a save closes it (_save_as)
        st.text_input(
            "Name",
            value=status.name,
            key=key,
            max_chars=120,
            help="Saving under the name of another saved scenario asks first; preset names are reserved.",
        )
        st.text_input(
            "Message",
            key=_sibling(key, "message"),
            max_chars=MAX_MESSAGE_CHARS,
            placeholder="what changed (optional)",
            help="One line kept with this version in the history; left empty, it names the inputs you changed.",
        )
        if auth.enabled():
            st.checkbox(
                "Share with the team",
                key=_sibling(key, "shared"),
                help="Everyone signed in can open it and save new versions; otherwise only you see it.",
            )
        pending = st.session_state.get(CONFIRM)
        if pending is not None and pending == (key, str(st.session_state.get(key, "")).strip()):
            st.warning(f"A saved scenario is already called “{plain(pending[1])}”. Replace it?")
            with st.container(horizontal=True):
                st.button("Replace", key=f"{prefix}.replace", on_click=_save_as, args=(key, True), type="primary")
                st.button("Cancel", key=f"{prefix}.cancel", on_click=_cancel_replace)
        else:
            st.button("Save", key=f"{prefix}.save_as", on_click=_save_as, args=(key,), type="primary")
    st.button(
        "Revert",
        key=f"{prefix}.revert",
        on_click=_revert,
        disabled=not status.dirty,
        help="Discard the changes made since it was opened or saved.",
    )
    undo = state.undo_available()
    if undo is None and not undo_always:
        return
    st.button(
        "Undo",
        key=f"{prefix}.undo",
        on_click=_undo,
        disabled=undo is None,
        help="Bring back the scenario, with its unsaved changes, that the last open, upload or revert replaced."
        if undo is None
        else f"Bring back “{plain(_name_of(undo.body))}” with its unsaved changes.",
    )


def _name_of(body: str) -> str:
    try:
        return str(json.loads(body).get("name", "scenario"))
    except (ValueError, AttributeError):
        return "scenario"


def sidebar_panel() -> None:
    """The sidebar's scenario panel: name and mark, open from the library, upload, download."""
    status = state.status()
    library = state.get_library()
    entries = library.entries()
    auth.sidebar_panel()
    if library.error:
        st.warning(
            f"{plain(library.error)}. Presets still work; saving, and keeping drafts across a refresh, "
            "are off until it is fixed.",
            icon=":material/warning:",
        )
    st.caption("Scenario")
    st.markdown(f"**{plain(status.name)}**" + (" :orange[● unsaved changes]" if status.dirty else ""))
    with st.container(horizontal=True, gap="small"):
        actions("sidebar", status, undo_always=False)
    names = [e.name for e in entries]
    labels = {e.name: f"{e.name} (preset)" if e.read_only else e.name for e in entries}
    key = f"sidebar.open.{state.generation()}"  # a new widget per scenario: no stale choice can fire _open
    st.selectbox(
        "Open scenario",
        names,
        index=names.index(status.origin) if status.origin in names else None,
        format_func=labels.__getitem__,
        key=key,
        on_change=_open,
        args=(key,),
        label_visibility="collapsed",
        placeholder="Open a preset or a saved scenario",
        help="Replace the open scenario with a shipped preset or one you saved. Unsaved changes can be "
        "brought back with Undo in the header.",
    )
    _upload()
    scenario_downloads(state.get_scenario(), "sidebar.download", st.columns(2))
    st.caption(f"neoplan {neoplan.__version__} · prices dated in data/prices")


def _upload() -> None:
    upload: Any = st.file_uploader(
        "Load scenario file",
        type=["yaml", "yml", "json"],
        key="sidebar.upload",
        max_upload_size=SCENARIO_FILE_MB,  # [MB] neoplan.limits: what parse_scenario accepts
        help=f"A YAML or JSON scenario (at most {size_text(SCENARIO_FILE_MB)}).",
    )
    if upload is None:
        st.session_state.pop("sidebar.upload_error", None)
    elif st.session_state.get("sidebar.loaded") != upload.file_id:
        st.session_state["sidebar.loaded"] = upload.file_id
        st.session_state.pop("sidebar.upload_error", None)
        try:
            if upload.size > MAX_FILE_BYTES:
                raise ScenarioError(f"{upload.name}: file larger than {size_text(SCENARIO_FILE_MB)}")
            text = upload.getvalue().decode("utf-8", errors="strict")
            scenario = parse_scenario(text, upload.name)
            state.set_scenario(scenario, origin=None, source=f"file {upload.name}")
            if scenario.cluster.platform_defaults:
                note = platform_defaults_note(text, upload.name)
                st.session_state[UPLOAD_NOTE] = (
                    f"Platform defaults of {scenario.cluster.gpu_model}: {note}." if note else ""
                )
            st.rerun()
        except UnicodeDecodeError:
            st.session_state["sidebar.upload_error"] = f"{upload.name}: not a text file (expected YAML or JSON)"
        except ScenarioError as exc:
            st.session_state["sidebar.upload_error"] = str(exc)
        except Exception as exc:  # a bug must not take the page down: one line here, the traceback in the log
            _log.exception("reading the uploaded scenario %s failed", upload.name)
            st.session_state["sidebar.upload_error"] = (
                f"{upload.name}: could not be read (internal error {type(exc).__name__}; please report it)"
            )
    note = st.session_state.pop(UPLOAD_NOTE, "")
    if note:
        st.info(plain(note), icon=":material/swap_horiz:")
    if st.session_state.get("sidebar.upload_error"):
        st.error(f"Not loaded: {plain(st.session_state['sidebar.upload_error'])}")

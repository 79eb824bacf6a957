"""Scenarios: save, open, duplicate and delete named scenarios; presets are read-only.

Names and descriptions are user text: shown through ``plain`` (never Markdown). Replacing a saved
scenario and deleting one ask first.
"""

from __future__ import annotations

import streamlit as st

from neoplan.formats import when
from neoplan.scenario import ScenarioError
from ui import state
from ui.format import plain

MESSAGE = "scenarios.message"
CONFIRM_SAVE = "scenarios.confirm_save"
CONFIRM_DELETE = "scenarios.confirm_delete"

st.title("Scenarios")
st.caption(
    "Saved scenarios live in an SQLite file on this machine and survive restarts; presets ship with neoplan "
    "and are read-only. Every scenario can also be downloaded as YAML/JSON from the sidebar."
)
library = state.get_library()
status = state.status()
gen = state.generation()
NAME_KEY = f"scenarios.save_name.{gen}"  # a fresh field per open scenario: it never shows another one's name


def _report(message: str, ok: bool = True) -> None:
    st.session_state[MESSAGE] = (message, ok)


def _save(replace: bool = False) -> None:
    name = str(st.session_state.get(NAME_KEY, "")).strip()
    try:
        saved, _replaced = state.save_unless_replacing(name, replace)
    except ScenarioError as exc:
        _report(str(exc), ok=False)
        return
    if saved is None:
        st.session_state[CONFIRM_SAVE] = name  # ask first
        return
    st.session_state.pop(CONFIRM_SAVE, None)
    _report(f"Saved “{saved.name}”.")


def _open(name: str) -> None:
    try:
        state.set_scenario(library.load(name), origin=name)
    except ScenarioError as exc:
        _report(str(exc), ok=False)
        return
    _report(f"Opened “{name}”.")


def _duplicate(name: str) -> None:
    new_name = st.session_state.get(f"scenarios.dup.{name}", "").strip() or f"{name} (copy)"
    try:
        library.duplicate(name, new_name)
    except ScenarioError as exc:
        _report(str(exc), ok=False)
        return
    _report(f"Duplicated “{name}” as “{new_name}”.")


def _ask_delete(name: str | None) -> None:
    st.session_state[CONFIRM_DELETE] = name


def _delete(name: str) -> None:
    st.session_state.pop(CONFIRM_DELETE, None)
    try:
        library.delete(name)
    except ScenarioError as exc:
        _report(str(exc), ok=False)
        return
    state.forget_origin(name)
    _report(f"Deleted “{name}”.")


with st.container(border=True):
    st.subheader("Save the open scenario")
    st.text_input(
        "Name",
        value=status.name,
        key=NAME_KEY,
        max_chars=120,
        help="Saving under the name of another saved scenario asks first; preset names are reserved.",
    )
    pending = st.session_state.get(CONFIRM_SAVE)
    if pending is not None and pending == str(st.session_state.get(NAME_KEY, "")).strip():
        st.warning(f"A saved scenario is already called “{plain(pending)}”. Replace it?")
        c1, c2, _ = st.columns([1, 1, 4])
        c1.button("Replace", key="scenarios.replace", on_click=_save, args=(True,), type="primary")
        c2.button("Cancel", key="scenarios.cancel", on_click=lambda: st.session_state.pop(CONFIRM_SAVE, None))
    else:
        st.button("Save", key="scenarios.save", on_click=_save, type="primary")

message = st.session_state.pop(MESSAGE, None)
if message:
    (st.success if message[1] else st.error)(plain(message[0]))

st.subheader("Library")
entries = library.entries()
if library.error:
    st.info("Only the presets are listed: the saved scenarios cannot be read (see the sidebar).")
for entry in entries:
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns([3, 1, 2, 1])
        c1.markdown(
            f"**{plain(entry.name)}**"
            + (" · preset" if entry.read_only else f" · saved {plain(when(entry.saved_at))}")
            + (" · open now" if entry.name == status.origin else "")
        )
        c2.button("Open", key=f"scenarios.open.{entry.name}", on_click=_open, args=(entry.name,))
        c3.text_input(
            "Copy as",
            key=f"scenarios.dup.{entry.name}",
            placeholder=f"{entry.name} (copy)",
            label_visibility="collapsed",
        )
        c3.button("Duplicate", key=f"scenarios.duplicate.{entry.name}", on_click=_duplicate, args=(entry.name,))
        if entry.read_only:
            continue
        if st.session_state.get(CONFIRM_DELETE) == entry.name:
            c4.button(
                "Delete for good",
                key=f"scenarios.delete_yes.{entry.name}",
                on_click=_delete,
                args=(entry.name,),
                type="primary",
                help="It cannot be brought back.",
            )
            c4.button("Keep it", key=f"scenarios.delete_no.{entry.name}", on_click=_ask_delete, args=(None,))
        else:
            c4.button(
                "Delete",
                key=f"scenarios.delete.{entry.name}",
                on_click=_ask_delete,
                args=(entry.name,),
                help="Asks first.",
            )

"""Scenarios: save, open, duplicate and delete named scenarios; presets are read-only."""

from __future__ import annotations

import streamlit as st

from neoplan.scenario import ScenarioError
from ui.state import get_library, get_origin, get_scenario, set_scenario

st.title("Scenarios")
st.caption(
    "Saved scenarios live in an SQLite file on this machine and survive restarts; presets ship with neoplan "
    "and are read-only. Every scenario can also be downloaded as YAML/JSON from the sidebar."
)
library = get_library()
scenario = get_scenario()


def _report(message: str, ok: bool = True) -> None:
    st.session_state["scenarios.message"] = (message, ok)


def _save() -> None:
    name = st.session_state.get("scenarios.save_name", "")
    try:
        saved = library.save(name, get_scenario())
    except ScenarioError as exc:
        _report(str(exc), ok=False)
        return
    set_scenario(saved, origin=saved.name)
    _report(f"Saved “{saved.name}”.")


def _open(name: str) -> None:
    set_scenario(library.load(name), origin=name)
    _report(f"Opened “{name}”.")


def _duplicate(name: str) -> None:
    new_name = st.session_state.get(f"scenarios.dup.{name}", "").strip() or f"{name} (copy)"
    try:
        library.duplicate(name, new_name)
    except ScenarioError as exc:
        _report(str(exc), ok=False)
        return
    _report(f"Duplicated “{name}” as “{new_name}”.")


def _delete(name: str) -> None:
    library.delete(name)
    if get_origin() == name:
        set_scenario(get_scenario(), origin=None)
    _report(f"Deleted “{name}”.")


with st.container(border=True):
    st.subheader("Save the current scenario")
    st.text_input("Name", value=scenario.name, key="scenarios.save_name", max_chars=120,
                  help="Saving under an existing saved name replaces it; preset names are reserved.")
    st.button("Save", key="scenarios.save", on_click=_save, type="primary")

message = st.session_state.pop("scenarios.message", None)
if message:
    (st.success if message[1] else st.error)(message[0])

st.subheader("Library")
for entry in library.entries():
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns([3, 1, 2, 1])
        c1.markdown(f"**{entry.name}**" + (" · preset" if entry.read_only else f" · saved {entry.saved_at}"))
        c2.button("Open", key=f"scenarios.open.{entry.name}", on_click=_open, args=(entry.name,))
        c3.text_input("Copy as", key=f"scenarios.dup.{entry.name}", placeholder=f"{entry.name} (copy)",
                      label_visibility="collapsed")
        c3.button("Duplicate", key=f"scenarios.duplicate.{entry.name}", on_click=_duplicate, args=(entry.name,))
        if not entry.read_only:
            c4.button("Delete", key=f"scenarios.delete.{entry.name}", on_click=_delete, args=(entry.name,))

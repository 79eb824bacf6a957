"""Scenarios: save, open, duplicate and delete named scenarios; every save is a version; presets are read-only.

The library lists the presets, the user's own scenarios and those shared with the team (with sign-in; everything
for the one local user without it). Versions: the history of a saved scenario, what changed between two versions
(inputs and KPI deltas), restore, and a read-only share link to one version.

Names, messages and descriptions are user text: shown through ``plain`` (never Markdown). Replacing a saved
scenario and deleting one ask first.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from neoplan.errors import ScenarioError
from neoplan.formats import when
from neoplan.store import MAX_MESSAGE_CHARS, Conflict, Entry
from neoplan.store.share import SHARE_DAYS
from neoplan.store.versions import input_changes, kpi_deltas
from ui import auth, state
from ui.format import plain
from ui.header import report_conflict
from ui.labels import humanize, input_change_text, label_of

MESSAGE = "scenarios.message"
CONFIRM_SAVE = "scenarios.confirm_save"
CONFIRM_DELETE = "scenarios.confirm_delete"
SHARE_LINK = "scenarios.share_link"

st.title("Scenarios")
st.caption(
    "Saved scenarios live in the scenario library and survive restarts; every save is a version you can compare "
    "and restore. Presets ship with neoplan and are read-only. Every scenario can also be downloaded as YAML/JSON "
    "from the sidebar."
)
library = state.get_library()
status = state.status()
gen = state.generation()
NAME_KEY = f"scenarios.save_name.{gen}"  # a fresh field per open scenario: it never shows another one's name
signed_in = auth.enabled()


def _report(message: str, ok: bool = True) -> None:
    st.session_state[MESSAGE] = (message, ok)


def _save(replace: bool = False) -> None:
    name = str(st.session_state.get(NAME_KEY, "")).strip()
    message = str(st.session_state.get("scenarios.save_message", ""))
    shared = bool(st.session_state.get("scenarios.save_shared", False)) if signed_in else None
    try:
        saved, _replaced = state.save_unless_replacing(name, replace, message=message, shared=shared)
    except Conflict as exc:
        report_conflict(exc, message)
        return
    except ScenarioError as exc:
        _report(str(exc), ok=False)
        return
    if saved is None:
        st.session_state[CONFIRM_SAVE] = name  # ask first
        return
    st.session_state.pop(CONFIRM_SAVE, None)
    _report(f"Saved “{saved.name}” as version {saved.version}.")


def _open(name: str, version: int | None = None) -> None:
    try:
        state.open_entry(name, version)
    except ScenarioError as exc:
        _report(str(exc), ok=False)
        return
    _report(f"Opened “{name}”" + (f" version {version}." if version else "."))


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


def _set_shared(name: str, key: str) -> None:
    shared = bool(st.session_state.get(key))
    try:
        library.set_shared(name, shared)
    except ScenarioError as exc:
        _report(str(exc), ok=False)
        return
    _report(f"“{name}” is now " + ("shared with the team." if shared else "private to you."))


def _restore(name: str, version: int, newest: int) -> None:
    try:
        saved = library.restore(name, version, expected_version=newest)
    except ScenarioError as exc:
        _report(str(exc), ok=False)
        return
    if state.get_origin() == name:
        state.open_entry(name)
    _report(f"Restored version {version} of “{name}” as version {saved.version}.")


def _share(name: str, version: int) -> None:
    try:
        token = library.share_token(name, version, auth.share_secret())
    except ScenarioError as exc:
        _report(str(exc), ok=False)
        return
    st.session_state[SHARE_LINK] = (name, version, f"{st.context.url or ''}?{state.SHARE_PARAM}={token}")


with st.container(border=True, key="scenarios_save_form"):
    st.subheader("Save the open scenario")
    st.text_input(
        "Name",
        value=status.name,
        key=NAME_KEY,
        max_chars=120,
        help="Saving under the name of another saved scenario asks first; preset names are reserved.",
    )
    st.text_input(
        "Message",
        key="scenarios.save_message",
        max_chars=MAX_MESSAGE_CHARS,
        placeholder="what changed (optional)",
        help="One line kept with this version in the history; left empty, it names the inputs you changed.",
    )
    if signed_in:
        st.checkbox("Share with the team", key="scenarios.save_shared", help="Otherwise only you see it.")
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
    (st.success if message[1] else st.error)(plain(humanize(message[0])))


def _describe(entry: Entry) -> str:
    if entry.read_only:
        return " · preset"
    who = "" if not signed_in else " · yours" if entry.mine else f" · {plain(entry.owner or 'local user')}'s"
    seen = "" if not signed_in else (" · shared" if entry.shared else " · private")
    return f" · version {entry.version} · saved {plain(when(entry.saved_at))}{who}{seen}"


st.subheader("Library")
entries = library.entries()
if library.error:
    st.info("Only the presets are listed: the saved scenarios cannot be read (see the sidebar).")
for entry in entries:
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns([3, 1, 2, 1])
        c1.markdown(
            f"**{plain(entry.name)}**{_describe(entry)}" + (" · open now" if entry.name == status.origin else "")
        )
        c2.button("Open", key=f"scenarios.open.{entry.name}", on_click=_open, args=(entry.name,))
        c3.text_input(
            "Copy as",
            key=f"scenarios.dup.{entry.name}",
            placeholder=f"{entry.name} (copy)",
            label_visibility="collapsed",
        )
        c3.button("Duplicate", key=f"scenarios.duplicate.{entry.name}", on_click=_duplicate, args=(entry.name,))
        if entry.read_only or not entry.mine:
            continue
        if signed_in:
            key = f"scenarios.shared.{entry.name}.{entry.shared}"
            c1.toggle(
                "Shared with the team", value=entry.shared, key=key, on_change=_set_shared, args=(entry.name, key)
            )
        if st.session_state.get(CONFIRM_DELETE) == entry.name:
            c4.button(
                "Delete for good",
                key=f"scenarios.delete_yes.{entry.name}",
                on_click=_delete,
                args=(entry.name,),
                type="primary",
                help="It and its history cannot be brought back.",
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


def _versions(saved: list[Entry]) -> None:
    """History of one saved scenario; what changed between two versions; restore; a share link."""
    names = [e.name for e in saved]
    default = names.index(status.origin) if status.origin in names else 0
    name = st.selectbox("Scenario", names, index=default, key="scenarios.versions_of")
    if name is None:
        return
    try:
        history = library.history(name)
    except ScenarioError as exc:
        st.error(plain(humanize(str(exc))))
        return
    st.dataframe(
        pd.DataFrame(
            {
                "Version": [v.version for v in reversed(history)],
                "Saved": [when(v.saved_at) for v in reversed(history)],
                "By": [v.author or "local user" for v in reversed(history)],
                "Message": [v.message for v in reversed(history)],
            }
        ),
        hide_index=True,
        key=f"scenarios.history.{name}",
    )
    numbers = [v.version for v in history]
    newest = numbers[-1]
    c1, c2 = st.columns(2)
    a = c1.selectbox("Compare version", numbers, index=max(len(numbers) - 2, 0), key=f"scenarios.diff_a.{name}")
    b = c2.selectbox("with version", numbers, index=len(numbers) - 1, key=f"scenarios.diff_b.{name}")
    if a is not None and b is not None and a != b:
        _diff(name, a, b)
    with st.container(horizontal=True):
        if a is not None and a != newest:
            st.button(
                f"Restore version {a}",
                key="scenarios.restore",
                on_click=_restore,
                args=(name, a, newest),
                help=f"Save version {a} again as version {newest + 1}; the history keeps everything.",
            )
            st.button(f"Open version {a}", key="scenarios.open_version", on_click=_open, args=(name, a))
        if a is not None:
            st.button(
                f"Share link to version {a}",
                key="scenarios.share",
                on_click=_share,
                args=(name, a),
                disabled=not auth.share_secret(),
                help=f"A read-only link to this version, valid for {SHARE_DAYS} days, of a scenario shared with the "
                "team: it opens, as a copy, for whoever may see the scenario when they open it."
                if auth.share_secret()
                else "Share links need a server secret: share_secret in the secrets or $NEOPLAN_SHARE_SECRET.",
            )
    link = st.session_state.get(SHARE_LINK)
    if link is not None and link[0] == name:
        st.caption(f"Read-only link to version {link[1]}, valid for {SHARE_DAYS} days (a copy for whoever opens it):")
        st.code(link[2], language=None)


def _diff(name: str, a: int, b: int) -> None:
    try:
        old, new = library.load(name, a), library.load(name, b)
        kpis = kpi_deltas(state.evaluate_scenario(old).to_dict(), state.evaluate_scenario(new).to_dict())
    except ScenarioError as exc:
        st.error(plain(humanize(str(exc))))
        return
    changes = input_changes(old, new)
    st.caption(
        f"{len(changes)} input(s) differ between version {a} and version {b}; rates in percent, their changes in "
        "percentage points (pp). The scenario file's names of the inputs: `neoplan library diff` on the command line."
    )
    if changes:
        shown = [input_change_text(c.path, c.old, c.new) for c in changes]
        st.dataframe(
            pd.DataFrame(
                {
                    "Input": [label_of(c.path) for c in changes],
                    f"Version {a}": [t[0] for t in shown],
                    f"Version {b}": [t[1] for t in shown],
                    "Change": [t[2] for t in shown],
                }
            ),
            hide_index=True,
        )
    shown = [k.text() for k in kpis]
    st.dataframe(
        pd.DataFrame(
            {
                "KPI": [k.label for k in kpis],
                f"Version {a}": [t[0] for t in shown],
                f"Version {b}": [t[1] for t in shown],
                "Change": [t[2] for t in shown],
            }
        ),
        hide_index=True,
        height=(len(kpis) + 1) * 35 + 3,
    )


saved_entries = [e for e in entries if not e.read_only]
if saved_entries:
    st.subheader("Versions")
    with st.container(border=True):
        _versions(saved_entries)

"""neoplan — Streamlit entrypoint: navigation and the shared sidebar. No arithmetic here."""

from __future__ import annotations

import streamlit as st

import neoplan
from neoplan.scenario import MAX_FILE_BYTES, ScenarioError, parse_scenario
from ui.state import get_scenario, set_scenario

st.set_page_config(page_title="neoplan — GPU cloud planner", page_icon="🧮", layout="wide")

PAGES = {
    "Plan": [
        st.Page("pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
        st.Page("pages/compute_node.py", title="Compute node", icon=":material/memory:"),
    ],
}


def _load_preset() -> None:
    name = st.session_state["sidebar.preset"]
    set_scenario(neoplan.load_scenario(name))


def sidebar() -> None:
    """Scenario picker, upload and download, shared by every page."""
    scenario = get_scenario()
    with st.sidebar:
        st.markdown(f"**Scenario:** {scenario.name}")
        presets = neoplan.preset_names()
        current = scenario.base if scenario.base in presets else presets[0]
        st.selectbox(
            "Start from preset",
            presets,
            index=presets.index(current),
            key="sidebar.preset",
            on_change=_load_preset,
            help="Replace the current scenario with a shipped preset.",
        )
        upload = st.file_uploader(
            "Load scenario file",
            type=["yaml", "yml", "json"],
            key="sidebar.upload",
            help=f"A YAML or JSON scenario (at most {MAX_FILE_BYTES // 1000} kB).",
        )
        if upload is not None and st.session_state.get("sidebar.loaded") != upload.file_id:
            st.session_state["sidebar.loaded"] = upload.file_id
            try:
                if upload.size > MAX_FILE_BYTES:
                    raise ScenarioError(f"{upload.name}: file larger than {MAX_FILE_BYTES // 1000} kB")
                set_scenario(parse_scenario(upload.getvalue().decode("utf-8", errors="strict"), upload.name))
                st.rerun()
            except UnicodeDecodeError:
                st.session_state["sidebar.upload_error"] = f"{upload.name}: not a text file (expected YAML or JSON)"
            except ScenarioError as exc:
                st.session_state["sidebar.upload_error"] = str(exc)
        if upload is None:
            st.session_state.pop("sidebar.upload_error", None)
        if st.session_state.get("sidebar.upload_error"):
            st.error(f"Not loaded: {st.session_state['sidebar.upload_error']}")
        scenario = get_scenario()
        stem = "".join(c if c.isalnum() else "_" for c in scenario.name.lower()).strip("_") or "scenario"
        c1, c2 = st.columns(2)
        c1.download_button(
            "⬇ YAML",
            scenario.to_yaml(),
            file_name=f"{stem}.yaml",
            mime="application/x-yaml",
            key="sidebar.download_yaml",
            help="Download the current scenario as YAML.",
        )
        c2.download_button(
            "⬇ JSON",
            scenario.to_json(),
            file_name=f"{stem}.json",
            mime="application/json",
            key="sidebar.download_json",
            help="Download the current scenario as JSON.",
        )
        st.caption(f"neoplan {neoplan.__version__} · prices dated in data/prices")


page = st.navigation(PAGES)
sidebar()
page.run()

"""neoplan — Streamlit entrypoint: navigation and the shared sidebar. No arithmetic here."""

from __future__ import annotations

import streamlit as st

import neoplan
from neoplan.scenario import MAX_FILE_BYTES, ScenarioError, parse_scenario
from ui.state import get_library, get_origin, get_scenario, set_scenario
from ui.widgets import scenario_downloads

st.set_page_config(page_title="neoplan — GPU cloud planner", page_icon="🧮", layout="wide")

PAGES = {
    "Plan": [
        st.Page("pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
        st.Page("pages/compute_node.py", title="Compute node", icon=":material/memory:"),
        st.Page("pages/network.py", title="Network", icon=":material/lan:"),
        st.Page("pages/storage_site.py", title="Storage & site", icon=":material/dns:"),
    ],
    "Money": [
        st.Page("pages/financing.py", title="Financing", icon=":material/account_balance:"),
        st.Page("pages/pricing.py", title="Pricing & revenue", icon=":material/sell:"),
        st.Page("pages/results.py", title="Results", icon=":material/query_stats:"),
        st.Page("pages/stress_test.py", title="Stress test", icon=":material/monitoring:"),
    ],
    "Scenarios": [
        st.Page("pages/scenarios.py", title="Scenarios", icon=":material/folder_open:"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
        st.Page("pages/quote_review.py", title="Quote review", icon=":material/receipt_long:"),
        st.Page("pages/export.py", title="Export", icon=":material/download:"),
    ],
}


def _open_selected() -> None:
    name = st.session_state["sidebar.open"]
    try:
        set_scenario(get_library().load(name), origin=name)
    except ScenarioError as exc:
        st.session_state["sidebar.upload_error"] = str(exc)


def _reopen(name: str) -> None:
    set_scenario(get_library().load(name), origin=name)


def sidebar() -> None:
    """Scenario picker, upload and download, shared by every page."""
    scenario = get_scenario()
    library = get_library()
    with st.sidebar:
        st.markdown(f"**Scenario:** {scenario.name}")
        entries = library.entries()
        names = [e.name for e in entries]
        labels = {e.name: f"{e.name} (preset)" if e.read_only else e.name for e in entries}
        origin = get_origin()
        if origin in names:
            st.session_state["sidebar.open"] = origin  # the picker shows where the scenario came from
        else:
            st.session_state.pop("sidebar.open", None)
        index = {} if "sidebar.open" in st.session_state else {"index": None}
        st.selectbox("Open scenario", names, **index,
                     format_func=labels.get, key="sidebar.open", on_change=_open_selected,
                     placeholder="Choose a preset or a saved scenario",
                     help="Replace the current scenario with a shipped preset or one you saved (Scenarios page).")
        if origin in names:
            st.button(f"↺ Reopen {labels[origin]}", key="sidebar.reopen", on_click=_reopen, args=(origin,),
                      help="Discard the edits made since it was opened.")
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
                set_scenario(parse_scenario(upload.getvalue().decode("utf-8", errors="strict"), upload.name),
                             origin=None)
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
        scenario_downloads(scenario, "sidebar.download", st.columns(2))
        st.caption(f"neoplan {neoplan.__version__} · prices dated in data/prices")


page = st.navigation(PAGES)
sidebar()
page.run()

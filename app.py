"""neoplan — Streamlit entrypoint: navigation, the scenario header and the shared sidebar. No arithmetic here.

The navigation is drawn as page links (``client.showSidebarNavigation = false`` in .streamlit/config.toml
keeps Streamlit's automatic ``pages/`` menu from flashing up before this script runs; that option also
hides ``st.navigation``'s own menu, hence ``position="hidden"`` and the links below).
"""

from __future__ import annotations

import streamlit as st

from ui import auth, state
from ui.header import header, sidebar_panel

st.set_page_config(page_title="neoplan — GPU cloud planner", page_icon="🧮", layout="wide")

PAGES = {
    "Plan": [
        st.Page("pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
        st.Page("pages/compute_node.py", title="Compute node", icon=":material/memory:"),
        st.Page("pages/network.py", title="Network", icon=":material/lan:"),
        st.Page("pages/storage_site.py", title="Storage & site", icon=":material/dns:"),
        st.Page("pages/operations.py", title="Operations", icon=":material/engineering:"),
        st.Page("pages/search.py", title="Design search", icon=":material/travel_explore:"),
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


def navigation() -> None:
    """Links to every page, by section; they carry the draft id so a refresh anywhere keeps the scenario."""
    query = {state.URL_PARAM: state.draft_id()}
    with st.container(key="app_nav"):
        for section, pages in PAGES.items():
            st.caption(section)
            for page_ in pages:
                st.page_link(page_, query_params=query)


BUSY_STYLE = """<style>
body:has([data-stale="true"], [data-testid="stSkeleton"])::after {
  content: "Computing…"; position: fixed; top: 0.75rem; right: 1.25rem; z-index: 1000100;
  padding: 0.3rem 0.8rem; border-radius: 1rem; background: #2a9d8f; color: white;
  font: 600 0.85rem "Source Sans Pro", sans-serif; box-shadow: 0 1px 4px rgba(0, 0, 0, 0.25);
  animation: neoplan-busy 0.15s ease-in 0.3s both;
}
@keyframes neoplan-busy { from { opacity: 0; } to { opacity: 1; } }
</style>"""
# A "Computing…" badge while a run is under way (elements waiting for their new values are marked stale), shown
# from 0.3 s on: actions quicker than that stay quiet. Pure CSS, so it shows even while the page's script is busy.

page = st.navigation(PAGES, position="hidden")
st.html(BUSY_STYLE)
auth.require_sign_in()  # with [auth] in the secrets: nobody sees a page before signing in
state.get_scenario()  # start the session: the URL's draft after a refresh, else the default preset
state.sync_url()
with st.sidebar:
    navigation()
    st.divider()
    sidebar_panel()
header()
page.run()

"""The one Streamlit internal neoplan relies on (``ui/state.py:_leave_pages_folder_mode``) is still what it was.

On Streamlit 1.67, until ``st.navigation`` has run once in the process, an app with a ``pages/`` folder runs as a
v1 multipage app: a fresh server's first visit to ``/network`` runs pages/network.py alone, with no header, no
sidebar and no draft id (checked in Chromium with the patch taken out); no config option or public call ends that
mode, so ui/state.py flips ``PagesManager.uses_pages_directory`` and reruns. If a test here fails after a Streamlit
upgrade, the patch has gone quiet: open /network first on a fresh ``streamlit run app.py``
(tests/test_browser.py::test_first_visit_deep_link_has_no_automatic_pages_menu does) and remove the patch if
app.py now runs first, else follow the internal to its new home.
"""

from __future__ import annotations

import inspect

from streamlit.commands import navigation
from streamlit.runtime import pages_manager
from streamlit.runtime.scriptrunner import script_runner

import ui.state


def test_the_flag_is_still_a_class_attribute_of_the_pages_manager() -> None:
    assert "uses_pages_directory" in vars(pages_manager.PagesManager)


def test_the_script_runner_still_runs_a_pages_folder_app_by_the_flag() -> None:
    source = inspect.getsource(script_runner)
    assert "if PagesManager.uses_pages_directory:" in source
    assert "_mpa_v1(" in source  # the v1 path: navigation built from pages/, the requested page run alone


def test_st_navigation_still_ends_the_mode_for_the_whole_process() -> None:
    """The patch does early what app.py's st.navigation does on its first run."""
    assert "PagesManager.uses_pages_directory = False" in inspect.getsource(navigation.navigation)


def test_the_patch_imports_what_it_flips() -> None:
    source = inspect.getsource(ui.state._leave_pages_folder_mode)
    assert "from streamlit.runtime.pages_manager import PagesManager" in source
    assert "PagesManager.uses_pages_directory = False" in source

"""Test-wide setup: a throwaway scenario library, so tests never touch the user's; shared AppTest helpers.

The helpers are imported by name, ``from conftest import metric, run_page`` (tests/ is on sys.path, as for
``browser_support``); the ``optimized`` fixture is found by pytest.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit.testing.v1.app_test as app_test
import streamlit.testing.v1.local_script_runner as local_script_runner
from hypothesis import settings
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest

import neoplan

# CI (``.ci/run`` sets CI) draws the same hypothesis examples on every run, so a stop never fails on a lucky draw;
# a developer's run explores new examples, and what it finds becomes a test.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

_LIBRARY_DIR = Path(tempfile.mkdtemp(prefix="neoplan-test-library-"))
os.environ["NEOPLAN_LIBRARY"] = str(_LIBRARY_DIR / "scenarios.sqlite")

ROOT = Path(__file__).resolve().parent.parent
"""The repository root."""
BROWSER_TIMEOUT_S = 600
"""pytest-timeout for a ``browser`` test [s] (the others get pyproject's 300 s): its first test also starts
``streamlit run`` (up to 60 s to be healthy) and Chromium, and a journey waits up to 30–60 s per step."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give every browser test :data:`BROWSER_TIMEOUT_S` unless it sets its own ``timeout`` mark."""
    for item in items:
        if item.get_closest_marker("browser") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(BROWSER_TIMEOUT_S))


MYPY = [sys.executable, "-m", "mypy", "--no-error-summary"]
"""The type check of ``tests/test_style.py::test_mypy_clean`` (pyproject's ``[tool.mypy]``: the model and the app)."""
_mypy: tuple[subprocess.Popen[bytes], Path] | None = None


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the type check in the background when the run holds ``test_mypy_clean`` and other tests: a cold mypy
    takes a minute of one core, which the tests before it leave mostly free (they run on one)."""
    if len(session.items) > 1 and any(item.nodeid.endswith("test_style.py::test_mypy_clean") for item in session.items):
        _start_mypy()


def _start_mypy() -> tuple[subprocess.Popen[bytes], Path]:
    global _mypy
    if _mypy is None:
        log = Path(tempfile.mkdtemp(prefix="neoplan-test-mypy-")) / "mypy.txt"
        with log.open("wb") as output:  # the child keeps its own handle
            _mypy = subprocess.Popen(MYPY, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT), log
    return _mypy


def mypy_result() -> tuple[int, str]:
    """The type check's exit code and output: of the run started at collection, or of one started now."""
    proc, log = _start_mypy()
    proc.wait()
    return proc.returncode, log.read_text(errors="replace")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A type check nobody asked for the result of (the run stopped early) does not outlive the run; its log goes."""
    if _mypy is not None:
        if _mypy[0].poll() is None:
            _mypy[0].kill()
            _mypy[0].wait()
        shutil.rmtree(_mypy[1].parent, ignore_errors=True)


def page_path(name: str) -> str:
    """Path of ``pages/<name>.py`` (or of ``app.py`` for ``app``), as AppTest.from_file wants it."""
    return str(ROOT / "app.py") if name == "app" else str(ROOT / "pages" / f"{name}.py")


def run_page(path: str, timeout: float = 60, **state: object) -> AppTest:
    """A page (or app.py) run once with ``state`` put in session state first; fails on any exception.

    A page run on its own reads the scenario from session state: the default preset on the first run.
    """
    at = AppTest.from_file(path, default_timeout=timeout)
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def metric(at: AppTest, label: str) -> str:
    """The value of the (first) metric card labelled ``label``; fails naming the labels shown if there is none."""
    for m in at.metric:
        if m.label == label:
            return str(m.value)
    raise AssertionError(f"no metric {label!r} among {[m.label for m in at.metric]}")


@pytest.fixture
def run_like_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every AppTest run of app.py goes through its st.navigation, as on the server (ui.state switches Streamlit's
    pages/-folder mode off there); AppTest would otherwise switch it back on for each run and run pages without
    app.py. Use with ``pytestmark = pytest.mark.usefixtures("run_like_the_server")``."""
    original = PagesManager.__init__

    def init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


@pytest.fixture(scope="session", autouse=True)
def compiled_once() -> Iterator[None]:
    """AppTest compiles app.py and the page anew on every run (a ScriptCache of its own each time, a sixth of a
    page run); the server compiles each script once. One cache for the whole run, as on the server: the scripts do
    not change while the tests run."""
    cache = ScriptCache()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(app_test, "ScriptCache", lambda: cache)
        patch.setattr(local_script_runner, "ScriptCache", lambda: cache)
        yield


@pytest.fixture(scope="session")
def optimized() -> neoplan.Result:
    """The optimized preset, evaluated once for the whole run (tests must not mutate it)."""
    return neoplan.evaluate(neoplan.load_scenario("optimized"))

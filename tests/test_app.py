"""AppTest: every page runs without exception; key widgets move key figures."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
import streamlit as st
from conftest import ROOT, page_path, run_page
from conftest import metric as _metric
from streamlit.testing.v1 import AppTest

import neoplan
from neoplan.inputs.scenario import Scenario
from neoplan.library import Library, default_path
from ui.format import plain

APP = page_path("app")
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))


pytestmark = pytest.mark.usefixtures("run_like_the_server")


def _app() -> AppTest:
    return run_page(APP)


def _text(markdown: str) -> str:
    """Markdown as shown: backslash escapes removed (user text and messages are escaped for display)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def _keyed(widgets, prefix: str):  # type: ignore[no-untyped-def]
    """The one widget whose key starts with ``prefix`` (keys carry the scenario generation)."""
    found = [w for w in widgets if (w.key or "").startswith(prefix)]
    assert len(found) == 1, [w.key for w in widgets]
    return found[0]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs(page: str) -> None:
    at = _app()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_overview_is_the_landing_page() -> None:
    at = _app()
    assert _metric(at, "Node price") == "$256,400"
    assert _metric(at, "GPUs") == "1,024"


def test_compute_node_ram_and_dpus_change_price() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    assert _metric(at, "Node price") == "$256,400"
    assert _metric(at, "Saving vs OEM default") == "$13,600"
    at.text_input(key="w.node.ram_tb").input(str(2.0)).run()
    after_ram = _metric(at, "Node price")
    assert after_ram == "$260,560"  # 16 more 64 GB DIMMs at $260
    at.text_input(key="w.node.dpus").input(str(2)).run()
    assert _metric(at, "Node price") == "$265,760"  # two BlueField-3 at $2,600
    assert not at.exception


def test_node_preset_switch_resets_node_widgets() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.selectbox(key="w.node.preset").set_value("oem_default").run()
    assert _metric(at, "Node price") == "$270,000"
    assert at.text_input(key="w.node.ram_tb").value == "2.00"
    assert at.selectbox(key="w.node.cpu_tier").value == "top"


def test_sidebar_preset_replaces_scenario() -> None:
    at = _app()
    _keyed(at.sidebar.selectbox, "sidebar.open.").set_value("reference").run()
    assert _metric(at, "Node price") == "$270,000"
    at.switch_page("pages/compute_node.py").run()
    assert at.selectbox(key="w.node.cpu_tier").value == "top"
    assert _metric(at, "Saving vs OEM default") == "$0"


def test_bad_input_shows_error_and_keeps_last_good_scenario() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.text_input(key="w.cluster.gpus").input(str(1001)).run()
    assert any("GPUs in the cluster must be a multiple" in _text(e.value) for e in at.error)
    assert _metric(at, "Node price") == "$256,400"
    assert not at.exception
    at.text_input(key="w.node.ram_tb").input(str(-1.0)).run()
    assert any("System memory [TB] must be" in _text(e.value) and "-1.0" in _text(e.value) for e in at.error)
    at.text_input(key="w.cluster.gpus").input(str(2048)).run()
    assert not at.error, [_text(e.value) for e in at.error]  # a valid edit: no error stands (memory kept 1 TB)
    assert _metric(at, "Compute capex") == "$65.64 M"  # 256 servers × $256,400


def test_save_then_compare_saved_scenario() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.text_input(key="w.node.ram_tb").input(str(2.0)).run()
    at.switch_page("pages/scenarios.py").run()
    _keyed(at.text_input, "scenarios.save_name.").set_value("Big RAM").run()
    at.button(key="scenarios.save").click().run()
    assert not at.exception
    assert any("Saved “Big RAM”" in _text(s.value) for s in at.success)
    at.switch_page("pages/compare.py").run()
    at.multiselect(key="compare.chosen").set_value(["optimized", "Big RAM"]).run()
    assert not at.exception
    table = at.dataframe[0].value
    node_row = table[table[""] == "Node price"].iloc[0]
    assert node_row["optimized"] == "$256,400"
    assert node_row["Big RAM"].startswith("$260,560")


def test_change_on_one_page_shows_on_overview() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.text_input(key="w.cluster.gpus").input(str(2048)).run()
    at.switch_page("pages/overview.py").run()
    assert _metric(at, "GPUs") == "2,048"


def test_saved_scenario_survives_an_app_restart() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.text_input(key="w.cluster.gpus").input(str(512)).run()
    at.switch_page("pages/scenarios.py").run()
    _keyed(at.text_input, "scenarios.save_name.").set_value("Half cluster").run()
    at.button(key="scenarios.save").click().run()
    st.cache_resource.clear()  # a new server process starts with empty caches
    again = _app()  # a new session
    _keyed(again.sidebar.selectbox, "sidebar.open.").set_value("Half cluster").run()
    assert _metric(again, "GPUs") == "512"


def _markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_header_marks_unsaved_changes_reverts_and_undoes() -> None:
    at = _app()
    assert "unsaved" not in _markdown(at)
    at.switch_page("pages/compute_node.py").run()
    at.text_input(key="w.node.ram_tb").input(str(2.0)).run()
    assert "unsaved changes" in _markdown(at)  # the header, on every page
    at.switch_page("pages/overview.py").run()
    assert "unsaved changes" in _markdown(at)
    assert _metric(at, "Node price") == "$260,560"
    at.button(key="header.revert").click().run()
    assert _metric(at, "Node price") == "$256,400"
    assert "unsaved" not in _markdown(at)
    at.button(key="header.undo").click().run()
    assert _metric(at, "Node price") == "$260,560"
    assert "unsaved changes" in _markdown(at)
    assert not at.exception


def _draft_rows() -> int:
    with sqlite3.connect(default_path()) as db:
        return int(db.execute("SELECT count(*) FROM drafts").fetchone()[0])


def test_a_refreshed_session_takes_its_draft_over_in_place() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.text_input(key="w.cluster.gpus").input(str(2048)).run()
    draft = at.session_state["scenario_draft_id"]
    rows = _draft_rows()
    again = AppTest.from_file(APP, default_timeout=60)  # a new browser session with the same URL: a refresh
    again.query_params["draft"] = draft
    again.run()
    assert not again.exception
    assert _metric(again, "GPUs") == "2,048"
    assert "unsaved changes" in _markdown(again)
    assert again.session_state["scenario_draft_id"] == draft  # the same draft, updated in place ...
    again.switch_page("pages/compute_node.py").run()
    again.text_input(key="w.cluster.gpus").input("4096").run()
    assert _draft_rows() == rows  # ... not a new row per refresh
    at.text_input(key="w.cluster.gpus").input("512").run()  # the old tab, still open, edits again:
    assert at.session_state["scenario_draft_id"] != draft  # it moves to a draft of its own
    assert _draft_rows() == rows + 1
    third = AppTest.from_file(APP, default_timeout=60)  # a refresh of the tab that took the draft over
    third.query_params["draft"] = draft
    third.run()
    assert _metric(third, "GPUs") == "4,096"  # its edit, not the old tab's
    stranger = AppTest.from_file(APP, default_timeout=60)
    stranger.query_params["draft"] = "no-such-draft-0123456789"
    stranger.run()
    assert _metric(stranger, "GPUs") == "1,024"  # an unknown id starts from the default preset


def test_save_name_follows_the_open_scenario() -> None:
    at = _app()
    at.switch_page("pages/scenarios.py").run()
    assert _keyed(at.text_input, "scenarios.save_name.").value == "Optimized (article's BoM)"
    at.button(key="scenarios.open.reference").click().run()
    assert _keyed(at.text_input, "scenarios.save_name.").value.startswith("Reference")


def test_saving_over_a_name_asks_first_and_delete_asks_first() -> None:
    at = _app()
    at.switch_page("pages/scenarios.py").run()
    _keyed(at.text_input, "scenarios.save_name.").set_value("Keep me").run()
    at.button(key="scenarios.save").click().run()
    at.button(key="scenarios.open.reference").click().run()
    _keyed(at.text_input, "scenarios.save_name.").set_value("Keep me").run()
    at.button(key="scenarios.save").click().run()
    assert any("already called “Keep me”" in _text(w.value) for w in at.warning)
    at.button(key="scenarios.cancel").click().run()
    assert state_of("Keep me").fabric.topology == "vms"  # not replaced
    at.button(key="scenarios.save").click().run()
    at.button(key="scenarios.replace").click().run()
    assert state_of("Keep me").fabric.topology == "reference"
    at.button(key="scenarios.delete.Keep me").click().run()
    assert "Keep me" in state_library().names()  # only asked so far
    at.button(key="scenarios.delete_yes.Keep me").click().run()
    assert "Keep me" not in state_library().names()
    assert not at.exception


def state_library() -> Library:
    """The library the app under test uses (conftest points $NEOPLAN_LIBRARY at a throwaway file)."""
    return Library(default_path())


def state_of(name: str) -> Scenario:
    return state_library().load(name)


def test_user_text_is_shown_as_text() -> None:
    shared = "![x](http://127.0.0.1:9/pixel.png) <img src=http://127.0.0.1:9/a.png> **bold** $x$"
    state_library().save(shared, neoplan_scenario("x"))  # a saved name: the scenario takes the name it is saved as
    at = _app()
    _keyed(at.sidebar.selectbox, "sidebar.open.").set_value(shared).run()
    shown = [m.value for m in at.markdown if "pixel" in m.value]
    assert len(shown) >= 2, "the name is not shown in the header and the sidebar"
    for value in shown:
        assert plain(shared) in value  # every Markdown/HTML character escaped: shown as typed, nothing fetched
        assert "![x]" not in value and "<img" not in value.replace("\\<img", "")


def neoplan_scenario(name: str) -> Scenario:
    return neoplan.load_scenario({"base": "optimized", "name": name})


def test_a_corrupt_library_never_takes_the_app_down(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "scenarios.sqlite"
    broken.write_bytes(b"garbage " * 500)
    monkeypatch.setenv("NEOPLAN_LIBRARY", str(broken))
    at = _app()
    warnings = [w.value for w in at.sidebar.warning]
    assert len(warnings) == 1 and "not a readable database" in _text(warnings[0])  # one message ...
    assert str(tmp_path) not in _text(warnings[0])  # ... that never shows a visitor where the library is
    assert "Presets still work" in _text(warnings[0])
    _keyed(at.sidebar.selectbox, "sidebar.open.").set_value("reference").run()
    assert _metric(at, "Node price") == "$270,000"
    for page in ("pages/scenarios.py", "pages/compare.py"):
        at.switch_page(page).run()
        assert not at.exception, at.exception
    at.switch_page("pages/scenarios.py").run()
    _keyed(at.text_input, "scenarios.save_name.").set_value("Mine").run()
    at.button(key="scenarios.save").click().run()
    assert any("corrupt" in _text(e.value) for e in at.error)
    assert broken.read_bytes().startswith(b"garbage")


def test_header_save_as_asks_before_replacing_and_save_writes_back() -> None:
    state_library().save("Team plan", neoplan.load_scenario("reference"))
    at = _app()
    _keyed(at.text_input, "header.save_as_name.").set_value("Team plan").run()
    at.button(key="header.save_as").click().run()
    assert any("already called “Team plan”" in _text(w.value) for w in at.warning)
    assert state_of("Team plan").fabric.topology == "reference"  # asked, not yet replaced
    at.button(key="header.replace").click().run()
    assert state_of("Team plan").fabric.topology == "vms"
    assert "saved" in _markdown(at) and "unsaved" not in _markdown(at)
    assert at.button(key="header.save").disabled  # nothing to save
    at.switch_page("pages/compute_node.py").run()
    at.text_input(key="w.cluster.gpus").input(str(512)).run()
    assert not at.button(key="header.save").disabled
    at.button(key="header.save").click().run()  # its own name: saved without asking
    assert state_of("Team plan").cluster.gpus == 512
    assert "unsaved" not in _markdown(at)
    assert not at.exception


def test_sidebar_offers_the_same_actions() -> None:
    at = _app()
    assert at.button(key="sidebar.revert").disabled and at.button(key="sidebar.save").disabled
    at.switch_page("pages/compute_node.py").run()
    at.text_input(key="w.node.dpus").input(str(2)).run()
    assert _metric(at, "Node price") == "$261,600"
    at.button(key="sidebar.revert").click().run()
    assert _metric(at, "Node price") == "$256,400"
    at.button(key="sidebar.undo").click().run()  # drawn in the sidebar only once there is something to undo
    assert _metric(at, "Node price") == "$261,600"
    _keyed(at.text_input, "sidebar.save_as_name.").set_value("From the sidebar").run()
    at.button(key="sidebar.save_as").click().run()
    assert state_of("From the sidebar").node.dpus == 2
    assert not at.exception


def test_visitors_never_see_a_traceback() -> None:
    """.streamlit/config.toml: client.showErrorDetails = "none" — a generic line, no message, type or stack."""
    at = AppTest.from_string('raise RuntimeError("secret at /home/someone/neoplan/model.py")')
    at.run()
    (error,) = at.exception
    assert "secret" not in error.message and "RuntimeError" not in error.message and "/home" not in error.message
    assert error.stack_trace == []


def test_opening_another_scenario_over_unsaved_edits_can_be_undone() -> None:
    at = _app()
    at.switch_page("pages/compute_node.py").run()
    at.text_input(key="w.cluster.gpus").input(str(2048)).run()
    _keyed(at.sidebar.selectbox, "sidebar.open.").set_value("reference").run()
    assert _metric(at, "Node price") == "$270,000"
    _keyed(at.sidebar.selectbox, "sidebar.open.").set_value("h100_256").run()  # a clean one in between
    at.button(key="header.undo").click().run()
    assert at.session_state["scenario"].cluster.gpus == 2048  # the edits are back
    assert at.session_state["scenario_origin"] == "optimized" and "unsaved changes" in _markdown(at)
    assert at.button(key="header.undo").disabled  # used up (what it replaced had no unsaved changes)


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("draft", "<b>x</b>" * 500),
        ("draft", "é" * 30),
        ("draft", "../" * 8),
        ("share", "YQ.é"),  # a non-ASCII signature: hmac refuses to compare it (a TypeError before)
        ("share", "a" * 10_000),
        ("share", "<a href='//bait.example'>y</a>.z"),
    ],
    ids=["draft-markup", "draft-unicode", "draft-path", "share-unicode", "share-long", "share-markup"],
)
def test_a_crafted_link_opens_the_default_preset_and_says_why(
    param: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEOPLAN_SHARE_SECRET", "s" * 32)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params[param] = value
    at.run()
    assert not at.exception, at.exception
    assert _metric(at, "GPUs") == "1,024"  # the default preset
    if param == "share":
        assert any("this share link is not valid" in e.value for e in at.error), [e.value for e in at.error]

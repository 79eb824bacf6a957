"""The Scenarios page and the header under AppTest: versions, diff, restore, share links, save conflicts, drafts.

AppTests share one throwaway library (conftest); each test uses names of its own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import metric as _metric
from conftest import page_path, run_page
from streamlit.testing.v1 import AppTest

import neoplan
from neoplan.store import Library, default_path

APP = page_path("app")
pytestmark = pytest.mark.usefixtures("run_like_the_server")
SECRET = "a-share-secret-for-the-tests-only-0123456789"  # at least 32 bytes


def _text(markdown: object) -> str:
    return re.sub(r"\\(.)", r"\1", str(markdown))


def _keyed(widgets, prefix: str):  # type: ignore[no-untyped-def]
    found = [w for w in widgets if (w.key or "").startswith(prefix)]
    assert len(found) == 1, [w.key for w in widgets]
    return found[0]


def _open(name: str) -> AppTest:
    at = run_page(APP)
    _keyed(at.sidebar.selectbox, "sidebar.open.").set_value(name).run()
    return at


def _edit_gpus(at: AppTest, gpus: int) -> None:
    at.switch_page("pages/compute_node.py").run()
    at.text_input(key="w.cluster.gpus").input(str(gpus)).run()


def test_a_second_save_from_a_stale_version_is_told_and_offered_a_new_version() -> None:
    Library(default_path()).save("Shared budget", neoplan.load_scenario("optimized"))
    first, second = _open("Shared budget"), _open("Shared budget")  # two people opened version 1
    _edit_gpus(first, 2048)
    first.button(key="header.save").click().run()
    assert any("as version 2" in _text(s.value) for s in first.success)
    _edit_gpus(second, 512)
    second.button(key="header.save").click().run()
    assert any("newer version 2" in _text(w.value) for w in second.warning)  # told, nothing written
    assert Library(default_path()).load("Shared budget").cluster.gpus == 2048
    second.button(key="header.save_on_top").click().run()
    assert any("as version 3" in _text(s.value) for s in second.success)
    history = Library(default_path()).history("Shared budget")
    assert [v.version for v in history] == [1, 2, 3]  # no update lost: version 2 stays in the history
    assert [v.message for v in history][1:] == ["changed GPUs in the cluster", "changed GPUs in the cluster"]
    assert Library(default_path()).load("Shared budget").cluster.gpus == 512
    assert not second.exception


def test_history_diff_and_restore_on_the_scenarios_page() -> None:
    library = Library(default_path())
    library.save("Versioned", neoplan.load_scenario("optimized"), message="as the article has it")
    library.save("Versioned", neoplan.load_scenario({"base": "optimized", "pricing": {"spot_share_of_idle": 0.2}}))
    at = _open("Versioned")
    at.switch_page("pages/scenarios.py").run()
    assert at.selectbox(key="scenarios.versions_of").value == "Versioned"
    history = at.dataframe[0].value
    assert list(history["Version"]) == [2, 1] and list(history["Message"]) == ["", "as the article has it"]
    inputs, kpis = at.dataframe[1].value, at.dataframe[2].value
    assert list(inputs["Input"]) == ["Idle hours sold at spot [%]"]  # its label; the path in the CLI
    assert list(inputs["Version 1"]) == ["50.0 %"] and list(inputs["Version 2"]) == ["20.0 %"]
    assert list(inputs["Change"]) == ["−30.0 pp"]  # a rate changes in percentage points
    npv = kpis[kpis["KPI"] == "NPV"]
    assert npv["Change"].iloc[0].startswith("−$")  # fewer idle hours sold at spot, lower NPV
    irr = kpis[kpis["KPI"] == "Equity IRR"]["Change"].iloc[0]
    assert irr.startswith("−") and irr.endswith(" pp"), irr  # an IRR changes in points, not "%"
    at.button(key="scenarios.restore").click().run()
    assert any("Restored version 1" in _text(s.value) and "version 3" in _text(s.value) for s in at.success)
    assert library.load("Versioned").pricing.spot_share_of_idle == pytest.approx(0.5, rel=1e-12)
    assert at.session_state["scenario"].pricing.spot_share_of_idle == pytest.approx(0.5, rel=1e-12)  # the open one
    assert ":green-badge[saved]" in at.markdown[0].value and at.session_state["scenario_origin_version"] == 3
    assert not at.exception


def test_a_share_link_opens_a_read_only_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEOPLAN_SHARE_SECRET", SECRET)
    library = Library(default_path())
    library.save("Linked", neoplan.load_scenario({"base": "optimized", "cluster": {"gpus": 256}}))
    library.save("Linked", neoplan.load_scenario({"base": "optimized", "cluster": {"gpus": 4096}}))
    at = _open("Linked")
    at.switch_page("pages/scenarios.py").run()
    at.button(key="scenarios.share").click().run()  # version 1 (the older of the two compared)
    link = at.code[0].value
    token = link.split("?share=")[1]
    visitor = AppTest.from_file(APP, default_timeout=60)
    visitor.query_params["share"] = token
    visitor.run()
    assert not visitor.exception
    assert _metric(visitor, "GPUs") == "256"
    assert "shared link to “Linked” version 1" in _text(visitor.caption[0].value)
    assert visitor.session_state["scenario_origin"] is None  # a copy: Save as, never over the original
    forged = AppTest.from_file(APP, default_timeout=60)
    forged.query_params["share"] = token[:-3] + "abc"
    forged.run()
    assert any("not valid" in _text(e.value) for e in forged.error)
    assert _metric(forged, "GPUs") == "1,024"


def test_a_draft_that_cannot_be_written_is_said_in_the_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = run_page(APP)
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"not a database " * 300)
    monkeypatch.setenv("NEOPLAN_LIBRARY", str(broken))  # the library breaks while the session runs
    _edit_gpus(at, 2048)
    warnings = [_text(w.value) for w in at.warning]
    assert any("could not be kept as a draft" in w and "last edit that was kept" in w for w in warnings)
    assert all(str(tmp_path) not in w for w in warnings)
    monkeypatch.setenv("NEOPLAN_LIBRARY", str(tmp_path / "good.sqlite"))  # it works again: the next edit is kept
    at.text_input(key="w.cluster.gpus").input("4096").run()
    assert not any("could not be kept" in _text(w.value) for w in at.warning)
    kept = Library(tmp_path / "good.sqlite").load_draft(at.session_state["scenario_draft_id"])
    assert kept is not None and '"gpus":4096' in kept.body


def test_a_refresh_while_the_library_cannot_be_read_keeps_the_way_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39: a refresh while the library is down opened the default preset under a new id, and the way back to
    the draft (still in the file) was lost. Now the tab keeps its id, says so, writes nothing over the draft, and a
    refresh once the library answers brings the draft back."""
    good = tmp_path / "good.sqlite"
    monkeypatch.setenv("NEOPLAN_LIBRARY", str(good))
    at = run_page(APP)
    _edit_gpus(at, 2048)
    draft_id = at.session_state["scenario_draft_id"]
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"not a database " * 300)
    monkeypatch.setenv("NEOPLAN_LIBRARY", str(broken))
    refreshed = AppTest.from_file(APP, default_timeout=60)
    refreshed.query_params["draft"] = draft_id
    refreshed.run()
    assert not refreshed.exception
    assert refreshed.session_state["scenario_draft_id"] == draft_id  # the way back is kept
    assert refreshed.query_params["draft"] == draft_id
    assert any("Your draft could not be opened" in _text(w.value) for w in refreshed.warning)
    monkeypatch.setenv("NEOPLAN_LIBRARY", str(good))  # the library answers again, while this tab is still open
    _edit_gpus(refreshed, 4096)  # an edit here writes nothing over the draft
    kept = Library(good).load_draft(draft_id)
    assert kept is not None and '"gpus":2048' in kept.body
    again = AppTest.from_file(APP, default_timeout=60)
    again.query_params["draft"] = draft_id
    again.run()
    assert _metric(again, "GPUs") == "2,048" and again.session_state["scenario_draft_id"] == draft_id
    assert not any("could not be opened" in _text(w.value) for w in again.warning)

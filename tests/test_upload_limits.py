"""Upload limits are stated once (neoplan.limits) and enforced the same by the server, each uploader and the
readers behind them (issue 23: quotes of 1.2–4.9 MB failed with "status code 413" under a "5 MB" uploader)."""

from __future__ import annotations

import tomllib

import pytest
from conftest import ROOT, page_path
from streamlit.testing.v1 import AppTest

from neoplan.errors import ScenarioError
from neoplan.inputs.fields import MAX_FILE_BYTES
from neoplan.inputs.loading import parse_scenario
from neoplan.limits import MIB, QUOTE_FILE_BYTES, QUOTE_FILE_MB, SCENARIO_FILE_BYTES, SCENARIO_FILE_MB, UPLOAD_MB
from neoplan.quote import MAX_QUOTE_BYTES, QuoteError, read_quote


def test_the_server_accepts_the_largest_uploader_limit() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] == UPLOAD_MB == max(SCENARIO_FILE_MB, QUOTE_FILE_MB)


def test_the_readers_enforce_the_stated_limits_in_the_uploaders_unit() -> None:
    assert MAX_FILE_BYTES == SCENARIO_FILE_BYTES == SCENARIO_FILE_MB * MIB
    assert MAX_QUOTE_BYTES == QUOTE_FILE_BYTES == QUOTE_FILE_MB * MIB


def _uploader(path: str, label: str) -> object:
    at = AppTest.from_file(path, default_timeout=60)
    at.run()
    assert not at.exception
    return next(u for u in at.get("file_uploader") if u.proto.label == label)


@pytest.mark.parametrize(
    ("path", "label", "mb"),
    [
        (page_path("app"), "Load scenario file", SCENARIO_FILE_MB),
        (page_path("quote_review"), "Upload a quote", QUOTE_FILE_MB),
    ],
)
def test_each_uploader_enforces_and_states_its_readers_limit(path: str, label: str, mb: int) -> None:
    uploader = _uploader(path, label)
    assert uploader.proto.max_upload_size_mb == mb  # type: ignore[attr-defined]
    assert f"at most {mb} MB" in uploader.proto.help  # type: ignore[attr-defined]


def test_a_scenario_at_the_limit_reads_and_one_byte_more_is_refused() -> None:
    head = "base: optimized\ncluster: {gpus: 2048}\n#"
    at_limit = head + "x" * (SCENARIO_FILE_BYTES - len(head) - 1) + "\n"
    assert len(at_limit.encode()) == SCENARIO_FILE_BYTES
    assert parse_scenario(at_limit, "plan.yaml").cluster.gpus == 2048
    with pytest.raises(ScenarioError, match="larger than 1 MB"):
        parse_scenario(at_limit + "#", "plan.yaml")


def test_a_quote_over_the_limit_is_refused_naming_it() -> None:
    with pytest.raises(QuoteError, match="over the 5 MB limit"):
        read_quote(b"a" * (QUOTE_FILE_BYTES + 1), "big.csv")

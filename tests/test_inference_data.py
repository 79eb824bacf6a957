"""Token-serving evidence in ``data/`` (issue #26): workloads, measured throughput per GPU, API token prices, their
decline and all-in IT power per GPU. Every row carries a source, a date and a basis; the throughput rows also carry
the arithmetic that makes a per-GPU figure of a system result, and the latency limits they were measured under."""

from __future__ import annotations

import csv
import math
import re
from collections import Counter

import pytest

from neoplan.economics import inference
from neoplan.errors import DataError
from neoplan.inputs.pricebook import BASES, DATA_DIR, default_platforms

PLATFORMS = default_platforms()
DATE = re.compile(r"^(20\d\d)-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$")
NEWEST = "2026-12"  # the date of this evidence; nothing in it may come from later
SCENARIOS = {"offline", "server", "interactive"}
CONFIDENCE = {"high", "medium", "low"}

COLUMNS = {
    "workloads.csv": (
        "key", "name", "model_key", "model", "params_b", "active_params_b", "architecture", "precision",
        "input_tokens", "output_tokens", "shape_basis", "benchmark", "description", "date", "source", "basis",
    ),
    "inference_throughput.csv": (
        "platform", "workload", "scenario", "output_tokens_per_second_per_gpu", "total_tokens_per_second_per_gpu",
        "system_output_tokens_per_second", "gpus_in_system", "interactivity_tokens_per_second_per_user",
        "interactivity_basis", "ttft_p99_limit_ms", "tpot_p99_limit_ms", "tpot_p99_measured_ms", "serving_stack",
        "precision", "benchmark", "result_id", "submitter", "system", "date", "source", "basis", "confidence",
        "is_default", "notes",
    ),
    "token_prices.csv": (
        "model_key", "model", "provider", "released_precision", "precision", "usd_per_million_input_tokens",
        "usd_per_million_output_tokens", "interactivity_tokens_per_second_per_user", "date", "source", "basis", "notes",
    ),
    "token_price_trends.csv": (
        "key", "scope", "annual_price_factor", "annual_price_factor_low", "annual_price_factor_high", "period",
        "date", "source", "basis", "notes",
    ),
    "inference_derivations.csv": (
        "platform", "workload", "scenario", "from_scenario", "like_platform", "why", "date", "source", "basis",
    ),
    "it_power_per_gpu.csv": (
        "platform", "it_kw_per_gpu", "it_kw_per_gpu_low", "it_kw_per_gpu_high", "utility_kw_per_gpu_semianalysis",
        "derivation", "date", "source", "basis",
    ),
}  # fmt: skip


def _rows(name: str) -> list[dict[str, str]]:
    with (DATA_DIR / name).open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == COLUMNS[name], name
        return list(reader)


WORKLOADS = {r["key"]: r for r in _rows("workloads.csv")}
THROUGHPUT = _rows("inference_throughput.csv")
PRICES = _rows("token_prices.csv")
TRENDS = _rows("token_price_trends.csv")
POWER = {r["platform"]: r for r in _rows("it_power_per_gpu.csv")}
DERIVATIONS = _rows("inference_derivations.csv")
DEFAULTS = [r for r in THROUGHPUT if r["is_default"] == "true"]


def _num(text: str) -> float | None:
    return float(text) if text.strip() else None


def _default(platform: str, workload: str, scenario: str) -> float:
    (row,) = [r for r in DEFAULTS if (r["platform"], r["workload"], r["scenario"]) == (platform, workload, scenario)]
    return float(row["output_tokens_per_second_per_gpu"])


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_every_row_has_a_source_a_date_no_later_than_the_evidence_and_a_basis(name: str) -> None:
    rows = _rows(name)
    assert rows, name
    for line, row in enumerate(rows, start=2):
        where = f"{name} line {line}"
        assert all(v is not None for v in row.values()), f"{where}: ragged row"
        assert row["basis"] in BASES, where
        assert DATE.match(row["date"]) and row["date"][:7] <= NEWEST, f"{where}: date {row['date']!r}"
        assert len(row["source"].strip()) >= 20, f"{where}: blank or thin source"


def test_workloads_describe_a_model_its_size_and_a_request_shape() -> None:
    assert {"llama70b-chat", "deepseek-r1-reasoning", "llama8b-summarize", "gpt-oss-120b"} <= set(WORKLOADS)
    for key, w in WORKLOADS.items():
        total, active = float(w["params_b"]), float(w["active_params_b"])
        assert w["architecture"] in {"dense", "moe"}, key
        assert (active == total) if w["architecture"] == "dense" else (0 < active < total), key
        assert int(w["input_tokens"]) > 0 and int(w["output_tokens"]) > 0, key
        assert w["shape_basis"] in BASES and w["model_key"] and w["precision"] and w["description"], key
    assert WORKLOADS["deepseek-r1-reasoning"]["architecture"] == "moe"
    reasoning, small = WORKLOADS["deepseek-r1-reasoning"], WORKLOADS["llama8b-summarize"]
    assert int(reasoning["output_tokens"]) > 10 * int(small["output_tokens"])  # reasoning is decode-heavy


def test_throughput_rows_name_a_known_platform_workload_scenario_and_a_positive_rate() -> None:
    for line, r in enumerate(THROUGHPUT, start=2):
        where = f"inference_throughput.csv line {line}"
        assert r["platform"] in PLATFORMS, where
        assert r["workload"] in WORKLOADS, where
        assert r["scenario"] in SCENARIOS and r["confidence"] in CONFIDENCE, where
        assert r["is_default"] in {"true", "false"}, where
        assert float(r["output_tokens_per_second_per_gpu"]) > 0, where
        total = _num(r["total_tokens_per_second_per_gpu"])
        assert total is None or total > float(r["output_tokens_per_second_per_gpu"]), where
        assert r["serving_stack"] and r["precision"] and r["benchmark"] and r["notes"], where


def test_a_per_gpu_rate_is_the_system_rate_over_the_gpus_it_ran_on() -> None:
    checked = 0
    for line, r in enumerate(THROUGHPUT, start=2):
        system, gpus = _num(r["system_output_tokens_per_second"]), _num(r["gpus_in_system"])
        if system is None:
            continue
        assert gpus is not None and gpus >= 1 and gpus == int(gpus), f"line {line}"
        assert float(r["output_tokens_per_second_per_gpu"]) == pytest.approx(system / gpus, abs=0.051), f"line {line}"
        checked += 1
    assert checked >= 90  # every MLPerf row is a system result divided by its accelerator count


def test_mlperf_rows_quote_a_result_and_an_estimate_says_how_it_was_made() -> None:
    for line, r in enumerate(THROUGHPUT, start=2):
        if r["benchmark"].startswith("MLPerf") and "v6.1" not in r["benchmark"]:
            assert re.fullmatch(r"\d\.\d-\d{4}", r["result_id"]), f"line {line}: MLPerf row without a result id"
            assert r["result_id"] in r["source"] and r["basis"] == "quoted", f"line {line}"
        if r["basis"] == "estimate":
            assert r["confidence"] == "low" and "=" in r["notes"], f"line {line}: an estimate shows its arithmetic"


def test_latency_bound_rows_met_their_limits_and_interactivity_is_the_inverse_of_tpot() -> None:
    for line, r in enumerate(THROUGHPUT, start=2):
        limit, measured = _num(r["tpot_p99_limit_ms"]), _num(r["tpot_p99_measured_ms"])
        if r["scenario"] == "offline":
            assert limit is None and measured is None and not r["interactivity_tokens_per_second_per_user"], line
            continue
        if r["benchmark"].startswith("MLPerf"):
            assert limit is not None and _num(r["ttft_p99_limit_ms"]), f"line {line}: no latency limit"
        if measured is not None:
            assert limit is not None and measured <= limit, f"line {line}: p99 TPOT over the limit"
            assert r["interactivity_basis"] == "p99_tpot_measured"
            assert float(r["interactivity_tokens_per_second_per_user"]) == pytest.approx(1000 / measured, abs=0.1)
    for workload in {r["workload"] for r in THROUGHPUT}:
        limits = {r["scenario"]: float(r["tpot_p99_limit_ms"]) for r in THROUGHPUT
                  if r["workload"] == workload and r["tpot_p99_limit_ms"]}  # fmt: skip
        if {"server", "interactive"} <= set(limits):
            assert limits["interactive"] < limits["server"], workload


def test_one_default_row_per_platform_workload_and_scenario() -> None:
    counts = Counter((r["platform"], r["workload"], r["scenario"]) for r in DEFAULTS)
    assert set(counts.values()) == {1}
    assert set(counts) == {(r["platform"], r["workload"], r["scenario"]) for r in THROUGHPUT}


def test_hopper_and_blackwell_each_have_defaults_on_at_least_two_workloads() -> None:
    for platform in ("h100-sxm", "h200-sxm", "b200-sxm", "gb200-nvl72", "b300-sxm", "gb300-nvl72"):
        assert len({r["workload"] for r in DEFAULTS if r["platform"] == platform}) >= 2, platform


@pytest.mark.parametrize("workload", ["llama70b-chat", "llama405b-long", "llama8b-summarize"])
@pytest.mark.parametrize("scenario", ["offline", "server"])
def test_b200_serves_more_tokens_per_gpu_than_h100_on_the_same_workload(workload: str, scenario: str) -> None:
    ratio = _default("b200-sxm", workload, scenario) / _default("h100-sxm", workload, scenario)
    assert 2.5 < ratio < 5.0  # MLPerf v5.1/v6.0 show 3.1-4.4x (FP4 on Blackwell vs FP8 on Hopper)


def test_same_round_b200_over_h100_on_llama_70b_is_about_3_2x() -> None:
    def v51(platform: str, scenario: str) -> float:
        (row,) = [
            r for r in THROUGHPUT
            if (r["platform"], r["workload"], r["scenario"]) == (platform, "llama70b-chat", scenario)
            and r["result_id"].startswith("5.1-")
        ]  # fmt: skip
        return float(row["output_tokens_per_second_per_gpu"])

    for scenario in ("offline", "server"):
        assert v51("b200-sxm", scenario) / v51("h100-sxm", scenario) == pytest.approx(3.25, abs=0.05)


def test_token_prices_are_per_known_model_positive_and_output_costs_at_least_input() -> None:
    models = {w["model_key"] for w in WORKLOADS.values()}
    for line, p in enumerate(PRICES, start=2):
        assert p["model_key"] in models, f"token_prices.csv line {line}"
        usd_in, usd_out = float(p["usd_per_million_input_tokens"]), float(p["usd_per_million_output_tokens"])
        assert 0 < usd_in <= usd_out < 100, f"token_prices.csv line {line}"
    assert {p["model_key"] for p in PRICES} >= {"llama-70b", "deepseek-r1", "llama-8b", "gpt-oss-120b"}


def test_price_trends_are_yearly_factors_below_one_with_ordered_ranges() -> None:
    for t in TRENDS:
        central = float(t["annual_price_factor"])
        low, high = _num(t["annual_price_factor_low"]), _num(t["annual_price_factor_high"])
        assert 0 < central <= 1, t["key"]
        assert (low or central) <= central <= (high or central), t["key"]


def test_it_power_per_gpu_covers_every_platform_and_exceeds_the_node_share() -> None:
    assert set(POWER) == set(PLATFORMS)
    for key, row in POWER.items():
        kw, low, high = float(row["it_kw_per_gpu"]), float(row["it_kw_per_gpu_low"]), float(row["it_kw_per_gpu_high"])
        platform = PLATFORMS[key]
        node_share_kw = platform.node_max_power_kw / platform.gpus_per_node
        assert low <= kw <= high, key
        assert kw >= node_share_kw >= platform.gpu_power_w / 1000, key  # all-in IT includes the node, then more
        assert kw < float(row["utility_kw_per_gpu_semianalysis"]), key  # utility power adds facility overhead
    assert math.isclose(float(POWER["h100-sxm"]["it_kw_per_gpu"]), 1.4, rel_tol=0.05)


def test_a_derivation_fills_a_missing_combination_from_three_published_defaults() -> None:
    """data/inference_derivations.csv: own rate of another scenario × a sibling platform's ratio of the two."""
    published = {(r["platform"], r["workload"], r["scenario"]) for r in DEFAULTS}
    rows = inference.default_throughput()
    assert DERIVATIONS
    for d in DERIVATIONS:
        key = (d["platform"], d["workload"], d["scenario"])
        assert key not in published and d["basis"] == "estimate" and len(d["why"]) >= 40, key
        assert d["like_platform"] != d["platform"] and d["from_scenario"] != d["scenario"], key
        own = _default(d["platform"], d["workload"], d["from_scenario"])
        like = _default(d["like_platform"], d["workload"], d["scenario"])
        base = _default(d["like_platform"], d["workload"], d["from_scenario"])
        row = rows[key]
        assert row.output_tokens_per_second_per_gpu == pytest.approx(own * like / base, rel=1e-12), key
        assert row.basis == "estimate" and row.confidence == "low" and "=" in (row.notes or ""), key
        assert f"{own * like / base:,.1f}" in (row.notes or "") and d["source"] == row.source, key
        assert PLATFORMS[d["platform"]].gpus_per_node == PLATFORMS[d["like_platform"]].gpus_per_node, key


def test_every_platform_has_llama_70b_at_the_latency_the_list_prices_are_sold_at() -> None:
    rows = inference.default_throughput()
    for platform in ("h100-sxm", "h200-sxm", "b200-sxm", "b300-sxm", "gb200-nvl72", "gb300-nvl72"):
        assert (platform, "llama70b-chat", "interactive") in rows, platform


def _with_derivations(tmp_path, monkeypatch, text: str) -> None:
    path = tmp_path / "inference_derivations.csv"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(inference, "DERIVATIONS_FILE", path)
    inference.default_throughput.cache_clear()


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("b200-sxm,llama70b-chat,interactive,server,b300-sxm", "row 3, column 'scenario': b200-sxm llama70b-chat "
         "interactive is published already"),
        ("h100-sxm,gpt-oss-120b,interactive,server,h200-sxm", "row 3: no published h100-sxm gpt-oss-120b server"),
        ("h100-sxm,llama70b-chat,interactive,interactive,h200-sxm", "row 3, column 'from_scenario'"),
        ("h100-sxm,llama70b-chat,interactive,server,h100-sxm", "row 3, column 'like_platform'"),
    ],
)  # fmt: skip
def test_a_broken_derivation_names_the_file_the_row_and_the_problem(tmp_path, monkeypatch, row, problem) -> None:
    header = (DATA_DIR / "inference_derivations.csv").read_text(encoding="utf-8").splitlines()
    tail = ',"a sibling ratio stands in for the missing one",2026-12,"a test of the loader, not data",estimate'
    try:
        _with_derivations(tmp_path, monkeypatch, "\n".join([header[0], header[1], row + tail, ""]))
        with pytest.raises(DataError, match=re.escape(f"inference_derivations.csv {problem}")):
            inference.default_throughput()
    finally:
        monkeypatch.undo()
        inference.default_throughput.cache_clear()

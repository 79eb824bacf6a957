"""Selling tokens (:mod:`neoplan.inference`): published throughput, token prices, the same contract book."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from conftest import ROOT

import neoplan
from neoplan import inference
from neoplan.scenario import ScenarioError

ROWS = [r for r in csv.DictReader((ROOT / "data" / "inference_throughput.csv").open(encoding="utf-8"))]
DEFAULT = {
    (r["platform"], r["workload"], r["scenario"]): float(r["output_tokens_per_second_per_gpu"])
    for r in ROWS
    if r["is_default"] == "true"
}


def plan(base: str = "optimized", **pricing: object) -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario({"base": base, "pricing": pricing}))


@pytest.mark.parametrize(
    ("base", "pricing"),
    [
        ("optimized", {}),
        ("b200_1024", {"sell": "tokens"}),
        ("gb200_nvl72_18rack", {"sell": "mix", "workload": "gpt-oss-120b"}),
        ("h200_1024", {"workload": "llama405b-long", "serving_scenario": "offline"}),
    ],
)
def test_cost_per_million_tokens_times_tokens_per_gpu_hour_is_tco_per_gpu_hour(base: str, pricing: dict) -> None:
    d = plan(base, **pricing).to_dict()
    tokens_per_gpu_hour = d["tokens_per_second_per_gpu"] * 3600.0
    assert d["cost_usd_per_million_tokens"] * tokens_per_gpu_hour / 1e6 == pytest.approx(
        d["tco_usd_per_gpu_hour"], rel=1e-9
    )


@pytest.mark.parametrize("workload", ["llama70b-chat", "llama405b-long", "llama8b-summarize"])
def test_b200_serves_more_tokens_per_gpu_than_h100_by_the_ratio_of_its_sources(workload: str) -> None:
    h100 = plan("optimized", workload=workload).to_dict()["tokens_per_second_per_gpu"]
    b200 = plan("b200_1024", workload=workload).to_dict()["tokens_per_second_per_gpu"]
    published = DEFAULT[("b200-sxm", workload, "server")] / DEFAULT[("h100-sxm", workload, "server")]
    assert b200 / h100 == pytest.approx(published, rel=1e-12)
    assert b200 / h100 > 3.0  # docs/sources/inference_2026-12.md: 3.25× (70B), 4.42× (405B), 3.15× (8B) in v5.1


def test_llama_70b_server_ratio_is_the_memos() -> None:
    ratio = (
        plan("b200_1024").token_figures["tokens_per_second_per_gpu"] / plan().token_figures["tokens_per_second_per_gpu"]
    )
    assert ratio == pytest.approx(12412.7 / 3818.8, rel=1e-12) == pytest.approx(3.25, abs=0.01)


def test_selling_tokens_with_no_published_rate_is_refused_naming_the_field_and_the_alternatives() -> None:
    with pytest.raises(ScenarioError) as caught:
        plan(sell="tokens", workload="deepseek-r1-reasoning")
    msg = str(caught.value)
    assert msg.startswith("pricing.workload: h100-sxm has no published server throughput for deepseek-r1-reasoning")
    assert "llama70b-chat" in msg and "\n" not in msg


def test_renting_gpu_hours_leaves_the_token_figures_null_where_nothing_is_published() -> None:
    d = plan(workload="deepseek-r1-reasoning").to_dict()
    assert d["tokens_per_second_per_gpu"] is None and d["breakeven_usd_per_million_tokens"] is None
    assert d["npv_usd"] == pytest.approx(plan().to_dict()["npv_usd"], rel=1e-12)  # renting is unchanged


def test_tokens_priced_at_the_gpu_hour_price_earn_exactly_the_rental_revenue() -> None:
    """One contract book: tokens whose GPU-hour equivalent and decline equal the rental's earn the same."""
    rent = plan()
    p = rent.scenario.pricing
    per_gpu_hour = rent.token_figures["tokens_per_second_per_gpu"] * 3600.0 / 1e6  # million tokens
    tokens = plan(
        sell="tokens",
        usd_per_million_tokens={"input": 0.0, "output": p.usd_per_gpu_hour / per_gpu_hour},
        token_price_decline_per_year=p.price_decline_per_year,
    )
    np.testing.assert_allclose(tokens.ops.revenue.revenue_usd, rent.ops.revenue.revenue_usd, rtol=1e-12, atol=1e-6)
    assert tokens.kpis["npv_usd"] == pytest.approx(rent.kpis["npv_usd"], rel=1e-9)


def test_a_mix_is_the_share_weighted_sum_of_the_two_books() -> None:
    rent, serve = plan(), plan(sell="tokens")
    mix = plan(sell="mix", token_share=0.3)
    expected = 0.7 * rent.ops.revenue.revenue_usd + 0.3 * serve.ops.revenue.revenue_usd
    np.testing.assert_allclose(mix.ops.revenue.revenue_usd, expected, rtol=1e-12, atol=1e-6)


def test_at_the_token_break_even_price_npv_is_zero() -> None:
    serve = plan("b200_1024", sell="tokens")
    breakeven = serve.token_figures["breakeven_usd_per_million_tokens"]
    assert breakeven is not None and 0 < breakeven < serve.tokens.usd_per_million_tokens  # type: ignore[union-attr]
    at = plan("b200_1024", sell="tokens", usd_per_million_tokens={"input": 0.0, "output": breakeven})
    # as for the GPU-hour break-even (tests/test_model.py): the early-life credits the solver leaves out
    assert at.kpis["npv_usd"] == pytest.approx(0.0, abs=1_000.0)


def test_npv_rises_with_the_token_price() -> None:
    npvs = [
        plan(sell="tokens", usd_per_million_tokens={"input": 0.0, "output": price}).kpis["npv_usd"]
        for price in (0.1, 0.3, 0.6)
    ]
    assert npvs == sorted(npvs) and npvs[0] < 0 < npvs[-1]


def test_default_prices_and_declines_come_from_data_with_their_source() -> None:
    llama = inference.terms(neoplan.load_scenario("optimized"))
    assert (llama.usd_per_million_input, llama.usd_per_million_output) == (0.23, 0.40)  # median of 2026-06 rows
    assert llama.usd_per_million_tokens == pytest.approx(0.40 + 0.23 * 1024 / 294, rel=1e-12)
    assert llama.decline_per_year == pytest.approx(0.45) and "same-model-llama-70b" in llama.decline_source
    assert "data/token_prices.csv" in llama.price_source
    r1 = inference.reference_trend("deepseek-r1")
    assert r1.decline_per_year == pytest.approx(0.04)
    oss = inference.reference_trend("gpt-oss-120b")
    assert "no same-model trend for gpt-oss-120b" in oss.source


def test_interactivity_is_stated_and_a_slow_rate_sold_at_chat_prices_is_warned() -> None:
    server = plan(sell="tokens").to_dict()
    assert server["serving"]["interactivity_tokens_per_second_per_user"] < 20
    assert any(w.startswith("pricing.serving_scenario: h100-sxm serves llama70b-chat") for w in server["warnings"])
    fast = neoplan.evaluate(
        neoplan.load_scenario({"base": "h200_1024", "pricing": {"sell": "tokens", "serving_scenario": "interactive"}})
    ).to_dict()
    assert fast["serving"]["interactivity_tokens_per_second_per_user"] >= 20
    assert not any(w.startswith("pricing.serving_scenario") for w in fast["warnings"])


def test_returns_by_sale_are_the_two_ways_of_selling_the_same_cluster() -> None:
    rent = plan("b200_1024")
    ways = rent.returns_by_sale()
    serve = plan("b200_1024", sell="tokens")
    assert ways["gpu_hours"]["npv_usd"] == pytest.approx(rent.kpis["npv_usd"], rel=1e-9)
    assert ways["tokens"]["npv_usd"] == pytest.approx(serve.kpis["npv_usd"], rel=1e-9)
    assert ways["tokens"]["project_irr"] == pytest.approx(serve.kpis["project_irr"], rel=1e-9)


def test_an_unknown_workload_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ScenarioError, match=r"pricing\.workload must be one of llama70b-chat, .*got 'gpt-5'"):
        neoplan.load_scenario({"base": "optimized", "pricing": {"workload": "gpt-5"}})

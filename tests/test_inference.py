"""Selling tokens (:mod:`neoplan.economics.inference`): published throughput, the share of it achieved, the latency the
list prices are sold at, token prices, the same contract book."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from conftest import ROOT

import neoplan
from neoplan.economics import inference
from neoplan.errors import ScenarioError
from neoplan.inputs.pricebook import assumed

ROWS = [r for r in csv.DictReader((ROOT / "data" / "inference_throughput.csv").open(encoding="utf-8"))]
DEFAULT = {
    (r["platform"], r["workload"], r["scenario"]): float(r["output_tokens_per_second_per_gpu"])
    for r in ROWS
    if r["is_default"] == "true"
}


LOAD = assumed("pricing.serving_load_factor")


def plan(base: str = "optimized", **pricing: object) -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario({"base": base, "pricing": pricing}))


def uncapped(base: str = "optimized", **pricing: object) -> neoplan.Result:
    """:func:`plan` with buyers for every token served (no demand cap): the token book's own mechanics."""
    return plan(base, **{"token_demand_share": None, **pricing})


@pytest.mark.parametrize(
    ("base", "pricing"),
    [
        ("optimized", {}),
        ("optimized", {"sell": "tokens", "serving_load_factor": 0.3}),
        ("b200_1024", {"sell": "tokens"}),
        ("b200_1024", {"sell": "tokens", "serving_scenario": "server"}),
        ("gb200_nvl72_18rack", {"sell": "mix", "workload": "gpt-oss-120b"}),
        ("h200_1024", {"workload": "llama405b-long", "serving_scenario": "offline"}),
    ],
)
def test_cost_per_million_tokens_times_tokens_per_gpu_hour_is_tco_per_gpu_hour(base: str, pricing: dict) -> None:
    """Tokens per GPU-hour here is the achieved rate: published × serving load factor."""
    d = plan(base, **pricing).to_dict()
    tokens_per_gpu_hour = d["tokens_per_second_per_gpu"] * 3600.0
    s = d["serving"]
    assert d["tokens_per_second_per_gpu"] == pytest.approx(
        s["published_tokens_per_second_per_gpu"] * s["serving_load_factor"], rel=1e-12
    )
    assert d["cost_usd_per_million_tokens"] * tokens_per_gpu_hour / 1e6 == pytest.approx(
        d["tco_usd_per_gpu_hour"], rel=1e-9
    )


def test_the_rate_sold_is_the_published_interactive_rate_times_the_load_factor() -> None:
    """Reference values: B200 Llama 70B interactive is MLPerf v6.0 6.0-0048; the H100 has none, so it is its server
    rate × the H200's interactive ÷ server ratio (data/inference_derivations.csv)."""
    b200, h100 = plan("b200_1024").to_dict(), plan().to_dict()
    assert LOAD == 0.5
    assert b200["tokens_per_second_per_gpu"] == pytest.approx(7705.6 * 0.5, rel=1e-12)
    assert h100["tokens_per_second_per_gpu"] == pytest.approx(3818.8 * 2554.0 / 4152.4 * 0.5, rel=1e-12)
    assert h100["serving"]["serving_scenario"] == "interactive" and h100["serving"]["throughput_basis"] == "estimate"
    assert (
        h100["serving"]["confidence"] == "low"
        and "5.1-0015 × 5.1-0049 ÷ 5.1-0013" in h100["serving"]["throughput_source"]
    )
    assert b200["serving"]["published_tokens_per_second_per_gpu"] == 7705.6


@pytest.mark.parametrize("workload", ["llama70b-chat", "llama405b-long", "llama8b-summarize"])
def test_b200_serves_more_tokens_per_gpu_than_h100_by_the_ratio_of_its_server_sources(workload: str) -> None:
    """Measured on the published MLPerf server rows of both (the load factor is the same on both and cancels)."""
    h100 = plan("optimized", workload=workload, serving_scenario="server").to_dict()["tokens_per_second_per_gpu"]
    b200 = plan("b200_1024", workload=workload, serving_scenario="server").to_dict()["tokens_per_second_per_gpu"]
    published = DEFAULT[("b200-sxm", workload, "server")] / DEFAULT[("h100-sxm", workload, "server")]
    assert b200 / h100 == pytest.approx(published, rel=1e-12)
    assert b200 / h100 > 3.0  # docs/sources/inference_2026-12.md: 3.25× (70B), 4.42× (405B), 3.15× (8B) in v5.1


def test_llama_70b_ratios_are_the_memos_on_server_and_on_the_default_interactive() -> None:
    server = (
        plan("b200_1024", serving_scenario="server").token_figures["tokens_per_second_per_gpu"]
        / plan(serving_scenario="server").token_figures["tokens_per_second_per_gpu"]
    )
    assert server == pytest.approx(12412.7 / 3818.8, rel=1e-12) == pytest.approx(3.25, abs=0.01)
    interactive = (
        plan("b200_1024").token_figures["tokens_per_second_per_gpu"] / plan().token_figures["tokens_per_second_per_gpu"]
    )  # B200 interactive ÷ (H100 server × H200 interactive ÷ server)
    assert interactive == pytest.approx(7705.6 / (3818.8 * 2554.0 / 4152.4), rel=1e-12) == pytest.approx(3.28, abs=0.01)


def test_selling_tokens_with_no_published_rate_is_refused_naming_the_field_and_the_alternatives() -> None:
    with pytest.raises(ScenarioError) as caught:
        plan(sell="tokens", workload="deepseek-r1-reasoning")
    msg = str(caught.value)
    assert msg.startswith(
        "pricing.workload: h100-sxm has no published interactive throughput for deepseek-r1-reasoning"
    )
    assert "llama70b-chat" in msg and "\n" not in msg


def test_a_latency_with_nothing_to_derive_it_from_is_refused_naming_the_serving_scenario() -> None:
    """The H200 has gpt-oss-120b server and offline rows, no interactive one and no Hopper sibling to derive it."""
    with pytest.raises(ScenarioError) as caught:
        plan("h200_1024", sell="tokens", workload="gpt-oss-120b")
    msg = str(caught.value)
    assert msg.startswith("pricing.serving_scenario: h200-sxm has no published interactive throughput for gpt-oss")
    assert msg.endswith("it has offline, server") and "\n" not in msg
    assert plan("h200_1024", sell="tokens", workload="gpt-oss-120b", serving_scenario="server").kpis["npv_usd"]


@pytest.mark.parametrize("value", [0, -0.1, 1.01])
def test_a_load_factor_outside_0_to_1_is_refused_naming_the_field(value: float) -> None:
    with pytest.raises(ScenarioError, match=r"^pricing\.serving_load_factor must be > 0 and ≤ 1, got "):
        neoplan.load_scenario({"base": "optimized", "pricing": {"serving_load_factor": value}})


def test_irr_and_npv_fall_as_the_load_factor_falls_and_renting_ignores_it() -> None:
    serving = [uncapped("b200_1024", sell="tokens", serving_load_factor=f).kpis for f in (0.9, 0.7, 0.5, 0.3)]
    irrs, npvs = [k["project_irr"] for k in serving], [k["npv_usd"] for k in serving]
    assert irrs == sorted(irrs, reverse=True) and len(set(irrs)) == 4
    assert npvs == sorted(npvs, reverse=True) and len(set(npvs)) == 4
    rent = [plan("b200_1024", serving_load_factor=f).kpis["npv_usd"] for f in (0.9, 0.3)]
    assert rent[0] == pytest.approx(rent[1], rel=1e-12)


def test_token_revenue_is_proportional_to_the_load_factor() -> None:
    off = {"sell": "tokens", "spot_share_of_idle": 0.0}  # idle hours at spot are GPU-hours: not proportional
    half, full = uncapped(**off, serving_load_factor=0.25), uncapped(**off, serving_load_factor=0.5)
    np.testing.assert_allclose(half.ops.revenue.revenue_usd, 0.5 * full.ops.revenue.revenue_usd, rtol=1e-12)
    assert half.tokens.usd_per_gpu_hour == pytest.approx(0.5 * full.tokens.usd_per_gpu_hour, rel=1e-12)  # type: ignore[union-attr]


def test_the_load_factor_default_is_deepseeks_production_over_profile_times_its_daily_cycle() -> None:
    """data/assumptions.csv: DeepSeek's day of serving (2025-03-01) against its full-load profile (tabled by the
    SGLang team, 2025-05-05), and its average hour over its busiest (about $31,100, read off its chart)."""
    per_output = 608 * (1 - 0.563) / 168  # cache-miss input tokens per output token that day

    def output_per_node(prefill: float, decode: float) -> float:  # prefill and decode nodes in proportion
        prefill_share = per_output * decode / (prefill + per_output * decode)
        return (1 - prefill_share) * decode

    production = output_per_node(32_206, 14_800) / output_per_node(62_713, 18_598)
    daily = 562_027 / 24 / 31_100
    assert production == pytest.approx(0.677, abs=0.001) and daily == pytest.approx(0.753, abs=0.001)
    assert production * daily == pytest.approx(LOAD, abs=0.02)


def test_renting_gpu_hours_leaves_the_token_figures_null_where_nothing_is_published() -> None:
    d = plan(workload="deepseek-r1-reasoning").to_dict()
    assert d["tokens_per_second_per_gpu"] is None and d["breakeven_usd_per_million_tokens"] is None
    assert d["npv_usd"] == pytest.approx(plan().to_dict()["npv_usd"], rel=1e-12)  # renting is unchanged


def test_tokens_priced_at_the_gpu_hour_price_earn_exactly_the_rental_revenue() -> None:
    """One contract book: tokens whose GPU-hour equivalent and decline equal the rental's earn the same (a flat
    rental decline: token prices decline flat, GPU-hours by default along the generation's curve)."""
    rent = plan(price_decline_per_year=0.13)
    p = rent.scenario.pricing
    per_gpu_hour = rent.token_figures["tokens_per_second_per_gpu"] * 3600.0 / 1e6  # million tokens
    tokens = uncapped(
        sell="tokens",
        usd_per_million_tokens={"input": 0.0, "output": p.usd_per_gpu_hour / per_gpu_hour},
        token_price_decline_per_year=p.price_decline_per_year,
        price_decline_per_year=p.price_decline_per_year,  # the idle hours sell at spot along the GPU-hour path
    )
    np.testing.assert_allclose(tokens.ops.revenue.revenue_usd, rent.ops.revenue.revenue_usd, rtol=1e-12, atol=1e-6)
    assert tokens.kpis["npv_usd"] == pytest.approx(rent.kpis["npv_usd"], rel=1e-9)


def test_a_mix_is_the_share_weighted_sum_of_the_two_books() -> None:
    rent, serve = uncapped(), uncapped(sell="tokens")
    mix = uncapped(sell="mix", token_share=0.3)
    expected = 0.7 * rent.ops.revenue.revenue_usd + 0.3 * serve.ops.revenue.revenue_usd
    np.testing.assert_allclose(mix.ops.revenue.revenue_usd, expected, rtol=1e-12, atol=1e-6)


@pytest.mark.parametrize(
    ("make", "base", "pricing"),
    [
        (uncapped, "b200_1024", {}),
        (plan, "optimized", {}),  # the demand cap binds: few tokens sell, the rest of the hours at spot
        (plan, "gb200_nvl72_18rack", {"workload": "deepseek-r1-reasoning"}),
    ],
)
def test_at_the_token_break_even_price_npv_is_zero(make, base: str, pricing: dict) -> None:
    serve = make(base, sell="tokens", **pricing)
    breakeven = serve.token_figures["breakeven_usd_per_million_tokens"]
    assert breakeven is not None and breakeven > 0
    at = make(base, sell="tokens", **pricing, usd_per_million_tokens={"input": 0.0, "output": breakeven})
    assert at.kpis["npv_usd"] == pytest.approx(0.0, abs=1_000.0)


def test_npv_rises_with_the_token_price() -> None:
    npvs = [
        uncapped(sell="tokens", usd_per_million_tokens={"input": 0.0, "output": price}).kpis["npv_usd"]
        for price in (0.3, 1.0, 2.0)  # the H100 break-even: $1.37 per million output tokens
    ]
    assert npvs == sorted(npvs) and npvs[0] < 0 < npvs[-1]


def test_default_prices_and_declines_come_from_data_with_their_source() -> None:
    llama = inference.terms(neoplan.load_scenario("optimized"))
    # H100's Llama 70B rate is measured at FP8, but only one host states a precision below bf16: the median of the
    # 13 hosts of 2026-02 to 2026-08 (input $0.10 … $0.90, output $0.28 … $1.20)
    assert (llama.usd_per_million_input, llama.usd_per_million_output) == (0.40, 0.60)
    assert llama.usd_per_million_tokens == pytest.approx(0.60 + 0.40 * 1024 / 294, rel=1e-12)
    assert "median of 13 (fewer than 3 hosts state a precision below bf16: every tier)" in llama.price_source
    assert llama.decline_per_year == pytest.approx(0.45) and "same-model-llama-70b" in llama.decline_source
    assert "data/token_prices.csv" in llama.price_source
    r1 = inference.reference_trend("deepseek-r1")  # the family's, with DeepSeek's 2025-09 cut: R1 → V3.2
    assert r1.decline_per_year == pytest.approx(0.59) and r1.key == "family-deepseek-r1"
    assert (r1.low_decline_per_year, r1.high_decline_per_year) == pytest.approx((0.04, 0.81))
    assert inference.reference_trend("gpt-oss-120b").key == "same-model-gpt-oss-120b"
    assert "no trend for llama-405b" in inference.reference_trend("llama-405b").source


def test_interactivity_is_stated_and_a_slow_rate_sold_at_chat_prices_is_warned() -> None:
    server = plan(sell="tokens", serving_scenario="server").to_dict()
    assert server["serving"]["interactivity_tokens_per_second_per_user"] < 20
    assert any(w.startswith("pricing.serving_scenario: h100-sxm serves llama70b-chat") for w in server["warnings"])
    for base in ("optimized", "h200_1024"):  # the default: interactive, derived on the H100, published on the H200
        fast = plan(base, sell="tokens").to_dict()
        assert fast["serving"]["interactivity_tokens_per_second_per_user"] >= inference.CHAT_TOKENS_PER_SECOND_PER_USER
        assert not any(w.startswith("pricing.serving_scenario") for w in fast["warnings"])


def test_llama_70b_is_served_at_chat_speed_by_default_on_every_platform() -> None:
    """The default latency is the one the list prices are sold at: every platform has a Llama 70B interactive row
    (published or derived) at ≥ 20 tokens/s per user at p99."""
    assert neoplan.load_scenario("optimized").pricing.serving_scenario == "interactive"
    rows = inference.default_throughput()
    platforms = {p for p, w, _ in rows if w == "llama70b-chat"}
    assert platforms >= {"h100-sxm", "h200-sxm", "b200-sxm", "b300-sxm", "gb200-nvl72", "gb300-nvl72"}
    for platform in platforms:
        row = rows[(platform, "llama70b-chat", "interactive")]
        assert row.interactivity_tokens_per_second_per_user >= inference.CHAT_TOKENS_PER_SECOND_PER_USER, platform


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


def test_the_demand_cap_binds_sells_its_share_of_the_market_and_warns() -> None:
    """1,024 B200 serving Llama 70B would sell 7,705.6 × 0.5 tokens/s per GPU (interactive, load factor) × 86,400 s ×
    90 % used × 1,024 GPUs = 306.8 billion output tokens a day; 5 % of the Llama market (24 billion a day,
    data/token_demand.csv) buys 1.2 billion: 0.391 % of the token GPU-hours find buyers, the rest are idle."""
    serve = plan("b200_1024", sell="tokens")
    d = serve.to_dict()["serving"]
    planned = 7705.6 * 0.5 * 3600 * 24 * 0.9 * 1024
    assert d["output_tokens_per_day"] == pytest.approx(planned, rel=1e-12)
    assert d["demand_output_tokens_per_day"] == pytest.approx(0.05 * 24e9, rel=1e-12)
    assert serve.token_demand_scale == pytest.approx(1.2e9 / planned, rel=1e-12)
    # what the book sells a day, averaged over its months in service, never exceeds the cap (the on-demand ramp and
    # the go-live month keep it a little under)
    assert 0.97 * 1.2e9 < d["sold_output_tokens_per_day"] <= 1.2e9 * (1 + 1e-12)
    (warning,) = [w for w in serve.warnings if w.startswith("pricing.token_demand_share")]
    assert "306.8 billion" in warning and "1.2 billion" in warning and "0.391 %" in warning
    assert "\n" not in warning
    free = uncapped("b200_1024", sell="tokens")
    assert free.token_demand_scale == 1.0 and free.kpis["npv_usd"] > serve.kpis["npv_usd"]
    assert not any(w.startswith("pricing.token_demand_share") for w in free.warnings)
    rent = plan("b200_1024")  # renting GPU-hours: no token demand to cap
    assert rent.token_demand_scale == 1.0 and not any("token_demand_share" in w for w in rent.warnings)
    # the capped hours are idle: half sell at spot (pricing.spot_share_of_idle), so idle spot hours rise
    assert serve.ops.revenue.spot_gpu_hours.sum() > free.ops.revenue.spot_gpu_hours.sum()


def test_a_quantized_rate_sells_at_the_quantized_tier_when_three_hosts_state_one(monkeypatch) -> None:
    rows = inference._list_prices()
    llama = [r for r in rows if r.model_key == "llama-70b"]
    every_tier = inference.reference_price("llama-70b")
    fewer = inference.reference_price("llama-70b", "fp4")  # one host states fp8: every tier, and it says so
    assert (fewer.usd_per_million_input, fewer.usd_per_million_output) == (
        every_tier.usd_per_million_input,
        every_tier.usd_per_million_output,
    )
    assert "fewer than 3 hosts state a precision below bf16" in fewer.source
    assert inference.reference_price("llama-70b", "bf16") == every_tier  # a bf16 rate: every tier
    turbo = next(r for r in llama if r.precision == "fp8")
    extra = tuple(
        turbo.model_copy(update={"provider": f"host {k}", "usd_per_million_input_tokens": p, "date": "2026-08"})
        for k, p in ((1, 0.05), (2, 0.07))
    )
    monkeypatch.setattr(inference, "_list_prices", lambda: rows + extra)
    inference.reference_price.cache_clear()
    try:
        tier = inference.reference_price("llama-70b", "fp8")
        assert tier.usd_per_million_input == 0.07 and tier.usd_per_million_output == 0.28  # the three fp8 hosts
        assert "quantized-tier" in tier.source and len(tier.hosts) == 3
    finally:
        inference.reference_price.cache_clear()


def test_list_prices_are_the_hosts_of_the_last_six_months() -> None:
    r1 = inference.reference_price("deepseek-r1")
    assert r1.date == "2026-08" and "2026-02 to 2026-08" in r1.source
    assert (0.55, 2.19) not in r1.hosts  # DeepSeek's launch price of 2025-02: too old
    assert (0.28, 0.42) in r1.hosts  # DeepSeek's own price for its current model, V3.2
    assert len(r1.hosts) == 11 and (r1.usd_per_million_input, r1.usd_per_million_output) == (1.0, 3.0)


def test_the_pricing_page_default_is_the_price_the_model_uses() -> None:
    s = neoplan.load_scenario({"base": "b200_1024", "pricing": {"sell": "tokens"}})
    terms = inference.terms(s)
    shown = inference.list_price(s)
    assert (shown.usd_per_million_input, shown.usd_per_million_output) == (
        terms.usd_per_million_input,
        terms.usd_per_million_output,
    )

"""AppTest of the Pricing page's token side: what is sold, the share of the benchmark rate served, the latency, and
the same cluster rented or serving tokens, with what the token revenue assumes."""

from __future__ import annotations

from typing import Any

from conftest import metric, page_path, run_page
from streamlit.testing.v1 import AppTest
from test_user_text import shown  # Markdown as it reads on screen

import neoplan
from neoplan import metrics
from neoplan.inputs.pricebook import CONTRACT_LABELS
from ui import format as fmt
from ui.state import SCENARIO

PAGE = page_path("pricing")


def _ways(at: AppTest) -> Any:
    """The page's side-by-side table: rows by figure, columns Rent GPU-hours and Serve tokens."""
    return at.table[0].value


def test_rent_and_serve_side_by_side_equal_the_model(optimized: neoplan.Result) -> None:
    at = run_page(PAGE)
    ways = optimized.returns_by_sale()
    table = _ways(at)
    assert (
        table.loc["NPV", "Rent GPU-hours"]
        == fmt.usd(ways["gpu_hours"]["npv_usd"])
        == fmt.usd(optimized.kpis["npv_usd"])
    )
    assert table.loc["NPV", "Serve tokens"] == fmt.usd(ways["tokens"]["npv_usd"])
    assert table.loc["Project IRR", "Serve tokens"] == fmt.pct(ways["tokens"]["project_irr"])
    d = optimized.to_dict()
    assert table.loc["Break-even at go-live", "Serve tokens"] == f"${d['breakeven_usd_per_million_tokens']:,.3f} /M tok"
    assert table.loc["Break-even at go-live", "Rent GPU-hours"] == fmt.usd_per_gpu_hour(d["breakeven_usd_per_gpu_hour"])
    achieved = metrics.text("tokens_per_second_per_gpu", d["tokens_per_second_per_gpu"])
    assert achieved == "1,174 tok/s" and any(f"{achieved} per GPU" in shown(c.value) for c in at.caption)


def test_the_page_says_what_the_token_revenue_assumes(optimized: neoplan.Result) -> None:
    at = run_page(PAGE)
    (caption,) = [shown(c.value) for c in at.caption if "What the token revenue assumes" in shown(c.value)]
    assert "2,349 output tokens/s per GPU (interactive, 27 tokens/s per user at p99; derived from a sibling" in caption
    assert "serves 50 % of it on average" in caption and "utilization (90 %)" in caption
    assert "1,024 input tokens per 294 output" in caption and "falling 45 % a year" in caption
    per_day = optimized.to_dict()["serving"]["output_tokens_per_day"]
    assert f"about {per_day / 1e9:,.0f} billion output tokens a day" in caption
    assert "demand caps it at 5 % of the model's API market of 24 billion output tokens a day" in caption


def test_selling_tokens_moves_the_headline_returns() -> None:
    at = run_page(PAGE)
    at.selectbox(key="w.pricing.sell").set_value("tokens").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    serve = neoplan.evaluate(at.session_state[SCENARIO])
    assert serve.scenario.pricing.sell == "tokens"
    assert metric(at, "NPV") == fmt.usd(serve.kpis["npv_usd"])
    assert not any("Latency:" in shown(w.value) for w in at.warning)  # interactive: chat speed
    at.selectbox(key="w.pricing.serving_scenario").set_value("server").run()
    assert any("Latency:" in shown(w.value) for w in at.warning)  # 7 tok/s per user, warned (by its label)


def test_the_serving_load_factor_moves_the_token_returns_and_a_bad_value_is_refused_next_to_it() -> None:
    at = run_page(PAGE)
    before = _ways(at).loc["NPV", "Serve tokens"]
    rent = _ways(at).loc["NPV", "Rent GPU-hours"]
    at.text_input(key="w.pricing.serving_load_factor").input("30.0").run()  # percent on the page
    assert at.session_state[SCENARIO].pricing.serving_load_factor == 0.3
    after = neoplan.evaluate(at.session_state[SCENARIO]).returns_by_sale()
    assert _ways(at).loc["NPV", "Serve tokens"] == fmt.usd(after["tokens"]["npv_usd"]) != before
    assert _ways(at).loc["NPV", "Rent GPU-hours"] == rent  # renting does not depend on it
    at.text_input(key="w.pricing.serving_load_factor").input("0.0").run()
    errors = [shown(e.value) for e in at.error]
    assert any(e.startswith("Serving load factor [% of the benchmark rate] must be > 0 and ≤ 1") for e in errors), (
        errors
    )
    assert at.session_state[SCENARIO].pricing.serving_load_factor == 0.3  # the last good scenario is kept


def test_a_token_price_moves_the_token_returns_and_empty_means_the_data_default() -> None:
    at = run_page(PAGE)
    before = _ways(at).loc["NPV", "Serve tokens"]
    at.text_input(key="w.pricing.usd_per_million_tokens.output").input("0.2").run()
    assert at.session_state[SCENARIO].pricing.usd_per_million_tokens.output == 0.2
    assert _ways(at).loc["NPV", "Serve tokens"] != before
    at.text_input(key="w.pricing.usd_per_million_tokens.output").input("").run()
    assert at.session_state[SCENARIO].pricing.usd_per_million_tokens.output is None
    assert _ways(at).loc["NPV", "Serve tokens"] == before


def test_a_workload_with_no_published_rate_is_refused_next_to_the_field() -> None:
    at = run_page(PAGE)
    at.selectbox(key="w.pricing.sell").set_value("tokens").run()
    at.selectbox(key="w.pricing.workload").set_value("deepseek-r1-reasoning").run()
    errors = [shown(e.value) for e in at.error]
    assert any(e.startswith("Workload: h100-sxm has no published interactive throughput") for e in errors), errors
    assert at.session_state[SCENARIO].pricing.workload == "llama70b-chat"  # the last good scenario is kept


def test_the_market_table_names_contracts_in_words() -> None:
    assert not any("Contract" in getattr(d.value, "columns", []) for d in run_page(PAGE).dataframe)  # drawn if open
    at = run_page(PAGE, **{"pricing.market_open": True})
    (table,) = [d.value for d in at.dataframe if "Contract" in getattr(d.value, "columns", [])]
    assert set(table["Contract"]) <= set(CONTRACT_LABELS.values()) and "On demand" in set(table["Contract"])

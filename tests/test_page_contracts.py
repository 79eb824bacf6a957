"""AppTest of the contract book on the Pricing page (the book as sold, chosen, shown and edited) and of the Overview's
headline when a plan sells tokens, with the IRR said to be no return to rank by when its flows make it so."""

from __future__ import annotations

import pandas as pd
from conftest import metric, page_path, run_page
from test_user_text import shown

import neoplan
from neoplan import metrics
from neoplan.inputs.loading import scenario_from_dict
from ui.state import ERRORS, SCENARIO

PRICING, OVERVIEW = page_path("pricing"), page_path("app")  # the Overview is the landing page of app.py


def _book(at) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    (table,) = [d.value for d in at.dataframe if "Sold as" in getattr(d.value, "columns", [])]
    return table


def test_the_default_preset_shows_its_named_book_as_sold() -> None:
    at = run_page(PRICING)
    assert at.selectbox(key="pricing.book").value == "neocloud_2024"
    table = _book(at)
    assert list(table["Sold as"]) == ["Take-or-pay", "On demand", "Idle hours at spot"]
    assert list(table["Term"]) == ["36 months", "", ""]
    # the 2024-10 market's 3-year H100 row ($1.85) and on-demand price ($2.99) at go-live, spot ($1.50)
    assert list(table["Price at go-live"]) == ["$1.85 /GPU-h", "$2.99 /GPU-h", "$1.50 /GPU-h"]
    assert list(table["Share"]) == ["70 %", "20 %", "50 % of idle"]
    assert any("90 % from the contract book" in shown(c.value) for c in at.caption)
    assert at.text_input(key="w.pricing.utilization").disabled  # the book sets it


def test_choosing_a_book_or_the_shorthand_moves_the_plan_and_the_table() -> None:
    at = run_page(PRICING)
    at.selectbox(key="pricing.book").set_value("hyperscale_offtake").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    s = at.session_state[SCENARIO]
    assert [(c.kind, c.share, c.term_months, c.counterparty) for c in s.pricing.contracts] == [
        ("take_or_pay", 0.9, 60, "investment_grade"),
        ("on_demand", 0.05, 0, "sub_investment_grade"),
    ]
    assert list(_book(at)["Counterparty"])[:2] == ["Investment grade", "Sub-investment grade"]
    result = neoplan.evaluate(s)
    assert metric(at, "NPV") == metrics.text("npv_usd", result.kpis["npv_usd"])
    at.selectbox(key="pricing.book").set_value("Shorthand: a reserved share and on demand").run()
    assert at.session_state[SCENARIO].pricing.contracts is None
    assert not at.text_input(key="w.pricing.utilization").disabled
    assert list(_book(at)["Sold as"]) == ["Reserved", "On demand", "Idle hours at spot"]  # 60 % reserved, 25 % OD
    at.selectbox(key="pricing.book").set_value("Own contracts").run()  # starts from the shorthand's book
    own = at.session_state[SCENARIO].pricing.contracts
    assert [(c.kind, c.share) for c in own] == [("reserved", 0.6), ("on_demand", 0.25)]


def test_a_refused_book_edit_shows_its_reason_next_to_the_editor() -> None:
    """An edit the model refuses (shares above 100 %, a term on an on-demand contract …) keeps the last good book and
    shows the model's one-line reason under the editor (the message itself: tests/test_contracts.py)."""
    reason = "pricing.contracts: the shares must sum to at most 100 %, got 110 %"
    at = run_page(PRICING, **{ERRORS: {"pricing.contracts": reason}})
    errors = [shown(e.value) for e in at.error]  # named by the field's label, not its path (issue 34)
    assert any(e.endswith("the shares must sum to at most 100 %, got 110 %") for e in errors), errors
    assert not any(e.startswith("pricing.") for e in errors), errors
    assert at.session_state[SCENARIO].pricing.contracts is not None  # the preset's book, kept


def test_selling_tokens_puts_the_overview_headline_in_dollars_per_million_tokens() -> None:
    scenario = scenario_from_dict({"base": "optimized", "pricing": {"sell": "tokens"}})
    at = run_page(OVERVIEW)
    at.session_state[SCENARIO] = scenario
    at.run()
    assert not at.exception, at.exception
    d = neoplan.evaluate(scenario).to_dict()
    assert metric(at, "Cost per million tokens") == metrics.text(
        "cost_usd_per_million_tokens", d["cost_usd_per_million_tokens"]
    )
    assert metric(at, "Token break-even") == metrics.text(
        "breakeven_usd_per_million_tokens", d["breakeven_usd_per_million_tokens"]
    )
    labels = [m.label for m in at.metric]
    assert "TCO / GPU-h" not in labels and "Break-even price" not in labels
    (headline,) = [shown(c.value) for c in at.caption if shown(c.value).startswith("HEADLINE at")]
    assert "/M tok (llama70b-chat)" in headline
    renting = run_page(OVERVIEW)
    assert "TCO / GPU-h" in [m.label for m in renting.metric]


def test_an_irr_whose_flows_make_it_meaningless_says_so_beside_it() -> None:
    at = run_page(OVERVIEW)  # the default preset: equity called again after distributions began
    result = neoplan.evaluate(at.session_state[SCENARIO])
    assert "equity_irr" in result.irr_notes
    notes = [shown(c.value) for c in at.caption if shown(c.value).startswith("Not meaningful:")]
    assert any("sponsor support" in n and "equity NPV and MIRR" in n for n in notes), notes

"""evaluate(): calibration targets (BRIEF.md §5), roll-up invariants, KPI behaviour."""

from __future__ import annotations

import math
import warnings

import numpy as np
import numpy_financial as npf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neoplan
from neoplan import model
from neoplan.design import cluster as design
from neoplan.design import storage
from neoplan.design.costs import CAPEX_CATEGORIES
from neoplan.economics import residual
from neoplan.errors import ScenarioError
from neoplan.finance import project as finance
from neoplan.model import KPI_LABELS, undefined_kpi_warnings


@pytest.fixture(scope="module")
def ref() -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario("reference"))


@pytest.fixture(scope="module")
def opt() -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario("optimized"))


def _eval(**sections: dict) -> neoplan.Result:
    """The optimized preset with ``sections`` laid over it; a test that sets the debt share means a loan of that share
    (sizing capex_share), not one sized on the contracts."""
    fin = sections.get("financing", {})
    if "debt_share" in fin and "sizing" not in fin:
        sections = {**sections, "financing": {"sizing": "capex_share", **fin}}
    return neoplan.evaluate(neoplan.load_scenario({"base": "optimized", **sections}))


# --- calibration targets ----------------------------------------------------------------------------------


def test_node_prices(ref: neoplan.Result, opt: neoplan.Result) -> None:
    assert ref.node_capex_usd == pytest.approx(270_000.0)
    assert opt.node_capex_usd == pytest.approx(256_400.0)
    assert opt.node_saving_vs_oem_usd * opt.servers == pytest.approx(1_740_800.0)


# Cluster capex excluding storage per server: $318k / $283k ± 3 % (BRIEF.md §5). The residuals of the joint
# fit (see data/prices and the issue notes) are pinned so a price change that moves them is noticed.
CAPEX_TARGETS = {"reference": 318_000.0, "optimized": 283_000.0}


# The two targets hold together with public switch prices only if both sit a little high: the article's back-end
# ratios fix the back end at ≈ 15 × (8 switches + 256 DACs) ≈ $39.5k per server for the reference with a $36k
# switch, and everything outside node and back end must then fit in the rest (see the issue notes).
CAPEX_RESIDUALS = {"reference": 0.016, "optimized": 0.026}


@pytest.mark.parametrize("preset", ["reference", "optimized"])
def test_capex_per_server_excl_storage_within_3_percent(preset: str) -> None:
    r = neoplan.evaluate(neoplan.load_scenario(preset))
    target = CAPEX_TARGETS[preset]
    assert r.capex_per_server_excl_storage_usd == pytest.approx(target, rel=0.03)
    residual = r.capex_per_server_excl_storage_usd / target - 1
    assert residual == pytest.approx(CAPEX_RESIDUALS[preset], abs=0.002)


def test_backend_targets(ref: neoplan.Result, opt: neoplan.Result) -> None:
    assert (ref.fabric.backend.leaf_switches, ref.fabric.backend.spine_switches) == (32, 16)
    assert (opt.fabric.backend.leaf_switches, opt.fabric.backend.spine_switches) == (32, 8)
    base = ref.capex_usd["backend_network"]
    for topo, over, target in (("tor", 1.0, -0.348), ("vms", 1.0, -0.249), ("vms", 2.0, -0.316)):
        r = neoplan.evaluate(
            neoplan.load_scenario({"base": "reference", "fabric": {"topology": topo, "oversubscription": over}})
        )
        assert r.capex_usd["backend_network"] / base - 1 == pytest.approx(target, abs=0.01)


def test_storage_default(opt: neoplan.Result) -> None:
    """The optimized preset's 2x200GbE storage servers sit on 100G front-end ports: 25 GB/s each, so 11 servers
    hold the article's 250 GB/s floor; wiring them at 200G instead keeps the article's 8 servers at 320 GB/s."""
    assert opt.storage.wired_port_gbps == 100
    assert opt.storage.servers == 11
    assert 250 <= opt.storage.read_gbyte_per_s <= 400
    wired = {"base": "optimized", "fabric": {"frontend": {"match_storage_ports": True}}}
    matched = neoplan.evaluate(neoplan.load_scenario(wired))
    assert (matched.storage.servers, matched.storage.read_gbyte_per_s) == (8, 320)


# --- roll-up invariants -------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", neoplan.preset_names())
def test_capex_total_is_sum_of_categories_and_lines(preset: str) -> None:
    r = neoplan.evaluate(neoplan.load_scenario(preset))
    capex = r.capex_usd
    assert capex["total"] == pytest.approx(sum(capex[c] for c in CAPEX_CATEGORIES))
    assert capex["total"] == pytest.approx(sum(line.total_usd for line in r.capex_lines))
    assert capex["compute"] == pytest.approx(sum(ln.total_usd for ln in r.capex_lines if ln.category == "compute"))
    assert capex["compute"] == pytest.approx((r.servers + r.spare_servers) * r.node_capex_usd)


def test_to_dict_contract(opt: neoplan.Result) -> None:
    d = opt.to_dict()
    for key in (
        "gpus",
        "servers",
        "node_capex_usd",
        "backend",
        "capex_usd",
        "capex_per_server_excl_storage_usd",
        "tco_usd_per_gpu_hour",
        "breakeven_usd_per_gpu_hour",
        "project_irr",
        "equity_irr",
        "npv_usd",
        "payback_months",
        "min_dscr",
    ):
        assert key in d
    assert set(d["backend"]) >= {
        "leaf_switches",
        "spine_switches",
        "core_switches",
        "transceivers",
        "cables",
        "capex_usd",
    }
    assert set(d["capex_usd"]) == {*CAPEX_CATEGORIES, "total"}
    assert d["backend"]["capex_usd"] == pytest.approx(d["capex_usd"]["backend_network"])
    import json

    json.dumps(d, allow_nan=False)  # JSON-safe: no NaN, no numpy types


def test_ai_enterprise_costs_8_x_4500_per_server_year() -> None:
    flat = {"escalation_per_year": 0.0}  # the list price of today, not escalated
    on, off = _eval(opex={"ai_enterprise": True, **flat}), _eval(opex=flat)
    assert on.opex_for_year(2)["software"] - off.opex_for_year(2)["software"] == pytest.approx(off.servers * 8 * 4500.0)


def test_pue_one_makes_facility_energy_equal_it_energy() -> None:
    r = _eval(facility={"pue": 1.0})
    assert r.facility.facility_energy_kwh_per_year == pytest.approx(r.facility.it_energy_kwh_per_year)


def test_opex_scales_with_gpus(opt: neoplan.Result) -> None:
    big = _eval(cluster={"gpus": 2048}, storage={"usable_pb": 4.0})
    for category in ("staff", "colocation", "power"):
        ratio = big.opex_usd_per_year[category] / opt.opex_usd_per_year[category]
        assert 1.8 <= ratio <= 2.05, category


# --- finance KPIs -------------------------------------------------------------------------------------------


def test_npv_is_zero_at_breakeven_price(opt: neoplan.Result) -> None:
    price = opt.kpis["breakeven_usd_per_gpu_hour"]
    at_breakeven = _eval(pricing={"usd_per_gpu_hour": price})
    assert at_breakeven.kpis["npv_usd"] == pytest.approx(0.0, abs=1_000.0)


def test_returns_rise_with_price(opt: neoplan.Result) -> None:
    curve = opt.returns_vs_price(np.linspace(2.0, 6.0, 9))
    assert np.all(np.diff(curve["npv_usd"]) > 0)
    irr = curve["project_irr"][~np.isnan(curve["project_irr"])]
    assert np.all(np.diff(irr) > 0)
    payback = curve["payback_months"][~np.isnan(curve["payback_months"])]
    assert np.all(np.diff(payback) < 0)


def test_returns_vs_price_matches_evaluate(opt: neoplan.Result) -> None:
    """The curve re-runs the engine at other prices on the debt fixed at close: the project's figures are those of a
    scenario at that price; equity's too where the loan does not depend on the price (a share of capex)."""
    curve = opt.returns_vs_price([3.5])
    direct = _eval(pricing={"usd_per_gpu_hour": 3.5})
    assert curve["npv_usd"][0] == pytest.approx(direct.kpis["npv_usd"], rel=1e-9)
    share = {"debt_share": 0.6}
    on_capex = _eval(financing=share).returns_vs_price([3.5])
    direct = _eval(financing=share, pricing={"usd_per_gpu_hour": 3.5})
    assert on_capex["equity_irr"][0] == pytest.approx(direct.kpis["equity_irr"], rel=1e-6)


def test_higher_rate_lowers_equity_irr() -> None:
    lo = _eval(pricing={"usd_per_gpu_hour": 4.0}, financing={"interest_rate": 0.07})
    hi = _eval(pricing={"usd_per_gpu_hour": 4.0}, financing={"interest_rate": 0.15})
    assert hi.kpis["equity_irr"] < lo.kpis["equity_irr"]
    assert hi.kpis["project_irr"] == pytest.approx(lo.kpis["project_irr"])


def test_optimized_beats_reference_by_the_capex_gap(ref: neoplan.Result, opt: neoplan.Result) -> None:
    assert opt.kpis["tco_usd_per_gpu_hour"] < ref.kpis["tco_usd_per_gpu_hour"]
    # the capital part of TCO moves in proportion to capex (same schedule, same hours)
    gap = opt.capex_total_usd / ref.capex_total_usd
    capital = opt.tco_breakdown_usd_per_gpu_hour["capital"] / ref.tco_breakdown_usd_per_gpu_hour["capital"]
    assert capital == pytest.approx(gap, rel=0.01)
    same_price = {"pricing": {"usd_per_gpu_hour": 6.0}}  # the reference pays back within the horizon
    r4 = neoplan.evaluate(neoplan.load_scenario({"base": "reference", **same_price}))
    o4 = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", **same_price}))
    assert o4.kpis["payback_months"] < r4.kpis["payback_months"]


def test_tco_breakdown_sums(opt: neoplan.Result) -> None:
    assert sum(opt.tco_breakdown_usd_per_gpu_hour.values()) == pytest.approx(opt.kpis["tco_usd_per_gpu_hour"])
    assert set(opt.tco_breakdown_usd_per_gpu_hour) == {"capital", "power", "colocation", "staff", "software", "other"}


def test_kpis_match_monthly_cash_flows(opt: neoplan.Result) -> None:
    table = opt.monthly_table()
    assert finance.npv(opt.scenario.financing.hurdle_rate, table["project_fcf_usd"].to_numpy()) == pytest.approx(
        opt.kpis["npv_usd"]
    )
    assert table["debt_balance_usd"].iloc[-1] == pytest.approx(0.0, abs=1e-3)
    assert -table["capex_usd"].sum() == pytest.approx(opt.capex_total_usd)


@settings(max_examples=25, deadline=None)
@given(
    gpus=st.sampled_from([256, 512, 1024, 2048, 4096]),
    topology=st.sampled_from(["reference", "tor", "vms", "modular"]),
    price=st.floats(1.0, 8.0),
    utilization=st.floats(0.3, 1.0),
    debt_share=st.floats(0.0, 0.8),
)
def test_no_crash_no_nan_where_defined(
    gpus: int, topology: str, price: float, utilization: float, debt_share: float
) -> None:
    r = _eval(
        cluster={"gpus": gpus},
        fabric={"topology": topology, "oversubscription": 1.0},
        pricing={"usd_per_gpu_hour": price, "utilization": utilization},
        financing={"debt_share": debt_share},
    )
    d = r.to_dict()
    for key in ("capex_per_server_excl_storage_usd", "tco_usd_per_gpu_hour", "npv_usd"):
        assert d[key] is not None and math.isfinite(d[key])
    assert d["capex_usd"]["total"] > 0


# --- undefined KPIs come with a reason ----------------------------------------------------------------------


def _undefined(r: neoplan.Result) -> dict[str, str]:
    """Null KPIs of ``r`` → the warning naming each (asserting there is exactly one)."""
    d = r.to_dict()
    out = {}
    for key, label in KPI_LABELS.items():
        named = [w for w in d["warnings"] if w.startswith(f"{label} undefined: ")]
        assert len(named) == (1 if d[key] is None else 0), (key, d["warnings"])
        if named:
            out[key] = named[0]
    return out


@pytest.mark.parametrize("preset", ["reference", "optimized", "h100_256", "h100_2048", "h200_1024"])
def test_presets_explain_each_undefined_kpi(preset: str) -> None:
    r = neoplan.evaluate(neoplan.load_scenario(preset))
    why = _undefined(r)
    # payback is undefined exactly when the project's cumulative cash ends below zero (at the index prices of 2026 with
    # 2024 hardware, only the H200 build pays back within six years)
    lender = {"discounted_payback_months", "covenant_headroom"}
    ends_below = r.ops.cash.project_fcf[0].sum() < 0
    assert set(why) - lender == ({"payback_months"} if ends_below else set())
    # a discounted payback exists exactly when the project earns the hurdle rate
    assert ("discounted_payback_months" in why) == (r.kpis["npv_usd"] < 0)
    # covenant headroom is a share of a positive DSCR: none when the weakest year's CFADS is 0 or below
    assert ("covenant_headroom" in why) == (r.kpis["min_dscr"] <= 0)


def test_no_debt_means_no_dscr_with_a_reason() -> None:
    why = _undefined(_eval(financing={"debt_share": 0.0}))
    why.pop("discounted_payback_months", None)  # the default loses money at the hurdle rate (tested above)
    why.pop("payback_months", None)  # and does not pay back at the 2026 index price (tested above)
    assert why == {
        "min_dscr": "Min DSCR undefined: no debt, so no DSCR.",
        "llcr": "LLCR undefined: no debt is outstanding at the first repayment month.",
        "covenant_headroom": "Covenant headroom undefined: no DSCR (see Min DSCR).",
    }


NOTHING_SOLD = {"contracts": None, "utilization": 0.0, "reserved_share": 0.0, "spot_share_of_idle": 0.0}
"""A book that sells nothing: no contract, no use, no idle hours at spot."""


def test_nothing_sold_explains_every_undefined_kpi() -> None:
    why = _undefined(_eval(pricing=NOTHING_SOLD))
    assert set(why) == {
        "tco_usd_per_gpu_hour",
        "breakeven_usd_per_gpu_hour",
        "ebitda_margin",
        "gross_margin",
        "payback_months",
        "discounted_payback_months",
        "min_dscr",
        "llcr",
        "covenant_headroom",
    }  # the IRRs exist; nothing contracted, so no loan sized on contracts: no DSCR
    assert "no GPU-hours are sold" in why["tco_usd_per_gpu_hour"]
    assert "no GPU-hours are sold" in why["breakeven_usd_per_gpu_hour"]
    assert why["ebitda_margin"] == "EBITDA margin undefined: no revenue over the horizon."
    assert "no payback within the 72-month horizon" in why["payback_months"]


def test_low_price_gives_no_payback_within_the_horizon() -> None:
    r = _eval(pricing={"usd_per_gpu_hour": 1.0}, timeline={"horizon_months": 60})
    assert r.kpis["payback_months"] is not None and math.isnan(r.kpis["payback_months"])
    why = _undefined(r)
    assert why["payback_months"].startswith("Payback undefined: no payback within the 60-month horizon")


@pytest.mark.parametrize("price", [5e-324, 1e-320])
def test_tiny_positive_price_explains_the_margins(price: float) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        why = _undefined(_eval(pricing={"usd_per_gpu_hour": price}))
    assert "too small to divide by" in why["ebitda_margin"]
    assert "too small to divide by" in why["gross_margin"]


def test_undefined_kpi_warnings_name_each_kpi_once() -> None:
    r = _eval(pricing=NOTHING_SOLD, financing={"debt_share": 0.0})
    nulls = [k for k, v in r.kpis.items() if v is None or not math.isfinite(v)]
    lender = {"llcr": r.llcr, "covenant_headroom": r.covenant_headroom}
    nulls += [k for k, v in lender.items() if not math.isfinite(v)]
    warned = undefined_kpi_warnings({**r.kpis, **lender}, r.ops.cash, r.ops.revenue.sold_gpu_hours, 72)
    assert len(warned) == len(nulls) == 9
    token = ("Cost per million tokens undefined: ", "Token break-even undefined: ")  # the token figures, apart
    assert warned == [w for w in r.warnings if " undefined: " in w and not w.startswith(token)]
    assert [w for w in r.warnings if w.startswith(token)] == [
        "Cost per million tokens undefined: no GPU-hours are sold, so no tokens are served.",
        "Token break-even undefined: no GPU-hours are sold, so no tokens are served.",
    ]


# --- errors: the user's input becomes ScenarioError, a bug stays a bug ----------------------------------------


def test_a_sizing_error_naming_a_field_is_a_scenario_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "MAX_SERVERS", 10)  # 100 PB needs more storage servers than that
    with pytest.raises(ScenarioError, match=r"storage\.usable_pb"):
        neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "storage": {"usable_pb": 100}}))


@pytest.mark.parametrize("exc", [ValueError("math domain error"), ZeroDivisionError("x"), TypeError("y")])
def test_a_bug_is_not_dressed_up_as_bad_input(monkeypatch: pytest.MonkeyPatch, exc: Exception) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise exc

    monkeypatch.setattr(design, "design_storage", broken)
    with pytest.raises(type(exc)) as caught:
        neoplan.evaluate(neoplan.load_scenario("optimized"))
    assert not isinstance(caught.value, ScenarioError)


@pytest.mark.parametrize(
    "message", ["storage.usable_pb: 9 PB needs more than 1000 servers", "timeline.horizon_months must be …"]
)
def test_a_value_error_naming_a_field_is_still_a_bug(monkeypatch: pytest.MonkeyPatch, message: str) -> None:
    """Only the modules that check an input raise ScenarioError; nothing converts a ValueError afterwards."""

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError(message)

    monkeypatch.setattr(design, "design_storage", broken)
    with pytest.raises(ValueError, match=r"must be|needs more") as caught:
        neoplan.evaluate(neoplan.load_scenario("optimized"))
    assert not isinstance(caught.value, ScenarioError)


@pytest.mark.parametrize(
    ("sections", "field"),
    [
        ({"timeline": {"horizon_months": 12, "delivery_lead_months": 12}}, r"horizon_months must be after go-live"),
        ({"financing": {"term_months": 12, "grace_months": 8}}, r"term_months \(12\) must be longer than"),
        ({"storage": {"vendor_class": "licensed", "server_model": "nfs_2u24"}}, r"nfs_2u24' is a self_built model"),
    ],
)
def test_inputs_the_design_cannot_meet_raise_one_scenario_error(sections: dict, field: str) -> None:
    with pytest.raises(ScenarioError, match=field):
        neoplan.evaluate(neoplan.load_scenario({"base": "optimized", **sections}))


def test_one_input_error_type_everywhere() -> None:
    from neoplan import errors, library
    from neoplan.inputs import scenario

    assert scenario.ScenarioError is errors.ScenarioError is neoplan.ScenarioError
    assert issubclass(library.LibraryError, errors.ScenarioError) and issubclass(errors.ScenarioError, ValueError)
    with pytest.raises(ScenarioError, match=r"^facility\.pue must be ≥ 1, got 0\.5$"):
        errors.check("facility.pue", 0.5, 0.5 >= 1, "≥ 1")
    with pytest.raises(ScenarioError, match="got nan"):
        errors.check("x", math.nan, True, "finite")
    with pytest.raises(ValueError, match="utilization") as caught:
        errors.check("utilization", 2.0, False, "between 0 and 1", error=ValueError)
    assert not isinstance(caught.value, ScenarioError)
    errors.check("x", 1.0, True, "anything")  # passes silently


def test_stress_shows_a_bug_as_a_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    from neoplan.analysis import stress

    result = neoplan.evaluate(neoplan.load_scenario("optimized"))

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("operands could not be broadcast together")

    monkeypatch.setattr(neoplan.Result, "cases", broken)
    with pytest.raises(ValueError, match="broadcast") as caught:
        stress.tornado(result)
    assert not isinstance(caught.value, ScenarioError)


def test_moved_names_still_import_from_model() -> None:
    from neoplan.finance import engine, returns

    for name in ("Drivers", "OperatingBasis", "Cases", "run_cases", "operating_basis", "capex_payments"):
        assert getattr(model, name) is getattr(engine, name)
    for name in ("KPI_LABELS", "breakeven_price", "project_npv", "undefined_kpi_warnings", "TCO_CATEGORIES"):
        assert getattr(model, name) is getattr(returns, name)


def test_unknown_price_key_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError, match="prices: unknown price key 'no_such_key'"):
        _eval(prices={"no_such_key": 1.0})


@pytest.mark.parametrize("value", [1e300, -1.0, float("nan"), float("inf"), True, "1"])
def test_price_book_overrides_are_bounded(value: object) -> None:
    from neoplan.inputs.pricebook import PriceBookError, default_price_book

    with pytest.raises(PriceBookError, match=r"prices\.cpu_mid must be between 0 and 10,000,000"):
        default_price_book().with_overrides({"cpu_mid": value})  # type: ignore[dict-item]
    assert default_price_book().with_overrides({"cpu_mid": 10_000_000}).price("cpu_mid") == 10_000_000


# --- one home for opex: the site page's yearly bills are the engine's in a steady year ------------------------


@pytest.mark.parametrize("in_colo", [False, True])
def test_a_steady_years_power_and_colocation_are_the_facilitys_bills(in_colo: bool) -> None:
    r = _eval(
        # every sold hour from go-live: a steady sold share (the shorthand book, no idle hours at spot)
        pricing={"contracts": None, "reserved_share": 1.0, "utilization": 0.7, "spot_share_of_idle": 0.0},
        facility={"pue": 1.3, "electricity_in_colo": in_colo},
        opex={"escalation_per_year": 0.0},  # the site's bills are at today's prices
    )
    year = r.opex_for_year(2)
    assert year["power"] == pytest.approx(r.facility.energy_usd_per_year, rel=1e-9)
    assert year["colocation"] == pytest.approx(r.facility.colo_usd_per_year, rel=1e-9)
    assert (year["power"] == 0) == in_colo


# --- issue 24: what a lender objects to (each defect reproduced with the public API first) ----------------------


def test_the_residual_case_covers_its_debt_in_the_sale_year() -> None:
    """Defect 2: a 30 % residual sold at the horizon, inside a 72-month loan. CFADS used to deduct the tax on the sale's
    gain but not count the proceeds: min DSCR 0.48 (a "breach"). Now the sale stays out of CFADS (its proceeds sweep
    the loan): DSCR ≥ 1 in the sale year."""
    # $5.50: on the 2024-10 market (prices expected to fall 25 % in 2025 and 15 % a year after) a lower price no
    # longer covers the debt service of year 5 1× (min DSCR 0.59 at $4.50); the sale year is what this test is about
    r = _eval(
        financing={"term_months": 72, "debt_share": 0.6},
        timeline={"residual_value_share": 0.3},
        pricing={"usd_per_gpu_hour": 5.5},
    )
    table = r.dscr_by_year()["dscr"]
    assert table[-1] >= 1.0 and r.kpis["min_dscr"] >= 1.0
    c = r.ops.cash
    sale = int(np.flatnonzero(c.residual[0])[-1])
    assert c.sale_tax[0, sale] > 0  # the sale is taxed …
    assert c.cfads[0, sale] == pytest.approx(c.revenue_collected[0, sale] - c.opex[0, sale] - c.operating_tax[0, sale])


def test_full_debt_financing_is_warned_with_npv_and_mirr() -> None:
    """Defect 3: 100 % debt at $3.30 reported an equity IRR of +2,239 % a year with no warning, while equity later
    puts in $10.9 M to cover debt service. Now a warning says how much and when; equity NPV and MIRR sit beside it."""
    r = _eval(financing={"debt_share": 1.0}, pricing={"usd_per_gpu_hour": 3.3})
    d, equity = r.to_dict(), r.ops.cash.equity_fcf[0]
    support = [w for w in r.warnings if w.startswith("Sponsor support")]
    assert len(support) == 1
    first = int(np.argmax(equity > 0))
    later = equity[first + 1 :]
    called = -later[later < 0].sum()
    assert called > 1e6 and neoplan.formats.usd(called) in support[0]
    assert d["equity_npv_usd"] == pytest.approx(float(finance.npv(0.12, equity)), rel=1e-12)
    rate = (r.scenario.financing.interest_rate + r.scenario.financing.credit_spread) / 12
    mirr = (1 + npf.mirr(equity, rate, float(finance.monthly_rate(0.12)))) ** 12 - 1
    assert d["equity_mirr"] == pytest.approx(mirr, rel=1e-9)
    assert "MIRR" in support[0] and "NPV" in support[0]
    unlevered = _eval(financing={"debt_share": 0.0}, pricing={"usd_per_gpu_hour": 3.3})
    assert not any(w.startswith("Sponsor support") for w in unlevered.warnings)


@pytest.mark.parametrize(
    ("sections", "words"),
    [
        (
            {"timeline": {"horizon_months": 12}, "financing": {"debt_share": 0.6}},
            ("still outstanding at the 12-month horizon", "by equity"),
        ),
        (
            {"financing": {"term_months": 120, "debt_share": 0.6}},
            ("still outstanding at the 72-month horizon", "matures in month 120"),
        ),
        (
            {"timeline": {"useful_life_months": 48}, "financing": {"term_months": 84, "debt_share": 0.6}},
            ("past the end of the hardware's useful life", "sweep"),
        ),
    ],
)
def test_debt_left_at_the_horizon_or_past_the_life_is_warned(sections: dict, words: tuple[str, ...]) -> None:
    """Defect 7: a 12-month horizon showed min DSCR 3.37 while $23.4 M was paid off in month 11; a 120-month term a
    $13.4 M balloon; a 48-month life under an 84-month loan DSCR 0 after the shutdown — none of it warned."""
    r = _eval(**sections)
    assert any(all(w in text for w in words) for text in r.warnings), r.warnings
    c = r.ops.cash
    if "horizon" in words[0]:
        owed = float(c.debt.payoff[0, -1] + c.debt.swept[0, -1])
        assert owed > 1e6 and any(neoplan.formats.usd(owed) in text for text in r.warnings)


def test_a_loan_within_the_horizon_and_the_life_is_not_warned(opt: neoplan.Result) -> None:
    assert not any("outstanding at the" in w or "past the end of the hardware" in w for w in opt.warnings)


def test_the_resale_curve_values_the_cluster_by_its_age_at_sale(opt: neoplan.Result) -> None:
    """A 36-month horizon sells a 31.6-month-old cluster: the curve's flat start (33 % of capex), not 5 %."""
    c = opt.ops.cash
    age = opt.ops.dates.months - opt.ops.dates.go_live_month
    curve = residual.curve_of(opt.scenario)
    assert curve is not None and curve.group == "hopper"
    assert c.residual[0, -1] == pytest.approx(float(curve.at(age)) * opt.capex_total_usd)
    assert float(curve.at(60.0)) == 0.13 and float(curve.at(66.0)) == pytest.approx(0.115)  # linear between points
    short = _eval(timeline={"horizon_months": 36})
    assert short.ops.cash.residual[0, -1] == pytest.approx(0.33 * short.capex_total_usd)  # flat below 36 months
    flat = _eval(timeline={"horizon_months": 36, "residual_value_share": 0.05})
    assert flat.ops.cash.residual[0, -1] == pytest.approx(0.05 * flat.capex_total_usd)
    assert short.kpis["npv_usd"] > flat.kpis["npv_usd"]
    rack = neoplan.evaluate(neoplan.load_scenario("gb200_nvl72_18rack"))
    rack_curve = residual.curve_of(rack.scenario)
    assert rack_curve is not None and rack_curve.group == "blackwell_rack"


@pytest.mark.parametrize(
    "sections",
    [
        {},
        {"financing": {"tax_depreciation": "macrs_5"}},
        {"financing": {"tax_period_months": 1}},
        {"timeline": {"capex_timing": "mid_month"}},
        {"pricing": {"receivable_days": 60}, "opex": {"escalation_per_year": 0.05}},
        {"timeline": {"residual_value_share": 0.2, "horizon_months": 48}},
    ],
)
def test_npv_is_zero_at_the_breakeven_price_with_every_convention(sections: dict) -> None:
    r = _eval(**sections)
    price = r.kpis["breakeven_usd_per_gpu_hour"]
    merged = {**sections, "pricing": {**sections.get("pricing", {}), "usd_per_gpu_hour": price}}
    # within the early-life credits the price solver leaves out (operations.as_sold: about $155 here)
    assert _eval(**merged).kpis["npv_usd"] == pytest.approx(0.0, abs=1_000.0)


def test_escalation_raises_opex_by_project_year_and_lowers_npv_by_its_pv() -> None:
    """Tax 0, so the NPV falls by exactly the PV of the escalated opex: colocation in project year 2 (month 12) is
    1.03 × that of year 1 (month 11), year 3 1.03²; SG&A follows revenue and does not escalate."""
    untaxed = {"tax_rate": 0.0}
    flat = _eval(opex={"escalation_per_year": 0.0}, financing=untaxed)
    rising = _eval(opex={"escalation_per_year": 0.03}, financing=untaxed)
    colo = rising.ops.opex_by_category["colocation"]
    assert colo[12] == pytest.approx(1.03 * flat.ops.opex_by_category["colocation"][12], rel=1e-12)
    assert colo[30] == pytest.approx(1.03**2 * colo[11], rel=1e-12)
    assert rising.ops.opex_by_category["sga"] == pytest.approx(flat.ops.opex_by_category["sga"])
    extra = rising.ops.opex_total - flat.ops.opex_total
    assert extra[:12].sum() == 0.0 and extra[12:].min() >= 0.0
    v = (1 + float(finance.monthly_rate(0.12))) ** -np.arange(extra.size)
    assert rising.kpis["npv_usd"] - flat.kpis["npv_usd"] == pytest.approx(-float(extra @ v), rel=1e-9)
    assert rising.kpis["equity_irr"] < flat.kpis["equity_irr"]


def test_receivable_days_cost_npv_and_equity_irr_by_their_timing() -> None:
    """Tax 0: 30 receivable days move each month's revenue (30 / 30.4375 of it) into the next month, the receivables
    left at the horizon into its last month: NPV falls by the PV of that shift, computed here by hand."""
    untaxed = {"tax_rate": 0.0}
    now = _eval(pricing={"receivable_days": 0.0}, financing=untaxed)
    later = _eval(pricing={"receivable_days": 30.0}, financing=untaxed)
    revenue = now.ops.cash.revenue[0]
    late = 30.0 / 30.4375
    collected = (1 - late) * revenue
    collected[1:] += late * revenue[:-1]
    collected[-1] += late * revenue[-1]
    v = (1 + float(finance.monthly_rate(0.12))) ** -np.arange(revenue.size)
    expected = float((collected - revenue) @ v)
    assert later.kpis["npv_usd"] - now.kpis["npv_usd"] == pytest.approx(expected, rel=1e-9)
    assert expected < 0 and later.kpis["equity_npv_usd"] < now.kpis["equity_npv_usd"]


def test_a_debt_service_reserve_costs_equity_but_not_the_project() -> None:
    without, reserve = _eval(), _eval(financing={"dsra_months": 6})
    funded = reserve.ops.cash.debt.reserve_funded[0]
    service = reserve.ops.cash.debt.debt_service[0]
    running = np.convolve(service, np.ones(6), mode="valid")
    assert funded.sum() == pytest.approx(running.max(), rel=1e-12) and funded[0] == funded.sum()
    released = reserve.ops.cash.debt.reserve_released[0]
    repaid = int(finance.repayment_periods(reserve.ops.cash)[1][0]) - 1  # the month the loan is repaid
    assert int(np.flatnonzero(released)[0]) == repaid
    w = reserve.ops.cash.waterfall
    assert not w.reserve_draw.any() and not w.reserve_topup.any()  # the base case never needs it
    v = (1 + float(finance.monthly_rate(0.12))) ** -np.arange(service.size)
    expected = -float(funded @ v) + float(released @ v)
    assert reserve.kpis["equity_npv_usd"] - without.kpis["equity_npv_usd"] == pytest.approx(expected, rel=1e-9)
    assert reserve.kpis["npv_usd"] == pytest.approx(without.kpis["npv_usd"], rel=1e-12)

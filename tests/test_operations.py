"""Operations and reliability economics (issue 13): calibration, burn-in, spares, invariants, rejected designs."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neoplan
from neoplan.analysis.advice import breakeven_performance_loss
from neoplan.economics import operations
from neoplan.economics.operations import Design, failures_per_month, outcome
from neoplan.inputs.business import Operations
from neoplan.inputs.loading import scenario_from_dict


@lru_cache(maxsize=16)
def _result(**over: object) -> neoplan.Result:
    data: dict[str, object] = {"base": "optimized"}
    for path, value in over.items():
        section, field = path.split("__")
        data.setdefault(section, {})[field] = value  # type: ignore[index]
    return neoplan.evaluate(scenario_from_dict(data))


def _design(gpus: int = 1024, spares: int = 0, burn_in: float = 0.9, transceivers_per_gpu: float = 1.5) -> Design:
    return Design(gpus, 8, gpus // 8, spares, transceivers_per_gpu, 0.05, burn_in, 1.0, 1.0)


# --- BRIEF §6 calibration --------------------------------------------------------------------------------------------


def test_article_preset_gives_7_4_to_10_interruptions_a_month_at_1024_h100():
    assert 7.4 <= failures_per_month("article", 1024) <= 10
    assert 7.4 <= _result().operations.interruptions_per_month <= 10  # the optimized fabric's optics included


def test_llama3_preset_is_14_8_a_month_per_1024_within_15_percent():
    assert failures_per_month("llama3", 1024) == pytest.approx(14.8, rel=0.15)
    r = _result(operations__failure_preset="llama3")
    assert r.operations.interruptions_per_month == pytest.approx(14.8, rel=0.15)


def test_interruptions_scale_with_gpus():
    twice = _result(cluster__gpus=2048).operations.interruptions_per_month
    ratio = twice / _result().operations.interruptions_per_month
    assert 1.8 <= ratio <= 2.2


def test_a_dac_heavy_fabric_has_fewer_network_failures():
    tor = _result(fabric__topology="tor", fabric__oversubscription=1.0).operations.interruptions_by_cause["network"]
    assert tor < _result().operations.interruptions_by_cause["network"]


# --- burn-in, spares, checklist ---------------------------------------------------------------------------------


def test_skipping_burn_in_lowers_goodput_and_credits_early_failures():
    skipped = _result(timeline__integration_burn_in_weeks=0.0, timeline__onsite_burn_in_days=0.0)
    base = _result()
    assert skipped.operations.early_life_interruptions > 10 * base.operations.early_life_interruptions
    assert skipped.operations.goodput < base.operations.goodput
    # the early failures show in the customer's acceptance test, which then fails and costs revenue
    assert skipped.customers.acceptance_failure_probability > 0.9 > 0.2 > base.customers.acceptance_failure_probability
    assert skipped.ops.revenue.customer_loss_usd[:12].sum() > 10 * base.ops.revenue.customer_loss_usd[:12].sum()


def test_hot_spares_raise_availability_and_shorten_recovery():
    spared, base = _result(cluster__hot_spare_share=0.03).operations, _result().operations
    assert spared.availability > base.availability
    assert spared.goodput > base.goodput and spared.mttr_hours < base.mttr_hours


def test_each_checklist_gap_has_its_priced_effect():
    base = _result().operations
    assert base.gaps == []
    hang = _result(operations__nccl_hang_detection=False).operations
    assert hang.detection_minutes > base.detection_minutes and hang.goodput < base.goodput
    assert _result(operations__gpudirect_rdma=False).operations.performance_factor < 0.6 * base.performance_factor
    # bad rank placement slows the collectives at the message sizes it hits (half the exposed communication, 25 %
    # slower), on top of the 2:1 spine: bandwidth 0.875 × the 2:1 ratio, not a 25 % cut of the whole job
    c = operations.constant("perf.exposed_comm_share")
    spine = 1.0 / (0.9 + 0.1 * 2.0)  # 10 % of the exposed communication crosses the 2:1 spines
    placed = 1.0 - 0.25 * 0.5
    expected = 1.0 / ((1.0 - c) + c / (spine * placed))
    no_conf = _result(operations__slurm_topology_conf=False).operations.performance_factor
    assert no_conf == pytest.approx(expected, rel=1e-12)
    assert 0.95 * base.performance_factor < no_conf < 0.98 * base.performance_factor
    assert _result(operations__pkey_isolation=False).operations.utilization_factor < 1.0
    sdc = _result(operations__sdc_checks=False).operations
    assert sdc.lost_gpu_hours_per_month > base.lost_gpu_hours_per_month
    assert [g.channel for g in sdc.gaps] == ["failures"]


def test_four_nics_and_top_of_rack_deliver_less():
    base = _result().operations.performance_factor
    assert _result(fabric__nics_per_node=4).operations.performance_factor < base
    assert _result(fabric__topology="tor", fabric__oversubscription=2.0).operations.performance_factor < base
    assert _result(fabric__oversubscription=1.0).operations.performance_factor > base  # non-blocking is faster


def test_fixed_share_keeps_the_old_sla_credits():
    r = _result(operations__sla_credits="fixed_share", operations__performance_elasticity=0.0)
    credits = r.ops.revenue.sla_credits_usd
    assert credits.sum() == pytest.approx(r.scenario.pricing.sla_credit_share * r.ops.revenue.gross_usd.sum(), rel=1e-3)


def test_to_dict_has_the_operations_keys():
    d = _result().to_dict()
    for key in ("availability", "goodput", "interruptions_per_month", "performance_factor", "sla_credits_usd_per_year"):
        assert isinstance(d[key], float), key
    assert d["operations"]["mtbf_hours"] > 0 and set(d["operations"]["interruptions_by_cause"]) == set(
        operations.CAUSES
    )


# --- invariants ----------------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    gpus=st.integers(1, 20_000).map(lambda n: 8 * n),
    spares=st.integers(0, 50),
    mtbf=st.floats(0.05, 20),
    detect=st.floats(0, 1440),
    preset=st.sampled_from(operations.PRESETS),
    tpg=st.floats(0, 4),
)
def test_availability_and_goodput_are_shares_goodput_below_availability(gpus, spares, mtbf, detect, preset, tpg):
    ops = Operations(failure_preset=preset)
    out = outcome(ops, _design(gpus, spares, transceivers_per_gpu=tpg), np.array([mtbf, 2 * mtbf]), detect)
    assert np.all(out.availability > 0) and np.all(out.availability <= 1)
    assert np.all(out.goodput <= out.availability)
    assert out.availability[1] >= out.availability[0] and out.goodput[1] >= out.goodput[0]  # monotone in MTBF


def test_more_spares_never_lower_availability():
    ops = Operations()
    values = [float(outcome(ops, _design(spares=s), 0.2, 3.0).availability[0]) for s in range(6)]
    assert values == sorted(values) and values[-1] > values[0]


# --- the designs the article rejects ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "over",
    [
        {"fabric__topology": "tor", "fabric__oversubscription": 1.0},
        {"fabric__topology": "tor", "fabric__oversubscription": 2.0},
    ],
    ids=["tor_1to1", "tor_2to1"],
)
def test_rejected_designs_stop_beating_the_recommendation_on_npv(over):
    recommended, rejected = _result(), _result(**over)
    assert rejected.kpis["npv_usd"] < recommended.kpis["npv_usd"]
    # the break-even loss (what the cheaper design may lose) is below the loss it has
    loss = 1 - rejected.operations.performance_factor / recommended.operations.performance_factor
    breakeven = breakeven_performance_loss(rejected, recommended)
    assert breakeven is not None and breakeven < loss
    # without a price response to performance the cheaper design would still win (today's numbers)
    flat = {**over, "operations__performance_elasticity": 0.0}
    assert _result(**flat).kpis["npv_usd"] > _result(operations__performance_elasticity=0.0).kpis["npv_usd"]


def test_four_nics_lose_demand_not_price():
    """An observable spec cut: the refusing share of customers is a lost segment (utilization), the price holds."""
    base, four = _result(), _result(fabric__nics_per_node=4)
    assert four.operations.price_factor == pytest.approx(base.operations.price_factor, rel=1e-12)
    refusal, segment = 0.7, operations.constant("util.segment_loss_elasticity")
    assert four.operations.utilization_factor == pytest.approx(1.0 - segment * refusal, rel=1e-12)
    assert four.kpis["npv_usd"] < base.kpis["npv_usd"]  # the article's advice holds at the sourced defaults
    nobody = _result(fabric__nics_per_node=4, operations__four_nic_refusal_share=0.0)
    assert nobody.kpis["npv_usd"] > base.kpis["npv_usd"]  # if nobody refused, the cheaper fabric would win


def test_stress_drivers_move_npv_the_right_way():
    r = _result()
    drivers = r.drivers(3).with_values(mtbf_multiple=[1.0, 0.5, 1.0], performance_penalty=[0.0, 0.0, 0.1])
    npv = r.cases(drivers).kpis(r.scenario.financing.hurdle_rate)["npv_usd"]
    assert npv[0] == pytest.approx(r.kpis["npv_usd"]) and npv[1] < npv[0] and npv[2] < npv[0]


# --- every operations field at its bounds --------------------------------------------------------------------------


def _bound_values() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for name, info in Operations.model_fields.items():
        if info.annotation is bool:
            out.append((name, not info.default))
        elif info.annotation is float:
            for m in info.metadata:
                for attr in ("ge", "le"):
                    if getattr(m, attr, None) is not None:
                        out.append((name, float(getattr(m, attr))))
        else:
            out += [(name, v) for v in info.annotation.__args__]  # Literal choices
    return out


@pytest.mark.parametrize(("field", "value"), _bound_values(), ids=lambda v: str(v))
def test_every_operations_field_at_its_bounds_evaluates_with_sane_figures(field, value):
    r = _result(**{f"operations__{field}": value})
    d = r.to_dict()
    assert 0 <= d["goodput"] <= d["availability"] <= 1
    assert 0 <= d["performance_factor"] <= 1 and d["interruptions_per_month"] > 0
    assert d["sla_credits_usd_per_year"] >= 0 and r.operations.price_factor >= 0


def test_breakeven_price_still_zeroes_npv_with_operations_effects():
    r = _result(cluster__hot_spare_share=0.03, operations__sdc_checks=False, operations__scheduler="kubernetes")
    price = r.kpis["breakeven_usd_per_gpu_hour"]
    again = _result(
        cluster__hot_spare_share=0.03,
        operations__sdc_checks=False,
        operations__scheduler="kubernetes",
        pricing__usd_per_gpu_hour=price,
    )
    assert again.kpis["npv_usd"] == pytest.approx(0.0, abs=5_000.0)


def test_repairs_are_the_hardware_failures_that_need_a_part():
    """Repairs = interruptions × hardware share of causes × repair share; hot spares change none of them."""
    ops = Operations()
    by_cause = operations.interruptions_by_cause(ops.failure_preset, 1024, 1.5, 1.0)
    hardware = sum(by_cause[c] for c in operations.HARDWARE_CAUSES) / sum(by_cause.values())
    for spares in (0, 4):
        out = outcome(ops, _design(spares=spares), 1.0, 5.0)
        expected = out.interruptions_per_month[0] * hardware * operations.constant("repair.share")
        assert out.repairs_per_month[0] == pytest.approx(expected, rel=1e-12)
    assert 2.0 < out.repairs_per_month[0] < 4.0  # ≈ 8.7 interruptions, 84 % hardware, 41.5 % need a part


def test_repair_bill_is_remote_hands_plus_freight_and_reaches_the_cash_flows():
    """Each repair costs hands hours × the remote-hands rate + freight, monthly from go-live; dearer hands cost NPV."""
    base, dear = _result(), _result(opex__remote_hands_usd_per_hour=360.0)
    o = base.operations
    assert o is not None and dear.operations is not None
    per_repair = operations.constant("repair.hands_hours") * 180.0 + operations.constant("repair.freight_usd")
    assert o.repair_usd_per_year == pytest.approx(12 * o.repairs_per_month * per_repair, rel=1e-12)
    monthly = base.ops.opex_by_category["repairs"]
    go_live = int(np.ceil(base.ops.dates.go_live_month))
    assert monthly[: go_live - 1].sum() == 0.0  # nothing before go-live
    assert monthly[go_live + 1] == pytest.approx(o.repair_usd_per_year / 12, rel=1e-12)
    extra = dear.operations.repair_usd_per_year - o.repair_usd_per_year
    assert extra == pytest.approx(12 * o.repairs_per_month * 2.5 * 180.0, rel=1e-9)
    assert dear.kpis["npv_usd"] < base.kpis["npv_usd"]
    assert base.to_dict()["opex_usd_per_year"]["repairs"] > 0


def test_repairs_follow_the_mtbf_driver_in_stress_cases():
    """A stress case with twice the MTBF pays half the repair bill (the opex line is per case)."""
    r = _result()
    cases = r.cases(r.drivers(2).with_values(mtbf_multiple=np.array([1.0, 2.0])))
    bill = cases.opex_by_category["repairs"].sum(axis=1)
    assert bill[1] == pytest.approx(bill[0] / 2, rel=1e-9)


def test_rack_scale_nodes_are_repaired_a_compute_tray_at_a_time():
    """On NVL72 a failure takes one compute tray (4 GPUs) out, not the rack (72): availability counts trays."""
    r = neoplan.evaluate(neoplan.load_scenario("gb200_nvl72_18rack"))
    design, o = r.basis.reliability, r.operations
    assert design is not None and o is not None
    assert design.repair_unit == "compute tray"
    assert design.servers == r.servers * r.platform.compute_trays == 18 * 18
    assert o.availability == pytest.approx(1 - o.servers_down / design.servers, rel=1e-12)
    whole_racks = operations.outcome(
        r.scenario.operations,
        Design(
            design.gpus,
            design.gpus_per_node,
            r.servers,
            r.spare_servers,
            design.transceivers_per_gpu,
            design.restore_minutes,
            design.burn_in_months,
            1.0,
            1.0,
        ),
        1.0,
        o.detection_minutes,
    )
    assert 1 - o.availability < (1 - whole_racks.availability[0]) / 10  # a tray is 1/18 of a rack
    assert _result().basis.reliability.repair_unit == "server"  # HGX: the server


# --- rack-scale failure domain and the scale-out fabric (issue 25) -------------------------------------------------


def test_rack_lost_trays_reference_values() -> None:
    """D ~ Poisson(m) trays down in an 18-tray rack: held trays cover the first ones, above 2 down the rack is out."""
    m = 0.5
    pmf = [math.exp(-m) * m**k / math.factorial(k) for k in range(19)]
    tail = 1 - sum(pmf)
    # no held trays, no cordon: E[min(D, 18)]
    plain = sum(min(k, 18) * p for k, p in enumerate(pmf)) + 18 * tail
    assert operations.rack_lost_trays(np.array([m]), 18, 0, None)[0] == pytest.approx(plain, rel=1e-12)
    # the cordon: above 2 down, all 18 sold trays are out
    cordon = sum((18 if k > 2 else k) * p for k, p in enumerate(pmf)) + 18 * tail
    assert operations.rack_lost_trays(np.array([m]), 18, 0, 2)[0] == pytest.approx(cordon, rel=1e-12)
    # two trays held back: they cover the first two down; above 2 the 16 sold trays are out
    held = sum((16 if k > 2 else max(k - 2, 0)) * p for k, p in enumerate(pmf)) + 16 * tail
    assert operations.rack_lost_trays(np.array([m]), 18, 2, 2)[0] == pytest.approx(held, rel=1e-12)


def test_nvl72_racks_are_cordoned_and_held_back_trays_are_not_sold() -> None:
    base = neoplan.evaluate(neoplan.load_scenario("gb200_nvl72_18rack"))
    held = neoplan.evaluate(
        neoplan.load_scenario({"base": "gb200_nvl72_18rack", "cluster": {"held_back_trays_per_rack": 2}})
    )
    assert held.basis.reliability.sellable_gpus == 1296 * 16 // 18 == 1152
    assert held.ops.revenue.reserved_gpu_hours.max() == pytest.approx(
        base.ops.revenue.reserved_gpu_hours.max() * 16 / 18, rel=1e-12
    )
    assert held.operations.availability >= base.operations.availability  # in-rack spares cover failures
    assert held.kpis["npv_usd"] < base.kpis["npv_usd"] - 5e6  # but two trays a rack unsold cost far more
    frail = neoplan.evaluate(
        neoplan.load_scenario({"base": "gb200_nvl72_18rack", "operations": {"mtbf_multiple": 0.05}})
    )
    no_cordon = frail.basis.reliability.__class__(**{**frail.basis.reliability.__dict__, "cordon_above": None})
    out = operations.own_outcome(frail.scenario.operations, no_cordon)
    assert out.availability[0] > frail.operations.availability  # the cordon costs availability when failures pile up


def test_held_back_trays_are_for_rack_scale_platforms_only() -> None:
    with pytest.raises(neoplan.ScenarioError, match=r"cluster\.held_back_trays_per_rack applies to rack-scale"):
        neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "cluster": {"held_back_trays_per_rack": 1}}))


def test_nvl72_oversubscription_is_measured_against_its_scale_out_domain() -> None:
    """The scale-out fabric wires 324 trays in leaf groups of 32: traffic between racks crosses the spines, so 2:1
    costs an NVL72 cluster what it costs HGX (the old model compared 18 racks with a 32-server pod: no cost)."""
    two = neoplan.evaluate(neoplan.load_scenario("gb200_nvl72_18rack")).operations
    one = neoplan.evaluate(
        neoplan.load_scenario({"base": "gb200_nvl72_18rack", "fabric": {"oversubscription": 1.0}})
    ).operations
    assert one.performance_factor == 1.0
    assert two.performance_by_cause["oversubscription"] == pytest.approx(1 / (0.75 + 0.25 * 1.1), rel=1e-12)


def test_storage_choices_are_priced_performance() -> None:
    base = _result().operations
    self_built = _result(storage__vendor_class="self_built").operations
    assert self_built.performance_by_cause["small_file_storage"] == 0.98
    assert self_built.price_factor == pytest.approx(1 - 0.5 * (1 - 0.98 * base.performance_factor), rel=1e-12)
    backend = _result(storage__network="backend").operations
    assert backend.performance_by_cause["storage_network"] == pytest.approx(1 / (0.75 + 0.25 / 0.96), rel=1e-12)

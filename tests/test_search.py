"""Design search (:mod:`neoplan.analysis.search`): every design built and financed, ranked, constraints kept."""

from __future__ import annotations

import json
import math

import pytest

import neoplan
from neoplan.analysis.search import COLUMNS, Space, search
from neoplan.cli import main
from neoplan.errors import ScenarioError
from neoplan.inputs import profiles
from neoplan.inputs.scenario import describe

REQUIRED = (
    "gpu_model",
    "topology",
    "oversubscription",
    "nics_per_node",
    "gpus",
    "capex_usd",
    "npv_usd",
    "project_irr",
    "equity_irr",
    "min_dscr",
    "tco_usd_per_gpu_hour",
    "feasible",
    "infeasible_reason",
)


@pytest.fixture(scope="module")
def b200() -> neoplan.SearchResult:
    return search(neoplan.load_scenario("b200_1024"))


def test_the_b200_preset_ranks_many_designs_across_platforms_and_topologies(b200: neoplan.SearchResult) -> None:
    t = b200.table
    assert set(REQUIRED) <= set(t.columns) and list(t.columns) == list(COLUMNS)
    ok = t[t["feasible"]]
    assert len(ok) >= 10 and ok["gpu_model"].nunique() >= 2 and ok["topology"].nunique() >= 2
    # 4 HGX platforms × 40 designs, and 2 NVL72 platforms × 20 (a compute tray fixes its back-end NICs)
    assert t["design"].nunique() == Space().designs == 200 and len(t) == 600
    assert list(t["rank"]) == list(range(1, len(t) + 1))
    assert list(ok["npv_usd"]) == sorted(ok["npv_usd"], reverse=True)  # best first
    assert not t["feasible"].iloc[: len(ok)].eq(False).any()  # feasible rows come first


def test_a_design_that_cannot_be_built_says_why(b200: neoplan.SearchResult) -> None:
    t = b200.table
    tor = t[(t["gpu_model"] == "gb200-nvl72") & (t["topology"] == "tor")]
    assert len(tor) and not tor["feasible"].any()
    assert tor["infeasible_reason"].str.startswith("fabric.topology 'tor' puts a rack's 18 × 4 back-end NICs").all()


@pytest.mark.parametrize("rank", [1, 7, 40, 200])
def test_a_row_is_what_evaluate_gives_for_its_scenario(b200: neoplan.SearchResult, rank: int) -> None:
    """The batched financing of a design equals a full evaluate of the row's scenario."""
    row = b200.table.iloc[rank - 1]
    d = neoplan.evaluate(b200.scenario(rank)).to_dict()
    assert (d["gpu_model"], d["backend"]["topology"], d["gpus"]) == (row["gpu_model"], row["topology"], row["gpus"])
    for key in ("npv_usd", "project_irr", "equity_irr", "min_dscr", "tco_usd_per_gpu_hour"):
        assert row[key] == pytest.approx(d[key], rel=1e-9), key
    assert row["capex_usd"] == pytest.approx(d["capex_usd"]["total"], rel=1e-12)


def test_no_row_holds_a_design_the_model_would_refuse(b200: neoplan.SearchResult) -> None:
    """Issue 34: NVL72 with "4 NICs per 8 GPUs" bought half the NICs but kept the fabric and its bandwidth, and ranked
    first. A rack-scale tray fixes its NICs: no such row; every feasible row's scenario validates and evaluates to
    the row (the top row at least)."""
    t = b200.table
    rack_scale = t["gpu_model"].isin(["gb200-nvl72", "gb300-nvl72"])
    assert rack_scale.any() and (t.loc[rack_scale, "nics_per_node"] == 8).all()
    ok = t[t["feasible"]]
    for rank in ok["rank"].head(3):
        neoplan.evaluate(b200.scenario(int(rank)))  # validated and built: never refused
    assert not t["feasible"].iloc[len(ok) :].any()


def test_a_design_the_schema_refuses_is_an_infeasible_row_with_the_reason() -> None:
    """The validity check on every row: a rack-scale platform searched with 4 NICs is built with its tray's 8; a
    scenario the schema refuses (GPUs not in whole servers) gives infeasible rows naming why, never a ranked one."""
    base = neoplan.load_scenario("b200_1024")
    base = base.model_copy(update={"fabric": base.fabric.model_copy(update={"nics_per_node": 4})})
    t = search(base, space={"gpu_models": ["gb200-nvl72"], "nics_per_node": [4], "debt_shares": [0.6]}).table
    assert (t["nics_per_node"] == 8).all()  # the tray's count, whatever the space asks
    bad = base.model_copy(update={"cluster": base.cluster.model_copy(update={"gpus": 1004})})  # not whole servers
    t = search(bad, space={"gpu_models": ["b200-sxm"], "topologies": ["vms"], "debt_shares": [0.6]}).table
    assert not t["feasible"].any() and t["infeasible_reason"].str.startswith("cluster.gpus must be a multiple").all()


def test_every_feasible_design_meets_the_constraints() -> None:
    # at the sourced 2026 contract prices (a 4-year take-or-pay at $2.91) no B200 design covers its debt 1.1× nor
    # earns its equity a positive IRR: the limits test the filter
    limits = {"min_dscr": 0.1, "max_capex_usd": 60e6, "min_equity_irr": -0.1}
    t = search(neoplan.load_scenario("b200_1024"), constraints=limits).table
    ok = t[t["feasible"]]
    assert len(ok) >= 10
    assert (ok["min_dscr"] >= 0.1).all() and (ok["capex_usd"] <= 60e6).all() and (ok["equity_irr"] >= -0.1).all()
    broken = t[~t["feasible"] & t["capex_usd"].notna()]
    assert len(broken) and broken["infeasible_reason"].str.contains("min DSCR|capex|equity IRR").all()


def test_a_lower_is_better_objective_ranks_ascending() -> None:
    t = search(neoplan.load_scenario("b200_1024"), objective="tco_usd_per_gpu_hour").table
    ok = t[t["feasible"]]
    assert list(ok["tco_usd_per_gpu_hour"]) == sorted(ok["tco_usd_per_gpu_hour"])


def test_a_power_plan_searches_inside_the_envelope() -> None:
    base = neoplan.load_scenario({"base": "b200_1024", "cluster": {"size_by": "power"}, "facility": {"it_power_mw": 5}})
    space = {"topologies": ["vms", "spectrum_x"], "nics_per_node": [8], "storage_tiers": ["licensed"]}
    found = search(base, space=space)
    ok = found.table[found.table["feasible"]]
    assert (ok["it_power_kw"] <= 5000.0 + 1e-6).all() and (ok["it_power_kw"] >= 0.9 * 5000.0).all()
    assert ok.groupby("gpu_model")["gpus"].first().nunique() >= 3  # each platform fills 5 MW its own way
    best = neoplan.evaluate(found.scenario(1))
    assert best.gpus == found.table.iloc[0]["gpus"] and best.envelope is not None


def test_every_design_is_priced_at_its_own_platforms_date() -> None:
    """A 2024-10 scenario's H100 and H200 designs stay of 2024-10; B200, B300 and NVL72, not rented in 2024-10, are
    of 2026-11 (book, market and site), whatever else is searched."""
    t = search(neoplan.load_scenario("optimized"), space={"topologies": ["vms"], "debt_shares": [0.6]}).table
    books = {k: set(v) for k, v in t.groupby("gpu_model")["prices_as_of"]}
    old = {"h100-sxm", "h200-sxm"}
    assert books == {k: {"2024-10" if k in old else "2026-11"} for k in books} and len(books) == 6


def test_a_platform_profile_changes_only_the_inputs_it_names() -> None:
    base = neoplan.load_scenario("b200_1024")
    moved = profiles.with_platform(base, "gb300-nvl72")
    before, after = base.model_dump(mode="json"), moved.model_dump(mode="json")

    def flat(d: dict, prefix: str = "") -> dict:
        out = {}
        for k, v in d.items():
            out.update(flat(v, f"{prefix}{k}.") if isinstance(v, dict) and k != "prices" else {f"{prefix}{k}": v})
        return out

    changed = {k for k, v in flat(after).items() if flat(before)[k] != v}
    assert moved.description == describe(moved) and not moved.description_by_user  # generated: follows the plan
    assert changed - {"description"} <= set(profiles.CHANGED_FIELDS)
    assert (moved.cluster.gpus, moved.facility.rack_power_kw, moved.fabric.nic_gbps) == (1008, 150.0, 800)
    assert moved.pricing.usd_per_gpu_hour == 7.55  # the on-demand row of data/rental_contracts.csv
    assert profiles.with_platform(base, "b200-sxm") == base  # its own platform keeps its inputs


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"objective": "irr"}, r"^objective must be one of npv_usd, "),
        ({"space": {"topologies": ["mesh"]}}, r"^space\.topologies: 'mesh' is not allowed$"),
        ({"space": {"colours": ["red"]}}, r"^space\.colours: unknown field"),
        ({"space": {"debt_shares": []}}, r"^space\.debt_shares must list at least one value$"),
        ({"constraints": {"min_dscr": -1}}, r"^constraints\.min_dscr must be between 0 and 100, got -1$"),
        ({"constraints": {"max_npv": 1}}, r"^constraints\.max_npv: unknown constraint"),
        ({"space": {"debt_shares": [i / 1e4 for i in range(600)]}}, r"^space: 120,000 designs × debt shares exceed"),
    ],
)
def test_bad_search_input_is_one_line_naming_the_field(kwargs: dict, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        search(neoplan.load_scenario("optimized"), **kwargs)


def test_cli_search_json_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "b200_1024", "--json", "--top", "5", "--min-dscr", "1.2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["objective"] == "npv_usd" and out["constraints"]["min_dscr"] == 1.2 and len(out["table"]) == 5
    assert out["designs"] == 200 and all(set(REQUIRED) <= set(row) for row in out["table"])
    assert all(r["min_dscr"] >= 1.2 for r in out["table"] if r["feasible"])
    assert all(v is None or not isinstance(v, float) or math.isfinite(v) for r in out["table"] for v in r.values())
    assert main(["search", "b200_1024", "--top", "3", "--objective", "capex_usd"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith("capex_usd over 200 designs") and len(text) == 2 + 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--objective", "irr"], "error: objective must be one of"),
        (["--max-capex-usd", "-5"], "error: constraints.max_capex_usd must be between 0 and 1e+13, got -5.0"),
        (["--top", "0"], "error: --top must be ≥ 1, got 0"),
    ],
)
def test_cli_search_bad_input_exits_2_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "optimized", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_every_platform_has_a_sourced_profile_whose_racks_feed_their_servers() -> None:
    from neoplan.inputs.platforms import default_table
    from neoplan.inputs.pricebook import default_platforms

    shown = default_table()  # data/platform_defaults.csv: the one table the search's platform moves read
    assert set(shown) == set(default_platforms())
    for key, defaults in shown.items():
        platform = default_platforms()[key]
        power, per_rack = defaults["facility.rack_power_kw"], defaults["facility.servers_per_rack"]
        for d in (power, per_rack):
            assert d.source and d.date and d.basis in ("quoted", "estimate", "fitted"), key
        assert per_rack.value * platform.node_max_power_kw <= power.value, key  # the racks are full
        # four HGX servers a rack, but two of the air-cooled B200 (four would draw 57 kW, above the air limit)
        assert per_rack.value == (1 if platform.rack_scale else 2 if key == "b200-sxm" else 4), key


def test_a_design_is_of_one_date_whatever_else_is_searched() -> None:
    """Issue 36: the same B200 design ranked +$20.2 M or −$14.9 M as other platforms joined the search (they moved
    its price book, not its rental market). Each row is of its own date now: the same figures alone or with NVL72."""
    small = {"topologies": ("vms",), "oversubscriptions": (2.0,), "nics_per_node": (8,)}
    small |= {"storage_tiers": ("licensed",), "debt_shares": (0.6,)}
    opt = neoplan.load_scenario("optimized")  # 2024-10: no B200 rented then, so its rows are of 2026-11
    alone = search(opt, {**small, "gpu_models": ("b200-sxm",)}).table
    mixed = search(opt, {**small, "gpu_models": ("h100-sxm", "b200-sxm", "gb200-nvl72")}).table
    b200 = mixed[mixed["gpu_model"] == "b200-sxm"]
    assert len(alone) == len(b200) == 1
    for key in ("npv_usd", "project_irr", "capex_usd", "usd_per_gpu_hour"):
        assert b200[key].iloc[0] == pytest.approx(alone[key].iloc[0], rel=1e-12), key
    books = dict(zip(mixed["gpu_model"], mixed["prices_as_of"], strict=True))
    assert books == {"h100-sxm": "2024-10", "b200-sxm": "2026-11", "gb200-nvl72": "2026-11"}
    row = neoplan.evaluate(search(opt, {**small, "gpu_models": ("b200-sxm",)}).scenario(1))
    assert not any(w.startswith("prices_as_of") for w in row.warnings)  # no row mixes vintages
    assert row.scenario.facility.colo_usd_per_kw_month == 195.0  # its site of 2026-11 too

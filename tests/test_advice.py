"""The article's recommendations tested on a scenario (neoplan.analysis.advice): the table, the verdicts under the
sourced defaults, flip points that really tie the two designs, the CLI."""

from __future__ import annotations

import json
import math
from functools import lru_cache

import pytest

import neoplan
from neoplan.analysis import advice
from neoplan.cli import main
from neoplan.inputs.loading import scenario_from_dict
from neoplan.inputs.presets import deep_merge

ARTICLE = (
    "nics",
    "rails",
    "vms",
    "oversubscription",
    "ufm",
    "burn_in",
    "hot_spares",
    "no_bluefield",
    "generic_networks",
    "ram",
    "no_ai_enterprise",
    "parallel_storage",
    "storage_frontend",
)


@lru_cache(maxsize=4)
def _table(preset: str):  # type: ignore[no-untyped-def]
    return advice.recommendations(neoplan.load_scenario(preset))


def _row(preset: str, key: str) -> dict:
    t = _table(preset)
    return t[t["key"] == key].iloc[0].to_dict()


def _npv(preset: str, change: dict) -> float:
    base = neoplan.load_scenario(preset).model_dump(mode="json")
    return float(neoplan.evaluate(scenario_from_dict(deep_merge(base, change))).kpis["npv_usd"])


def test_one_row_per_recommendation_of_the_article_and_the_rack_scale_one() -> None:
    t = _table("optimized")
    assert tuple(t.columns) == advice.COLUMNS
    assert tuple(t["key"]) == (*ARTICLE, "held_back_trays")
    assert _row("optimized", "held_back_trays")["note"] == "does not apply to this platform"
    rack = _table("gb200_nvl72_18rack")
    assert rack[rack["key"] == "ram"].iloc[0]["note"] == "does not apply to this platform"
    assert rack[rack["key"] == "held_back_trays"].iloc[0]["wins"]  # sell every tray: the cordon rule is cheaper


def test_the_difference_is_the_two_evaluations() -> None:
    row = _row("optimized", "no_ai_enterprise")
    assert row["npv_recommended_usd"] == pytest.approx(_npv("optimized", {"opex": {"ai_enterprise": False}}))
    assert row["npv_alternative_usd"] == pytest.approx(_npv("optimized", {"opex": {"ai_enterprise": True}}))
    assert row["npv_difference_usd"] == pytest.approx(row["npv_recommended_usd"] - row["npv_alternative_usd"])


def test_verdicts_under_the_sourced_defaults() -> None:
    """Which of the article's recommendations win on the optimized preset with the sourced defaults (issue 25's
    table). A data change that flips one must say why: the flip column names the input it turns on."""
    t = _table("optimized").set_index("key")
    wins = {key for key in ARTICLE if t.loc[key, "wins"]}
    assert wins == set(ARTICLE) - {"oversubscription", "hot_spares", "parallel_storage"}
    # 2:1 loses by little against its capex and flips inside the elasticity's range; Weka/Vast is a tie within the
    # small-file estimate (at 2024-10 rents it loses by ~$22k on an NPV of −$16.7 M); hot spares need customers to
    # tell operators apart by a tenth of the tier gap
    assert 0.3 < t.loc["oversubscription", "flip_value"] < 0.5  # 2:1 wins below an elasticity of ~0.43
    assert t.loc["parallel_storage", "flip_value"] == pytest.approx(t.loc["parallel_storage", "model_value"], abs=0.005)
    assert t.loc["hot_spares", "flip_value"] < 0.2 * t.loc["hot_spares", "model_value"]


@pytest.mark.parametrize(
    ("preset", "key", "path"),
    [
        ("optimized", "oversubscription", "operations.performance_elasticity"),
        # on the 2024-10 market a build that goes live later escapes part of 2025's forecast 25 % fall, so burn-in
        # wins even without early-life failures (no flip in the field's range); the 2026 H200 build has one
        ("h200_1024_2026", "burn_in", "operations.early_life_hazard_multiple"),
        ("optimized", "ufm", "opex.opensm_engineering_fte"),
    ],
)
def test_at_a_field_levers_flip_point_the_two_designs_tie(preset: str, key: str, path: str) -> None:
    row = _row(preset, key)
    flip = row["flip_value"]
    assert flip is not None and math.isfinite(flip)
    rec = next(r for r in advice.catalogue(neoplan.load_scenario(preset)) if r.key == key)
    at = advice._with_field
    gap = _npv(preset, at(rec.recommended, path, flip)) - _npv(preset, at(rec.alternative, path, flip))
    assert abs(gap) < 2_000.0  # dollars, on NPVs of tens of millions


def test_at_the_premium_flip_the_dearer_alternative_ties() -> None:
    row = _row("optimized", "no_bluefield")
    price = neoplan.load_scenario("optimized").pricing.usd_per_gpu_hour * (1 + row["flip_value"])
    dearer = _npv("optimized", {"node": {"dpus": 2, "frontend_nics": 0}, "pricing": {"usd_per_gpu_hour": price}})
    assert dearer == pytest.approx(row["npv_recommended_usd"], abs=2_000.0)
    assert 0 < row["flip_value"] < 0.05  # two BlueField-3 would have to earn about 1 % more


def test_a_performance_lever_is_the_break_even_loss_beside_the_modelled_one() -> None:
    row = _row("optimized", "storage_frontend")
    # GPU 0's NIC carries the server's 8 × 2 Gbit/s of storage: 4 % less bandwidth on top of the 2:1 spine's
    spine = 1 / (0.9 + 0.1 * 2.0)

    def perf(bandwidth: float) -> float:
        return 1 / (0.75 + 0.25 / bandwidth)

    assert row["model_value"] == pytest.approx(1 - perf(spine * (1 - 8 * 2.0 / 400)) / perf(spine), rel=1e-9)
    assert row["wins"] == (row["model_value"] > row["flip_value"])


def test_cli_advice_prints_a_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["advice", "optimized", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["key"] for r in rows] == [*ARTICLE, "held_back_trays"]
    assert rows[0]["npv_difference_usd"] == pytest.approx(_row("optimized", "nics")["npv_difference_usd"])
    assert rows[-1]["npv_difference_usd"] is None  # not for an HGX cluster
    assert main(["advice", "optimized"]) == 0
    text = capsys.readouterr().out
    assert "No NVIDIA AI Enterprise" in text and "flips at" in text
    assert main(["advice", "no_such_file.yaml"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_the_manual_shows_the_optimized_presets_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/recommendations.md shows the table of the article's recommendations that the model gives for the
    optimized preset, generated while the site builds (the table computed once here, not twice)."""
    import sys
    from pathlib import Path

    docs = Path(__file__).resolve().parent.parent / "docs"
    sys.path.insert(0, str(docs))
    import gen_pages

    table = _table("optimized")
    asked: list[str] = []
    monkeypatch.setattr(advice, "recommendations", lambda scenario: asked.append(scenario.name) or table)
    page = (docs / "recommendations.md").read_text(encoding="utf-8")
    shown = gen_pages.fill(page, "recommendations.md")
    assert advice.markdown_table(table) in shown and "<!-- neoplan:" not in shown
    assert asked == [neoplan.load_scenario("optimized").name]

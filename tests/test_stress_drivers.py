"""data/stress_drivers.csv: the stress drivers' names, default ranges, distributions, reasons and sources, one
validated row per driver; a broken row is an error naming the file, the row and the column."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

import neoplan
from neoplan.analysis import stress
from neoplan.errors import DataError
from neoplan.finance.engine import Drivers

TEXT = stress.DRIVERS_FILE.read_text(encoding="utf-8")
ROWS = list(csv.DictReader(io.StringIO(TEXT)))


def test_one_row_per_engine_driver_in_the_engine_order() -> None:
    assert list(stress.DRIVERS) == list(Drivers.__dataclass_fields__)
    assert [r["key"] for r in ROWS] == list(stress.DRIVERS)


def test_every_row_says_why_where_from_when_and_how_known() -> None:
    for spec in stress.DRIVERS.values():
        assert len(spec.why) >= 20 and len(spec.source) >= 10, spec.key
        assert re.fullmatch(r"\d{4}-\d\d(-\d\d)?", spec.date) and spec.basis in ("quoted", "estimate"), spec.key
        # a structuring driver (the debt's size) is held at close in the Monte Carlo
        assert spec.distribution == ("fixed" if spec.key in stress.STRUCTURING else "triangular"), spec.key
    assert stress.DRIVERS["interest_rate"].basis == "quoted"  # 7–15 %: CoreWeave's facilities, 10-Q 2025-06


@pytest.mark.parametrize(
    ("key", "base", "low", "high"),
    [
        ("usd_per_gpu_hour", 2.0, 1.5, 2.5),  # ±25 %
        ("price_decline_per_year", 0.5, 0.5, 0.5),  # market: the curve's own low and high (test_stress); no fallback
        ("reserved_price_multiple", 0.8, 0.72, 0.88),  # market: the contracts' range; ±10 % only as a fallback
        ("sga_rate", 0.1, 0.05, 0.15),  # 5–15 % of revenue
        ("support_rate", 0.04, 0.03, 0.12),  # 3–12 % of hardware capex a year
        ("staff_fte_per_1000_gpus", 4.0, 2.0, 8.0),
        ("utilization", 0.95, 0.85, 1.0),  # ±10 points, at most 100 %
        ("utilization", 0.05, 0.0, 0.15),  # … at least 0
        ("interest_rate", 0.02, 0.0, 0.06),  # ±4 points, at least 0
        ("pue", 1.1, 1.0, 1.25),  # ±0.15, at least 1
        ("colo_usd_per_kw_month", 200.0, 110.0, 290.0),  # ±45 %
        ("delivery_delay_months", 3.0, 3.0, 9.0),  # on time to 6 months late
        ("useful_life_months", 18.0, 12.0, 30.0),  # ±12 months, at least 12
        ("mtbf_multiple", 1.0, 0.5, 1.7),
        ("detection_minutes", 1.5, 1.0, 31.5),  # half (at least 1) to +30 minutes
        ("performance_penalty", 0.0, -0.1, 0.1),
        ("token_share", 0.5, 0.5, 0.5),  # held at the plan's own split unless given a range
        ("usd_per_million_tokens", 1.2, 0.9, 1.5),  # ±25 %
        ("token_price_decline_per_year", 0.45, 0.30, 0.60),  # the trend row's range; ±15 points without one
        ("token_price_decline_per_year", 0.04, 0.0, 0.19),  # … at least 0
        ("serving_load_factor", 0.5, 0.3, 0.7),  # ±20 points
        ("serving_load_factor", 0.1, 0.05, 0.3),  # … at least 0.05
        ("serving_load_factor", 0.9, 0.7, 1.0),  # … at most 1
    ],
)
def test_default_range_rules_reference_values(key: str, base: float, low: float, high: float) -> None:
    spec = stress.DRIVERS[key]
    assert (spec.low(base), spec.high(base)) == pytest.approx((low, high), rel=1e-12, abs=1e-15)


def test_optimized_preset_default_ranges() -> None:
    ranges = stress.default_ranges(neoplan.load_scenario("optimized"))
    # the neocloud_2024 book's use: 70 % take-or-pay + 20 % on demand = 90 %, ±10 points
    assert (ranges["utilization"].low, ranges["utilization"].high) == pytest.approx((0.8, 1.0), rel=1e-12)
    assert (ranges["capex_multiple"].low, ranges["capex_multiple"].high) == pytest.approx((0.9, 1.1), rel=1e-12)
    assert {r.distribution for k, r in ranges.items() if k not in stress.STRUCTURING} == {"triangular"}
    assert {ranges[k].distribution for k in stress.STRUCTURING} == {"fixed"}


def test_the_serving_load_factor_moves_the_returns_only_of_a_plan_that_sells_tokens() -> None:
    rent = neoplan.evaluate(neoplan.load_scenario("b200_1024"))
    serve = neoplan.evaluate(neoplan.load_scenario({"base": "b200_1024", "pricing": {"sell": "tokens"}}))
    assert stress.default_ranges(serve.scenario)["serving_load_factor"] == stress.Range(0.3, 0.7)
    flat, moved = (stress.tornado(r, drivers=("serving_load_factor",)).swing("npv_usd")[0] for r in (rent, serve))
    assert flat == pytest.approx(0.0, abs=1e-6) and moved > 0
    low = stress.tornado(serve, drivers=("serving_load_factor",)).low["project_irr"][0]
    assert low < serve.kpis["project_irr"]  # fewer tokens served, a lower return


def test_drivers_without_a_scenario_field_carry_their_own_help_and_bounds() -> None:
    for spec in stress.DRIVERS.values():
        assert (spec.path is None) == (spec.description is not None), spec.key
        assert stress.driver_description(spec.key), spec.key
    assert stress.driver_bounds("capex_multiple") == (0.1, 10.0)
    assert stress.DRIVERS["capex_multiple"].bounds == (0.1, 10.0) and stress.DRIVERS["utilization"].bounds is None


# --- a broken table names the file, the row and the column ----------------------------------------------------------


def _with(tmp_path: Path, driver: str, cells: dict[str, str]) -> Path:
    """A copy of the shipped table with the row of ``driver`` changed."""
    rows = [{**r, **cells} if r["key"] == driver else r for r in ROWS]
    path = tmp_path / "stress_drivers.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(ROWS[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_the_shipped_table_reads_back_as_loaded(tmp_path: Path) -> None:
    assert stress.read_drivers(_with(tmp_path, "pue", {})) == stress.DRIVERS


@pytest.mark.parametrize(
    ("key", "cells", "message"),
    [
        ("utilization", {"low_by": "abc"}, "row 4, column 'low_by': must be a number, got 'abc'"),
        ("usd_per_gpu_hour", {"label": ""}, "row 2, column 'label': is empty"),
        (
            "pue",
            {"high_rule": "times"},
            "row 9, column 'high_rule': input should be 'scale', 'shift', 'set', 'curve' or 'market'",
        ),
        ("pue", {"distribution": "gamma"}, "row 9, column 'distribution': input should be"),
        ("pue", {"path": "facility.pue_typo"}, "row 9, column 'path': must be a dotted Scenario field"),
        ("pue", {"key": "pue_typo"}, "row 9, column 'key': must be a field of neoplan.finance.engine.Drivers"),
        ("pue", {"date": "2024-13"}, "row 9, column 'date': must be a date YYYY-MM or YYYY-MM-DD, got '2024-13'"),
        ("pue", {"basis": "guess"}, "row 9, column 'basis': input should be 'quoted', 'estimate' or 'fitted'"),
        ("pue", {"why": "short"}, "row 9, column 'why': string should have at least 20 characters"),
        ("pue", {"description": "PUE, again"}, "row 9, column 'description': give a description exactly when path"),
        ("capex_multiple", {"description": ""}, "row 5, column 'description': give a description exactly when"),
        ("capex_multiple", {"bound_high": ""}, "row 5, column 'bound_high': bound_low and bound_high: give both"),
        ("capex_multiple", {"bound_high": "0.05"}, "row 5, column 'bound_high': bound_low and bound_high"),
    ],
)
def test_a_bad_row_names_file_row_and_column(tmp_path: Path, key: str, cells: dict[str, str], message: str) -> None:
    with pytest.raises(DataError, match="^" + re.escape("stress_drivers.csv " + message)):
        stress.read_drivers(_with(tmp_path, key, cells))


def test_every_driver_has_one_row(tmp_path: Path) -> None:
    path = tmp_path / "stress_drivers.csv"
    path.write_text("".join(TEXT.splitlines(keepends=True)[:-1]), encoding="utf-8")  # the last driver dropped
    last = ROWS[-1]["key"]
    with pytest.raises(DataError, match=re.escape(f"stress_drivers.csv: no row for driver '{last}'")):
        stress.read_drivers(path)
    path.write_text(TEXT + TEXT.splitlines(keepends=True)[1], encoding="utf-8")  # the first driver twice
    with pytest.raises(DataError, match=re.escape("stress_drivers.csv: a driver appears twice")):
        stress.read_drivers(path)

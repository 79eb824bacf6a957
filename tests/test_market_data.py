"""The market evidence tables (issue 25): rental contracts, price-decline curves and resale values.

Each file is read as plain CSV, so these checks hold whatever the model later does with the rows: the columns
are there, every row carries a source, a date and a basis, every value sits inside the range its sources span,
and every GPU platform of ``data/gpu_platforms.csv`` has an on-demand price, a curve and a resale curve.
"""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path

import pytest

from neoplan.inputs.pricebook import BASES

DATA = Path(__file__).resolve().parent.parent / "data"
CONTRACTS = ("on_demand", "reserved_1y", "reserved_3y", "spot")
"""Contracts every platform prices; a five-year take-or-pay row (reserved_5y) is there where a source prices one."""
TERM_MONTHS = {"on_demand": 0, "reserved_1y": 12, "reserved_3y": 36, "reserved_5y": 60, "spot": 0}

# file: (required columns, value column, low column, high column)
TABLES = {
    "rental_contracts.csv": (
        (
            "platform",
            "contract",
            "term_months",
            "usd_per_gpu_hour",
            "low_usd_per_gpu_hour",
            "high_usd_per_gpu_hour",
            "date",
            "source",
            "basis",
        ),
        "usd_per_gpu_hour",
        "low_usd_per_gpu_hour",
        "high_usd_per_gpu_hour",
    ),
    "price_curves.csv": (
        (
            "generation",
            "platforms",
            "first_year",
            "age_year",
            "period",
            "decline_per_year",
            "low_decline_per_year",
            "high_decline_per_year",
            "date",
            "source",
            "basis",
        ),
        "decline_per_year",
        "low_decline_per_year",
        "high_decline_per_year",
    ),
    "residual_values.csv": (
        (
            "group",
            "platforms",
            "months",
            "residual_share",
            "low_residual_share",
            "high_residual_share",
            "date",
            "source",
            "basis",
        ),
        "residual_share",
        "low_residual_share",
        "high_residual_share",
    ),
}


def _rows(name: str) -> list[dict[str, str]]:
    with open(DATA / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _header(name: str) -> list[str]:
    with open(DATA / name, newline="", encoding="utf-8") as f:
        return next(csv.reader(f))


def _platforms() -> set[str]:
    return {row["key"] for row in _rows("gpu_platforms.csv")}


def _is_date(text: str) -> bool:
    for fmt in ("%Y-%m", "%Y-%m-%d"):
        try:
            datetime.strptime(text, fmt)
        except ValueError:
            continue
        return len(text) in (7, 10)  # zero-padded months and days only
    return False


def test_date_check_takes_zero_padded_year_months_and_real_days_only():
    assert _is_date("2026-10") and _is_date("2026-03-17")
    for bad in ("2026", "2026-13", "2026-1", "2026-02-30", "26-10", "2026/10", "mid-2026"):
        assert not _is_date(bad), bad


@pytest.mark.parametrize("name", sorted(TABLES))
def test_table_has_its_columns_and_every_row_is_sourced_dated_and_based(name):
    columns, _, _, _ = TABLES[name]
    assert _header(name) == list(columns)
    rows = _rows(name)
    assert rows, f"{name} has no rows"
    for line, row in enumerate(rows, start=2):
        assert None not in row and all(value is not None for value in row.values()), f"{name} line {line}: ragged"
        assert row["basis"] in BASES, f"{name} line {line}: basis {row['basis']!r}"
        assert _is_date(row["date"]), f"{name} line {line}: date {row['date']!r}"
        assert len(row["source"].strip()) >= 40, f"{name} line {line}: source too thin"
        if row["basis"] == "estimate":
            assert "estimate" in row["source"].lower(), f"{name} line {line}: an estimate must say so"


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_value_sits_inside_the_range_its_sources_span(name):
    _, value, low, high = TABLES[name]
    for line, row in enumerate(_rows(name), start=2):
        lo, mid, hi = float(row[low]), float(row[value]), float(row[high])
        assert lo <= mid <= hi, f"{name} line {line}: {lo} <= {mid} <= {hi} fails"


def test_contracts_cover_every_platform_and_contract_once():
    rows = _rows("rental_contracts.csv")
    platforms = _platforms()
    keys = [(row["platform"], row["contract"]) for row in rows]
    assert len(keys) == len(set(keys)), "a platform/contract pair appears twice"
    assert {row["platform"] for row in rows} <= platforms
    on_demand = {row["platform"] for row in rows if row["contract"] == "on_demand"}
    assert on_demand == platforms, f"no on-demand price for {sorted(platforms - on_demand)}"
    assert set(keys) - {(p, "reserved_5y") for p in platforms} == {(p, c) for p in platforms for c in CONTRACTS}
    for row in rows:
        assert int(row["term_months"]) == TERM_MONTHS[row["contract"]], row["platform"] + " " + row["contract"]
        assert 0.0 < float(row["low_usd_per_gpu_hour"]) < 50.0


def test_commitment_buys_a_discount_and_interruptible_capacity_is_cheapest():
    price = {(r["platform"], r["contract"]): float(r["usd_per_gpu_hour"]) for r in _rows("rental_contracts.csv")}
    for platform in _platforms():
        on_demand = price[(platform, "on_demand")]
        assert price[(platform, "reserved_3y")] <= price[(platform, "reserved_1y")] <= on_demand, platform
        assert price.get((platform, "reserved_5y"), 0.0) <= price[(platform, "reserved_3y")], platform
        assert price[(platform, "spot")] < on_demand, platform


@pytest.mark.parametrize(
    ("name", "group_column", "step_column"),
    [
        ("price_curves.csv", "generation", "age_year"),
        ("residual_values.csv", "group", "months"),
    ],
)
def test_each_platform_belongs_to_exactly_one_curve(name, group_column, step_column):
    rows = _rows(name)
    owner: dict[str, str] = {}
    for row in rows:
        for platform in row["platforms"].split(";"):
            assert owner.setdefault(platform, row[group_column]) == row[group_column], (name, platform)
    assert set(owner) == _platforms(), f"{name}: platforms {sorted(_platforms() ^ set(owner))} mismatch"
    steps = [(row[group_column], int(row[step_column])) for row in rows]
    assert len(steps) == len(set(steps)), f"{name}: a step appears twice"


def test_decline_curves_start_at_age_one_without_gaps_and_stay_fractions():
    by_generation: dict[str, list[int]] = {}
    for row in _rows("price_curves.csv"):
        by_generation.setdefault(row["generation"], []).append(int(row["age_year"]))
        for column in ("decline_per_year", "low_decline_per_year", "high_decline_per_year"):
            assert -1.0 <= float(row[column]) < 1.0, (row["generation"], row["age_year"], column)
        assert row["period"] == "forward" or len(row["period"]) == 9, row["period"]  # "2023-2024"
    for generation, ages in by_generation.items():
        assert sorted(ages) == list(range(1, len(ages) + 1)), generation
        assert len(ages) >= 5, f"{generation}: a curve should cover a five-year project"


def test_resale_shares_are_fractions_that_never_rise_with_age():
    by_group: dict[str, list[tuple[int, float, float, float]]] = {}
    for row in _rows("residual_values.csv"):
        shares = (float(row["low_residual_share"]), float(row["residual_share"]), float(row["high_residual_share"]))
        assert all(0.0 <= share <= 1.0 for share in shares), row["group"]
        by_group.setdefault(row["group"], []).append((int(row["months"]), *shares))
    for group, points in by_group.items():
        points.sort()
        for column in (1, 2, 3):
            series = [point[column] for point in points]
            assert series == sorted(series, reverse=True), f"{group}: resale share rises with age"

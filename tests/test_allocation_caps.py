"""Every API that allocates from a size the user gives is capped, and refuses a larger one at once (issue 23)."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

import neoplan
from neoplan.analysis import stress
from neoplan.analysis.stress import drivers as stress_drivers
from neoplan.charts.finance import price_grid
from neoplan.design.fabric import topology_picture
from neoplan.errors import ScenarioError
from neoplan.model import MAX_CASES, MAX_ENGINE_CASES


@pytest.fixture(scope="module")
def result() -> neoplan.Result:
    return neoplan.evaluate(neoplan.load_scenario("optimized"))


def _refused_at_once(call, match: str) -> None:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    start = time.process_time()
    try:
        with pytest.raises((ScenarioError, ValueError), match=match):
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.process_time() - start < 0.5
    assert peak < 50_000_000, f"{peak / 1e6:.0f} MB allocated before refusing"


@pytest.mark.parametrize("size", [stress.MAX_GRID_POINTS + 1, 1_000_000])
def test_grid_value_arrays_are_capped(result: neoplan.Result, size: int) -> None:
    values = np.linspace(2.0, 3.0, size)
    as_list = list(values)
    _refused_at_once(lambda: stress.grid(result, x_values=values), "between 1 and 201 values")
    _refused_at_once(lambda: stress.grid(result, y_values=as_list), "between 1 and 201 values")


@pytest.mark.parametrize("points", [1, 202, 10**9, 2.5, True])
def test_grid_points_are_capped(result: neoplan.Result, points: object) -> None:
    _refused_at_once(lambda: stress.grid(result, points=points), "grid points")  # type: ignore[arg-type]


@pytest.mark.parametrize("values", [[[2.0, 3.0], [2.5, 3.5]], [2.0, float("nan")], ["a", "b"], 3.0])
def test_grid_values_must_be_a_flat_list_of_numbers(result: neoplan.Result, values: object) -> None:
    with pytest.raises(ScenarioError, match="grid x_values"):
        stress.grid(result, x_values=values)  # type: ignore[arg-type]


def test_a_chunked_grid_equals_one_engine_call(result: neoplan.Result, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = stress.grid(result, points=5)
    monkeypatch.setattr(stress_drivers, "MC_CHUNK", 7)  # 25 cases in chunks of 7
    chunked = stress.grid(result, points=5)
    for metric, values in whole.metrics.items():
        np.testing.assert_allclose(chunked.metrics[metric], values, rtol=1e-12, equal_nan=True, err_msg=metric)


def test_a_large_grid_runs_in_bounded_memory(result: neoplan.Result) -> None:
    tracemalloc.start()
    try:
        stress.grid(result, points=41)  # 1,681 cases: one call would hold ~70 MB of monthly arrays
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * stress.MC_WORKERS * 1_000_000 + 20_000_000


@pytest.mark.parametrize("draws", [stress.MAX_DRAWS + 1, 10**12])
def test_monte_carlo_draws_are_capped(result: neoplan.Result, draws: int) -> None:
    _refused_at_once(lambda: stress.monte_carlo(result, draws=draws), "draws must be a whole number")


@pytest.mark.parametrize("n", [0, MAX_CASES + 1, 10**12, 1.5])
def test_driver_tables_are_capped(result: neoplan.Result, n: object) -> None:
    _refused_at_once(lambda: result.drivers(n), "cases must be a whole number")  # type: ignore[arg-type]


def test_one_engine_run_is_capped(result: neoplan.Result) -> None:
    _refused_at_once(lambda: result.cases(result.drivers(MAX_ENGINE_CASES + 1)), "at most 10,000 cases")
    _refused_at_once(lambda: result.returns_vs_price(np.ones(MAX_ENGINE_CASES + 1)), "1 to 10,000 prices")


@pytest.mark.parametrize(("points", "rounds"), [(10**7, 4), (1, 4), (33, 10**6), (33, -1)])
def test_solver_grids_are_capped(result: neoplan.Result, points: int, rounds: int) -> None:
    call = lambda: stress.solve(result, "usd_per_gpu_hour", "npv_usd", 0.0, 0.5, 9.0, points=points, rounds=rounds)  # noqa: E731
    _refused_at_once(call, "solve: (points|rounds)")


@pytest.mark.parametrize(("tier", "servers"), [(10**9, 4), (16, 10**9), (0, 4)])
def test_topology_picture_is_capped(result: neoplan.Result, tier: int, servers: int) -> None:
    _refused_at_once(
        lambda: topology_picture(result.fabric.backend, max_per_tier=tier, servers_shown=servers), "topology_picture"
    )


def test_price_grid_is_capped(result: neoplan.Result) -> None:
    _refused_at_once(lambda: price_grid(result, 10**9), "price_grid")
    assert price_grid(result, 41).size == 41

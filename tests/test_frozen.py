"""Shared results are read-only (:mod:`neoplan.frozen`): the app's cached Result, search and stress results cannot be
changed in place by one page and seen by every other visitor; a write fails loudly."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import numpy as np
import pytest
from conftest import page_path, run_page

import neoplan
from neoplan.frozen import FrozenDict, FrozenList, freeze
from neoplan.inputs.loading import scenario_json


def _reachable(obj: Any, seen: set[int] | None = None) -> list[Any]:
    """Every array, dict and list reachable from ``obj`` through dataclasses, plain objects and containers."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (str, bytes, int, float, type)) or obj is None:
        return []
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return [obj]
    found: list[Any] = [obj] if isinstance(obj, (dict, list)) else []
    if isinstance(obj, dict):
        values = list(obj.values())
    elif isinstance(obj, (list, tuple)):
        values = list(obj)
    elif type(obj).__module__.startswith("neoplan") and hasattr(obj, "__dict__"):  # dataclasses, the scenario
        values = list(vars(obj).values())
    else:
        values = []
    for value in values:
        found += _reachable(value, seen)
    return found


@pytest.fixture(scope="module")
def frozen() -> neoplan.Result:
    return freeze(neoplan.evaluate(neoplan.load_scenario("optimized")))


def test_every_array_and_mapping_of_a_frozen_result_is_read_only(frozen: neoplan.Result) -> None:
    found = _reachable(frozen)
    arrays = [a for a in found if isinstance(a, np.ndarray)]
    assert len(arrays) > 40 and not any(a.flags.writeable for a in arrays)
    assert all(isinstance(c, (FrozenDict, FrozenList)) for c in found if isinstance(c, (dict, list)))


def test_a_write_into_a_frozen_result_raises(frozen: neoplan.Result) -> None:
    with pytest.raises(ValueError, match="read-only"):
        frozen.ops.cash.revenue[0] = 1.0
    with pytest.raises(TypeError, match="shared result"):
        frozen.kpis["npv_usd"] = 0.0
    with pytest.raises(TypeError, match="shared result"):
        frozen.warnings.append("changed")
    with pytest.raises(TypeError, match="shared result"):
        frozen.tco_breakdown_usd_per_gpu_hour.update(power=0.0)


def test_a_frozen_result_reads_as_before(frozen: neoplan.Result) -> None:
    fresh = neoplan.evaluate(neoplan.load_scenario("optimized"))
    assert json.dumps(frozen.to_dict(), sort_keys=True) == json.dumps(fresh.to_dict(), sort_keys=True)
    assert frozen.monthly_table().equals(fresh.monthly_table())
    assert frozen.cases(frozen.drivers(3)).kpis(0.1)["npv_usd"] == pytest.approx(
        fresh.cases(fresh.drivers(3)).kpis(0.1)["npv_usd"], rel=1e-12
    )


def test_copies_are_the_callers_own(frozen: neoplan.Result) -> None:
    kpis = dict(frozen.kpis)
    kpis["npv_usd"] = 0.0
    deep = copy.deepcopy(frozen.kpis)
    deep["npv_usd"] = 0.0
    assert frozen.kpis["npv_usd"] != 0.0
    assert pickle.loads(pickle.dumps(frozen.warnings)) == frozen.warnings


def test_the_apps_cached_result_is_frozen() -> None:
    """The Result every session of the app shares (ui.state's cache) refuses a write."""
    from ui import state

    at = run_page(page_path("app"))
    cached = state._evaluate_cached(scenario_json(at.session_state[state.SCENARIO]))
    with pytest.raises(ValueError, match="read-only"):
        cached.ops.cash.revenue[:] = 0.0
    with pytest.raises(TypeError, match="shared result"):
        cached.kpis.clear()

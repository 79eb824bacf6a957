"""Issue 36: every workload × platform × serving scenario either evaluates — token figures finite, ``to_dict()`` and
its warnings whole — or is refused in one line naming the field (two workloads used to fail with an internal
``TypeError``). On each platform's own preset-like plan (the platform switch), selling tokens only."""

from __future__ import annotations

import math

import pytest

import neoplan
from neoplan.errors import ScenarioError
from neoplan.inputs.loading import scenario_from_dict
from neoplan.inputs.pricebook import DATA_DIR, default_platforms
from neoplan.inputs.profiles import with_platform

WORKLOADS = [line.split(",")[0] for line in (DATA_DIR / "workloads.csv").read_text().splitlines()[1:] if line]
SCENARIOS = ("interactive", "server", "offline")
BASES = {key: with_platform(neoplan.load_scenario("optimized"), key) for key in default_platforms()}


@pytest.mark.parametrize("platform", sorted(BASES))
@pytest.mark.parametrize("workload", WORKLOADS)
def test_every_workload_evaluates_or_is_refused_in_one_line(platform: str, workload: str) -> None:
    base = BASES[platform].model_dump(mode="json")
    for serving in SCENARIOS:
        data = {**base, "pricing": {**base["pricing"], "sell": "tokens", "workload": workload}}
        data["pricing"]["serving_scenario"] = serving
        try:
            scenario = scenario_from_dict(data)
        except ScenarioError as e:
            text = str(e)
            assert "\n" not in text and text.startswith("pricing."), (platform, workload, serving, text)
            continue
        r = neoplan.evaluate(scenario)
        d = r.to_dict()
        for key in ("tokens_per_second_per_gpu", "cost_usd_per_million_tokens", "usd_per_million_tokens"):
            assert d[key] is not None and math.isfinite(d[key]) and d[key] > 0, (platform, workload, serving, key)
        assert all(isinstance(w, str) and w for w in d["warnings"])
        assert d["serving"]["sold_output_tokens_per_day"] <= d["serving"]["output_tokens_per_day"] * (1 + 1e-9)

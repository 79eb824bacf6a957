"""A malformed scenario is refused quickly and in little memory whatever its shape (issue 23).

Each shape is about a megabyte (the upload limit): refused with one line in under a second of CPU and under
100 MB of Python allocations, with size and node caps checked before anything is built; JSON errors are JSON
errors (never re-read as YAML); nesting is refused as a ScenarioError, never a RecursionError.
"""

from __future__ import annotations

import re
import time
import tracemalloc
from typing import Any

import pytest

import neoplan
from neoplan.errors import ScenarioError
from neoplan.inputs.loading import parse_scenario
from neoplan.limits import SCENARIO_FILE_BYTES, SCENARIO_MAX_DEPTH, SCENARIO_MAX_NODES

MB = 1_000_000
CPU_S = 1.0
PEAK_BYTES = 100 * MB


def _fit(text: str) -> str:
    """``text`` cut to just under the file limit."""
    return text[: SCENARIO_FILE_BYTES - 16]


SHAPES = {
    "broken JSON (a price list cut off)": (
        "plan.json",
        '{"name": "x", "prices": {' + ", ".join(f'"k{i}": {i}' for i in range(80_000)),
    ),
    "JSON nested a megabyte deep": ("plan.json", '{"a": ' * 200_000),
    "JSON list of a quarter million lists": ("plan.json", '{"a": [' + "[], " * 240_000 + "[]]}"),
    "JSON mapping of 60,000 keys": ("plan.json", "{" + ", ".join(f'"k{i}": 1' for i in range(60_000)) + "}"),
    "YAML flow nesting a megabyte deep": ("plan.yaml", "a: " + "[" * 900_000),
    "YAML block nesting": ("plan.yaml", "".join("  " * i + "a:\n" for i in range(990))),
    "YAML flow list of 300,000 numbers": ("plan.yaml", "a: [" + "1, " * 320_000 + "1]"),
    "YAML mapping of 90,000 keys": ("plan.yaml", "".join(f"k{i}: 1\n" for i in range(90_000))),
    "YAML of 100,000 documents": ("plan.yaml", "---\na: 1\n" * 100_000),
    "YAML billion laughs": (
        "plan.yaml",
        "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10)),
    ),
    "YAML one scalar of a megabyte": ("plan.yaml", "name: " + "x" * 990_000),
    "YAML comment of a megabyte, then junk": ("plan.yaml", "#" + "x" * 990_000 + "\n: : :\n"),
    "JSON string of escapes": ("plan.json", '{"name": "' + "\\u0041" * 160_000 + '"}'),
    "YAML numbers a hundred thousand digits long": ("plan.yaml", "cluster: {gpus: " + "9" * 900_000 + "}"),
}


@pytest.mark.parametrize(("origin", "text"), list(SHAPES.values()), ids=list(SHAPES))
def test_a_malformed_file_is_refused_fast_and_small(origin: str, text: str) -> None:
    text = _fit(text)
    start = time.process_time()
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, origin)
    cpu = time.process_time() - start
    message = str(err.value)
    names_it = message.startswith(origin) or re.match(r"^[a-z_]+(\.[a-z_]+)*[: ]", message)  # the file or the field
    assert names_it and "\n" not in message and len(message) < 300, message
    assert cpu < CPU_S, f"{cpu:.2f} s of CPU to refuse it"
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError):
            parse_scenario(text, origin)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < PEAK_BYTES, f"{peak / MB:.0f} MB to refuse it"


def test_a_json_error_is_reported_as_json_with_its_line_and_column() -> None:
    text = '{\n  "base": "optimized",\n  "cluster": {gpus: 8}\n}\n'
    with pytest.raises(ScenarioError, match=r"^plan\.json line 3 column 15: not valid JSON \(Expecting property"):
        parse_scenario(text, "plan.json")
    with pytest.raises(ScenarioError, match="not valid JSON"):  # no file name: an object with quoted keys is JSON
        parse_scenario(text)


def test_a_yaml_flow_mapping_is_still_yaml() -> None:
    assert parse_scenario("{base: optimized, cluster: {gpus: 2048}}", "plan.yaml").cluster.gpus == 2048
    assert parse_scenario("{base: optimized, cluster: {gpus: 2048}}").cluster.gpus == 2048
    assert parse_scenario('{"base": "optimized", "cluster": {"gpus": 2048}}', "plan.yaml").cluster.gpus == 2048


def _nested(depth: int) -> dict[str, Any]:
    data: dict[str, Any] = {}
    node = data
    for _ in range(depth - 1):
        node["a"] = {}
        node = node["a"]
    return data


@pytest.mark.parametrize("depth", [SCENARIO_MAX_DEPTH + 1, 994, 100_000])
def test_deep_nesting_through_the_api_is_a_scenario_error(depth: int) -> None:
    with pytest.raises(ScenarioError, match=f"nested more than {SCENARIO_MAX_DEPTH} levels"):
        neoplan.load_scenario({"base": "optimized", "cluster": _nested(depth)})


def test_nesting_up_to_the_limit_gets_the_fields_message() -> None:
    with pytest.raises(ScenarioError, match=r"cluster\.gpus"):
        neoplan.load_scenario({"cluster": {"gpus": _nested(SCENARIO_MAX_DEPTH - 2)}})


def test_too_many_values_through_the_api_are_refused() -> None:
    with pytest.raises(ScenarioError, match=f"more than {SCENARIO_MAX_NODES:,} values"):
        neoplan.load_scenario({"base": "optimized", "prices": {f"k{i}": 1.0 for i in range(SCENARIO_MAX_NODES)}})


def test_a_mapping_that_contains_itself_is_refused() -> None:
    loop: dict[str, Any] = {"base": "optimized"}
    loop["cluster"] = loop
    with pytest.raises(ScenarioError, match="more than"):
        neoplan.load_scenario(loop)


def test_a_full_scenario_is_far_inside_the_caps() -> None:
    scenario = neoplan.load_scenario("optimized")
    again = parse_scenario(scenario.to_yaml(), "plan.yaml")
    assert again == scenario
    assert parse_scenario(scenario.to_json(), "plan.json") == scenario

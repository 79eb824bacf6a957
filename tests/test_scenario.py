"""Scenario format: defaults, help text, YAML/JSON round trips, ``base:`` presets, validation messages."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from pydantic import BaseModel
from strategies import PRESETS, scenario_dicts

from neoplan.errors import ScenarioError
from neoplan.inputs.fields import MAX_FILE_BYTES, SCHEMA_VERSION
from neoplan.inputs.hardware import Node
from neoplan.inputs.loading import load_scenario, parse_scenario, save_scenario, scenario_from_dict
from neoplan.inputs.presets import deep_merge, preset_names
from neoplan.inputs.scenario import Scenario, describe

SECTIONS = ("cluster", "node", "fabric", "storage", "facility", "opex", "financing", "pricing", "timeline")
FAST = settings(max_examples=30, deadline=None)


def _submodels(annotation: object) -> list[type[BaseModel]]:
    """Pydantic models inside a field annotation (``Fabric``, ``Fabric | None``, ``list[Fabric]`` …)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _submodels(arg)]


def _walk_fields(model: type[BaseModel], prefix: str = "") -> list[tuple[str, str | None]]:
    """(dotted field name, description) for every field of ``model`` and its nested sections."""
    out = []
    for name, info in model.model_fields.items():
        out.append((prefix + name, info.description))
        for sub in _submodels(info.annotation):
            out += _walk_fields(sub, f"{prefix}{name}.")
    return out


def _message(data: dict) -> str:
    with pytest.raises(ScenarioError) as err:
        scenario_from_dict(data)
    return str(err.value)


# --- defaults and help text ------------------------------------------------------------------------------------


def test_defaults_are_valid() -> None:
    default = Scenario()
    assert scenario_from_dict({}) == default
    assert Scenario.model_validate(default.model_dump()) == default
    assert default.schema_version == SCHEMA_VERSION
    assert default.cluster.servers * default.cluster.gpus_per_node == default.cluster.gpus


def test_scenario_has_every_section_of_the_plan() -> None:
    fields = Scenario.model_fields
    for section in SECTIONS:
        assert section in fields, section
        assert _submodels(fields[section].annotation), f"{section} is not a section model"


def test_every_field_has_a_description() -> None:
    fields = _walk_fields(Scenario)
    assert len(fields) > 60  # the walk really goes into the sections (and fabric.frontend, fabric.oob)
    assert "fabric.frontend.port_gbps" in dict(fields)
    missing = [name for name, desc in fields if not (desc and desc.strip())]
    assert missing == []


def test_every_numeric_field_states_its_unit() -> None:
    """Descriptions of int/float fields give a unit in [brackets] (ARCHITECTURE: units stated)."""
    numeric = []
    for name, _ in _walk_fields(Scenario):
        parts = name.split(".")
        model: type[BaseModel] = Scenario
        for part in parts[:-1]:
            model = _submodels(model.model_fields[part].annotation)[0]
        info = model.model_fields[parts[-1]]
        args = set(typing.get_args(info.annotation)) or {info.annotation}
        if args & {int, float} and name != "schema_version":
            numeric.append((name, info.description or ""))
    assert len(numeric) > 30
    assert [name for name, desc in numeric if "[" not in desc] == []


def test_every_section_model_has_a_docstring() -> None:
    for section in SECTIONS:
        (model,) = _submodels(Scenario.model_fields[section].annotation)
        assert (model.__doc__ or "").strip(), section


def test_architecture_example_is_a_valid_scenario() -> None:
    """The scenario example of ARCHITECTURE.md is the contract: its names must parse and mean what they say."""
    text = """
    base: optimized
    cluster:   {gpus: 1024, gpu_model: h100-sxm, gpus_per_node: 8}
    node:      {preset: optimized}
    fabric:    {topology: vms, oversubscription: 2.0, nics_per_node: 8}
    pricing:   {usd_per_gpu_hour: 2.20, utilization: 0.85}
    financing: {debt_share: 0.6, interest_rate: 0.11, term_months: 60}
    """
    sc = parse_scenario(text.replace("\n    ", "\n"))
    assert sc.base == "optimized"
    assert (sc.cluster.gpus, sc.cluster.gpu_model, sc.cluster.gpus_per_node) == (1024, "h100-sxm", 8)
    assert sc.cluster.servers == 128
    assert sc.node.preset == "optimized"
    assert (sc.fabric.topology, sc.fabric.oversubscription, sc.fabric.nics_per_node) == ("vms", 2.0, 8)
    assert sc.pricing.usd_per_gpu_hour == pytest.approx(2.20)
    assert sc.pricing.utilization == pytest.approx(0.85)
    assert (sc.financing.debt_share, sc.financing.interest_rate, sc.financing.term_months) == (0.6, 0.11, 60)


# --- presets ---------------------------------------------------------------------------------------------------


def test_shipped_presets() -> None:
    assert set(PRESETS) <= set(preset_names())
    for name in preset_names():
        sc = load_scenario(name)
        assert sc.base == name
        assert sc.name and sc.name != "untitled"


@pytest.mark.parametrize("name", PRESETS)
def test_presets_are_1024_h100(name: str) -> None:
    sc = load_scenario(name)
    assert (sc.cluster.gpus, sc.cluster.gpu_model, sc.cluster.gpus_per_node) == (1024, "h100-sxm", 8)


def test_reference_preset_is_the_oem_nvidia_quote() -> None:
    sc = load_scenario("reference")
    assert sc.node == Node(preset="oem_default")
    assert sc.fabric.topology == "reference"
    assert sc.fabric.oversubscription == 1.0
    assert (sc.fabric.frontend.port_gbps, sc.fabric.frontend.ports_per_node) == (200, 2)
    assert sc.fabric.frontend.switch_class == "spectrum"
    assert sc.fabric.oob.switch_class == "spectrum"
    assert sc.fabric.subnet_manager == "ufm"
    assert sc.opex.ai_enterprise is True


def test_optimized_preset_is_the_articles_recommendation() -> None:
    sc = load_scenario("optimized")
    assert sc.node == Node(preset="optimized")
    assert sc.fabric.topology == "vms"
    assert sc.fabric.oversubscription == 2.0
    assert (sc.fabric.frontend.port_gbps, sc.fabric.frontend.ports_per_node) == (100, 2)
    assert sc.fabric.frontend.switch_class == "generic"
    assert sc.fabric.oob.switch_class == "generic"
    assert sc.opex.ai_enterprise is False


def test_node_presets_differ_as_in_the_brief() -> None:
    oem, opt = Node(preset="oem_default"), Node(preset="optimized")
    assert (oem.cpu_tier, oem.ram_tb, oem.dpus) == ("top", 2.0, 2)
    assert (opt.cpu_tier, opt.ram_tb, opt.dpus, opt.frontend_nics) == ("mid", 1.0, 0, 1)
    assert oem.nvme_tb == opt.nvme_tb


def test_load_scenario_accepts_preset_path_and_mapping(tmp_path: Path) -> None:
    by_name = load_scenario("optimized")
    assert load_scenario({"base": "optimized"}) == by_name
    path = tmp_path / "plan.yaml"
    path.write_text("base: optimized\n", encoding="utf-8")
    assert load_scenario(path) == by_name
    assert load_scenario(str(path)) == by_name


# --- round trips -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PRESETS)
def test_preset_yaml_round_trip_is_lossless(name: str) -> None:
    sc = load_scenario(name)
    text = sc.to_yaml()
    again = parse_scenario(text)
    assert again == sc
    assert again.to_yaml() == text
    assert again.model_dump() == sc.model_dump()


@pytest.mark.parametrize("name", PRESETS)
def test_preset_json_round_trip_is_lossless(name: str) -> None:
    sc = load_scenario(name)
    text = sc.to_json()
    assert json.loads(text)["cluster"]["gpus"] == 1024  # really JSON
    again = parse_scenario(text)
    assert again == sc
    assert again.to_json() == text


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_save_then_load_is_lossless(tmp_path: Path, suffix: str) -> None:
    sc = scenario_from_dict({"base": "reference", "name": "Mine", "cluster": {"gpus": 2048, "hot_spare_share": 0.05}})
    path = save_scenario(sc, tmp_path / f"plan{suffix}")
    text = path.read_text(encoding="utf-8")
    if suffix == ".json":
        assert json.loads(text)["name"] == "Mine"
    else:
        assert yaml.safe_load(text)["name"] == "Mine"
    assert load_scenario(path) == sc


def test_round_trip_does_not_depend_on_the_preset_after_saving() -> None:
    """A saved scenario is explicit: every field is written, so it means the same when re-read."""
    sc = scenario_from_dict({"base": "reference", "node": {"ram_tb": 1.5}})
    dumped = yaml.safe_load(sc.to_yaml())
    assert set(SECTIONS) <= set(dumped)
    assert dumped["node"]["ram_tb"] == 1.5
    assert dumped["node"]["cpu_tier"] == "top"


@FAST
@given(scenario_dicts())
def test_yaml_round_trip_is_lossless(data: dict) -> None:
    """YAML → model → YAML → model: same model, same text.

    The input is written as ``to_yaml`` writes (escaped non-ASCII): PyYAML writes NEL/LS/PS raw under
    ``allow_unicode=True`` and reads them back as line breaks, so such a file would not say what the dict says.
    """
    first = parse_scenario(yaml.safe_dump(data, allow_unicode=False))
    assert first == scenario_from_dict(data)
    text = first.to_yaml()
    second = parse_scenario(text)
    assert second == first
    assert second.to_yaml() == text


@FAST
@given(scenario_dicts())
def test_json_round_trip_is_lossless(data: dict) -> None:
    first = parse_scenario(json.dumps(data, ensure_ascii=False))
    assert first == scenario_from_dict(data)
    text = first.to_json()
    second = parse_scenario(text)
    assert second == first
    assert second.to_json() == text


@FAST
@given(scenario_dicts(with_base=False))
def test_drawn_values_survive_validation(data: dict) -> None:
    """What the user writes is what the model holds (no silent clipping or coercion to other values)."""
    sc = scenario_from_dict(data)
    dumped = sc.model_dump()
    for section, fields in data.items():
        if isinstance(fields, dict) and section != "prices":
            for key, value in fields.items():
                if isinstance(value, dict):
                    for sub, v in value.items():
                        assert dumped[section][key][sub] == v
                else:
                    assert dumped[section][key] == value, f"{section}.{key}"
        elif section == "description" and not fields:  # no description of one's own: generated from the plan
            assert dumped[section] == describe(sc)
        else:
            assert dumped[section] == fields


def test_control_bidi_and_zero_width_characters_are_refused_naming_the_field_and_character() -> None:
    """Issue 39: text that reorders, hides or drives a terminal is refused where it is read (the library shows what
    was stored before this rule visibly: test_store.py)."""
    for data, words in (
        (
            {"description": "pasted from a PDF:\x80\x9f end"},
            "description: cannot contain line breaks or control characters (U+0080)",
        ),
        ({"name": "a\x85b"}, "name: cannot contain line breaks or control characters (U+0085)"),
        (
            {"name": "invoice\u202egpj.exe"},
            "name: cannot contain invisible or bidirectional formatting characters (U+202E)",
        ),
        (
            {"description": "ok\u200b"},
            "description: cannot contain invisible or bidirectional formatting characters (U+200B)",
        ),
    ):
        with pytest.raises(ScenarioError, match=re.escape(words)):
            scenario_from_dict(data)
    assert parse_scenario(scenario_from_dict({"description": "two\nlines\tand a tab"}).to_yaml()).description == (
        "two\nlines\tand a tab"
    )


# --- base: + overrides -----------------------------------------------------------------------------------------


def test_deep_merge() -> None:
    base = {"a": 1, "fabric": {"topology": "reference", "frontend": {"port_gbps": 200, "switch_class": "spectrum"}}}
    override = {"fabric": {"frontend": {"port_gbps": 100}}, "b": [1, 2]}
    merged = deep_merge(base, override)
    assert merged == {
        "a": 1,
        "b": [1, 2],
        "fabric": {"topology": "reference", "frontend": {"port_gbps": 100, "switch_class": "spectrum"}},
    }
    assert base["fabric"]["frontend"]["port_gbps"] == 200  # inputs untouched
    assert deep_merge({"x": {"y": 1}}, {"x": 5}) == {"x": 5}  # a non-mapping replaces
    assert deep_merge({"x": [1, 2]}, {"x": [3]}) == {"x": [3]}  # lists replace, never concatenate


def test_override_one_nested_field_keeps_the_rest_of_the_preset() -> None:
    ref = load_scenario("reference")
    sc = scenario_from_dict({"base": "reference", "fabric": {"frontend": {"port_gbps": 100}}})
    assert sc.fabric.frontend.port_gbps == 100
    assert sc.fabric.frontend.switch_class == ref.fabric.frontend.switch_class == "spectrum"
    assert sc.fabric.frontend.ports_per_node == ref.fabric.frontend.ports_per_node
    assert sc.fabric.model_dump(exclude={"frontend"}) == ref.fabric.model_dump(exclude={"frontend"})
    assert sc.model_dump(exclude={"fabric"}) == ref.model_dump(exclude={"fabric"})


def test_override_a_node_line_keeps_the_preset_node() -> None:
    sc = scenario_from_dict({"base": "reference", "node": {"ram_tb": 1.0}})
    oem = Node(preset="oem_default")
    assert sc.node.preset == "oem_default"
    assert sc.node.ram_tb == 1.0
    assert sc.node.model_dump(exclude={"ram_tb"}) == oem.model_dump(exclude={"ram_tb"})


def test_node_preset_over_base_gives_that_node_fully() -> None:
    sc = scenario_from_dict({"base": "reference", "node": {"preset": "optimized"}})
    assert sc.node == Node(preset="optimized") == load_scenario("optimized").node
    assert sc.fabric == load_scenario("reference").fabric  # only the node changed


def test_base_override_of_scalars_and_name() -> None:
    sc = scenario_from_dict({"base": "optimized", "name": "Mine", "cluster": {"gpus": 2048}})
    opt = load_scenario("optimized")
    assert sc.name == "Mine"
    assert sc.base == "optimized"
    assert sc.cluster.gpus == 2048
    assert sc.cluster.gpu_model == opt.cluster.gpu_model
    assert sc.financing == opt.financing


# --- invalid input: ScenarioError naming the field -------------------------------------------------------------

INVALID = [
    pytest.param({"base": "nosuch"}, "base", id="unknown-base"),
    pytest.param({"base": "../x"}, "base", id="path-traversal-base"),
    pytest.param({"base": "../../etc/passwd"}, "base", id="path-traversal-base-deep"),
    pytest.param({"base": "/etc/passwd"}, "base", id="absolute-path-base"),
    pytest.param({"base": 3}, "base", id="base-not-a-string"),
    pytest.param({"fabric": {"oversubscriptoin": 2.0}}, "fabric.oversubscriptoin", id="typo-nested"),
    pytest.param({"fabirc": {}}, "fabirc", id="typo-section"),
    pytest.param({"node": {"ram_gb": 1024}}, "node.ram_gb", id="typo-node"),
    pytest.param({"cluster": {"gpus": "many"}}, "cluster.gpus", id="type-int"),
    pytest.param({"cluster": {"gpus": 1024.5}}, "cluster.gpus", id="type-fractional-int"),
    pytest.param({"node": {"ram_tb": "lots"}}, "node.ram_tb", id="type-float"),
    pytest.param({"opex": {"ai_enterprise": "maybe"}}, "opex.ai_enterprise", id="type-bool"),
    pytest.param({"fabric": {"topology": "star"}}, "fabric.topology", id="type-literal"),
    pytest.param({"fabric": {"frontend": {"port_gbps": 300}}}, "fabric.frontend.port_gbps", id="type-literal-deep"),
    pytest.param({"cluster": 5}, "cluster", id="section-not-a-mapping"),
    pytest.param({"prices": [1, 2]}, "prices", id="prices-not-a-mapping"),
    pytest.param({"cluster": {"gpus": -8}}, "cluster.gpus", id="negative-gpus"),
    pytest.param({"node": {"nvme_tb": -1}}, "node.nvme_tb", id="negative-nvme"),
    pytest.param({"storage": {"usable_pb": -1}}, "storage.usable_pb", id="negative-storage"),
    pytest.param({"pricing": {"usd_per_gpu_hour": -2.2}}, "pricing.usd_per_gpu_hour", id="negative-price"),
    pytest.param({"prices": {"cpu_mid": -1}}, "prices.cpu_mid", id="negative-price-override"),
    pytest.param({"prices": {"cpu_mid": float("nan")}}, "prices.cpu_mid", id="nan-price-override"),
    pytest.param({"fabric": {"oversubscription": 0.5}}, "fabric.oversubscription", id="oversubscription-below-1"),
    pytest.param({"pricing": {"utilization": 1.2}}, "pricing.utilization", id="share-above-1"),
    pytest.param({"financing": {"debt_share": 1.5}}, "financing.debt_share", id="debt-share-above-1"),
    pytest.param({"timeline": {"deposit_share": -0.1}}, "timeline.deposit_share", id="share-below-0"),
    pytest.param({"node": {"ram_tb": float("nan")}}, "node.ram_tb", id="nan-float"),
    pytest.param({"cluster": {"gpus": 1020}}, "cluster.gpus", id="gpus-not-multiple-of-gpus-per-node"),
    pytest.param({"cluster": {"gpus": 1024, "gpus_per_node": 6}}, "cluster.gpus", id="gpus-not-multiple-6"),
    pytest.param({"node": {"dpus": 0, "frontend_nics": 0}}, "node.frontend_nics", id="no-frontend-port"),
    pytest.param({"base": "reference", "node": {"dpus": 0}}, "node.frontend_nics", id="no-frontend-port-over-base"),
    pytest.param({"financing": {"grace_months": 60, "term_months": 60}}, "financing.grace_months", id="grace=term"),
    pytest.param({"financing": {"grace_months": 70, "term_months": 60}}, "financing.grace_months", id="grace>term"),
    pytest.param({"financing": {"tax_period_months": 6}}, "financing.tax_period_months", id="tax-half-year"),
    pytest.param({"timeline": {"capex_timing": "start_of_month"}}, "timeline.capex_timing", id="capex-timing"),
    pytest.param({"schema_version": SCHEMA_VERSION + 1}, "schema_version", id="schema-from-the-future"),
    pytest.param({"schema_version": 0}, "schema_version", id="schema-zero"),
    pytest.param({"name": "x" * 500}, "name", id="name-too-long"),
]


@pytest.mark.parametrize(("data", "field"), INVALID)
def test_invalid_input_names_the_field(data: dict, field: str) -> None:
    msg = _message(data)
    assert field in msg
    assert "\n" not in msg
    assert "Traceback" not in msg
    assert "pydantic" not in msg.lower()  # our wording, not the library's URL or class names


def test_out_of_range_message_states_bound_and_value() -> None:
    msg = _message({"fabric": {"oversubscription": 0.5}})
    assert msg == "fabric.oversubscription must be between 1 and 16, got 0.5"
    bytes_msg = "storage.bytes_per_param must be between 0.5 and 100, got 101"
    assert _message({"storage": {"bytes_per_param": 101}}) == bytes_msg
    assert _message({"prices": {"cpu_mid": -1}}) == "prices.cpu_mid must be between 0 and 10,000,000, got -1"


def test_unknown_base_lists_the_presets() -> None:
    msg = _message({"base": "nosuch"})
    assert "nosuch" in msg
    for name in PRESETS:
        assert name in msg


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("- cluster\n- node\n", id="list"),
        pytest.param("42\n", id="number"),
        pytest.param("just some words\n", id="string"),
        pytest.param("", id="empty"),
        pytest.param("[1, 2, 3]", id="json-list"),
        pytest.param("null\n", id="null"),
    ],
)
def test_non_mapping_yaml_is_rejected(text: str) -> None:
    with pytest.raises(ScenarioError, match="mapping"):
        parse_scenario(text, "plan.yaml")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("cluster: {gpus: 1024\n", id="unclosed-flow"),
        pytest.param("cluster:\n  gpus: 8\n gpus: 16\n", id="bad-indent"),
        pytest.param("!!python/object/apply:os.system ['true']\n", id="python-tag"),
        pytest.param("cluster: \x00\n", id="nul-byte"),
    ],
)
def test_not_yaml_is_rejected_with_the_file_name(text: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, "plan.yaml")
    assert str(err.value).startswith("plan.yaml")
    assert "\n" not in str(err.value)


def test_not_yaml_names_the_line() -> None:
    with pytest.raises(ScenarioError, match=r"plan\.yaml line 3"):
        parse_scenario("name: x\nnode: {}\ncluster: {gpus: 8]\nfabric: {}\n", "plan.yaml")


def test_oversize_file_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("base: optimized\n#" + "x" * MAX_FILE_BYTES + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="larger"):
        load_scenario(path)
    with pytest.raises(ScenarioError, match="larger"):
        parse_scenario(path.read_text(encoding="utf-8"), "big.yaml")


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", id="png"),
        pytest.param(b"PK\x03\x04\x14\x00\x08\x00\x08\x00\xff\xfe", id="zip"),
        pytest.param("cluster: {gpus: 1024}\n".encode("utf-16"), id="utf-16"),
    ],
)
def test_non_text_file_is_rejected(tmp_path: Path, payload: bytes) -> None:
    path = tmp_path / "plan.yaml"
    path.write_bytes(payload)
    with pytest.raises(ScenarioError, match=r"plan\.yaml"):
        load_scenario(path)


def test_missing_file_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario(tmp_path / "nope.yaml")
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario("not-a-preset-or-file")


def test_validate_assignment_keeps_the_model_valid() -> None:
    sc = Scenario()
    with pytest.raises(ValueError, match="oversubscription"):
        sc.fabric.oversubscription = 0.5
    assert sc.fabric.oversubscription == 2.0


def test_alias_expansion_gives_a_short_message() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 5)]
    text = "\n".join([*lines, "name: *a4", ""])
    assert len(text) < 400
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, "bomb.yaml")
    assert len(str(err.value)) < 1000


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"opex": {"staff_loaded_cost_usd": float("inf")}}, "opex.staff_loaded_cost_usd"),
        ({"opex": {"transit_usd_per_month": float("inf")}}, "opex.transit_usd_per_month"),
        ({"prices": {"cpu_mid": float("inf")}}, "prices.cpu_mid"),
    ],
)
def test_infinite_values_are_rejected(data: dict, field: str) -> None:
    assert field in _message(data)


def test_no_eval_of_python_tags(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = f"name: !!python/object/apply:os.system ['touch {marker}']\n"
    with pytest.raises(ScenarioError):
        parse_scenario(text)
    assert not marker.exists()


def test_module_has_no_unsafe_yaml_load() -> None:
    import neoplan
    import neoplan.inputs.parsing as mod

    for path in sorted(Path(neoplan.__file__).parent.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        # the only yaml.load calls use the safe loader subclass (libyaml's CSafeLoader where PyYAML has it)
        assert all("Loader=_NoAliasLoader" in line for line in source.splitlines() if "yaml.load(" in line), path
        assert "eval(" not in source.replace("literal_eval(", ""), path
    assert issubclass(mod._NoAliasLoader, yaml.constructor.SafeConstructor)
    assert not issubclass(mod._NoAliasLoader, yaml.constructor.FullConstructor)


def test_frontend_ports_need_cards() -> None:
    with pytest.raises(ScenarioError, match=r"fabric\.frontend\.ports_per_node must be ≤ 2"):
        load_scenario({"base": "optimized", "fabric": {"frontend": {"ports_per_node": 4}}})
    two_nics = {"base": "optimized", "node": {"frontend_nics": 2}, "fabric": {"frontend": {"ports_per_node": 4}}}
    ok = load_scenario(two_nics)
    assert ok.fabric.frontend.ports_per_node == 4


# --- every number bounded, every bad value one line (issue 12) --------------------------------------------------


def _field_info(name: str) -> typing.Any:
    parts = name.split(".")
    model: type[BaseModel] = Scenario
    for part in parts[:-1]:
        model = _submodels(model.model_fields[part].annotation)[0]
    return model.model_fields[parts[-1]]


def _numeric_fields() -> list[tuple[str, typing.Any]]:
    out = []
    for name, _ in _walk_fields(Scenario):
        info = _field_info(name)
        args = set(typing.get_args(info.annotation)) or {info.annotation}
        if args & {int, float}:
            out.append((name, info))
    return out


def _bounds(info: typing.Any) -> tuple[float | None, float | None]:
    lower = next((getattr(m, a) for m in info.metadata for a in ("ge", "gt") if getattr(m, a, None) is not None), None)
    upper = next((getattr(m, a) for m in info.metadata for a in ("le", "lt") if getattr(m, a, None) is not None), None)
    return lower, upper


def test_every_number_has_a_lower_and_an_upper_bound() -> None:
    numeric = _numeric_fields()
    assert len(numeric) > 50
    unbounded = [name for name, info in numeric if None in _bounds(info)]
    assert unbounded == []
    prices_value = typing.get_args(Scenario.model_fields["prices"].annotation)[1]
    assert _bounds(typing.get_args(prices_value)[1]) == (0, 10_000_000)


def test_fractions_are_marked_and_bounded_to_0_1() -> None:
    """``json_schema_extra={"unit": "fraction"}`` tells the app to show the field as a percentage."""
    fractions = {name: info for name, info in _numeric_fields() if (info.json_schema_extra or {}).get("unit")}
    assert set(fractions) >= {
        "financing.interest_rate",
        "financing.debt_share",
        "financing.tax_rate",
        "financing.hurdle_rate",
        "pricing.utilization",
        "pricing.reserved_share",
        "pricing.price_decline_per_year",
        "opex.sga_rate",
    }
    rises = {"pricing.price_decline_per_year": -0.5}  # a flat "decline" may be a rise (one-year contracts, 2025-26)
    for name, info in fractions.items():
        assert info.json_schema_extra == {"unit": "fraction"}, name
        lower, upper = _bounds(info)
        assert lower == rises.get(name, 0) and 0 < upper <= 1, name
        assert "[fraction" in (info.description or ""), name
    not_fractions = {
        "facility.pue",
        "fabric.oversubscription",
        "financing.target_dscr",
        "pricing.reserved_price_multiple",
        "pricing.on_demand_price_multiple",
    }
    assert not_fractions.isdisjoint(fractions)
    described = {name for name, info in _numeric_fields() if "[fraction" in (info.description or "")}
    assert described == set(fractions)  # every field described as a fraction is marked, and no other


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"facility": {"rack_power_kw": 5e-324}}, "facility.rack_power_kw must be between 5 and 300, got 5e-324"),
        ({"facility": {"rack_power_kw": "5e-324"}}, "facility.rack_power_kw must be between 5 and 300, got 5e-324"),
        (
            {"opex": {"staff_loaded_cost_usd": 1e308}},
            "opex.staff_loaded_cost_usd must be between 0 and 5,000,000, got 1e+308",
        ),
        ({"cluster": {"gpus": 10**5000}}, "cluster.gpus must be between 8 and 1,000,000, got a 5001-digit integer"),
        ({"facility": {"pue": 10**5000}}, "facility.pue: input should be a valid number, got a 5001-digit integer"),
        (  # a mapping holding one (the fuzz test's find: repr() of the mapping raised ValueError)
            {"prices": {"qm9700": 10**5000, "cluster_burn_in_server_week": True}},
            "prices.cluster_burn_in_server_week must be a number, got true",
        ),
        ({"node": {"preset": {"a": 1}}}, "node.preset must be one of 'oem_default' or 'optimized', got {'a': 1}"),
        ({"cluster": {"gpus": True}}, "cluster.gpus: must be a number, got true"),
        (
            {"pricing": {"reserved_usd_per_gpu_hour": False}},
            "pricing.reserved_usd_per_gpu_hour: must be a number, got false",
        ),
        ({"prices": {"cpu_mid": True}}, "prices.cpu_mid must be a number, got true"),
        ({"prices": {"cpu_mid": 1e300}}, "prices.cpu_mid must be between 0 and 10,000,000, got 1e+300"),
        ({"prices": {"k" * 100: 1}}, "prices: key '" + "k" * 38 + "…: string should have at most 64 characters"),
        (
            {"cluster": {"gpus": 1024.5}},
            "cluster.gpus: input should be a valid integer, got a number with a fractional part (1024.5)",
        ),
        ({"cluster": {"gpu_model": "h" * 65}}, "cluster.gpu_model: string should have at most 64 characters, got 'hhh"),
        ({"cluster": {"a\nb": 1}}, "cluster.'a\\nb': unknown field (check the spelling)"),
        (
            {"base": "9" * 5000},
            "base must name a preset (b200_1024, b300_1024, gb200_nvl72_18rack, gb300_nvl72_18rack, h100_2048, "
            "h100_256, h200_1024, h200_1024_2026, optimized, reference), got 9",
        ),
        ({1: 2}, "scenario: key 1 must be text (a field name)"),
        ({"cluster": {None: 2}}, "cluster: key None must be text (a field name)"),
    ],
)
def test_bad_values_give_one_line_naming_the_field(data: dict, message: str) -> None:
    msg = _message(data)
    assert msg.startswith(message)
    assert "\n" not in msg and len(msg) < 200


@pytest.mark.parametrize(
    "text",
    [
        "cluster: {gpus: " + "9" * 5000 + "}\n",
        '{"cluster": {"gpus": ' + "9" * 5000 + "}}",
        "cluster: {gpus: 0x" + "f" * 5000 + "}\n",
        "cluster: {gpus: " + "1_" * 2000 + "1}\n",
    ],
)
def test_overlong_integer_in_a_file_names_the_field(text: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, "plan.yaml")
    assert str(err.value).startswith("cluster.gpus: input should be a valid integer, got a number ")
    assert str(err.value).endswith(" characters long")


def test_integers_up_to_100_characters_still_parse() -> None:
    assert parse_scenario("cluster: {gpus: 0000002048}\n").cluster.gpus == 2048
    with pytest.raises(ScenarioError, match=r"between 8 and 1,000,000, got a 99-digit integer$"):
        parse_scenario("cluster: {gpus: 1" + "0" * 98 + "}\n")  # parsed (not refused as text), then out of range


@pytest.mark.parametrize(
    "data",
    [
        {"cluster": {"gpus": 131_072}},  # a 100k+ GPU campus
        {"cluster": {"gpus": 1_000_000}},
        {"facility": {"rack_power_kw": 140}},  # GB200 NVL72 class
        {"facility": {"rack_power_kw": 5}},
        {"financing": {"interest_rate": 0.0, "tax_rate": 0.0, "debt_share": 0.0, "hurdle_rate": 0.0}},
        {"financing": {"interest_rate": 1.0, "tax_rate": 1.0, "debt_share": 1.0, "hurdle_rate": 1.0}},
        {"pricing": {"utilization": 0.0, "usd_per_gpu_hour": 0.0}},
        {"pricing": {"utilization": 1.0, "usd_per_gpu_hour": 100.0, "reserved_share": 1.0}},
        {"opex": {"staff_loaded_cost_usd": 5_000_000, "transit_usd_per_month": 10_000_000}},
        {"timeline": {"horizon_months": 240, "useful_life_months": 180}},
        {"prices": {"ib_chassis_cs9500": 10_000_000, "patch_cat6": 0}},
        {"storage": {"bytes_per_param": 0.5, "usable_pb": 1000}},
    ],
)
def test_ranges_a_real_user_needs_are_accepted(data: dict) -> None:
    scenario_from_dict({"base": "optimized", **data})


def test_booleans_stay_booleans() -> None:
    s = scenario_from_dict({"opex": {"ai_enterprise": True}, "financing": {"capitalize_idc": False}})
    assert s.opex.ai_enterprise is True and s.financing.capitalize_idc is False


def test_validate_assignment_refuses_out_of_range_values() -> None:
    s = Scenario()
    with pytest.raises(ValueError, match="rack_power_kw"):
        s.facility.rack_power_kw = 5e-324
    assert s.facility.rack_power_kw == 41.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cluster: {gpus: !!int abc}\n", "plan.yaml line 1: 'abc' is not an integer"),
        ("pricing: {utilization: !!float abc}\n", "plan.yaml line 1: 'abc' is not a number"),
        ("x: !!binary AAA\n", "plan.yaml line 1: not valid YAML or JSON"),
        ("a: &a 1\nb: *a\n", "plan.yaml line 2: aliases (*name) are not allowed"),
    ],
)
def test_explicit_yaml_tags_that_lie_are_refused_with_the_line(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, "plan.yaml")
    assert str(err.value) == message


@pytest.mark.parametrize("date", ["2024-13-45", "2024-02-03", "9999-12-31T23:59:60Z"])
def test_dates_in_text_fields_stay_text(date: str) -> None:
    """PyYAML would build a date (and fail on an impossible one); a name is text."""
    assert parse_scenario(f"name: {date}\ndescription: {date}\n").name == date


@pytest.mark.parametrize("text", ["name: \ud800\n", '{"name": "\ud800"}', 'name: "\\ud800"\n'])
def test_lone_surrogates_are_refused_in_one_line(text: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, "plan.yaml")
    assert "\n" not in str(err.value)

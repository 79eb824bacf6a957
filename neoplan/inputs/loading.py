"""Scenarios from presets, files and mappings: ``base:`` resolved by deep merge over ``data/scenarios/``, the
file read within its limits, validated into a :class:`~neoplan.inputs.scenario.Scenario`; saved atomically."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..economics.inference import throughput, workloads
from ..errors import ScenarioError as ScenarioError  # re-exported: the one input-error type
from ..files import write_atomic
from ..limits import SCENARIO_FILE_MB, size_text
from .fields import MAX_FILE_BYTES
from .messages import format_validation_error
from .parsing import _parse_text, _shown_path, check_shape
from .platform_switch import _with_platform_defaults
from .presets import _PRESET_NAME, _resolve_base, preset_names
from .scenario import Scenario


def scenario_from_dict(data: Mapping[str, Any]) -> Scenario:
    """Validate a scenario mapping, resolving ``base:`` first; raises ScenarioError."""
    if not isinstance(data, Mapping):
        raise ScenarioError("a scenario must be a mapping of sections (cluster:, node:, …)")
    check_shape(data)
    resolved = _resolve_base(data)
    cluster = resolved.get("cluster")
    if isinstance(cluster, Mapping) and cluster.get("platform_defaults") is True:
        resolved = _with_platform_defaults(resolved, data)
    try:
        scenario = Scenario.model_validate(resolved)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(exc)) from None
    check_against_tables(scenario)
    return scenario


def check_against_tables(scenario: Scenario) -> None:
    """Checks the schema cannot make without the data tables, made once when a scenario is loaded: the workload is
    one of ``data/workloads.csv`` and, when tokens are sold, the platform has a published (or derived) throughput
    for it (:mod:`neoplan.economics.inference`). Raises ScenarioError naming the field."""
    pricing = scenario.pricing
    known = workloads()
    if pricing.workload not in known:
        raise ScenarioError(f"pricing.workload must be one of {', '.join(known)}, got {pricing.workload!r}")
    if pricing.sell != "gpu_hours":
        throughput(scenario.cluster.gpu_model, pricing.workload, pricing.serving_scenario)


def parse_scenario(text: str, origin: str = "scenario") -> Scenario:
    """Parse YAML or JSON text (JSON is YAML) into a validated Scenario; ``origin`` names it in messages."""
    origin = _shown_path(origin)
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:  # text may hold lone surrogates
        raise ScenarioError(f"{origin}: file larger than {size_text(SCENARIO_FILE_MB)}")
    return scenario_from_dict(_parse_text(text, origin))


def load_scenario(source: str | Path | Mapping[str, Any]) -> Scenario:
    """A Scenario from a file path, a preset name or a mapping.

    A string that names a preset (``"reference"``) loads that preset; any
    other string or Path is read as a YAML/JSON file.
    """
    if isinstance(source, Mapping):
        return scenario_from_dict(source)
    if isinstance(source, str) and _PRESET_NAME.match(source) and source in preset_names():
        return scenario_from_dict({"base": source})
    path = Path(source)
    shown, name = _shown_path(str(path)), _shown_path(path.name)
    try:
        if not path.is_file():
            raise ScenarioError(f"{shown}: {'not a regular file' if path.exists() else 'no such file'}")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ScenarioError(f"{name}: file larger than {size_text(SCENARIO_FILE_MB)}")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(f"{name}: not a text file (expected YAML or JSON)") from None
    except OSError as exc:  # unreadable, a name too long, a folder that vanished …
        raise ScenarioError(f"{shown}: cannot read the file ({exc.strerror or type(exc).__name__})") from None
    return parse_scenario(text, name)


def save_scenario(scenario: Scenario, path: str | Path) -> Path:
    """Write ``scenario`` to ``path`` (atomically): JSON if it ends in ``.json``, else YAML."""
    path = Path(path)
    text = scenario.to_json() if path.suffix.lower() == ".json" else scenario.to_yaml()
    return write_atomic(path, text.encode("utf-8"))  # whole or not at all


def scenario_json(scenario: Scenario) -> str:
    """Canonical compact JSON of a scenario (a cache key)."""
    return json.dumps(scenario.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))

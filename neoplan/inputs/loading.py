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
    """A scenario from the text of a YAML or JSON file.

    The text is checked for size and shape before anything is built from it (at most 1 MB, 20,000 values and 32
    levels; YAML aliases and a second document are refused), ``base:`` is resolved over the preset it names, and
    the result is validated field by field.

    Parameters
    ----------
    text : str
        YAML or JSON (JSON is read as JSON and its errors reported as JSON's).
    origin : str, optional
        What to call the text in error messages, e.g. its file name.

    Returns
    -------
    Scenario
        The validated scenario.

    Raises
    ------
    ScenarioError
        For text that is not a valid scenario, in one line: the field and what it must be, or, for text that
        cannot be read (not YAML, too large, too deep), ``origin`` and where.

    Examples
    --------
    >>> from neoplan import parse_scenario
    >>> s = parse_scenario("base: optimized\\ncluster: {gpus: 2048}\\npricing: {usd_per_gpu_hour: 2.2}")
    >>> s.cluster.gpus, s.pricing.usd_per_gpu_hour, s.fabric.topology
    (2048, 2.2, 'vms')
    >>> parse_scenario("base: optimized\\nfabric: {oversubscription: 0.5}", "plan.yaml")
    Traceback (most recent call last):
    ...
    neoplan.errors.ScenarioError: fabric.oversubscription must be between 1 and 16, got 0.5
    """
    origin = _shown_path(origin)
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:  # text may hold lone surrogates
        raise ScenarioError(f"{origin}: file larger than {size_text(SCENARIO_FILE_MB)}")
    return scenario_from_dict(_parse_text(text, origin))


def load_scenario(source: str | Path | Mapping[str, Any]) -> Scenario:
    """A scenario from a preset name, a YAML or JSON file, or a mapping.

    ``base:`` names a preset of ``data/scenarios/`` and every other key overrides it, section by section (a deep
    merge); with ``cluster.platform_defaults: true`` the platform's defaults fill what the file leaves out.

    Parameters
    ----------
    source : str, pathlib.Path or mapping
        A preset name (``"optimized"``, see :func:`neoplan.preset_names`); else a path to a YAML or JSON file;
        or a mapping of sections, as a file would hold them.

    Returns
    -------
    Scenario
        The validated scenario.

    Raises
    ------
    ScenarioError
        For a missing or unreadable file, a file over its limits, or an invalid field: one line naming it.

    See Also
    --------
    parse_scenario : the same from text.
    neoplan.evaluate : what to do with it.

    Examples
    --------
    >>> import neoplan
    >>> neoplan.load_scenario("optimized").cluster.gpus
    1024
    >>> plan = neoplan.load_scenario({"base": "optimized", "cluster": {"gpus": 2048}, "node": {"ram_tb": 2}})
    >>> plan.cluster.gpus, plan.node.ram_tb, plan.node.preset
    (2048, 2.0, 'optimized')
    >>> neoplan.load_scenario({"base": "optimized", "cluster": {"gpus": 1020}})
    Traceback (most recent call last):
    ...
    neoplan.errors.ScenarioError: cluster.gpus must be a multiple of ... (8): 1,016 or 1,024, got 1,020
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
    """Write a scenario to a file, whole or not at all.

    Every field is written explicitly, so the file reads back to the same scenario whatever the presets and
    defaults become later.

    Parameters
    ----------
    scenario : Scenario
        What to write.
    path : str or pathlib.Path
        Where: JSON if the name ends in ``.json``, else YAML. Written to a temporary file beside it, then renamed.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import tempfile, pathlib, neoplan
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> plan = neoplan.load_scenario({"base": "optimized", "cluster": {"gpus": 2048}})
    >>> path = neoplan.save_scenario(plan, folder / "plan.yaml")
    >>> neoplan.load_scenario(path) == plan
    True
    >>> path.unlink(); folder.rmdir()
    """
    path = Path(path)
    text = scenario.to_json() if path.suffix.lower() == ".json" else scenario.to_yaml()
    return write_atomic(path, text.encode("utf-8"))  # whole or not at all


def scenario_json(scenario: Scenario) -> str:
    """Canonical compact JSON of a scenario (a cache key)."""
    return json.dumps(scenario.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))

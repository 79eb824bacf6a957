"""Presets: the shipped scenarios in ``data/scenarios/`` (a file's ``base:`` resolved by deep merge over them) and the
compute-node presets in ``data/node_presets.yaml``."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..errors import ScenarioError as ScenarioError  # re-exported: the one input-error type
from .parsing import _parse_text, _short
from .pricebook import DATA_DIR


@lru_cache(maxsize=1)  # keyed on nothing: the shipped data/node_presets.yaml (load_scenario 0.07 → 0.7 ms without)
def node_presets() -> dict[str, dict[str, Any]]:
    """Node presets from ``data/node_presets.yaml`` (field values by preset name)."""
    with NODE_PRESETS_FILE.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return {name: dict(values) for name, values in data.items()}


def preset_names() -> list[str]:
    """Names of the shipped scenario presets (files in ``data/scenarios/``)."""
    return sorted(p.stem for p in SCENARIOS_DIR.glob("*.yaml"))


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` laid over ``base``: mappings merge key by key, anything else replaces."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _preset_dict(name: str, depth: int = 0) -> dict[str, Any]:
    if not isinstance(name, str) or not _PRESET_NAME.match(name):
        raise ScenarioError(f"base must name a preset ({', '.join(preset_names())}), got {_short(name, 24)}")
    path = SCENARIOS_DIR / f"{name}.yaml"
    if not path.is_file():
        raise ScenarioError(f"base: no preset named {name!r}; choose one of {', '.join(preset_names())}")
    data = copy.deepcopy(_parsed_preset(str(path), path.stat().st_mtime_ns))
    return _resolve_base(data, depth + 1)


@lru_cache(maxsize=32)  # keyed on a preset file and its mtime: an edited file is read again (load_scenario ×15 without)
def _parsed_preset(path: str, mtime_ns: int) -> dict[str, Any]:
    """A preset file parsed once per version of the file (``mtime_ns`` is the cache key's version)."""
    return _parse_text(Path(path).read_text(encoding="utf-8"), Path(path).name)


def _resolve_base(data: Mapping[str, Any], depth: int = 0) -> dict[str, Any]:
    if depth > 5:
        raise ScenarioError("base: presets nest too deeply (more than 5 levels)")
    base = data.get("base")
    if base is None:
        return dict(data)
    merged = deep_merge(_preset_dict(base, depth), data)
    merged["base"] = base
    return merged


SCENARIOS_DIR = DATA_DIR / "scenarios"


NODE_PRESETS_FILE = DATA_DIR / "node_presets.yaml"


_PRESET_NAME = re.compile(r"^[a-z0-9][a-z0-9_\-]{0,63}$")

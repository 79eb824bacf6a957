"""A scenario file's ``cluster.platform_defaults: true``: the platform's defaults applied where the file sets
nothing itself, and what they changed, for people (:mod:`neoplan.inputs.platforms`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ScenarioError as ScenarioError  # re-exported: the one input-error type
from .hardware import Cluster
from .parsing import _parse_text, _shown_path
from .presets import _resolve_base
from .pricebook import default_platforms


def _with_platform_defaults(resolved: dict[str, Any], own: Mapping[str, Any]) -> dict[str, Any]:
    """``resolved`` (preset + file) with its platform's defaults where the file (``own``) sets nothing itself."""
    return _platform_switch(resolved, own)[0]


def _platform_switch(resolved: dict[str, Any], own: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """(``resolved`` with its platform's defaults, what they changed for people) (:mod:`neoplan.inputs.platforms`)."""
    from .platforms import apply_file_defaults  # platforms reads the price book and catalogues; a cycle at import

    key = resolved["cluster"].get("gpu_model", Cluster.model_fields["gpu_model"].default)
    if key not in default_platforms():
        return resolved, ""  # validation names the unknown platform
    preset = _resolve_base({"base": own["base"]}) if isinstance(own.get("base"), str) else {}
    old = (preset.get("cluster") or {}).get("gpu_model", Cluster.model_fields["gpu_model"].default)
    data, switch = apply_file_defaults({**resolved, "cluster": {**resolved["cluster"], "gpu_model": key}}, own, old)
    return data, switch.note()


def platform_defaults_note(text: str, origin: str = "scenario") -> str:
    """What ``cluster.platform_defaults: true`` changed in the scenario file ``text``, for people (empty: nothing,
    or no such switch). Raises ScenarioError like :func:`parse_scenario`."""
    own = _parse_text(text, _shown_path(origin))
    resolved = _resolve_base(own)
    cluster = resolved.get("cluster")
    if not (isinstance(cluster, Mapping) and cluster.get("platform_defaults") is True):
        return ""
    return _platform_switch(resolved, own)[1]

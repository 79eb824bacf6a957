"""What changed between two versions of a scenario: the inputs that differ and what that does to the headline KPIs.

Inputs are compared as the scenario's JSON flattened to dotted paths (``fabric.oversubscription``; list items by
index, ``contracts.0.gpus``); the name is left out (it is the library entry's, not an input). KPIs are the
figures of :data:`neoplan.metrics.HEADLINE`, each with its label and unit from the registry, read from
``evaluate(...).to_dict()`` of both versions; a delta is ``new − old`` in the figure's unit, None where either
side is undefined (an IRR with no sign change).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import metrics
from ..inputs.scenario import Scenario

_ABSENT = object()


@dataclass(frozen=True)
class InputChange:
    """One input that differs: its dotted path, the old and the new value (None: absent on that side)."""

    path: str
    old: Any
    new: Any


@dataclass(frozen=True)
class KpiDelta:
    """One headline figure of both versions (``unit`` is the registry's: USD, fraction, months …)."""

    key: str
    label: str
    unit: str
    old: float | None
    new: float | None

    @property
    def delta(self) -> float | None:
        """``new − old`` [unit]; None when either is undefined."""
        if not (_finite(self.old) and _finite(self.new)):
            return None
        return float(self.new) - float(self.old)  # type: ignore[arg-type]

    def text(self) -> tuple[str, str, str]:
        """Old, new and the signed delta as the app and the CLI show them: a rate's change in percentage points
        (``−3.1 pp``), the rest in the figure's own format (``−$1.26 M``)."""
        m = metrics.METRICS[self.key]
        d = self.delta
        shown = "" if d is None else ("±0" if d == 0 else metrics.delta(self.key, self.new, self.old) or "±0")
        return m.text(self.old), m.text(self.new), shown


@dataclass(frozen=True)
class Diff:
    """Version ``a`` against version ``b`` of one scenario."""

    name: str
    a: int
    b: int
    inputs: list[InputChange]
    kpis: list[KpiDelta]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: inputs as ``{path, old, new}``, KPIs as ``{key, label, unit, old, new, delta}``."""
        return {
            "name": self.name,
            "a": self.a,
            "b": self.b,
            "inputs": [{"path": c.path, "old": c.old, "new": c.new} for c in self.inputs],
            "kpis": [
                {"key": k.key, "label": k.label, "unit": k.unit, "old": k.old, "new": k.new, "delta": k.delta}
                for k in self.kpis
            ],
        }


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    """``data`` (JSON values) as ``{dotted path: leaf}``; an empty dict or list is a leaf."""
    if isinstance(data, Mapping) and data:
        items = data.items()
    elif isinstance(data, list) and data:
        items = enumerate(data)  # type: ignore[assignment]
    else:
        return {prefix: data}
    out: dict[str, Any] = {}
    for key, value in items:
        out.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return out


def input_changes(old: Scenario, new: Scenario) -> list[InputChange]:
    """The inputs of ``new`` that differ from ``old``, by dotted path in the scenario's field order (a description
    generated from the plan on both sides is no input: it follows the ones that changed)."""
    generated = not old.description_by_user and not new.description_by_user
    exclude = {"name", "description"} if generated else {"name"}
    a = flatten(old.model_dump(mode="json", exclude=exclude))
    b = flatten(new.model_dump(mode="json", exclude=exclude))
    paths = list(a) + [p for p in b if p not in a]
    changes = []
    for path in paths:
        before, after = a.get(path, _ABSENT), b.get(path, _ABSENT)
        if before != after:
            changes.append(
                InputChange(path, None if before is _ABSENT else before, None if after is _ABSENT else after)
            )
    return changes


def kpi_deltas(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[KpiDelta]:
    """The headline figures of two ``Result.to_dict()`` outputs, side by side."""
    return [
        KpiDelta(
            key,
            metrics.METRICS[key].label,
            metrics.METRICS[key].unit,
            metrics.lookup(old, key),
            metrics.lookup(new, key),
        )
        for key in metrics.HEADLINE
    ]


def diff(name: str, a: int, old: Scenario, b: int, new: Scenario) -> Diff:
    """Version ``a`` (``old``) against version ``b`` (``new``): inputs that differ, and both evaluated."""
    from ..model import evaluate  # the model is loaded only when a diff is asked for

    return Diff(name, a, b, input_changes(old, new), kpi_deltas(evaluate(old).to_dict(), evaluate(new).to_dict()))

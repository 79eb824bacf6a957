"""Validation errors for people: a pydantic error turned into one line naming the field by its dotted path, its
range and what was given."""

from __future__ import annotations

from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from ..errors import ScenarioError as ScenarioError  # re-exported: the one input-error type
from .fields import _loc_part
from .parsing import _short
from .scenario import Scenario


def _num(value: float) -> str:
    """A bound for a message: ``5``, ``0.95``, ``1,000,000``."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def _field_limits(loc: tuple[int | str, ...]) -> tuple[list[str], list[str]]:
    """Lower and upper bounds of the field at ``loc`` as texts (``["≥ 5"]``, ``["≤ 300"]``); empty if none."""
    annotation: Any = Scenario
    info: FieldInfo | None = None
    for part in loc:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel) and part in annotation.model_fields:
            info = annotation.model_fields[str(part)]
            annotation = info.annotation
        elif get_origin(annotation) is dict:  # a value of a mapping field such as prices
            value_type = get_args(annotation)[1]
            info = next((m for m in get_args(value_type)[1:] if isinstance(m, FieldInfo)), None)
            annotation = None
        else:
            return [], []
    lower: list[str] = []
    upper: list[str] = []
    for m in info.metadata if info is not None else []:
        for attr, sign, out in (("ge", "≥", lower), ("gt", ">", lower), ("le", "≤", upper), ("lt", "<", upper)):
            if getattr(m, attr, None) is not None:
                out.append(f"{sign} {_num(getattr(m, attr))}")
    return lower, upper


def _range_text(loc: tuple[int | str, ...], fallback: str) -> str:
    """``between 5 and 300`` for inclusive bounds on both sides, ``> 0 and ≤ 100`` otherwise, else ``fallback``."""
    lower, upper = _field_limits(loc)
    if len(lower) != 1 or len(upper) != 1:
        return fallback
    if lower[0].startswith("≥") and upper[0].startswith("≤"):
        return f"between {lower[0][2:]} and {upper[0][2:]}"
    return f"{lower[0]} and {upper[0]}"


def format_validation_error(exc: ValidationError) -> str:
    """One line naming the first bad field, e.g. ``facility.rack_power_kw must be between 5 and 300, got 1``."""
    err = exc.errors(include_url=False)[0]
    loc = ".".join(_loc_part(p) for p in err["loc"])
    ctx = err.get("ctx") or {}
    kind = err["type"]
    got = _short(err.get("input"))
    if err["loc"][-1:] == ("[key]",):  # a bad key of a mapping such as prices
        parent = ".".join(_loc_part(p) for p in err["loc"][:-2])
        return f"{parent}: key {_short(err.get('input'), 40)}: {err['msg'][:1].lower()}{err['msg'][1:]}"
    bounds = {"greater_than_equal": "≥", "greater_than": ">", "less_than_equal": "≤", "less_than": "<"}
    if kind in bounds:
        limit = next(iter(ctx.values()))
        return f"{loc} must be {_range_text(err['loc'], f'{bounds[kind]} {_num(limit)}')}, got {got}"
    if kind == "invalid_key":  # a key that is not text, such as 1: in YAML
        parent = ".".join(_loc_part(p) for p in err["loc"][:-1])
        return f"{parent or 'scenario'}: key {got} must be text (a field name)"
    if kind == "extra_forbidden":
        return f"{loc}: unknown field (check the spelling)"
    if kind == "missing":
        return f"{loc}: required field is missing"
    if kind == "literal_error":
        return f"{loc} must be one of {ctx.get('expected', '')}, got {got}"
    if kind == "value_error":
        msg = str(ctx.get("error", err["msg"]))
        return msg if (loc == "" or msg.startswith(loc.split(".")[0])) else f"{loc}: {msg}"
    msg = err["msg"][:1].lower() + err["msg"][1:]
    if not loc:
        return msg
    return f"{loc}: {msg} ({got})" if ", got " in msg else f"{loc}: {msg}, got {got}"

"""Checks every chart test shares: a spec is valid Vega-Lite v6 and valid JSON (no NaN), and what a page drew."""

from __future__ import annotations

import functools
import json
from typing import Any

from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema.core import load_schema


@functools.cache
def _schema() -> dict[str, Any]:
    return load_schema()


def assert_valid_spec(spec: dict[str, Any], name: str = "") -> None:
    """``spec`` is a Vega-Lite v6 specification (the published JSON schema) and strict JSON (no NaN or infinity)."""
    json.dumps(spec, allow_nan=False)
    error = validate_jsonschema(spec, _schema(), rootschema=_schema(), raise_error=False)
    assert error is None, f"{name}: {error}"


def drawn_specs(at: Any) -> list[dict[str, Any]]:
    """The Vega-Lite specs an AppTest run drew (Streamlit moves inline data out of the spec: not included)."""
    return [json.loads(e.proto.spec) for e in at.get("vega_lite_chart")]


def drawn_charts(at: Any) -> int:
    """How many charts an AppTest run drew."""
    return len(at.get("vega_lite_chart"))

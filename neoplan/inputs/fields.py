"""The building blocks of the scenario schema: the section base class (numbers refuse booleans), shared
field types and the names of choices for people."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from ..errors import ScenarioError as ScenarioError  # re-exported: the one input-error type
from ..limits import SCENARIO_FILE_BYTES
from .parsing import _short
from .pricebook import MAX_UNIT_PRICE_USD

SCHEMA_VERSION = 1
MAX_FILE_BYTES = SCENARIO_FILE_BYTES

PriceKey = Annotated[str, Field(min_length=1, max_length=64)]
UnitPriceUsd = Annotated[float, Field(ge=0, le=MAX_UNIT_PRICE_USD)]

Topology = Literal["reference", "tor", "vms", "modular", "spectrum_x"]
NodePreset = Literal["oem_default", "optimized"]
TOPOLOGY_LABELS: dict[str, str] = {
    "reference": "Reference (NVIDIA RA, optics everywhere)",
    "tor": "Top-of-rack",
    "vms": "Virtual modular switch",
    "modular": "Modular chassis (CS9500 class)",
    "spectrum_x": "Spectrum-X Ethernet (SN5600 + SuperNICs)",
}
"""Names of the back-end designs for people (``fabric.topology``)."""
NODE_PRESET_LABELS: dict[str, str] = {"oem_default": "OEM default BoM", "optimized": "Optimized BoM"}
"""Names of the node presets for people (``node.preset``)."""
CpuTier = Literal["entry", "mid", "top"]


_NUMBER_TYPES: tuple[Any, ...] = (int, float, int | None, float | None)


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_booleans_for_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        """``true``/``false`` where a number belongs is a mistake (pydantic would read it as 1/0)."""
        field = cls.model_fields.get(info.field_name or "")
        if field is None:
            return value
        if isinstance(value, bool) and field.annotation in _NUMBER_TYPES:
            raise ValueError(f"must be a number, got {str(value).lower()}")
        if info.field_name == "prices" and isinstance(value, Mapping):
            for key, price in value.items():
                if isinstance(price, bool):
                    raise ValueError(f"prices.{_loc_part(key)} must be a number, got {str(price).lower()}")
        return value


_PLAIN_KEY = re.compile(r"^[\w\-]{1,64}$")


def _loc_part(part: int | str) -> str:
    """A field name as is; a user's mapping key quoted and cut short (it may hold anything)."""
    text = str(part)
    return text if _PLAIN_KEY.match(text) else _short(text, 40)

"""Accelerators the price book does not price (AMD Instinct, Intel Gaudi, Google TPU): named, sized, not compared.

A quote for servers of another vendor's accelerators is read like any other (its lines, its size, the network and
price findings) but never compared with an NVIDIA design, and the node advice written for HGX servers (CPU tier,
RAM, NICs per server, DPUs) is not given. ``data/quote_accelerators.csv`` names them: key, name, the pattern a line
names them by, accelerators per server, HBM per accelerator [GB], with source, date and basis.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pydantic import Field

from ..errors import DataError
from ..inputs.datafile import SourcedRow, keyed, read_numbered
from ..inputs.pricebook import DATA_DIR

ACCELERATORS_FILE = DATA_DIR / "quote_accelerators.csv"


class AcceleratorRow(SourcedRow):
    """A row of ``data/quote_accelerators.csv``."""

    key: str
    name: str
    pattern: str
    per_server: int = Field(ge=1, le=16)
    hbm_gb: float = Field(gt=0)


@dataclass(frozen=True)
class Accelerator:
    """An accelerator the model does not price: its id, name, how lines name it, per server and HBM [GB]."""

    key: str
    name: str
    pattern: re.Pattern[str]
    per_server: int
    hbm_gb: float


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/quote_accelerators.csv
def accelerators() -> dict[str, Accelerator]:
    """The accelerators of ``data/quote_accelerators.csv`` by key (cached; treat as read-only)."""
    return read_accelerators()


def read_accelerators(path: Path = ACCELERATORS_FILE) -> dict[str, Accelerator]:
    """The accelerators of a file by key; DataError naming the file, row and column of a bad row or pattern."""
    rows = read_numbered(path, AcceleratorRow)
    out = {}
    for line, row in rows:
        try:
            pattern = re.compile(row.pattern, re.IGNORECASE)
        except re.error as exc:
            raise DataError(ACCELERATORS_FILE.name, f"bad pattern ({exc})", row=line, column="pattern") from None
        out[row.key] = Accelerator(row.key, row.name, pattern, row.per_server, row.hbm_gb)
    keyed(rows, ACCELERATORS_FILE.name)
    return out


def accelerator_of(text: str) -> Accelerator | None:
    """The unpriced accelerator a text names (``8x AMD Instinct MI355X OAM``), else None."""
    return next((a for a in accelerators().values() if a.pattern.search(text)), None)


def unsupported(model: str | None) -> Accelerator | None:
    """The accelerator of a GPU model id that the price book does not price (``amd-mi355x``), else None."""
    return accelerators().get(model or "")

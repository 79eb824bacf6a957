"""Sourced ranges a plan's own results are checked against: capex per GPU by platform and book date
(``data/capex_per_gpu.csv``). A preset whose capex per GPU falls outside the range of its platform and date is
priced wrong (a test holds every preset to it); the README's presets table shows the range beside the model's
figure."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, model_validator

from ..errors import DataError
from .datafile import DATA_DIR, DataDate, SourcedRow, column_error, read_numbered

CAPEX_FILE = DATA_DIR / "capex_per_gpu.csv"


class CapexBand(SourcedRow):
    """All-in capex per GPU of a colocated cluster (hardware, fabric, storage, site fit-out) [USD per GPU]."""

    platform: str
    as_of: DataDate
    low_usd_per_gpu: float = Field(gt=0)
    high_usd_per_gpu: float = Field(gt=0)

    @model_validator(mode="after")
    def _ordered(self) -> CapexBand:
        if self.low_usd_per_gpu >= self.high_usd_per_gpu:
            raise column_error("low_usd_per_gpu", "must be below high_usd_per_gpu", self.low_usd_per_gpu)
        return self


def read_capex_bands(path: Path = CAPEX_FILE) -> dict[tuple[str, str], CapexBand]:
    """The bands of ``data/capex_per_gpu.csv`` (or ``path``) by (platform, book date); a pair on two rows is an
    error."""
    out: dict[tuple[str, str], CapexBand] = {}
    for row, band in read_numbered(path, CapexBand):
        key = (band.platform, band.as_of)
        if key in out:
            raise DataError(path.name, f"{band.platform} {band.as_of} appears twice", row=row, column="as_of")
        out[key] = band
    return out


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/capex_per_gpu.csv
def capex_bands() -> dict[tuple[str, str], CapexBand]:
    """The shipped capex bands (cached; treat as read-only)."""
    return read_capex_bands()

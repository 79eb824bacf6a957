"""Residual (resale) value of a cluster by its age at sale, per platform, from ``data/residual_values.csv``.

Each row of the file is the resale value of a cluster after ``months`` in service, as a share of its capex, with
the low and high its sources span. A platform's curve joins its group's points (36, 48, 60 and 72 months):
**linear between the points, flat beyond either end** — a cluster sold younger than the first point is valued
as one of that age (no evidence on younger resale: conservative), an older one at the last point (the floor the
sources see forming). The age at sale is the time from the cluster's go-live to its sale: its useful life when it
is sold at its end of life, else the time to the horizon.

``timeline.residual_value_share`` set to a number replaces the curve by that flat share of capex at any age.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from pydantic import Field

from ..errors import DataError
from ..inputs.datafile import DATA_DIR, SourcedRow, read_numbered
from ..inputs.scenario import Scenario
from . import revenue

RESIDUAL_FILE = DATA_DIR / "residual_values.csv"


class ResaleRow(SourcedRow):
    """One point of a resale curve: the value of a cluster of ``platforms`` after ``months`` [fraction of capex]."""

    group: str
    platforms: str
    """``data/gpu_platforms.csv`` keys the point applies to, separated by ``;``."""
    months: int = Field(ge=0, le=240)
    residual_share: float = Field(ge=0, le=1)
    low_residual_share: float = Field(ge=0, le=1)
    high_residual_share: float = Field(ge=0, le=1)


@dataclass(frozen=True)
class ResidualCurve:
    """Resale value by age of one platform's clusters: points at ``ages`` [months] with their low and high."""

    group: str
    ages: np.ndarray
    share: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def at(self, age_months: float | np.ndarray) -> np.ndarray:
        """Resale value at ``age_months`` [fraction of capex]: linear between the points, flat beyond the ends."""
        return np.interp(age_months, self.ages, self.share)

    def band_at(self, age_months: float) -> tuple[float, float]:
        """(low, high) resale value at ``age_months`` [fraction of capex], interpolated as :meth:`at`."""
        return float(np.interp(age_months, self.ages, self.low)), float(np.interp(age_months, self.ages, self.high))


def read_curves(path: Path = RESIDUAL_FILE) -> dict[str, ResidualCurve]:
    """Every platform's resale curve by platform key (raises DataError naming the file and row of a bad cell)."""
    points: dict[str, list[ResaleRow]] = {}
    for row, item in read_numbered(path, ResaleRow):
        if not item.low_residual_share <= item.residual_share <= item.high_residual_share:
            raise DataError(path.name, "needs low ≤ residual_share ≤ high", row=row, column="residual_share")
        for key in item.platforms.split(";"):
            points.setdefault(key.strip(), []).append(item)
    out = {}
    for key, rows in points.items():
        rows = sorted(rows, key=lambda r: r.months)
        ages = np.array([r.months for r in rows], dtype=float)
        if len({r.group for r in rows}) > 1 or np.any(np.diff(ages) <= 0):
            raise DataError(path.name, f"platform {key!r} needs one group and one row per age")
        out[key] = ResidualCurve(
            rows[0].group,
            ages,
            np.array([r.residual_share for r in rows]),
            np.array([r.low_residual_share for r in rows]),
            np.array([r.high_residual_share for r in rows]),
        )
    return out


@cache  # keyed on nothing: the shipped, read-only data/residual_values.csv, read once
def default_curves() -> dict[str, ResidualCurve]:
    """The shipped resale curves (:func:`read_curves`); read once: the file ships with the package."""
    return read_curves()


def curve_of(scenario: Scenario) -> ResidualCurve | None:
    """The resale curve the scenario follows, or None when ``timeline.residual_value_share`` sets a flat share."""
    if scenario.timeline.residual_value_share is not None:
        return None
    curves = default_curves()
    key = scenario.cluster.gpu_model
    if key not in curves:
        raise DataError(RESIDUAL_FILE.name, f"no resale curve for platform {key!r}; set timeline.residual_value_share")
    return curves[key]


def first_sale_age_months(scenario: Scenario) -> float:
    """Age of the first cluster when it is sold, in the scenario's own timeline [months]: its useful life when that
    ends inside the horizon, else the time from go-live to the horizon."""
    d = revenue.dates(scenario.timeline)
    return float(min(d.life_months, d.months - d.go_live_month))


def base_share(scenario: Scenario) -> float:
    """Resale value of the scenario's first cluster at its sale [fraction of capex]: the flat share, or the curve's
    value at :func:`first_sale_age_months`."""
    curve = curve_of(scenario)
    if curve is None:
        return float(scenario.timeline.residual_value_share or 0.0)
    return float(curve.at(first_sale_age_months(scenario)))


def shape(scenario: Scenario) -> tuple[np.ndarray, np.ndarray] | None:
    """The curve relative to its value at the first sale (ages [months], multiples), for
    :func:`neoplan.finance.assets.asset_flows`: a case whose residual driver is ``v`` sells a cluster of age ``a`` for
    ``v`` × this at ``a``; None for a flat share (or a curve worth 0 at the first sale: every age is then worth
    ``v``)."""
    curve = curve_of(scenario)
    if curve is None:
        return None
    at_first = float(curve.at(first_sale_age_months(scenario)))
    return (curve.ages, curve.share / at_first) if at_first > 0 else None

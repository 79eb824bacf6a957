"""The debt a scenario can raise: tranches (``financing.tranches``), the defaults of each kind of loan, the credit
spreads lenders charge by the credit of the contracts a loan is sized on, and the base-rate path floating loans pay.

Three sourced tables of ``data/``, each row with its date, source and basis:

* ``tranche_defaults.csv``: one row per kind of loan (``term_loan``, ``delayed_draw``, ``vendor``, ``mezzanine``);
  a tranche takes every term it does not set from its kind's row.
* ``credit_spreads.csv``: sets of spreads over the base rate by the counterparty credit of the contracts
  (``investment_grade``, ``sub_investment_grade``); a tranche with ``credit_spreads`` pays the spread of the credit
  mix it is sized on.
* ``base_rates.csv``: a base rate (``sofr``) by calendar month, read linearly between its points and flat beyond
  either end; month 0 of a scenario is its price book's date (``prices_as_of``), as for the market's price curves.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np
from pydantic import Field, model_validator

from .datafile import DATA_DIR, DataDate, SourcedRow, keyed, read_numbered
from .fields import _Section

TRANCHE_DEFAULTS_FILE = DATA_DIR / "tranche_defaults.csv"
CREDIT_SPREADS_FILE = DATA_DIR / "credit_spreads.csv"
BASE_RATES_FILE = DATA_DIR / "base_rates.csv"

TrancheKind = Literal["term_loan", "delayed_draw", "vendor", "mezzanine"]
TRANCHE_KINDS: tuple[str, ...] = get_args(TrancheKind)
Credit = Literal["investment_grade", "sub_investment_grade"]
CREDITS: tuple[str, ...] = get_args(Credit)
RateBasis = Literal["fixed", "sofr"]
Amortization = Literal["annuity", "straight_line", "sculpted", "bullet"]
AMORTIZATIONS: tuple[str, ...] = get_args(Amortization)
RATE_BASES: tuple[str, ...] = get_args(RateBasis)
TERMS = ("rate_basis", "interest_rate", "spread", "credit_spreads", "term_months", "grace_months", "amortization")
"""The terms a tranche takes from its kind's row of ``data/tranche_defaults.csv`` unless it sets them."""


class TrancheDefaults(SourcedRow):
    """One kind of loan and its usual terms, a row of ``data/tranche_defaults.csv``."""

    kind: TrancheKind
    description: str = Field(min_length=10)
    rate_basis: RateBasis
    interest_rate: float | None = Field(None, ge=0, le=1)
    spread: float | None = Field(None, ge=0, le=0.3)
    credit_spreads: str | None = None
    term_months: int = Field(ge=1, le=360)
    grace_months: int = Field(ge=0, le=120)
    amortization: Amortization
    upfront_fee_rate: float = Field(ge=0, le=0.2)


class CreditSpread(SourcedRow):
    """The spread over the base rate of a loan sized on contracts of one counterparty credit, a row of
    ``data/credit_spreads.csv`` [fraction per year]."""

    key: str = Field(min_length=1, max_length=40)
    credit: Credit
    spread: float = Field(ge=0, le=0.3)


class BaseRatePoint(SourcedRow):
    """A point of a base-rate path, a row of ``data/base_rates.csv``: ``rate`` [fraction per year] in ``month``."""

    key: str = Field(min_length=1, max_length=40)
    month: DataDate
    rate: float = Field(ge=-0.05, le=0.3)


@cache  # keyed on nothing: the shipped, read-only data/tranche_defaults.csv, read once
def tranche_defaults(path: Path = TRANCHE_DEFAULTS_FILE) -> dict[str, TrancheDefaults]:
    """The usual terms of each kind of loan, keyed by kind."""
    return keyed(read_numbered(path, TrancheDefaults), path.name, "kind")


@cache  # keyed on nothing: the shipped, read-only data/credit_spreads.csv, read once
def credit_spreads(path: Path = CREDIT_SPREADS_FILE) -> dict[str, dict[str, CreditSpread]]:
    """Sets of credit spreads: set key → credit → row. Every set prices both credits."""
    out: dict[str, dict[str, CreditSpread]] = {}
    for _, row in read_numbered(path, CreditSpread):
        out.setdefault(row.key, {})[row.credit] = row
    return out


@cache  # keyed on nothing: the shipped, read-only data/base_rates.csv, read once
def base_rate_points(path: Path = BASE_RATES_FILE) -> dict[str, tuple[BaseRatePoint, ...]]:
    """The points of each base-rate path, in calendar order."""
    out: dict[str, list[BaseRatePoint]] = {}
    for _, row in read_numbered(path, BaseRatePoint):
        out.setdefault(row.key, []).append(row)
    return {k: tuple(sorted(v, key=lambda p: p.month)) for k, v in out.items()}


CREDIT_SPREAD_SETS: tuple[str, ...] = tuple(sorted(credit_spreads()))
"""The sets of ``data/credit_spreads.csv`` a tranche's ``credit_spreads`` may name."""


def _year(month: str) -> float:
    """``YYYY-MM`` as a fractional calendar year (the start of the month)."""
    return int(month[:4]) + (int(month[5:7]) - 1) / 12.0


def base_rate_path(key: str, as_of: str, months: int) -> np.ndarray:
    """The base rate ``key`` of each month 0 … months − 1 from ``as_of`` (``YYYY-MM``) (months,) [fraction per year].

    Linear between the table's points by calendar date, flat before the first and after the last.
    """
    points = base_rate_points()[key]
    years = np.array([_year(p.month) for p in points])
    rates = np.array([p.rate for p in points])
    return np.interp(_year(as_of) + np.arange(months) / 12.0, years, rates)


class Tranche(_Section):
    """One loan of the capital structure (``financing.tranches``); the first listed is the most senior.

    Terms it does not set come from its kind's row of ``data/tranche_defaults.csv``. A fixed-rate tranche pays
    ``interest_rate`` (all-in, nominal a year, compounding monthly); a floating one the base-rate path plus
    ``spread``, or plus the spread of ``credit_spreads`` for the credit of the contracts it is sized on.
    """

    name: str = Field(min_length=1, max_length=40, description="Name of the tranche, as the tables show it.")
    kind: TrancheKind = Field(
        "term_loan",
        description="term_loan (drawn with capex, maturing a term after its first draw), delayed_draw (one draw per "
        "phase, each maturing a term after its own draw), vendor (OEM financing of the equipment) or mezzanine "
        "(a junior loan); the kind's row of data/tranche_defaults.csv sets every term the tranche leaves out.",
    )
    share: float | None = Field(
        None,
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of each capex payment this tranche funds [fraction of capex]; empty (the first tranche "
        "only) = sized by financing.sizing.",
    )
    rate_basis: RateBasis = Field(
        "fixed", description="fixed (interest_rate, fixed at close) or sofr (the SOFR path of data/base_rates.csv)."
    )
    interest_rate: float | None = Field(
        None,
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="All-in rate of a fixed-rate tranche, nominal a year compounding monthly [fraction].",
    )
    spread: float | None = Field(
        None,
        ge=0,
        le=0.3,
        json_schema_extra={"unit": "fraction"},
        description="Spread over the base rate of a floating tranche [fraction per year].",
    )
    credit_spreads: str | None = Field(
        None,
        max_length=40,
        description="A set of data/credit_spreads.csv (e.g. coreweave_ddtl_2024): the spread follows the credit "
        "(investment grade or not) of the contracts the tranche is sized on, instead of spread.",
    )
    term_months: int = Field(60, ge=1, le=360, description="Term from the draw to maturity [months].")
    grace_months: int = Field(6, ge=0, le=120, description="Interest-only months after go-live [months].")
    amortization: Amortization = Field(
        "annuity",
        description="annuity (level payment at the rate at close), straight_line, sculpted (principal following "
        "the contracted cash flow) or bullet (all at maturity).",
    )
    upfront_fee_rate: float = Field(
        0.02, ge=0, le=0.2, json_schema_extra={"unit": "fraction"}, description="Fee at each draw [fraction]."
    )
    finances_refresh: bool = Field(
        False, description="Fund the same share of each refresh cluster by a new draw with its own maturity."
    )

    @model_validator(mode="before")
    @classmethod
    def _kind_defaults(cls, data: Any) -> Any:
        """Every term left out comes from the kind's row of ``data/tranche_defaults.csv``; a rate given picks the
        basis it belongs to (``interest_rate``: fixed; ``spread`` or ``credit_spreads``: floating)."""
        if not isinstance(data, dict):
            return data
        row = tranche_defaults().get(str(data.get("kind", "term_loan")))
        if row is None:
            return data  # the kind's own validation names the choices
        given = set(data)
        floating_given = bool({"spread", "credit_spreads"} & given)
        basis = data.get("rate_basis") or (
            "fixed" if "interest_rate" in given else "sofr" if floating_given else row.rate_basis
        )
        filled: dict[str, Any] = {"rate_basis": basis}
        filled.update({k: getattr(row, k) for k in (*TERMS[4:], "upfront_fee_rate") if k not in given})
        if basis == "fixed" and "interest_rate" not in given:
            filled["interest_rate"] = row.interest_rate
        elif basis != "fixed" and not floating_given:
            filled.update(spread=row.spread, credit_spreads=row.credit_spreads)
        return {**filled, **data}

    @model_validator(mode="after")
    def _a_rate(self) -> Tranche:
        if self.rate_basis == "fixed" and self.interest_rate is None:
            raise ValueError(f"tranche {self.name!r}: a fixed-rate tranche needs interest_rate")
        if self.rate_basis != "fixed" and self.spread is None and self.credit_spreads is None:
            raise ValueError(f"tranche {self.name!r}: a floating tranche needs spread or credit_spreads")
        if self.credit_spreads is not None and self.credit_spreads not in credit_spreads():
            raise ValueError(
                f"tranche {self.name!r}: credit_spreads must be one of {', '.join(sorted(credit_spreads()))}, "
                f"got {self.credit_spreads!r}"
            )
        if self.grace_months >= self.term_months:
            raise ValueError(
                f"tranche {self.name!r}: grace_months must be < term_months ({self.term_months}), "
                f"got {self.grace_months}"
            )
        if self.finances_refresh and self.share is None:
            raise ValueError(f"tranche {self.name!r}: a tranche that finances refreshes needs a share")
        return self


class Phase(_Section):
    """One phase of a phased build (``timeline.phases``): a share of the cluster delivered some months after the
    first phase."""

    share: float = Field(
        gt=0, le=1, json_schema_extra={"unit": "fraction"}, description="Share of the cluster [fraction]."
    )
    delay_months: float = Field(
        ge=0, le=120, description="Months after the first phase's delivery (0 for the first phase) [months]."
    )

"""What the market pays a scenario: contract prices by platform and term, and the on-demand price path by generation.

Both read the market of the scenario's book date (``prices_as_of``; :mod:`neoplan.inputs.pricebook`: the newest
market in ``data/``, older ones in ``data/markets/YYYY-MM/``), so a 2024-10 plan rents and expects prices as they stood
in 2024-10.

**Contract prices** (``data/rental_contracts.csv``, :func:`contract_price`): a committed term of 12, 36 or 60 months
takes that row where the platform has it; any other term is interpolated geometrically in the term between the
platform's rows (on demand = term 0, then 1, 3 and 5 years), and is held at the longest row beyond it (no source
prices a 2-year term: an interpolated price is an estimate). A committed contract's price is the headline price ×
its *multiple*: the contract price of its term ÷ the platform's on-demand price, so a preset at the table's on-demand
price contracts at the table's prices; the shorthand's ``pricing.reserved_price_multiple`` replaces it when set
(:func:`reserved_multiple`: for a book of several contracts, their share-weighted average). Spot sells at the
headline × the spot row ÷ the on-demand row (:func:`spot_multiple`).

**Price path** (``data/price_curves.csv``, :class:`PricePath`): the on-demand price falls by the generation's
decline of each year of its age, compounded continuously: the row of ``age_year`` a applies while the generation's
age (years since 1 January of its first volume year) lies in [a, a + 1), i.e. during calendar year first year + a;
before age 1 the first row applies, after the last row the last. The next generation's arrival in volume is a step
on top (``data/price_steps.csv``: Rubin from 2027-01 takes 20 % off Blackwell and Blackwell Ultra rents at once), so
the years after it carry only the ageing; a step before go-live is in the go-live price already. The age at go-live
comes from the calendar: the price book's date (``prices_as_of``, taken as the purchase order) plus the go-live
month. A scenario's flat
``pricing.price_decline_per_year`` replaces the curve. The index is 1 at go-live; each cluster of a refresh starts at
1 again at its own go-live and ages from the same age (a new cluster sells at a new cluster's price).

**Averages.** The *average decline* of a path over L years is the constant yearly decline that ends at the same
price: 1 − index(L)^(1/L) (:func:`average_decline`), L the first cluster's life within the horizon
(:func:`span_years`). The stress driver ``price_decline_per_year`` is that average: a case with average v runs the
scenario's path tilted by the constant factor (1 − v)/(1 − v₀) a year, v₀ the scenario's own average, so an
undelayed case keeps the curve's shape and has average v exactly (:meth:`PricePath.tilted`). The curve's low and
high rows (and steps) give the stress range (:func:`decline_spread`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np

from ..errors import ScenarioError
from ..inputs.books import COMMITTED_KINDS
from ..inputs.pricebook import (
    LATEST_BOOK_DATE,
    Curve,
    RentalContract,
    curve_market,
    price_curves,
    rental_contracts,
    rental_market,
)
from ..inputs.scenario import Scenario
from ..timebase import MONTHS_PER_YEAR

TERM_ROWS = ((0, "on_demand"), (12, "reserved_1y"), (36, "reserved_3y"), (60, "reserved_5y"))
"""Contract rows by term [months] that committed terms are read or interpolated from (those the platform has)."""
DECLINE_COLUMNS = ("low_decline_per_year", "decline_per_year", "high_decline_per_year")


# --- contract prices ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContractPrice:
    """A rental price for one platform and term [USD/GPU-h], the range its sources span, basis and where from."""

    usd_per_gpu_hour: float
    low_usd_per_gpu_hour: float
    high_usd_per_gpu_hour: float
    basis: str
    source: str


def _row(platform: str, contract: str, as_of: str) -> RentalContract:
    """The ``contract`` row of ``platform`` in the market as of ``as_of`` (the nearest market renting it)."""
    try:
        return rental_contracts(rental_market(platform, as_of))[(platform, contract)]
    except KeyError:
        raise ScenarioError(f"cluster.gpu_model: no {contract} rental price for {platform!r} in data") from None


def on_demand_price(platform: str, as_of: str = LATEST_BOOK_DATE) -> ContractPrice:
    """The platform's on-demand row (its reference rental price) in the market as of ``as_of``."""
    row = _row(platform, "on_demand", as_of)
    return _price_of(row)


def _price_of(row: RentalContract) -> ContractPrice:
    where = f"rental contracts {row.platform} {row.contract} ({row.date})"
    return ContractPrice(
        row.usd_per_gpu_hour, row.low_usd_per_gpu_hour, row.high_usd_per_gpu_hour, row.basis, f"{where}: {row.source}"
    )


def _term_rows(platform: str, as_of: str) -> tuple[tuple[int, str], ...]:
    """The rows of :data:`TERM_ROWS` the platform has in the market as of ``as_of``: on demand always (else
    ScenarioError), then its terms."""
    _row(platform, "on_demand", as_of)
    rows = rental_contracts(rental_market(platform, as_of))
    return tuple((t, c) for t, c in TERM_ROWS if (platform, c) in rows)


def contract_price(platform: str, term_months: int, as_of: str = LATEST_BOOK_DATE) -> ContractPrice:
    """The price of a take-or-pay contract of ``term_months`` for ``platform`` [USD/GPU-h] in the market as of
    ``as_of`` (see the module doc)."""
    if term_months <= 0:
        return on_demand_price(platform, as_of)
    terms = _term_rows(platform, as_of)
    for term, contract in terms[1:]:
        if term_months == term:
            return _price_of(_row(platform, contract, as_of))
    if term_months > terms[-1][0]:
        last_term, last = terms[-1]
        held = _price_of(_row(platform, last, as_of))
        return replace(
            held, basis="estimate", source=f"Estimate: held at the {last_term // 12}-year price ({held.source})"
        )
    (t0, c0), (t1, c1) = next((a, b) for a, b in pairwise(terms) if b[0] > term_months)
    a, b = _row(platform, c0, as_of), _row(platform, c1, as_of)
    w = (term_months - t0) / (t1 - t0)

    def between(x: float, y: float) -> float:
        return x * (y / x) ** w

    return ContractPrice(
        between(a.usd_per_gpu_hour, b.usd_per_gpu_hour),
        between(a.low_usd_per_gpu_hour, b.low_usd_per_gpu_hour),
        between(a.high_usd_per_gpu_hour, b.high_usd_per_gpu_hour),
        "estimate",
        f"Estimate: a {term_months}-month term interpolated geometrically between {c0} "
        f"(${a.usd_per_gpu_hour:.2f}, {a.basis}) and {c1} (${b.usd_per_gpu_hour:.2f}, {b.basis}) of the "
        f"rental contracts of {platform} ({a.date}); no source prices this term",
    )


def term_multiple(platform: str, term_months: int, as_of: str = LATEST_BOOK_DATE) -> float:
    """The contract price of ``term_months`` ÷ the platform's on-demand price in the market as of ``as_of`` [ratio]."""
    on_demand = on_demand_price(platform, as_of).usd_per_gpu_hour
    return contract_price(platform, term_months, as_of).usd_per_gpu_hour / on_demand


def spot_multiple(platform: str, as_of: str = LATEST_BOOK_DATE) -> float:
    """The platform's spot price ÷ its on-demand price (``data/rental_contracts.csv`` of the market as of ``as_of``)
    [ratio]."""
    return _row(platform, "spot", as_of).usd_per_gpu_hour / on_demand_price(platform, as_of).usd_per_gpu_hour


def reserved_multiple(scenario: Scenario) -> float:
    """The scenario's committed price ÷ its headline price [ratio]: the shorthand's field, or the platform's contract
    ratio of the reserved term; with ``pricing.contracts``, the share-weighted multiple of its committed contracts
    (1 when it has none: the stress driver then moves nothing)."""
    p = scenario.pricing
    platform, as_of = scenario.cluster.gpu_model, scenario.prices_as_of
    if p.contracts is None:
        return (
            p.reserved_price_multiple
            if p.reserved_price_multiple is not None
            else term_multiple(platform, p.reserved_term_months, as_of)
        )
    committed = [c for c in p.contracts if c.kind in COMMITTED_KINDS]
    total = sum(c.share for c in committed)
    if total <= 0:
        return 1.0
    return sum(c.share * term_multiple(platform, c.term_months, as_of) for c in committed) / total


def _committed_terms(scenario: Scenario) -> list[tuple[float, int]]:
    """(weight, term) of the scenario's committed contracts: the shorthand's one, or the book's by share."""
    p = scenario.pricing
    if p.contracts is None:
        return [(1.0, p.reserved_term_months)]
    committed = [(c.share, c.term_months) for c in p.contracts if c.kind in COMMITTED_KINDS]
    total = sum(w for w, _ in committed)
    return [(w / total, t) for w, t in committed] if total > 0 else []


def reserved_multiple_range(scenario: Scenario) -> tuple[float, float]:
    """(low, high) of the reserved multiple the platform's contract sources span, around the scenario's multiple.

    The contracts' lows and highs over the on-demand value (share-weighted for a book), moved by the scenario's own
    multiple's distance from the table's (so a scenario that sets its own multiple keeps the table's spread around
    it) [ratio]. A book without committed contracts has no range: (1, 1).
    """
    platform, as_of = scenario.cluster.gpu_model, scenario.prices_as_of
    terms = _committed_terms(scenario)
    if not terms:
        return 1.0, 1.0
    on_demand = on_demand_price(platform, as_of).usd_per_gpu_hour
    prices = [(w, contract_price(platform, t, as_of)) for w, t in terms]
    table = sum(w * p.usd_per_gpu_hour for w, p in prices) / on_demand
    shift = reserved_multiple(scenario) - table
    low = sum(w * p.low_usd_per_gpu_hour for w, p in prices) / on_demand
    high = sum(w * p.high_usd_per_gpu_hour for w, p in prices) / on_demand
    return low + shift, high + shift


# --- price path -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PricePath:
    """The on-demand price index after go-live (1 at go-live) of one case or n cases.

    ``start_age_years`` is the generation's age at go-live [years], a float or a column (n, 1); ``log_kept`` holds
    ln(1 − decline) of age rows 1 … N [per year]; ``tilt_per_year`` [per year] multiplies the index by
    exp(tilt × years), a float or a column (n, 1); ``steps`` are (age [years], ln(1 − fall)) of the next generations'
    launches, each multiplying the index from its age on when that comes after go-live.
    """

    start_age_years: float | np.ndarray
    log_kept: tuple[float, ...]
    tilt_per_year: float | np.ndarray = 0.0
    steps: tuple[tuple[float, float], ...] = ()

    @classmethod
    def flat(cls, decline_per_year: float | np.ndarray) -> PricePath:
        """A constant yearly decline [fraction] (a float, or a column (n, 1) of one per case)."""
        kept = 1.0 - np.asarray(decline_per_year, dtype=float)
        if np.ndim(kept) == 0:
            return cls(0.0, (math.log(float(kept)),))
        return cls(0.0, (0.0,), np.log(kept))

    def _cumulative(self, age: np.ndarray) -> np.ndarray:
        """∫₀^age of the log rate [ln ratio]; the row of age a applies on [a, a + 1), row 1 before, row N after."""
        rates = np.asarray(self.log_kept, dtype=float)
        n = rates.size
        knots = np.arange(n + 2, dtype=float)  # ages 0 … N + 1
        per_year = rates[np.clip(np.arange(n + 1), 1, n) - 1]  # the rate on [k, k + 1), k = 0 … N
        at_knots = np.concatenate([[0.0], np.cumsum(per_year)])
        inside = np.interp(age, knots, at_knots)  # flat outside [0, N + 1]: add the straight parts
        return inside + np.minimum(age, 0.0) * rates[0] + np.maximum(age - (n + 1), 0.0) * rates[-1]

    def index(self, years: np.ndarray | float) -> np.ndarray:
        """Price index ``years`` after go-live [ratio, 1 at go-live]; broadcasts against the path's columns."""
        t = np.asarray(years, dtype=float)
        a0 = np.asarray(self.start_age_years, dtype=float)
        log_index = self._cumulative(a0 + t) - self._cumulative(a0 + 0.0 * t) + self.tilt_per_year * t
        for age, log_kept in self.steps:
            log_index = log_index + np.where((a0 < age) & (a0 + t >= age), log_kept, 0.0)
        return np.exp(log_index)

    def tilted(self, average: np.ndarray | float, own_average: float) -> PricePath:
        """This path tilted so that its average over the span of ``own_average`` becomes ``average`` [fraction]."""
        tilt = np.log((1.0 - np.asarray(average, dtype=float)) / (1.0 - own_average))
        return replace(self, tilt_per_year=self.tilt_per_year + tilt)


def average_decline(path: PricePath, years: float) -> float:
    """The constant yearly decline that ends where ``path`` (one case) ends after ``years`` [fraction]."""
    if years <= 0:
        return 0.0
    return 1.0 - float(np.asarray(path.index(years)).reshape(-1)[0]) ** (1.0 / years)


def curve_of(platform: str, as_of: str = LATEST_BOOK_DATE) -> Curve:
    """The decline curve of ``platform``'s generation in the market as of ``as_of`` (the nearest market with one)."""
    try:
        return price_curves(curve_market(platform, as_of))[platform]
    except KeyError:
        raise ScenarioError(f"cluster.gpu_model: no price curve for {platform!r} in data/price_curves.csv") from None


def calendar_year(as_of: str, months_after: float | np.ndarray = 0.0) -> float | np.ndarray:
    """The calendar date ``months_after`` the start of month ``as_of`` (``YYYY-MM``) as a fractional year."""
    return int(as_of[:4]) + (int(as_of[5:7]) - 1) / MONTHS_PER_YEAR + np.asarray(months_after) / MONTHS_PER_YEAR


def go_live_age_years(scenario: Scenario, go_live_month: float | np.ndarray) -> float | np.ndarray:
    """Age of the scenario's GPU generation at go-live [years since 1 January of its first volume year]."""
    first_year = curve_of(scenario.cluster.gpu_model, scenario.prices_as_of).first_year
    return calendar_year(scenario.prices_as_of, go_live_month) - first_year


def curve_path(scenario: Scenario, go_live_month: float | np.ndarray, column: str = "decline_per_year") -> PricePath:
    """The generation curve's path (``column``: the central, low or high rows) from the scenario's go-live."""
    curve = curve_of(scenario.cluster.gpu_model, scenario.prices_as_of)
    steps = tuple((age, math.log(1.0 - fall)) for age, fall in curve.step_declines(column))
    log_kept = tuple(math.log(1.0 - r) for r in curve.declines(column))
    return PricePath(go_live_age_years(scenario, go_live_month), log_kept, steps=steps)


def scenario_path(scenario: Scenario, go_live_month: float | np.ndarray) -> PricePath:
    """The scenario's own path: its flat ``pricing.price_decline_per_year``, else its generation's curve."""
    flat = scenario.pricing.price_decline_per_year
    return PricePath.flat(flat) if flat is not None else curve_path(scenario, go_live_month)


def span_years(go_live_month: float, horizon_months: int, life_months: float) -> float:
    """Years the first cluster sells within the horizon: its life, or to the horizon if that comes first [years]."""
    return max(min(life_months, horizon_months - go_live_month), 0.0) / MONTHS_PER_YEAR


def scenario_average_decline(scenario: Scenario, go_live_month: float) -> float:
    """The scenario's average yearly decline over the first cluster's span (the stress driver's own value)."""
    t = scenario.timeline
    years = span_years(go_live_month, t.horizon_months, float(t.useful_life_months))
    return average_decline(scenario_path(scenario, go_live_month), years)


def decline_spread(scenario: Scenario, go_live_month: float) -> tuple[float, float]:
    """(low, high) average decline for the stress range: the curve's low and high rows averaged over the same span,
    moved by the scenario's distance from the curve's central average (0 when it follows the curve) [fraction]."""
    t = scenario.timeline
    years = span_years(go_live_month, t.horizon_months, float(t.useful_life_months))
    low, mid, high = (average_decline(curve_path(scenario, go_live_month, c), years) for c in DECLINE_COLUMNS)
    shift = scenario_average_decline(scenario, go_live_month) - mid
    return low + shift, high + shift


def on_demand_range(scenario: Scenario) -> tuple[float, float] | None:
    """(low, high) headline price the platform's on-demand sources span, scaled to the scenario's price, when the
    platform's on-demand row is an estimate (no public index); None for a quoted index [USD/GPU-h]."""
    row = on_demand_price(scenario.cluster.gpu_model, scenario.prices_as_of)
    if row.basis != "estimate":
        return None
    scale = scenario.pricing.usd_per_gpu_hour / row.usd_per_gpu_hour
    return row.low_usd_per_gpu_hour * scale, row.high_usd_per_gpu_hour * scale

"""Monte Carlo: draws of every driver (rank-correlated where asked), the outcome percentiles, probabilities and
their standard errors."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np

from ...errors import ScenarioError
from ...finance.engine import EVENTS, Drivers
from ...inputs.scenario import Scenario
from ...model import Result
from .drivers import (
    DEFAULT_DRAWS,
    DRIVERS,
    MAX_DRAWS,
    MC_CHUNK,
    METRICS,
    MIN_DRAWS,
    STRUCTURING,
    WORST_LOW,
    Z90,
    Range,
    _clean,
    _complete,
    _ranked,
    _run,
    _run_chunked,
    base_values,
    driver_bounds,
)

# --- Monte Carlo -----------------------------------------------------------------------------------

MC_KEYS = (*METRICS, *EVENTS)
"""The figures each draw keeps: the summary's metrics and the cash waterfall's events (the rest is not computed)."""


def _triangular(u: np.ndarray, low: float, mode: float, high: float) -> np.ndarray:
    """Inverse CDF of the triangular distribution at uniforms ``u``; the constant ``low`` if the range is empty."""
    width = high - low
    if width <= 0:
        return np.full_like(u, low)
    mode = min(max(mode, low), high)
    split = (mode - low) / width
    left = low + np.sqrt(u * width * (mode - low))
    right = high - np.sqrt((1.0 - u) * width * (high - mode))
    return np.where(u < split, left, right)


def draw(rng: Range, base: float, bounds: tuple[float, float], generator: np.random.Generator, n: int) -> np.ndarray:
    """``n`` draws of one driver from its distribution (module doc), clipped to ``bounds`` [driver unit]."""
    if rng.distribution == "fixed":
        return np.full(n, base)
    if rng.distribution == "triangular":
        values = _triangular(generator.random(n), rng.low, base, rng.high)
    elif rng.distribution == "uniform":
        values = rng.low + (rng.high - rng.low) * generator.random(n)
    elif rng.distribution == "normal":
        mean, sd = 0.5 * (rng.low + rng.high), (rng.high - rng.low) / (2.0 * Z90)
        values = mean + sd * generator.standard_normal(n)
    elif rng.low == rng.high:
        values = np.full(n, rng.low)
    else:
        log_low, log_high = math.log(rng.low), math.log(rng.high)
        values = np.exp(0.5 * (log_low + log_high) + (log_high - log_low) / (2.0 * Z90) * generator.standard_normal(n))
    return np.clip(values, *bounds)


RANK_TOLERANCE = 1e-4
"""How close the measured rank correlation of the reordered draws comes to the one asked for."""


def _normal_scores(n: int) -> np.ndarray:
    """van der Waerden scores Φ⁻¹(i / (n + 1)), i = 1 … n (ascending, mean 0)."""
    return np.vectorize(NormalDist().inv_cdf, otypes=[float])(np.arange(1, n + 1) / (n + 1))


def _ranks(values: np.ndarray) -> np.ndarray:
    """0-based ranks of ``values`` (ties in order of appearance)."""
    return np.argsort(np.argsort(values, kind="stable"), kind="stable")


def _mid_ranks(ascending: np.ndarray) -> np.ndarray:
    """Rank of each value of a sorted array, ties sharing the mean of their positions (Spearman's convention)."""
    n = ascending.size
    starts = np.flatnonzero(np.r_[True, ascending[1:] != ascending[:-1]])  # first position of each distinct value
    ends = np.r_[starts[1:], n]
    return np.repeat(0.5 * (starts + ends - 1), ends - starts)


def rank_correlate(
    x: np.ndarray, y: np.ndarray, rho: float, generator: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``x`` and ``y`` reordered so that their rank (Spearman) correlation is ``rho``; marginals unchanged.

    Iman–Conover with the exact target: two random orders of van der Waerden scores are made exactly
    uncorrelated (Gram–Schmidt), mixed as ``r·a + √(1 − r²)·b`` and the draws take the ranks of ``a`` and
    of the mix. ``r`` starts at the normal-copula value 2·sin(π·rho/6) and is corrected by the rank
    correlation measured on the sample until it is within :data:`RANK_TOLERANCE` of ``rho`` (a few steps;
    with tens of draws the ranks move in steps of a few hundredths, and the closest step is kept). The rank
    correlation measured is Spearman's of the reordered draws, tied draws (a driver clipped at its bound, a
    rounded one) sharing their mean rank; draws with one value only have none, and are paired by plain ranks.
    ``rho = 0`` leaves the draws as drawn: independent, not reordered to a sample correlation of exactly 0.
    """
    if rho == 0 or x.size < 3:
        return x, y
    scores = _normal_scores(x.size)
    a, b = generator.permutation(scores), generator.permutation(scores)
    b = b - a * float(a @ b) / float(a @ a)
    norm = float(b @ b)
    b = b * math.sqrt(float(a @ a) / norm) if norm > 0 else b
    rank_a = _ranks(a)
    x_sorted, y_sorted = np.sort(x), np.sort(y)
    mid_x, mid_y = _mid_ranks(x_sorted), _mid_ranks(y_sorted)
    if not (mid_x[-1] > mid_x[0] and mid_y[-1] > mid_y[0]):  # a constant draw: no rank correlation to aim at
        mid_x, mid_y = np.arange(x.size, dtype=float), np.arange(y.size, dtype=float)
    mid_a = mid_x[rank_a]

    def mixed(r: float) -> tuple[np.ndarray, float]:
        ranks = _ranks(r * a + math.sqrt(max(1.0 - r * r, 0.0)) * b)
        return ranks, float(np.corrcoef(mid_a, mid_y[ranks])[0, 1])

    r = 2.0 * math.sin(math.pi * rho / 6.0)
    ranks, measured = mixed(r)
    best = ranks, measured
    lo, hi = -1.0, 1.0  # the measured correlation is −1 at r = −1 and +1 at r = +1, rising in between
    for step in range(40):
        if abs(measured - rho) <= RANK_TOLERANCE:
            break
        lo, hi = (r, hi) if measured < rho else (lo, r)
        # corrections by the measured error, then bisection (in small samples the ranks move in steps)
        r = min(max(r + rho - measured, lo), hi) if step < 6 else 0.5 * (lo + hi)
        ranks, measured = mixed(r)
        if abs(measured - rho) < abs(best[1] - rho):
            best = ranks, measured
    return x_sorted[rank_a], y_sorted[best[0]]


def sample(
    source: Scenario | Result, ranges: Mapping[str, Range], draws: int, seed: int, correlation: float = 0.0
) -> dict[str, np.ndarray]:
    """Draws (``draws``,) of every driver around :func:`base_values` of ``source``; ``correlation`` is the
    price–utilization rank correlation. The structuring drivers (:data:`STRUCTURING`) are held at their base: every
    draw meets the debt fixed at close."""
    base = base_values(source)
    streams = np.random.SeedSequence(seed).spawn(len(DRIVERS) + 1)
    held = Range(0.0, 0.0, "fixed")  # the structuring drivers stay at the debt fixed at close
    out = {
        key: draw(
            held if key in STRUCTURING else ranges[key], base[key], driver_bounds(key), np.random.default_rng(s), draws
        )
        for key, s in zip(DRIVERS, streams, strict=False)
    }
    out["usd_per_gpu_hour"], out["utilization"] = rank_correlate(
        out["usd_per_gpu_hour"], out["utilization"], correlation, np.random.default_rng(streams[-1])
    )
    return out


@dataclass(frozen=True)
class MonteCarlo:
    """Outcomes of ``draws`` joint draws of the drivers: ``samples[driver]`` and ``metrics[metric]`` (draws,)."""

    draws: int
    seed: int
    correlation: float
    covenant_dscr: float
    ranges: dict[str, Range]
    samples: dict[str, np.ndarray]
    metrics: dict[str, np.ndarray]
    deterministic: dict[str, float] = field(default_factory=dict)
    """The scenario's own KPIs (every driver at base), for reference."""

    def percentiles(self, metric: str, q: tuple[float, ...] = (10, 50, 90)) -> dict[str, float | None]:
        """``{"p10": …, "p50": …, "p90": …}`` of ``metric``; None where the percentile is an undefined draw."""
        values = np.quantile(_ranked(self.metrics[metric], metric), np.asarray(q) / 100.0, method="inverted_cdf")
        return {f"p{int(p)}": _clean(v) for p, v in zip(q, values, strict=True)}

    def base_percentile(self, metric: str) -> float | None:
        """Where the scenario itself (every driver at base) sits among the draws of ``metric``: the share of
        draws below its value, ties counted half, undefined values ranked as in :meth:`percentiles`
        [percentile, 0–100]; None without a deterministic value. 84 means 84 % of draws come out lower."""
        if metric not in self.deterministic:
            return None
        ranked = _ranked(self.metrics[metric], metric)
        base = _ranked(np.array([self.deterministic[metric]], dtype=float), metric)[0]
        return float(100.0 * ((ranked < base).mean() + 0.5 * (ranked == base).mean()))

    def percentile_errors(self, metric: str, q: tuple[float, ...] = (10, 50, 90)) -> dict[str, float | None]:
        """Standard error of each percentile of :meth:`percentiles` by the order-statistic method (module doc)
        [the metric's unit]; None where a bracketing draw is undefined."""
        ranked = np.sort(_ranked(self.metrics[metric], metric))
        n = ranked.size
        out: dict[str, float | None] = {}
        for p in q:
            share = p / 100.0
            spread = math.sqrt(n * share * (1.0 - share))
            low = min(max(math.floor(n * share - spread), 0), n - 1)
            high = min(max(math.ceil(n * share + spread) - 1, 0), n - 1)  # ranks 1 … n as indices 0 … n − 1
            out[f"p{int(p)}"] = _clean(0.5 * (float(ranked[high]) - float(ranked[low])))
        return out

    def probability_error(self, probability: float) -> float:
        """Standard error of a share of the draws, √(p (1 − p) / N) [fraction]."""
        return math.sqrt(max(probability * (1.0 - probability), 0.0) / self.draws)

    def share_undefined(self, metric: str) -> float:
        """Share of draws where ``metric`` is undefined (no IRR, no payback, no debt service) [fraction]."""
        return float(np.isnan(self.metrics[metric]).mean())

    @property
    def probability_of_loss(self) -> float:
        """Share of draws in which equity gets back less cash than it put in (MOIC < 1) [fraction]."""
        return float((self.metrics["equity_moic"] < 1.0).mean())

    @property
    def probability_npv_negative(self) -> float:
        """Share of draws with project NPV below zero at the hurdle rate [fraction]."""
        return float((self.metrics["npv_usd"] < 0.0).mean())

    @property
    def probability_dscr_breach(self) -> float:
        """Share of draws whose minimum yearly DSCR is below the covenant [fraction]."""
        return float((self.metrics["min_dscr"] < self.covenant_dscr).mean())

    @property
    def probability_covenant_breach(self) -> float:
        """Share of draws with a covenant breach: a quarterly test of the trailing DSCR below the covenant
        (:mod:`neoplan.finance.waterfall`) [fraction]."""
        return float((self.metrics["covenant_breaches"] > 0).mean())

    @property
    def probability_lockup(self) -> float:
        """Share of draws whose distributions are locked up at least one month [fraction]."""
        return float((self.metrics["lockup_months"] > 0).mean())

    @property
    def probability_payment_default(self) -> float:
        """Share of draws in which CFADS, the cash held and the reserve fail to pay debt service due in some month (a
        payment default) [fraction]."""
        return float((self.metrics["payment_default_months"] > 0).mean())

    def probabilities(self) -> dict[str, float]:
        """Every probability of the summary, by key [fraction]; the waterfall's events where the draws carry them."""
        out = {
            "probability_of_loss": self.probability_of_loss,
            "probability_npv_negative": self.probability_npv_negative,
            "probability_dscr_breach": self.probability_dscr_breach,
        }
        events = {
            "probability_covenant_breach": ("covenant_breaches", "probability_covenant_breach"),
            "probability_lockup": ("lockup_months", "probability_lockup"),
            "probability_payment_default": ("payment_default_months", "probability_payment_default"),
        }
        for key, (metric, name) in events.items():
            if metric in self.metrics:
                out[key] = getattr(self, name)
        return out

    @property
    def measured_correlation(self) -> float | None:
        """Rank (Spearman) correlation of the price and utilization draws as sampled; None if either is constant."""
        x, y = self.samples.get("usd_per_gpu_hour"), self.samples.get("utilization")
        if x is None or y is None or np.ptp(x) == 0 or np.ptp(y) == 0:
            return None
        return float(np.corrcoef(_ranks(x), _ranks(y))[0, 1])

    def cdf(self, metric: str) -> tuple[np.ndarray, np.ndarray]:
        """(sorted defined values, cumulative share of all draws at or below each) of ``metric``."""
        values = self.metrics[metric]
        defined = np.sort(values[~np.isnan(values)])
        below = np.isnan(values).sum() if metric in WORST_LOW else 0
        return defined, (below + np.arange(1, defined.size + 1)) / values.size

    def standard_errors(self) -> dict[str, Any]:
        """Standard errors of the summary's percentiles (by metric) and probabilities (module doc), base units."""
        return {
            **{m: self.percentile_errors(m) for m in METRICS},
            **{k: self.probability_error(v) for k, v in self.probabilities().items()},
        }

    def summary(self) -> dict[str, Any]:
        """The JSON-safe summary (the CLI's ``stress --json``): percentiles and probabilities, base units."""
        return {
            "draws": self.draws,
            "seed": self.seed,
            "price_utilization_correlation": self.correlation,
            "covenant_dscr": self.covenant_dscr,
            **{m: self.percentiles(m) for m in METRICS},
            "base_case_percentile": {m: self.base_percentile(m) for m in METRICS},
            **self.probabilities(),
            "standard_errors": self.standard_errors(),
            "share_without_irr": {m: self.share_undefined(m) for m in ("project_irr", "equity_irr")},
            "share_never_paid_back": self.share_undefined("payback_months"),
            "deterministic": {k: _clean(v) for k, v in self.deterministic.items()},
            "ranges": {
                k: {"low": r.low, "high": r.high, "distribution": r.distribution} for k, r in self.ranges.items()
            },
            "measured_rank_correlation": self.measured_correlation,
        }


def covenant_of(scenario: Scenario) -> float:
    """The scenario's DSCR covenant, ``financing.covenant_dscr`` [ratio]."""
    return float(scenario.financing.covenant_dscr)


def check_monte_carlo_inputs(draws: int, seed: int, correlation: float, covenant_dscr: float) -> None:
    """Raise ScenarioError for a bad number of draws, seed, correlation or covenant."""
    if isinstance(draws, bool) or not isinstance(draws, int | np.integer) or not MIN_DRAWS <= draws <= MAX_DRAWS:
        raise ScenarioError(f"draws must be a whole number between {MIN_DRAWS:,} and {MAX_DRAWS:,}, got {draws!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ScenarioError(f"seed must be a whole number ≥ 0, got {seed!r}")
    if not -1.0 <= correlation <= 1.0:
        raise ScenarioError(f"price–utilization correlation must be between −1 and 1, got {correlation!r}")
    if not (math.isfinite(covenant_dscr) and covenant_dscr > 0):
        raise ScenarioError(f"DSCR covenant must be > 0, got {covenant_dscr!r}")


def monte_carlo(
    result: Result,
    ranges: Mapping[str, Range] | None = None,
    *,
    draws: int = DEFAULT_DRAWS,
    seed: int = 0,
    correlation: float = 0.0,
    covenant_dscr: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
) -> MonteCarlo:
    """Monte Carlo: joint random draws of every driver, each draw a case of the monthly engine.

    Each driver draws from its own distribution over its range (:class:`Range`; triangular around the scenario's
    value by default) and its own random stream spawned from ``seed``, so the same seed gives the same result and
    changing one driver leaves the others' draws alone. Draws run in chunks of :data:`MC_CHUNK` cases on
    ``workers`` threads; neither chunking nor threads change a result beyond rounding.

    Parameters
    ----------
    result : Result
        The scenario, evaluated.
    ranges : mapping of str to Range, optional
        Ranges and distributions of drivers other than the defaults (:func:`default_ranges`).
    draws : int, optional
        Number of draws, :data:`MIN_DRAWS` to :data:`MAX_DRAWS`.
    seed : int, optional
        Seed of the random streams.
    correlation : float, optional
        Rank correlation of price and utilization, −1 to 1 (Iman–Conover, matched exactly).
    covenant_dscr : float, optional
        The DSCR covenant a breach is counted against [ratio]; default the scenario's ``financing.covenant_dscr``.
    progress : callable, optional
        ``progress(done, draws)``, called from the calling thread as chunks finish, in order.
    workers : int, optional
        Threads; default :data:`MC_WORKERS`.

    Returns
    -------
    MonteCarlo
        The draws' samples and metrics (IRRs [fraction per year], NPV [USD], payback [months], ratios), with
        percentiles, probabilities of loss, of NPV < 0 and of a covenant breach, and their standard errors.

    Raises
    ------
    ScenarioError
        For a number of draws, seed, correlation or covenant out of range, or a bad driver range.

    Examples
    --------
    >>> import neoplan
    >>> from neoplan.analysis import stress
    >>> r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    >>> mc = stress.monte_carlo(r, draws=200, seed=1)
    >>> p = mc.percentiles("npv_usd")  # [USD]
    >>> sorted(p), bool(p["p10"] <= p["p50"] <= p["p90"])
    (['p10', 'p50', 'p90'], True)
    >>> 0 <= mc.probability_of_loss <= 1
    True
    >>> stress.monte_carlo(r, draws=200, seed=1).metrics["npv_usd"].tolist() == mc.metrics["npv_usd"].tolist()
    True
    """
    covenant_dscr = covenant_of(result.scenario) if covenant_dscr is None else covenant_dscr
    check_monte_carlo_inputs(draws, seed, correlation, covenant_dscr)
    ranges = _complete(result, ranges)
    samples = sample(result, ranges, int(draws), int(seed), float(correlation))

    def chunk(start: int) -> Drivers:  # its drivers built from the samples: no copy of all draws
        values = {k: v[start : start + MC_CHUNK] for k, v in samples.items()}
        return result.drivers(min(MC_CHUNK, draws - start)).with_values(**values)

    metrics = _run_chunked(result, int(draws), chunk, workers, progress, MC_KEYS)
    deterministic = {m: float(v[0]) for m, v in _run(result, result.drivers(1)).items()}
    return MonteCarlo(
        int(draws), int(seed), float(correlation), float(covenant_dscr), ranges, samples, metrics, deterministic
    )

"""Selling tokens: workloads, published throughput per GPU, token prices and their decline, from ``data/``.

What a token seller sells is output tokens, each with its share of the request's input (prompt) tokens: MLPerf and
InferenceMAX count output tokens per second, and a request of the workload's shape (``input_tokens`` in,
``output_tokens`` out) pays ``input × p_in + output × p_out``. So every token figure here is **per million output
tokens**, the input tokens of their requests included: the blended price is ``p_out + p_in × input ÷ output``
[USD per million output tokens], and a GPU-hour of serving earns ``throughput × 3,600 ÷ 10⁶ × blended price`` — its
GPU-hour equivalent, which runs through the same contract book as a rented GPU-hour (:mod:`neoplan.economics.revenue`).

A published rate is a benchmark's: the highest steady load that meets the scenario's latency limits. A fleet sized
for its busiest hour serves less on average (the daily cycle, headroom for bursts), so the rate sold is the
**achieved** one, published × ``pricing.serving_load_factor`` (default from DeepSeek's published day of serving,
``data/assumptions.csv``), and the default latency is ``interactive``: the chat speed (≥ 20 tokens/s per user) the
list prices are sold at, not the server scenario's 5-8 tokens/s per user for Llama 70B.

Data (``docs/sources/inference_2026-12.md`` explains the evidence):

* ``data/workloads.csv``: the model, its size and precision, and the request shape.
* ``data/inference_throughput.csv``: output tokens per second per GPU by platform × workload × scenario
  (``offline`` batch, ``server`` under p99 TTFT/TPOT limits, ``interactive`` tighter limits); the model uses the row
  marked ``is_default`` and refuses a combination with no row.
* ``data/inference_derivations.csv``: a missing scenario of a platform derived from its own published row of
  another scenario × a sibling platform's published ratio of the two (H100 interactive = H100 server × H200
  interactive ÷ H200 server), basis ``estimate``, confidence ``low``, the arithmetic in ``notes``.
* ``data/token_prices.csv``: API list prices per million input and output tokens, several hosts per model, each with
  the precision it states and the model's released precision. A workload's reference price is the median, input and
  output apart, of its model's rows dated within :data:`PRICE_WINDOW_MONTHS` of the newest; a rate measured below the
  released precision sells at the quantized tier's median when at least :data:`MIN_TIER_ROWS` hosts state such a
  precision. The rows' lowest and highest price of a request are the Stress test's range (:func:`price_range`).
* ``data/token_price_trends.csv``: the yearly price factor of a model family including its step cuts
  (``family-<model_key>``: DeepSeek's R1 → V3.2 cut of 2025-09), else of one fixed model (``same-model-<model_key>``);
  a model without either takes the Llama 70B one, and says so.
* ``data/token_demand.csv``: output tokens a day the model's API market buys. A plan sells at most
  ``pricing.token_demand_share`` of it (:func:`demand_scale`); the GPU-hours beyond it serve no one and stay idle
  (sold at spot for ``pricing.spot_share_of_idle`` of them), and the result warns.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field, model_validator

from ..errors import DataError, ScenarioError
from ..inputs.datafile import DATA_DIR, SourcedRow, column_error, keyed, read_numbered, read_rows
from ..timebase import DAYS_PER_MONTH

if TYPE_CHECKING:
    from ..inputs.scenario import Scenario

WORKLOADS_FILE = DATA_DIR / "workloads.csv"
THROUGHPUT_FILE = DATA_DIR / "inference_throughput.csv"
DERIVATIONS_FILE = DATA_DIR / "inference_derivations.csv"
TOKEN_PRICES_FILE = DATA_DIR / "token_prices.csv"
TOKEN_TRENDS_FILE = DATA_DIR / "token_price_trends.csv"
SERVING_SCENARIOS = ("offline", "server", "interactive")
SECONDS_PER_HOUR = 3600.0
TOKENS_PER_MILLION = 1e6
CHAT_TOKENS_PER_SECOND_PER_USER = 20.0
"""The slowest per-user speed chat API list prices are paid for [tokens/s per user]: DeepSeek's own API and apps
averaged 20-22 output tokens/s per user at its list prices (open-infra-index, 2025-03-01); SemiAnalysis reads the
middle OpenRouter provider of DeepSeek-R1 at about 35 and a fast tier at 167 (2026-02-16, data/token_prices.csv).
A rate measured below it sells at a discount to those prices, or not at all."""
HOURS_PER_DAY = 24.0
DEMAND_FILE = DATA_DIR / "token_demand.csv"
FALLBACK_TREND_MODEL = "llama-70b"
"""Model whose same-model price trend stands in for a model without its own."""
PRICE_WINDOW_MONTHS = 6
"""List prices dated this many months or less before a model's newest row make its reference price [months]."""
MIN_TIER_ROWS = 3
"""Hosts a precision tier needs for its own median; fewer: the median of every tier (one host is not a market)."""
PRECISION_BITS = {"bf16": 16, "fp16": 16, "fp8": 8, "fp4": 4, "mxfp4": 4, "nvfp4": 4}
"""Bits per weight of each precision name [bits]."""


class Workload(SourcedRow):
    """One row of ``data/workloads.csv``: a model served with a request shape."""

    key: str
    name: str
    model_key: str
    model: str
    params_b: float
    active_params_b: float
    architecture: str
    precision: str
    input_tokens: int
    output_tokens: int
    shape_basis: str
    benchmark: str
    description: str

    @property
    def input_per_output(self) -> float:
        """Input tokens per output token of a request [ratio]."""
        return self.input_tokens / self.output_tokens


class Throughput(SourcedRow):
    """One published result of ``data/inference_throughput.csv``: output tokens per second per GPU of a platform ×
    workload × scenario; ``is_default`` marks the row the model uses."""

    platform: str
    workload: str
    scenario: Literal["offline", "server", "interactive"]
    output_tokens_per_second_per_gpu: float
    total_tokens_per_second_per_gpu: float | None = None
    system_output_tokens_per_second: float | None = None
    gpus_in_system: int | None = None
    interactivity_tokens_per_second_per_user: float | None = None
    """1,000 ÷ the measured p99 time per output token [tokens/s per user]; None for offline (batch) results."""
    interactivity_basis: str | None = None
    ttft_p99_limit_ms: float | None = None
    tpot_p99_limit_ms: float | None = None
    tpot_p99_measured_ms: float | None = None
    serving_stack: str
    precision: str
    benchmark: str
    result_id: str | None = None
    submitter: str
    system: str | None = None
    confidence: Literal["high", "medium", "low"]
    is_default: bool
    notes: str | None = None

    def interactivity_text(self) -> str:
        """The latency the rate was measured at, in words."""
        if self.interactivity_tokens_per_second_per_user is None:
            return f"{self.scenario} (batch, no latency bound)"
        speed = f"{self.interactivity_tokens_per_second_per_user:,.0f} tokens/s per user"
        if self.ttft_p99_limit_ms is None or self.tpot_p99_limit_ms is None:  # an operating point, not p99 limits
            return f"{self.scenario} ({speed}, an operating point on the throughput-interactivity curve)"
        limits = f"p99 TTFT ≤ {self.ttft_p99_limit_ms:g} ms, TPOT ≤ {self.tpot_p99_limit_ms:g} ms"
        return f"{self.scenario} ({limits}; {speed})"


class ListPrice(SourcedRow):
    """One row of ``data/token_prices.csv``: an API list price per million input and output tokens [USD]."""

    model_key: str
    model: str
    provider: str
    released_precision: Literal["bf16", "fp16", "fp8", "fp4"]
    """The precision the model's weights were released in (the same on every row of a model)."""
    precision: Literal["bf16", "fp16", "fp8", "fp4"] | None = None
    """The weights' precision the provider states (None: not stated)."""
    usd_per_million_input_tokens: float
    usd_per_million_output_tokens: float
    interactivity_tokens_per_second_per_user: float | None = None
    notes: str | None = None


class Derivation(SourcedRow):
    """One row of ``data/inference_derivations.csv``: ``platform``'s missing ``scenario`` for ``workload`` is its own
    published ``from_scenario`` rate × ``like_platform``'s published ``scenario`` ÷ ``from_scenario`` ratio."""

    platform: str
    workload: str
    scenario: Literal["offline", "server", "interactive"]
    from_scenario: Literal["offline", "server", "interactive"]
    like_platform: str
    why: str = Field(min_length=20)

    @model_validator(mode="after")
    def _another_platform_and_scenario(self) -> Derivation:
        if self.from_scenario == self.scenario:
            raise column_error("from_scenario", "must differ from scenario", self.from_scenario)
        if self.like_platform == self.platform:
            raise column_error("like_platform", "must be another platform (a sibling)", self.like_platform)
        return self


class PriceTrend(SourcedRow):
    """One row of ``data/token_price_trends.csv``: a yearly token-price factor (price kept after a year)."""

    key: str
    scope: str
    annual_price_factor: float
    annual_price_factor_low: float | None = None
    annual_price_factor_high: float | None = None
    period: str
    notes: str | None = None


class TokenDemand(SourcedRow):
    """One row of ``data/token_demand.csv``: output tokens a day a model's API market buys, with the range."""

    model_key: str
    scope: str
    output_tokens_per_day: float = Field(gt=0)
    low_output_tokens_per_day: float = Field(gt=0)
    high_output_tokens_per_day: float = Field(gt=0)
    notes: str | None = None

    @model_validator(mode="after")
    def _ordered(self) -> TokenDemand:
        if not self.low_output_tokens_per_day <= self.output_tokens_per_day <= self.high_output_tokens_per_day:
            problem = "must be ≤ output_tokens_per_day ≤ high_output_tokens_per_day"
            raise column_error("low_output_tokens_per_day", problem, self.low_output_tokens_per_day)
        return self


@dataclass(frozen=True)
class TokenPrice:
    """A reference price per million input and output tokens [USD], with where it comes from and the (input,
    output) prices of the hosts it is the median of."""

    usd_per_million_input: float
    usd_per_million_output: float
    date: str
    source: str
    hosts: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True)
class Trend:
    """A yearly token-price decline [fraction] with its source and the range its data spans."""

    decline_per_year: float
    key: str
    source: str
    low_decline_per_year: float | None = None
    high_decline_per_year: float | None = None


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/workloads.csv, read once
def workloads() -> dict[str, Workload]:
    """Workloads by key (``data/workloads.csv``)."""
    return keyed(read_numbered(WORKLOADS_FILE, Workload), WORKLOADS_FILE.name)


def _published() -> dict[tuple[str, str, str], Throughput]:
    """The ``is_default`` row of every published platform × workload × scenario, keyed by those three."""
    rows = read_rows(THROUGHPUT_FILE, Throughput)
    return {(r.platform, r.workload, r.scenario): r for r in rows if r.is_default}


def derived(rule: Derivation, published: dict[tuple[str, str, str], Throughput]) -> Throughput:
    """The throughput row ``rule`` derives from ``published`` rows: own rate × the sibling's ratio, at the sibling's
    interactivity and latency limits, basis and confidence of an estimate (the arithmetic in ``notes``)."""
    own = published[(rule.platform, rule.workload, rule.from_scenario)]
    like = published[(rule.like_platform, rule.workload, rule.scenario)]
    base = published[(rule.like_platform, rule.workload, rule.from_scenario)]
    ratio = like.output_tokens_per_second_per_gpu / base.output_tokens_per_second_per_gpu
    rate = own.output_tokens_per_second_per_gpu * ratio
    arithmetic = (
        f"{own.output_tokens_per_second_per_gpu:g} × {like.output_tokens_per_second_per_gpu:g} ÷ "
        f"{base.output_tokens_per_second_per_gpu:g} = {rate:,.1f}"
    )
    return Throughput(
        platform=rule.platform,
        workload=rule.workload,
        scenario=rule.scenario,
        output_tokens_per_second_per_gpu=rate,
        interactivity_tokens_per_second_per_user=like.interactivity_tokens_per_second_per_user,
        interactivity_basis=f"{rule.like_platform}'s {rule.scenario} result",
        ttft_p99_limit_ms=like.ttft_p99_limit_ms,
        tpot_p99_limit_ms=like.tpot_p99_limit_ms,
        serving_stack=own.serving_stack,
        precision=own.precision,
        benchmark=f"{own.benchmark} {rule.from_scenario} × {rule.like_platform} {rule.scenario} ÷ "
        f"{rule.from_scenario} (derived)",
        result_id=f"{own.result_id} × {like.result_id} ÷ {base.result_id}",
        submitter="neoplan (derived)",
        system=own.system,
        date=rule.date,
        source=rule.source,
        basis=rule.basis,
        confidence="low",
        is_default=True,
        notes=f"{arithmetic}; {rule.why}",
    )


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only throughput and derivation CSVs, read once
def default_throughput() -> dict[tuple[str, str, str], Throughput]:
    """The row the model uses for every platform × workload × scenario, keyed by those three: the published
    ``is_default`` row, else one derived by ``data/inference_derivations.csv`` (:func:`derived`). A derivation of a
    published combination, or from rows that are not published, is a :class:`DataError` naming its row."""
    published = _published()
    out = dict(published)
    for line, rule in read_numbered(DERIVATIONS_FILE, Derivation):
        key = (rule.platform, rule.workload, rule.scenario)
        if key in out:
            raise DataError(DERIVATIONS_FILE.name, f"{' '.join(key)} is published already", row=line, column="scenario")
        needs = [
            (rule.platform, rule.workload, rule.from_scenario),
            (rule.like_platform, rule.workload, rule.scenario),
            (rule.like_platform, rule.workload, rule.from_scenario),
        ]
        missing = [" ".join(k) for k in needs if k not in published]
        if missing:
            raise DataError(DERIVATIONS_FILE.name, f"no published {missing[0]} to derive from", row=line)
        out[key] = derived(rule, published)
    return out


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/token_prices.csv, read once
def _list_prices() -> tuple[ListPrice, ...]:
    return read_list_prices()


def read_list_prices(path: Path = TOKEN_PRICES_FILE) -> tuple[ListPrice, ...]:
    """The rows of ``data/token_prices.csv`` (or ``path``); a model whose rows disagree on its released precision
    is a DataError naming the row."""
    released: dict[str, str] = {}
    rows = []
    for line, row in read_numbered(path, ListPrice):
        if released.setdefault(row.model_key, row.released_precision) != row.released_precision:
            problem = f"{row.model_key} is released in {released[row.model_key]} on an earlier row"
            raise DataError(path.name, problem, row=line, column="released_precision")
        rows.append(row)
    return tuple(rows)


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/token_demand.csv, read once
def token_demand() -> dict[str, TokenDemand]:
    """Each model's API market by model key (``data/token_demand.csv``)."""
    return {row.model_key: row for row in read_rows(DEMAND_FILE, TokenDemand)}


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/token_price_trends.csv, read once
def _trends() -> dict[str, PriceTrend]:
    return keyed(read_numbered(TOKEN_TRENDS_FILE, PriceTrend), TOKEN_TRENDS_FILE.name)


def find_throughput(platform: str, workload: str, scenario: str) -> Throughput | None:
    """The default published throughput of the combination, or None when nothing is published."""
    return default_throughput().get((platform, workload, scenario))


def throughput(platform: str, workload: str, scenario: str) -> Throughput:
    """:func:`find_throughput`, or :class:`ScenarioError` naming ``pricing.serving_scenario`` when the platform has
    the workload at another latency, else ``pricing.workload``, and what the platform has."""
    row = find_throughput(platform, workload, scenario)
    if row is not None:
        return row
    rows = default_throughput()
    others = sorted({s for p, w, s in rows if p == platform and w == workload})
    if others:
        raise ScenarioError(
            f"pricing.serving_scenario: {platform} has no published {scenario} throughput for {workload} "
            f"(data/inference_throughput.csv) and none to derive it from; it has {', '.join(others)}"
        )
    served = sorted({w for p, w, s in rows if p == platform and s == scenario})
    has = f"its {scenario} workloads are {', '.join(served)}" if served else f"it has no {scenario} results at all"
    raise ScenarioError(
        f"pricing.workload: {platform} has no published {scenario} throughput for {workload} "
        f"(data/inference_throughput.csv); {has}"
    )


def _months(date: str) -> int:
    """A ``YYYY-MM`` date as a month count [months]."""
    return int(date[:4]) * 12 + int(date[5:7])


def _quantized(precision: str | None, released: str) -> bool:
    """Whether ``precision`` has fewer bits than the model's released precision."""
    return precision is not None and PRECISION_BITS.get(precision, 99) < PRECISION_BITS[released]


@lru_cache(maxsize=64)  # keyed on a model key and a precision (strings) over the shipped data/token_prices.csv
def reference_price(model_key: str, precision: str | None = None) -> TokenPrice:
    """The median list price, input and output apart, of ``model_key``'s current rows [USD/M] (module docstring).

    Rows dated within :data:`PRICE_WINDOW_MONTHS` of the model's newest are current. A rate measured at a
    ``precision`` below the model's released precision (an FP8 or FP4 Llama) sells at the quantized tier: the
    current rows that state such a precision, when there are :data:`MIN_TIER_ROWS` or more; else every current row,
    and the source says so.
    """
    rows = [r for r in _list_prices() if r.model_key == model_key]
    if not rows:
        raise ScenarioError(f"pricing.workload: no token price for model {model_key} in data/token_prices.csv")
    newest = max(_months(r.date) for r in rows)
    rows = [r for r in rows if newest - _months(r.date) <= PRICE_WINDOW_MONTHS]
    released = rows[0].released_precision
    tier = ""
    if _quantized(precision, released):
        quantized = [r for r in rows if _quantized(r.precision, released)]
        if len(quantized) >= MIN_TIER_ROWS:
            rows, tier = quantized, f"quantized-tier (below {released}, as the rate is measured at {precision}) "
        else:
            tier = f"(fewer than {MIN_TIER_ROWS} hosts state a precision below {released}: every tier) "
    dates = sorted({r.date for r in rows})
    providers = "; ".join(
        f"{r.provider} ${r.usd_per_million_input_tokens:g}/${r.usd_per_million_output_tokens:g}" for r in rows
    )
    return TokenPrice(
        usd_per_million_input=statistics.median(r.usd_per_million_input_tokens for r in rows),
        usd_per_million_output=statistics.median(r.usd_per_million_output_tokens for r in rows),
        date=dates[-1],
        source=f"median of {len(rows)} {tier}list prices of {dates[0]} to {dates[-1]} in data/token_prices.csv "
        f"({providers})",
        hosts=tuple((r.usd_per_million_input_tokens, r.usd_per_million_output_tokens) for r in rows),
    )


def list_price(scenario: Scenario) -> TokenPrice:
    """The default list price of ``scenario``'s workload, at the precision its platform's rate is measured at."""
    p = scenario.pricing
    load = workloads()[p.workload]
    row = find_throughput(scenario.cluster.gpu_model, load.key, p.serving_scenario)
    return reference_price(load.model_key, row.precision if row is not None else None)


@lru_cache(maxsize=32)  # keyed on a model key; a pure function of the shipped, read-only trends
def reference_trend(model_key: str) -> Trend:
    """The yearly price decline of the model's family with its step cuts (``family-<model_key>``), else of one fixed
    model (``same-model-<model_key>``), else the Llama 70B one [fraction]; with its (low, high) range."""
    rows = _trends()
    own = rows.get(f"family-{model_key}") or rows.get(f"same-model-{model_key}")
    row = own if own is not None else rows[f"same-model-{FALLBACK_TREND_MODEL}"]
    note = "" if own is not None else f" (no trend for {model_key}: the {FALLBACK_TREND_MODEL} one)"
    low = 1.0 - (row.annual_price_factor_high if row.annual_price_factor_high is not None else row.annual_price_factor)
    high = 1.0 - (row.annual_price_factor_low if row.annual_price_factor_low is not None else row.annual_price_factor)
    return Trend(1.0 - row.annual_price_factor, row.key, f"data/token_price_trends.csv {row.key}{note}", low, high)


def blended_usd_per_million(usd_per_million_input: float, usd_per_million_output: float, load: Workload) -> float:
    """Price of a million output tokens with their requests' input tokens [USD per million output tokens]."""
    return usd_per_million_output + usd_per_million_input * load.input_per_output


def tokens_per_gpu_hour(row: Throughput | None) -> float:
    """Output tokens one GPU serves in an hour at its published (benchmark) rate [tokens]; 0 without one."""
    return 0.0 if row is None else row.output_tokens_per_second_per_gpu * SECONDS_PER_HOUR


@dataclass(frozen=True)
class Terms:
    """What a scenario sells as tokens: its workload, published rate and the share of it achieved, prices and
    decline, each with its source."""

    workload: Workload
    serving_scenario: str
    row: Throughput | None
    """The published throughput on the scenario's platform; None when nothing is published for it."""
    usd_per_million_input: float
    usd_per_million_output: float
    price_source: str
    decline_per_year: float
    decline_source: str
    token_share: float
    """Share of the sellable GPU-hours served as tokens: 0 (gpu_hours), 1 (tokens) or pricing.token_share (mix)."""
    serving_load_factor: float
    """Share of the published rate served on average (``pricing.serving_load_factor``) [fraction]."""
    hosts: tuple[tuple[float, float], ...] = ()
    """(input, output) list prices of the hosts the reference price is the median of [USD/M]."""
    demand: TokenDemand | None = None
    """The model's API market (``data/token_demand.csv``); None when the data has none for it."""
    demand_share: float | None = None
    """Share of that market the plan can sell (``pricing.token_demand_share``) [fraction]; None = no cap."""

    @property
    def demand_output_tokens_per_day(self) -> float:
        """Output tokens a day the plan can sell: its share of the market [tokens/day]; inf without market data or
        a share (no cap)."""
        if self.demand is None or self.demand_share is None:
            return math.inf
        return self.demand_share * self.demand.output_tokens_per_day

    def price_range(self) -> tuple[float, float]:
        """(lowest, highest) price of the workload's request among the hosts [USD per million output tokens]; the
        scenario's own price at both ends when there are none."""
        blended = [blended_usd_per_million(i, o, self.workload) for i, o in self.hosts] or [self.usd_per_million_tokens]
        return min(blended), max(blended)

    @property
    def usd_per_million_tokens(self) -> float:
        """Blended price [USD per million output tokens, their input tokens included]."""
        return blended_usd_per_million(self.usd_per_million_input, self.usd_per_million_output, self.workload)

    @property
    def published_tokens_per_gpu_hour(self) -> float:
        """Output tokens per GPU-hour at the published (benchmark) rate [tokens]; 0 without one."""
        return tokens_per_gpu_hour(self.row)

    @property
    def tokens_per_gpu_hour(self) -> float:
        """Output tokens per GPU-hour achieved: the published rate × the serving load factor [tokens]; 0 without
        a published rate. What a sold GPU-hour of serving serves."""
        return self.published_tokens_per_gpu_hour * self.serving_load_factor

    @property
    def usd_per_gpu_hour(self) -> float:
        """What a GPU-hour of serving earns at the blended price and the achieved rate [USD/GPU-h]; 0 without a
        published rate."""
        return self.tokens_per_gpu_hour / TOKENS_PER_MILLION * self.usd_per_million_tokens


def terms(scenario: Scenario, *, strict: bool = True) -> Terms:
    """The token terms of ``scenario``. ``strict``: a scenario that sells tokens (``pricing.sell`` tokens or mix) on
    a platform with no published rate for its workload is refused (:func:`throughput`'s message)."""
    p, platform = scenario.pricing, scenario.cluster.gpu_model
    load = workloads()[p.workload]
    sells_tokens = p.sell != "gpu_hours"
    row = (
        throughput(platform, load.key, p.serving_scenario)
        if strict and sells_tokens
        else find_throughput(platform, load.key, p.serving_scenario)
    )
    ref = reference_price(load.model_key, row.precision if row is not None else None)
    given = p.usd_per_million_tokens
    price_source = ref.source if given.input is None or given.output is None else "scenario"
    trend = reference_trend(load.model_key)
    own_decline = p.token_price_decline_per_year
    return Terms(
        workload=load,
        serving_scenario=p.serving_scenario,
        row=row,
        usd_per_million_input=ref.usd_per_million_input if given.input is None else given.input,
        usd_per_million_output=ref.usd_per_million_output if given.output is None else given.output,
        price_source=price_source,
        decline_per_year=trend.decline_per_year if own_decline is None else own_decline,
        decline_source=trend.source if own_decline is None else "scenario",
        token_share={"gpu_hours": 0.0, "tokens": 1.0}.get(p.sell, p.token_share),
        serving_load_factor=p.serving_load_factor,
        hosts=ref.hosts,
        demand=token_demand().get(load.model_key),
        demand_share=p.token_demand_share,
    )


def output_tokens_per_day(scenario: Scenario, tokens: Terms) -> float:
    """Output tokens a day the cluster serves at steady utilization when every sellable GPU serves tokens at the
    achieved rate [tokens/day]: the demand at list price a pure token plan needs; 0 without a published rate."""
    return tokens.tokens_per_gpu_hour * HOURS_PER_DAY * scenario.pricing.steady_utilization * scenario.cluster.gpus


def demand_scale(planned_tokens_per_day: np.ndarray | float, demand_tokens_per_day: float) -> np.ndarray:
    """Share of the planned token sales that find buyers: min(1, demand ÷ planned) [fraction]; 1 when nothing is
    planned. ``planned_tokens_per_day`` [tokens/day] may be one per case (a column (n, 1))."""
    planned = np.asarray(planned_tokens_per_day, dtype=float)
    capped = planned > demand_tokens_per_day  # then planned > 0 and the share is below 1
    return np.divide(demand_tokens_per_day, planned, out=np.ones(planned.shape), where=capped)


def sold_output_tokens_per_day(sold_token_gpu_hours: np.ndarray, tokens: Terms, live_months: float) -> float:
    """Output tokens a day the book sold on average over its months in service: token GPU-hours × the achieved
    rate ÷ the days in service [tokens/day]; 0 without a published rate or months in service."""
    days = live_months * DAYS_PER_MONTH
    return float(np.sum(sold_token_gpu_hours)) * tokens.tokens_per_gpu_hour / days if days > 0 else 0.0


def demand_warnings(scenario: Scenario, tokens: Terms, scale: float) -> list[str]:
    """A warning when demand caps the tokens sold (``scale`` < 1: the share of the planned sales that find buyers)."""
    if scenario.pricing.sell == "gpu_hours" or tokens.demand is None or tokens.demand_share is None or scale >= 1.0:
        return []
    planned = output_tokens_per_day(scenario, tokens) * tokens.token_share
    cap = tokens.demand_output_tokens_per_day
    return [
        f"pricing.token_demand_share: serving {tokens.workload.key} on every GPU-hour planned for tokens would sell "
        f"{planned / 1e9:,.1f} billion output tokens a day, but {100 * tokens.demand_share:.3g} % of the model's API "
        f"market ({tokens.demand.output_tokens_per_day / 1e9:,.0f} billion a day, data/token_demand.csv) buys "
        f"{cap / 1e9:,.1f} billion: only {100 * scale:.3g} % of those GPU-hours find buyers; the rest stay idle "
        f"(sold at spot for {100 * scenario.pricing.spot_share_of_idle:.0f} % of them)"
    ]


def interactivity_warnings(scenario: Scenario, tokens: Terms) -> list[str]:
    """A warning when the cluster sells tokens at a rate measured slower per user than chat API prices assume."""
    row = tokens.row
    if scenario.pricing.sell == "gpu_hours" or row is None:
        return []
    speed = row.interactivity_tokens_per_second_per_user
    if speed is not None and speed >= CHAT_TOKENS_PER_SECOND_PER_USER:
        return []
    measured = "as a batch (offline), with no latency bound" if speed is None else f"at {speed:,.0f} tokens/s per user"
    return [
        f"pricing.serving_scenario: {row.platform} serves {tokens.workload.key} at "
        f"{row.output_tokens_per_second_per_gpu:,.0f} tokens/s per GPU {measured}; the token list prices are for "
        f"chat-speed service (≥ {CHAT_TOKENS_PER_SECOND_PER_USER:g} tokens/s per user), so choose interactive, where "
        "published, or a lower price"
    ]

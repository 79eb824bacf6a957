"""Selling tokens: workloads, published throughput per GPU, token prices and their decline, from ``data/``.

What a token seller sells is output tokens, each with its share of the request's input (prompt) tokens: MLPerf and
InferenceMAX count output tokens per second, and a request of the workload's shape (``input_tokens`` in,
``output_tokens`` out) pays ``input × p_in + output × p_out``. So every token figure here is **per million output
tokens**, the input tokens of their requests included: the blended price is ``p_out + p_in × input ÷ output``
[USD per million output tokens], and a GPU-hour of serving earns ``throughput × 3,600 ÷ 10⁶ × blended price`` — its
GPU-hour equivalent, which runs through the same contract book as a rented GPU-hour (:mod:`neoplan.revenue`).

Data (``docs/sources/inference_2026-12.md`` explains the evidence):

* ``data/workloads.csv``: the model, its size and precision, and the request shape.
* ``data/inference_throughput.csv``: output tokens per second per GPU by platform × workload × scenario
  (``offline`` batch, ``server`` under p99 TTFT/TPOT limits, ``interactive`` tighter limits); the model uses the row
  marked ``is_default`` and refuses a combination with no published row.
* ``data/token_prices.csv``: API list prices per million input and output tokens. A workload's reference price is
  the median, input and output apart, of the rows of its model with the latest date.
* ``data/token_price_trends.csv``: the yearly price factor of one fixed model (``same-model-<model_key>``); a model
  without its own row takes the Llama 70B one (a fixed dense model), and says so.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from .datafile import DATA_DIR, SourcedRow, keyed, read_numbered, read_rows
from .errors import ScenarioError

if TYPE_CHECKING:
    from .scenario import Scenario

WORKLOADS_FILE = DATA_DIR / "workloads.csv"
THROUGHPUT_FILE = DATA_DIR / "inference_throughput.csv"
TOKEN_PRICES_FILE = DATA_DIR / "token_prices.csv"
TOKEN_TRENDS_FILE = DATA_DIR / "token_price_trends.csv"
SERVING_SCENARIOS = ("offline", "server", "interactive")
SECONDS_PER_HOUR = 3600.0
TOKENS_PER_MILLION = 1e6
CHAT_TOKENS_PER_SECOND_PER_USER = 20.0
"""Estimate: the slowest per-user speed chat API prices are paid for (OpenRouter tiers list 30-170 tokens/s per user,
data/token_prices.csv); a rate measured below it sells at a discount to those prices, or not at all."""
FALLBACK_TREND_MODEL = "llama-70b"
"""Model whose same-model price trend stands in for a model without its own."""


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
        limits = f"p99 TTFT ≤ {self.ttft_p99_limit_ms:g} ms, TPOT ≤ {self.tpot_p99_limit_ms:g} ms"
        return f"{self.scenario} ({limits}; {self.interactivity_tokens_per_second_per_user:,.0f} tokens/s per user)"


class ListPrice(SourcedRow):
    """One row of ``data/token_prices.csv``: an API list price per million input and output tokens [USD]."""

    model_key: str
    model: str
    provider: str
    usd_per_million_input_tokens: float
    usd_per_million_output_tokens: float
    interactivity_tokens_per_second_per_user: float | None = None
    notes: str | None = None


class PriceTrend(SourcedRow):
    """One row of ``data/token_price_trends.csv``: a yearly token-price factor (price kept after a year)."""

    key: str
    scope: str
    annual_price_factor: float
    annual_price_factor_low: float | None = None
    annual_price_factor_high: float | None = None
    period: str
    notes: str | None = None


@dataclass(frozen=True)
class TokenPrice:
    """A reference price per million input and output tokens [USD], with where it comes from."""

    usd_per_million_input: float
    usd_per_million_output: float
    date: str
    source: str


@dataclass(frozen=True)
class Trend:
    """A yearly token-price decline [fraction] with its source."""

    decline_per_year: float
    key: str
    source: str


@lru_cache(maxsize=1)
def workloads() -> dict[str, Workload]:
    """Workloads by key (``data/workloads.csv``)."""
    return keyed(read_numbered(WORKLOADS_FILE, Workload), WORKLOADS_FILE.name)


@lru_cache(maxsize=1)
def default_throughput() -> dict[tuple[str, str, str], Throughput]:
    """The ``is_default`` row of every platform × workload × scenario, keyed by those three."""
    rows = read_rows(THROUGHPUT_FILE, Throughput)
    return {(r.platform, r.workload, r.scenario): r for r in rows if r.is_default}


@lru_cache(maxsize=1)
def _list_prices() -> tuple[ListPrice, ...]:
    return read_rows(TOKEN_PRICES_FILE, ListPrice)


@lru_cache(maxsize=1)
def _trends() -> dict[str, PriceTrend]:
    return keyed(read_numbered(TOKEN_TRENDS_FILE, PriceTrend), TOKEN_TRENDS_FILE.name)


def find_throughput(platform: str, workload: str, scenario: str) -> Throughput | None:
    """The default published throughput of the combination, or None when nothing is published."""
    return default_throughput().get((platform, workload, scenario))


def throughput(platform: str, workload: str, scenario: str) -> Throughput:
    """:func:`find_throughput`, or :class:`ScenarioError` naming ``pricing.workload`` and what the platform has."""
    row = find_throughput(platform, workload, scenario)
    if row is not None:
        return row
    served = sorted({w for p, w, s in default_throughput() if p == platform and s == scenario})
    has = f"its {scenario} workloads are {', '.join(served)}" if served else f"it has no {scenario} results at all"
    raise ScenarioError(
        f"pricing.workload: {platform} has no published {scenario} throughput for {workload} "
        f"(data/inference_throughput.csv); {has}"
    )


@lru_cache(maxsize=32)
def reference_price(model_key: str) -> TokenPrice:
    """The median list price, input and output apart, of ``model_key``'s rows with the latest date [USD/M]."""
    rows = [r for r in _list_prices() if r.model_key == model_key]
    if not rows:
        raise ScenarioError(f"pricing.workload: no token price for model {model_key} in data/token_prices.csv")
    latest = max(r.date for r in rows)
    chosen = [r for r in rows if r.date == latest]
    providers = "; ".join(
        f"{r.provider} ${r.usd_per_million_input_tokens:g}/${r.usd_per_million_output_tokens:g}" for r in chosen
    )
    return TokenPrice(
        usd_per_million_input=statistics.median(r.usd_per_million_input_tokens for r in chosen),
        usd_per_million_output=statistics.median(r.usd_per_million_output_tokens for r in chosen),
        date=latest,
        source=f"median of {len(chosen)} list price(s) of {latest} in data/token_prices.csv ({providers})",
    )


@lru_cache(maxsize=32)
def reference_trend(model_key: str) -> Trend:
    """The yearly price decline of one fixed model (``same-model-<model_key>``), else the Llama 70B one [fraction]."""
    rows = _trends()
    own = rows.get(f"same-model-{model_key}")
    row = own if own is not None else rows[f"same-model-{FALLBACK_TREND_MODEL}"]
    note = "" if own is not None else f" (no same-model trend for {model_key}: the {FALLBACK_TREND_MODEL} one)"
    return Trend(1.0 - row.annual_price_factor, row.key, f"data/token_price_trends.csv {row.key}{note}")


def blended_usd_per_million(usd_per_million_input: float, usd_per_million_output: float, load: Workload) -> float:
    """Price of a million output tokens with their requests' input tokens [USD per million output tokens]."""
    return usd_per_million_output + usd_per_million_input * load.input_per_output


def tokens_per_gpu_hour(row: Throughput | None) -> float:
    """Output tokens one GPU serves in an hour at its published rate [tokens]; 0 without a published rate."""
    return 0.0 if row is None else row.output_tokens_per_second_per_gpu * SECONDS_PER_HOUR


@dataclass(frozen=True)
class Terms:
    """What a scenario sells as tokens: its workload, published rate, prices and decline, each with its source."""

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

    @property
    def usd_per_million_tokens(self) -> float:
        """Blended price [USD per million output tokens, their input tokens included]."""
        return blended_usd_per_million(self.usd_per_million_input, self.usd_per_million_output, self.workload)

    @property
    def tokens_per_gpu_hour(self) -> float:
        """Output tokens per GPU-hour at the published rate [tokens]; 0 without one."""
        return tokens_per_gpu_hour(self.row)

    @property
    def usd_per_gpu_hour(self) -> float:
        """What a GPU-hour of serving earns at the blended price [USD/GPU-h]; 0 without a published rate."""
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
    ref = reference_price(load.model_key)
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
    )


def all_tokens(scenario: Scenario, tokens: Terms) -> Scenario:
    """``scenario`` as a pure token seller, for price solvers that read ``pricing`` alone: its GPU-hour price
    stands for the GPU-hour equivalent of the token price, declining at the token price decline (a pinned reserved
    GPU-hour price does not apply)."""
    pricing = scenario.pricing.model_copy(
        update={
            "sell": "tokens",
            "price_decline_per_year": tokens.decline_per_year,
            "reserved_usd_per_gpu_hour": None,
            "usd_per_gpu_hour": tokens.usd_per_gpu_hour,
        }
    )
    return scenario.model_copy(update={"pricing": pricing})


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

"""What a scenario sells and how: the contract book (:class:`Contract`), token prices (:class:`TokenPrices`) and the
pricing section (:class:`Pricing`: the headline price, the book or its shorthand, spot, what is sold)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from .books import COMMITTED_KINDS, ContractKind, Counterparty, book_contracts
from .fields import _Section
from .loans import Credit
from .pricebook import BASE_BOOK_DATE, assumed, assumed_count, default_rentals


class TokenPrices(_Section):
    """Token list prices, per million tokens; empty = the workload's reference price from data/token_prices.csv."""

    input: float | None = Field(
        None,
        ge=0,
        le=1000,
        description="Price of a million input (prompt) tokens at go-live [USD]; empty = the median list price of the "
        "workload's model in data/token_prices.csv.",
    )
    output: float | None = Field(
        None,
        ge=0,
        le=1000,
        description="Price of a million output (generated) tokens at go-live [USD]; empty = the median list price of "
        "the workload's model in data/token_prices.csv.",
    )


class Contract(_Section):
    """One contract of the book: a share of the sellable GPU-hours sold one way, from go-live (+ ``start_month``)."""

    kind: ContractKind = Field(
        description="take_or_pay (billed whether used or not for the term, may be prepaid), reserved (billed whether "
        "used or not for the term), on_demand (the use above the committed and spot shares, at the headline price, "
        "ramped in) or spot (interruptible hours at the platform's spot price, ramped in).",
    )
    share: float = Field(
        gt=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of the sellable GPU-hours this contract takes at steady state [fraction].",
    )
    term_months: int = Field(
        0,
        ge=0,
        le=120,
        description="Term of a committed contract before it renews at the then-market price [months]; 0 for "
        "on_demand and spot.",
    )
    prepayment_share: float = Field(
        0.0,
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of the first term's contract value the customer pays ahead, with the hardware it funds "
        "(in the delivery month, or as many months later as the contract starts after go-live), and that its "
        "monthly bills then draw down [fraction]; take_or_pay only.",
    )
    counterparty: Counterparty = Field(
        "sub_investment_grade",
        description="Credit of the customer: investment_grade (a hyperscaler, a rated lab) or sub_investment_grade; "
        "lenders size debt on contracted revenue by credit.",
    )
    usd_per_gpu_hour: float | None = Field(
        None,
        gt=0,
        le=100,
        description="Price of the first term at go-live [USD/GPU-hour]: a committed contract holds it for its first "
        "term and renews at the market; a spot contract starts at it and follows the price path. Empty = from "
        "data/rental_contracts.csv by term (spot: the spot row), scaled to the headline price; on_demand always "
        "pays the headline price.",
    )
    start_month: int = Field(
        0, ge=0, le=120, description="Months after go-live the contract starts (0 = at go-live) [months]."
    )

    @model_validator(mode="after")
    def _a_contract(self) -> Contract:
        committed = self.kind in COMMITTED_KINDS
        if committed and self.term_months < 1:
            raise ValueError(f"term_months of a {self.kind} contract must be ≥ 1, got {self.term_months}")
        if not committed and self.term_months:
            raise ValueError(f"a {self.kind} contract has no term: term_months must be 0, got {self.term_months}")
        if self.prepayment_share and self.kind != "take_or_pay":
            raise ValueError(f"only a take_or_pay contract is prepaid: prepayment_share of {self.kind} must be 0")
        if self.usd_per_gpu_hour is not None and self.kind == "on_demand":
            raise ValueError(
                "an on_demand contract pays the headline price (pricing.usd_per_gpu_hour × the on-demand multiple): "
                "leave its usd_per_gpu_hour empty"
            )
        return self


class Pricing(_Section):
    """What customers pay."""

    usd_per_gpu_hour: float = Field(
        default_rentals(BASE_BOOK_DATE)["h100-sxm"].usd_per_gpu_hour,
        ge=0,
        le=100,
        description="On-demand price of a GPU-hour at go-live [USD/GPU-hour]; default the H100 on-demand price of "
        "the default book's date, 2024-10 (the on-demand row of data/markets/2024-10/rental_contracts.csv).",
    )
    utilization: float = Field(
        assumed("pricing.utilization"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of all sellable GPU-hours customers use at steady state, reserved capacity included "
        "[fraction]. On demand sells what exceeds the reserved share; reserved capacity is paid for whether used or "
        "not, so billed hours never fall below the reserved share. Shorthand: with contracts the book's shares set "
        "the use, and a Stress-test case moves its on-demand (then spot) sales above the committed share.",
    )
    contracts: list[Contract] | None = Field(
        None,
        max_length=20,
        description="The contract book as sold: take-or-pay, reserved, on-demand and spot contracts, each a share of "
        "the sellable GPU-hours with its term, prepayment, counterparty and price; or the name of a book of "
        "data/contract_books.csv. When given it is the one book the model reads: utilization is the sum of its "
        "shares and the reserved fields below are not used. Empty = the shorthand: reserved share at the reserved "
        "term, on demand the use above it.",
    )
    spot_share_of_idle: float = Field(
        assumed("pricing.spot_share_of_idle"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of the idle GPU-hours (sellable hours no contract takes, and the hot spares' and "
        "held-back trays') sold as interruptible spot capacity at the platform's spot price [fraction].",
    )
    reserved_share: float = Field(
        assumed("pricing.reserved_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of sellable GPUs under take-or-pay contracts, paid for from go-live whether used or "
        "not; each renewal re-prices to the then-market price [fraction]. Shorthand, when contracts is empty.",
    )
    reserved_price_multiple: float | None = Field(
        None,
        ge=0,
        le=5,
        description="Reserved price as a multiple of the headline price [ratio]; empty = the platform's contract "
        "price for the reserved term ÷ its on-demand price (data/rental_contracts.csv: 1- and 3-year rows, a term "
        "between them interpolated geometrically).",
    )
    reserved_usd_per_gpu_hour: float | None = Field(
        None,
        ge=0,
        le=100,
        description="Pinned price of the first reserved contracts [USD/GPU-hour]; renewals re-price to the market "
        "(multiple × headline × the price path to that date); empty = multiple × headline.",
    )
    reserved_term_months: int = Field(
        assumed_count("pricing.reserved_term_months"),
        ge=1,
        le=120,
        description="Length of reserved contracts before renewal at the then-market price: the headline price "
        "along the price path to that date × the reserved multiple; 12 and 36 months take the 1- and 3-year "
        "contract prices [months].",
    )
    on_demand_price_multiple: float = Field(
        1.0, ge=0, le=5, description="On-demand price as a multiple of the headline price [ratio]."
    )
    price_decline_per_year: float | None = Field(
        None,
        ge=-0.5,
        le=0.95,
        json_schema_extra={"unit": "fraction"},
        description="Flat yearly fall of on-demand and renewal prices, negative for a rise (as one-year contract "
        "prices rose in 2025-26) [fraction]; empty = the platform "
        "generation's curve by year of age (data/price_curves.csv), the age at go-live taken from the price "
        "book's date plus the go-live month.",
    )
    ramp_months: int = Field(
        assumed_count("pricing.ramp_months"),
        ge=0,
        le=36,
        description="Months after go-live to reach steady utilization [months].",
    )
    sell: Literal["gpu_hours", "tokens", "mix"] = Field(
        "gpu_hours",
        description="What the cluster sells: gpu_hours (rented GPUs), tokens (served through an API, priced per "
        "million tokens) or mix (token_share of the GPU-hours served as tokens, the rest rented); both go through "
        "the same contract book and utilization.",
    )
    token_share: float = Field(
        0.5,
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of the sellable GPU-hours served as tokens when sell is mix [fraction].",
    )
    workload: str = Field(
        "llama70b-chat",
        max_length=64,
        description="What is served: a key of data/workloads.csv (llama70b-chat, llama405b-long, llama8b-summarize, "
        "deepseek-r1-reasoning, gpt-oss-120b, …): the model, its precision and the request's input/output tokens.",
    )
    serving_scenario: Literal["offline", "server", "interactive"] = Field(
        "interactive",
        description="Latency the throughput is measured at (data/inference_throughput.csv): interactive (MLPerf's "
        "tighter p99 limits, 25-70 tokens/s per user: the chat speed API list prices are sold at), server (looser "
        "limits, Llama 70B at 5-8 tokens/s per user) or offline (batch, no bound); a platform without an interactive "
        "result takes its server rate × a sibling platform's interactive ÷ server ratio "
        "(data/inference_derivations.csv).",
    )
    serving_load_factor: float = Field(
        assumed("pricing.serving_load_factor"),
        gt=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Tokens served on average as a share of the published benchmark rate at the serving latency "
        "[fraction]: a fleet sized for its busiest hour serves less the rest of the day and keeps headroom for "
        "bursts; tokens only, before utilization and the contract book. "
        f"{assumed('pricing.serving_load_factor'):g} from DeepSeek's published day of serving (2025-03).",
    )
    usd_per_million_tokens: TokenPrices = Field(
        default_factory=TokenPrices,
        description="Token prices per million input and output tokens at go-live [USD]; a request of the workload's "
        "shape pays input × input price + output × output price.",
    )
    token_demand_share: float | None = Field(
        assumed("pricing.token_demand_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of the model's API market (output tokens a day, data/token_demand.csv) the plan can sell: "
        "tokens above it find no buyer, their GPU-hours stay idle (and may sell as spot) [fraction]; empty = no cap "
        "(the plan has buyers for every token it serves, e.g. its own product or a contracted offtaker).",
    )
    token_price_decline_per_year: float | None = Field(
        None,
        ge=0,
        le=0.95,
        json_schema_extra={"unit": "fraction"},
        description="Yearly fall of token prices [fraction]; empty = the same-model trend in "
        "data/token_price_trends.csv (Llama 70B class: 45 % a year; DeepSeek-R1: 4 %).",
    )
    sla_credit_share: float = Field(
        assumed("pricing.sla_credit_share"),
        ge=0,
        le=0.5,
        json_schema_extra={"unit": "fraction"},
        description="Revenue given back as SLA credits [fraction]; used when operations.sla_credits is "
        "fixed_share (the default derives credits from the failure model).",
    )
    reserved_counterparty: Credit = Field(
        "sub_investment_grade",
        description="Credit of the take-or-pay customers: investment_grade or sub_investment_grade; a loan whose "
        "spread follows the credit of its contracts (a tranche's credit_spreads) reads it.",
    )
    receivable_days: float = Field(
        assumed("pricing.receivable_days"),
        ge=0,
        le=180,
        description="Days from the end of the month revenue is earned to the customer's payment: working capital "
        "tied up in receivables, collected at the horizon at the latest; tax follows revenue as earned [days].",
    )

    @field_validator("contracts", mode="before")
    @classmethod
    def _named_book(cls, value: Any) -> Any:
        """A book's name (``data/contract_books.csv``) stands for its contracts."""
        return book_contracts(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _shares_fit(self) -> Pricing:
        if self.contracts is not None:
            total = sum(c.share for c in self.contracts)
            if total > 1.0 + 1e-9:
                raise ValueError(f"pricing.contracts: the shares must sum to at most 100 %, got {100 * total:.4g} %")
        return self

    @property
    def steady_utilization(self) -> float:
        """Share of the sellable GPU-hours customers use at steady state [fraction]: the sum of the contract book's
        shares when ``contracts`` is given (committed capacity is used), else ``utilization``."""
        if self.contracts is None:
            return self.utilization
        return min(sum(c.share for c in self.contracts), 1.0)

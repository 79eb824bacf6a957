"""What the price solvers sell: the failure model's and the customers' terms on the contract book
(:func:`sales_terms`), and the token figures of a design (:func:`token_figures`: tokens per second per GPU, cost and
break-even per million tokens, demand cap included) with why one is undefined (:func:`token_warnings`)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..economics import customers, inference, operations, revenue
from ..economics.operations import OperationsReport
from ..inputs import pricebook
from ..inputs.scenario import Scenario
from .returns import BREAKEVEN_MAX_USD_PER_GPU_HOUR, SalesTerms, TokenSale, _tco, breakeven_price


def sales_terms_plain(scenario: Scenario) -> SalesTerms:
    """:func:`sales_terms` without the failure model and customers: every GPU on sale at the scenario's use."""
    return SalesTerms(
        sellable_gpus=scenario.cluster.gpus,
        on_demand_price_multiple=scenario.pricing.on_demand_price_multiple,
        utilization=scenario.pricing.steady_utilization,
    )


def sales_terms(
    scenario: Scenario,
    d: revenue.Dates,
    terms: customers.Terms,
    utilization_factor: float = 1.0,
    spare_gpus: int = 0,
) -> SalesTerms:
    """What the price solvers take from the failure model and the customers
    (:class:`~neoplan.finance.returns.SalesTerms`): GPUs on sale (held-back NVL72 trays excluded, sold at spot when
    idle with the ``spare_gpus`` of hot spares), the use after the checklist's ``utilization_factor``, the tier's
    on-demand premium and the customer losses."""
    platform = pricebook.default_platforms()[scenario.cluster.gpu_model]
    trays = platform.compute_trays if platform.rack_scale else 1
    held = scenario.cluster.held_back_trays_per_rack if platform.rack_scale else 0
    sellable = scenario.cluster.gpus * (trays - held) // trays
    return SalesTerms(
        sellable_gpus=sellable,
        on_demand_price_multiple=scenario.pricing.on_demand_price_multiple * (1.0 + float(terms.premium[0])),
        customer_loss_share=customers.acceptance_share(scenario, d, terms),
        reserved_loss_share=customers.churn_share(scenario, d, terms),
        spare_gpus=spare_gpus + scenario.cluster.gpus - sellable,
        utilization=scenario.pricing.steady_utilization * utilization_factor,
    )


TOKEN_FIGURES = ("tokens_per_second_per_gpu", "cost_usd_per_million_tokens", "breakeven_usd_per_million_tokens")
"""The token figures of every Result (``None`` when the platform has no published rate for the workload)."""


def token_figures(
    scenario: Scenario,
    tokens: inference.Terms,
    report: OperationsReport,
    d: revenue.Dates,
    capex_usd: float,
    opex_fixed: dict[str, np.ndarray],
    sold_gpu_hours: np.ndarray,
    terms: SalesTerms | None = None,
) -> dict[str, float | None]:
    """Token figures of the design, whatever ``pricing.sell`` is; None without a published rate for the workload.
    ``terms``: the failure model's and the customers' effects on the book (:func:`sales_terms`).

    ``tokens_per_second_per_gpu`` is the achieved output rate: the published one × ``pricing.serving_load_factor``
    [tokens/s]. ``cost_usd_per_million_tokens`` is
    levelised like TCO: PV(costs) ÷ PV(million output tokens served in the sold GPU-hours), so it equals TCO per
    GPU-hour ÷ million tokens per GPU-hour. ``breakeven_usd_per_million_tokens`` is the go-live token price at
    which project NPV is 0 when every sellable GPU-hour is offered as tokens (the same contract book, declining at
    the token price decline, capped by the plan's share of the model's market; the hours no buyer takes sell at
    spot as GPU-hours) [USD per million output tokens, their input tokens included].
    """
    rate = tokens.tokens_per_gpu_hour
    if rate <= 0:
        return dict.fromkeys(TOKEN_FIGURES)
    millions = rate / inference.TOKENS_PER_MILLION  # per GPU-hour
    cost = sum(_tco(scenario, d, capex_usd, opex_fixed, sold_gpu_hours * millions).values())
    seller = operations.as_sold(scenario, report)
    terms = terms or sales_terms_plain(scenario)
    planned = terms.sellable_gpus * inference.HOURS_PER_DAY * (terms.utilization or 0.0) * rate  # tokens a day
    sale = TokenSale(
        usd_per_gpu_hour=scenario.pricing.usd_per_gpu_hour * report.price_factor,
        token_share=1.0,
        decline_per_year=tokens.decline_per_year,
        demand_scale=float(inference.demand_scale(planned, tokens.demand_output_tokens_per_day)),
    )
    solved = breakeven_price(seller, d, capex_usd, opex_fixed, terms=replace(terms, tokens=sale))
    breakeven = operations.headline_price(report, solved) / millions
    return {
        "tokens_per_second_per_gpu": rate / inference.SECONDS_PER_HOUR,
        "cost_usd_per_million_tokens": cost,
        "breakeven_usd_per_million_tokens": breakeven,
    }


def token_warnings(tokens: inference.Terms, figures: dict[str, float | None], sold_gpu_hours: float) -> list[str]:
    """Why a token figure is undefined when the workload has a published rate (none without one: n/a)."""
    if tokens.row is None:
        return []
    out = []
    cost, breakeven = figures["cost_usd_per_million_tokens"], figures["breakeven_usd_per_million_tokens"]
    unsold = "no GPU-hours are sold, so no tokens are served" if not sold_gpu_hours > 0 else ""
    if cost is None or not math.isfinite(cost):
        out.append(f"Cost per million tokens undefined: {unsold or 'too few tokens are served to spread the costs'}.")
    if breakeven is None or not math.isfinite(breakeven):
        top = BREAKEVEN_MAX_USD_PER_GPU_HOUR / (tokens.tokens_per_gpu_hour / inference.TOKENS_PER_MILLION)
        why = unsold or f"project NPV stays negative at every token price up to ${top:,.2f} per million tokens"
        out.append(f"Token break-even undefined: {why}.")
    return out

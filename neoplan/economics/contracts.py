"""The contract book as the engine reads it: each contract's share, term, price multiple, prepayment and credit.

A scenario sells its sellable GPU-hours through one book (:class:`Book`), built by :func:`book_of`:

* ``pricing.contracts`` when given: take-or-pay and reserved contracts (*committed*: billed whether used or not for
  their term, renewed at the then-market price), on-demand and spot contracts (billed as used, ramped in);
* else the shorthand: one reserved contract of ``reserved_share`` for ``reserved_term_months`` (at
  ``reserved_price_multiple``, or pinned at ``reserved_usd_per_gpu_hour``), and on demand for the use above it.

Prices are multiples of the headline price at go-live (:mod:`neoplan.economics.market`: a committed term's contract
price ÷ the on-demand price; spot the spot row ÷ the on-demand row), so the book is affine in the headline price; a
contract's own ``usd_per_gpu_hour`` pins its first term instead. Idle hours (what no contract takes, plus hot spares
and held-back trays) sell at spot for ``pricing.spot_share_of_idle`` of them.

The lenders' view: :func:`neoplan.economics.revenue.contracted_revenue_by_credit` is the committed revenue of the
contracts signed at close (their first term, first cluster) by the counterparty's credit, month by month and case by
case.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..inputs.books import COMMITTED_KINDS
from ..inputs.business import Pricing
from . import market

if TYPE_CHECKING:
    from ..inputs.scenario import Scenario

CREDITS = ("investment_grade", "sub_investment_grade")
"""Counterparty credit classes, as lenders tell them apart."""


@dataclass(frozen=True)
class Line:
    """One contract of the book, ready for the engine."""

    kind: str
    """``take_or_pay``, ``reserved``, ``on_demand`` or ``spot``."""
    share: float
    """Share of the sellable GPU-hours at steady state [fraction]."""
    term_months: int = 0
    """Term of a committed contract [months]; 0 otherwise."""
    multiple: float = 1.0
    """Price at go-live ÷ the headline price [ratio] (committed: its term's; spot: the spot row's; on demand: 1)."""
    pinned_usd_per_gpu_hour: float | None = None
    """A committed contract's first-term price, or a spot contract's price at go-live [USD/GPU-h]; None = multiple."""
    prepayment_share: float = 0.0
    """Share of the first term's value paid at signing (take-or-pay) [fraction]."""
    counterparty: str = "sub_investment_grade"
    start_month: float = 0.0
    """Months after go-live the contract starts [months]."""

    @property
    def committed(self) -> bool:
        """Billed whether used or not for its term (take-or-pay, reserved)."""
        return self.kind in COMMITTED_KINDS


@dataclass(frozen=True)
class Book:
    """The contracts a scenario sells through, the spot market for its idle hours, and the spot multiple."""

    lines: tuple[Line, ...]
    spot_share_of_idle: float = 0.0
    """Share of idle hours sold at spot [fraction]."""
    spot_multiple: float = 0.5
    """Spot price ÷ headline price [ratio]."""

    def of_kind(self, *kinds: str) -> tuple[Line, ...]:
        """The lines of the given kinds, in book order."""
        return tuple(line for line in self.lines if line.kind in kinds)

    @property
    def committed(self) -> tuple[Line, ...]:
        """Take-or-pay and reserved lines."""
        return self.of_kind(*COMMITTED_KINDS)

    @property
    def committed_share(self) -> float:
        """Share of the sellable hours under committed contracts [fraction]."""
        return sum(line.share for line in self.committed)

    @property
    def spot_share(self) -> float:
        """Share sold on spot contracts [fraction]."""
        return sum(line.share for line in self.of_kind("spot"))

    @property
    def on_demand_share(self) -> float:
        """Share sold on demand [fraction]."""
        return sum(line.share for line in self.of_kind("on_demand"))

    @property
    def utilization(self) -> float:
        """Share of the sellable hours used at steady state: every contract's share [fraction]."""
        return min(self.committed_share + self.spot_share + self.on_demand_share, 1.0)

    @property
    def committed_multiple(self) -> float:
        """Share-weighted price multiple of the committed lines [ratio]; 1 without any."""
        total = self.committed_share
        return sum(line.share * line.multiple for line in self.committed) / total if total > 0 else 1.0

    def unpinned(self) -> Book:
        """The book with no pinned prices (a token book: a GPU-hour price does not price tokens)."""
        return replace(self, lines=tuple(replace(line, pinned_usd_per_gpu_hour=None) for line in self.lines))


def shorthand_book(pricing: Pricing, reserved_multiple: float, utilization: float | None = None) -> Book:
    """The shorthand's book: reserved ``reserved_share`` for ``reserved_term_months`` at ``reserved_multiple`` (or
    its pinned price) with customers of ``reserved_counterparty``'s credit, and on demand the use above it
    (``utilization``, default ``pricing.utilization``)."""
    util = pricing.utilization if utilization is None else utilization
    lines = [
        Line(
            "reserved",
            pricing.reserved_share,
            pricing.reserved_term_months,
            reserved_multiple,
            pricing.reserved_usd_per_gpu_hour,
            counterparty=pricing.reserved_counterparty,
        ),
        Line("on_demand", max(util - pricing.reserved_share, 0.0)),
    ]
    return Book(tuple(line for line in lines if line.share > 0), 0.0)


def book_of(scenario: Scenario) -> Book:
    """The scenario's book with its prices from the market data (see the module docstring)."""
    p, platform, as_of = scenario.pricing, scenario.cluster.gpu_model, scenario.prices_as_of
    uses_spot = p.spot_share_of_idle > 0 or any(c.kind == "spot" for c in p.contracts or ())
    spot = market.spot_multiple(platform, as_of) if uses_spot else 0.5
    if p.contracts is None:
        return replace(
            shorthand_book(p, market.reserved_multiple(scenario)),
            spot_share_of_idle=p.spot_share_of_idle,
            spot_multiple=spot,
        )
    lines = []
    for c in p.contracts:
        multiple = market.term_multiple(platform, c.term_months, as_of) if c.kind in COMMITTED_KINDS else 1.0
        multiple = spot if c.kind == "spot" else multiple
        lines.append(
            Line(
                c.kind,
                c.share,
                c.term_months,
                multiple,
                c.usd_per_gpu_hour,
                c.prepayment_share,
                c.counterparty,
                float(c.start_month),
            )
        )
    return Book(tuple(lines), p.spot_share_of_idle, spot)


def book_records(book: Book, usd_per_gpu_hour: float, on_demand_multiple: float = 1.0) -> list[dict[str, Any]]:
    """``book`` as plain records, one per contract then the idle hours at spot (kind ``idle_spot``, its share the
    share of idle hours sold): kind, share, term, prepayment, counterparty, start and price at go-live before the
    failure model's performance discount [USD/GPU-h] (headline × multiple, or the pinned price; on demand at the
    headline × ``on_demand_multiple``), and whether it is pinned."""
    records = [
        {
            "kind": line.kind,
            "share": line.share,
            "term_months": line.term_months,
            "prepayment_share": line.prepayment_share,
            "counterparty": line.counterparty,
            "start_month": line.start_month,
            "usd_per_gpu_hour": line.pinned_usd_per_gpu_hour
            if line.pinned_usd_per_gpu_hour is not None
            else usd_per_gpu_hour * (on_demand_multiple if line.kind == "on_demand" else line.multiple),
            "pinned": line.pinned_usd_per_gpu_hour is not None,
        }
        for line in book.lines
    ]
    idle = {
        "kind": "idle_spot",
        "share": book.spot_share_of_idle,
        "term_months": 0,
        "prepayment_share": 0.0,
        "counterparty": "sub_investment_grade",
        "start_month": 0.0,
        "usd_per_gpu_hour": usd_per_gpu_hour * book.spot_multiple,
        "pinned": False,
    }
    return [*records, idle]

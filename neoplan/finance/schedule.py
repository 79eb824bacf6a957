"""The debt of every tranche together, month by month (:class:`DebtSchedule`), and the loan on its own as scheduled
(:func:`debt_schedule`). Conventions: :mod:`neoplan.finance.debt` and :mod:`neoplan.finance.waterfall`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..inputs.business import Financing
from ..inputs.loans import base_rate_path
from ..inputs.pricebook import BASE_BOOK_DATE
from . import waterfall
from .debt import BASE_RATE, Closing, Group, Pieces, build_pieces
from .waterfall import Flows


def _each(value: Any, n: int, dtype: type | None = None) -> np.ndarray:
    """``value`` (a scalar or per-case values) as one value per case (n,)."""
    a = np.asarray(value, dtype=dtype)
    if a.shape == (n,):
        return a
    return np.full(n, a) if a.ndim == 0 else np.broadcast_to(a, (n,))


@dataclass(frozen=True)
class DebtSchedule:
    """Monthly debt flows of every tranche together (n, months) [USD]; ``balance`` is at the end of each month.

    The months ``repay_start``, ``maturity`` and ``first_draw`` are the earliest repayment month, the latest
    maturity (cut at the horizon) and the first draw, as one int when every case has the same month (one scenario
    always has), else per case (n,). ``pieces`` holds the loans one by one (:class:`~neoplan.finance.debt.Pieces`)
    and ``flows`` what the waterfall made of them (:class:`~neoplan.finance.waterfall.Flows`).
    """

    draws: np.ndarray
    interest: np.ndarray
    interest_capitalized: np.ndarray
    interest_paid: np.ndarray
    principal: np.ndarray
    payoff: np.ndarray
    balance: np.ndarray
    fee: np.ndarray
    repay_start: int | np.ndarray
    maturity: int | np.ndarray
    first_draw: int | np.ndarray
    sweep: np.ndarray
    """Prepaid: the cash sweep and sale proceeds [USD]."""
    reserve_funded: np.ndarray
    reserve_released: np.ndarray
    pieces: Pieces
    flows: Flows

    @cached_property
    def rate_per_month(self) -> np.ndarray:
        """Average interest rate of each case's debt: interest ÷ balance owed over its life (n,) [fraction per
        month]; a fixed rate is its rate."""
        n = self.draws.shape[0]
        owed = np.maximum(self.balance, 0.0)[:, :-1].sum(axis=1) + self.draws.sum(axis=1)
        return np.divide(self.interest.sum(axis=1), owed, out=np.zeros(n), where=owed > 1e-9)

    @property
    def debt_service(self) -> np.ndarray:
        """Debt service due per month: interest paid + principal (installments and what falls due at maturity);
        sweeps and the horizon's payoff excluded [USD]."""
        return self.interest_paid + self.principal

    @property
    def drawn_usd(self) -> np.ndarray:
        """Debt drawn by each case (n,) [USD]; for a sized loan, its size after sizing."""
        return self.draws.sum(axis=1)

    @property
    def swept(self) -> np.ndarray:
        """:attr:`sweep` (n, months) [USD]."""
        return self.sweep

    @property
    def cash_sweep(self) -> np.ndarray:
        """Prepaid from the waterfall's surplus (n, months) [USD]."""
        return self.flows.cash_sweep.sum(axis=0)

    @property
    def reserve_flow(self) -> np.ndarray:
        """Reserve released − funded: the reserve's cash to equity per month (n, months) [USD]."""
        return self.reserve_released - self.reserve_funded

    @property
    def financed_usd(self) -> np.ndarray:
        """Capex the pieces draw on, per case (n,) [USD]."""
        return self.draws.sum(axis=1)

    def tranche(self, name: str) -> dict[str, np.ndarray]:
        """Draws, interest, principal, prepayment and balance of one tranche (n, months) [USD]."""
        mine = np.array([p == name for p in self.pieces.names])
        f = self.flows
        return {
            "draws": self.pieces.draws[mine].sum(axis=0),
            "interest": f.interest[mine].sum(axis=0),
            "principal": f.principal[mine].sum(axis=0),
            "prepaid": (f.cash_sweep + f.sale_sweep + f.payoff)[mine].sum(axis=0),
            "balance": f.balance[mine].sum(axis=0),
        }


def _one_or_each(months: np.ndarray) -> int | np.ndarray:
    """Per-case months (n,) as one int when every case agrees, as :class:`DebtSchedule` reports them."""
    return int(months[0]) if months.size and (months == months[0]).all() else months


def schedule_of(pieces: Pieces, flows: Flows) -> DebtSchedule:
    """The debt of every tranche together (:class:`DebtSchedule`)."""
    _n_pieces, _n, months = pieces.draws.shape
    drawn = pieces.draws.sum(axis=-1) > 0
    start = np.where(drawn, pieces.start, months).min(axis=0)
    maturity = np.minimum(np.where(drawn, pieces.maturity, 0).max(axis=0), months)
    total = pieces.draws.sum(axis=0)
    first_draw = (total > 0).argmax(axis=1)
    interest = flows.interest.sum(axis=0)
    capitalized = flows.capitalized.sum(axis=0)
    return DebtSchedule(
        draws=total,
        interest=interest,
        interest_capitalized=capitalized,
        interest_paid=interest - capitalized,
        principal=flows.principal.sum(axis=0),
        payoff=flows.payoff.sum(axis=0),
        balance=flows.balance.sum(axis=0),
        fee=pieces.fee.sum(axis=0),
        repay_start=_one_or_each(start),
        maturity=_one_or_each(maturity),
        first_draw=_one_or_each(first_draw),
        sweep=(flows.cash_sweep + flows.sale_sweep).sum(axis=0),
        reserve_funded=flows.reserve_funded,
        reserve_released=flows.reserve_released,
        pieces=pieces,
        flows=flows,
    )


def sizing_basis(
    financing: Financing, cfads: np.ndarray, contracted: Mapping[str, np.ndarray] | None
) -> np.ndarray | None:
    """What the first tranche is sized on (n, months) [USD]: the smaller of the contracted CFADS and the forecast
    CFADS each month (sizing dscr), the contracted CFADS (contracted_revenue), or the CFADS (a sculpted capex_share
    loan); None otherwise."""
    total = None if not contracted else sum(contracted.values())
    if financing.sizing == "dscr":
        return np.zeros(cfads.shape) if total is None else np.minimum(total, cfads)
    if financing.sizing == "contracted_revenue":
        return np.zeros(cfads.shape) if total is None else np.asarray(total)
    return cfads


def debt_schedule(
    financing: Financing,
    capex_payments: np.ndarray,
    first_operating_month: int | np.ndarray,
    cfads: np.ndarray | None = None,
    rate: float | np.ndarray | None = None,
    debt_share: float | np.ndarray | None = None,
    *,
    closing: Closing | None = None,
    contracted_cfads: np.ndarray | None = None,
    proceeds: np.ndarray | None = None,
) -> DebtSchedule:
    """The loan on its own, as scheduled [USD]: draws, interest, repayment and balance of ``capex_payments``
    (n, months), every payment made when due (the waterfall of :func:`phased_cash_flows` fed ample CFADS: no
    shortfall, no lock-up, no cash sweep; ``proceeds`` (n, months) still prepay, as sales do).

    ``cfads`` is what a sculpted loan is sized on, ``contracted_cfads`` what a loan sized on contracts is;
    ``rate`` [per year, before the spread] and ``debt_share`` may be per case (n,).
    """
    pay = np.atleast_2d(np.asarray(capex_payments, dtype=float))
    n, months = pay.shape
    first_op = _each(first_operating_month, n, int)
    contracted = (
        None if contracted_cfads is None else {"sub_investment_grade": np.broadcast_to(contracted_cfads, pay.shape)}
    )
    group = Group(pay, first_op, weight=np.ones(pay.shape), contracted=contracted)
    flow = np.zeros(pay.shape) if cfads is None else np.broadcast_to(np.atleast_2d(cfads), pay.shape)
    shift = np.zeros(n) if rate is None else _each(rate, n, float) - financing.interest_rate
    share = _each(financing.debt_share if debt_share is None else debt_share, n, float)
    pieces = build_pieces(
        financing,
        [group],
        base_path=base_rate_path(BASE_RATE, BASE_BOOK_DATE, months),
        rate_shift=shift,
        debt_share=share,
        basis=None if closing is not None else sizing_basis(financing, flow, contracted),
        closing=closing,
    )
    ample = np.full(pay.shape, AMPLE_USD)
    flows = waterfall.run(
        pieces,
        financing.model_copy(update={"tax_rate": 0.0, "cash_sweep_share": 0.0}),
        cfads_before_tax=np.where(np.arange(months) >= first_op[:, None], ample, 0.0),
        taxable_before_interest=np.zeros(pay.shape),
        idc_deduction_per_usd=np.zeros(pay.shape),
        first_operating=first_op,
        proceeds=np.zeros(pay.shape) if proceeds is None else np.broadcast_to(proceeds, pay.shape),
    )
    return schedule_of(pieces, flows)


AMPLE_USD = 1e15
"""CFADS that pays any debt service: the loan as scheduled (:func:`debt_schedule`)."""

"""The loans: each tranche's terms, how a loan is sized at financial close, its scheduled principal, and the structure
fixed at close (:class:`Closing`) that every other case meets.

Conventions (the monthly grid of :mod:`neoplan.finance.project`):

* **Tranches** (``financing.tranches``, most senior first; empty = one senior loan of the one-loan fields). Each
  funds its ``share`` of every capex payment of what it finances, drawn with the payment; the first tranche's share
  may be left to ``financing.sizing``. What one set of draws funds is a :class:`Group`: a phase of the build
  (``timeline.phases``), or a refresh cluster for a tranche that ``finances_refresh``. A tranche's draws for one
  group are a **piece**, a loan of its own: interest on the balance after the month's draw, capitalised before the
  group's first full operating month (``capitalize_idc``), interest only for ``grace_months`` after it, then
  repaid on the tranche's profile; it matures ``term_months`` after its own first draw for a ``delayed_draw``
  tranche and for every refresh draw, after the tranche's first draw otherwise.
* **Rates**: a fixed tranche pays its all-in rate (the one-loan shorthand: ``interest_rate`` + ``credit_spread``),
  a floating one the base-rate path of ``data/base_rates.csv`` (month 0 = the price book's date) + its spread; a
  tranche with ``credit_spreads`` pays the spread of the credit of the contracts it is sized on, weighted by their
  present value (:func:`credit_weighted_spread`). Nominal a year, ÷ 12 a month.
* **Sizing at close** (the first tranche without a share): ``dscr`` sculpts it to ``target_dscr`` on the contracted
  cash flow the forecast carries (each month the smaller of the contracted CFADS and the forecast CFADS after tax;
  each phase's piece on its own contracts), at most ``max_debt_share`` of capex less the other tranches' shares;
  ``capex_share`` lends ``debt_share`` of capex (a sculpted loan at most what the CFADS repays at the target);
  ``contracted_revenue`` lends at most the contracted CFADS discounted at the loan rate ÷ target, repaid on the
  tranche's amortization. A sculpted piece of size B repays with service = basis × B / PV(basis), so its DSCR on
  that basis is the target when the cover sets its size.
* **Schedule**: each piece's principal falls due in **installments** fixed at close as shares of its balance when
  repayment starts (:func:`installment_profile`: level payment at the rate at close — ``npf.ppmt`` —, straight
  line, sculpted, or bullet); whatever is left at maturity falls due then. Prepayments (the cash sweep, sale
  proceeds) leave the installments as they are, so they repay the last ones first and shorten the loan (inverse
  order of maturity).
* **Fixed at close** (:class:`Closing`): every piece's size in USD, its installment profile, a fixed tranche's
  rate and a floating tranche's spread, and the debt service reserve. Every other case (stress cases, grid cells,
  solver steps) draws that size over its own capex payments, repays on that profile from its own repayment start
  and pays that rate; floating tranches follow the case's own base-rate path. The ``debt_share`` driver scales
  every size (the structuring view: how much should we borrow?).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy_financial as npf

from ..errors import ScenarioError
from ..inputs.business import Financing
from ..inputs.loans import Tranche, credit_spreads
from ..timebase import MONTHS_PER_YEAR

BASE_RATE = "sofr"
"""The base-rate path floating tranches pay (a key of ``data/base_rates.csv``)."""


@dataclass(frozen=True)
class LoanTerms:
    """One tranche's terms, resolved: the shorthand or a :class:`~neoplan.inputs.loans.Tranche`."""

    name: str
    kind: str
    share: float | None
    """Share of each capex payment [fraction]; None = sized by ``financing.sizing`` (first tranche only)."""
    floating: bool
    rate: float
    """Fixed: the all-in rate; floating: the spread over the base rate [fraction per year]."""
    spreads_by_credit: Mapping[str, float] | None
    """Floating with ``credit_spreads``: the spread of each credit [fraction per year]; None = ``rate``."""
    term_months: int
    grace_months: int
    amortization: str
    fee_rate: float
    finances_refresh: bool = False
    field: str = "financing.term_months"
    """Where its term is set, for messages."""

    @property
    def per_draw(self) -> bool:
        """Whether each group's draw matures a term after its own first draw (a delayed-draw loan)."""
        return self.kind == "delayed_draw"


def _terms_of(tranche: Tranche, index: int) -> LoanTerms:
    """A tranche's terms."""
    floating = tranche.rate_basis != "fixed"
    table = credit_spreads().get(tranche.credit_spreads or "") if floating and tranche.spread is None else None
    rate = (tranche.spread or 0.0) if floating else float(tranche.interest_rate or 0.0)
    return LoanTerms(
        tranche.name,
        tranche.kind,
        tranche.share,
        floating,
        rate,
        None if table is None else {credit: row.spread for credit, row in table.items()},
        tranche.term_months,
        tranche.grace_months,
        tranche.amortization,
        tranche.upfront_fee_rate,
        tranche.finances_refresh,
        f"financing.tranches[{index}].term_months ({tranche.name})",
    )


def loan_terms(financing: Financing) -> tuple[LoanTerms, ...]:
    """The tranches of ``financing``, most senior first: ``financing.tranches``, or the one senior loan of the
    one-loan fields (fixed at ``interest_rate`` + ``credit_spread``, sized by ``sizing``)."""
    if financing.tranches:
        return tuple(_terms_of(t, i) for i, t in enumerate(financing.tranches))
    f = financing
    single = LoanTerms(
        "senior",
        "term_loan",
        None,
        False,
        f.interest_rate + f.credit_spread,
        None,
        f.term_months,
        f.grace_months,
        f.amortization,
        f.upfront_fee_rate,
    )
    return (single,)


def annuity_payment(
    principal: np.ndarray | float, rate_per_month: np.ndarray | float, months: int | np.ndarray
) -> np.ndarray:
    """Level monthly payment repaying ``principal`` over ``months`` [USD/month] (an array; 0-d for scalars).

    ``numpy_financial.pmt`` (payments at month end, ``P r / (1 − (1 + r)^−months)``), negated to a payment; a rate
    of at most 1e-9 a month repays ``P / months`` (no interest to speak of: npf's own rate-0 branch).
    """
    rate = np.asarray(rate_per_month, dtype=float)
    return -npf.pmt(np.where(rate > 1e-9, rate, 0.0), months, principal)


@dataclass(frozen=True)
class Group:
    """One set of draws: the capex payments of a phase of the build, or of a refresh cluster (n, months) [USD]."""

    payments: np.ndarray
    first_operating: np.ndarray
    """First full operating month of what it buys, per case (n,) [month]."""
    refresh: bool = False
    weight: np.ndarray | None = None
    """Its share of the project's sizing basis each month (n, months) [fraction]; None = none (a refresh)."""
    contracted: Mapping[str, np.ndarray] | None = None
    """Its contracted CFADS by counterparty credit (n, months) [USD]; None = none."""


@dataclass(frozen=True)
class Closing:
    """The debt as fixed at financial close on the base case (one case), for every other case to meet (module
    docstring). Arrays have one row per piece, in :class:`Pieces` order."""

    sizes_usd: np.ndarray
    """Size of each piece at close (P,) [USD]."""
    profiles: np.ndarray
    """Installment of each repayment month k = 0, 1, … as a share of the balance when repayment starts (P, months)."""
    rates: np.ndarray
    """Fixed pieces: the all-in rate; floating: the spread over the base rate (P,) [fraction per year]."""
    reserve_usd: float
    """Debt service reserve held from the first draw [USD]."""
    capex_usd: float
    """Capex of the case it was fixed on [USD]."""

    @property
    def debt_share(self) -> float:
        """Debt lent at close ÷ capex [fraction]: the base value of the ``debt_share`` driver."""
        return float(self.sizes_usd.sum()) / self.capex_usd if self.capex_usd > 0 else 0.0


@dataclass(frozen=True)
class Pieces:
    """The loans of n cases, one row per piece (tranche × group); arrays (P, n, months) unless noted."""

    names: tuple[str, ...]
    """Tranche name of each piece (P,)."""
    tranche: np.ndarray
    """Tranche index of each piece, 0 = the most senior (P,)."""
    draws: np.ndarray
    rate: np.ndarray
    """Interest rate [fraction per month]."""
    capitalizing: np.ndarray
    """Months whose interest is added to the balance (before the group's first operating month)."""
    installments: np.ndarray
    """Principal due each month as scheduled at close [USD, ≥ 0]."""
    start: np.ndarray
    """First repayment month (P, n)."""
    maturity: np.ndarray
    """Month after the last repayment month: first draw + term (P, n), possibly past the horizon."""
    fee: np.ndarray
    profiles: np.ndarray
    """Installment shares by repayment month (P, n, months) (:class:`Closing`)."""
    rates_at_close: np.ndarray
    """Fixed: all-in rate; floating: spread (P, n) [fraction per year]."""
    reserve_usd: np.ndarray
    """Debt service reserve of each case (n,) [USD]."""

    @property
    def sizes_usd(self) -> np.ndarray:
        """Drawn by each piece (P, n) [USD]."""
        return self.draws.sum(axis=-1)


def _index(size: int) -> np.ndarray:
    return np.arange(size)


def first_draw_month(payments: np.ndarray) -> np.ndarray:
    """Month of each case's first payment (n,); 0 for a case that pays nothing."""
    return (np.atleast_2d(payments) > 0).argmax(axis=-1)


def compounding(rate: np.ndarray, capitalizing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(G_t, G_(t−1)) (..., months): the running product of ``1 + rate`` over the months whose interest is
    capitalised, after and before each month."""
    growth = np.ones((*rate.shape[:-1], rate.shape[-1] + 1))
    growth[..., 1:] = np.where(capitalizing, 1.0 + rate, 1.0)
    cumulative = np.cumprod(growth, axis=-1)
    return cumulative[..., 1:], cumulative[..., :-1]


def owed_at_start(draws: np.ndarray, rate: np.ndarray, capitalizing: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Balance owed in each row's first repayment month ``start`` (...,), before any repayment: the draws, compounded
    over the capitalising months (:func:`compounding`) [USD]."""
    after, before = compounding(rate, capitalizing)
    drawn = after * np.cumsum(draws / before, axis=-1)
    months = draws.shape[-1]
    return np.take_along_axis(drawn, np.minimum(start, months - 1)[..., None], axis=-1)[..., 0]


def discount_in_window(rate: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(1 / Π_(start ≤ s ≤ t) (1 + rate_s) for months in each row's window start … end − 1, else 0; the window mask)
    (..., months): the discount of repayment month t back to the start of repayment."""
    months = rate.shape[-1]
    t = _index(months)
    window = (t >= start[..., None]) & (t < end[..., None])
    growth = np.cumprod(np.where(window, 1.0 + rate, 1.0), axis=-1)
    return np.where(window, 1.0 / growth, 0.0), window


def sculpted_profile(basis: np.ndarray, rate: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Installment shares of a loan sculpted on ``basis`` (..., months) by repayment month k = 0, 1, … (..., months).

    Service in month ``start + k`` is basis × B / PV (B the balance when repayment starts, PV the value of the
    window's basis, floored at 0, at the loan's ``rate`` [fraction per month]): after it the balance is
    ``B G_k (1 − Σ_(j ≤ k) basis_j / G_j / PV)`` (G_k = Π_(j ≤ k) (1 + rate_j)), 0 once the window has passed; each
    installment is the fall of that balance, none where it rises (a month whose basis is below its interest pays the
    interest only; what is left then falls due at maturity). Without a
    basis to sculpt on (PV = 0) the profile is a straight line over the window.
    """
    months = basis.shape[-1]
    discount, window = discount_in_window(rate, start, end)
    weighted = np.maximum(basis, 0.0) * discount
    cumulative = np.cumsum(weighted, axis=-1)
    pv = cumulative[..., -1:]
    growth = np.where(window, 1.0 / np.where(window, discount, 1.0), 1.0)
    left = np.where(window, growth * (1.0 - np.divide(cumulative, pv, out=np.ones(cumulative.shape), where=pv > 0)), 0)
    span = np.maximum(end - start, 1)[..., None]
    t = _index(months)
    level = np.where(window, (end[..., None] - t - 1) / span, 0.0)
    balance = np.where(pv > 0, left, level)  # share of B left after each month of the window
    before = np.concatenate([np.ones((*balance.shape[:-1], 1)), balance[..., :-1]], axis=-1)
    before = np.where(t == start[..., None], 1.0, before)
    paid = np.where(window, np.maximum(before - balance, 0.0), 0.0)  # calendar months; a month whose basis is below
    # its interest repays nothing (the interest is paid, not added to the loan), the rest falls due at maturity
    return _by_repayment_month(paid, start)


def _by_repayment_month(calendar: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Values by calendar month (..., months) re-indexed by months since ``start`` (..., months), 0 past the end."""
    months = calendar.shape[-1]
    k = _index(months)
    at = start[..., None] + k
    return np.where(at < months, np.take_along_axis(calendar, np.minimum(at, months - 1), axis=-1), 0.0)


def level_profile(amortization: str, rate_at_start: np.ndarray, periods: np.ndarray, months: int) -> np.ndarray:
    """Installment shares by repayment month k of an ``annuity`` (``npf.ppmt`` at ``rate_at_start`` [fraction per
    month]), ``straight_line`` (1 / periods) or ``bullet`` (none: all at maturity) loan over ``periods`` months
    (...,) → (..., months)."""
    k = _index(months)
    n = np.maximum(periods, 1)[..., None]
    inside = k < n
    if amortization == "annuity":
        rate = np.where(rate_at_start > 1e-9, rate_at_start, 0.0)[..., None]  # as annuity_payment
        with np.errstate(divide="ignore", invalid="ignore"):  # npf computes its rate-0 branch beside the other
            return np.where(inside, -npf.ppmt(rate, np.minimum(k + 1, n), n, 1.0), 0.0)
    if amortization == "straight_line":
        return np.where(inside, 1.0 / n, 0.0)
    return np.zeros((*np.shape(periods), months))


def credit_weighted_spread(
    terms: LoanTerms, contracted: Mapping[str, np.ndarray] | None, discount: np.ndarray
) -> np.ndarray:
    """The spread of a floating tranche (n,) [fraction per year]: its own, or with ``credit_spreads`` the spreads of
    the credits of its contracts weighted by their contracted CFADS discounted by ``discount`` (n, months); without
    contracts, the sub-investment-grade spread."""
    n = discount.shape[0]
    table = terms.spreads_by_credit
    if table is None:
        return np.full(n, terms.rate)
    values = {c: (np.maximum(a, 0.0) * discount).sum(axis=-1) for c, a in (contracted or {}).items()}
    total = sum(values.values(), np.zeros(n))
    weighted = sum((v * table[c] for c, v in values.items()), np.zeros(n))
    return np.where(total > 0, weighted / np.where(total > 0, total, 1.0), table["sub_investment_grade"])


def repayment_window(
    terms: LoanTerms, first_operating: np.ndarray, first_draw: np.ndarray, drawn: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(first repayment month, maturity) of a piece per case: first operating month + grace; first draw + term.
    Raises ScenarioError where a case that draws would start repaying at or after maturity."""
    start = first_operating + terms.grace_months
    maturity = first_draw + terms.term_months
    bad = drawn & (start >= maturity)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ScenarioError(
            f"{terms.field} ({terms.term_months}) must be longer than construction plus grace: repayment would start "
            f"in month {int(start[i])}, at or after maturity in month {int(maturity[i])} (the term runs from the first "
            "draw, a delayed-draw tranche's from each draw)"
        )
    return start, maturity


def sized_share(
    pay: np.ndarray,
    rate: np.ndarray,
    capitalizing: np.ndarray,
    basis: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    target_dscr: float,
) -> np.ndarray:
    """Share of ``pay`` (n, months) a loan sculpted on ``basis`` at ``target_dscr`` can lend (n,): the balance when
    repayment starts may be at most PV(basis over start … end − 1 at the loan rate) ÷ target, and each USD of share
    owes its payments compounded over the capitalising months by then."""
    discount, _ = discount_in_window(rate, start, end)
    pv = (np.maximum(basis, 0.0) * discount).sum(axis=-1)
    per_share = owed_at_start(pay, rate, capitalizing, start)
    return np.where(per_share > 0, pv / target_dscr / np.where(per_share > 0, per_share, 1.0), 0.0)


def _groups_of(terms: LoanTerms, groups: Sequence[Group]) -> list[int]:
    """Indices of the groups a tranche draws on: every build group; refresh groups if it finances refreshes."""
    return [g for g, group in enumerate(groups) if not group.refresh or terms.finances_refresh]


def build_pieces(
    financing: Financing,
    groups: Sequence[Group],
    *,
    base_path: np.ndarray,
    rate_shift: np.ndarray,
    debt_share: np.ndarray,
    basis: np.ndarray | None,
    closing: Closing | None,
) -> Pieces:
    """Every piece (tranche × group) of n cases: draws, rates, installments, window and fee (module docstring).

    ``base_path`` (months,) [fraction per year] is the base rate floating tranches pay, ``rate_shift`` (n,) moves it
    (and, before close, fixed rates) in parallel; ``debt_share`` (n,) is the first tranche's share under
    ``capex_share`` sizing, or with a ``closing`` the debt share that scales every size; ``basis`` (n, months) the
    project's sizing basis (:class:`Basis`); ``closing`` fixes sizes, profiles and rates.
    """
    tranches = loan_terms(financing)
    n = groups[0].payments.shape[0]
    rows: list[dict[str, np.ndarray]] = []
    names: list[str] = []
    tranche_of: list[int] = []
    index = 0
    for i, terms in enumerate(tranches):
        drawing = _groups_of(terms, groups)
        tranche_first = np.min([first_draw_month(groups[g].payments) for g in drawing if not groups[g].refresh], axis=0)
        for g in drawing:
            fixed = None if closing is None else (closing, index)
            senior_sized = i == 0 and terms.share is None
            rows.append(
                _piece(
                    financing,
                    senior_sized,
                    terms,
                    groups[g],
                    tranche_first,
                    base_path,
                    rate_shift,
                    debt_share,
                    basis,
                    fixed,
                )
            )
            names.append(terms.name)
            tranche_of.append(i)
            index += 1
    stacked = {k: rows[0][k][None] if len(rows) == 1 else np.stack([r[k] for r in rows]) for k in rows[0]}
    reserve = reserve_target(financing.dsra_months, stacked) if closing is None else np.full(n, closing.reserve_usd)
    return Pieces(
        tuple(names),
        np.array(tranche_of),
        stacked["draws"],
        stacked["rate"],
        stacked["capitalizing"],
        stacked["installments"],
        stacked["start"],
        stacked["maturity"],
        stacked["fee"],
        stacked["profiles"],
        stacked["rates_at_close"],
        reserve,
    )


def _on_calendar(profile: np.ndarray, start: np.ndarray, end: np.ndarray, months: int) -> np.ndarray:
    """Shares by repayment month (n or 1, months) placed on the calendar months ``start`` … ``end`` − 1 (n, months)."""
    t = _index(months)
    k = t - start[:, None]
    inside = (k >= 0) & (t < end[:, None])
    at = np.clip(k, 0, months - 1)
    shares = profile[0][at] if profile.shape[0] == 1 else np.take_along_axis(profile, at, axis=1)
    return np.where(inside, shares, 0.0)


def _size_and_profile(
    financing: Financing,
    senior_sized: bool,
    terms: LoanTerms,
    pay: np.ndarray,
    rate: np.ndarray,
    capitalizing: np.ndarray,
    window: tuple[np.ndarray, np.ndarray, np.ndarray],
    debt_share: np.ndarray,
    basis: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """(share of ``pay`` lent (n,), installment shares by repayment month (n, months)) of one piece sized here;
    ``window`` = (first repayment month, its end cut at the horizon, maturity)."""
    start, end, maturity = window
    n, months = pay.shape
    sculpted = terms.amortization == "sculpted" or (senior_sized and financing.sizing == "dscr")
    flow = np.zeros(pay.shape) if basis is None else basis
    if not senior_sized:
        share = np.full(n, float(terms.share or 0.0))
    elif financing.sizing == "dscr":
        others = sum(t.share or 0.0 for t in loan_terms(financing)[1:])
        cap = max(financing.max_debt_share - others, 0.0)
        share = np.minimum(cap, sized_share(pay, rate, capitalizing, flow, start, end, financing.target_dscr))
    elif financing.sizing == "contracted_revenue" or sculpted:
        on_flow = sized_share(pay, rate, capitalizing, flow, start, end, financing.target_dscr)
        share = np.minimum(debt_share, np.maximum(on_flow, 0.0))
    else:
        share = np.asarray(debt_share, dtype=float)
    if sculpted:
        return share, sculpted_profile(flow, rate, start, end)
    at_start = np.take_along_axis(rate, np.minimum(start, months - 1)[:, None], axis=1)[:, 0]
    return share, level_profile(terms.amortization, at_start, maturity - start, months)  # over the whole term


def _piece(
    financing: Financing,
    senior_sized: bool,
    terms: LoanTerms,
    group: Group,
    tranche_first: np.ndarray,
    base_path: np.ndarray,
    rate_shift: np.ndarray,
    debt_share: np.ndarray,
    basis: np.ndarray | None,
    fixed: tuple[Closing, int] | None,
) -> dict[str, np.ndarray]:
    """One piece's arrays (n, months) or (n,) (:class:`Pieces`)."""
    pay = group.payments
    n, months = pay.shape
    t = _index(months)
    first_draw = first_draw_month(pay)
    capitalizing = (t < group.first_operating[:, None]) & financing.capitalize_idc
    own_first = first_draw if terms.per_draw or group.refresh else tranche_first
    start, maturity = repayment_window(terms, group.first_operating, own_first, pay.sum(axis=1) > 0)
    end = np.minimum(maturity, months)
    group_basis = None if basis is None or group.weight is None else basis * group.weight
    if terms.floating:
        base = base_path[None, :] + rate_shift[:, None]
        if fixed is not None:
            spread = np.full(n, fixed[0].rates[fixed[1]])
        else:
            spread = credit_weighted_spread(terms, group.contracted, discount_in_window(base / 12, start, end)[0])
        annual = base + spread[:, None]
        at_close = spread
    else:
        at_close = np.full(n, terms.rate + rate_shift if fixed is None else fixed[0].rates[fixed[1]])
        annual = np.broadcast_to(at_close[:, None], (n, months))
    rate = annual / MONTHS_PER_YEAR
    if fixed is None:
        share, profile = _size_and_profile(
            financing, senior_sized, terms, pay, rate, capitalizing, (start, end, maturity), debt_share, group_basis
        )
        draws = pay * share[:, None]
    else:
        closing, k = fixed
        scale = debt_share / closing.debt_share if closing.debt_share > 0 else np.zeros(n)
        total = pay.sum(axis=1, keepdims=True)
        draws = (
            np.divide(pay, total, out=np.zeros(pay.shape), where=total > 0) * (closing.sizes_usd[k] * scale)[:, None]
        )
        profile = closing.profiles[k][None, :]  # one profile for every case
    owed = owed_at_start(draws, rate, capitalizing, start)
    fee = np.zeros(pay.shape)
    fee[_index(n), first_draw] = terms.fee_rate * draws.sum(axis=1)
    return {
        "draws": draws,
        "rate": rate,
        "capitalizing": capitalizing,
        "installments": _on_calendar(profile, start, end, months) * owed[:, None],
        "start": start,
        "maturity": maturity,
        "fee": fee,
        "profiles": np.array(profile),
        "rates_at_close": at_close,
    }


def loan_path(
    draws: np.ndarray, rate: np.ndarray, capitalizing: np.ndarray, installments: np.ndarray, maturity: np.ndarray
) -> dict[str, np.ndarray]:
    """Interest, capitalised interest, principal, balance and debt service due of loans repaid as scheduled, no
    prepayment (..., months) [USD], in closed form.

    In month t the balance owed is the last one plus the draw; its interest is capitalised in capitalising months;
    the principal due is the installment, or what is left if less, and everything at maturity. With G the running
    product of the capitalising months' growth the balance is ``G_t Σ_(s ≤ t) (draw_s / G_(s−1) − installment_s /
    G_s)``, 0 once below a micro-dollar (a repaid loan's rounding) and from the month before maturity on. The cash
    waterfall applies the same rules a month at a time once prepayments begin (:mod:`neoplan.finance.waterfall`).
    """
    months = draws.shape[-1]
    after, before = compounding(rate, capitalizing)
    balance = after * np.cumsum(draws / before - installments / after, axis=-1)
    live = (_index(months) < maturity[..., None] - 1) & (balance > MICRO_USD)
    balance = np.where(live, balance, 0.0)
    owed = draws.copy()
    owed[..., 1:] += balance[..., :-1]
    interest = owed * rate
    capitalized = np.where(capitalizing, interest, 0.0)
    principal = np.maximum(owed + capitalized - balance, 0.0)
    principal = np.where(principal > MICRO_USD, principal, 0.0)
    return {
        "interest": interest,
        "capitalized": capitalized,
        "principal": principal,
        "balance": balance,
        "service": interest - capitalized + principal,
    }


MICRO_USD = 1e-6
"""Below a micro-dollar a balance or a payment is rounding [USD]."""


def reserve_target(dsra_months: int, stacked: Mapping[str, np.ndarray]) -> np.ndarray:
    """Debt service reserve of each case (n,) [USD]: the largest service scheduled at close (:func:`loan_path`, every
    piece; what falls due at maturity beyond the installment left out) over any ``dsra_months`` consecutive months;
    0 without a reserve."""
    draws = stacked["draws"]
    n, months = draws.shape[1:]
    if dsra_months <= 0:
        return np.zeros(n)
    path = loan_path(draws, stacked["rate"], stacked["capitalizing"], stacked["installments"], stacked["maturity"])
    regular = path["interest"] - path["capitalized"] + np.minimum(path["principal"], stacked["installments"])
    service = regular.sum(axis=0)
    window = min(dsra_months, months)
    running = np.zeros((n, months + 1))
    np.cumsum(service, axis=1, out=running[:, 1:])
    return (running[:, window:] - running[:, :-window]).max(axis=1)


def closing_of(pieces: Pieces, capex_usd: float) -> Closing:
    """The structure of the first case of ``pieces``, fixed at close (:class:`Closing`)."""
    return Closing(
        pieces.sizes_usd[:, 0].copy(),
        pieces.profiles[:, 0].copy(),
        pieces.rates_at_close[:, 0].copy(),
        float(pieces.reserve_usd[0]),
        float(capex_usd),
    )

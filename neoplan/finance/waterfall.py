"""The monthly cash waterfall: the loans' interest and repayment, the debt service reserve, the lock-up, the cash
sweep and sale proceeds, and the tax on operations, for n cases at once.

The waterfall of each month from the first full operating month until the debt is repaid (before it equity funds
whatever the project needs, capex and interest during construction included; after it equity takes the CFADS):

1. **CFADS** = revenue collected − opex − tax on operations (interest deducted as it accrues).
2. **Debt service**, every tranche by seniority (first listed first): interest on the balance after the month's
   draw (none while capitalised before its group's first operating month) and the installment due; at maturity
   what is left of the balance.
3. **Shortfall** (CFADS below debt service): paid from the cash held by a lock-up first, then the **debt service
   reserve** (DSRA); what they cannot pay is a **payment default**, counted, and paid by the sponsor (an equity cure)
   so that every payment is still made. Before the first repayment month (the grace months, while revenue is first
   collected) interest the CFADS does not cover is the sponsor's start-up cost, as lenders budget it with the
   construction, not a default.
4. **Surplus**: refills the reserve to its target first, then the **cash sweep** prepays the senior tranche
   (``cash_sweep_share`` of the surplus; under a covenant breach all of it and the cash held), then the rest is held
   in the project if distributions are locked up, else **distributed** with any cash held before.
5. **Tests** every 3 months from the first repayment month (its third month, then every third): the DSCR of the
   trailing 12 months (from the first repayment month while fewer have passed) = CFADS ÷ debt service due. Below
   ``lockup_dscr`` locks distributions up; below ``covenant_dscr`` is a **covenant breach**, counted, which locks up
   too and sweeps 100 % until a test at or above the covenant. A lock-up is released after **two tests in a row** at
   or above ``lockup_dscr`` (and the covenant). A window without debt service due is no test.

Prepayments (sweeps, sale proceeds) leave the installments fixed at close as they are, so they repay the last ones
first and the loan ends sooner (inverse order of maturity); the cash sweep is spread over the senior tranche's pieces
already drawn, in proportion to their balances. Sale proceeds repay the tranches in order of seniority after the
month's service; the rest goes to equity. Once every piece is repaid and nothing is left to draw, the reserve and the
cash held are released to equity and no test falls. At the horizon what is still owed is repaid (``payoff``), by
equity with the reserve and the cash held released to it (no refinancing).

How it is computed: the loans' path is closed form given the prepayments (:func:`loan_path`), so interest, tax,
CFADS and the tests are whole arrays; the cash accounts (held, reserve, lock-up state) are a loop over the months the
debt is alive, with per-case arrays. The prepayments the loop makes move later interest and so the tax: the two
alternate until the prepayments settle (:data:`SETTLE_TOLERANCE`), at once when nothing is prepaid before the horizon.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..inputs.business import Financing
from .debt import Pieces, compounding
from .tax import tax_with_loss_carry_forward

TEST_MONTHS = 3
"""Months between two covenant tests."""
TEST_WINDOW_MONTHS = 12
"""Months of CFADS and debt service a test covers (trailing)."""
RELEASE_TESTS = 2
"""Tests in a row at or above the lock-up DSCR that release a lock-up."""
CASH_TOLERANCE_USD = 1e-6
"""Amounts smaller than this are rounding, not cash [USD]: no default, no test, no support."""
SETTLE_TOLERANCE = 1e-11
"""The prepayments have settled when no month's moves by more than this share of the largest draw."""
MAX_PASSES = 40
"""Most alternations of loan path and cash accounts."""


@dataclass(frozen=True)
class Flows:
    """What the waterfall made of n cases: per piece (P, n, months), per case (n, months) [USD unless noted]."""

    interest: np.ndarray
    """Interest accrued, per piece."""
    capitalized: np.ndarray
    """Interest added to the balance, per piece."""
    principal: np.ndarray
    """Scheduled principal paid (the installment, or the balance at maturity), per piece."""
    cash_sweep: np.ndarray
    """Cash swept into prepayment, per piece (senior pieces only)."""
    sale_sweep: np.ndarray
    """Sale proceeds paid into prepayment, per piece."""
    payoff: np.ndarray
    """Balance repaid at the horizon, per piece."""
    balance: np.ndarray
    """Balance at the end of the month (0 in the horizon's month), per piece."""
    operating_tax: np.ndarray
    cfads: np.ndarray
    reserve_funded: np.ndarray
    reserve_draw: np.ndarray
    """Reserve paid into debt service."""
    reserve_topup: np.ndarray
    reserve_released: np.ndarray
    reserve_balance: np.ndarray
    held: np.ndarray
    """Cash held in the project by a lock-up at the end of the month."""
    distributions: np.ndarray
    """Cash the waterfall pays out to equity (from the first operating month until the debt is repaid)."""
    cure: np.ndarray
    """Debt service the cash and the reserve could not pay, paid by the sponsor: a payment default."""
    locked: np.ndarray
    """Distributions locked up at the end of the month [bool]."""
    breach: np.ndarray
    """A covenant test below ``covenant_dscr`` in the month [bool]."""
    test_dscr: np.ndarray
    """DSCR of the month's covenant test; nan without one [ratio]."""


def loan_path(pieces: Pieces, prepaid: np.ndarray) -> dict[str, np.ndarray]:
    """Interest, capitalised interest, principal, balance and debt service due of every piece (P, n, months) [USD],
    given its prepayments ``prepaid`` (P, n, months), in closed form.

    In month t the balance owed is the last one plus the draw; its interest is capitalised in capitalising months;
    the principal due is the installment, or what is left if less, and everything at maturity; prepayments come off
    after it. With G the running product of the capitalising months' growth, the balance is
    ``G_t Σ_(s ≤ t) (draw_s / G_(s−1) − (installment_s + prepaid_s) / G_s)``, 0 when below
    :data:`CASH_TOLERANCE_USD` (installments and prepayments never exceed what is owed once capitalisation has ended)
    and from the month before maturity on.
    """
    months = pieces.draws.shape[-1]
    after, before = compounding(pieces.rate, pieces.capitalizing)
    running = np.cumsum(pieces.draws / before - (pieces.installments + prepaid) / after, axis=-1)
    balance = after * running
    live = (np.arange(months) < pieces.maturity[..., None] - 1) & (balance > CASH_TOLERANCE_USD)
    balance = np.where(live, balance, 0.0)  # below a micro-dollar is the rounding of a repaid loan
    owed = pieces.draws.copy()
    owed[..., 1:] += balance[..., :-1]
    interest = owed * pieces.rate
    capitalized = np.where(pieces.capitalizing, interest, 0.0)
    repaying = np.arange(months) >= np.minimum(pieces.start, pieces.maturity - 1)[..., None]
    principal = np.where(repaying, np.maximum(owed + capitalized - balance - prepaid, 0.0), 0.0)
    return {
        "interest": interest,
        "capitalized": capitalized,
        "principal": principal,
        "balance": balance,
        "service": interest - capitalized + principal,
    }


def _first_repayment(pieces: Pieces) -> np.ndarray:
    """Each case's first repayment month over the pieces that draw (n,); past the horizon without any."""
    months = pieces.draws.shape[-1]
    drawn = pieces.draws.sum(axis=-1) > 0
    return np.where(drawn, pieces.start, months).min(axis=0)


def covenant_tests(cfads: np.ndarray, service: np.ndarray, first_repayment: np.ndarray) -> np.ndarray:
    """DSCR of each month's covenant test (n, months) [ratio]; nan in months without one (module docstring)."""
    n, months = cfads.shape
    t = np.arange(months)
    since = t[None, :] - first_repayment[:, None]
    repaying = since >= 0
    cum_cf = np.zeros((n, months + 1))
    cum_ds = np.zeros((n, months + 1))
    np.cumsum(np.where(repaying, cfads, 0.0), axis=1, out=cum_cf[:, 1:])
    np.cumsum(np.where(repaying, service, 0.0), axis=1, out=cum_ds[:, 1:])
    lo = np.clip(np.maximum(first_repayment[:, None], t + 1 - TEST_WINDOW_MONTHS), 0, t + 1)
    due = cum_ds[:, 1:] - np.take_along_axis(cum_ds, lo, axis=1)
    flow = cum_cf[:, 1:] - np.take_along_axis(cum_cf, lo, axis=1)
    testing = (since >= TEST_MONTHS - 1) & ((since - (TEST_MONTHS - 1)) % TEST_MONTHS == 0) & (due > CASH_TOLERANCE_USD)
    return np.divide(flow, due, out=np.full((n, months), np.nan), where=testing)


def _owed_after(scheduled: np.ndarray, prepaid_before: np.ndarray, t: int) -> np.ndarray:
    """What each piece owes after month t's service given the prepayments made so far (P, n) [USD]: its balance as
    scheduled less what was prepaid, floored at 0 (:func:`loan_path`)."""
    return np.maximum(scheduled[..., t] - prepaid_before, 0.0)


def run(
    pieces: Pieces,
    financing: Financing,
    *,
    cfads_before_tax: np.ndarray,
    taxable_before_interest: np.ndarray,
    idc_deduction_per_usd: np.ndarray,
    first_operating: np.ndarray,
    proceeds: np.ndarray,
) -> Flows:
    """The waterfall of n cases (module docstring).

    ``cfads_before_tax`` = revenue collected − opex, ``taxable_before_interest`` the taxable income of operations
    before interest and the deduction of the interest during construction (IDC), ``idc_deduction_per_usd`` that
    deduction per USD of IDC (the first cluster's tax depreciation), ``proceeds`` the sale proceeds (all
    (n, months)); ``first_operating`` (n,) the project's first full operating month.
    """
    months = pieces.draws.shape[-1]
    operating = np.arange(months)[None, :] >= first_operating[:, None]
    prepaid = np.zeros(pieces.draws.shape)
    path = loan_path(pieces, prepaid)
    scheduled = path["balance"]
    scale = max(float(np.abs(pieces.draws).max(initial=0.0)), 1.0)
    for _ in range(MAX_PASSES):
        if prepaid.any():
            path = loan_path(pieces, prepaid)
        interest = path["interest"].sum(axis=0)
        idc = np.where(operating, 0.0, interest).sum(axis=1, keepdims=True)
        taxable = taxable_before_interest - np.where(operating, interest, 0.0) - idc * idc_deduction_per_usd
        tax = tax_with_loss_carry_forward(taxable, financing.tax_rate, period_months=financing.tax_period_months)
        cfads = cfads_before_tax - tax
        cash = _cash_accounts(pieces, financing, path, scheduled, cfads, operating, proceeds)
        moved = cash["cash_sweep"] + cash["sale_sweep"]
        settled = np.abs(moved - prepaid).max(initial=0.0) <= SETTLE_TOLERANCE * scale
        prepaid = moved
        if settled:
            break
    if prepaid.any():
        path = loan_path(pieces, prepaid)  # the loans as the last pass prepaid them (it moved them by ≤ the tolerance)
    balance = path["balance"].copy()
    payoff = np.zeros(balance.shape)
    payoff[..., -1], balance[..., -1] = balance[..., -1], 0.0
    return Flows(
        path["interest"],
        path["capitalized"],
        path["principal"],
        cash["cash_sweep"],
        cash["sale_sweep"],
        payoff,
        balance,
        tax,
        cfads,
        cash["funded"],
        cash["draw"],
        cash["topup"],
        cash["released"],
        cash["reserve"],
        cash["held"],
        cash["dist"],
        cash["cure"],
        cash["locked"],
        cash["breach"],
        cash["dscr"],
    )


@dataclass
class _Accounts:
    """The cash accounts of n cases (n,) through the loop of :func:`_cash_accounts`."""

    reserve: np.ndarray
    held: np.ndarray
    locked: np.ndarray
    in_breach: np.ndarray
    passes: np.ndarray
    prepaid: np.ndarray
    """Prepaid so far in this pass, per piece (P, n)."""


@dataclass(frozen=True)
class _Month:
    """What one pass of :func:`_cash_accounts` knows before its loop: arrays (n, months) unless noted."""

    gap: np.ndarray
    """Debt service due − CFADS, from the first operating month on."""
    dscr: np.ndarray
    """DSCR of each month's covenant test, nan without one."""
    service: np.ndarray
    """Debt service due from the first repayment month on: what a shortfall defaults on (before it, interest the
    cash flow does not cover is the sponsor's start-up cost, as lenders budget it with the construction)."""
    tested: np.ndarray
    breach: np.ndarray
    below: np.ndarray
    """A test below the lock-up DSCR or the covenant."""
    last_draw: np.ndarray
    """Each case's last draw month (n,)."""
    first_draw: np.ndarray
    """Each case's first draw month (n,); the horizon without any."""
    sweepable: np.ndarray
    """The senior pieces fully drawn by each month (P, n, months)."""
    order: np.ndarray
    """Pieces by seniority (P,)."""
    sales: np.ndarray
    """Months with sale proceeds in some case (months,)."""


def _prepare(
    pieces: Pieces,
    financing: Financing,
    path: dict[str, np.ndarray],
    cfads: np.ndarray,
    operating: np.ndarray,
    proceeds: np.ndarray,
) -> _Month:
    """What :func:`_cash_accounts` computes over whole arrays before its loop."""
    months = pieces.draws.shape[-1]
    service = path["service"].sum(axis=0)
    first_repayment = _first_repayment(pieces)
    dscr = covenant_tests(cfads, service, first_repayment)
    tested = ~np.isnan(dscr)
    breach = tested & (dscr < financing.covenant_dscr)
    t = np.arange(months)
    drawing = np.where(pieces.draws > 0, t, -1)
    drawn = pieces.draws.sum(axis=0) > 0
    return _Month(
        gap=np.where(operating, service - cfads, 0.0),
        dscr=dscr,
        service=np.where(t[None, :] >= first_repayment[:, None], service, 0.0),
        tested=tested,
        breach=breach,
        below=tested & ((dscr < financing.lockup_dscr) | breach),
        last_draw=drawing.max(axis=(0, 2)),
        first_draw=np.where(drawn.any(axis=1), drawn.argmax(axis=1), months),
        sweepable=(pieces.tranche == 0)[:, None, None] & (t >= drawing.max(axis=-1)[..., None]),
        order=np.argsort(pieces.tranche, kind="stable"),
        sales=np.asarray(proceeds.any(axis=0)),
    )


def _cash_accounts(
    pieces: Pieces,
    financing: Financing,
    path: dict[str, np.ndarray],
    scheduled: np.ndarray,
    cfads: np.ndarray,
    operating: np.ndarray,
    proceeds: np.ndarray,
) -> dict[str, np.ndarray]:
    """The cash accounts, sweeps and sales of one pass of the waterfall (n, months) and (P, n, months) [USD].

    The months the debt is alive run through :func:`_month` one at a time from the first month the accounts can
    hold cash (a reserve, a lock-up, a sweep or a sale); before it every account is empty, and the same rules
    (:func:`_service`) apply to those months at once.
    """
    m = _prepare(pieces, financing, path, cfads, operating, proceeds)
    n_pieces, n, months = pieces.draws.shape
    target = pieces.reserve_usd
    out = {k: np.zeros((n, months)) for k in ("draw", "topup", "released", "reserve", "held", "dist", "cure", "funded")}
    out["funded"][np.arange(n), np.minimum(m.first_draw, months - 1)] = np.where(m.first_draw < months, target, 0.0)
    out["locked"] = np.zeros((n, months), dtype=bool)
    sweeps = np.zeros(pieces.draws.shape), np.zeros(pieces.draws.shape)  # cash, sale
    owing = (path["balance"].sum(axis=0) > CASH_TOLERANCE_USD) | (np.arange(months)[None, :] < m.last_draw[:, None])
    span = np.flatnonzero((operating & (owing | np.roll(owing, 1, axis=1))).any(axis=0))
    start, end = (int(span[0]), int(span[-1]) + 1) if span.size else (months, months)
    events = (
        m.below.any(axis=0)
        | m.sales
        | ((target > 0)[:, None] & owing).any(axis=0)
        | (financing.cash_sweep_share > 0) & (m.gap < -CASH_TOLERANCE_USD).any(axis=0)
    )
    first_event = start + int(np.argmax(events[start:end])) if events[start:end].any() else end
    quiet = slice(start, first_event)
    zeros = np.zeros((n, 1))
    cure, draw, _, surplus, _ = _service(m, zeros, zeros, zeros, quiet)
    out["cure"][:, quiet], out["draw"][:, quiet], out["dist"][:, quiet] = cure, draw, surplus
    before = np.arange(first_event)[None, :]
    out["reserve"][:, :first_event] = np.where(before >= m.first_draw[:, None], target[:, None], 0.0)
    acc = _Accounts(
        np.where(m.first_draw < first_event, target, 0.0),
        np.zeros(n),
        np.zeros(n, dtype=bool),
        np.zeros(n, dtype=bool),
        np.zeros(n, dtype=int),
        np.zeros((n_pieces, n)),
    )
    for t in range(first_event, end):
        _month(acc, m, out, sweeps, financing, target, owing, scheduled, proceeds, t)
    if end == months:  # the horizon: the reserve and the cash held go to equity
        out["released"][:, -1] += out["reserve"][:, -1]
        out["dist"][:, -1] += out["held"][:, -1]
        out["reserve"][:, -1] = out["held"][:, -1] = 0.0
    return {**out, "cash_sweep": sweeps[0], "sale_sweep": sweeps[1], "breach": m.breach, "dscr": m.dscr}


def _service(
    m: _Month, held: np.ndarray, reserve: np.ndarray, room: np.ndarray, months: slice
) -> tuple[np.ndarray, ...]:
    """(cure, reserve draw, paid from the cash held, surplus left, reserve top-up) of ``months`` (n, k) given the
    accounts (n, 1) and the reserve's room to its target (n, k): the debt service from CFADS, then the cash held,
    then the reserve, then the sponsor (a payment default: the debt service part; an operating loss beyond it is
    equity's anyway); the surplus refills the reserve first."""
    g, service = m.gap[:, months], m.service[:, months]
    short = np.maximum(g, 0.0)
    from_held = np.minimum(short, held)
    unpaid = np.minimum(short - from_held, service)
    from_reserve = np.minimum(unpaid, reserve)
    surplus = np.maximum(-g, 0.0)
    topup = np.minimum(surplus, room)
    return unpaid - from_reserve, from_reserve, from_held, surplus - topup, topup


def _month(
    acc: _Accounts,
    m: _Month,
    out: dict[str, np.ndarray],
    sweeps: tuple[np.ndarray, np.ndarray],
    financing: Financing,
    target: np.ndarray,
    owing: np.ndarray,
    scheduled: np.ndarray,
    proceeds: np.ndarray,
    t: int,
) -> None:
    """Month t of the waterfall with its accounts (module docstring): test, service, sweep, sale, distribution."""
    acc.reserve = np.where(m.first_draw == t, target, acc.reserve)
    if m.tested[:, t].any():
        _test(acc, m, t)
    prepaid = bool(acc.prepaid.any())
    standing = _standing(m, scheduled, acc.prepaid, t) if prepaid else owing[:, t]
    room = np.where(standing, np.maximum(target - acc.reserve, 0.0), 0.0)
    one = slice(t, t + 1)
    cure, draw, from_held, surplus, topup = (
        a[:, 0] for a in _service(m, acc.held[:, None], acc.reserve[:, None], room[:, None], one)
    )
    out["cure"][:, t], out["draw"][:, t], out["topup"][:, t] = cure, draw, topup
    acc.held = acc.held - from_held
    acc.reserve = acc.reserve - draw + topup
    share = np.where(acc.in_breach, 1.0, financing.cash_sweep_share)
    if np.any(share * surplus > CASH_TOLERANCE_USD) or np.any(acc.in_breach & (acc.held > CASH_TOLERANCE_USD)):
        surplus = _sweep(acc, m, scheduled, surplus, share, sweeps[0], t)
        prepaid = True
    if m.sales[t]:
        _sell(acc, m, scheduled, proceeds[:, t], sweeps[1], t)
        prepaid = True
    still = _standing(m, scheduled, acc.prepaid, t) if prepaid else owing[:, t]
    keep = acc.locked & still
    out["dist"][:, t] = np.where(keep, 0.0, surplus + acc.held)
    acc.held = np.where(keep, acc.held + surplus, 0.0)
    out["released"][:, t] = np.where(still, 0.0, acc.reserve)
    acc.reserve = np.where(still, acc.reserve, 0.0)
    acc.locked = acc.locked & still
    out["reserve"][:, t], out["held"][:, t], out["locked"][:, t] = acc.reserve, acc.held, acc.locked


def _standing(m: _Month, scheduled: np.ndarray, prepaid: np.ndarray, t: int) -> np.ndarray:
    """Whether each case still owes debt after month t, or has draws to come (n,) [bool]."""
    return (_owed_after(scheduled, prepaid, t).sum(axis=0) > CASH_TOLERANCE_USD) | (t < m.last_draw)


def _test(acc: _Accounts, m: _Month, t: int) -> None:
    """A covenant test in month t: the breach, the count of passes in a row and the lock-up (module docstring)."""
    tested, below = m.tested[:, t], m.below[:, t]
    acc.in_breach = np.where(tested, m.breach[:, t], acc.in_breach)
    acc.passes = np.where(tested, np.where(below, 0, acc.passes + 1), acc.passes)
    acc.locked = below | (acc.locked & (acc.passes < RELEASE_TESTS))


def _sweep(
    acc: _Accounts, m: _Month, scheduled: np.ndarray, surplus: np.ndarray, share: np.ndarray, swept: np.ndarray, t: int
) -> np.ndarray:
    """Month t's cash sweep: ``share`` of the surplus (and the cash held under a breach) prepays the senior pieces
    already drawn, in proportion to what they owe. Returns what is left of the surplus (n,)."""
    offered = share * surplus + np.where(acc.in_breach, acc.held, 0.0)
    owed = np.where(m.sweepable[..., t], _owed_after(scheduled, acc.prepaid, t), 0.0)
    total = owed.sum(axis=0)
    paid = np.minimum(offered, total)
    swept[..., t] = np.divide(owed, total, out=np.zeros(owed.shape), where=total > 0) * paid
    acc.prepaid = acc.prepaid + swept[..., t]
    from_surplus = np.minimum(paid, share * surplus)
    acc.held = acc.held - (paid - from_surplus)
    return surplus - from_surplus


def _sell(acc: _Accounts, m: _Month, scheduled: np.ndarray, proceeds: np.ndarray, sold: np.ndarray, t: int) -> None:
    """Month t's sale proceeds repay the pieces in order of seniority, after the month's service."""
    left = proceeds
    owed = _owed_after(scheduled, acc.prepaid, t)
    for p in m.order:
        paid = np.minimum(left, owed[p])
        sold[p, :, t] = paid
        left = left - paid
    acc.prepaid = acc.prepaid + sold[..., t]

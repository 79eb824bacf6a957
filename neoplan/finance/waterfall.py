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

How it is computed: until the first month in which some case's accounts can hold cash (a reserve, a lock-up, a
sweep, a sale), the loans follow their schedule (:func:`neoplan.finance.debt.loan_path`, closed form), so interest,
tax, CFADS and the tests are whole arrays and the waterfall's rules apply to those months at once (:func:`_service`,
every account empty). From that month to the last one with debt, one loop over months applies the same rules to all
cases together (arrays (n,) and (pieces, n)): a prepayment moves the month's balance and so later interest and tax,
which the loop carries (the tax a month at a time: :class:`~neoplan.finance.tax.TaxState`). Measured on 1,000 Monte
Carlo cases, the two forms are ~5× faster than the loop from month 0; tests check that they agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..inputs.business import Financing
from .debt import Pieces, loan_path
from .tax import TaxState, tax_with_loss_carry_forward

TEST_MONTHS = 3
"""Months between two covenant tests."""
TEST_WINDOW_MONTHS = 12
"""Months of CFADS and debt service a test covers (trailing)."""
RELEASE_TESTS = 2
"""Tests in a row at or above the lock-up DSCR that release a lock-up."""
CASH_TOLERANCE_USD = 1e-6
"""Amounts smaller than this are rounding, not cash [USD]: no default, no test, no support."""


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


def _first_repayment(pieces: Pieces) -> np.ndarray:
    """Each case's first repayment month over the pieces that draw (n,); past the horizon without any."""
    months = pieces.draws.shape[-1]
    drawn = pieces.draws.sum(axis=-1) > 0
    return np.where(drawn, pieces.start, months).min(axis=0)


def _test_months(first_repayment: np.ndarray, months: int) -> np.ndarray:
    """Whether each month is a covenant test month of each case (n, months): the third repayment month, every third."""
    since = np.arange(months)[None, :] - first_repayment[:, None] - (TEST_MONTHS - 1)
    return (since >= 0) & (since % TEST_MONTHS == 0)


def covenant_tests(
    cfads: np.ndarray, service: np.ndarray, first_repayment: np.ndarray, tests: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(DSCR of each month's covenant test (n, months), nan in months without one [ratio] (module docstring); the
    running sums of CFADS and debt service from the first repayment month after each month (n, months + 1) [USD]).
    ``tests``: :func:`_test_months`, if known.

    The sums count nothing before the first repayment month, so a window's sum is the running sum now less the one
    12 months ago (from the first repayment month while fewer have passed)."""
    n, months = cfads.shape
    repaying = np.arange(months)[None, :] >= first_repayment[:, None]
    cum_cf, cum_ds = np.zeros((n, months + 1)), np.zeros((n, months + 1))
    np.cumsum(np.where(repaying, cfads, 0.0), axis=1, out=cum_cf[:, 1:])
    np.cumsum(np.where(repaying, service, 0.0), axis=1, out=cum_ds[:, 1:])
    lag = TEST_WINDOW_MONTHS
    due, flow = cum_ds[:, 1:].copy(), cum_cf[:, 1:].copy()
    if months > lag:
        due[:, lag:] -= cum_ds[:, 1 : months + 1 - lag]
        flow[:, lag:] -= cum_cf[:, 1 : months + 1 - lag]
    testing = (_test_months(first_repayment, months) if tests is None else tests) & (due > CASH_TOLERANCE_USD)
    return np.divide(flow, due, out=np.full((n, months), np.nan), where=testing), cum_cf, cum_ds


@dataclass(frozen=True)
class _Setup:
    """What every month of one waterfall reads: the pieces and the operating cash flows (n, months) and per piece
    (P, n, months), as given."""

    pieces: Pieces
    cfads_before_tax: np.ndarray
    taxable_before_interest: np.ndarray
    idc_per_usd: np.ndarray
    proceeds: np.ndarray
    operating: np.ndarray
    tests: np.ndarray
    first_repayment: np.ndarray
    """(n,)"""
    last_draw: np.ndarray
    """(n,)"""
    first_draw: np.ndarray
    """(n,); the horizon without a draw"""
    drawn_by: np.ndarray
    """Each piece's last draw month (P, n)."""

    @property
    def target(self) -> np.ndarray:
        """Debt service reserve (n,)."""
        return self.pieces.reserve_usd


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
    t = np.arange(months)
    operating = t[None, :] >= first_operating[:, None]
    path = loan_path(pieces.draws, pieces.rate, pieces.capitalizing, pieces.installments, pieces.maturity)
    interest = path["interest"].sum(axis=0)
    tax, cfads = _tax_and_cfads(
        financing, interest, operating, cfads_before_tax, taxable_before_interest, idc_deduction_per_usd
    )
    service = path["service"].sum(axis=0)
    drawing = np.where(pieces.draws > 0, t, -1)
    drawn = pieces.draws.sum(axis=0) > 0
    first_repayment = _first_repayment(pieces)
    setup = _Setup(
        pieces,
        cfads_before_tax,
        taxable_before_interest,
        idc_deduction_per_usd,
        proceeds,
        operating,
        _test_months(first_repayment, months),
        first_repayment,
        drawing.max(axis=(0, 2)),
        np.where(drawn.any(axis=1), drawn.argmax(axis=1), months),
        drawing.max(axis=-1),
    )
    owing = (path["balance"].sum(axis=0) > CASH_TOLERANCE_USD) | (t[None, :] < setup.last_draw[:, None])
    span = np.flatnonzero((operating & (owing | np.roll(owing, 1, axis=1))).any(axis=0))
    start, end = (int(span[0]), int(span[-1]) + 1) if span.size else (months, months)
    dscr, cum_cf, cum_ds = covenant_tests(cfads[:, :end], service[:, :end], first_repayment, setup.tests[:, :end])
    dscr = np.concatenate([dscr, np.full((dscr.shape[0], months - end), np.nan)], axis=1)  # no debt after the span
    window = slice(start, end)
    lowest = max(financing.lockup_dscr, financing.covenant_dscr)  # a test below either locks up (nan: no test)
    events = (  # the cells where an account can come to hold cash
        (dscr[:, window] < lowest)
        | (proceeds[:, window] > 0)
        | ((setup.target > 0)[:, None] & owing[:, window])
        | (
            (financing.cash_sweep_share > 0)
            & operating[:, window]
            & (cfads[:, window] - service[:, window] > CASH_TOLERANCE_USD)
        )
    )
    out = _Out.of(path, cfads, service, dscr)
    _quiet(out, setup, start, end)
    rows = np.flatnonzero(events.any(axis=1))  # the cases the loop runs for: the others stay quiet
    if rows.size:
        first_event = start + int(events[rows].any(axis=0).argmax())
        sub = _subset(rows, path, setup, cfads, service, dscr)
        state = _State.at(first_event, sub.path, sub.setup, financing, cum_cf[rows], cum_ds[rows])
        flags = _Flags.of(sub.setup)
        for month in range(first_event, end):
            _month(state, sub.setup, flags, sub.out, financing, month)
        sub.put_back(out, rows, first_event, end)
        tax[rows], cfads[rows] = _tax_and_cfads(  # the loop's own tax, in closed form on its interest (to rounding)
            financing,
            sub.out.piece["interest"].sum(axis=0),
            operating[rows],
            cfads_before_tax[rows],
            taxable_before_interest[rows],
            idc_deduction_per_usd[rows],
        )
    if end == months:  # the horizon: the reserve and the cash held go to equity
        out.case["released"][:, -1] += out.case["reserve"][:, -1]
        out.case["dist"][:, -1] += out.case["held"][:, -1]
        out.case["reserve"][:, -1] = out.case["held"][:, -1] = 0.0
    return out.flows(financing, tax, cfads)


@dataclass(frozen=True)
class _Sub:
    """The cases the loop runs for: their loans' scheduled path, their setup and their records."""

    path: dict[str, np.ndarray]
    setup: _Setup
    out: _Out

    def put_back(self, out: _Out, rows: np.ndarray, t0: int, end: int) -> None:
        """Write the loop's months ``t0`` … ``end`` − 1 of these cases into the records of all cases."""
        for key, value in self.out.piece.items():
            out.piece[key][:, rows, t0:end] = value[..., t0:end]
        for key, value in self.out.case.items():
            out.case[key][rows, t0:end] = value[:, t0:end]
        out.locked[rows, t0:end] = self.out.locked[:, t0:end]


def _subset(
    rows: np.ndarray,
    path: dict[str, np.ndarray],
    setup: _Setup,
    cfads: np.ndarray,
    service: np.ndarray,
    dscr: np.ndarray,
) -> _Sub:
    """The cases ``rows`` only (:class:`_Sub`)."""
    p = setup.pieces
    pieces = Pieces(
        p.names,
        p.tranche,
        p.draws[:, rows],
        p.rate[:, rows],
        p.capitalizing[:, rows],
        p.installments[:, rows],
        p.start[:, rows],
        p.maturity[:, rows],
        p.fee[:, rows],
        p.profiles[:, rows] if p.profiles.shape[1] > 1 else p.profiles,
        p.rates_at_close[:, rows],
        p.reserve_usd[rows],
    )
    sub = _Setup(
        pieces,
        setup.cfads_before_tax[rows],
        setup.taxable_before_interest[rows],
        setup.idc_per_usd[rows],
        setup.proceeds[rows],
        setup.operating[rows],
        setup.tests[rows],
        setup.first_repayment[rows],
        setup.last_draw[rows],
        setup.first_draw[rows],
        setup.drawn_by[:, rows],
    )
    sub_path = {k: v[:, rows] for k, v in path.items()}
    return _Sub(sub_path, sub, _Out.of(sub_path, cfads[rows], service[rows], dscr[rows]))


def _tax_and_cfads(
    financing: Financing,
    interest: np.ndarray,
    operating: np.ndarray,
    cfads_before_tax: np.ndarray,
    taxable_before_interest: np.ndarray,
    idc_per_usd: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(tax on operations, CFADS) (n, months) given the loans' interest (n, months): interest before the first
    operating month is construction interest (IDC), deducted with the first cluster's depreciation; after it,
    as it accrues."""
    idc = np.where(operating, 0.0, interest).sum(axis=1, keepdims=True)
    taxable = taxable_before_interest - np.where(operating, interest, 0.0) - idc * idc_per_usd
    tax = tax_with_loss_carry_forward(taxable, financing.tax_rate, period_months=financing.tax_period_months)
    return tax, cfads_before_tax - tax


@dataclass
class _Out:
    """What the waterfall records: per piece (P, n, months), per case (n, months)."""

    piece: dict[str, np.ndarray]
    case: dict[str, np.ndarray]
    locked: np.ndarray

    @classmethod
    def of(cls, path: dict[str, np.ndarray], cfads: np.ndarray, service: np.ndarray, dscr: np.ndarray) -> _Out:
        """The records of loans that follow their schedule, every account empty; the loop overwrites its months."""
        piece = {k: path[k] for k in ("interest", "capitalized", "principal", "balance")}
        piece["cash"], piece["sale"] = np.zeros(path["balance"].shape), np.zeros(path["balance"].shape)
        keys = ("draw", "topup", "released", "reserve", "held", "dist", "cure", "funded")
        case = {k: np.zeros(cfads.shape) for k in keys}
        case.update(cfads=cfads.copy(), service=service, dscr=dscr)
        return cls(piece, case, np.zeros(cfads.shape, dtype=bool))

    def flows(self, financing: Financing, tax: np.ndarray, cfads: np.ndarray) -> Flows:
        """The records as :class:`Flows`, the horizon's balance paid off."""
        piece, case = self.piece, self.case
        balance = piece["balance"].copy()
        payoff = np.zeros(balance.shape)
        payoff[..., -1], balance[..., -1] = balance[..., -1], 0.0
        dscr = case["dscr"]
        breach = ~np.isnan(dscr) & (dscr < financing.covenant_dscr)
        return Flows(
            piece["interest"],
            piece["capitalized"],
            piece["principal"],
            piece["cash"],
            piece["sale"],
            payoff,
            balance,
            tax,
            cfads,
            case["funded"],
            case["draw"],
            case["topup"],
            case["released"],
            case["reserve"],
            case["held"],
            case["dist"],
            case["cure"],
            self.locked,
            breach,
            dscr,
        )


def _service(
    gap: np.ndarray,
    service: np.ndarray,
    held: np.ndarray | float,
    reserve: np.ndarray | float,
    room: np.ndarray | float,
) -> tuple[np.ndarray, ...]:
    """(cure, reserve draw, paid from the cash held, surplus left, reserve top-up) of months with debt service ``gap``
    above CFADS and debt service due from the first repayment month ``service``, given the accounts and the reserve's
    room to its target (arrays that broadcast): the debt service from CFADS, then the cash held, then the reserve,
    then the sponsor (a payment default: the debt service part; an operating loss beyond it is equity's anyway); the
    surplus refills the reserve first."""
    short = np.maximum(gap, 0.0)
    from_held = np.minimum(short, held)
    unpaid = np.minimum(short - from_held, service)
    from_reserve = np.minimum(unpaid, reserve)
    surplus = np.maximum(-gap, 0.0)
    topup = np.minimum(surplus, room)
    return unpaid - from_reserve, from_reserve, from_held, surplus - topup, topup


def _quiet(out: _Out, setup: _Setup, start: int, stop: int) -> None:
    """The waterfall's months ``start`` … ``stop`` − 1, before any case's accounts can hold cash: every account
    empty, the rules at once; the reserve stands funded from each case's first draw to ``stop``."""
    months = slice(start, stop)
    service = out.case["service"][:, months]
    gap = np.where(setup.operating[:, months], service - out.case["cfads"][:, months], 0.0)
    repaying = np.arange(start, stop)[None, :] >= setup.first_repayment[:, None]
    cure, draw, _, surplus, _ = _service(gap, np.where(repaying, service, 0.0), 0.0, 0.0, 0.0)
    out.case["cure"][:, months], out.case["draw"][:, months], out.case["dist"][:, months] = cure, draw, surplus
    n, horizon = setup.operating.shape
    funded_in = np.minimum(setup.first_draw, horizon - 1)
    out.case["funded"][np.arange(n), funded_in] = np.where(setup.first_draw < horizon, setup.target, 0.0)
    standing = np.arange(stop)[None, :] >= setup.first_draw[:, None]
    out.case["reserve"][:, :stop] = np.where(standing, setup.target[:, None], 0.0)


@dataclass
class _State:
    """The loans and the accounts of n cases through the loop: arrays (n,) and (P, n)."""

    balance: np.ndarray
    reserve: np.ndarray
    held: np.ndarray
    locked: np.ndarray
    in_breach: np.ndarray
    passes: np.ndarray
    idc: np.ndarray
    tax: TaxState
    cum_cf: np.ndarray
    """Running CFADS from the first repayment month, after each month (n, months + 1)."""
    cum_ds: np.ndarray

    @classmethod
    def at(
        cls,
        t0: int,
        path: dict[str, np.ndarray],
        setup: _Setup,
        financing: Financing,
        cum_cf: np.ndarray,
        cum_ds: np.ndarray,
    ) -> _State:
        """The state at the start of month ``t0``: the loans as scheduled until then, the reserve funded, no cash held,
        the tax as the closed form leaves it."""
        n = setup.target.size
        operating = setup.operating[:, :t0]
        interest = path["interest"][..., :t0].sum(axis=0)
        idc = np.where(operating, 0.0, interest).sum(axis=1)
        known = (
            setup.taxable_before_interest[:, :t0]
            - np.where(operating, interest, 0.0)
            - idc[:, None] * setup.idc_per_usd[:, :t0]
        )
        tax = TaxState.resume(known, financing.tax_rate, financing.tax_period_months, setup.operating.shape[1])
        balance = path["balance"][..., t0 - 1].copy() if t0 > 0 else np.zeros(path["balance"].shape[:2])
        return cls(
            balance,
            np.where(setup.first_draw < t0, setup.target, 0.0),
            np.zeros(n),
            np.zeros(n, dtype=bool),
            np.zeros(n, dtype=bool),
            np.zeros(n, dtype=int),
            idc,
            tax,
            cum_cf.copy(),
            cum_ds.copy(),
        )


@dataclass(frozen=True)
class _Flags:
    """Which months hold anything of a kind, in some case (Python lists of bools, one per month): the loop skips what
    no case has that month."""

    draw: list[bool]
    capitalizing: list[bool]
    due: list[bool]
    operating: list[bool]
    """Every case operating."""
    repaying: list[bool]
    """Every case repaying."""
    test: list[bool]
    funded: list[bool]
    sale: list[bool]

    @classmethod
    def of(cls, setup: _Setup) -> _Flags:
        """The flags of ``setup``'s months."""
        p = setup.pieces
        months = p.draws.shape[-1]
        t = np.arange(months)
        return cls(
            _listed((p.draws > 0).any(axis=(0, 1))),
            _listed(p.capitalizing.any(axis=(0, 1))),
            _listed((t[None, None, :] == p.maturity[..., None] - 1).any(axis=(0, 1))),
            _listed(setup.operating.all(axis=0)),
            _listed((t[None, :] >= setup.first_repayment[:, None]).all(axis=0)),
            _listed(setup.tests.any(axis=0)),
            _listed((t[None, :] == setup.first_draw[:, None]).any(axis=0)),
            _listed((setup.proceeds > 0).any(axis=0)),
        )


def _listed(flags: Any) -> list[bool]:
    """One Python bool per month (cheaper to read in a loop than a numpy scalar)."""
    return [bool(f) for f in np.ravel(flags)]


def _loans(state: _State, setup: _Setup, flags: _Flags, out: _Out, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Month t of the loans: draw, interest (capitalised or due), the installment or what falls due at maturity.
    Returns (interest, debt service due) of every case (n,)."""
    p = setup.pieces
    owed = state.balance + p.draws[..., t] if flags.draw[t] else state.balance
    interest = owed * p.rate[..., t]
    paid = interest
    if flags.capitalizing[t]:
        capitalized = np.where(p.capitalizing[..., t], interest, 0.0)
        owed, paid = owed + capitalized, interest - capitalized
        out.piece["capitalized"][..., t] = capitalized
    principal = np.minimum(p.installments[..., t], owed)
    if flags.due[t]:
        principal = np.where(t == p.maturity - 1, owed, principal)
    state.balance = owed - principal
    out.piece["interest"][..., t], out.piece["principal"][..., t] = interest, principal
    if interest.shape[0] == 1:
        total, service = interest[0], paid[0] + principal[0]
    else:
        total, service = interest.sum(axis=0), (paid + principal).sum(axis=0)
    out.case["service"][:, t] = service
    return total, service


def _month(state: _State, setup: _Setup, flags: _Flags, out: _Out, financing: Financing, t: int) -> None:
    """Month t of the waterfall (module docstring): loans, tax and CFADS, the test, service, sweep, sale,
    distribution."""
    interest, service = _loans(state, setup, flags, out, t)
    operating = setup.operating[:, t]
    if flags.operating[t]:
        taxable = setup.taxable_before_interest[:, t] - interest - state.idc * setup.idc_per_usd[:, t]
    else:
        state.idc = state.idc + np.where(operating, 0.0, interest)
        taxable = (
            setup.taxable_before_interest[:, t]
            - np.where(operating, interest, 0.0)
            - state.idc * setup.idc_per_usd[:, t]
        )
    cfads = setup.cfads_before_tax[:, t] - state.tax.step(t, taxable)
    out.case["cfads"][:, t] = cfads
    gap = service - cfads if flags.operating[t] else np.where(operating, service - cfads, 0.0)
    if flags.repaying[t]:
        due = service
        state.cum_cf[:, t + 1] = state.cum_cf[:, t] + cfads
        state.cum_ds[:, t + 1] = state.cum_ds[:, t] + service
    else:
        repaying = t >= setup.first_repayment
        due = np.where(repaying, service, 0.0)
        state.cum_cf[:, t + 1] = state.cum_cf[:, t] + np.where(repaying, cfads, 0.0)
        state.cum_ds[:, t + 1] = state.cum_ds[:, t] + due
    if flags.test[t]:
        _test(state, setup, out, financing, t)
    if flags.funded[t]:
        state.reserve = np.where(setup.first_draw == t, setup.target, state.reserve)
    standing = (state.balance.sum(axis=0) > CASH_TOLERANCE_USD) | (t < setup.last_draw)
    room = np.where(standing, setup.target - state.reserve, 0.0)  # the reserve is never above its target
    cure, draw, from_held, surplus, topup = _service(gap, due, state.held, state.reserve, room)
    out.case["cure"][:, t], out.case["draw"][:, t], out.case["topup"][:, t] = cure, draw, topup
    state.held = state.held - from_held
    state.reserve = state.reserve - draw + topup
    prepaid = False
    if financing.cash_sweep_share > 0 or state.in_breach.any():
        share = np.where(state.in_breach, 1.0, financing.cash_sweep_share)
        if np.any(share * surplus > CASH_TOLERANCE_USD) or np.any(state.in_breach & (state.held > CASH_TOLERANCE_USD)):
            surplus, prepaid = _sweep(state, setup, out, surplus, share, t), True
    if flags.sale[t]:
        _sell(state, setup, out, t)
        prepaid = True
    still = (state.balance.sum(axis=0) > CASH_TOLERANCE_USD) | (t < setup.last_draw) if prepaid else standing
    keep = state.locked & still
    out.case["dist"][:, t] = np.where(keep, 0.0, surplus + state.held)
    state.held = np.where(keep, state.held + surplus, 0.0)
    out.case["released"][:, t] = np.where(still, 0.0, state.reserve)
    state.reserve = np.where(still, state.reserve, 0.0)
    state.locked = state.locked & still
    out.case["reserve"][:, t], out.case["held"][:, t], out.locked[:, t] = state.reserve, state.held, state.locked
    out.piece["balance"][..., t] = state.balance


def _test(state: _State, setup: _Setup, out: _Out, financing: Financing, t: int) -> None:
    """A covenant test in month t (module docstring): the trailing DSCR, a breach, the passes in a row, the lock-up."""
    lo = max(t + 1 - TEST_WINDOW_MONTHS, 0)  # the sums are 0 until the first repayment month (covenant_tests)
    due = state.cum_ds[:, t + 1] - state.cum_ds[:, lo]
    tested = setup.tests[:, t] & (due > CASH_TOLERANCE_USD)
    flow = state.cum_cf[:, t + 1] - state.cum_cf[:, lo]
    dscr = np.divide(flow, due, out=np.full(due.size, np.nan), where=tested)
    out.case["dscr"][:, t] = dscr
    breach = tested & (dscr < financing.covenant_dscr)
    below = tested & ((dscr < financing.lockup_dscr) | breach)
    state.in_breach = np.where(tested, breach, state.in_breach)
    state.passes = np.where(tested, np.where(below, 0, state.passes + 1), state.passes)
    state.locked = below | (state.locked & (state.passes < RELEASE_TESTS))


def _sweep(state: _State, setup: _Setup, out: _Out, surplus: np.ndarray, share: np.ndarray, t: int) -> np.ndarray:
    """Month t's cash sweep: ``share`` of the surplus (and the cash held under a breach) prepays the senior pieces
    already drawn, in proportion to what they owe. Returns what is left of the surplus (n,)."""
    offered = share * surplus + np.where(state.in_breach, state.held, 0.0)
    senior = setup.pieces.tranche == 0
    owed = np.where(senior[:, None] & (t >= setup.drawn_by), state.balance, 0.0)
    total = owed.sum(axis=0)
    paid = np.minimum(offered, total)
    swept = np.divide(owed, total, out=np.zeros(owed.shape), where=total > 0) * paid
    state.balance = state.balance - swept
    out.piece["cash"][..., t] = swept
    from_surplus = np.minimum(paid, share * surplus)
    state.held = state.held - (paid - from_surplus)
    return surplus - from_surplus


def _sell(state: _State, setup: _Setup, out: _Out, t: int) -> None:
    """Month t's sale proceeds repay the pieces in order of seniority, after the month's service."""
    left = setup.proceeds[:, t]
    for p in np.argsort(setup.pieces.tranche, kind="stable"):
        paid = np.minimum(left, state.balance[p])
        out.piece["sale"][p, :, t] = paid
        state.balance[p] = state.balance[p] - paid
        left = left - paid

"""What a lender reads beside the returns: warnings on sponsor support, debt left at the horizon and a loan that
outlives its hardware. One case each (arrays (1, months) of :class:`neoplan.finance.project.CashFlows`); money in USD.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import formats
from ..inputs.business import Financing
from ..timebase import MONTHS_PER_YEAR
from .debt import loan_terms
from .project import CashFlows, loan_rate
from .waterfall import CASH_TOLERANCE_USD

SUPPORT_TOLERANCE = 1e-3
"""Sponsor support below this share of the equity first put in is immaterial [fraction]: a few hundred dollars of
ramp-up interest on tens of millions of equity is no call a sponsor plans for (0.1 %: $28 k on the optimized
preset's $28 M), and it leaves the equity IRR meaningful."""


def month_ranges(months: np.ndarray) -> str:
    """Months as runs: ``50–53, 61, 64–71``."""
    runs: list[str] = []
    values = [int(m) for m in months]
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        runs.append(f"{values[i]}" if i == j else f"{values[i]}–{values[j]}")
        i = j + 1
    return ", ".join(runs)


def sponsor_support(equity_fcf: np.ndarray) -> tuple[float, np.ndarray]:
    """(cash equity puts in after distributions began [USD, ≥ 0], the months it does) of one case's equity flows."""
    flows = np.asarray(equity_fcf, dtype=float).reshape(-1)
    paid_out = np.flatnonzero(flows > 0)
    if paid_out.size == 0:
        return 0.0, np.zeros(0, dtype=int)
    later = np.arange(flows.size) > paid_out[0]
    calls = np.flatnonzero(later & (flows < -CASH_TOLERANCE_USD))  # rounding residues are no call
    return float(-flows[calls].sum()), calls


def sponsor_support_warnings(cf: CashFlows, kpis: dict[str, float | None], hurdle_rate: float) -> list[str]:
    """A sentence when equity puts cash in again after distributions began (debt service beyond the cash flow, a
    reserve, a refresh): the amount, the months, and the equity NPV and MIRR to read beside the IRR."""
    equity = cf.equity_fcf[0]
    amount, months = sponsor_support(equity)
    first_in = -float(equity[: max(int(np.argmax(equity > 0)), 1)].clip(max=0.0).sum())
    if not amount > SUPPORT_TOLERANCE * max(first_in, 1.0):
        return []
    irr, npv, mirr = kpis.get("equity_irr"), kpis.get("equity_npv_usd"), kpis.get("equity_mirr")
    start = int(np.argmax(equity > 0))
    rate = float(loan_rate(cf)[0]) * MONTHS_PER_YEAR
    return [
        f"Sponsor support: after distributions begin in month {start}, equity puts in {formats.usd(amount)} more in "
        f"{months.size} month(s) ({month_ranges(months)}), cash the project does not earn then (debt service above "
        "CFADS, the reserve, a refresh). An IRR over such flows counts early distributions against later calls: read "
        f"the equity IRR ({_pct(irr)}) beside the equity NPV at the {formats.pct(hurdle_rate)} hurdle "
        f"({formats.usd(npv)}) and the MIRR ({_pct(mirr)}; outflows discounted at the loan's "
        f"{formats.pct(rate)} all-in rate, inflows reinvested at the hurdle)."
    ]


def _pct(value: float | None) -> str:
    """A rate for a sentence; n/a when undefined."""
    return formats.NA if value is None or not np.isfinite(value) else formats.pct(value)


def horizon_debt_warnings(cf: CashFlows, horizon_months: int, term_end_month: int) -> list[str]:
    """A sentence when debt is still outstanding at the horizon, before the loan's ``term_end_month``: the amount,
    and how the model repays it (the sale proceeds first, equity the rest; no refinancing)."""
    debt = cf.debt
    payoff, swept = float(debt.payoff[0, -1]), float(debt.swept[0, -1])
    owed = payoff + swept
    if not owed > 1e-6 * max(float(debt.drawn_usd[0]), 1.0):
        return []
    return [
        f"Debt of {formats.usd(owed)} is still outstanding at the {horizon_months}-month horizon, before the loan "
        f"matures in month {term_end_month}: the model repays it in the last month, {formats.usd(swept)} from the "
        f"sale proceeds and {formats.usd(payoff)} by equity (no refinancing is assumed); the DSCR and LLCR cover only "
        "the months inside the horizon."
    ]


def term_past_life_warnings(
    cf: CashFlows, end_of_life_month: float, end_of_life: str, term_end_month: int
) -> list[str]:
    """A sentence when the loan's term runs past the hardware's useful life inside the horizon: what repays it."""
    debt = cf.debt
    horizon = debt.balance.shape[1]
    if not term_end_month > end_of_life_month or not float(debt.drawn_usd[0]) > 0 or end_of_life_month >= horizon:
        return []
    sale = int(end_of_life_month)
    swept = float(debt.swept[0, sale])
    owed = float(debt.balance[0, sale]) + swept + float(debt.payoff[0, sale])
    after = (
        "the refresh cluster's cash serves the rest"
        if end_of_life == "refresh"
        else "with no revenue after the shutdown, equity pays the rest"
    )
    return [
        f"The loan's term runs to month {term_end_month}, past the end of the hardware's useful life in month "
        f"{end_of_life_month:.1f}: the sale then repays {formats.usd(swept)} of the {formats.usd(owed)} outstanding "
        f"(a sweep) and {after}; shorten financing.term_months to the useful life or less."
    ]


def _months_of(flags: np.ndarray) -> str:
    """The months flagged, as runs."""
    return month_ranges(np.flatnonzero(flags))


def waterfall_warnings(cf: CashFlows, financing: Financing) -> list[str]:
    """Sentences on what the cash waterfall did in one case: covenant breaches, lock-ups and payment defaults (the
    events a lender counts; :mod:`neoplan.finance.waterfall` states the rules)."""
    w = cf.waterfall
    out = []
    breach = w.breach[0]
    if breach.any():
        low = float(np.nanmin(w.test_dscr[0][breach]))
        out.append(
            f"Covenant breach: {int(breach.sum())} quarterly test(s) of the trailing 12 months' DSCR fell below the "
            f"{financing.covenant_dscr:.2f}× covenant (month(s) {_months_of(breach)}, lowest {low:.2f}×): "
            "distributions lock up and all cash left after debt service and the reserve prepays the senior loan "
            "until a test meets the covenant again."
        )
    locked = w.locked[0]
    if locked.any():
        out.append(
            f"Distributions locked up in {int(locked.sum())} month(s) ({_months_of(locked)}): a test below the "
            f"{financing.lockup_dscr:.2f}× lock-up DSCR holds the cash in the project (it pays later debt service "
            f"first) until two tests in a row pass; at most {formats.usd(float(w.held[0].max()))} was held."
        )
    cured = w.cure[0] > CASH_TOLERANCE_USD
    if cured.any():
        out.append(
            f"Payment default in {int(cured.sum())} month(s) ({_months_of(cured)}): CFADS, the cash held and the debt "
            f"service reserve could not pay {formats.usd(float(w.cure[0][cured].sum()))} of debt service due; the "
            "model has the sponsor pay it (an equity cure) so the loan stays current. A lender would call a default."
        )
    return out


def lending(cf: CashFlows, financing: Financing, capex_usd: float) -> dict[str, Any]:
    """How much was lent at close and why (one case): ``debt_usd``, ``debt_share`` (of capex), ``sizing``, the
    contracted CFADS the loan is sized on and its months, whether the cap bound, each tranche's amount and rate, and a
    ``sentence`` saying it [USD, fractions, months]."""
    debt = cf.debt
    drawn = float(debt.drawn_usd[0])
    share = drawn / capex_usd if capex_usd > 0 else 0.0
    start = int(np.ravel(debt.repay_start)[0])
    window = np.arange(debt.draws.shape[1]) >= start  # the repayment months the loan is sized on
    basis = None if cf.sizing_basis is None else np.where(window, np.maximum(cf.sizing_basis[0], 0.0), 0.0)
    months = np.flatnonzero(basis > CASH_TOLERANCE_USD) if basis is not None else np.zeros(0, dtype=int)
    terms = loan_terms(financing)
    tranches = [
        {"name": t.name, "kind": t.kind, "debt_usd": float(debt.tranche(t.name)["draws"][0].sum())} for t in terms
    ]
    others = sum(t.share or 0.0 for t in terms[1:])
    cap = max(financing.max_debt_share - others, 0.0) + others
    capped = financing.sizing == "dscr" and share >= cap * (1.0 - 1e-9) and drawn > 0
    out: dict[str, Any] = {
        "debt_usd": drawn,
        "debt_share": share,
        "sizing": financing.sizing,
        "contracted_cfads_usd": 0.0 if basis is None else float(basis.sum()),
        "sized_on_months": [int(months[0]), int(months[-1])] if months.size else [],
        "capped": capped,
        "tranches": tranches,
    }
    out["sentence"] = _lending_sentence(financing, out, capex_usd)
    return out


def _lending_sentence(financing: Financing, facts: dict[str, Any], capex_usd: float) -> str:
    """The sentence of :func:`lending`."""
    drawn, share = float(facts["debt_usd"]), float(facts["debt_share"])
    lent = f"Lent {formats.usd(drawn)} ({formats.pct(share)} of capex)"
    tranches = facts["tranches"]
    assert isinstance(tranches, list)
    split = (
        " in " + ", ".join(f"{t['name']} {formats.usd(t['debt_usd'])}" for t in tranches) if len(tranches) > 1 else ""
    )
    if financing.sizing == "capex_share":
        return f"{lent}{split}: the {formats.pct(financing.debt_share)} debt share of capex (sizing capex_share)."
    basis, span = facts["contracted_cfads_usd"], facts["sized_on_months"]
    if not drawn > 0:
        return (
            "No loan: the contracts carry no positive cash flow at close (no take-or-pay revenue, or none above its "
            f"share of opex), and sizing {financing.sizing} lends only against contracts; set financing.sizing to "
            "capex_share to borrow a share of capex."
        )
    where = f" over months {span[0]}–{span[1]}" if span else ""
    if financing.sizing == "contracted_revenue":
        return (
            f"{lent}{split}: at most the contracted CFADS ({formats.usd(float(basis or 0.0))}{where}) discounted at "
            f"the loan rate ÷ {financing.target_dscr:g}, repaid {financing.amortization.replace('_', ' ')}."
        )
    top = formats.pct(financing.max_debt_share)
    cap = f", capped at the {top} maximum debt share" if facts["capped"] else f", below the {top} cap"
    return (
        f"{lent}{split}: the senior loan is sculpted to {financing.target_dscr:.2f}× DSCR on the contracted cash flow "
        f"the forecast carries, {formats.usd(float(basis or 0.0))} of take-or-pay CFADS{where}{cap}; it is repaid as "
        "those contracts pay, so the forecast's DSCR is at least the target in every year it serves."
    )

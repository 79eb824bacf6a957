"""Income tax with losses carried forward, over whole arrays and one month at a time.

A tax period (``period_months`` = 12: tax years, project years from month 0; 1: each month on its own) owes the tax
rate × its net taxable income less the losses carried into it, or nothing (what is left of a loss is carried
forward; none back), paid as it accrues: by the end of each month the period has paid the tax on its income to date,
so a loss later in a period gives back tax paid earlier in it (module docstring of :mod:`neoplan.finance.project`).

Two forms of the one rule: :func:`tax_with_loss_carry_forward` over whole arrays (the unlevered project, the tax
once the loan is known) and :class:`TaxState`, the same recursion a month at a time, for the cash waterfall
(:mod:`neoplan.finance.waterfall`), whose cash in month ``t`` needs month ``t``'s tax, which needs the interest
through ``t``, which the sweeps before ``t`` set. A test checks the two agree on the same income.
"""

from __future__ import annotations

import numpy as np


def tax_period_ends(months: int, period_months: int) -> np.ndarray:
    """Last month of each tax period of ``period_months`` months from month 0: ``period − 1``, ``2 period − 1``, …,
    and the horizon's last month, which closes a period cut short (periods,) [month index]."""
    ends = np.arange(period_months - 1, months, period_months)
    return ends if months % period_months == 0 else np.append(ends, months - 1)


def tax_with_loss_carry_forward(taxable: np.ndarray, rate: float, *, period_months: int) -> np.ndarray:
    """Tax per month on ``taxable`` income (..., months) [USD; a negative month gives back tax paid earlier in its
    period]. ``period_months`` = 12: tax years (project years from month 0); 1: each month taxed on its own.

    A tax period owes ``rate`` × its net taxable income less the losses carried into it, or nothing (what is left
    of a loss is carried forward; none back). It is paid as it accrues: by the end of each month the period has
    paid the tax on its income to date, so a loss later in a period gives back tax paid earlier in it, and the
    payments of a period sum to its tax (:func:`tax_period_ends`: the last period may be cut at the horizon).

    Closed form of the carry-forward recursion: the income taxed by the end of period k, T_k, is the running
    maximum over the periods' ends of cumulative taxable income C (floored at 0); by the end of month t of period k
    the income taxed is max(T_(k−1), C_t) — T_k at the period's end — and the month's tax is ``rate`` × its rise.
    With 1-month periods that is the running maximum of C itself. So each period pays ≥ 0, the horizon's total is
    ``rate`` × max(0, the largest C at a period's end) (never more than with shorter periods, the same if no period
    ends below an earlier end), and the income taxed by any month is at most what monthly periods would have taxed.
    """
    x = np.asarray(taxable, dtype=float)
    months = x.shape[-1]
    ends = tax_period_ends(months, period_months)
    cumulative = np.add.accumulate(x, axis=-1)  # np.cumsum
    carried = np.zeros((*x.shape[:-1], ends.size + 1))  # T_k by the end of period k, after T_0 = 0
    carried[..., 1:] = cumulative[..., ends]
    np.maximum(carried, 0.0, out=carried)
    np.maximum.accumulate(carried, axis=-1, out=carried)
    taxed = np.maximum(carried[..., np.arange(months) // period_months], cumulative)  # T of the period before, or C
    tax = np.empty(x.shape)
    tax[..., 0] = taxed[..., 0]
    np.subtract(taxed[..., 1:], taxed[..., :-1], out=tax[..., 1:])
    return rate * tax


def losses_carried(taxable: np.ndarray, *, period_months: int) -> np.ndarray:
    """Tax losses carried forward past the horizon (...,) [USD, ≥ 0]: income taxed by the last period's end less the
    cumulative taxable income then (:func:`tax_with_loss_carry_forward`); what no later income offsets."""
    x = np.asarray(taxable, dtype=float)
    cumulative = np.add.accumulate(x, axis=-1)
    ends = tax_period_ends(x.shape[-1], period_months)
    taxed = np.maximum(np.maximum.accumulate(cumulative[..., ends], axis=-1)[..., -1], 0.0)
    return np.maximum(taxed - cumulative[..., -1], 0.0)


class TaxState:
    """The carry-forward recursion of :func:`tax_with_loss_carry_forward`, one month at a time for n cases.

    Keeps C (cumulative taxable income), T (income taxed by the end of the last period, floored at 0) and the
    income taxed so far; :meth:`step` takes month ``t``'s taxable income (n,) and returns its tax (n,) [USD].
    """

    def __init__(self, n: int, rate: float, period_months: int, months: int) -> None:
        self.rate = rate
        self.ends = np.zeros(months, dtype=bool)
        self.ends[tax_period_ends(months, period_months)] = True
        self.cumulative = np.zeros(n)
        self.carried = np.zeros(n)
        self.taxed = np.zeros(n)

    @classmethod
    def resume(cls, taxable: np.ndarray, rate: float, period_months: int, months: int) -> TaxState:
        """The state after the months of ``taxable`` (n, t0), the first t0 months of a horizon of ``months``: as if
        :meth:`step` had run over them (the closed form of :func:`tax_with_loss_carry_forward`)."""
        n, t0 = taxable.shape
        state = cls(n, rate, period_months, months)
        if t0 == 0:
            return state
        cumulative = np.cumsum(taxable, axis=1)
        ends = np.flatnonzero(state.ends[:t0])
        carried = np.maximum(cumulative[:, ends], 0.0).max(axis=1, initial=0.0) if ends.size else np.zeros(n)
        state.cumulative = cumulative[:, -1]
        state.carried = carried
        state.taxed = np.maximum(carried, state.cumulative)
        return state

    def step(self, t: int, taxable: np.ndarray) -> np.ndarray:
        """Tax of month ``t`` on ``taxable`` (n,) [USD]."""
        self.cumulative = self.cumulative + taxable
        taxed = np.maximum(self.carried, self.cumulative)
        tax = self.rate * (taxed - self.taxed)
        self.taxed = taxed
        if self.ends[t]:
            self.carried = taxed  # max(T_(k−1), C at the period's end), ≥ 0 as T_0 = 0
        return tax

"""A phased build (``timeline.phases``) as the sum of its phases.

Phase j is ``share_j`` of the cluster, ordered ``delay_j`` months after the first phase's order and so delivered
``delay_j`` months after it, with everything after delivery (integration, install, burn-in, go-live, the ramp, the
contracts, the end of life and any refresh) moving with it. Each phase runs through the monthly engine as the whole
design shifted by its delay (one row per case and phase: rows ``case × k + j``), and its revenue, opex, capex,
depreciation and sales are ``share_j`` of that row's; the project is their sum. So power, staff and every opex
line follow the share of the cluster delivered (a fixed line such as transit too); the failure model and the
market tier are the whole cluster's. Debt draws follow each phase's capex payments (:class:`~neoplan.finance.debt.
Group`: one per phase, and one per refresh cluster of a phase), each a loan of its own within its tranche.

A build without phases is one phase of share 1 and delay 0: every method here then returns its input as it is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..economics import revenue
from ..errors import ScenarioError
from ..inputs.business import Timeline
from . import assets as asset_module
from .debt import Group
from .project import refresh_groups


@dataclass(frozen=True)
class Plan:
    """The phases of n cases: ``k`` phases of ``shares`` (k,) ordered ``delays`` (k,) [months] after the first."""

    n: int
    shares: np.ndarray
    delays: np.ndarray

    @property
    def k(self) -> int:
        """Number of phases."""
        return int(self.shares.size)

    @property
    def case_of_row(self) -> np.ndarray:
        """The case of each row (n k,)."""
        return np.repeat(np.arange(self.n), self.k)

    @property
    def share_of_row(self) -> np.ndarray:
        """The phase's share of the cluster on each row (n k,) [fraction]."""
        return np.tile(self.shares, self.n)

    @property
    def order_of_row(self) -> np.ndarray:
        """The month each row's phase is ordered (n k,) [month]."""
        return np.tile(self.delays, self.n)

    def dates(self, base: revenue.Dates, delay: np.ndarray, life: np.ndarray) -> revenue.CaseDates:
        """Each row's dates: the case's delivery delay plus its phase's (n k, 1) columns."""
        rows = self.case_of_row
        late = base.go_live_month + float(self.delays.max()) + float(np.max(delay, initial=0.0))
        if self.k > 1 and late >= base.months:
            raise ScenarioError(
                f"timeline.phases: the last phase goes live in month {late:.1f}, at or after the horizon "
                f"(timeline.horizon_months = {base.months})"
            )
        return revenue.delayed(base, delay[rows] + self.order_of_row, life[rows])

    def total(self, rows: np.ndarray) -> np.ndarray:
        """The sum over each case's phases of row values already scaled by their share (n k, ...) → (n, ...)."""
        if self.k == 1:
            return rows
        return rows.reshape(self.n, self.k, *rows.shape[1:]).sum(axis=1)

    def scaled(self, rows: np.ndarray) -> np.ndarray:
        """Whole-cluster row values (n k, months) × each row's share."""
        return rows if self.k == 1 else rows * self.share_of_row[:, None]

    def scaled_revenue(self, rows: revenue.RevenueSchedule) -> revenue.RevenueSchedule:
        """A whole-cluster revenue schedule per row with hours and money scaled by the row's share (prices, which
        are hours ÷ money, kept)."""
        if self.k == 1:
            return rows
        shape = np.shape(rows.gross_usd)
        return revenue.RevenueSchedule(*(self.scaled(np.broadcast_to(a, shape)) for a in revenue.schedule_arrays(rows)))

    def combine_revenue(self, rows: revenue.RevenueSchedule) -> revenue.RevenueSchedule:
        """The project's schedule (n, months) from scaled rows: hours and money summed (so prices are weighted by
        hours)."""
        if self.k == 1:
            return rows
        shape = np.shape(rows.gross_usd)
        return revenue.RevenueSchedule(*(self.total(np.broadcast_to(a, shape)) for a in revenue.schedule_arrays(rows)))

    def assets(self, capex_rows: np.ndarray, d: revenue.CaseDates, residual_rows: np.ndarray, **kw: Any) -> Any:
        """The clusters' accounts (:func:`~neoplan.finance.assets.asset_flows`) of every phase, summed per case; the
        per-USD schedules of the first cluster (which interest during construction follows) are the first phase's."""
        months = d.months
        flows = asset_module.asset_flows(
            capex_rows,
            months,
            np.ravel(d.go_live_month),
            np.broadcast_to(np.ravel(d.life_months), (capex_rows.size,)),
            residual_rows,
            n=capex_rows.size,
            end_of_life=d.end_of_life,
            **kw,
        )
        if self.k == 1:
            return flows
        summed = [
            self.total(a)
            for a in (
                flows.book_depreciation,
                flows.tax_depreciation,
                flows.book_written_off,
                flows.tax_written_off,
                flows.proceeds,
            )
        ]
        first = [a[:: self.k] for a in (flows.first_book, flows.first_tax, flows.first_book_off, flows.first_tax_off)]
        return asset_module.Assets(*summed, *first)

    def groups(
        self,
        payments: np.ndarray,
        d: revenue.CaseDates,
        contracted: Mapping[str, np.ndarray],
        refresh: np.ndarray | None,
    ) -> list[Group]:
        """One draw group per phase (its payments, first operating month, contracts and share of the sizing basis),
        then one per refresh cluster of each phase (rows (n k, months), already scaled)."""
        go_live = np.ravel(d.go_live_month)
        life = np.broadcast_to(np.ravel(d.life_months), go_live.shape)
        if self.k == 1:  # one phase carries the whole basis
            groups = [Group(payments, np.ceil(go_live).astype(int), weight=np.ones(1), contracted=contracted)]
            refreshes = [] if refresh is None else refresh_groups(refresh, go_live, life)
            return groups + refreshes
        totals = {c: self.total(a) for c, a in contracted.items()}
        everything = sum(totals.values(), np.zeros((self.n, d.months)))
        out = []
        for j in range(self.k):
            mine = {c: a[j :: self.k] for c, a in contracted.items()}
            own = sum(mine.values(), np.zeros((self.n, d.months)))
            weight = np.divide(own, everything, out=np.full(own.shape, float(self.shares[j])), where=everything > 0)
            first = np.ceil(go_live[j :: self.k]).astype(int)
            out.append(Group(payments[j :: self.k], first, weight=weight, contracted=mine))
        if refresh is not None:
            for j in range(self.k):
                out += refresh_groups(refresh[j :: self.k], go_live[j :: self.k], life[j :: self.k])
        return out


def of(timeline: Timeline, n: int) -> Plan:
    """The phases of ``timeline`` for n cases (one phase of the whole cluster when it lists none)."""
    if not timeline.phases:
        return Plan(n, np.ones(1), np.zeros(1))
    shares = np.array([p.share for p in timeline.phases], dtype=float)
    delays = np.array([p.delay_months for p in timeline.phases], dtype=float)
    if not math.isclose(float(shares.sum()), 1.0, abs_tol=1e-9):
        raise ScenarioError(f"timeline.phases: shares must add up to 1, got {shares.sum():g}")
    return Plan(n, shares, delays)

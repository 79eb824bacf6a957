"""The clusters as assets: book and tax depreciation, the value each leaves the books with, and its sale.

Conventions (the monthly grid of :mod:`neoplan.finance.project`: month ``t`` runs from time ``t`` to ``t + 1``):

* **Clusters.** The first cluster goes live at ``go_live`` and is sold at the end of its useful life
  (go-live + life) when ``end_of_life`` is given and that falls inside the horizon, else at the horizon. With a
  refresh, a new cluster of ``refresh_capex_usd`` goes live at each end of life inside the horizon and is sold the
  same way one life later. A sale at time ``s`` is booked in the month holding ``s`` (the last month if later).
* **Book depreciation:** straight line from go-live over the depreciation life (``book_life_months``; the useful
  life unless given). The useful life is when a cluster leaves service and is sold; the depreciation life is an
  accounting choice (CoreWeave 6 years, Nebius 4), so a shorter one moves book profit from the early years to the
  sale, never a cash flow. **Tax depreciation:** ``straight_line`` over the tax life (the useful life unless given),
  or ``macrs_5``: the US 5-year property table with the half-year convention (IRS Publication 946, Table A-1: 20 %,
  32 %, 19.2 %, 11.52 %, 11.52 %, 5.76 %) in the six tax years of 12 months from go-live, each spread evenly over its
  months. Both stop at the sale; the cost not yet depreciated then leaves the books in the sale month (written off),
  so a sale gains (or loses) proceeds − that value.
* **Proceeds** of a cluster sold at age ``a`` (months from its go-live to its sale): ``residual_share`` × its cost,
  times ``residual_shape`` at ``a`` when given (a resale curve relative to its value at the first sale,
  :func:`neoplan.economics.residual.shape`; linear between its points, flat beyond them).

Every function here is linear in the costs and vectorised over n cases: arrays (n, months), per-case values (n,).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..timebase import MONTHS_PER_YEAR

TaxMethod = Literal["straight_line", "macrs_5"]
MACRS_5_YEAR = (0.20, 0.32, 0.192, 0.1152, 0.1152, 0.0576)
"""IRS Publication 946 Table A-1, 5-year property, half-year convention: the share of the cost deducted in tax
years 1–6 [fraction]."""
_MACRS_AGES = MONTHS_PER_YEAR * np.arange(len(MACRS_5_YEAR) + 1, dtype=float)
_MACRS_CUMULATIVE = np.concatenate([[0.0], np.cumsum(MACRS_5_YEAR)])
_MACRS_CUMULATIVE[-1] = 1.0  # the table sums to 1 exactly; the float sum may miss it by an ulp


def _each(value: Any, n: int) -> np.ndarray:
    """``value`` (a scalar or per-case values) as one float per case (n,)."""
    a = np.asarray(value, dtype=float)
    return a if a.shape == (n,) else np.broadcast_to(a, (n,))


Schedule = tuple[Callable[[np.ndarray], np.ndarray], np.ndarray]
"""A depreciation schedule: (amount depreciated after ``x`` months from go-live, the full amount) — their ratio
is the cumulative share; months are differenced before they are divided, so a straight line is exact."""


def straight_line(life_months: np.ndarray) -> Schedule:
    """Straight line over ``life_months`` (n,) [months]."""
    life = np.asarray(life_months, dtype=float)[:, None]
    return (lambda x: np.minimum(x, life)), life


def macrs_5() -> Schedule:
    """5-year MACRS (:data:`MACRS_5_YEAR`), linear within each 12-month tax year from go-live."""
    return (lambda x: np.interp(x, _MACRS_AGES, _MACRS_CUMULATIVE)), np.ones((1, 1))


def tax_schedule(method: TaxMethod, tax_life_months: np.ndarray) -> Schedule:
    """The tax depreciation of ``method``: :func:`straight_line` over ``tax_life_months`` (n,), or :func:`macrs_5`."""
    return macrs_5() if method == "macrs_5" else straight_line(tax_life_months)


def _shares(schedule: Schedule, months: int, go_live: np.ndarray, age: np.ndarray) -> Any:
    """(share depreciated in each month (n, months), share left at the sale (n,)) of a cluster going live at
    ``go_live`` (n,) and sold at ``age`` (n,) months later, by ``schedule``."""
    amount, full = schedule
    edges = np.arange(months + 1)  # month t runs from time t to time t + 1
    done = amount(np.clip(edges - go_live[:, None], 0.0, age[:, None]))
    return (done[:, 1:] - done[:, :-1]) / full, 1.0 - done[:, -1] / full[:, 0]


@dataclass(frozen=True)
class Cluster:
    """One cluster of n cases: go-live and sale times [month], cost [USD] and whether it exists, each (n,)."""

    go_live: np.ndarray
    sold_at: np.ndarray
    cost_usd: np.ndarray
    exists: np.ndarray

    def sale_month(self, months: int) -> np.ndarray:
        """Month the cluster is sold in: the one holding its sale time, the last one if that is later."""
        return np.fmin(self.sold_at, months - 1).astype(int)  # fmin: inf → the last month; astype floors

    def age_at_sale(self, months: int) -> np.ndarray:
        """Months from go-live to the sale, the horizon's end if the sale comes later [months]."""
        return np.minimum(self.sold_at, months) - self.go_live


def clusters(
    capex_usd: np.ndarray,
    months: int,
    go_live: np.ndarray,
    life_months: np.ndarray,
    *,
    end_of_life: str | None = None,
    refresh_capex_usd: np.ndarray | None = None,
) -> list[Cluster]:
    """The first cluster and, with ``end_of_life`` refresh (``refresh_capex_usd`` given), each refresh cluster that
    goes live inside the horizon (module docstring). Arguments per case (n,)."""
    first_sale = go_live + life_months if end_of_life is not None else np.full(go_live.shape, np.inf)
    out = [Cluster(go_live, first_sale, capex_usd, np.ones(go_live.shape, dtype=bool))]
    if end_of_life == "refresh" and refresh_capex_usd is not None:
        k = 1
        while np.any(go_live + k * life_months < months):
            start = go_live + k * life_months
            exists = start < months
            out.append(Cluster(start, start + life_months, np.where(exists, refresh_capex_usd, 0.0), exists))
            k += 1
    return out


@dataclass(frozen=True)
class Assets:
    """The clusters' accounts of n cases (n, months) [USD]; ``first_*`` per USD of the first cluster's cost."""

    book_depreciation: np.ndarray
    tax_depreciation: np.ndarray
    book_written_off: np.ndarray
    """Book value leaving with each sale, in its month."""
    tax_written_off: np.ndarray
    """Tax basis left at each sale, deducted in its month."""
    proceeds: np.ndarray
    first_book: np.ndarray
    """Book depreciation of the first cluster per USD of its cost (capitalised IDC follows it)."""
    first_tax: np.ndarray
    """Tax depreciation of the first cluster per USD of its cost."""
    first_book_off: np.ndarray
    """Book value per USD of the first cluster's cost leaving with its sale, in its month."""
    first_tax_off: np.ndarray
    """Tax basis per USD of the first cluster's cost left at its sale, in its month."""

    @property
    def book_gain(self) -> np.ndarray:
        """Proceeds − book value of each sale [USD]."""
        return self.proceeds - self.book_written_off

    @property
    def tax_gain(self) -> np.ndarray:
        """Proceeds − tax basis of each sale: what the sales add to taxable income [USD]."""
        return self.proceeds - self.tax_written_off


def asset_flows(
    capex_usd: float | np.ndarray,
    months: int,
    go_live: float | np.ndarray,
    life_months: float | np.ndarray,
    residual_share: float | np.ndarray,
    *,
    n: int = 1,
    residual_shape: tuple[np.ndarray, np.ndarray] | None = None,
    end_of_life: str | None = None,
    refresh_capex_usd: float | np.ndarray | None = None,
    tax_method: TaxMethod = "straight_line",
    tax_life_months: float | np.ndarray | None = None,
    book_life_months: float | np.ndarray | None = None,
) -> Assets:
    """Depreciation by book and tax, written-off values and sale proceeds of n cases' clusters (module docstring).

    ``capex_usd`` and ``refresh_capex_usd`` [USD], ``go_live`` [month], ``life_months`` (the useful life: each
    cluster's sale), ``tax_life_months`` and ``book_life_months`` [months] (None = the useful life) and
    ``residual_share`` [fraction of cost] may be scalars or per case (n,).
    """
    capex, start, life = (_each(a, n) for a in (capex_usd, go_live, life_months))
    share = _each(residual_share, n)
    refresh = None if refresh_capex_usd is None else _each(refresh_capex_usd, n)
    book_cumulative = straight_line(life if book_life_months is None else _each(book_life_months, n))
    tax_cumulative = tax_schedule(tax_method, life if tax_life_months is None else _each(tax_life_months, n))
    rows = np.arange(n)
    flows = [np.zeros((n, months)) for _ in range(5)]
    book_dep, tax_dep, book_off, tax_off, proceeds = flows
    first: list[np.ndarray] = []
    for k, c in enumerate(clusters(capex, months, start, life, end_of_life=end_of_life, refresh_capex_usd=refresh)):
        age, month = c.age_at_sale(months), c.sale_month(months)
        book_share, book_left = _shares(book_cumulative, months, c.go_live, age)
        tax_share, tax_left = _shares(tax_cumulative, months, c.go_live, age)
        resale = share if residual_shape is None else share * np.interp(age, *residual_shape)
        cost = c.cost_usd[:, None]
        book_dep += cost * book_share
        tax_dep += cost * tax_share
        book_off[rows, month] += c.cost_usd * book_left  # one cell per row: no repeated index
        tax_off[rows, month] += c.cost_usd * tax_left
        proceeds[rows, month] += np.where(c.exists, resale * c.cost_usd, 0.0)
        if k == 0:
            first = [book_share, tax_share, _at(n, months, month, book_left), _at(n, months, month, tax_left)]
    return Assets(book_dep, tax_dep, book_off, tax_off, proceeds, *first)


def _at(n: int, months: int, month: np.ndarray, value: np.ndarray) -> np.ndarray:
    """(n, months) zeros with each row's ``value`` in its ``month``."""
    out = np.zeros((n, months))
    out[np.arange(n), month] = value
    return out


def depreciation(
    capex_usd: np.ndarray,
    months: int,
    go_live: float | np.ndarray,
    life_months: float | np.ndarray,
    *,
    refresh_capex_usd: np.ndarray | None = None,
) -> np.ndarray:
    """Book depreciation per month (n, months): straight line from go-live over ``life_months`` [USD]
    (:func:`asset_flows`; a refresh cluster of ``refresh_capex_usd`` at each end of life inside the horizon)."""
    capex = np.atleast_1d(np.asarray(capex_usd, dtype=float))
    flows = asset_flows(
        capex,
        months,
        go_live,
        life_months,
        0.0,
        n=capex.size,
        end_of_life=None if refresh_capex_usd is None else "refresh",
        refresh_capex_usd=refresh_capex_usd,
    )
    return flows.book_depreciation

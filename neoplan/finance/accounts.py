"""The records of a project's accounts: what the financing costs (:class:`FinancingCosts`) and the monthly accounts and
cash flows of n cases (:class:`CashFlows`), as :func:`neoplan.finance.project.cash_flows` makes them; the cover
ratios (:mod:`neoplan.finance.cover`) read them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .schedule import DebtSchedule
from .waterfall import Flows


@dataclass(frozen=True)
class FinancingCosts:
    """How the debt's costs enter the accounts and the tax base [USD]; arrays (n, months) unless noted.

    Interest during construction (IDC: accrued before the first full operating month, whether capitalised
    into the loan or paid) is capitalised into the first cluster and depreciated with it, by book and by tax
    (:mod:`neoplan.finance.assets`); what is left of it at that cluster's sale leaves the books then (it lowers the
    gain). Each draw's upfront fee is capitalised and amortised straight line over its term from its first draw;
    what is left when the horizon ends the loan is written off then. Interest from the first operating month on
    (including interest a later phase capitalises into its loan, and sculpted shortfalls) is deducted as it accrues.
    """

    idc_usd: np.ndarray
    """Interest during construction of each case (n,)."""
    idc_depreciation: np.ndarray
    interest_expense: np.ndarray
    fee_amortization: np.ndarray
    idc_book_at_sale: np.ndarray
    """IDC not yet depreciated (by book) at the first cluster's sale, in its month."""
    idc_tax_depreciation: np.ndarray
    idc_tax_at_sale: np.ndarray
    """IDC not yet depreciated for tax at the first cluster's sale, in its month."""


@dataclass(frozen=True)
class CashFlows:
    """The monthly accounts and cash flows of the project (n, months) [USD]."""

    revenue: np.ndarray
    opex: np.ndarray
    ebitda: np.ndarray
    depreciation: np.ndarray
    """Book depreciation, capitalised IDC included."""
    ebit: np.ndarray
    interest: np.ndarray
    """Interest expense from the first full operating month on (IDC is capitalised: in depreciation)."""
    fees: np.ndarray
    taxable_income: np.ndarray
    tax: np.ndarray
    net_income: np.ndarray
    """Book profit after the tax paid (book depreciation and gains; no deferred tax)."""
    capex: np.ndarray
    residual: np.ndarray
    """Sale proceeds."""
    debt: DebtSchedule
    project_tax: np.ndarray
    project_fcf: np.ndarray
    equity_fcf: np.ndarray
    costs: FinancingCosts
    """How interest and fees enter the accounts (IDC capitalised, fee amortised)."""
    collected: np.ndarray
    """Revenue collected (:func:`collections`)."""
    operating_tax: np.ndarray
    """Tax without the sales (their gains and the IDC and basis they write off)."""
    tax_depreciation: np.ndarray
    """Tax depreciation, capitalised IDC included."""
    gain_on_sale: np.ndarray
    """Book gain of the sales: proceeds − book value (IDC included)."""
    capex_mid_month: bool = False
    """Capex, and the debt drawn for it, is paid in the middle of its month (``timeline.capex_timing``)."""
    first_operating_month: np.ndarray | None = None
    """Each case's first full operating month (n,) [month]."""
    build_capex_usd: np.ndarray | None = None
    """Capex of the build (its phases; refreshes left out) per case (n,) [USD]: the base of the debt share."""
    sizing_basis: np.ndarray | None = None
    """What the first tranche was sized on at close (n, months) [USD]; None = sized on none (a closed loan, or
    capex_share)."""

    @property
    def project_mid_month(self) -> np.ndarray | None:
        """The part of :attr:`project_fcf` paid mid-month, the capex (n, months) [USD]; None at month ends."""
        return -self.capex if self.capex_mid_month else None

    @property
    def equity_mid_month(self) -> np.ndarray | None:
        """The part of :attr:`equity_fcf` paid mid-month, the capex less the debt drawn for it (n, months) [USD];
        None at month ends."""
        return self.debt.draws - self.capex if self.capex_mid_month else None

    @property
    def revenue_collected(self) -> np.ndarray:
        """Revenue received in cash per month [USD]."""
        return self.collected

    @property
    def working_capital(self) -> np.ndarray:
        """Receivables at each month's end: revenue earned but not yet collected [USD]."""
        return np.cumsum(self.revenue - self.revenue_collected, axis=-1)

    @property
    def cfads(self) -> np.ndarray:
        """Cash flow available for debt service: revenue collected − opex − tax on operations [USD]."""
        return self.revenue_collected - self.opex - self.operating_tax

    @property
    def sale_tax(self) -> np.ndarray:
        """Tax the sales add (the gain's tax, net of the basis and IDC they write off) [USD]."""
        return self.tax - self.operating_tax

    @property
    def waterfall(self) -> Flows:
        """What the cash waterfall made of the month (:class:`~neoplan.finance.waterfall.Flows`)."""
        return self.debt.flows

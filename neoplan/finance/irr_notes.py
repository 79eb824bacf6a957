"""When an IRR is not a meaningful return: flows that change sign more than once, or equity called after it has been
paid. One case (arrays (1, months) of :class:`neoplan.finance.project.CashFlows`); the note goes beside the figure.

An IRR ranks a conventional investment: cash out first, cash back after. Flows that turn negative again (a
refresh bought from the cash flow, operating losses late in life, a prepayment received before the hardware is
paid) can make the NPV zero at several rates; equity called again after it was paid (debt service above CFADS)
counts early distributions against later calls as if they were a loan at the IRR itself. NPV at the hurdle and
MIRR are then the figures to read.
"""

from __future__ import annotations

import numpy as np

from .. import formats
from . import irr
from .lender import SUPPORT_TOLERANCE, sponsor_support
from .project import CashFlows

MATERIAL_SHARE = 1e-4
"""A month's flow smaller than this share of the largest month's is rounding, not a change of sign [fraction]."""


def sign_changes(flows: np.ndarray) -> int:
    """How often one case's monthly ``flows`` change sign, material months only (:data:`MATERIAL_SHARE`) [count]."""
    flows = np.asarray(flows, dtype=float).reshape(-1)
    scale = float(np.max(np.abs(flows), initial=0.0))
    signs = np.sign(flows[np.abs(flows) > MATERIAL_SHARE * scale]) if scale > 0 else np.zeros(0)
    return int(np.count_nonzero(signs[1:] != signs[:-1]))


def _several_rates(flows: np.ndarray, mid_month: np.ndarray | None) -> list[float]:
    """The rates that make the NPV of flows that change sign more than once zero, when there are several; else []."""
    if sign_changes(flows) < 2:
        return []
    roots = irr.irr_candidates_annual(flows, mid_month=mid_month)
    return roots if len(roots) > 1 else []


def irr_notes(cf: CashFlows) -> dict[str, str]:
    """Why the project or equity IRR of the first case is not a meaningful return, by KPI key; empty when both
    are (see the module docstring): several rates zero the NPV of flows that change sign more than once, or equity
    is called again after distributions began."""
    notes: dict[str, str] = {}
    mid = cf.project_mid_month
    rates = _several_rates(cf.project_fcf[0], None if mid is None else mid[0])
    if rates:
        notes["project_irr"] = (
            f"not meaningful: the project's cash flows change sign {sign_changes(cf.project_fcf[0])} times and "
            f"several rates make their NPV zero ({', '.join(f'{r:+.1%}' for r in rates[:3])} a year); read NPV and "
            "payback"
        )
    equity = cf.equity_fcf[0]
    called, months = sponsor_support(equity)
    first_in = -float(equity[: max(int(np.argmax(equity > 0)), 1)].clip(max=0.0).sum())
    if called > SUPPORT_TOLERANCE * max(first_in, 1.0):
        notes["equity_irr"] = (
            f"not meaningful: equity puts in {formats.usd(called)} again in {months.size} month(s) after "
            "distributions began (sponsor support), which the IRR counts as a loan at its own rate; read equity NPV "
            "and MIRR"
        )
    elif rates := _several_rates(equity, None if cf.equity_mid_month is None else cf.equity_mid_month[0]):
        notes["equity_irr"] = (
            f"not meaningful: equity's cash flows change sign {sign_changes(equity)} times and several rates make "
            f"their NPV zero ({', '.join(f'{r:+.1%}' for r in rates[:3])} a year); read equity NPV and MIRR"
        )
    return notes

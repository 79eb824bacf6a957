"""Invariants no quote can break: a finding that would break one is withheld, with the reason, never shown as a
saving.

1. A finding never saves more than the quoted amount of the lines it cites (:func:`quoted_amount`): a part
   bundled in a server (a configuration sub-item, a part read from the server's description) counts as part of
   that server's price; a stand-alone line quoted at 0, "Included", "N/C" or without a price counts 0, so dropping
   it saves nothing.
2. A finding never rests on a discount line (a discount is never an item).
3. The findings' savings never add up to more than the quote total: past it, the smallest are withheld.

The checks run after the findings are priced, so a rule written for one vendor's quote that misreads the next one
can at worst withhold a finding; it cannot invent a saving.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..formats import usd_exact
from .findings import Finding
from .lines import QuoteLine

TOLERANCE_USD = 1.0
"""Rounding allowed on every invariant [USD]."""


@dataclass(frozen=True)
class Withheld:
    """A finding the review could not price safely, and why."""

    finding: Finding
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record: the finding as it would have read, with ``withheld_because``."""
        return {**self.finding.to_dict(), "withheld_because": self.reason}


def quoted_amount(line_ids: Iterable[int], by_id: Mapping[int, QuoteLine]) -> float:
    """What the quote charges for the cited lines [USD]: each line's own total when it has one, else (a part
    bundled in a priced line) its parent's, each line and each parent once; stand-alone free lines count 0."""
    seen: set[int] = set()
    total = 0.0
    for line_id in line_ids:
        line = by_id.get(line_id)
        if line is None:
            continue
        if line.total_usd > 0:
            key = line.id
        elif line.parent_id is not None and line.parent_id in by_id:
            key = line.parent_id
        else:
            continue
        if key not in seen:
            seen.add(key)
            total += max(0.0, by_id[key].total_usd)
    return total


def _free(line_ids: Iterable[int], by_id: Mapping[int, QuoteLine]) -> bool:
    lines = [by_id[i] for i in line_ids if i in by_id]
    return bool(lines) and all(ln.total_usd == 0 and ln.parent_id is None for ln in lines)


def check(
    findings: Sequence[Finding], lines: Sequence[QuoteLine], quote_total_usd: float
) -> tuple[list[Finding], list[Withheld]]:
    """(findings kept, findings withheld with the reason), by the module's invariants."""
    by_id = {ln.id: ln for ln in lines}
    kept: list[Finding] = []
    withheld: list[Withheld] = []
    for f in findings:
        reason = _broken(f, by_id)
        if reason:
            withheld.append(Withheld(f, reason))
        else:
            kept.append(f)
    total = max(0.0, quote_total_usd)
    for f in sorted((f for f in kept if f.saving_usd > 0), key=lambda f: f.saving_usd):
        if sum(k.saving_usd for k in kept if k.saving_usd > 0) <= total + TOLERANCE_USD:
            break
        kept.remove(f)
        withheld.append(Withheld(f, f"with the other findings its {usd_exact(f.saving_usd)} would save more than the "
                                    f"quote's total of {usd_exact(total)}"))  # fmt: skip
    return kept, withheld


def _broken(f: Finding, by_id: Mapping[int, QuoteLine]) -> str:
    """Why finding ``f`` breaks an invariant ("" when it breaks none)."""
    discounts = [by_id[i] for i in f.lines if i in by_id and by_id[i].category == "discount"]
    if discounts:
        return f"it rests on a discount line ({discounts[0].source}), and a discount is never an item"
    if f.saving_usd <= TOLERANCE_USD:
        return ""
    budget = quoted_amount(f.lines, by_id)
    if f.saving_usd <= budget + TOLERANCE_USD:
        return ""
    if _free(f.lines, by_id):
        return (
            f"it would save {usd_exact(f.saving_usd)}, but the lines it cites are quoted at no charge "
            "(0, Included, N/C): dropping them saves nothing"
        )
    return (
        f"it would save {usd_exact(f.saving_usd)}, more than the {usd_exact(budget)} the quote charges "
        "for the lines it cites"
    )


def padding_saving_usd(findings: Sequence[Finding], lines: Sequence[QuoteLine], exclude: Sequence[str]) -> float:
    """What the findings save together [USD]: their savings, at most what the quote charges for all the lines they
    cite (findings may overlap: two can remove the same optics); codes in ``exclude`` left out."""
    chosen = [f for f in findings if f.code not in exclude and f.saving_usd > 0]
    by_id = {ln.id: ln for ln in lines}
    cited = {i for f in chosen for i in f.lines}
    return min(sum(f.saving_usd for f in chosen), quoted_amount(cited, by_id))

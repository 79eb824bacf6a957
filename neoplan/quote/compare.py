"""The quote against the recommended design, component by component."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..inputs.pricebook import default_platforms
from ..model import Result
from .cells import _finite
from .classify import Rule, component_of_key
from .codes import CATEGORIES
from .lines import QuoteLine


@dataclass(frozen=True)
class ComparisonRow:
    """One component of the quote against the recommended design [book units, USD]."""

    category: str
    component: str
    quote_quantity: float
    quote_usd: float
    recommended_quantity: float
    recommended_usd: float
    in_scope: bool

    @property
    def saving_usd(self) -> float:
        """Quote minus recommended [USD] (0 when out of scope)."""
        return self.quote_usd - self.recommended_usd if self.in_scope else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record."""
        return {
            "category": self.category,
            "component": self.component,
            "quote_quantity": self.quote_quantity,
            "quote_usd": _finite(self.quote_usd),
            "recommended_quantity": self.recommended_quantity,
            "recommended_usd": _finite(self.recommended_usd),
            "in_scope": self.in_scope,
            "saving_usd": _finite(self.saving_usd),
        }


# --- comparison -----------------------------------------------------------------------------------------------------


def compare(lines: Sequence[QuoteLine], result: Result | None, rules: Sequence[Rule]) -> list[ComparisonRow]:
    """Quote vs design per component [book units, USD]; in scope = components the quote prices and the model knows.

    The design side groups ``result.capex_lines`` by the component of their price key (from the rules).
    Without a ``result`` (no GPU count) only the quote side is filled and nothing is in scope.
    """
    key_component = dict(component_of_key(rules))
    for platform in default_platforms().values():  # an NVL72 rack system is the rack's GPU "board"
        key_component.setdefault(platform.baseboard_price_key, ("gpu_baseboard", "compute"))
    comparable = {comp for comp, _ in key_component.values()} | {"discount", "system"}
    systems = any(ln.component == "system" for ln in lines)
    quote: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for ln in lines:
        if ln.component is not None and ln.category is not None:
            comp = "spares" if ln.pool == "spares" else _as_system(ln.component, ln.category, systems)
            q = quote[(ln.category, comp)]
            q[0] += ln.book_quantity if comp == ln.component else 0.0
            q[1] += ln.total_usd
    design: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for cl in result.capex_lines if result is not None else []:
        comp, cat = key_component.get(cl.key, (cl.key, cl.category))
        system_comp = _as_system(comp, cat, systems) if cat == "compute" else comp
        d = design[(cat, system_comp)]
        d[0] += cl.quantity if system_comp == comp or comp == "gpu_baseboard" else 0.0
        d[1] += cl.total_usd
    order = {c: i for i, c in enumerate(CATEGORIES)}
    keys = sorted(set(quote) | set(design), key=lambda k: (order.get(k[0], 99), k[1]))
    return [
        ComparisonRow(
            category=cat,
            component=comp,
            quote_quantity=quote[(cat, comp)][0] if (cat, comp) in quote else 0.0,
            quote_usd=quote[(cat, comp)][1] if (cat, comp) in quote else 0.0,
            recommended_quantity=design[(cat, comp)][0] if (cat, comp) in design else 0.0,
            recommended_usd=design[(cat, comp)][1] if (cat, comp) in design else 0.0,
            in_scope=result is not None and (cat, comp) in quote and comp in comparable,
        )
        for cat, comp in keys
    ]


NODE_COMPONENTS = frozenset(
    {
        "gpu_baseboard",
        "cpu",
        "ram",
        "backend_nic",
        "frontend_nic",
        "nic",
        "local_nvme",
        "boot_drive",
        "chassis",
        "integration",
        "warranty",
        "node_accessory",
    }
)
"""Compute components a complete server's price includes: compared as one ``system`` when the quote has servers."""


def _as_system(component: str, category: str, systems: bool) -> str:
    """``system`` for a node component when the quote prices whole servers, else the component."""
    return "system" if systems and category == "compute" and component in NODE_COMPONENTS else component

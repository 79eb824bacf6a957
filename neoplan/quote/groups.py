"""Step 4 of reading a table: configuration sub-items grouped under the priced line they belong to.

Dell-style quotes price a server on one base line and list its configuration under it, unpriced or at 0, with
quantities per server. An item is a sub-item of the priced line above it (its *parent*) when the table's columns
do not already say what each quantity counts (no Qty/Server, Qty/Rack or Nodes column) and

* its prices are blank and the parent names a server (:func:`is_system_text`), or
* it is indented and unpriced or at 0, or
* it is unpriced or at 0 and numbered under the parent (``1.2`` under ``1``);

a run of two or more 0-priced lines right under a server line is its configuration too (Dell exports with
formulas). A blank row, a section title, a total or a tax line ends the group.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from .raw import RawLine

_SYSTEM_MODEL = re.compile(
    r"\b(superserver|poweredge|xe\d{4}\w*|sys-\w+|as\s?-\s?\w{4}\S*|thinksystem|sr\d{3}\w*|cray|xd\d{3}\w*|"
    r"g\d{3}-\w+|esc\s?n\d\w*|hgx|dgx|nvl\s?72|gb[23]00)\b",
    re.IGNORECASE,
)
_SYSTEM_WORD = re.compile(r"\b(servers?|system|nodes?|chassis|barebone|cto|gpu\s+node)\b", re.IGNORECASE)
_SERVICE = re.compile(
    r"\bper\s+(gpu\s+)?(server|node|system)\b|warrant|support|servic|deploy|install|integrat|licen[cs]|subscri|"
    r"training|freight|shipping|rack\s+and\s+stack|burn-?in|validation|\bsvc\b|\bL1[01]\b|保修|服务(?!器)|维保|保守|サービス",
    re.IGNORECASE,
)


def is_system_text(part: str, description: str) -> bool:
    """True when a priced line names a server (its unpriced lines below are its configuration), not a service:
    a server model not led by a service word ("ProDeploy for PowerEdge XE9680"), or "server"/"node" without one."""
    text = f"{part} {description}"
    service = _SERVICE.search(text)
    if _SYSTEM_MODEL.search(text):
        return service is None or service.start() > len(part) + 1 + min(len(description) // 2, 40)
    return bool(_SYSTEM_WORD.search(text)) and service is None


@dataclass(frozen=True)
class Item:
    """An item row as read, with what grouping needs: its prices' shape, indent, item number and what came before."""

    line: RawLine
    prices_blank: bool
    zero: bool
    has_amounts: bool
    priced: bool
    number: str
    explicit: bool
    after_break: bool
    """A blank row, title, total or tax line separates it from the item above."""

    @cached_property
    def system(self) -> bool:
        """True when the line names a server."""
        return is_system_text(self.line.part_number, self.line.description)


def _sub_item(item: Item, parent: Item | None) -> bool:
    if item.explicit or parent is None:
        return False
    blank_or_zero = item.prices_blank or item.zero
    numbered = bool(parent.number) and item.number.startswith(parent.number + ".")
    return (
        (item.prices_blank and parent.system)
        or (item.line.indent > 0 and blank_or_zero)
        or (blank_or_zero and numbered)
    )


def group_sub_items(items: Sequence[Item]) -> list[RawLine]:
    """The items' lines with configuration sub-items marked ``per_parent`` under their parent's row."""
    out: list[RawLine] = []
    parent: Item | None = None
    zero_runs: dict[int, list[int]] = {}  # a server line's row -> indexes of the 0-priced lines right below it
    for item in items:
        if item.after_break:
            parent = None
        line = item.line
        sub = _sub_item(item, parent)
        if sub and parent is not None:
            line = replace(line, quantity_basis="per_parent", parent_row=parent.line.row)
        elif item.zero and item.has_amounts and parent is not None and not item.explicit and parent.system:
            zero_runs.setdefault(parent.line.row, []).append(len(out))  # maybe a run of modules priced at 0
        out.append(line)
        if not sub:
            if item.priced:
                parent = item
            elif not (item.zero and item.has_amounts and parent is not None and parent.system):
                parent = None
    for parent_row, indexes in zero_runs.items():
        if len(indexes) >= 2:  # several modules at 0 under a server line: its configuration (Dell, formulas)
            for k in indexes:
                out[k] = replace(out[k], quantity_basis="per_parent", parent_row=parent_row)
    return out

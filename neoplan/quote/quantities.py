"""Each line's quantity for the whole order: sub-items under their parents, per-server and per-rack lines scaled.

Quantities as the file writes them count different things: a ``total`` line counts for the whole order, a
``per_server`` line (a Qty/Server column, a quote "per node") is multiplied by the servers bought, a ``per_parent``
configuration sub-item (Dell style) by its parent line's order quantity, a ``per_rack`` line by the racks the quote
states. A quote that prices one server is scaled by the servers quoted (the user's count, else the count the quote
states). :func:`cluster_quantities` returns each line's order quantity and says, in notes, what it assumed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .lines import raw_money
from .raw import ParsedQuote, RawLine
from .system import NODE_PARTS
from .units import per_server_count

_BUNDLED_PARTS = frozenset({*NODE_PARTS, "node_accessory", "attribute", "rack_tray", None})
"""What a free line right under a server line may be to count as part of that server (never a licence or service:
those stand alone, and a free one saves nothing)."""
_SUB_ITEM_MAX_QUANTITY = 32
"""Above this many per server a $0 line after a server line is an order total (power cords for all), not a
configuration item of the server."""
_ONE = 1 + 1e-9


def basis(raw: RawLine) -> str:
    """What the raw line's quantity counts (``total`` when the reader did not say)."""
    return getattr(raw, "quantity_basis", "total") or "total"


def _spare(raw: RawLine) -> bool:
    return getattr(raw, "pool", "") == "spares"


def where(raw: RawLine) -> str:
    """The raw line's place as a spreadsheet user writes it: ``Sheet!12`` or ``row 12``."""
    return f"{raw.sheet}!{raw.row}" if raw.sheet else f"row {raw.row}"


def parents(raws: Sequence[RawLine]) -> list[int | None]:
    """Index of each sub-item's parent line (same sheet, the row it names), else None."""
    index = {(raw.sheet, raw.row): k for k, raw in enumerate(raws)}
    out: list[int | None] = []
    for k, raw in enumerate(raws):
        parent_row = getattr(raw, "parent_row", None)
        parent = index.get((raw.sheet, parent_row)) if parent_row is not None else None
        out.append(parent if parent is not None and parent < k else None)
    return out


def _free(raw: RawLine) -> bool:
    unit, ext = raw_money(raw)
    return not unit and not ext


def _joins_server(raw: RawLine, ident: Any, parent: int | None, contiguous: bool) -> bool:
    """True when a free line right under a server line (or its other free parts) is one of its parts."""
    return (
        contiguous
        and ident.component in _BUNDLED_PARTS
        and parent is None
        and basis(raw) == "total"
        and getattr(raw, "per_rack", None) is None  # a rack BoM's quantities are the order's already
        and 0 < raw.quantity <= _SUB_ITEM_MAX_QUANTITY
    )


def included_sub_items(
    raws: Sequence[RawLine], idents: Sequence[tuple[Any, Any]], parent_of: list[int | None]
) -> set[int]:
    """Lines that are configuration items of the server line above them although the file does not mark them.

    A server line priced for the whole server followed, on the next rows of its sheet, by node parts at $0 or
    without a price ("configured as below"): those quantities are per server. ``parent_of`` is updated in place.
    """
    out: set[int] = set()
    system: int | None = None
    for k, raw in enumerate(raws):
        ident = idents[k][0]
        free = _free(raw)
        if ident.component == "system" and not free:
            system = k
            continue
        prev = raws[k - 1] if k else None
        contiguous = prev is not None and prev.sheet == raw.sheet and raw.row - prev.row <= 2
        if (
            system is not None
            and free
            and _joins_server(raw, ident, parent_of[k], contiguous)
            and (k - 1 == system or k - 1 in out)
        ):
            parent_of[k] = system
            out.add(k)
        elif not free:
            system = None
    return out


def _under_system(k: int, idents: Sequence[tuple[Any, Any]], parent_of: Sequence[int | None]) -> bool:
    parent = parent_of[k]
    return parent is not None and idents[parent][0].component == "system"


def servers_in_quote(
    raws: Sequence[RawLine],
    idents: Sequence[tuple[Any, Any]],
    parent_of: Sequence[int | None],
    included: set[int] | frozenset[int],
) -> float:
    """Servers the quote's total-quantity lines hold: server lines (× servers per unit) and GPU boards that sit
    under no server line."""
    own = own_quantities(raws, parent_of, [1.0] * len(raws), included)
    return sum(
        own[k] * (config.servers_per_unit if config is not None else 1)
        for k, (ident, config) in enumerate(idents)
        if ident.status == "classified"
        and (
            ident.component == "system"
            or (ident.component == "gpu_baseboard" and not _under_system(k, idents, parent_of))
        )
        and basis(raws[k]) != "per_server"
        and getattr(raws[k], "pool", "") != "spares"
    )


def _servers_per_server_quote(servers_quoted: int | None, stated: int | None, in_quote: float, notes: list[str]) -> int:
    """Servers bought by a quote whose lines count one server: the user's, the stated, else the server lines'."""
    n = servers_quoted or stated or (round(in_quote) if in_quote > _ONE else None)
    if n is None:
        notes.append(
            "the quote prices one server and does not say how many are bought: set servers quoted "
            "(--servers N) to size the cluster"
        )
        return 1
    return int(n)


def _multiplier(servers_quoted: int | None, stated: int | None, in_quote: float, notes: list[str]) -> int:
    """What a quote with total quantities is multiplied by: the servers bought when it holds one server."""
    single = "the quote prices a single server: set servers quoted to the number of servers bought"
    if servers_quoted is not None:
        if in_quote > _ONE:
            if round(in_quote) != servers_quoted:
                notes.append(
                    f"the quote lists {in_quote:,.0f} servers with total quantities; servers quoted "
                    f"({servers_quoted:,}) applies to quotes that price one server and is not used"
                )
            return 1
        if servers_quoted == 1 and abs(in_quote - 1) < 1e-9:
            notes.append(single)
        return servers_quoted
    if stated and stated > 1 and in_quote <= _ONE:
        return int(stated)
    if abs(in_quote - 1) < 1e-9:
        notes.append(single)
    return 1


def _said_per_server(
    raws: Sequence[RawLine],
    idents: Sequence[tuple[Any, Any]],
    parent_of: Sequence[int | None],
    servers: int,
    factors: list[float],
    notes: list[str],
) -> None:
    """Scale node parts whose description says their quantity is per server ("ConnectX-7 400G (4 per server)"
    with quantity 4 in a 16-server quote); ``factors`` is updated in place."""
    for k, raw in enumerate(raws):
        per = per_server_count(raw.description)
        if parent_of[k] is None and per is not None and raw.quantity == per and idents[k][0].component in NODE_PARTS:
            factors[k] = servers
            notes.append(
                f"{where(raw)}: quantity {per:g} read as {per:g} per server (the line says so), "
                f"{per * servers:,.0f} in all"
            )


def cluster_quantities(
    quote: ParsedQuote,
    raws: Sequence[RawLine],
    idents: Sequence[tuple[Any, Any]],
    parent_of: Sequence[int | None],
    servers_quoted: int | None,
    included: set[int] | frozenset[int] = frozenset(),
) -> tuple[list[float], int, bool, list[str]]:
    """(quantity of each line for the whole order, servers multiplier, inferred?, notes).

    Per-server lines (and every line of a quote priced per server) are multiplied by the servers bought:
    ``servers_quoted``, else the count the quote states. A quote with total quantities that holds one server is
    scaled the same way; one that holds several keeps its quantities.
    """
    notes: list[str] = []
    stated = getattr(quote, "servers_stated", None)
    whole_per_server = bool(getattr(quote, "per_server", False))
    in_quote = servers_in_quote(raws, idents, parent_of, included)
    inferred = servers_quoted is None
    racks = _rack_factors(quote, raws, notes)
    if whole_per_server or any(basis(raw) == "per_server" for raw in raws):
        n = _servers_per_server_quote(servers_quoted, stated, in_quote, notes)
        factors = [
            1.0
            if getattr(raw, "pool", "") == "spares"
            else float(n)
            if (whole_per_server and basis(raw) != "per_rack") or basis(raw) == "per_server"
            else r
            for raw, r in zip(raws, racks, strict=True)
        ]
        return own_quantities(raws, parent_of, factors, included), n, inferred, notes
    mult = _multiplier(servers_quoted, stated, in_quote, notes)
    factors = [racks[k] if racks[k] != 1.0 else float(mult) if parent_of[k] is None else 1.0 for k in range(len(raws))]
    if mult == 1 and in_quote > 1:
        _said_per_server(raws, idents, parent_of, round(in_quote), factors, notes)
    return own_quantities(raws, parent_of, factors, included), int(mult), inferred, notes


def _rack_factors(quote: ParsedQuote, raws: Sequence[RawLine], notes: list[str]) -> list[float]:
    """The factor of each line quoted per rack without a rack count on its row: the racks the quote states."""
    if not any(basis(raw) == "per_rack" for raw in raws):
        return [1.0] * len(raws)
    racks = getattr(quote, "racks_stated", None)
    if not racks:
        notes.append("quantities are per rack and the quote does not say how many racks: read as one rack")
        racks = 1
    return [float(racks) if basis(raw) == "per_rack" else 1.0 for raw in raws]


def own_quantities(
    raws: Sequence[RawLine],
    parent_of: Sequence[int | None],
    factors: Sequence[float],
    included: set[int] | frozenset[int] = frozenset(),
) -> list[float]:
    """Each line's quantity × its factor; a sub-item's quantity × its parent's (quantities per parent)."""
    out: list[float] = []
    for k, raw in enumerate(raws):
        parent = parent_of[k]
        total = getattr(raw, "total_quantity", None)
        if parent is not None and (basis(raw) == "per_parent" or k in included):
            out.append(raw.quantity * out[parent])
        elif total is not None and basis(raw) == "per_server" and total >= raw.quantity:
            out.append(float(total))
        else:
            out.append(raw.quantity * factors[k])
    return out

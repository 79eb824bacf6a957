"""Quote lines identified, converted to USD, scaled to the cluster and checked against the price book.

Quantities: a ``total`` line counts for the whole order; a ``per_server`` line (a Qty/Server column, a quote
"per node") is multiplied by the servers bought; a ``per_parent`` configuration sub-item (Dell style) by its
parent line's cluster quantity. A one-server quote is scaled by the servers quoted.

Like for like: a line is compared with the price book only when its component *and* size match the book
item (link speeds agree; DIMM, drive and term sizes scale the book price); a complete server is compared with
the model's whole node. A ratio above :data:`MAX_BOOK_RATIO` or below its inverse is ``could_not_price``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..design.node import DIMM_GB
from ..formats import usd_exact
from ..inputs.pricebook import PriceBook
from .classify import (
    CATALOGUE_CONFIDENCE,
    UNMATCHED,
    CatalogueEntry,
    Identity,
    Rule,
    catalogue_match,
    identify_rules,
    identity_of_entry,
    identity_of_rule,
    size_of,
)
from .structure import RawLine
from .system import (
    NODE_PARTS,
    SystemConfig,
    SystemPart,
    board_identity,
    head,
    is_bare_chassis,
    is_rack_scale,
    is_server_part,
    looks_like_system,
    parse_system,
    server_with_board,
    system_identity,
)
from .units import drive_tb, gpu_model, normalise, ram_gb, speeds_gbps

MAX_BOOK_RATIO = 3.0
_GPUS_PER_BOARD = 8
_LEAD_COUNT = re.compile(r"^\s*\d{1,3}\s*x\s*", re.IGNORECASE)
_PER_GPU = re.compile(
    r"\b(?:price[ds]?|cost|sold|quoted|each)\s+per\s+GPU\b|\(\s*per\s+GPU\s*\)|\bGPU\s+(?:on|for)\s+(?:the\s+)?HGX\b",
    re.I,
)
_BOARD_WORDS = re.compile(
    r"\b(HGX|DGX|baseboards?|boards?|\d\s*-?\s*GPUs?|[248]\s*x\s*(NVIDIA\s+)?[HB]\d{2,3})\b", re.I
)
"""Words that make a GPU line a board of 8; a GPU line without them (``NVIDIA H100 SXM5 80GB GPU``) is one GPU."""
_WITH_BOARD = re.compile(r"\b(with|incl\w*|w/)\s+(NVIDIA\s+)?(HGX|DGX)\b|\b(with|incl\w*)\b.*\b\d\s*-?\s*GPU\b", re.I)
"""A unit price more than this many times the book's (or less than its inverse) is a misread, not a saving."""


@dataclass(frozen=True)
class QuoteLine:
    """A quote line, identified and scaled to the cluster [USD, units].

    ``quantity`` is as quoted; ``cluster_quantity`` and ``total_usd`` are for the whole order. ``book_quantity``
    counts price-book units (64 GB DIMMs, server-years, …). A ``derived`` line is a component read from a server
    line's description (same ``id``, sheet and row as that line; no price of its own).
    """

    id: int
    sheet: str
    row: int
    section: str
    part_number: str
    description: str
    quantity: float
    unit_price_usd: float | None
    extended_usd: float | None
    quantity_assumed: bool
    cluster_quantity: float
    total_usd: float
    component: str | None
    category: str | None
    price_key: str | None
    rule_findings: tuple[str, ...]
    recommended_key: str | None
    book_unit_price_usd: float | None
    book_quantity: float
    status: str = "unmatched"
    confidence: float = 0.0
    basis: str = ""
    price_check: str | None = None
    quantity_basis: str = "total"
    gpu_model: str | None = None
    cpu_vendor: str | None = None
    ram_gb: float = 0.0
    """Memory on the line for the whole order [GB] (RAM lines and server lines)."""
    gpus: float = 0.0
    """GPUs on the line for the whole order (server and GPU-board lines)."""
    derived: bool = False
    parent_id: int | None = None
    note: str = ""
    pool: str = ""
    """``spares``: a part of a spares pool (counted in the total, not in the cluster's size or per-server figures)."""
    system: SystemConfig | None = field(default=None, compare=False, repr=False)

    @property
    def classified(self) -> bool:
        """True when the line's identity is sure enough to be used (status ``classified``)."""
        return self.status == "classified"

    @property
    def text(self) -> str:
        """Part number and description."""
        return f"{self.part_number} {self.description}".strip()

    @property
    def label(self) -> str:
        """A short name for messages."""
        return (self.description or self.part_number)[:70]

    @property
    def effective_unit_usd(self) -> float | None:
        """What the quote charges per unit [USD]: extended ÷ quantity where both exist, else the unit price."""
        if self.extended_usd is not None and self.quantity > 0:
            return self.extended_usd / self.quantity
        return self.unit_price_usd

    @property
    def priced(self) -> bool:
        """True when the quote gives a unit or extended price (bundled parts often have none)."""
        return self.unit_price_usd is not None or self.extended_usd is not None

    @property
    def bundled(self) -> bool:
        """True for a part of a priced line: a configuration sub-item or a part read from a server's description
        (its price is in its parent's)."""
        return self.derived or self.parent_id is not None

    @property
    def cost_usd(self) -> float:
        """The line's cluster cost for findings [USD]: as quoted; at book prices for a part bundled in a server's
        price (a sub-item at 0 or unpriced) or a price that could not be checked (3× off the book); 0 for a
        stand-alone line quoted at 0, "Included" or without a price (dropping it saves nothing)."""
        if self.priced and self.total_usd != 0 and self.price_check != "could_not_price":
            return self.total_usd
        if self.bundled or self.price_check == "could_not_price":
            return self.cluster_quantity * (self.book_unit_price_usd or 0.0)
        return 0.0

    @property
    def source(self) -> str:
        """Where the line sits in the file: ``row 12`` or ``Compute!12``."""
        return f"{self.sheet}!{self.row}" if self.sheet else f"row {self.row}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record [USD, units]."""
        return {
            "id": self.id,
            "sheet": self.sheet,
            "row": self.row,
            "source": self.source,
            "section": self.section,
            "part_number": self.part_number,
            "description": self.description,
            "quantity": self.quantity,
            "quantity_basis": self.quantity_basis,
            "unit_price_usd": self.unit_price_usd,
            "extended_usd": self.extended_usd,
            "quantity_assumed": self.quantity_assumed,
            "priced": self.priced,
            "cluster_quantity": self.cluster_quantity,
            "total_usd": self.total_usd,
            "classified": self.classified,
            "status": self.status,
            "confidence": self.confidence,
            "identified_by": self.basis,
            "component": self.component,
            "category": self.category,
            "price_key": self.price_key,
            "book_unit_price_usd": self.book_unit_price_usd,
            "book_quantity": self.book_quantity,
            "price_check": self.price_check,
            "gpu_model": self.gpu_model,
            "note": self.note,
            "pool": self.pool,
        }


# --- identity of a raw line -----------------------------------------------------------------------------------------


_BACK_END = re.compile(r"spectrum-x|back[- ]?end|compute\s+fabric|gpu\s+fabric|east-west", re.IGNORECASE)
_FRONT = re.compile(r"front[- ]?end|north-south", re.IGNORECASE)
_ATTRIBUTE = re.compile(
    r"^[A-Za-z][\w /&().+-]{0,40}\b(types?|speeds?|configuration|config|thermal|settings?|mode|profile|selection|"
    r"population|layout|technology|form\s+factor|rating|topology|air\s*flow)\b[\w /&().+-]{0,24}:\s*\S",
    re.IGNORECASE,
)
_HAS_SIZE = re.compile(
    r"\b\d+(\.\d+)?\s*(GB|TB)\b|\b\d{1,3}\s*[x×]\s*\S|\b(Platinum|Gold|Silver|Bronze)\s*\d{4}|\bEPYC\s*\d{4}|"
    r"ConnectX-?\d|\bCX-?\d|\b[HB][123]00\b",
    re.IGNORECASE,
)
ATTRIBUTE = Identity("attribute", "compute", None, (), None, "", 1.0, 0.9, "rules")
"""A configurator's attribute line ("Memory DIMM Type and Speed: 4800MT/s RDIMMs"): a setting, no part."""


def is_attribute(description: str) -> bool:
    """True for a ``Label: value`` line that sets an attribute (type, speed, configuration …) and names no size,
    count or model: it adds no part."""
    return bool(_ATTRIBUTE.match(description)) and not _HAS_SIZE.search(description)


def _vetted_entry(
    part: str, description: str, norm: str, catalogue: Sequence[CatalogueEntry], service: bool
) -> CatalogueEntry | None:
    """The catalogue entry of a line's part number, unless the words say the line is something else."""
    entry = catalogue_match(part, description, catalogue)
    if entry is None:
        return None
    if entry.component == "frontend_switch" and _BACK_END.search(norm) and not _FRONT.search(norm):
        return None  # "SN5600 … Spectrum-X switch": the back end of a Spectrum-X fabric, as the rules read it
    if entry.component == "system" and service and not looks_like_system(head(norm)):
        return None  # "XD670 power supply kit", "3 year service for XE9680": a part of the server, not the server
    if entry.component == "system" and is_rack_scale(norm) and gpu_model(norm) is None:
        return None  # "NVL72 rack with power shelves and manifold": the rack's infrastructure, no GPUs named
    return entry


def _server_identity(
    part: str,
    description: str,
    norm: str,
    entry: CatalogueEntry | None,
    service: bool,
    rules: Sequence[Rule],
) -> tuple[Identity, SystemConfig | None] | None:
    """The identity of a line that names a server (a GPU board in a barebone, a bare chassis, a whole server); None
    for a line that names none."""
    bare = is_bare_chassis(norm) and not server_with_board(norm)
    if bare and _WITH_BOARD.search(norm) and gpu_model(norm):  # "barebone with HGX B200 8-GPU"
        board = board_identity(gpu_model(norm), rules)
        if board is not None:
            return replace(board, confidence=0.85, basis="rules", gpu_model=gpu_model(norm)), None
    if entry is not None and entry.component == "system":
        if not bare:
            return system_identity(entry), parse_system(description or part, rules, entry.cpu_vendor or None)
        chassis = next((r for r in rules if r.price_key == "node_chassis"), None)
        return (identity_of_rule(chassis, CATALOGUE_CONFIDENCE, "catalogue"), None) if chassis is not None else None
    if entry is None and not bare and not service and looks_like_system(norm):
        config = parse_system(description or part, rules)
        if config.gpu_model is not None:
            return system_identity(None), config
    return None


def _board_of_model(ident: Identity, norm: str, rules: Sequence[Rule]) -> Identity:
    """A GPU-board identity priced as the board of the GPU the text names (a catalogue part naming another GPU)."""
    model = gpu_model(norm) or ident.gpu_model
    board = board_identity(model, rules)
    if board is not None and board.price_key != ident.price_key:
        ident = replace(board, confidence=ident.confidence, basis=ident.basis)
    return replace(ident, gpu_model=model)


def identify_line(
    part: str, description: str, rules: Sequence[Rule], catalogue: Sequence[CatalogueEntry]
) -> tuple[Identity, SystemConfig | None]:
    """The identity of a line (catalogue, server, then scored rules) and, for a server, its configuration.

    A server SKU names the server when the words before its terms do (``ThinkSystem SR680a V3 - 3yr Warranty``),
    a part or service of it otherwise (``XD670 power supply kit``, ``NVL72 rack-level validation``); a chassis
    that also names its GPU board and calls itself a server is a GPU server.
    """
    if is_attribute(description):
        return ATTRIBUTE, None
    text = f"{part} {description}".strip()
    norm = normalise(text)
    service = is_server_part(norm, part)
    entry = _vetted_entry(part, description, norm, catalogue, service)
    server = _server_identity(part, description, norm, entry, service, rules)
    if server is not None:
        return server
    if entry is not None:
        ident = identity_of_entry(entry, rules)
    else:  # the description first: part numbers carry misleading tokens ("AOC-HGX-H100-PWR" is a power cord)
        ident = identify_rules(description, rules) if description else UNMATCHED
        if ident.component is None and part:
            whole = identify_rules(text, rules)
            ident = replace(whole, confidence=round(whole.confidence * 0.8, 3))
    if ident.component == "gpu_baseboard":
        ident = _board_of_model(ident, norm, rules)
    return ident, None


def raw_money(raw: RawLine) -> tuple[float | None, float | None]:
    """(unit, extended) of a raw line in the quote's currency (works with both RawLine field spellings)."""
    unit = getattr(raw, "unit_price", None) if hasattr(raw, "unit_price") else getattr(raw, "unit_price_usd", None)
    ext = getattr(raw, "extended", None) if hasattr(raw, "extended") else getattr(raw, "extended_usd", None)
    return unit, ext


def make_line(
    line_id: int,
    raw: RawLine,
    ident: Identity,
    config: SystemConfig | None,
    cluster_quantity: float,
    usd_per_unit: float,
    book: PriceBook,
    tolerance: float,
) -> QuoteLine:
    """One quote line in USD, scaled to ``cluster_quantity`` and checked against the book (like for like)."""
    unit, ext = raw_money(raw)
    unit_usd = unit * usd_per_unit if unit is not None else None
    ext_usd = ext * usd_per_unit if ext is not None else None
    total_qty = getattr(raw, "total_quantity", None)
    quantity = float(total_qty) if total_qty is not None and total_qty > 0 else raw.quantity  # the extended's
    scale = cluster_quantity / quantity if quantity > 0 else 0.0
    total = ext_usd * scale if ext_usd is not None else cluster_quantity * (unit_usd or 0.0)
    text = normalise(f"{raw.part_number} {raw.description}")
    status = ident.status
    book_unit, ratio, note, gb = _line_book(ident, text, book, unit_usd, cluster_quantity)
    line = QuoteLine(
        id=line_id,
        sheet=raw.sheet,
        row=raw.row,
        section=raw.section,
        part_number=raw.part_number,
        description=raw.description,
        quantity=quantity,
        unit_price_usd=unit_usd,
        extended_usd=ext_usd,
        quantity_assumed=raw.quantity_assumed,
        cluster_quantity=cluster_quantity,
        total_usd=total,
        component=ident.component,
        category=ident.category,
        price_key=ident.price_key,
        rule_findings=ident.findings,
        recommended_key=ident.recommended_key,
        book_unit_price_usd=book_unit,
        book_quantity=cluster_quantity * ratio,
        status=status,
        confidence=ident.confidence,
        basis=ident.basis,
        quantity_basis=getattr(raw, "quantity_basis", "total"),
        gpu_model=(config.gpu_model if config is not None else None) or ident.gpu_model,
        cpu_vendor=(config.cpu_vendor if config is not None else None) or ident.cpu_vendor,
        ram_gb=gb,
        note=note or (f"the unit price of the {raw.tier} price break" if getattr(raw, "tier", "") else ""),
        system=config,
        pool=getattr(raw, "pool", ""),
    )
    check, check_note = _licence_check(
        price_check_of(line.effective_unit_usd, book_unit, tolerance, line.price_key or ""), ident
    )
    if check == line.price_check and not check_note:
        return line
    return replace(line, price_check=check, note=check_note or line.note)


def _line_book(
    ident: Identity, text: str, book: PriceBook, unit_usd: float | None, cluster_quantity: float
) -> tuple[float | None, float, str, float]:
    """(book price per quoted unit [USD], book units per quoted unit, note, memory for the order [GB]) of a line:
    GPUs priced one by one count an eighth of a board; DIMMs scale the book's 64 GB price by their size."""
    if ident.status != "classified":
        return None, 1.0, "", 0.0
    book_unit, ratio, note = _book_unit(ident, text, book)
    if ident.component == "gpu_baseboard" and book_unit is not None and _per_gpu(text, unit_usd, book_unit):
        ratio = 1.0 / _GPUS_PER_BOARD  # priced per GPU: a board is 8 of these units
        book_unit *= ratio
    if ident.component != "ram":
        return book_unit, ratio, note, 0.0
    per_unit_gb = ram_gb(text) or ident.book_size
    ratio = per_unit_gb / DIMM_GB
    book_unit = book.price(ident.price_key) * ratio if book_unit is not None and ident.price_key else book_unit
    return book_unit, ratio, note, per_unit_gb * cluster_quantity


def _licence_check(check: tuple[str | None, str], ident: Identity) -> tuple[str | None, str]:
    """A licence priced far off the book is priced on its own terms (years, per GPU or per node), not misread."""
    if check[0] == "could_not_price" and "nvaie_license" in ident.findings:
        return None, "a licence priced on its own terms (years, per GPU or per node): saved as quoted"
    return check


def _per_gpu(text: str, unit_usd: float | None, board_usd: float) -> bool:
    """True when a GPU line counts single GPUs: it says so ("price per GPU"), or it names no board and is priced
    (if at all) below a third of a board."""
    if _PER_GPU.search(text):
        return True
    return not _BOARD_WORDS.search(text) and (not unit_usd or unit_usd < board_usd / 3)


def _book_unit(ident: Identity, text: str, book: PriceBook) -> tuple[float | None, float, str]:
    """(book price per quoted unit [USD], book units per quoted unit, note) — None when not like for like, or when
    the book does not price the item (a B300 board in the 2024-10 book)."""
    if not ident.price_key or ident.price_key not in book:
        return None, 1.0, ""
    ratio = 1.0
    if ident.size_unit == "TB":
        size = drive_tb(text)
        ratio = size / ident.book_size if size else 1.0
    elif ident.size_unit == "year":
        size = size_of(text, "year")
        ratio = size / ident.book_size if size else 1.0
    line_speeds = speeds_gbps(text)
    book_speeds = speeds_gbps(normalise(book.row(ident.price_key).description))  # both cached
    if line_speeds and book_speeds and not (line_speeds & book_speeds):
        speeds = "/".join(f"{s}G" for s in sorted(line_speeds))
        return None, ratio, f"not like for like: the line is {speeds}, the book item ({ident.price_key}) is not"
    return book.price(ident.price_key) * ratio, ratio, ""


def price_check_of(
    unit_usd: float | None, book_unit_usd: float | None, tolerance: float, what: str
) -> tuple[str | None, str]:
    """(price check, note): ok, above_book, could_not_price (3× off the book), or None (nothing to compare)."""
    if unit_usd is None or book_unit_usd is None or book_unit_usd <= 0 or unit_usd <= 0:
        return None, ""
    ratio = unit_usd / book_unit_usd
    if ratio > MAX_BOOK_RATIO or ratio < 1 / MAX_BOOK_RATIO:
        return "could_not_price", (
            f"could not price: {ratio:.2f}× the book's {usd_exact(book_unit_usd)} for {what}; check the classification"
        )
    return ("above_book" if ratio > 1 + tolerance else "ok"), ""


def with_price_check(line: QuoteLine, tolerance: float) -> QuoteLine:
    """The line with ``price_check`` set: ok, above_book, could_not_price, or None (nothing to compare)."""
    if line.derived:
        return replace(line, price_check=None)
    check, note = price_check_of(
        line.effective_unit_usd, line.book_unit_price_usd, tolerance, line.price_key or line.component or "the line"
    )
    return replace(line, price_check=check, note=note or line.note)


# --- parts of server lines ------------------------------------------------------------------------------------------


def system_parts(line: QuoteLine, covered: set[str], rules: Sequence[Rule], book: PriceBook) -> list[QuoteLine]:
    """The components a server line's description lists, as derived lines for the whole order.

    ``covered`` are components the server's own sub-items already give (Dell style): those are not read twice.
    """
    config = line.system
    if config is None or line.cluster_quantity <= 0:
        return []
    servers = line.cluster_quantity * config.servers_per_unit
    parts = list(config.parts)
    if not any(p.identity.component == "gpu_baseboard" for p in parts):
        board = board_identity(config.gpu_model, rules)
        if board is not None:
            parts.insert(0, SystemPart(board.price_key or "", board, 1.0))
    out = []
    for part in parts:
        comp = part.identity.component
        if comp is None or comp in covered or comp not in NODE_PARTS:
            continue
        out.append(_derived(line, part, servers, book))
    return out


def _derived(line: QuoteLine, part: SystemPart, servers: float, book: PriceBook) -> QuoteLine:
    ident = part.identity
    qty = part.count * servers
    text = normalise(part.text)
    book_unit, ratio, note = _book_unit(ident, text, book)
    gb = 0.0
    if ident.component == "ram":
        gb = (part.ram_gb or float(DIMM_GB) * part.count) * servers
        ratio = gb / DIMM_GB / qty if qty else 1.0
        book_unit = book.price(ident.price_key) * ratio if ident.price_key else None
    return QuoteLine(
        id=line.id,
        sheet=line.sheet,
        row=line.row,
        section=line.section,
        part_number="",
        description=_LEAD_COUNT.sub("", part.text),
        quantity=part.count,
        unit_price_usd=None,
        extended_usd=None,
        quantity_assumed=False,
        cluster_quantity=qty,
        total_usd=0.0,
        component=ident.component,
        category=ident.category,
        price_key=ident.price_key,
        rule_findings=ident.findings,
        recommended_key=ident.recommended_key,
        book_unit_price_usd=book_unit,
        book_quantity=qty * ratio,
        status="classified",
        confidence=min(ident.confidence, line.confidence),
        basis="system",
        quantity_basis="per_parent",
        gpu_model=line.gpu_model if ident.component == "gpu_baseboard" else None,
        cpu_vendor=line.cpu_vendor if ident.component == "cpu" else None,
        ram_gb=gb,
        derived=True,
        parent_id=line.id,
        note=note,
    )

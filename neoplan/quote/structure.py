"""Structure of a quote sheet: the header row and its column roles, item rows, sub-items, totals, tax, sections.

A sheet's table starts at the best header row (one row, or two when a PDF export splits the names, e.g.
``Part`` / ``Number``) among the first :data:`HEADER_SCAN_ROWS`; its columns get roles by name (part number,
description, quantity, quantity per server, total quantity, nodes, list price, discount, net price, extended,
category, manufacturer, line number). Below it every row is an item, a configuration sub-item (an unpriced or
indented line under a priced system line: its quantity is per system), a description wrapped onto the next row, a
section title, a note, a subtotal / total or a tax line. Rows above the table and notes below it are read for what
they state: the server count ("Configuration quantity: 16 nodes"), a per-server price basis ("all prices per
node") and the currency ("All prices in EUR").
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from .cells import (
    _CURRENCY_WORDS,
    DEEP_HEADER_SCAN_ROWS,
    HEADER_SCAN_ROWS,
    MAX_CELL_CHARS,
    MAX_COLUMNS,
    Cell,
    QuoteError,
    _text,
    currency_of,
    number_style,
    parse_money,
    parse_percent,
    parse_quantity,
    quantity_unit,
)
from .codes import MISMATCH_SHARE

ROLES = (
    "line",
    "part",
    "manufacturer",
    "description",
    "category",
    "quantity",
    "qty_per_server",
    "qty_total",
    "nodes",
    "list",
    "discount",
    "unit",
    "extended",
    "ext_list",
    "currency",
)
_PRICE_ROLES = ("unit", "list", "extended", "ext_list")
_MAX_DESCRIPTION_CHARS = 4 * MAX_CELL_CHARS  # a description wrapped over several rows
_QUANTITY_ROLES = ("quantity", "qty_per_server", "qty_total")


def _names(text: str) -> set[str]:
    return {n.strip() for n in text.split("|") if n.strip()}


# header name (see _header_name) -> (role, score); a name may suit several roles (``item``: description or line)
_EXACT: dict[str, list[tuple[str, int]]] = {}
for _role, _score, _list in (
    ("part", 3, "part|part number|part no|part #|part num|part nr|pn|p n|p/n|sku|sku #|mfr part|mfr part #|"
     "mfr part no|mfr part number|mfr #|mfg part|mfg part #|mfg part no|mfg part number|manufacturer part|"
     "manufacturer part #|manufacturer part no|manufacturer part number|mpn|product code|product number|product no|"
     "product #|product id|catalog number|catalogue number|model number|model no|material|material number|"
     "vendor part|vendor part #|part id|feature code|feature|fc|artikelnummer|artikel nr|art nr|artikelnr|"
     "onderdeelnummer|reference|ref|oem part|order code|ordering code|option|part number sku"),
    ("part", 2, "item number|item no|item #|model|code|number"),
    ("line", 3, "line|ln|line #|line no|line number|#|no|nr|pos|position|line item|seq|lfd nr|item line|lp|n"),
    ("line", 1, "item number|item no|item #|item"),
    ("description", 3, "description|desc|item description|product description|line description|"
     "description of goods|beschreibung|bezeichnung|omschrijving|designation|descripcion|artikelbezeichnung|"
     "product name|item name|details|item details|product details|nazwa|nazwa towaru|opis|benaming|"
     "descrizione|beskrivning"),
    ("description", 1, "item|product|name|component|configuration|article|artikel|produit|producto"),
    ("category", 3, "category|module|product category|item category|type"),
    ("category", 1, "group|class|commodity|section"),
    ("manufacturer", 3, "manufacturer|mfr|mfg|vendor|brand|make|hersteller|oem"),
    ("quantity", 3, "qty|quantity|qty ordered|units|count|quant|qnty|no of units|ordered|menge|anzahl|aantal|"
     "quantite|cantidad|pcs|qte|quantity ordered|qty each|quantita|qta|q ta|ilosc|antal|stuks|aantal stuks"),
    ("qty_per_server", 3, "qty/server|qty per server|qty/node|qty per node|qty/system|qty per system|per server|"
     "per node|per system|qty/srv|quantity per server|quantity per node|quantity per system|units per server|"
     "qty per chassis|qty/chassis|quantity/server|quantity/node|qty/unit|qty per unit"),
    ("qty_total", 3, "total qty|total quantity|ext qty|extended qty|extended quantity|total units|qty total|"
     "total count|order qty|order quantity|cluster qty|total qty ordered"),
    ("nodes", 3, "nodes|node count|no of nodes|# nodes|# of nodes|number of nodes|servers|server count|"
     "no of servers|# servers|# of servers|number of servers|systems|# systems|# of systems|number of systems|"
     "node qty|system qty|server qty|qty of nodes|qty of servers|qty of systems"),
    ("list", 3, "list price|unit list price|list|msrp|list each|unit list|list unit price|list price each|"
     "listprice|listenpreis|list price per unit"),
    ("discount", 3, "disc %|disc|discount|discount %|% disc|% discount|disc pct|discount pct|rabatt|korting|"
     "remise|disc percent|discount percent|% off|off list"),
    ("unit", 3, "unit price|price|unit cost|price each|each|unit net price|net unit price|unit sell price|"
     "sell price|sell|unit sell|price per unit|net price|net each|your price|discounted price|special price|"
     "cost|rate|einzelpreis|stuckpreis|preis|stuksprijs|prijs|prix unitaire|prix|precio unitario|unit net|net|ep|"
     "net price each|sale price|offer price|bid price|unit price net|price/unit|prezzo|prezzo unitario|"
     "cena|cena netto|cena jednostkowa|a prijs|stuksprijs excl|prix unitaire ht|pu ht|p u|pris"),
    ("unit", 2, "unit"),
    ("extended", 3, "extended price|ext price|extended|total|total price|line total|amount|ext|"
     "extended net price|ext net price|total net price|net amount|ext amount|extended cost|total cost|line amount|"
     "ext sell|extended sell|net extended|extended net|subtotal|sub total|total net|net total|line value|value|"
     "gesamtpreis|gesamt|betrag|totaal|totaalprijs|montant|total ht|importe|summe|extended amount|ext net|"
     "extended sell price|total sell|ext sell price|total value|line price|totale|importo|valore|wartosc|"
     "wartosc netto|montant ht|total ht|belopp|bedrag|totaalbedrag"),
    ("currency", 3, "currency|curr|cur|ccy|waluta|wahrung|devise|valuta|moneda|currency code"),
    ("part", 2, "index|indeks|symbol|kod|code no|codice|codice articolo|artikelcode|code article|ref article"),
    ("ext_list", 3, "extended list|ext list|total list|extended list price|ext list price|list extended|"
     "total list price"),
):  # fmt: skip
    for _name in _names(_list):
        _EXACT.setdefault(_name, []).append((_role, _score))

_QUANTITY_NAMES = frozenset(  # header spellings of quantity columns
    n for n, pairs in _EXACT.items() if any(r in ("quantity", "qty_per_server", "qty_total") for r, _ in pairs)
)
_FUZZY_QTY = re.compile(r"\b(qty|quantity|quantities|quantit|menge|anzahl|aantal|pcs)\b|quantit")
_FUZZY_PER = re.compile(r"\bper\b|/|\beach\b|\bnode\b|\bserver\b|\bsystem\b|\bchassis\b")
_FUZZY_TOTAL = re.compile(r"\btotal\b|\bext\b|extend|overall|\border\b|cluster")
_FUZZY_LIST = re.compile(r"\blist\b|msrp")
_FUZZY_EXT = re.compile(r"extend|\btotal\b|amount|\bext\b|betrag|gesamt|totaal|montant|subtotal|\bvalue\b")
_FUZZY_UNIT = re.compile(r"price|cost|preis|prijs|prix|\bsell\b|\beach\b|\brate\b")
_FUZZY_OTHER = (
    ("discount", re.compile(r"\bdisc\b|discount|rabatt|korting|remise")),
    ("nodes", re.compile(r"^(# |no |number |count |qty )?(of )?(gpu )?(nodes|servers|systems)( count| qty)?$")),
    ("part", re.compile(r"\bpart\b|\bsku\b|\bp ?n\b|artikel ?n|feature code|\bmpn\b")),
    ("description", re.compile(r"descr|beschreib|bezeichn|omschrijv|designation")),
    ("manufacturer", re.compile(r"manufacturer|\bmfr\b|\bmfg\b|\bvendor\b|\bbrand\b|hersteller")),
)
_TOTAL_ANYWHERE = re.compile(
    r"\b(sub[\s-]?total|grand[\s-]?total|subtotaal|zwischensumme|gesamtsumme|gesamtbetrag|endsumme|sous[\s-]total|"
    r"total\s+g[ée]n[ée]ral|eindtotaal)\b",
    re.IGNORECASE,
)
_TOTAL_EDGE = re.compile(
    r"^\s*(quote\s+|net\s+|section\s+|order\s+|group\s+\d+\s+|estimated\s+)?(total|totaal|totale|summe|gesamt|somme|"
    r"montant\s+total|sum)\b|\b(total|summe|totaal)\s*[:(]?\s*(\(?usd\)?|\$|€|£|eur|gbp)?\s*\)?\s*:?\s*$",
    re.IGNORECASE,
)
_GRAND = re.compile(
    r"^\s*(grand[\s-]?total|(quote|net|order|overall|final)\s+total|total(\s*$|\s*[:(,]|\s+(usd|eur|gbp|chf|net|"
    r"gross|excl?|incl?|amount|price|value|quote|order|per|for|due|budgetary|budget|\$|€|£)))",
    re.IGNORECASE,
)  # the quote's own total (not a section's "Total compute"): amounts without a quantity below it are not items
_GROSS_TOTAL = re.compile(r"\b(incl?\.?|including|inkl\.?|inc\.?|with|plus)\s*(vat|tax|mwst|btw|tva|iva|gst|ust)",
                          re.IGNORECASE)  # fmt: skip
_TAX = re.compile(
    r"^\s*(plus\s+|add\s+|\+\s*|estimated\s+|zzgl\.?\s*|zuz[üu]gl(ich|\.)?\s*|hinzu\s+|dazu\s+|"
    r"\d{1,2}(?:[.,]\d{1,2})?\s*%\s*)?(\d{1,2}(?:[.,]\d{1,2})?\s*%\s*)?(sales\s+|state\s+|local\s+|use\s+|"
    r"gesetzl(iche|\.)?\s+)?(tax(es)?|vat|gst|hst|pst|mwst|ust|umsatzsteuer|mehrwertsteuer|tva|iva|btw|moms|igv)\b",
    re.IGNORECASE,
)
_NOTE = re.compile(
    r"^\s*(\*|notes?\b|nb\b|n\.b\.|terms\b|payment|prices?\b|pricing\b|lead\s*time|valid|quote\s+valid|freight\s*:|"
    r"shipping\s*:|tax(es)?\s*:|e\s*&\s*oe|page\s+\d|all\s+prices|subject\s+to|synthetic|excludes?\b|includes?\b|"
    r"disclaimer|warranty\s*:|delivery\s*:|remarks?\b|comments?\b|quotation\s+valid)",
    re.IGNORECASE,
)
_BULLET_START = frozenset("-•·–—>*")
_BULLET = re.compile(r"^[\s\u00a0]*([-•·–—>*]+\s+|[•·–—>]+)?")
_SYSTEM_MODEL = re.compile(
    r"\b(superserver|poweredge|xe\d{4}\w*|sys-\w+|as\s?-\s?\w{4}\S*|thinksystem|sr\d{3}\w*|cray|xd\d{3}\w*|"
    r"g\d{3}-\w+|esc\s?n\d\w*|hgx|dgx)\b",
    re.IGNORECASE,
)
_SYSTEM_WORD = re.compile(r"\b(servers?|system|nodes?|chassis|barebone|cto|gpu\s+node)\b", re.IGNORECASE)
_SERVICE = re.compile(
    r"\bper\s+(gpu\s+)?(server|node|system)\b|warrant|support|servic|deploy|install|integrat|licen[cs]|subscri|"
    r"training|freight|shipping|rack\s+and\s+stack|burn-?in",
    re.IGNORECASE,
)
_CONTINUES_END = re.compile(r"([,;:/&+(\-–]|\b(with|and|or|for|incl\.?|including|w/|x|of|in|to|per|the|a))\s*$",
                            re.IGNORECASE)  # fmt: skip
_CONNECTORS = {"and", "of", "for", "per", "the", "&", "-", "–", "/", "a", "to", "in", "on"}
# statements above / below the table
_SERVERS_STRONG = (
    re.compile(r"\b(?:configuration|order|system|server|node|cluster|build)\s+(?:quantity|qty|count|size)\s*[:=]?\s*"
               r"(\d[\d,.]*)"),
    re.compile(r"\b(?:number|no\.?|#|qty|quantity|count)\s+of\s+(?:gpu\s+|hgx\s+|compute\s+)?(?:servers|nodes|systems)"
               r"\s*[:=]?\s*(\d[\d,.]*)"),
    re.compile(r"(?:^|\s)(?:gpu\s+|compute\s+)?(?:nodes|servers|systems|node\s+count|server\s+count)\s*[:=]\s*"
               r"(\d[\d,.]*)"),
)  # fmt: skip
_SERVERS_WEAK = re.compile(
    r"(?<![\w.,])(\d[\d,]*)\s*(?:x\s*|×\s*)?(?:[a-z0-9+-]+\s+){0,3}?(?:servers|nodes|systems)\b(?!\s*(?:of|per))"
)
_GPU_NODES = re.compile(r"gpu|hgx|dgx|h100|h200|b200|b300|gb200|compute|xe9680|sxm")
_OTHER_NODES = re.compile(r"management|mgmt|storage|login|head|control|service|cpu|infra|admin|spare")
_PER_SERVER = (
    re.compile(r"\b(?:prices?|pricing|priced|quotation|quote|quoted|budget|costs?)\b[^.;]{0,30}?\b"
               r"(?:per|for\s+one|for\s+a\s+single|for\s+1|for\s+each)\s+(?:gpu\s+|hgx\s+|compute\s+)?"
               r"(?:node|server|system)\b"),
    re.compile(r"\bquantities\s+(?:below\s+|shown\s+|listed\s+|in\s+this\s+quote\s+)?(?:are\s+)?"
               r"(?:per|for\s+one|for\s+a\s+single|for\s+each)\s+(?:gpu\s+)?(?:node|server|system)\b"),
    re.compile(r"^(?:total|sum|subtotal)\s+(?:price\s+)?per\s+(?:gpu\s+)?(?:node|server|system)\b"),
    re.compile(r"^(?:pricing\s+|prices\s+)?per[\s-](?:gpu\s+)?(?:node|server|system)$"),
)  # fmt: skip
_CURRENCY_STATEMENT = re.compile(
    r"currency|w[äa]hrung|devise|valuta|moneda|\bprices?\b|pricing|prijzen|preise|\bprix\b|amounts?\b|bedrag",
    re.IGNORECASE,
)


def _header_name(cell: Cell) -> str:
    """A header cell reduced to lowercase words: ``Unit Price (US$)`` → ``unit price``."""
    if not isinstance(cell, str) or len(cell) > 60:
        return ""
    s = cell.lower().replace("#", " # ")
    s = "".join(ch for ch in unicodedata.normalize("NFKD", s) if not unicodedata.combining(ch))  # é → e, ł stays
    s = _CURRENCY_WORDS.sub(" ", s)
    s = re.sub(r"[^a-z0-9#/% ]+", " ", s)
    return " ".join(s.split())


def _candidates(name: str) -> list[tuple[str, int]]:
    """(role, score) pairs a header name suits: 3 for a known name, 1–2 for a partial match."""
    if not name:
        return []
    if name in _EXACT:
        return _EXACT[name]
    if _FUZZY_QTY.search(name):
        if _FUZZY_PER.search(name) and not _FUZZY_TOTAL.search(name):
            return [("qty_per_server", 2)]
        if _FUZZY_TOTAL.search(name):
            return [("qty_total", 2)]
        return [("quantity", 1)]
    for role, pattern in _FUZZY_OTHER[:2]:
        if pattern.search(name):
            return [(role, 1)]
    listy = bool(_FUZZY_LIST.search(name))
    if _FUZZY_EXT.search(name):
        return [("ext_list" if listy else "extended", 1 + (" net" in f" {name}"))]
    if _FUZZY_UNIT.search(name) or listy:
        return [("list" if listy else "unit", 1 + (" net" in f" {name}"))]
    for role, pattern in _FUZZY_OTHER[2:]:
        if pattern.search(name):
            return [(role, 1)]
    return []


def _assign(row: Sequence[Cell]) -> tuple[dict[str, int], int]:
    """(role → column, score) of a header row: each role and each column used once, best score first."""
    scored: list[tuple[int, int, int, str]] = []  # (-score, column, role order, role)
    for col, cell in enumerate(row[:MAX_COLUMNS]):
        for role, score in _candidates(_header_name(cell)):
            scored.append((-score, col, ROLES.index(role), role))
    roles: dict[str, int] = {}
    total = 0
    for neg, col, _order, role in sorted(scored):
        if role not in roles and col not in roles.values():
            roles[role] = col
            total -= neg
    return roles, total


def header_roles(row: Sequence[Cell]) -> dict[str, int]:
    """Column index of each role found in ``row`` (see :data:`ROLES`)."""
    return _assign(row)[0]


def _is_header(roles: Mapping[str, int]) -> bool:
    has_amount = any(r in roles for r in (*_PRICE_ROLES, *_QUANTITY_ROLES))
    return len(roles) >= 2 and ("description" in roles or "part" in roles) and has_amount


def _header_score(roles: Mapping[str, int], score: int | None = None) -> int:
    base = len(roles) if score is None else score
    return base + (2 if any(r in roles for r in _PRICE_ROLES) else 0)


@dataclass(frozen=True)
class Header:
    """A table's header: its first row index, how many rows it spans (1 or 2) and its column roles."""

    row: int
    span: int
    roles: Mapping[str, int]
    cells: tuple[str, ...]


def _names_only(row: Sequence[Cell]) -> bool:
    """True when a row could be the second line of a header: text names only, no numbers or amounts."""
    texts = [c for c in row if not (isinstance(c, str) and not c.strip())]
    if not texts or any(not isinstance(c, str) for c in texts):
        return False
    return all(len(c) <= 60 and parse_quantity(c) is None and parse_money(c) is None for c in texts)  # type: ignore[arg-type]


def find_table_header(rows: Sequence[Sequence[Cell]]) -> Header | None:
    """The header of a sheet's first table, or None.

    Among the first HEADER_SCAN_ROWS rows any header counts, below them (under a cover letter, up to
    DEEP_HEADER_SCAN_ROWS) only a full one (description or part, quantity and price columns, four roles or more).
    The best-scoring header wins, unless a full header comes before it (the sheet's first table; the later one
    is read as the header of another table). A 2-row header wins when its merged names say more.
    """
    best: tuple[tuple[int, int], Header] | None = None
    first_full: tuple[tuple[int, int], Header] | None = None
    scan = rows[: DEEP_HEADER_SCAN_ROWS + 1]
    for i, row in enumerate(scan[:DEEP_HEADER_SCAN_ROWS]):
        if not any(isinstance(c, str) and c.strip() for c in row):
            continue
        options = [(row, 1)]
        if i + 1 < len(scan) and _names_only(scan[i + 1]) and _names_only(row):
            below = scan[i + 1]
            width = max(len(row), len(below))
            merged: list[Cell] = [
                " ".join(t for r in (row, below) if (t := _text(r[c]) if c < len(r) else "")) for c in range(width)
            ]
            options.append((merged, 2))
        here: tuple[tuple[int, int], Header] | None = None
        for cells, span in options:
            roles, score = _assign(cells)
            if not _is_header(roles) or (i >= HEADER_SCAN_ROWS and not _is_full_header(roles)):
                continue
            key = (_header_score(roles, score), -span)
            if here is None or key > here[0]:
                here = (key, Header(i, span, roles, tuple(_text(c) for c in cells)))
        if here is None:
            continue
        if best is None or here[0] > best[0]:
            best = here
        if first_full is None and _is_full_header(header_roles(row)):
            first_full = here
    if first_full is not None and best is not None and first_full[1].row < best[1].row:
        return first_full[1]
    return None if best is None else best[1]


def _is_full_header(roles: Mapping[str, int]) -> bool:
    return (
        len(roles) >= 4
        and any(r in roles for r in _QUANTITY_ROLES)
        and any(r in roles for r in _PRICE_ROLES)
        and ("description" in roles or "part" in roles)
    )


def header_quality(rows: Sequence[Sequence[Cell]]) -> int:
    """How well the best header of ``rows`` names a quote table (-1 when there is none)."""
    header = find_table_header(rows)
    return -1 if header is None else _header_score(header.roles, _assign(header.cells)[1])


def find_header(rows: Sequence[Sequence[Cell]]) -> tuple[int, dict[str, int]] | None:
    """(row index, roles) of the best header in the first HEADER_SCAN_ROWS rows, or None."""
    header = find_table_header(rows)
    return None if header is None else (header.row, dict(header.roles))


# --- reading --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RawLine:
    """One item row as read from the file; quantities and prices as quoted [units, the quote's currency].

    ``quantity_basis`` says what ``quantity`` counts: ``"total"`` (the whole order), ``"per_server"`` (a
    Qty/Server column or a quote that prices one server) or ``"per_parent"`` (a configuration sub-item under the
    priced system line at ``parent_row``, Dell style). ``unit_price`` is the net price where the quote has
    list / discount / net columns (``list_price`` [currency], ``discount`` [fraction] as quoted); ``extended`` is
    as the file states it (for ``total_quantity`` where the quote has such a column). ``row`` is the file's own
    1-based row (CSV line) number. ``indent`` counts leading spaces or bullet characters of the description,
    ``category`` is the quote's own category column (ODM BoMs), ``quantity_unit`` the unit the quantity cell
    names ("lot" for ``1 lot``, "set", "system"; "" for plain counts).
    """

    sheet: str
    row: int
    section: str
    part_number: str
    description: str
    quantity: float
    unit_price: float | None
    extended: float | None
    quantity_assumed: bool = False
    quantity_basis: str = "total"
    parent_row: int | None = None
    total_quantity: float | None = None
    list_price: float | None = None
    discount: float | None = None
    indent: int = 0
    category: str = ""
    quantity_unit: str = ""

    @property
    def unit_price_usd(self) -> float | None:
        """Deprecated alias of ``unit_price`` (in the quote's currency, USD only for a USD quote)."""
        return self.unit_price

    @property
    def extended_usd(self) -> float | None:
        """Deprecated alias of ``extended`` (in the quote's currency, USD only for a USD quote)."""
        return self.extended


@dataclass(frozen=True)
class ParsedQuote:
    """The lines of a quote file, with what was skipped and why.

    ``currency`` is the ISO 4217 code of the quote's prices ("USD" when nothing says otherwise);
    ``servers_stated`` the server count the quote states ("Configuration quantity: 16 nodes"), else None;
    ``per_server`` is True when the quote prices one server ("all prices per node", Qty/Server columns only);
    ``notes`` are the texts around the tables (title blocks, notes, section titles), for context.
    """

    name: str
    lines: tuple[RawLine, ...]
    skipped: Mapping[str, int]
    warnings: tuple[str, ...]
    sheets: tuple[str, ...]
    currency: str = "USD"
    servers_stated: int | None = None
    per_server: bool = False
    notes: tuple[str, ...] = ()


@dataclass
class _SheetResult:
    lines: list[RawLine] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    statements: list[str] = field(default_factory=list)
    totals: list[float] = field(default_factory=list)
    cell_currencies: Counter[str] = field(default_factory=Counter)
    header_currencies: Counter[str] = field(default_factory=Counter)
    nodes: Counter[int] = field(default_factory=Counter)
    ratios: Counter[float] = field(default_factory=Counter)
    per_server_columns: bool = False
    sheet: str = ""
    has_quantity: bool = True


def _row_text(row: Sequence[Cell]) -> str:
    return " ".join(t for t in (_text(c) for c in row) if t)


def _parse_sheets(sheets: Sequence[tuple[str, list[list[Cell]]]], label: str, notes: Sequence[str] = ()) -> ParsedQuote:
    """Every sheet's table read into lines; the quote's currency, stated server count and price basis."""
    lines: list[RawLine] = []
    skipped: Counter[str] = Counter()
    warnings: list[str] = list(notes)
    no_price: list[str] = []
    found: list[str] = []
    results: list[tuple[str, str, _SheetResult]] = []
    global_statements: list[str] = []
    for sheet, rows in sheets:
        header = find_table_header(rows)
        where = f"{label}, sheet {sheet!r}" if sheet else label
        if header is None:
            skipped["sheet without a quote table"] += 1 if sheet else 0
            global_statements += [t for t in map(_row_text, rows[:200]) if t]
            continue
        if not any(r in header.roles for r in _PRICE_ROLES):
            no_price.append(where)
            continue
        found.append(sheet)
        result = _parse_table(rows, header, sheet, where)
        results.append((sheet, where, result))
    summaries = [r for r in results if _is_summary(r[2], [o[2] for o in results if o is not r])]
    for summary in summaries if len(summaries) < len(results) else []:
        results.remove(summary)
        found.remove(summary[0])
        skipped["summary sheet"] += 1
        global_statements += summary[2].statements
    for _sheet, _where, result in results:
        skipped.update(result.skipped)
        warnings += result.warnings
    if not found:
        if no_price:
            raise QuoteError(f"{no_price[0]}: no price column (unit price or extended price) in the header row")
        raise QuoteError(
            f"{label}: no header row (description or part number, quantity, price) in the first "
            f"{HEADER_SCAN_ROWS} rows{' of any sheet' if len(sheets) > 1 else ''}"
        )
    all_statements = global_statements + [s for _, _, r in results for s in r.statements]
    servers = _servers_stated(all_statements, [r for _, _, r in results])
    global_per_server = _says_per_server(global_statements)
    per_server = False
    for _sheet, where, result in results:
        sheet_per_server = global_per_server or _says_per_server(result.statements)
        if sheet_per_server:
            result.lines[:] = [
                replace(ln, quantity_basis="per_server") if ln.quantity_basis == "total" else ln for ln in result.lines
            ]
        per_server = per_server or sheet_per_server or result.per_server_columns
        lines += result.lines
        _check_totals(result, lines, servers, where, warnings)
    if not any(ln.unit_price is not None or ln.extended is not None for ln in lines):
        raise QuoteError(f"{label}: the quote table has no priced lines")
    currency = _currency(label, [r for _, _, r in results], all_statements, warnings)
    return ParsedQuote(
        name=label,
        lines=tuple(lines),
        skipped=dict(skipped),
        warnings=tuple(warnings),
        sheets=tuple(found),
        currency=currency,
        servers_stated=servers,
        per_server=per_server,
        notes=tuple(s[:200] for s in all_statements[:100]),
    )


def _is_summary(result: _SheetResult, others: Sequence[_SheetResult]) -> bool:
    """True for a summary sheet: no quantity column, and every line names another sheet or carries its total."""
    if result.has_quantity or not result.lines or not others:
        return False
    names = [re.compile(rf"\b{re.escape(o.sheet.lower())}\b") for o in others if o.sheet.strip()]
    totals = [t for o in others for t in (sum(map(_line_total, o.lines)), *o.totals)]

    def accounted(line: RawLine) -> bool:
        text = f"{line.part_number} {line.description} {line.section}".lower()
        return any(n.search(text) for n in names) or any(_close(_line_total(line), t) for t in totals if t)

    return all(map(accounted, result.lines))


def _check_totals(
    result: _SheetResult, lines: Sequence[RawLine], servers: int | None, where: str, warnings: list[str]
) -> None:
    """Warn when none of the sheet's stated totals equals the sum of its lines (or of all lines so far)."""
    if not result.totals:
        return
    sums = (sum(map(_line_total, result.lines)), sum(map(_line_total, lines)))
    factors = (1, servers) if servers else (1,)
    if any(_close(t, s * k) for t in result.totals for s in sums for k in factors):
        return
    stated = max(result.totals, key=abs)
    warnings.append(f"{where}: the quote's total ({stated:,.2f}) differs from the sum of its lines ({sums[0]:,.2f})")


def _servers_stated(statements: Sequence[str], results: Sequence[_SheetResult]) -> int | None:
    """The server count the quote states: a sentence, else a Nodes column, else Total Qty ÷ Qty/Server."""
    weak: list[tuple[bool, int]] = []  # (names GPU servers, count) of sentences such as "64 HGX H100 servers"
    for text in statements:
        low = text.lower()
        for pattern in _SERVERS_STRONG:
            for m in pattern.finditer(low):
                n = _count(m.group(1))
                if n:
                    return n
        for m in _SERVERS_WEAK.finditer(low):
            n = _count(m.group(1))
            if n and not _OTHER_NODES.search(m.group(0)):
                weak.append((bool(_GPU_NODES.search(m.group(0))), n))
    if weak:
        gpu = [n for named, n in weak if named]
        return gpu[0] if gpu else max(n for _, n in weak)
    nodes: Counter[int] = Counter()
    ratios: Counter[float] = Counter()
    for r in results:
        nodes.update(r.nodes)
        ratios.update(r.ratios)
    if nodes:
        return nodes.most_common(1)[0][0]
    if ratios:
        ratio, hits = ratios.most_common(1)[0]
        if hits >= 0.6 * sum(ratios.values()) and ratio.is_integer() and 1 <= ratio <= 100_000:
            return int(ratio)
    return None


def _count(text: str) -> int | None:
    """A server count written in a sentence (``1,024``, ``16``); None unless a whole number 1–100,000."""
    text = text.rstrip(".,")
    if not re.fullmatch(r"\d{1,3}(,\d{3})+|\d+(\.0+)?", text):
        return None
    n = float(text.replace(",", ""))
    return int(n) if n.is_integer() and 1 <= n <= 100_000 else None


def _says_per_server(statements: Sequence[str]) -> bool:
    return any(p.search(s.lower()) for s in statements for p in _PER_SERVER)


def _currency(label: str, results: Sequence[_SheetResult], statements: Sequence[str], warnings: list[str]) -> str:
    """The quote's ISO currency: from its price cells, else its price headers, else a statement, else USD."""
    cells: Counter[str] = Counter()
    headers: Counter[str] = Counter()
    for r in results:
        cells.update(r.cell_currencies)
        headers.update(r.header_currencies)
    said = [c for c in (currency_of(s) for s in statements if _CURRENCY_STATEMENT.search(s)) if c]
    for source in (cells, headers):
        if len(source) > 1:
            names = " and ".join(sorted(source))
            raise QuoteError(f"{label}: prices are in several currencies ({names}); ask for the quote in one currency")
    found = next(iter(cells), None) or next(iter(headers), None)
    if found is None:
        return said[0] if said else "USD"
    if said and said[0] != found:
        warnings.append(f"{label}: the quote says its prices are in {said[0]}, but its prices are marked {found}")
    return found


def _cell(row: Sequence[Cell], roles: Mapping[str, int], role: str) -> Cell:
    col = roles.get(role)
    return row[col] if col is not None and col < len(row) else ""


def _at(texts: Sequence[str], roles: Mapping[str, int], role: str) -> str:
    """The text of a row's ``role`` cell ("" when the role or the cell is missing)."""
    col = roles.get(role)
    return texts[col] if col is not None and col < len(texts) else ""


def _blank(cell: Cell) -> bool:
    """An empty price cell (or a dash): the sign of a configuration sub-item."""
    return isinstance(cell, str) and cell.strip() in ("", "-", "–", "—", "--")


def _indent(cell: Cell) -> int:
    """Leading spaces / bullet of a text cell (0 when none)."""
    if not isinstance(cell, str):
        return 0
    m = _BULLET.match(cell)
    return len(m.group(0)) if m else 0


def _strip_bullet(text: str) -> str:
    return _BULLET.sub("", text, count=1).strip() or text


def _heading_like(text: str) -> bool:
    """A section title: a few capitalised words without digits (``Networking``, ``GPU SERVER - per node``)."""
    words = text.replace("&", " & ").split()
    if not words or len(words) > 7 or re.search(r"\d", text):
        return False
    if text.isupper() or text.rstrip().endswith(":"):
        return True
    return all(not w[0].isalpha() or w[0].isupper() or w.lower() in _CONNECTORS for w in words)


def _continues(prev: RawLine | None, row: Sequence[Cell], roles: Mapping[str, int], text: str) -> bool:
    """True when a text-only row in the description column carries on the description of the line above it.

    Signs: it starts in lower case, with a digit or a joining character; the line above ends with a comma, a
    joining word or an open bracket; or it is a comma-separated list of specifications rather than a title. A
    title without those signs ("Front-end Ethernet (2x200GbE per server)") starts a section instead.
    """
    col = roles.get("description")
    if prev is None or col is None:
        return False
    filled = [i for i, c in enumerate(row) if _text(c)]
    if filled != [col] or _NOTE.match(text) or _TAX.match(text):
        return False
    if text[0].islower() or text[0].isdigit() or text[0] in "(,;:&+/-–":
        return True
    before = prev.description
    if _CONTINUES_END.search(before) or before.count("(") > before.count(")"):
        return True
    spec = re.search(r"\d|\b[A-Z][A-Z0-9]+\b", text)  # a model number or an acronym: NDR, P2C, Gen5
    return "," in text and bool(spec) and not _heading_like(text)


def _decimal_mark(rows: Sequence[Sequence[Cell]], start: int, roles: Mapping[str, int]) -> str:
    """``","`` when the table's amounts are written with a decimal comma (1.234,56), else ``"."``."""
    cols = [roles[r] for r in (*_PRICE_ROLES, *_QUANTITY_ROLES, "nodes") if r in roles]
    votes: Counter[str] = Counter()
    for row in rows[start : start + 2_000]:
        for c in cols:
            cell = row[c] if c < len(row) else 0.0
            if isinstance(cell, str):
                style = number_style(cell)
                if style:
                    votes[style] += 1
    return "," if votes[","] > votes["."] else "."


def _percent_scale(rows: Sequence[Sequence[Cell]], start: int, roles: Mapping[str, int]) -> float:
    """Divisor of the discount column: 100 when it holds percents (57, 57%), 1 when fractions (0.57)."""
    col = roles.get("discount")
    if col is None:
        return 1.0
    values = [parse_percent(row[col]) for row in rows[start:] if col < len(row)]
    return 100.0 if any(v is not None and (v[1] or v[0] > 1) for v in values) else 1.0


@dataclass
class _Parent:
    """The priced line configuration sub-items may belong to."""

    row: int
    part: str
    description: str
    number: str = ""  # its item number (1, 2, …) when the quote numbers lines; sub-items are 1.1, 1.2, …

    @cached_property
    def system(self) -> bool:
        """True when the line names a server (see :func:`_is_system`)."""
        return _is_system(self.part, self.description)


@dataclass(frozen=True)
class _Columns:
    """What a table's header says about its columns."""

    roles: Mapping[str, int]
    decimal: str  # "." or ","
    scale: float  # divisor of the discount column
    qty_col: int | None
    total_col: int | None
    has_per_server: bool
    per_server_only: bool  # a Qty/Server column and no total or node count: the table prices one server
    explicit: bool  # the columns say what each quantity counts: no configuration sub-items
    header_texts: tuple[tuple[str, ...], ...]

    @cached_property
    def header_firsts(self) -> frozenset[str]:
        """First cells of the header rows (a quick test for a repeated header)."""
        return frozenset(h[0] if h else "" for h in self.header_texts)


def _columns(rows: Sequence[Sequence[Cell]], header: Header) -> _Columns:
    start = header.row + header.span
    roles = _money_columns(rows, start, header.roles)
    has_per_server = "qty_per_server" in roles
    total_col = roles.get("qty_total", roles.get("quantity") if has_per_server else None)
    return _Columns(
        roles=roles,
        decimal=_decimal_mark(rows, start, roles),
        scale=_percent_scale(rows, start, roles),
        qty_col=roles.get("qty_per_server") if has_per_server else roles.get("quantity"),
        total_col=total_col,
        has_per_server=has_per_server,
        per_server_only=has_per_server and total_col is None and "nodes" not in roles,
        explicit=has_per_server or "nodes" in roles,
        header_texts=tuple(tuple(_text(c) for c in r) for r in rows[header.row : start]),
    )


def _money_columns(rows: Sequence[Sequence[Cell]], start: int, roles: Mapping[str, int]) -> dict[str, int]:
    """``roles`` without price columns that hold no amount but words (a "Unit" column of ``pcs``, ``ea``)."""
    out = dict(roles)
    for role in _PRICE_ROLES:
        col = roles.get(role)
        if col is None:
            continue
        cells = [row[col] for row in rows[start : start + 200] if col < len(row) and _text(row[col])]
        if cells and not any(isinstance(c, float) or parse_money(c) is not None for c in cells):
            del out[role]
    return out


def _header_currencies(header: Header, out: _SheetResult) -> None:
    for role in ("unit", "list", "extended", "ext_list"):
        col = header.roles.get(role)
        code = currency_of(header.cells[col]) if col is not None and col < len(header.cells) else None
        if code:
            out.header_currencies[code] += 1


def _new_header(row: Sequence[Cell], i: int, current: Mapping[str, int]) -> Header | None:
    """A full header row inside a table (a second table below the first, other columns), else None."""
    if not any(isinstance(c, str) and c.strip().lower().rstrip(".:") in _QUANTITY_NAMES for c in row):
        return None
    roles, _score = _assign(row)
    if not _is_full_header(roles) or dict(roles) == dict(current):
        return None
    return Header(i, 1, roles, tuple(_text(c) for c in row))


def _parse_table(rows: Sequence[Sequence[Cell]], header: Header, sheet: str, where: str) -> _SheetResult:
    out = _SheetResult(sheet=sheet, has_quantity=any(r in header.roles for r in _QUANTITY_ROLES))
    start = header.row + header.span
    cols = _columns(rows, header)
    roles = cols.roles
    out.statements += [t for t in map(_row_text, rows[: header.row]) if t]
    if sheet:
        out.statements.append(sheet)
    _header_currencies(header, out)
    section = ""
    parent: _Parent | None = None
    prev: int | None = None  # index in out.lines of the line on the row just above
    closed = False  # a grand total was seen: amounts without a quantity below it are not items
    zero_runs: dict[int, list[int]] = {}  # system line's row -> indexes of the 0-priced lines right below it
    not_per_server = 0  # lines read under a header that does not price one server
    for i in range(start, len(rows)):
        row = rows[i]
        line_no = i + 1
        decimal = cols.decimal
        texts = [_text(c) for c in row]
        if not any(texts):
            out.skipped["blank"] += 1
            parent, prev = None, None
            continue
        if texts[0] in cols.header_firsts and any(
            texts == list(h[: len(texts)]) + [""] * (len(texts) - len(h)) for h in cols.header_texts
        ):
            out.skipped["repeated header"] += 1
            parent, prev = None, None
            continue
        raw_desc, raw_part = _cell(row, roles, "description"), _cell(row, roles, "part")
        part, desc = _at(texts, roles, "part"), _at(texts, roles, "description")
        if desc[:1] in _BULLET_START:
            desc = _strip_bullet(desc)
        label = desc or part or next((t for t in texts if t and not _is_number_text(t)), "")
        qty_cell = row[cols.qty_col] if cols.qty_col is not None and cols.qty_col < len(row) else ""
        qty = parse_quantity(qty_cell, decimal)
        total_qty = (
            parse_quantity(row[cols.total_col], decimal)
            if cols.total_col is not None and cols.total_col < len(row)
            else None
        )
        nodes = parse_quantity(_cell(row, roles, "nodes"), decimal)
        unit_cell, ext_cell = _cell(row, roles, "unit"), _cell(row, roles, "extended")
        currency_cell = _cell(row, roles, "currency")
        list_cell, ext_list_cell = _cell(row, roles, "list"), _cell(row, roles, "ext_list")
        unit, ext = parse_money(unit_cell, decimal=decimal), parse_money(ext_cell, decimal=decimal)
        list_price, ext_list = parse_money(list_cell, decimal=decimal), parse_money(ext_list_cell, decimal=decimal)
        disc_raw = parse_percent(_cell(row, roles, "discount")) if "discount" in roles else None
        discount = None if disc_raw is None else (disc_raw[0] / (100.0 if disc_raw[1] else cols.scale))
        if label.startswith("#"):
            out.skipped["comment"] += 1
            continue
        amounts = [v for v in (unit, ext, list_price, ext_list) if v is not None]
        if _is_total(label, qty if qty is not None else total_qty, part):
            closed = closed or _GRAND.search(label) is not None
            out.skipped["subtotal or total"] += 1
            out.statements.append(label)
            if amounts and not _GROSS_TOTAL.search(label):
                out.totals.append(next(v for v in (ext, unit, ext_list, list_price) if v is not None))
            parent, prev = None, None
            continue
        if _TAX.match(label) and qty is None:
            out.skipped["tax"] += 1
            parent, prev = None, None
            continue
        if not amounts and qty is None and total_qty is None:
            other = _new_header(row, i, roles)
            if other is not None:
                cols, roles = _columns(rows, other), other.roles
                _header_currencies(other, out)
                out.skipped["header of another table"] += 1
                parent, prev, closed = None, None, False
                continue
            if prev is not None and _continues(out.lines[prev], row, roles, label):
                line = out.lines[prev]
                out.lines[prev] = replace(line, description=f"{line.description} {label}"[:_MAX_DESCRIPTION_CHARS])
                out.skipped["continued description"] += 1
                continue
            out.skipped["section title or note"] += 1
            out.statements.append(_row_text(row))
            if not _NOTE.match(label) and len(label.split()) <= 12:
                section = label[:120]
            parent, prev = None, None
            continue
        if closed and qty is None and total_qty is None:
            out.skipped["below the total"] += 1  # "Estimated freight" / fees after the quote's total
            continue
        if not (part or desc):
            out.skipped["unlabelled amount"] += 1
            parent, prev = None, None
            continue
        for cell, value in ((unit_cell, unit), (ext_cell, ext), (list_cell, list_price)):
            if value is None and not _blank(cell) and isinstance(cell, str):
                out.warnings.append(f"{where} row {line_no}: price {_text(cell)[:20]!r} is not an amount; left blank")
        if unit is None and list_price is not None:
            unit = round(list_price * (1 - discount), 2) if discount is not None and 0 <= discount <= 1 else list_price
        if ext is None and ext_list is not None:
            ext = round(ext_list * (1 - discount), 2) if discount is not None and 0 <= discount <= 1 else ext_list
        for value, cell in ((unit, unit_cell), (ext, ext_cell), (list_price, list_cell), (1.0, currency_cell)):
            code = currency_of(cell) if isinstance(cell, str) and value is not None else None
            if code:
                out.cell_currencies[code] += 1
        indent = max(_indent(raw_desc), _indent(raw_part))
        prices_blank = _blank(unit_cell) and _blank(ext_cell) and _blank(list_cell) and _blank(ext_list_cell)
        zero = all(v == 0 for v in amounts)
        line_text = _item_number(_cell(row, roles, "line"))
        sub_item = (
            not cols.explicit
            and parent is not None
            and (
                (prices_blank and parent.system)
                or (indent > 0 and (prices_blank or zero))
                or ((prices_blank or zero) and bool(parent.number) and line_text.startswith(parent.number + "."))
            )
        )
        if not sub_item and zero and amounts and parent is not None and not cols.explicit and parent.system:
            zero_runs.setdefault(parent.row, []).append(len(out.lines))  # may be a run of modules priced at 0
        assumed = qty is None and total_qty is None
        if assumed and _text(qty_cell) and _text(qty_cell) != label:
            out.warnings.append(f"{where} row {line_no}: quantity {_text(qty_cell)[:20]!r} is not a number; taken as 1")
        basis = "total"
        total: float | None = None
        if sub_item:
            basis = "per_parent"
        elif cols.has_per_server and qty is not None:
            basis = "per_server"
            total = total_qty if total_qty is not None else (qty * nodes if nodes is not None else None)
            if total_qty is not None and qty > 0:
                out.ratios[round(total_qty / qty, 6)] += 1
        elif "nodes" in roles and qty is not None and nodes is not None:
            basis, total = "per_server", qty * nodes
        if nodes is not None and nodes.is_integer() and nodes >= 1 and basis == "per_server":
            out.nodes[int(nodes)] += 1
        quantity = qty if qty is not None else (total_qty if total_qty is not None else 1.0)
        out.lines.append(
            RawLine(
                sheet,
                line_no,
                section,
                part,
                desc,
                quantity,
                unit,
                ext,
                quantity_assumed=assumed,
                quantity_basis=basis,
                parent_row=parent.row if sub_item and parent is not None else None,
                total_quantity=total,
                list_price=list_price,
                discount=discount,
                indent=indent,
                category=_at(texts, roles, "category"),
                quantity_unit=quantity_unit(qty_cell),
            )
        )
        prev = len(out.lines) - 1
        not_per_server += 0 if cols.per_server_only else 1
        if not sub_item:
            priced = any(v for v in amounts)
            if priced:
                parent = _Parent(line_no, part, desc, line_text)
            elif not (zero and amounts and parent is not None and parent.system):
                parent = None
    for parent_row, indexes in zero_runs.items():
        if len(indexes) >= 2:  # several modules at 0 under a server line: its configuration (Dell, formulas)
            for k in indexes:
                out.lines[k] = replace(out.lines[k], quantity_basis="per_parent", parent_row=parent_row)
    out.per_server_columns = bool(out.lines) and not_per_server == 0
    return out


def _item_number(cell: Cell) -> str:
    """An item number as text without a trailing ``.0`` (``1.0`` → ``1``, ``1.2`` → ``1.2``); "" if none."""
    text = _text(cell)
    if not re.fullmatch(r"\d{1,4}(\.\d{1,3}){0,3}", text):
        return ""
    return text[:-2] if text.endswith(".0") else text


def _is_system(part: str, description: str) -> bool:
    """True when a priced line names a server (its unpriced lines below are its configuration), not a service:
    a server model not led by a service word ("ProDeploy for PowerEdge XE9680"), or "server"/"node" without one."""
    text = f"{part} {description}"
    service = _SERVICE.search(text)
    if _SYSTEM_MODEL.search(text):
        return service is None or service.start() > len(part) + 1 + min(len(description) // 2, 40)
    return bool(_SYSTEM_WORD.search(text)) and service is None


def _close(a: float, b: float) -> bool:
    """Equal within MISMATCH_SHARE or a unit of currency."""
    return abs(a - b) <= max(1.0, MISMATCH_SHARE * abs(a))


def _is_number_text(text: str) -> bool:
    return bool(re.fullmatch(r"[\s$€£¥()\-.,0-9%usdUSDEURGBP]*", text))


def _is_total(label: str, qty: float | None, part: str = "") -> bool:
    """A subtotal/total row: 'Subtotal', 'Grand total' anywhere, or 'Total …' / '… total' without a quantity or
    a part number."""
    low = label.lower()
    if not any(w in low for w in ("tot", "sum", "gesamt", "somme")):
        return False
    if _TOTAL_ANYWHERE.search(label):
        return True
    return (qty is None or not part) and bool(_TOTAL_EDGE.search(label))


def _line_total(line: RawLine) -> float:
    """What the quote charges for the line as quoted [the quote's currency]: extended, else quantity × unit."""
    if line.extended is not None:
        return line.extended
    if line.quantity_basis == "per_parent":
        return 0.0
    return line.quantity * (line.unit_price or 0.0)

"""Review a parsed quote: identify, convert, size the cluster, find the padding, compare with the design.

The order of work (:func:`review_quote`): pick the option (alternatives are reviewed one at a time, never
summed); apply the user's corrections and the vendor's aliases; identify each line (a negative line is a
discount, never an item); scale quantities to the order; read the cluster's size from independent readings and
reconcile them (:mod:`.size`); price the findings; withhold any finding that breaks an invariant (:mod:`.guard`);
compare with the recommended design.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from ..errors import ScenarioError
from ..formats import usd_exact
from ..inputs.loading import load_scenario
from ..inputs.pricebook import PriceBook, default_platforms, default_price_book, price_book
from ..inputs.scenario import Scenario
from ..model import Result, evaluate
from .cells import QuoteError, _finite
from .classify import UNMATCHED, CatalogueEntry, Identity, Rule, default_catalogue, default_rules, identity_of_rule
from .codes import DEFAULT_PRICE_TOLERANCE, DESIGN_CATEGORIES, DESIGN_FINDINGS
from .compare import ComparisonRow, compare
from .corrections import (
    IGNORE,
    Alias,
    Correction,
    apply_to_raw,
    class_of,
    identity_for,
    parse_aliases,
    parse_corrections,
)
from .findings import Finding, find_all
from .guard import Withheld, check, padding_saving_usd
from .lines import QuoteLine, identify_line, make_line, raw_money, system_parts, with_price_check
from .read import read_quote_file
from .size import (
    Conflict,
    Reading,
    cpu_reading,
    gpus_per_node,
    lines_reading,
    nic_reading,
    reconcile,
    stated_reading,
    tray_reading,
)
from .structure import ParsedQuote, RawLine
from .system import NODE_PARTS, SystemConfig, parse_system
from .units import per_server_count

MAX_SERVERS = 100_000
_GPUS_PER_SERVER_DEFAULT = 8


@dataclass(frozen=True)
class QuoteReview:
    """A reviewed quote: identified lines, findings, and the comparison with the recommended design."""

    name: str
    servers_quoted: int
    price_tolerance: float
    lines: tuple[QuoteLine, ...]
    findings: tuple[Finding, ...]
    comparison: tuple[ComparisonRow, ...]
    servers: int | None
    gpus: int | None
    gpu_model: str | None
    recommended: Scenario | None
    skipped: Mapping[str, int]
    warnings: tuple[str, ...]
    sheets: tuple[str, ...]
    currency: str = "USD"
    usd_per_unit: float = 1.0
    parts: tuple[QuoteLine, ...] = field(default=(), repr=False)
    """Lines the findings read: classified quote lines and the components read from server lines."""
    per_server: Mapping[str, Any] = field(default_factory=dict)
    servers_inferred: bool = True
    """True when the server count came from the quote, False when the user gave it."""
    option: str | None = None
    """The alternative reviewed (``Option A``), None when the quote offers one configuration."""
    options: tuple[str, ...] = ()
    """Every alternative the quote offers, in file order (reviewed one at a time: ``option=2``)."""
    withheld: tuple[Withheld, ...] = ()
    """Findings that would break an invariant (save more than their lines cost, rest on a discount …), with why."""
    conflicts: tuple[Conflict, ...] = ()
    """Readings of the cluster's size that disagree, the one taken and the sentence that says so."""
    readings: tuple[Reading, ...] = ()
    size_from: str = "lines"
    """The reading the size was taken from (``lines``, ``stated``, ``trays``, ``cpus``, ``nics``)."""
    ignored: tuple[QuoteLine, ...] = ()
    """Lines the user said are no lines (left out of the total, the size and the findings)."""

    @property
    def classified(self) -> list[QuoteLine]:
        """Lines identified surely enough to be used."""
        return [ln for ln in self.lines if ln.status == "classified"]

    @property
    def unsure(self) -> list[QuoteLine]:
        """Lines whose identity is below the confidence threshold (listed, never priced into a finding)."""
        return [ln for ln in self.lines if ln.status == "unsure"]

    @property
    def unmatched(self) -> list[QuoteLine]:
        """Lines nothing identified (listed, never dropped)."""
        return [ln for ln in self.lines if ln.status == "unmatched"]

    @property
    def could_not_price(self) -> list[QuoteLine]:
        """Lines whose price is more than 3× off the book's: check the classification."""
        return [ln for ln in self.lines if ln.price_check == "could_not_price"]

    @property
    def quote_total_usd(self) -> float:
        """Everything the quote charges, for the order [USD]."""
        return sum(ln.total_usd for ln in self.lines)

    @property
    def compared_quote_usd(self) -> float:
        """The part of the quote compared with the design: components the model prices, plus discounts [USD]."""
        return sum(r.quote_usd for r in self.comparison if r.in_scope)

    @property
    def recommended_total_usd(self) -> float | None:
        """The recommended design over the same components [USD]; None without a GPU count."""
        if self.recommended is None:
            return None
        return sum(r.recommended_usd for r in self.comparison if r.in_scope)

    @property
    def saving_usd(self) -> float | None:
        """Compared quote minus recommended design [USD]; None without a GPU count."""
        rec = self.recommended_total_usd
        return None if rec is None else self.compared_quote_usd - rec

    @property
    def findings_saving_usd(self) -> float:
        """Sum of the findings' savings [USD] (findings may overlap)."""
        return sum(f.saving_usd for f in self.findings)

    @property
    def padding_saving_usd(self) -> float:
        """What the padding findings save together [USD]: design findings (fabric) left out, overlaps capped at what
        the quote charges for the lines they cite."""
        return padding_saving_usd(self.findings, self.lines, DESIGN_FINDINGS)

    @property
    def design_change_usd(self) -> float | None:
        """What the recommended design changes in fabric and storage [USD]: quote minus design over those
        categories (positive = the design costs less); None without a design."""
        if self.recommended is None:
            return None
        return sum(r.saving_usd for r in self.comparison if r.in_scope and r.category in DESIGN_CATEGORIES)

    def findings_of(self, line_id: int) -> list[str]:
        """Codes of the findings that rest on line ``line_id``."""
        return [f.code for f in self.findings if line_id in f.lines]

    def by_category(self) -> dict[str, tuple[float, float]]:
        """In-scope (quote, recommended) cost by category [USD]."""
        out: dict[str, tuple[float, float]] = {}
        for r in self.comparison:
            if r.in_scope:
                q, rec = out.get(r.category, (0.0, 0.0))
                out[r.category] = (q + r.quote_usd, rec + r.recommended_usd)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``python -m neoplan quote FILE --json`` (USD, counts; undefined = null).

        ``lines`` holds every line with its ``status`` (classified / unsure / unmatched), ``confidence`` and
        ``price_check``; ``unsure``, ``unmatched`` and ``could_not_price`` list those lines again.
        """
        return {
            "name": self.name,
            "currency": self.currency,
            "usd_per_unit": self.usd_per_unit,
            "servers_quoted": self.servers_quoted,
            "servers": self.servers,
            "gpus": self.gpus,
            "gpu_model": self.gpu_model,
            "per_server": dict(self.per_server),
            "lines": [ln.to_dict() for ln in self.lines],
            "classified": len(self.classified),
            "unsure": [ln.to_dict() for ln in self.unsure],
            "unmatched": [ln.to_dict() for ln in self.unmatched],
            "could_not_price": [ln.to_dict() for ln in self.could_not_price],
            "findings": [f.to_dict() for f in self.findings],
            "quote_total_usd": _finite(self.quote_total_usd),
            "compared_quote_usd": _finite(self.compared_quote_usd),
            "recommended_total_usd": _finite(self.recommended_total_usd),
            "saving_usd": _finite(self.saving_usd),
            "findings_saving_usd": _finite(self.findings_saving_usd),
            "comparison": [r.to_dict() for r in self.comparison],
            "price_tolerance": self.price_tolerance,
            "skipped_rows": dict(self.skipped),
            "warnings": list(self.warnings),
            "option": self.option,
            "options": list(self.options),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "withheld": [w.to_dict() for w in self.withheld],
            "size_from": self.size_from,
            "size_readings": [r.to_dict() for r in self.readings],
            "padding_saving_usd": _finite(self.padding_saving_usd),
            "design_change_usd": _finite(self.design_change_usd),
            "ignored": [ln.to_dict() for ln in self.ignored],
        }


def usd_rate(currency: str, usd_per_unit: float | None) -> float:
    """USD per unit of the quote's currency: 1 for USD, the user's rate otherwise; QuoteError naming the currency."""
    if usd_per_unit is not None:
        if isinstance(usd_per_unit, bool) or not (
            isinstance(usd_per_unit, int | float) and math.isfinite(usd_per_unit) and 1e-6 <= usd_per_unit <= 1e6
        ):
            raise QuoteError(f"the USD rate must be a positive number (USD per {currency}), got {usd_per_unit!r}")
        return 1.0 if currency == "USD" else float(usd_per_unit)
    if currency != "USD":
        raise QuoteError(f"the quote is in {currency}: give the USD rate, e.g. --usd-per-unit 1.08")
    return 1.0


def review_quote(
    quote: ParsedQuote,
    servers_quoted: int | None = None,
    *,
    usd_per_unit: float | None = None,
    price_tolerance: float = DEFAULT_PRICE_TOLERANCE,
    base: str = "optimized",
    book: PriceBook | None = None,
    rules: Sequence[Rule] | None = None,
    catalogue: Sequence[CatalogueEntry] | None = None,
    option: int | str | None = None,
    aliases: Sequence[Mapping[str, Any] | Alias] = (),
    corrections: Sequence[Mapping[str, Any] | Correction] = (),
    size_from: str | None = None,
) -> QuoteReview:
    """Review an OEM quote: identify its lines, size the cluster, find the padding, compare with the design.

    Safe when unsure: no finding saves more than the quote charges for the lines it cites, the savings never exceed
    the quote total, a discount is never an item, and a finding that would break one of these is withheld with the
    reason. Alternatives (Option A/B) are reviewed one at a time.

    Parameters
    ----------
    quote : ParsedQuote
        The quote as :func:`read_quote` or :func:`read_quote_file` read it.
    servers_quoted : int, optional
        The servers bought [count] when the quote prices one server (per-server quantities, a one-server quote);
        None = as the quote states ("order quantity 32", "16 nodes") or as its lines count.
    usd_per_unit : float, optional
        USD per unit of the quote's currency; required for a quote not in USD.
    price_tolerance : float, optional
        How far over the book a unit price may be before it is flagged ``price_above_book`` [fraction].
    base : str, optional
        The preset whose design the quote is compared with (``optimized``: the article's recommended BoM).
    book : PriceBook, optional
        The price book the lines are checked against and the design priced by; None = the 2024-10 book, or the
        first book that prices the quote's platform when that one does not (an HGX B300 quote: 2026-11, said in a
        warning).
    rules, catalogue : sequence, optional
        Classification rules and part numbers; default ``data/quote_rules.csv`` and ``data/quote_catalogue.csv``.
    option : int or str, optional
        The alternative to review, a 1-based number or its label, when the quote offers several (default 1).
    aliases : sequence of mapping, optional
        The vendor's alias list, ``{pattern, category, quantity_basis?}`` (see :mod:`.corrections`).
    corrections : sequence of mapping, optional
        The user's reading of single lines, ``{sheet, row, category?, quantity_basis?, option?, ignore?}``.
    size_from : str, optional
        The reading of the cluster's size to take (``lines``, ``boards``, ``stated``, ``trays``, ``cpus``,
        ``nics``; see :mod:`.size`); default the most consistent one.

    Returns
    -------
    QuoteReview
        Every line with its reading and confidence, the findings with their savings [USD], the cluster's GPUs and
        servers [count], the quote's total and the recommended design's [USD], withheld findings and size conflicts.

    Raises
    ------
    QuoteError
        For a quote in another currency without ``usd_per_unit``, an unknown option or size reading, or a bad alias
        or correction, with a one-line message.

    Examples
    --------
    >>> from neoplan.quote import SAMPLES_DIR, read_quote_file, review_quote
    >>> review = review_quote(read_quote_file(SAMPLES_DIR / "oem_padded_1024_h100.xlsx"))  # synthetic sample
    >>> review.gpus, review.servers, review.gpu_model
    (1024, 128, 'h100-sxm')
    >>> 0 < review.padding_saving_usd <= review.quote_total_usd  # [USD]
    True
    >>> "ram_over_1tb" in {f.code for f in review.findings}  # 2 TB of RAM where 1 TB does
    True
    """
    review = partial(
        _review,
        quote,
        servers_quoted,
        usd_per_unit=usd_per_unit,
        price_tolerance=price_tolerance,
        base=base,
        rules=rules,
        catalogue=catalogue,
        option=option,
        aliases=aliases,
        corrections=corrections,
        size_from=size_from,
    )
    if book is not None:
        return review(book=book)
    first = review(book=default_price_book())
    design_book = None if first.recommended is None else first.recommended.prices_as_of
    if design_book is None or design_book == default_price_book().as_of:
        return first
    # the default book does not price the quote's platform (an HGX B300 quote against 2024-10): review it again
    # against the book its recommended design is priced by, so that lines and design share one book
    again = review(book=price_book(design_book))
    note = (
        f"priced against the {design_book} price book, the first that prices {first.gpu_model} (the default "
        f"{default_price_book().as_of} book does not)"
    )
    return replace(again, warnings=(note, *again.warnings))


def _review(
    quote: ParsedQuote,
    servers_quoted: int | None,
    *,
    usd_per_unit: float | None,
    price_tolerance: float,
    base: str,
    book: PriceBook,
    rules: Sequence[Rule] | None,
    catalogue: Sequence[CatalogueEntry] | None,
    option: int | str | None,
    aliases: Sequence[Mapping[str, Any] | Alias],
    corrections: Sequence[Mapping[str, Any] | Correction],
    size_from: str | None,
) -> QuoteReview:
    """:func:`review_quote` with the lines checked against ``book``."""
    if servers_quoted is not None and not (
        isinstance(servers_quoted, int) and not isinstance(servers_quoted, bool) and 1 <= servers_quoted <= MAX_SERVERS
    ):
        raise QuoteError(f"servers quoted must be a whole number from 1 to {MAX_SERVERS:,}, got {servers_quoted!r}")
    if not (isinstance(price_tolerance, int | float) and 0 <= price_tolerance <= 10):
        raise QuoteError(f"price tolerance must be between 0 and 10 (a fraction), got {price_tolerance!r}")
    currency = getattr(quote, "currency", "USD") or "USD"
    rate = usd_rate(currency, usd_per_unit)
    rules = rules if rules is not None else default_rules()
    catalogue = catalogue if catalogue is not None else default_catalogue()
    user_aliases = [a for a in aliases if isinstance(a, Alias)]
    user_aliases += parse_aliases([a for a in aliases if not isinstance(a, Alias)], rules)
    fixes = parse_corrections(corrections, rules)
    all_raws = apply_to_raw(list(quote.lines), fixes, user_aliases)
    options = tuple(dict.fromkeys([*getattr(quote, "options", ()), *(r.option for r in all_raws if r.option)]))
    chosen = choose_option(options, option)
    raws = [r for r in all_raws if not r.option or r.option == chosen]
    classes = [class_of(raw, fixes, user_aliases) for raw in raws]
    memo: dict[tuple[str, str], tuple[Identity, SystemConfig | None]] = {}
    idents = [_identify(raw, rules, catalogue, memo, cls) for raw, cls in zip(raws, classes, strict=True)]
    parents = _parents(raws)
    included = _included_sub_items(raws, idents, parents)
    quantities, multiplier, inferred, notes = _cluster_quantities(
        quote, raws, idents, parents, servers_quoted, included
    )
    lines = [
        _mark_ignored(make_line(i, raw, ident, config, qty, rate, book, price_tolerance), cls)
        for i, (raw, (ident, config), qty, cls) in enumerate(zip(raws, idents, quantities, classes, strict=True), 1)
    ]
    lines = _bundle_free_parts([_with_parent(ln, parents[k]) for k, ln in enumerate(lines)])
    ignored = tuple(ln for ln in lines if ln.status == "ignored")
    optional = [raw for raw, cls in zip(raws, classes, strict=True) if raw.optional and cls == IGNORE]
    if optional:
        notes.append(
            f"{len(optional)} optional line(s) (section {optional[0].section[:60]!r}) are not counted: add-ons the "
            "quote does not total; untick Ignore (or correct them) to count them"
        )
    lines = [ln for ln in lines if ln.status != "ignored"]
    children: dict[int, list[QuoteLine]] = defaultdict(list)
    for ln in lines:
        if ln.parent_id is not None:
            children[ln.parent_id].append(ln)
    size = _size(quote, lines, children, size_from)
    servers, gpus, gpu_model = size[0], size[1], size[2]
    warnings = list(quote.warnings) + notes + size[5]
    if options:
        others = ", ".join(f"{k} = {name}" for k, name in enumerate(options, 1) if name != chosen)
        warnings.insert(
            0,
            f"the quote offers {len(options)} alternatives ({', '.join(options)}): reviewed {chosen} on its own; "
            f"pick another with --option ({others})",
        )
    recommended, result = _design(quote.name, lines, gpus, gpu_model, servers, base, book, warnings)
    if recommended is not None and recommended.prices_as_of != book.as_of:
        warnings.append(
            f"the recommended design is priced by the {recommended.prices_as_of} book: the {book.as_of} book the "
            f"lines are checked against does not price {gpu_model}"
        )
    if result is not None:
        node_usd = result.node_capex_usd
        lines = [
            with_price_check(_priced_as_nodes(ln, node_usd), price_tolerance)
            if ln.component == "system" and ln.status == "classified" and _whole_server_price(ln, children[ln.id])
            else ln
            for ln in lines
        ]
    parts = _parts(lines, children, rules, book)
    where = {ln.id: (ln.sheet, ln.row) for ln in lines}
    described = any(p.component in ("backend_nic", "cpu", "ram") for p in parts)
    if servers and not described:
        warnings.append(
            "the quote does not list the GPU servers' configuration (CPUs, memory, NICs): those are not checked"
        )
    elif servers and not any(p.component == "backend_nic" for p in parts):
        warnings.append(
            "the quote lists no back-end NIC: integrated or quoted apart? the NICs per server are not checked"
        )
    found = [
        _cited(f, where)
        for f in find_all(parts, servers, gpus, book, price_tolerance)
        if not (f.code == "nics_below_8" and (not described or (gpu_model or "").endswith("nvl72")))
    ]
    found += total_findings(quote, lines, chosen, rate)
    quote_total = sum(ln.total_usd for ln in lines)
    findings, withheld = check(found, lines, quote_total)
    comparison = compare([ln for ln in lines if ln.classified], result, rules)
    return QuoteReview(
        name=quote.name,
        servers_quoted=multiplier,
        price_tolerance=price_tolerance,
        lines=tuple(lines),
        findings=tuple(findings),
        comparison=tuple(comparison),
        servers=servers,
        gpus=gpus,
        gpu_model=gpu_model,
        recommended=recommended,
        skipped=quote.skipped,
        warnings=tuple(warnings),
        sheets=quote.sheets,
        currency=currency,
        usd_per_unit=rate,
        parts=tuple(parts),
        per_server=per_server_aggregates(parts, servers, gpus),
        servers_inferred=inferred,
        option=chosen,
        options=options,
        withheld=tuple(withheld),
        conflicts=size[4],
        readings=size[6],
        size_from=size[3],
        ignored=ignored,
    )


def choose_option(options: Sequence[str], option: int | str | None) -> str | None:
    """The option to review: its 1-based number or its label; the first when None; QuoteError naming the choices."""
    if not options:
        if option not in (None, 1, "1"):
            raise QuoteError(f"option {option!r}: the quote offers no alternatives (one configuration)")
        return None
    if option is None:
        return options[0]
    if isinstance(option, str) and option in options:
        return option
    try:
        k = int(option)
    except (TypeError, ValueError):
        k = 0
    if 1 <= k <= len(options) and not isinstance(option, bool):
        return options[k - 1]
    choices = ", ".join(f"{i} = {name}" for i, name in enumerate(options, 1))
    raise QuoteError(f"option must be one of {choices}; got {option!r}")


def _bundle_free_parts(lines: list[QuoteLine]) -> list[QuoteLine]:
    """Server parts quoted at 0 or without a price on lines of their own (an ODM BoM's CPU and memory next to a
    priced system line) as parts of the nearest priced server line of their sheet: their price is in its price.
    Quantities stay as quoted."""
    systems = [ln for ln in lines if ln.component == "system" and ln.classified and ln.total_usd > 0]
    if not systems:
        return lines
    out = []
    for ln in lines:
        if ln.parent_id is None and ln.component in NODE_PARTS and ln.classified and ln.total_usd == 0:
            same = [s for s in systems if s.sheet == ln.sheet]
            above = [s for s in same if s.row < ln.row]
            parent = above[-1] if above else (same[0] if same else None)
            if parent is not None:
                ln = replace(ln, parent_id=parent.id)
        out.append(ln)
    return out


def _mark_ignored(line: QuoteLine, cls: str | None) -> QuoteLine:
    return replace(line, status="ignored", component=None, category=None, total_usd=0.0) if cls == IGNORE else line


def _size(
    quote: ParsedQuote, lines: Sequence[QuoteLine], children: Mapping[int, list[QuoteLine]], pick: str | None
) -> tuple[int | None, int | None, str | None, str, tuple[Conflict, ...], list[str], tuple[Reading, ...]]:
    """(servers, GPUs, GPU model, reading taken, conflicts, notes, readings) of the reviewed lines."""
    reading, model, notes, boards = lines_reading(lines, children)
    if model is None:
        model = next((ln.gpu_model for ln in lines if ln.gpu_model and ln.classified), None)
    stated = stated_reading(getattr(quote, "servers_stated", None), getattr(quote, "racks_stated", None), model)
    if stated is not None and (bool(getattr(quote, "per_server", False)) or bool(getattr(quote, "options", ()))):
        stated = None  # the count already multiplies the per-server lines, or may be another option's
    readings = tuple(
        r for r in (reading, boards, stated, tray_reading(lines), cpu_reading(lines, model), nic_reading(lines)) if r
    )
    taken, conflicts, more = reconcile(readings, model, pick)
    notes += more
    if taken is None or not taken.servers:
        notes.append(
            "no GPU server or GPU board (HGX H100/H200/B200/B300, GB200/GB300 NVL72) found: the cluster size is "
            "unknown, so the quote is not compared with a design"
        )
        return None, None, None, "lines", conflicts, notes, readings
    gpus = taken.gpus
    if gpus is None and model is not None:
        gpus = taken.servers * gpus_per_node(model)
    if taken.key != "lines":
        notes.append(f"the cluster's size is taken from {taken.label}")
    return taken.servers, gpus, model if gpus else None, taken.key, conflicts, notes, readings


def total_findings(quote: ParsedQuote, lines: Sequence[QuoteLine], option: str | None, rate: float) -> list[Finding]:
    """A finding for each stated total of the reviewed lines that differs from their sum by more than rounding,
    citing the total's row and the lines it sums [USD: what paying the stated total would overpay]."""
    by_row = {(ln.sheet, ln.row): ln.id for ln in lines}
    out = []
    for t in getattr(quote, "totals", ()):
        if not t.off or t.computed is None or (t.option and t.option != option):
            continue
        ids = tuple(by_row[r] for r in t.lines if r in by_row)
        if not ids:
            continue
        gap = (t.amount - t.computed) * rate
        first, last = t.lines[0], t.lines[-1]
        detail = (
            f"the total on row {t.row} ({t.label[:40]}) says {usd_exact(t.amount * rate)}; its lines (rows {first[1]}–"
            f"{last[1]}) add up to {usd_exact(t.computed * rate)}: {usd_exact(abs(gap))} "
            f"{'more' if gap > 0 else 'less'} than the lines"
        )
        sources = ((t.sheet, t.row), first, last)
        out.append(Finding("total_mismatch", ids, max(0.0, gap), detail, sources=tuple(dict.fromkeys(sources))))
    return out


def _with_parent(line: QuoteLine, parent: int | None) -> QuoteLine:
    """The line with its parent's line id (ids are 1-based positions)."""
    return line if parent is None else replace(line, parent_id=parent + 1)


def _identify(
    raw: RawLine,
    rules: Sequence[Rule],
    catalogue: Sequence[CatalogueEntry],
    memo: dict[tuple[str, str], tuple[Identity, SystemConfig | None]],
    user_class: str | None = None,
) -> tuple[Identity, SystemConfig | None]:
    """A line's identity: the user's class when given; a discount when the line is negative (a discount is never
    an item); else by the catalogue and rules, once per distinct (part number, description) of the quote."""
    if user_class is not None:
        ident = identity_for(user_class, raw, rules)
        if ident is None:
            return UNMATCHED, None
        config = parse_system(raw.description or raw.part_number, rules) if ident.component == "system" else None
        if config is not None:
            ident = replace(ident, gpu_model=config.gpu_model, cpu_vendor=config.cpu_vendor)
        return ident, config
    unit, ext = raw_money(raw)
    if (ext is not None and ext < 0) or (ext is None and unit is not None and unit < 0):
        rule = next((r for r in rules if r.component == "discount"), None)
        if rule is not None:
            return identity_of_rule(rule, 1.0, "sign"), None
    key = (raw.part_number, raw.description)
    if key not in memo:
        memo[key] = identify_line(raw.part_number, raw.description, rules, catalogue)
    ident, config = memo[key]
    if ident.component == "discount" and ((ext or 0) > 0 or (unit or 0) > 0):
        return UNMATCHED, None  # "discount" words on a charge: not a discount, and nothing else we know
    return ident, config


def load_quote(
    path: str | Path, servers_quoted: int | None = None, *, currency: str | None = None, **kwargs: Any
) -> QuoteReview:
    """Read and review a quote file in one step (``currency``: see :func:`neoplan.quote.read_quote`); QuoteError."""
    return review_quote(read_quote_file(path, currency), servers_quoted, **kwargs)


# --- quantities -----------------------------------------------------------------------------------------------------


def _parents(raws: Sequence[RawLine]) -> list[int | None]:
    """Index of each sub-item's parent line (same sheet, the row it names), else None."""
    index = {(raw.sheet, raw.row): k for k, raw in enumerate(raws)}
    out: list[int | None] = []
    for k, raw in enumerate(raws):
        parent_row = getattr(raw, "parent_row", None)
        parent = index.get((raw.sheet, parent_row)) if parent_row is not None else None
        out.append(parent if parent is not None and parent < k else None)
    return out


_BUNDLED_PARTS = frozenset({*NODE_PARTS, "node_accessory", "attribute", "rack_tray", None})
"""What a free line right under a server line may be to count as part of that server (never a licence or service:
those stand alone, and a free one saves nothing)."""
_SUB_ITEM_MAX_QUANTITY = 32
"""Above this many per server a $0 line after a server line is an order total (power cords for all), not a
configuration item of the server."""


def _included_sub_items(
    raws: Sequence[RawLine], idents: Sequence[tuple[Any, Any]], parents: list[int | None]
) -> set[int]:
    """Lines that are configuration items of the server line above them although the file does not mark them.

    A server line priced for the whole server followed, on the next rows of its sheet, by node parts at $0 or
    without a price ("configured as below"): those quantities are per server. ``parents`` is updated in place.
    """
    out: set[int] = set()
    system: int | None = None
    for k, raw in enumerate(raws):
        ident = idents[k][0]
        unit, ext = raw_money(raw)
        free = not unit and not ext
        if ident.component == "system" and not free:
            system = k
            continue
        prev = raws[k - 1] if k else None
        contiguous = prev is not None and prev.sheet == raw.sheet and raw.row - prev.row <= 2
        if (
            system is not None
            and contiguous
            and free
            and ident.component in _BUNDLED_PARTS
            and parents[k] is None
            and _basis(raw) == "total"
            and getattr(raw, "per_rack", None) is None  # a rack BoM's quantities are the order's already
            and 0 < raw.quantity <= _SUB_ITEM_MAX_QUANTITY
            and (k - 1 == system or k - 1 in out)
        ):
            parents[k] = system
            out.add(k)
        elif not free:
            system = None
    return out


def _basis(raw: RawLine) -> str:
    return getattr(raw, "quantity_basis", "total") or "total"


def _cluster_quantities(
    quote: ParsedQuote,
    raws: Sequence[RawLine],
    idents: Sequence[tuple[Any, Any]],
    parents: Sequence[int | None],
    servers_quoted: int | None,
    included: set[int] = frozenset(),  # type: ignore[assignment]
) -> tuple[list[float], int, bool, list[str]]:
    """(quantity of each line for the whole order, servers multiplier, inferred?, notes).

    Per-server lines (and every line of a quote priced per server) are multiplied by the servers bought:
    ``servers_quoted``, else the count the quote states. A quote with total quantities that holds one server is
    scaled the same way; one that holds several keeps its quantities.
    """
    notes: list[str] = []
    stated = getattr(quote, "servers_stated", None)
    whole_per_server = bool(getattr(quote, "per_server", False))
    per_server_lines = whole_per_server or any(_basis(raw) == "per_server" for raw in raws)
    own = _own_quantities(raws, parents, [1.0] * len(raws), included)
    in_quote = sum(
        own[k] * (config.servers_per_unit if config is not None else 1)
        for k, (ident, config) in enumerate(idents)
        if ident.status == "classified"
        and (
            ident.component == "system"
            or (ident.component == "gpu_baseboard" and not _under_system(k, idents, parents))
        )
        and _basis(raws[k]) != "per_server"
    )
    inferred = servers_quoted is None
    racks = _rack_factors(quote, raws, notes)
    if per_server_lines:
        n = servers_quoted or stated or (round(in_quote) if in_quote > 1 + 1e-9 else None)
        if n is None:
            n = 1
            notes.append(
                "the quote prices one server and does not say how many are bought: set servers quoted "
                "(--servers N) to size the cluster"
            )
        factors = [
            float(n) if (whole_per_server and _basis(raw) != "per_rack") or _basis(raw) == "per_server" else r
            for raw, r in zip(raws, racks, strict=True)
        ]
        return _own_quantities(raws, parents, factors, included), int(n), inferred, notes
    if servers_quoted is not None:
        if in_quote <= 1 + 1e-9:
            mult = servers_quoted
            if mult == 1 and abs(in_quote - 1) < 1e-9:
                notes.append("the quote prices a single server: set servers quoted to the number of servers bought")
        else:
            mult = 1
            if round(in_quote) != servers_quoted:
                notes.append(
                    f"the quote lists {in_quote:,.0f} servers with total quantities; servers quoted "
                    f"({servers_quoted:,}) applies to quotes that price one server and is not used"
                )
    elif stated and stated > 1 and in_quote <= 1 + 1e-9:
        mult = int(stated)
    else:
        mult = 1
        if abs(in_quote - 1) < 1e-9:
            notes.append("the quote prices a single server: set servers quoted to the number of servers bought")
    factors = [racks[k] if racks[k] != 1.0 else float(mult) if parents[k] is None else 1.0 for k in range(len(raws))]
    if mult == 1 and in_quote > 1:  # "ConnectX-7 400G (4 per server)" with quantity 4 in a 16-server quote
        for k, raw in enumerate(raws):
            per = per_server_count(raw.description)
            if parents[k] is None and per is not None and raw.quantity == per and idents[k][0].component in NODE_PARTS:
                factors[k] = round(in_quote)
                notes.append(
                    f"{_where(raw)}: quantity {per:g} read as {per:g} per server (the line says so), "
                    f"{per * round(in_quote):,.0f} in all"
                )
    return _own_quantities(raws, parents, factors, included), int(mult), inferred, notes


def _rack_factors(quote: ParsedQuote, raws: Sequence[RawLine], notes: list[str]) -> list[float]:
    """The factor of each line quoted per rack without a rack count on its row: the racks the quote states."""
    if not any(_basis(raw) == "per_rack" for raw in raws):
        return [1.0] * len(raws)
    racks = getattr(quote, "racks_stated", None)
    if not racks:
        notes.append("quantities are per rack and the quote does not say how many racks: read as one rack")
        racks = 1
    return [float(racks) if _basis(raw) == "per_rack" else 1.0 for raw in raws]


def _where(raw: RawLine) -> str:
    return f"{raw.sheet}!{raw.row}" if raw.sheet else f"row {raw.row}"


def _own_quantities(
    raws: Sequence[RawLine],
    parents: Sequence[int | None],
    factors: Sequence[float],
    included: set[int] | frozenset[int] = frozenset(),
) -> list[float]:
    """Each line's quantity × its factor; a sub-item's quantity × its parent's (quantities per parent)."""
    out: list[float] = []
    for k, raw in enumerate(raws):
        parent = parents[k]
        total = getattr(raw, "total_quantity", None)
        if parent is not None and (_basis(raw) == "per_parent" or k in included):
            out.append(raw.quantity * out[parent])
        elif total is not None and _basis(raw) == "per_server" and total >= raw.quantity:
            out.append(float(total))
        else:
            out.append(raw.quantity * factors[k])
    return out


def _under_system(k: int, idents: Sequence[tuple[Any, Any]], parents: Sequence[int | None]) -> bool:
    parent = parents[k]
    return parent is not None and idents[parent][0].component == "system"


# --- size and parts -------------------------------------------------------------------------------------------------


def _priced_as_nodes(line: QuoteLine, node_usd: float) -> QuoteLine:
    """A server line with the book price of its servers: the model's whole node × servers per unit [USD]."""
    per_unit = line.system.servers_per_unit if line.system is not None else 1
    return replace(line, book_unit_price_usd=node_usd * per_unit, book_quantity=line.cluster_quantity * per_unit)


def _whole_server_price(line: QuoteLine, children: Sequence[QuoteLine]) -> bool:
    """True when a server line's price is the whole server's: its description lists the configuration, or its
    configuration is unpriced sub-items under it (Dell style); not an HPE-style base line priced alone."""
    if line.system is not None and line.system.gpu_model is not None:
        return True
    return bool(children) and not any(c.priced and (c.total_usd or 0) > 0 for c in children)


def _parts(
    lines: Sequence[QuoteLine], children: Mapping[int, list[QuoteLine]], rules: Sequence[Rule], book: PriceBook
) -> list[QuoteLine]:
    """Classified lines (no server lines) plus the components read from server lines' descriptions."""
    by_id = {ln.id: ln for ln in lines}
    out = [ln for ln in lines if ln.status == "classified" and ln.component != "system" and _in_gpu_server(ln, by_id)]
    for ln in lines:
        if ln.component == "system" and ln.status == "classified":
            covered = {c.component for c in children.get(ln.id, ()) if c.component}
            out += system_parts(ln, {c for c in covered if c is not None}, rules, book)
    return out


def _in_gpu_server(line: QuoteLine, by_id: Mapping[int, QuoteLine]) -> bool:
    """False for a configuration item of a server line identified as something else than a GPU server (the CPU
    and DIMMs of a management or storage server are not the GPU servers' parts)."""
    parent = by_id.get(line.parent_id) if line.parent_id is not None else None
    return parent is None or parent.component in ("system", None) or parent.status != "classified"


def _cited(finding: Finding, where: Mapping[int, tuple[str, int]]) -> Finding:
    """The finding with each line once and the quote's own (sheet, row) of each line it rests on."""
    ids = tuple(dict.fromkeys(finding.lines))
    return replace(finding, lines=ids, sources=tuple(where[i] for i in ids if i in where))


def per_server_aggregates(parts: Sequence[QuoteLine], servers: int | None, gpus: int | None) -> dict[str, Any]:
    """RAM [GB], back-end NICs, DPUs, CPUs (count, vendor, tier) and GPUs per server; None when unknown."""
    if not servers:
        return {
            "ram_gb": None,
            "backend_nics": None,
            "dpus": None,
            "cpus": None,
            "cpu_vendor": None,
            "cpu_tier": None,
            "gpus": None,
        }
    ram = sum(ln.ram_gb for ln in parts if ln.component == "ram")
    nics = sum(ln.cluster_quantity for ln in parts if ln.component == "backend_nic")
    if nics >= servers:
        nics = servers * math.floor(nics / servers + 1e-9)  # a stray NIC of a management node does not count
    dpus = sum(ln.cluster_quantity for ln in parts if "dpu_bluefield" in ln.rule_findings)
    cpus_lines = [ln for ln in parts if ln.component == "cpu"]
    cpus = sum(ln.cluster_quantity for ln in cpus_lines)
    by_vendor: dict[str, float] = defaultdict(float)
    for ln in cpus_lines:
        vendor = _vendor(ln)
        if vendor is not None:
            by_vendor[vendor] += ln.cluster_quantity
    tiers = {ln.price_key for ln in cpus_lines if ln.price_key}
    return {
        "ram_gb": round(ram / servers, 1) if ram else None,
        "backend_nics": round(nics / servers, 2),
        "dpus": round(dpus / servers, 2),
        "cpus": round(cpus / servers, 2) if cpus else None,
        "cpu_vendor": max(by_vendor, key=lambda v: by_vendor[v]) if by_vendor else None,  # the most CPUs
        "cpu_tier": {"cpu_top": "top", "cpu_mid": "mid", "cpu_entry": "entry"}.get(max(tiers, default=""))
        if tiers
        else None,
        "gpus": round(gpus / servers, 2) if gpus else None,
    }


def _vendor(line: QuoteLine) -> str | None:
    if line.cpu_vendor:
        return line.cpu_vendor
    text = line.text.lower()
    if "epyc" in text or "amd" in text:
        return "amd"
    if "xeon" in text or "intel" in text:
        return "intel"
    return None


# --- design ---------------------------------------------------------------------------------------------------------


def _design(
    name: str,
    lines: Sequence[QuoteLine],
    gpus: int | None,
    gpu_model: str | None,
    servers: int | None,
    base: str,
    book: PriceBook,
    warnings: list[str],
) -> tuple[Scenario | None, Result | None]:
    """The recommended scenario at the quote's size and its evaluation; None (with a warning) when impossible."""
    if not gpus or not gpu_model:
        return None, None
    platform = default_platforms().get(gpu_model)
    if platform is None or platform.rack_scale:  # the review compares with HGX designs; NVL72 quotes are sized per tray
        known = ", ".join(sorted(k for k, p in default_platforms().items() if not p.rack_scale))
        what = "a rack-scale platform" if platform is not None else "a platform the price book does not know"
        warnings.append(
            f"the quote is for {gpu_model}, {what}: the comparison with a recommended design is made for HGX "
            f"quotes only ({known}); findings are listed"
        )
        return None, None
    try:
        recommended = _recommended_scenario(name, lines, gpus, gpu_model, servers, base, book)
        return recommended, evaluate(recommended)
    except (QuoteError, ScenarioError) as exc:
        warnings.append(f"the {base} design cannot be built at {gpus:,} GPUs ({exc}); no comparison")
        return None, None


def _recommended_scenario(
    name: str, lines: Sequence[QuoteLine], gpus: int, gpu_model: str, servers: int | None, base: str, book: PriceBook
) -> Scenario:
    """The ``base`` design at the quote's GPU count and platform, keeping the quote's local NVMe per server.

    The platform brings its defaults (``cluster.platform_defaults``: rack power, servers per rack, NIC, rental
    price) where it is not the base design's own; the design is priced by ``book`` (the book of the quote's
    lines) when that book prices the platform, else by the platform's own book."""
    node: dict[str, Any] = {}
    nvme_tb = sum(ln.book_quantity for ln in lines if ln.price_key == "nvme_7_68tb" and ln.classified) * 7.68
    if servers and nvme_tb > 0:
        node["nvme_tb"] = round(min(nvme_tb / servers, 500.0), 2)
    data: dict[str, Any] = {
        "base": base,
        "name": f"Recommended for {name}"[:120],
        "description": f"{base} design at the size of the quote {name} ({gpus:,} GPUs), from the Quote review.",
        "cluster": {"gpus": gpus, "gpu_model": gpu_model, "platform_defaults": True},
    }
    if default_platforms()[gpu_model].baseboard_price_key in book:
        data["prices_as_of"] = book.as_of
    if node:
        data["node"] = node
    try:
        return load_scenario(data)
    except ScenarioError as exc:
        raise QuoteError(f"cannot build the recommended design for this quote: {exc}") from None


def apply_recommendations(review: QuoteReview) -> Scenario:
    """The quote turned into a scenario: its GPU count and platform with the recommended (optimized) BoM.

    Parameters
    ----------
    review : QuoteReview
        A reviewed quote.

    Returns
    -------
    Scenario
        The recommended design of the quote's cluster, ready for :func:`neoplan.evaluate`.

    Raises
    ------
    QuoteError
        When the quote has no GPU server or baseboard line the model can evaluate.

    Examples
    --------
    >>> from neoplan.quote import SAMPLES_DIR, apply_recommendations, read_quote_file, review_quote
    >>> plan = apply_recommendations(review_quote(read_quote_file(SAMPLES_DIR / "oem_padded_1024_h100.xlsx")))
    >>> plan.cluster.gpus, plan.node.preset
    (1024, 'optimized')
    """
    if review.recommended is None:
        raise QuoteError(
            "the quote has no GPU server or GPU baseboard line the model can evaluate, so there is no design to apply"
        )
    return review.recommended

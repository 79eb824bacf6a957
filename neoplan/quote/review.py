"""Review a parsed quote: identify, convert, size the cluster, find the padding, compare with the design.

The order of work (:func:`review_quote`): pick the option (alternatives are reviewed one at a time, never
summed); apply the user's corrections and the vendor's aliases; identify each line (a negative line is a
discount, never an item); scale quantities to the order; read the cluster's size from independent readings and
reconcile them (:mod:`.size`); price the findings; withhold any finding that breaks an invariant (:mod:`.guard`);
compare with the recommended design.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from ..formats import usd_exact
from ..inputs.pricebook import BOOK_DATES, PriceBook, default_price_book, price_book
from ..inputs.scenario import Scenario
from ..model import Result
from .accelerators import unsupported
from .aggregates import node_parts, per_server_aggregates, priced_as_nodes, whole_server_price
from .cells import QuoteError
from .classify import UNMATCHED, CatalogueEntry, Identity, Rule, default_catalogue, default_rules, identity_of_rule
from .codes import DEFAULT_PRICE_TOLERANCE
from .compare import compare
from .corrections import (
    IGNORE,
    Alias,
    Correction,
    apply_to_raw,
    class_of,
    identity_for,
    parse_aliases,
    parse_corrections,
    split_bundle,
)
from .currency import Conversion, conversion
from .design import design
from .findings import Finding, find_above_book, find_all, find_mismatch
from .guard import TOLERANCE_USD, Withheld, check
from .layout import base_modules, child_bases, spares
from .lines import QuoteLine, identify_line, make_line, raw_money, with_price_check
from .plausibility import GuardInput, check_reading, withhold
from .quantities import cluster_quantities, included_sub_items, parents
from .rackscale import per_rack_services, rack_platform
from .ratecard import Rate
from .read import read_quote_file
from .reviewed import QuoteReview
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

MAX_SERVERS = 100_000
NODE_ADVICE = ("cpu_top_bin", "cpu_amd", "ram_over_1tb", "dpu_bluefield", "nics_below_8")
"""Findings written for NVIDIA HGX servers: not given on a platform the book does not price (AMD, Gaudi, TPU)."""
_GPUS_PER_SERVER_DEFAULT = 8


def usd_rate(currency: str, usd_per_unit: float | None) -> float:
    """USD per unit of the quote's currency: 1 for USD, the user's rate otherwise; QuoteError naming the currency
    (one currency, nothing stated: see :func:`neoplan.quote.currency.conversion` for the rest)."""
    return conversion(currency, [currency], (), usd_per_unit, currency).usd_per_unit


def _most_named(rates: Sequence[Rate]) -> str | None:
    """The platform a rate card prices most often (alphabetical among equals), None when it names none."""
    counts = Counter(r.gpu_model for r in rates if r.gpu_model)
    return min(counts, key=lambda k: (-counts[k], k)) if counts else None


def _rate_card_review(quote: ParsedQuote, usd_per_unit: float | None, tolerance: float) -> QuoteReview:
    """A rate card reported as such: its rates beside the model's rental prices, nothing reviewed as hardware."""
    card = quote.rate_card
    assert card is not None
    money = conversion(quote.currency, [quote.currency], (), usd_per_unit, quote.currency_from) if (
        quote.currency == "USD" or usd_per_unit is not None
    ) else None  # fmt: skip
    rates = card.rates
    notes = [
        f"{quote.name} is a rate card (rental prices per GPU-hour or per month), not a hardware quote: its "
        f"{len(rates)} rates are listed beside the model's rental prices (data/rental_contracts.csv); nothing is "
        "reviewed against the hardware price book"
    ]
    if money is None:
        notes.append(f"the rates are in {quote.currency}: give the USD rate (--usd-per-unit) to read them in USD")
    elif money.usd_per_unit != 1.0:
        rates = tuple(replace(r, per_gpu_hour=(r.per_gpu_hour or 0) * money.usd_per_unit) for r in rates)
    return QuoteReview(
        name=quote.name,
        servers_quoted=1,
        price_tolerance=tolerance,
        lines=(),
        findings=(),
        comparison=(),
        servers=None,
        gpus=None,
        gpu_model=_most_named(rates),
        recommended=None,
        skipped=quote.skipped,
        warnings=(*quote.warnings, *notes, *(money.notes if money else ())),
        sheets=quote.sheets,
        currency=money.currency if money else quote.currency,
        usd_per_unit=money.usd_per_unit if money else 1.0,
        currency_from=quote.currency_from,
        rates=dict(money.rates) if money else {},
        rate_sources=dict(money.sources) if money else {},
        rate_card=rates,
    )


def _created(with_fix: QuoteReview, without: QuoteReview, fix: Correction) -> tuple[Finding, str] | None:
    """(finding, why) of a negative-saving finding on the corrected line that the correction creates (or deepens)
    although the line, read so, is priced far off its new class (a kit of 8 NICs at 13× one NIC); else None."""
    corrected = [ln for ln in with_fix.lines if (ln.sheet, ln.row) == (fix.sheet, fix.row)]
    off = next((ln for ln in corrected if ln.price_check == "could_not_price"), None)
    if off is None:
        return None
    ids = {ln.id for ln in corrected}
    before = {f.code: f.saving_usd for f in without.findings}
    for f in with_fix.findings:
        if f.saving_usd < -TOLERANCE_USD and ids & set(f.lines) and f.saving_usd < before.get(f.code, 0.0) - 1:
            ratio = (off.effective_unit_usd or 0) / (off.book_unit_price_usd or 1)
            return f, f"although the line, read so, costs {ratio:,.1f}× its book item: it bundles several parts"
    return None


def _what(fix: Correction) -> str:
    if fix.split:
        return "split into " + " and ".join(f"{c} × {n:g}" for c, n in fix.split)
    if fix.category:
        return f"a {fix.category} line"
    return f"quantities {fix.quantity_basis}" if fix.quantity_basis else "corrected"


def _corrected(
    review: Any, book: PriceBook, corrections: Sequence[Mapping[str, Any] | Correction], rules: Sequence[Rule] | None
) -> QuoteReview:
    """The review with the user's corrections, except those that would create a negative saving on the line they
    correct (a bundle read as one part, a kit of 8 NICs read as one): refused, with the reason."""
    first: QuoteReview = review(book=book, corrections=corrections)
    if not corrections or not any(f.saving_usd < -TOLERANCE_USD for f in first.findings):
        return first
    fixes = parse_corrections(corrections, rules if rules is not None else default_rules())
    refused: list[tuple[Correction, str]] = []
    for fix in fixes:
        others = [c for c in fixes if c is not fix]
        created = _created(first, review(book=book, corrections=others), fix)
        if created is not None:
            finding, why = created
            refused.append(
                (
                    fix,
                    f"{fix.where} read as {_what(fix)} would add '{finding.title}' at {usd_exact(finding.saving_usd)} "
                    f"({finding.detail[:90]}) {why}: not applied; split it instead (each part's class and count per "
                    "bundle)",
                )
            )
    if not refused:
        return first
    kept = [c for c in fixes if all(c is not r for r, _ in refused)]
    return replace(review(book=book, corrections=kept), refused=tuple(refused))


def _book(quote: ParsedQuote, book: PriceBook | str | None) -> tuple[PriceBook, str]:
    """The book to check the lines against and why: the user's, else the book nearest the quote's date, else the
    default one."""
    if isinstance(book, PriceBook):
        return book, "you (--book)"
    if isinstance(book, str):
        if book not in BOOK_DATES:
            raise QuoteError(f"book must be one of {', '.join(BOOK_DATES)} (a price book date), got {book!r}")
        return price_book(book), "you (--book)"
    date = getattr(quote, "date", None)
    if not date:
        return default_price_book(), "the default book (the quote states no date)"
    nearest = min(BOOK_DATES, key=lambda d: (abs(_months(d) - _months(date)), d))
    said = getattr(quote, "date_from", "")[:60]
    return price_book(nearest), f"the book nearest the quote's date {date} ({said!r})"


def _months(date: str) -> int:
    """Months since year 0 of a ``YYYY-MM[-DD]`` date."""
    year, month = int(date[:4]), int(date[5:7])
    return year * 12 + month - 1


def review_quote(
    quote: ParsedQuote,
    servers_quoted: int | None = None,
    *,
    usd_per_unit: float | None = None,
    price_tolerance: float = DEFAULT_PRICE_TOLERANCE,
    base: str = "optimized",
    book: PriceBook | str | None = None,
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
    reason. A reading outside a plausibility band (currency, size, quantity basis, classification) withholds the
    headline, the comparison and every saving resting on it, with one sentence naming the cause and the fix
    (``review.implausible``, ``review.headline_withheld``). Alternatives (Option A/B) are reviewed one at a time. A
    broker's rate card ($/GPU-hour, no quantity) is reviewed as such (``review.rate_card``).

    Parameters
    ----------
    quote : ParsedQuote
        The quote as :func:`read_quote` or :func:`read_quote_file` read it.
    servers_quoted : int, optional
        The servers bought [count] when the quote prices one server (per-server quantities, a one-server quote);
        None = as the quote states ("order quantity 32", "16 nodes") or as its lines count.
    usd_per_unit : float, optional
        USD per unit of the quote's currency; required for a quote not in USD unless the quote states its rate
        ("1 USD = 3.75 SAR"). A typed rate is applied, or refused with the reason, never dropped
        (:mod:`.currency`).
    price_tolerance : float, optional
        How far over the book a unit price may be before it is flagged ``price_above_book`` [fraction].
    base : str, optional
        The preset whose design the quote is compared with (``optimized``: the article's recommended BoM).
    book : PriceBook or str, optional
        The price book the lines are checked against and the design priced by, or its date (``"2026-11"``);
        None = the book nearest the quote's date (the default book when it states none), or the first book that
        prices the quote's platform when that one does not (an HGX B300 quote: 2026-11, said in a warning).
    rules, catalogue : sequence, optional
        Classification rules and part numbers; default ``data/quote_rules.csv`` and ``data/quote_catalogue.csv``.
    option : int or str, optional
        The alternative to review, a 1-based number or its label, when the quote offers several (default 1).
    aliases : sequence of mapping, optional
        The vendor's alias list, ``{pattern, category, quantity_basis?}`` (see :mod:`.corrections`).
    corrections : sequence of mapping, optional
        The user's reading of single lines, ``{sheet, row, category?, quantity_basis?, option?, ignore?, split?}``;
        a correction that would create a negative saving is refused with the reason (``review.refused``).
    size_from : str, optional
        The reading of the cluster's size to take (``lines``, ``boards``, ``stated``, ``trays``, ``cpus``,
        ``nics``; see :mod:`.size`); default the most consistent one.

    Returns
    -------
    QuoteReview
        Every line with its reading and confidence, the findings with their savings [USD], the cluster's GPUs,
        servers and racks [count], the quote's total and the recommended design's [USD], withheld findings and size
        conflicts, the currency and rates applied, and the book used and why (``review.book``, ``review.book_from``).

    Raises
    ------
    QuoteError
        For a quote in another currency without a rate, an unknown option, size reading or book date, or a bad
        alias or correction, with a one-line message.

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
    if getattr(quote, "rate_card", None) is not None:
        return _rate_card_review(quote, usd_per_unit, price_tolerance)
    chosen, why = _book(quote, book)
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
        size_from=size_from,
    )
    first = replace(_corrected(review, chosen, corrections, rules), book=chosen.as_of, book_from=why)
    design_book = None if first.recommended is None else first.recommended.prices_as_of
    if book is not None or design_book is None or design_book == chosen.as_of:
        return first
    # the chosen book does not price the quote's platform (an HGX B300 quote against 2024-10): review it again
    # against the book its recommended design is priced by, so that lines and design share one book
    again = _corrected(review, price_book(design_book), corrections, rules)
    note = (
        f"priced against the {design_book} price book, the first that prices {first.gpu_model} (the "
        f"{chosen.as_of} book, {why}, does not)"
    )
    why_again = f"the first book that prices {first.gpu_model}"
    return replace(again, warnings=(note, *again.warnings), book=design_book, book_from=why_again)


@dataclass(frozen=True)
class _Identified:
    """Stage 1 of a review: the reviewed option's raw lines with the user's classes and their identities."""

    raws: list[RawLine]
    classes: list[str | None]
    idents: list[tuple[Identity, SystemConfig | None]]
    parents: list[int | None]
    included: set[int]
    options: tuple[str, ...]
    chosen: str | None
    notes: tuple[str, ...] = ()


def _check_inputs(servers_quoted: int | None, price_tolerance: float) -> None:
    """QuoteError naming the first of the user's numbers that is out of range."""
    if servers_quoted is not None and not (
        isinstance(servers_quoted, int) and not isinstance(servers_quoted, bool) and 1 <= servers_quoted <= MAX_SERVERS
    ):
        raise QuoteError(f"servers quoted must be a whole number from 1 to {MAX_SERVERS:,}, got {servers_quoted!r}")
    if not (isinstance(price_tolerance, int | float) and 0 <= price_tolerance <= 10):
        raise QuoteError(f"price tolerance must be between 0 and 10 (a fraction), got {price_tolerance!r}")


def _split_bundles(
    raws: list[RawLine], classes: list[str | None], fixes: Sequence[Correction], rules: Sequence[Rule], book: PriceBook
) -> tuple[list[RawLine], list[str | None]]:
    """Bundles the user split: one line per part (its class, its count per bundle), the price shared by book."""
    splits = {(c.sheet, c.row): c.split for c in fixes if c.split}
    if not splits:
        return raws, classes
    out_raws: list[RawLine] = []
    out_classes: list[str | None] = []
    for raw, cls in zip(raws, classes, strict=True):
        parts = splits.get((raw.sheet, raw.row))
        if not parts:
            out_raws.append(raw)
            out_classes.append(cls)
            continue
        keys = [(identity_for(category, raw, rules) or UNMATCHED).price_key for category, _ in parts]
        weights = [book.price(k) * per if k and k in book else 0.0 for k, (_, per) in zip(keys, parts, strict=True)]
        out_raws += split_bundle(raw, parts, weights)
        out_classes += [category for category, _ in parts]
    return out_raws, out_classes


def _read(
    quote: ParsedQuote,
    rules: Sequence[Rule],
    catalogue: Sequence[CatalogueEntry],
    option: int | str | None,
    aliases: Sequence[Mapping[str, Any] | Alias],
    corrections: Sequence[Mapping[str, Any] | Correction],
    book: PriceBook,
) -> _Identified:
    """Stage 1: the user's corrections and the vendor's aliases applied (bundles split), the option picked, each
    line identified."""
    user_aliases = [a for a in aliases if isinstance(a, Alias)]
    user_aliases += parse_aliases([a for a in aliases if not isinstance(a, Alias)], rules)
    fixes = parse_corrections(corrections, rules)
    all_raws = apply_to_raw(list(quote.lines), fixes, user_aliases)
    options = tuple(dict.fromkeys([*getattr(quote, "options", ()), *(r.option for r in all_raws if r.option)]))
    chosen = choose_option(options, option)
    raws = [r for r in all_raws if not r.option or r.option == chosen]
    classes = [class_of(raw, fixes, user_aliases) for raw in raws]
    raws, classes = _split_bundles(raws, classes, fixes, rules, book)
    memo: dict[tuple[str, str], tuple[Identity, SystemConfig | None]] = {}
    idents = [_identify(raw, rules, catalogue, memo, cls) for raw, cls in zip(raws, classes, strict=True)]
    parent_of = parents(raws)
    included = included_sub_items(raws, idents, parent_of)
    notes = spares(raws, idents) + base_modules(raws, idents, parent_of)
    notes += child_bases(raws, idents, parent_of, included)
    return _Identified(raws, classes, idents, parent_of, included, options, chosen, tuple(notes))


def _used(quote: ParsedQuote, raws: Sequence[RawLine], currency: str) -> set[str]:
    """The currencies the reviewed lines are priced in (the quote's for lines that name none)."""
    return {getattr(raw, "currency", "") or currency for raw in raws} | {currency}


def _conversion(quote: ParsedQuote, raws: Sequence[RawLine], usd_per_unit: float | None) -> Conversion:
    """Stage 2: the USD rate of every currency the reviewed lines use (:func:`neoplan.quote.currency.conversion`)."""
    currency = getattr(quote, "currency", "USD") or "USD"
    used = sorted({getattr(raw, "currency", "") or currency for raw in raws})
    evidence = getattr(quote, "currency_from", "USD")
    return conversion(currency, used, getattr(quote, "rates", ()), usd_per_unit, evidence)


def _lines(
    reading: _Identified,
    quantities: Sequence[float],
    money: Conversion,
    book: PriceBook,
    tolerance: float,
    notes: list[str],
) -> tuple[list[QuoteLine], tuple[QuoteLine, ...]]:
    """Stage 3: the quote lines in USD for the order (each at its currency's rate), checked against the book;
    (lines, lines the user ignores)."""
    rows = zip(reading.raws, reading.idents, quantities, reading.classes, strict=True)
    lines = [
        _mark_ignored(make_line(i, raw, ident, config, qty, money.rate_of(raw.currency), book, tolerance), cls)
        for i, (raw, (ident, config), qty, cls) in enumerate(rows, 1)
    ]
    lines = _bundle_free_parts([_with_parent(ln, reading.parents[k]) for k, ln in enumerate(lines)])
    ignored = tuple(ln for ln in lines if ln.status == "ignored")
    optional = [raw for raw, cls in zip(reading.raws, reading.classes, strict=True) if raw.optional and cls == IGNORE]
    if optional:
        notes.append(
            f"{len(optional)} optional line(s) (section {optional[0].section[:60]!r}) are not counted: add-ons the "
            "quote does not total; untick Ignore (or correct them) to count them"
        )
    return [ln for ln in lines if ln.status != "ignored"], ignored


def _children(lines: Sequence[QuoteLine]) -> dict[int, list[QuoteLine]]:
    out: dict[int, list[QuoteLine]] = defaultdict(list)
    for ln in lines:
        if ln.parent_id is not None:
            out[ln.parent_id].append(ln)
    return out


def _options_note(options: Sequence[str], chosen: str | None, warnings: list[str]) -> None:
    if options:
        others = ", ".join(f"{k} = {name}" for k, name in enumerate(options, 1) if name != chosen)
        warnings.insert(
            0,
            f"the quote offers {len(options)} alternatives ({', '.join(options)}): reviewed {chosen} on its own; "
            f"pick another with --option ({others})",
        )


def _with_design(
    lines: list[QuoteLine],
    children: Mapping[int, list[QuoteLine]],
    result: Result | None,
    tolerance: float,
    gpu_model: str | None = None,
) -> list[QuoteLine]:
    """Stage 5: whole-server lines checked against the recommended design's whole node (an NVL72 rack's)."""
    if result is None:
        return lines
    node_usd = result.node_capex_usd
    rack = rack_platform(gpu_model)
    trays = rack.compute_trays if rack is not None else 1
    return [
        with_price_check(priced_as_nodes(ln, node_usd, trays), tolerance)
        if ln.component == "system" and ln.status == "classified" and whole_server_price(ln, children[ln.id])
        else ln
        for ln in lines
    ]


def _configuration_notes(parts: Sequence[QuoteLine], servers: int | None, warnings: list[str]) -> bool:
    """Warn when the GPU servers' configuration is not listed; True when it is (CPUs, memory or NICs)."""
    described = any(p.component in ("backend_nic", "cpu", "ram") for p in parts)
    if servers and not described:
        warnings.append(
            "the quote does not list the GPU servers' configuration (CPUs, memory, NICs): those are not checked"
        )
    elif servers and not any(p.component == "backend_nic" for p in parts):
        warnings.append(
            "the quote lists no back-end NIC: integrated or quoted apart? the NICs per server are not checked"
        )
    return described


def _findings(
    quote: ParsedQuote,
    lines: Sequence[QuoteLine],
    parts: Sequence[QuoteLine],
    size: tuple[int | None, int | None, str | None],
    described: bool,
    chosen: str | None,
    rate: float,
    book: PriceBook,
    tolerance: float,
) -> tuple[list[Finding], list[Withheld]]:
    """Stage 6: the findings, cited by the quote's own rows, and those withheld by the invariants."""
    servers, gpus, gpu_model = size
    where = {ln.id: (ln.sheet, ln.row) for ln in lines}
    other = unsupported(gpu_model)
    found = [
        _cited(f, where)
        for f in find_all(parts, servers, gpus, book, tolerance, gpu_model)
        if not (f.code == "nics_below_8" and (not described or (gpu_model or "").endswith("nvl72")))
        and not (other is not None and f.code in NODE_ADVICE)
    ]
    pool = [ln for ln in lines if ln.pool == "spares" and ln.classified]
    found += [_cited(f, where) for f in find_above_book(pool, tolerance) + find_mismatch(pool)]
    found += total_findings(quote, lines, chosen, rate)
    return check(found, lines, sum(ln.total_usd for ln in lines))


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
    """:func:`review_quote` with the lines checked against ``book``, in named stages: read (corrections, option,
    identity), quantities, lines, size, design, findings."""
    _check_inputs(servers_quoted, price_tolerance)
    rules = rules if rules is not None else default_rules()
    catalogue = catalogue if catalogue is not None else default_catalogue()
    reading = _read(quote, rules, catalogue, option, aliases, corrections, book)
    money = _conversion(quote, reading.raws, usd_per_unit)
    rate = money.usd_per_unit
    quantities, multiplier, inferred, notes = cluster_quantities(
        quote, reading.raws, reading.idents, reading.parents, servers_quoted, reading.included
    )
    notes += money.notes + reading.notes
    lines, ignored = _lines(reading, quantities, money, book, price_tolerance, notes)
    children = _children(lines)
    size = _size(quote, lines, children, size_from)
    servers, gpus, gpu_model = size[0], size[1], size[2]
    warnings = list(quote.warnings) + notes + size[5]
    _options_note(reading.options, reading.chosen, warnings)
    recommended, result = design(quote.name, lines, gpus, gpu_model, servers, base, book, warnings)
    if recommended is not None and recommended.prices_as_of != book.as_of:
        warnings.append(
            f"the recommended design is priced by the {recommended.prices_as_of} book: the {book.as_of} book the "
            f"lines are checked against does not price {gpu_model}"
        )
    lines = _with_design(lines, children, result, price_tolerance, gpu_model)
    lines = per_rack_services(lines, gpu_model, gpus, book, price_tolerance)
    parts = node_parts(lines, children, rules, book)
    described = _configuration_notes(parts, servers, warnings)
    findings, withheld = _findings(
        quote, lines, parts, (servers, gpus, gpu_model), described, reading.chosen, rate, book, price_tolerance
    )
    comparison = compare([ln for ln in lines if ln.classified], result, rules)
    guard = GuardInput(
        lines, parts, servers, gpus, gpu_model, book, result.node_capex_usd if result is not None else None, money,
        size[6], getattr(quote, "currencies_seen", ()),
    )  # fmt: skip
    breaches = check_reading(guard)
    if breaches:
        findings, withheld = withhold(breaches, findings, withheld)
        comparison = []
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
        currency=money.currency,
        usd_per_unit=rate,
        currency_from=getattr(quote, "currency_from", ""),
        rates={c: money.rates[c] for c in money.rates if c in _used(quote, reading.raws, money.currency)},
        rate_sources={c: money.sources[c] for c in money.rates if c in _used(quote, reading.raws, money.currency)},
        parts=tuple(parts),
        per_server=per_server_aggregates(parts, servers, gpus),
        servers_inferred=inferred,
        option=reading.chosen,
        options=reading.options,
        withheld=tuple(withheld),
        conflicts=size[4],
        readings=size[6],
        size_from=size[3],
        ignored=ignored,
        implausible=tuple(breaches),
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


def _cited(finding: Finding, where: Mapping[int, tuple[str, int]]) -> Finding:
    """The finding with each line once and the quote's own (sheet, row) of each line it rests on."""
    ids = tuple(dict.fromkeys(finding.lines))
    return replace(finding, lines=ids, sources=tuple(where[i] for i in ids if i in where))


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
        When the quote has no GPU server or baseboard line the model can evaluate, or its reading breaks a
        plausibility band (``review.implausible``).

    Examples
    --------
    >>> from neoplan.quote import SAMPLES_DIR, apply_recommendations, read_quote_file, review_quote
    >>> plan = apply_recommendations(review_quote(read_quote_file(SAMPLES_DIR / "oem_padded_1024_h100.xlsx")))
    >>> plan.cluster.gpus, plan.node.preset
    (1024, 'optimized')
    """
    if review.implausible:
        raise QuoteError(
            f"the quote's reading breaks a band, so there is no design to apply: {review.headline_withheld}"
        )
    if review.recommended is None:
        raise QuoteError(
            "the quote has no GPU server or GPU baseboard line the model can evaluate, so there is no design to apply"
        )
    return review.recommended

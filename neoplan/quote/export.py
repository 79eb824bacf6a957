"""Take-away files of a review: annotated CSV/XLSX, a design written as a quote, the text summary, samples."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..formats import usd_exact
from ..model import Result
from ..spreadsheet import safe_cell
from .cells import SAMPLES_DIR
from .reviewed import QuoteReview

# --- a design written as a quote ------------------------------------------------------------------------------------

QUOTE_COLUMNS = ("Part Number", "Description", "Qty", "Unit Price (USD)", "Extended Price (USD)")


def design_quote_rows(result: Result, categories: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """A model design written as quote lines (price-book descriptions and prices), e.g. to send out for bids.

    One row per capex line of ``result`` in ``categories`` (all if None), plus one year of NVIDIA AI
    Enterprise per GPU when the scenario pays for it. Reading these rows back reproduces the design.
    """
    wanted = set(categories) if categories is not None else None
    rows = []
    for cl in result.capex_lines:
        if wanted is not None and cl.category not in wanted:
            continue
        rows.append(_quote_row(result.book.row(cl.key).description, cl.quantity, cl.unit_price_usd))
    if result.scenario.opex.ai_enterprise and (wanted is None or "software" in wanted):
        key = "nvidia_ai_enterprise_gpu_year"
        rows.append(_quote_row(f"{result.book.row(key).description}, 1-year", result.gpus, result.book.price(key)))
    return rows


def _quote_row(description: str, quantity: float, unit_usd: float) -> dict[str, Any]:
    return {
        "Part Number": "",
        "Description": description,
        "Qty": quantity,
        "Unit Price (USD)": unit_usd,
        "Extended Price (USD)": quantity * unit_usd,
    }


def rows_to_csv(rows: Sequence[Mapping[str, Any]], comment: str = "") -> bytes:
    """Quote rows as CSV bytes (UTF-8), an optional comment row first; cells are formula-safe."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if comment:
        writer.writerow([safe_cell("# " + comment)])
    columns = list(rows[0]) if rows else list(QUOTE_COLUMNS)
    writer.writerow(columns)
    for row in rows:
        writer.writerow([safe_cell(row.get(c)) for c in columns])
    return buf.getvalue().encode("utf-8")


# --- export ---------------------------------------------------------------------------------------------------------


ANNOTATED_COLUMNS = (
    "line",
    "source",
    "section",
    "part_number",
    "description",
    "quantity",
    "unit_price_usd",
    "extended_usd",
    "cluster_quantity",
    "total_usd",
    "classified",
    "status",
    "confidence",
    "component",
    "category",
    "price_key",
    "book_unit_price_usd",
    "price_check",
    "note",
    "findings",
)


def annotated_records(review: QuoteReview) -> list[dict[str, Any]]:
    """One record per quote line with its class, book price and the findings that rest on it."""
    return [
        {
            "line": ln.id,
            "source": ln.source,
            "section": ln.section,
            "part_number": ln.part_number,
            "description": ln.description,
            "quantity": ln.quantity,
            "unit_price_usd": ln.unit_price_usd,
            "extended_usd": ln.extended_usd,
            "cluster_quantity": ln.cluster_quantity,
            "total_usd": ln.total_usd,
            "classified": "yes" if ln.classified else "no",
            "status": ln.status,
            "confidence": ln.confidence,
            "component": ln.component or "",
            "category": ln.category or "",
            "price_key": ln.price_key or "",
            "book_unit_price_usd": ln.book_unit_price_usd,
            "price_check": ln.price_check or "",
            "note": ln.note,
            "findings": ", ".join(review.findings_of(ln.id)),
        }
        for ln in review.lines
    ]


def finding_records(review: QuoteReview) -> list[dict[str, Any]]:
    """One record per finding, lines as a comma-separated list."""
    return [
        {
            "code": f.code,
            "title": f.title,
            "saving_usd": f.saving_usd,
            "lines": ", ".join(map(str, f.lines)),
            "where": f.where,
            "detail": f.detail,
            "reason": f.reason,
        }
        for f in review.findings
    ]


def to_csv_bytes(review: QuoteReview) -> bytes:
    """The annotated quote as CSV (UTF-8), formula-injection safe."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(ANNOTATED_COLUMNS)
    for rec in annotated_records(review):
        writer.writerow([safe_cell(rec[c]) for c in ANNOTATED_COLUMNS])
    return buf.getvalue().encode("utf-8")


def to_xlsx_bytes(review: QuoteReview) -> bytes:
    """The annotated quote as XLSX: sheets Lines, Findings, Comparison; every text cell written as text."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Lines"
    _write_sheet(ws, ANNOTATED_COLUMNS, annotated_records(review))
    findings = finding_records(review)
    columns = ("code", "title", "saving_usd", "where", "lines", "detail", "reason")
    _write_sheet(wb.create_sheet("Findings"), columns, findings)
    comparison = [r.to_dict() for r in review.comparison]
    _write_sheet(wb.create_sheet("Comparison"), tuple(comparison[0]) if comparison else ("category",), comparison)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _write_sheet(ws: Any, columns: Sequence[str], records: Iterable[Mapping[str, Any]]) -> None:
    ws.append([safe_cell(c) for c in columns])
    for rec in records:
        ws.append([safe_cell(rec.get(c)) for c in columns])
    for row in ws.iter_rows():
        for cell in row:
            if isinstance(cell.value, str):
                cell.data_type = "s"  # never a formula, whatever the text


# --- text summary ---------------------------------------------------------------------------------------------------


def _money_text(review: QuoteReview) -> str:
    """``USD``, ``KRW at 0.00072 USD each (KRW from the price cells, the rate from you)``, several currencies."""
    if set(review.rates) <= {"USD"} and review.currency == "USD":
        return "USD" + (f" (from {review.currency_from})" if review.currency_from else " (the quote names none)")
    rates = "; ".join(
        f"{code} at {rate:g} USD each (rate from {review.rate_sources.get(code, '?')})"
        for code, rate in sorted(review.rates.items())
        if code != "USD"
    )
    source = f"; {review.currency} read from {review.currency_from}" if review.currency_from else ""
    return f"{rates}{source}"


def _headline_rows(review: QuoteReview) -> list[tuple[str, str]]:
    """The headline: quote total, padding, design change, the design and the saving; or why they are withheld."""
    if review.implausible:
        return [("headline", f"withheld: {b.sentence}") for b in review.implausible]
    rows = [
        ("quote total", usd_exact(review.quote_total_usd)),
        ("padding", f"{usd_exact(review.padding_saving_usd)} saved by the padding findings"),
    ]
    if review.design_change_usd is not None:
        rows.append(("design change", f"{usd_exact(review.design_change_usd)} from the recommended fabric and storage"))
    if review.saving_usd is not None and review.recommended_total_usd is not None:
        share = review.saving_usd / review.compared_quote_usd if review.compared_quote_usd else 0.0
        rows.append(
            (
                "recommended",
                f"{usd_exact(review.recommended_total_usd)} for the components the quote prices "
                f"({usd_exact(review.compared_quote_usd)} in the quote)",
            )
        )
        rows.append(("vs design", f"{usd_exact(review.saving_usd)} ({share:.1%}) quote minus the recommended design"))
    return rows


def _rate_card_text(review: QuoteReview) -> str:
    """A rate card's rates, one a line, each beside the model's rental price."""
    money = "USD" if review.currency == "USD" else review.currency
    out = [f"rate card  {review.name}: {len(review.rate_card)} rental rates, prices in {money}"]
    for r in review.rate_card:
        per_gpu = f" = {r.per_gpu_hour:,.2f}/GPU-h" if r.per_gpu_hour and r.unit != "GPU-hour" else ""
        term = f", {r.term}" if r.term else ""
        ref = f"; {r.reference}" if r.reference else ""
        out.append(f"  {r.row:>4}  {r.label[:60]}{term}: {r.price:,.2f} per {r.unit}{per_gpu}{ref}")
    out += [f"warning: {w}" for w in review.warnings]
    return "\n".join(out)


def text_summary(review: QuoteReview) -> str:
    """Plain-text summary of a review for ``python -m neoplan quote FILE`` (amounts in USD)."""
    if review.rate_card:
        return _rate_card_text(review)
    size = (
        f"{review.size_text} ({review.gpu_model or 'GPU model not named'})"
        if review.gpus and review.servers
        else "unknown (no GPU server or baseboard line)"
    )
    rows = [
        (
            "quote",
            f"{review.name}: {len(review.lines)} lines, {len(review.classified)} classified, "
            f"{len(review.unsure)} unsure, {len(review.unmatched)} unmatched; "
            f"{sum(review.skipped.values())} rows skipped; prices in {_money_text(review)}",
        ),
        ("size", f"{size}; servers quoted ×{review.servers_quoted}; from {review.size_from}"),
        ("book", f"{review.book or '?'} ({review.book_from})" if review.book_from else review.book or "?"),
        *_headline_rows(review),
    ]
    if review.option is not None:
        rows.insert(1, ("option", f"{review.option} (one of {', '.join(review.options)}; never summed)"))
    width = max(len(k) for k, _ in rows)
    out = [f"{k:<{width}}  {v}" for k, v in rows]
    out.append(f"findings ({len(review.findings)}; savings may overlap, negative = cost to fix)")
    out += [f"  {f.code:<20} {usd_exact(f.saving_usd):>14}  {f.where}: {f.detail}" for f in review.findings]
    out += [f"conflict: {c.sentence}" for c in review.conflicts]
    if review.withheld:
        guard = {b.sentence for b in review.implausible}
        out.append("withheld findings (could not price them safely)")
        out += [
            f"  {w.finding.code:<20} {w.finding.where}: "
            + ("it rests on the reading the headline withholds" if w.reason in guard else w.reason)
            for w in review.withheld
        ]
    for title, group in (
        ("unsure lines (not used in findings)", review.unsure),
        ("could not price (more than 3x off the book: check the classification)", review.could_not_price),
        ("unmatched lines", review.unmatched),
    ):
        if group:
            out.append(title)
            out += [f"  {ln.source}: {ln.label}  {usd_exact(ln.total_usd)}" for ln in group]
    out += [f"warning: {w}" for w in review.warnings]
    return "\n".join(out)


# --- samples --------------------------------------------------------------------------------------------------------


def sample_quotes() -> list[Path]:
    """The synthetic sample quotes shipped in ``data/quotes/`` (CSV and XLSX), sorted by name."""
    return sorted(p for p in SAMPLES_DIR.glob("*") if p.suffix.lower() in (".csv", ".xlsx"))

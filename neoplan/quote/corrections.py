"""The user's corrections of a review: per line (this quote) and as a vendor's alias list (the next quotes).

A **correction** changes how one line of this quote is read, by its ``sheet`` and ``row`` as the file shows
them: ``category`` (the line's class: a component of ``data/quote_rules.csv`` such as ``backend_nic``, ``ram``,
``system``, or ``ignore``), ``quantity_basis`` (``per_server``: the quantity is per server and is multiplied by the
servers bought; ``total``: for the whole order), ``option`` (the alternative it belongs to; ``""`` = common to
all) and ``ignore`` (not a line: left out of the total, the size and the findings).

An **alias** carries a correction over to the next quote from the same vendor: ``{"pattern", "category",
"quantity_basis"?}``. ``pattern`` is a part number, matched whole against the line's part number (case and
surrounding spaces ignored); when it matches no part number it is a case-insensitive regular expression searched
in the line's part number and description (a plain substring works as it is; an invalid regex is taken as
literal text). Saved aliases are written by :func:`aliases_from` (part number when the line has one, else its
description escaped).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from .cells import QuoteError
from .classify import Identity, Rule, identity_of_rule
from .raw import RawLine
from .system import system_identity
from .units import normalise, speeds_gbps

QUANTITY_BASES = ("per_server", "total")
IGNORE = "ignore"
MAX_SPLIT_PARTS = 8
MAX_PER_BUNDLE = 1_000
_SPLIT_PART = re.compile(r"^\s*([a-z_]+)\s*(?:[x×*:]\s*(\d+(?:\.\d+)?))?\s*$", re.IGNORECASE)
MAX_ALIASES = 2_000
MAX_PATTERN_CHARS = 200


@dataclass(frozen=True)
class Correction:
    """The user's reading of one line (by sheet and row as the file shows them); None = as read."""

    sheet: str
    row: int
    category: str | None = None
    quantity_basis: str | None = None
    option: str | None = None
    ignore: bool | None = None
    """True: not a line; False: count it although the reader left it out (an optional item); None: as read."""
    split: tuple[tuple[str, float], ...] = ()
    """A bundle's parts: (class, quantity per bundle) each ("8× 400G adapters with optics": backend_nic × 8,
    backend_server_link × 8); each part is a line of its own, priced on its own (:func:`split_bundle`)."""

    @property
    def where(self) -> str:
        """``Quote!14`` or ``row 14``."""
        return f"{self.sheet}!{self.row}" if self.sheet else f"row {self.row}"

    def to_dict(self) -> dict[str, Any]:
        """The correction as :func:`parse_corrections` reads it."""
        out: dict[str, Any] = {"sheet": self.sheet, "row": self.row}
        for name in ("category", "quantity_basis", "option", "ignore"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.split:
            out["split"] = [{"category": c, "per_bundle": n} for c, n in self.split]
        return out


@dataclass(frozen=True)
class Alias:
    """A vendor's alias: lines matching ``pattern`` get ``category`` (and ``quantity_basis`` when given)."""

    pattern: str
    category: str
    quantity_basis: str | None = None

    def matches(self, part_number: str, description: str) -> bool:
        """True when the line's part number is the pattern, or its text holds the pattern (see the module)."""
        if part_number.strip().lower() == self.pattern.strip().lower():
            return True
        return _regex(self.pattern).search(f"{part_number} {description}") is not None

    def to_dict(self) -> dict[str, str]:
        """The alias as the library stores it."""
        out = {"pattern": self.pattern, "category": self.category}
        if self.quantity_basis:
            out["quantity_basis"] = self.quantity_basis
        return out


@lru_cache(maxsize=4_096)  # keyed on a user's pattern text; compiling is a pure function of it
def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error:
        return re.compile(re.escape(pattern), re.IGNORECASE)


def classes(rules: Sequence[Rule]) -> list[str]:
    """The line classes a user can choose: ``system``, the rules' components, ``ignore``."""
    return ["system", *sorted({r.component for r in rules} - {"system"}), IGNORE]


def check_category(category: str, rules: Sequence[Rule], where: str) -> str:
    """``category`` if it is a line class; QuoteError naming ``where`` otherwise."""
    if category not in classes(rules):
        raise QuoteError(f"{where}: category {category!r} is not a line class (system, backend_nic, ram, …, ignore)")
    return category


def _basis(value: Any, where: str) -> str | None:
    if value in (None, ""):
        return None
    if value not in QUANTITY_BASES:
        raise QuoteError(f"{where}: quantity_basis must be per_server or total, got {value!r}")
    return str(value)


def parse_aliases(records: Iterable[Mapping[str, Any]], rules: Sequence[Rule], where: str = "aliases") -> list[Alias]:
    """Aliases from plain records (the library's or a JSON file's); QuoteError naming the bad entry."""
    out: list[Alias] = []
    for k, rec in enumerate(records, start=1):
        at = f"{where} entry {k}"
        if not isinstance(rec, Mapping):
            raise QuoteError(f"{at}: an alias is an object with pattern and category")
        pattern = rec.get("pattern")
        if not isinstance(pattern, str) or not pattern.strip() or len(pattern) > MAX_PATTERN_CHARS:
            raise QuoteError(f"{at}: pattern must be a non-empty text of at most {MAX_PATTERN_CHARS} characters")
        category = rec.get("category")
        if not isinstance(category, str):
            raise QuoteError(f"{at}: category must be a text")
        out.append(Alias(pattern.strip(), check_category(category, rules, at), _basis(rec.get("quantity_basis"), at)))
        if len(out) > MAX_ALIASES:
            raise QuoteError(f"{where}: more than {MAX_ALIASES:,} aliases")
    return out


def read_aliases_file(path: str | Path, rules: Sequence[Rule]) -> list[Alias]:
    """Aliases from a JSON file (a list of ``{pattern, category, quantity_basis?}``); QuoteError on a bad file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise QuoteError(f"--aliases {path}: cannot read the file ({exc.strerror or exc})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise QuoteError(f"--aliases {path}: not a JSON list of aliases ({exc})") from None
    if isinstance(data, Mapping) and "aliases" in data:
        data = data["aliases"]
    if not isinstance(data, list):
        raise QuoteError(f"--aliases {path}: not a JSON list of aliases")
    return parse_aliases(data, rules, f"--aliases {path.name}")


def parse_corrections(records: Iterable[Mapping[str, Any] | Correction], rules: Sequence[Rule]) -> list[Correction]:
    """Corrections from plain records ``{sheet, row, category?, quantity_basis?, option?, ignore?}``."""
    out: list[Correction] = []
    for k, rec in enumerate(records, start=1):
        if isinstance(rec, Correction):
            out.append(rec)
            continue
        at = f"correction {k}"
        row = rec.get("row")
        if not isinstance(row, int) or isinstance(row, bool) or row < 1:
            raise QuoteError(f"{at}: row must be the line's row number, got {row!r}")
        category = rec.get("category")
        option = rec.get("option")
        out.append(
            Correction(
                sheet=str(rec.get("sheet") or ""),
                row=row,
                category=check_category(category, rules, at) if category else None,
                quantity_basis=_basis(rec.get("quantity_basis"), at),
                option=None if option is None else str(option),
                ignore=None if rec.get("ignore") is None else bool(rec.get("ignore")),
                split=parse_split(rec.get("split"), rules, at),
            )
        )
    return out


def parse_split(value: Any, rules: Sequence[Rule], where: str = "split") -> tuple[tuple[str, float], ...]:
    """A bundle's parts from ``[{category, per_bundle}, …]`` or a text ``backend_nic×8, backend_server_link×8``
    (a part without a count is one per bundle); QuoteError naming the bad part."""
    if value in (None, "", [], ()):
        return ()
    items: list[Any] = re.split(r"[,;+]", value) if isinstance(value, str) else list(value)
    out = []
    for item in items:
        if isinstance(item, str):
            m = _SPLIT_PART.match(item)
            if m is None:
                raise QuoteError(f"{where}: {item.strip()!r} is not 'class × count' (e.g. backend_nic×8)")
            category, count = m.group(1).lower(), float(m.group(2) or 1)
        elif isinstance(item, Mapping):
            category, count = str(item.get("category") or ""), item.get("per_bundle", 1)
        else:
            raise QuoteError(f"{where}: a part is {{category, per_bundle}} or 'class × count'")
        if category == IGNORE or isinstance(count, bool) or not isinstance(count, int | float):
            raise QuoteError(f"{where}: {category!r} × {count!r} is no part of a bundle")
        if not 0 < count <= MAX_PER_BUNDLE:
            raise QuoteError(f"{where}: a part's count per bundle must be from 1 to {MAX_PER_BUNDLE:,}, got {count!r}")
        out.append((check_category(category, rules, where), float(count)))
    if not 2 <= len(out) <= MAX_SPLIT_PARTS:
        raise QuoteError(f"{where}: a bundle splits into 2 to {MAX_SPLIT_PARTS} parts, got {len(out)}")
    return tuple(out)


def split_bundle(raw: RawLine, parts: Sequence[tuple[str, float]], weights: Sequence[float]) -> list[RawLine]:
    """A bundle line as one line per part: its quantity × the part's count per bundle, its price shared by
    ``weights`` (the book price of each part × its count; equal shares when the book prices none)."""
    total = sum(weights)
    shares = [w / total for w in weights] if total > 0 else [1.0 / len(parts)] * len(parts)
    unit, ext = raw.unit_price, raw.extended
    out = []
    for (category, per), share in zip(parts, shares, strict=True):
        part_ext = None if ext is None else ext * share
        part_unit = None if unit is None else unit * share / per
        out.append(
            replace(
                raw,
                description=f"{raw.description} [{category} × {per:g} per bundle]",
                quantity=raw.quantity * per,
                unit_price=part_unit,
                extended=part_ext,
                total_quantity=None if raw.total_quantity is None else raw.total_quantity * per,
            )
        )
    return out


def identity_for(category: str, raw: RawLine, rules: Sequence[Rule]) -> Identity | None:
    """The identity a user's class gives a line (sure: confidence 1); None for ``ignore``."""
    if category == IGNORE:
        return None
    if category == "system":
        return system_identity(None, 1.0)
    text = normalise(f"{raw.part_number} {raw.description}")
    mine = [r for r in rules if r.component == category]
    priced = [r for r in mine if r.price_key]
    rule = next((r for r in priced if r.pattern.search(text)), None)  # the rule the words fit best
    if rule is None and priced:  # else the plain part of the line's speed: a 400G kit's NIC is a 400G ConnectX
        rule = min(priced, key=lambda r: (_speed_gap(r.price_key, text), bool(_SPECIAL.search(r.price_key))))
    return identity_of_rule(rule or mine[0], 1.0, "user")


_SPECIAL = re.compile(r"supernic|spx|splitter|lacc|twin|nvidia", re.IGNORECASE)
"""Price keys of special variants (Spectrum-X SuperNIC optics, splitter cables): taken only when the words say so."""


def _speed_gap(price_key: str, text: str) -> int:
    """0 when the book item of ``price_key`` runs at exactly the speeds the text names, 1 when it shares one, 2 else."""
    from ..inputs.pricebook import default_price_book

    book = default_price_book()
    speeds = speeds_gbps(text)
    item = speeds_gbps(normalise(book.row(price_key).description)) if price_key in book else frozenset()
    return 0 if speeds and item == speeds else 1 if speeds & item else 2


def apply_to_raw(raws: Sequence[RawLine], corrections: Sequence[Correction], aliases: Sequence[Alias]) -> list[RawLine]:
    """The raw lines with the corrected option and quantity basis (corrections first, then aliases)."""
    by_row = {(c.sheet, c.row): c for c in corrections}
    out = []
    for raw in raws:
        c = by_row.get((raw.sheet, raw.row))
        alias = next((a for a in aliases if a.matches(raw.part_number, raw.description)), None)
        basis = (c.quantity_basis if c is not None else None) or (alias.quantity_basis if alias else None)
        line = raw
        if basis is not None and raw.quantity_basis != "per_parent":
            line = replace(line, quantity_basis=basis, total_quantity=None if basis == "total" else raw.total_quantity)
        if c is not None and c.option is not None:
            line = replace(line, option=c.option)
        out.append(line)
    return out


def class_of(raw: RawLine, corrections: Sequence[Correction], aliases: Sequence[Alias]) -> str | None:
    """The class the user gave the line (a correction, else the first matching alias), None if none; an optional
    item is ``ignore`` unless the user counts it."""
    counted = False
    for c in corrections:
        if (c.sheet, c.row) == (raw.sheet, raw.row):
            if c.ignore:
                return IGNORE
            if c.category:
                return c.category
            counted = c.ignore is False
            break
    alias = next((a for a in aliases if a.matches(raw.part_number, raw.description)), None)
    if alias is not None:
        return alias.category
    return IGNORE if raw.optional and not counted else None


def aliases_from(corrections: Sequence[Correction], raws: Sequence[RawLine]) -> list[dict[str, str]]:
    """The corrections of lines' classes (and bases) as a vendor's aliases: part number, else the description."""
    by_row = {(r.sheet, r.row): r for r in raws}
    out: dict[str, dict[str, str]] = {}
    for c in corrections:
        raw = by_row.get((c.sheet, c.row))
        category = IGNORE if c.ignore else c.category
        if raw is None or not (category or c.quantity_basis):
            continue
        pattern = raw.part_number.strip() or re.escape(raw.description.strip()[: MAX_PATTERN_CHARS - 20])
        if not pattern:
            continue
        alias = {"pattern": pattern, "category": category or ""}
        if c.quantity_basis:
            alias["quantity_basis"] = c.quantity_basis
        if alias["category"]:
            out[pattern] = alias
    return list(out.values())


_GENERIC_TITLE = re.compile(
    r"^(quot(e|ation)|angebot|offerte|devis|presupuesto|budgetary|proposal|estimate|invoice|rack bom|bom|"
    r"报价单?|御?見積書?|견\s*적\s*서|synthetic|prepared|date|customer|quote\s+(no|number)|page)\b",
    re.IGNORECASE,
)


def guess_vendor(notes: Sequence[str], saved: Sequence[str] = ()) -> str:
    """The vendor a quote comes from: a saved vendor its title block names (case ignored), else the first title
    line that is no generic word ("Quotation", "报价单") or number; "" when none."""
    text = " ".join(notes[:12]).lower()
    for name in sorted(saved, key=len, reverse=True):
        if name.strip() and name.strip().lower() in text:
            return name
    for note in notes[:6]:
        line = " ".join(note.split())[:80]
        if line and not _GENERIC_TITLE.match(line) and re.search(r"[^\W\d_]", line) and ":" not in line[:20]:
            return line
    return ""

"""Identity of a quote line: part-number catalogue first, then scored description rules, each with a confidence.

A line's identity comes from, in order:

1. ``data/quote_catalogue.csv``: a part number (the part column, or a part-number token in the description)
   matching a catalogue pattern; confidence :data:`CATALOGUE_CONFIDENCE`.
2. A complete GPU server (``system``): a catalogue system SKU not described as a bare chassis, or a description
   listing a GPU board, CPUs and memory (see :mod:`neoplan.quote.system`).
3. ``data/quote_rules.csv``: every rule whose pattern occurs in the normalised text is *scored* (a match, its
   length, its place in the file, and whether the line's head nouns — transceiver, cable, fibre, NIC, switch,
   CPU, DIMM, drive, GPU — agree with the rule's kind); the best-scoring component wins and the margin over the
   best other component gives the confidence. A line below :data:`UNSURE_BELOW` is ``unsure``: listed, never
   priced into a finding.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from ..inputs.pricebook import BOOK_DATES, DATA_DIR, PriceBook, default_price_book, price_book
from .cells import RULES_FILE, QuoteError
from .codes import CATEGORIES, FINDINGS
from .units import normalise

CATALOGUE_FILE = DATA_DIR / "quote_catalogue.csv"
_TOKEN_START = r"(?<![A-Z0-9])"
CATALOGUE_CONFIDENCE = 0.98
SYSTEM_CONFIDENCE = 0.9
UNSURE_BELOW = 0.6
"""Lines whose identity is less sure than this [0-1] are listed as unsure and left out of findings."""

_SIZE = {
    "GB": re.compile(r"(\d+(?:\.\d+)?)\s*GB\b", re.IGNORECASE),
    "TB": re.compile(r"(\d+(?:\.\d+)?)\s*TB\b", re.IGNORECASE),
    "year": re.compile(r"(\d+)\s*-?\s*(?:(?:yrs?|years?|jahre?n?|ans?|años|anni)\b|年|년)", re.IGNORECASE),
}

_MONTHS = re.compile(r"(\d+)\s*-?\s*(?:months?|mos?|monate?n?|mois|meses)\b", re.IGNORECASE)

# --- kinds: what a line is, by its nouns ----------------------------------------------------------------------------

_KIND_WORDS = {
    "optic": re.compile(r"transceiver|\boptics?\b|optical module|\bxcvr\b|\b[SDFL]R[48]\b|\bOSFP\b.*\bmodule\b", re.I),
    "cable": re.compile(
        r"\bCat\s*-?[5-8]A?\b|\bRJ-?45\b|(?<!fiber )(?<!fibre )(?<!optical )(?<!MMF )(?<!SMF )\bcables?\b|"
        r"\bDAC\b|\bACC\b|\bAOC\b|direct[- ]attach|splitter|breakout|\bcopper\b",
        re.I,
    ),
    "fibre": re.compile(r"\bfib(re|er)s?\b|\bjumper\b|\btrunk\b|\bOM[345]\b|MPO.*\bpatch\b", re.I),
    "nic": re.compile(r"\bNICs?\b|adapter|\bHCA\b|ConnectX|SuperNIC|network card|\bDPUs?\b|BlueField", re.I),
    "switch": re.compile(r"(?<![-\w])(?:power)?switch(es)?\b(?!-)", re.I),
    "cpu": re.compile(
        r"\bprocessors?\b|\bCPUs?\b|\bXeon\b|\bEPYC\b|\b\d{1,3}\s*C\s*/\s*\d{1,3}\s*T\b|\b\d\.\d{1,2}\s*GHz\b|"
        r"\b\d{2,3}\s*-?\s*cores?\b|\b\d{2,3}C\b",
        re.I,
    ),
    "ram": re.compile(
        r"\bDIMMs?\b|RDIMM|LRDIMM|\bmemory\b|\bDDR[45]\b(?![-\s]*\d{4}\s*(?:MT/?s|MHz)?\s*$)|\d\s*[GT]B\b[^,;]*\bDDR[45]\b",
        re.I,
    ),
    "drive": re.compile(r"\bSSDs?\b|\bNVMe\b|\bdrives?\b|\bM\.2\b|\bHDD\b", re.I),
    "gpu": re.compile(r"\bHGX\b|\bGPUs?\b|baseboard|\bSXM\d?\b", re.I),
    "server": re.compile(r"\bservers?\b(?!\s+racks?\b)|\bnodes?\b|\bappliance\b", re.I),
    "chassis": re.compile(r"\bchassis\b|\bbare-?bones?\b", re.I),
    "rack": re.compile(r"\bserver\s+racks?\b|\brack\s*(enclosure|cabinet)|\benclosure\b|\bcabinet\b|\b4[2-8]U\b", re.I),
    "pdu": re.compile(r"\bPDUs?\b|power distribution", re.I),
    "firewall": re.compile(r"\bfirewalls?\b", re.I),
    "service": re.compile(r"warrant|\bsupport\b|install|integration|\bservices?\b|ProSupport|deploy|burn-?in", re.I),
    "software": re.compile(r"licen[cs]e|\blic\b|subscription|software", re.I),
    "tray": re.compile(r"\btrays?\b|\bshelf\b", re.I),
    "cooling": re.compile(r"\bCDUs?\b|coolant|\bmanifolds?\b|facility[- ]water|heat\s+exchanger|\bRDHx\b", re.I),
}
_STRONG_KINDS = (
    "optic",
    "cable",
    "fibre",
    "nic",
    "switch",
    "cpu",
    "ram",
    "drive",
    "gpu",
    "server",
    "rack",
    "pdu",
    "firewall",
    "chassis",
    "tray",
    "cooling",
)
_MODIFIER = re.compile(
    r"\([^)]*(?:\)|$)|\b(?:for|at|with|without|w/o?|compatible|into|on|in|per|incl\.?|including|"
    r"(?:pro|je|par)(?=\s+(?:GPU|server|node|knoten|jahr|endpoint|unit)))\b.*$",
    re.IGNORECASE,
)
_FOR = re.compile(r"\b(?:for|compatible\s+with|fits|for\s+use\s+in)\b", re.IGNORECASE)
_SEGMENT = re.compile(r"[,;:]|\s[-–]\s")
_COMPONENT_KIND = {
    "backend_switch": "switch",
    "frontend_switch": "switch",
    "oob_switch": "switch",
    "oob_aggregation_switch": "switch",
    "switch": "switch",
    "backend_nic": "nic",
    "frontend_nic": "nic",
    "nic": "nic",
    "cpu": "cpu",
    "ram": "ram",
    "local_nvme": "drive",
    "boot_drive": "drive",
    "storage_drive": "drive",
    "gpu_baseboard": "gpu",
    "backend_fibre": "fibre",
    "frontend_fibre": "fibre",
    "warranty": "service",
    "integration": "service",
    "installation": "service",
    "installation_rack": "service",
    "cluster_burn_in": "service",
    "site_burn_in": "service",
    "software_licence": "software",
    "subnet_manager": "software",
    "storage_licence": "software",
    "storage_server": "server",
    "management_node": "server",
    "chassis": "chassis",
    "rack": "rack",
    "pdu": "pdu",
    "firewall": "firewall",
    "rack_tray": "tray",
    "liquid_cooling": "cooling",
}


def _kind_of(component: str, price_key: str) -> str | None:
    """The noun kind a component is named by (links: optic or cable by their price key)."""
    if component in _COMPONENT_KIND:
        return _COMPONENT_KIND[component]
    if price_key.startswith("xcvr_"):
        return "optic"
    if price_key.startswith(("dac_", "acc_", "lacc_", "patch_")):
        return "cable"
    return None


def kind_weights(text: str) -> dict[str, float]:
    """How strongly ``text`` names each kind [0-1].

    The head is the first comma/colon-separated segment that names a kind, without parentheses and without
    what follows 'for / to / with / per …'. Its last kind noun is the head noun (1.0: "storage server" is a
    server, "NVMe boot drive" a drive); other kinds in the head weigh 0.6, kinds named only elsewhere 0.3.
    """
    present = [(kind, pattern) for kind, pattern in _KIND_WORDS.items() if pattern.search(text)]
    if not present:
        return {}
    segments = [seg for seg in _SEGMENT.split(text) if any(p.search(seg) for _, p in present)]
    head = _MODIFIER.sub(" ", segments[0]) if segments else ""
    last: tuple[int, str] | None = None
    out: dict[str, float] = {}
    for kind, pattern in present:
        ends = [m.end() for m in pattern.finditer(head)]
        if ends:
            out[kind] = 0.6
            if last is None or max(ends) > last[0]:
                last = (max(ends), kind)
        else:
            out[kind] = 0.3
    if last is not None:
        out[last[1]] = 1.0
    return out


# --- rules ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One classification rule of ``data/quote_rules.csv``."""

    pattern: re.Pattern[str]
    component: str
    category: str
    price_key: str
    findings: tuple[str, ...]
    recommended_key: str
    size_unit: str
    book_size: float
    line: int

    @cached_property
    def kind(self) -> str | None:
        """The noun kind of the rule's component (``optic``, ``nic``, …), None when nouns say nothing."""
        return _kind_of(self.component, self.price_key)


def read_rules(path: Path = RULES_FILE, book: PriceBook | None = None) -> tuple[Rule, ...]:
    """Rules in file order; raises QuoteError naming the line of a bad rule (regex, key, category, code)."""
    book = book or default_price_book()
    rules = [_rule(raw, line, book, path.name) for line, raw in _csv_rows(path)]
    _check_components(rules, path.name)
    return tuple(rules)


def _csv_rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    """(file line, record) of a CSV whose '#' lines are comments."""
    text = path.read_text(encoding="utf-8")
    numbered = [(i, ln) for i, ln in enumerate(text.splitlines(), start=1) if ln.strip() and not ln.startswith("#")]
    reader = csv.DictReader([ln for _, ln in numbered])
    return [(line, dict(raw)) for (line, _), raw in zip(numbered[1:], reader, strict=True)]


def _rule(raw: Mapping[str, str], line: int, book: PriceBook, file: str) -> Rule:
    where = f"{file} line {line}"
    try:
        pattern = re.compile(raw["pattern"], re.IGNORECASE)
    except re.error as exc:
        raise QuoteError(f"{where}: bad pattern ({exc})") from None
    for col in ("price_key", "recommended_key"):  # in the book, or in a later shipped one (the HGX B300's board)
        if raw[col] and raw[col] not in book and not any(raw[col] in price_book(date) for date in BOOK_DATES):
            raise QuoteError(f"{where}: {col} {raw[col]!r} is in no price book")
    if raw["category"] not in CATEGORIES:
        raise QuoteError(f"{where}: category must be one of {', '.join(CATEGORIES)}, got {raw['category']!r}")
    findings = tuple(c for c in raw["findings"].split(";") if c)
    unknown = [c for c in findings if c not in FINDINGS]
    if unknown:
        raise QuoteError(f"{where}: unknown finding code {unknown[0]!r}")
    if raw["size_unit"] and raw["size_unit"] not in _SIZE:
        raise QuoteError(f"{where}: size_unit must be one of {', '.join(_SIZE)}, got {raw['size_unit']!r}")
    return Rule(
        pattern=pattern,
        component=raw["component"],
        category=raw["category"],
        price_key=raw["price_key"],
        findings=findings,
        recommended_key=raw["recommended_key"],
        size_unit=raw["size_unit"],
        book_size=float(raw["book_size"] or 1.0),
        line=line,
    )


def _check_components(rules: Sequence[Rule], file: str) -> None:
    """Every component has one category, and every price key one component (both sides compare by component)."""
    category: dict[str, str] = {}
    component: dict[str, str] = {}
    for r in rules:
        if category.setdefault(r.component, r.category) != r.category:
            raise QuoteError(
                f"{file} line {r.line}: component {r.component!r} already has category {category[r.component]!r}"
            )
        if r.price_key and component.setdefault(r.price_key, r.component) != r.component:
            raise QuoteError(
                f"{file} line {r.line}: price key {r.price_key!r} already belongs to component "
                f"{component[r.price_key]!r}"
            )


@lru_cache(maxsize=1)  # keyed on nothing: the shipped rules file, returned as a tuple (quote review +7 % without)
def default_rules() -> tuple[Rule, ...]:
    """The shipped rules (cached)."""
    return read_rules()


def component_of_key(rules: Sequence[Rule]) -> dict[str, tuple[str, str]]:
    """Price key → (component, category), from the rules (used to group the model's capex lines)."""
    out: dict[str, tuple[str, str]] = {}
    for r in rules:
        if r.price_key:
            out.setdefault(r.price_key, (r.component, r.category))
    return out


# --- scoring --------------------------------------------------------------------------------------------------------


def score_rules(text: str, rules: Sequence[Rule]) -> list[tuple[float, Rule]]:
    """The rules matching the normalised ``text``, scored, best first.

    Within one kind (optic, cable, NIC, …; see ``_COMPONENT_KIND``) the rules file is ordered specific to
    generic, so only the first matching rule of each kind competes. Across kinds: score = 1 for the match + up
    to 0.15 for its length + 0.6 × how strongly the text names the rule's kind − 0.8 × how much more strongly
    it names another kind (a transceiver that says "multimode" is no fibre; a "storage server" is no drive)
    − 0.6 when the match only names what the part is for ("fan module for QM9700" is no switch).
    """
    weights = kind_weights(text)
    strong = max((weights.get(k, 0.0) for k in _STRONG_KINDS), default=0.0)
    target = _FOR.search(text)
    tail = target.start() if target else len(text)
    seen: set[str] = set()
    out = []
    for rule in rules:
        group = rule.kind or f"component:{rule.component}"
        if group in seen:
            continue
        m = rule.pattern.search(text)
        if m is None:
            continue
        seen.add(group)
        score = 1.0 + min(len(m.group(0)) / 60.0, 0.15)
        if m.start() >= tail:
            score -= 0.6  # the match names what the part is for ("fan module for QM9700"), not the part
        kind = rule.kind
        if kind is not None:
            own = weights.get(kind, 0.0)
            other = max((weights.get(k, 0.0) for k in _STRONG_KINDS if k != kind), default=0.0)
            score += 0.6 * own - 0.8 * max(0.0, other - own)
        elif strong >= 1.0:
            score -= 0.3  # a rule without a kind (chassis, PDU, …) on a line whose head noun is a component
        out.append((score, rule))
    out.sort(key=lambda t: -t[0])
    return out


def confidence_of(scored: Sequence[tuple[float, Rule]]) -> float:
    """How sure the best rule is [0-1]: its score, and its margin over the best rule of another component."""
    if not scored:
        return 0.0
    best, rule = scored[0]
    rival = next((s for s, r in scored[1:] if r.component != rule.component), 0.0)
    margin = best - rival
    return round(max(0.0, min(0.97, best / 1.5) * (0.5 + 0.5 * min(1.0, margin / 0.5))), 3)


def classify(text: str, rules: Sequence[Rule]) -> Rule | None:
    """The best-scoring rule for ``text`` (part number + description), or None when no rule matches."""
    scored = score_rules(normalise(text), rules)
    return scored[0][1] if scored else None


# --- catalogue ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CatalogueEntry:
    """One part-number family of ``data/quote_catalogue.csv``."""

    pattern: re.Pattern[str]
    component: str
    price_key: str
    gpu_model: str
    cpu_vendor: str
    note: str
    source: str
    line: int


def read_catalogue(path: Path = CATALOGUE_FILE, book: PriceBook | None = None) -> tuple[CatalogueEntry, ...]:
    """Catalogue rows in file order; raises QuoteError naming the line of a bad row."""
    book = book or default_price_book()
    out = []
    for line, raw in _csv_rows(path):
        where = f"{path.name} line {line}"
        try:
            pattern = re.compile(rf"{_TOKEN_START}(?:{raw['pattern']})", re.IGNORECASE)
        except re.error as exc:
            raise QuoteError(f"{where}: bad pattern ({exc})") from None
        if raw["price_key"] and raw["price_key"] not in book:
            raise QuoteError(f"{where}: price_key {raw['price_key']!r} is not in the price book")
        if not raw["source"].strip():
            raise QuoteError(f"{where}: every catalogue row needs a source")
        out.append(
            CatalogueEntry(
                pattern,
                raw["component"],
                raw["price_key"],
                raw["gpu_model"],
                raw["cpu_vendor"],
                raw["note"],
                raw["source"],
                line,
            )
        )
    return tuple(out)


@lru_cache(maxsize=1)  # keyed on nothing: the shipped catalogue file, a tuple; catalogue_match keys on its id()
def default_catalogue() -> tuple[CatalogueEntry, ...]:
    """The shipped catalogue (cached)."""
    return read_catalogue()


def catalogue_match(part_number: str, description: str, catalogue: Sequence[CatalogueEntry]) -> CatalogueEntry | None:
    """The catalogue entry of the line's part number, else of a part-number token in its description.

    Within one text the earliest token wins (one search of all the catalogue's patterns at once).
    """
    combined = _COMBINED.get(id(catalogue))
    if combined is None or combined[0] is not catalogue:
        combined = _COMBINED[id(catalogue)] = (catalogue, _combined(catalogue))
    pattern = combined[1]
    for text in (part_number, description):
        m = pattern.search(text) if text else None
        if m is not None:
            name = next(k for k, v in m.groupdict().items() if v is not None)
            return catalogue[int(name[1:])]
    return None


_COMBINED: dict[int, tuple[Sequence[CatalogueEntry], re.Pattern[str]]] = {}


def _combined(catalogue: Sequence[CatalogueEntry]) -> re.Pattern[str]:
    """All catalogue patterns as one regex whose named group ``c<i>`` says which entry matched."""
    alternatives = "|".join(
        f"(?P<c{i}>{e.pattern.pattern.removeprefix(_TOKEN_START)})" for i, e in enumerate(catalogue)
    )
    return re.compile(f"{_TOKEN_START}(?:{alternatives})", re.IGNORECASE)


# --- identity -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    """What a line is: component, price-book key, the rule's findings, how sure, and by what (basis)."""

    component: str | None
    category: str | None
    price_key: str | None
    findings: tuple[str, ...]
    recommended_key: str | None
    size_unit: str
    book_size: float
    confidence: float
    basis: str
    """``catalogue``, ``system``, ``rules`` or ``""`` (nothing matched)."""
    gpu_model: str | None = None
    cpu_vendor: str | None = None

    @property
    def status(self) -> str:
        """``classified``, ``unsure`` (below UNSURE_BELOW) or ``unmatched``."""
        if self.component is None:
            return "unmatched"
        return "classified" if self.confidence >= UNSURE_BELOW else "unsure"


UNMATCHED = Identity(None, None, None, (), None, "", 1.0, 0.0, "")


def identity_of_rule(rule: Rule, confidence: float, basis: str = "rules") -> Identity:
    """A rule's identity."""
    return Identity(
        rule.component,
        rule.category,
        rule.price_key or None,
        rule.findings,
        rule.recommended_key or None,
        rule.size_unit,
        rule.book_size,
        confidence,
        basis,
    )


def identify_rules(text: str, rules: Sequence[Rule]) -> Identity:
    """The identity the rules give a text, with its confidence (UNMATCHED when no rule matches)."""
    norm = normalise(text)
    scored = score_rules(norm, rules)
    if not scored:
        return UNMATCHED
    best = scored[0][1]
    weights = kind_weights(norm)
    rival_noun = max((w for k, w in weights.items() if k in _STRONG_KINDS and k != best.kind and w >= 0.6), default=0)
    confidence = confidence_of(scored) * (1 - 0.35 * rival_noun)  # the head also names another kind of part
    return identity_of_rule(best, round(confidence, 3))


def identity_of_entry(entry: CatalogueEntry, rules: Sequence[Rule]) -> Identity:
    """A catalogue entry's identity: the rule that owns its price key gives category, findings and sizes."""
    rule = next((r for r in rules if entry.price_key and r.price_key == entry.price_key), None)
    if rule is not None:
        ident = identity_of_rule(rule, CATALOGUE_CONFIDENCE, "catalogue")
        return Identity(
            entry.component or ident.component,
            ident.category,
            ident.price_key,
            ident.findings,
            ident.recommended_key,
            ident.size_unit,
            ident.book_size,
            CATALOGUE_CONFIDENCE,
            "catalogue",
            entry.gpu_model or None,
            entry.cpu_vendor or None,
        )
    return Identity(
        entry.component,
        "compute",
        entry.price_key or None,
        (),
        None,
        "",
        1.0,
        CATALOGUE_CONFIDENCE,
        "catalogue",
        entry.gpu_model or None,
        entry.cpu_vendor or None,
    )


def size_of(text: str, unit: str) -> float | None:
    """The first size in ``text`` in ``unit`` (GB, TB or year) [unit]."""
    m = _SIZE[unit].search(text) if unit else None
    if m is None and unit == "year":
        months = _MONTHS.search(text)
        return int(months.group(1)) / 12.0 if months and 0 < int(months.group(1)) <= 240 else None
    if m is None:
        return None
    value = float(m.group(1))
    return value if 0 < value < 1e6 else None

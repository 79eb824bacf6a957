"""The words quotes are written in: column headers and row vocabularies, read from ``data/``.

``data/quote_headers.csv`` names the columns of a quote table in several languages (role, score, names);
``data/quote_vocabulary.csv`` holds the other vocabularies (totals, tax, notes, free-of-charge words, price units,
option titles, "select one", the words that make ¥ yuan or yen), one regex alternative per language row. Both are
read once. Text is compared after :func:`fold`: NFKC (fullwidth ``￥``/``（`` → ``¥``/``(``), Latin accents
dropped (``é`` → ``e``; kana and Hangul kept), lower case.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

from ..inputs.pricebook import DATA_DIR
from .errors import QuoteError

HEADERS_FILE = DATA_DIR / "quote_headers.csv"
VOCABULARY_FILE = DATA_DIR / "quote_vocabulary.csv"
HEADER_ROLES = (
    "line",
    "part",
    "manufacturer",
    "description",
    "category",
    "quantity",
    "qty_per_server",
    "qty_total",
    "nodes",
    "qty_per_rack",
    "racks",
    "list",
    "discount",
    "unit",
    "extended",
    "ext_list",
    "currency",
)
_LATIN_MARK = re.compile(r"(?<=[A-Za-z])[\u0300-\u036f]+")


@lru_cache(maxsize=65_536)  # keyed on a text, a pure function of it; quotes repeat cell texts
def fold(text: str) -> str:
    """``text`` compared as words: NFKC, Latin accents dropped (kana voicing and Hangul kept), lower case."""
    s = unicodedata.normalize("NFKC", text)
    if s.isascii():
        return s.lower()
    s = unicodedata.normalize("NFC", _LATIN_MARK.sub("", unicodedata.normalize("NFD", s)))
    return s.replace("ł", "l").lower()


def _rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    """(file line, record) of a vocabulary CSV whose '#' lines are comments."""
    lines = path.read_text(encoding="utf-8").splitlines()
    numbered = [(i, ln) for i, ln in enumerate(lines, start=1) if ln.strip() and not ln.startswith("#")]
    reader = csv.DictReader([ln for _, ln in numbered])
    return [(line, dict(raw)) for (line, _), raw in zip(numbered[1:], reader, strict=True)]


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/quote_headers.csv, read once
def header_names() -> dict[str, tuple[tuple[str, int], ...]]:
    """Folded header name → its (role, score) pairs, from ``data/quote_headers.csv``; QuoteError on a bad row."""
    out: dict[str, list[tuple[str, int]]] = {}
    for line, raw in _rows(HEADERS_FILE):
        role, score = raw["role"], raw["score"]
        if role not in HEADER_ROLES or score not in ("1", "2", "3"):
            raise QuoteError(f"{HEADERS_FILE.name} line {line}: bad role {role!r} or score {score!r}")
        for name in raw["names"].split("|"):
            key = header_key(name)
            if key and (role, int(score)) not in out.setdefault(key, []):
                out[key].append((role, int(score)))
    return {k: tuple(v) for k, v in out.items()}


_CURRENCY_WORDS = re.compile(
    r"\b(usd|us|dollars?|eur|euros?|gbp|chf|jpy|cny|rmb|inr|cad|aud|sek|nok|dkk|pln|sgd|hkd|krw)\b|[$€£¥₹₩]|"
    r"人民币|人民幣|日本円|円|元|원|税抜|税込|不含税|含税|税别|未税"
)


@lru_cache(maxsize=16_384)  # keyed on a header cell, a pure function of it and the read-only vocabulary
def header_key(cell: str) -> str:
    """A header cell reduced to words: ``Unit Price (US$)`` → ``unit price``, ``単価（円）`` → ``単価``."""
    s = fold(cell).replace("#", " # ")
    s = _CURRENCY_WORDS.sub(" ", s)
    s = re.sub(r"[^\w#/% ]+|_", " ", s)
    return " ".join(s.split())


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/quote_vocabulary.csv, read once
def _vocabularies() -> dict[str, str]:
    """Vocabulary name → its alternatives joined with '|' (each wrapped in a group)."""
    parts: dict[str, list[str]] = {}
    lines = VOCABULARY_FILE.read_text(encoding="utf-8").splitlines()
    for line, text in list(enumerate(lines, start=1))[1:]:
        if not text.strip() or text.startswith("#"):
            continue
        name, _language, regex = [*text.split(",", 2), "", ""][:3]
        try:
            re.compile(regex)
        except re.error as exc:
            raise QuoteError(f"{VOCABULARY_FILE.name} line {line}: bad pattern ({exc})") from None
        parts.setdefault(name, []).append(f"(?:{regex})")
    return {name: "|".join(alts) for name, alts in parts.items()}


def words(name: str) -> str:
    """The regex alternatives of vocabulary ``name`` (all languages), as one group-safe string."""
    try:
        return f"(?:{_vocabularies()[name]})"
    except KeyError:
        raise QuoteError(f"{VOCABULARY_FILE.name}: no vocabulary named {name!r}") from None


@lru_cache(maxsize=256)  # keyed on (vocabulary, template); compiled once from the read-only vocabulary
def pattern(name: str, template: str = "{}") -> re.Pattern[str]:
    """Vocabulary ``name`` compiled into ``template`` (``{}`` marks where), case-insensitive."""
    return re.compile(template.replace("{}", words(name)), re.IGNORECASE)

"""Step 5 of reading a quote: sections and options — alternatives the quote offers side by side, never summed.

A quote offers options when

* sheets or section titles name them: ``Option A``, ``Option 2``, ``Alternative``, ``Variante B``, ``方案一``,
  ``オプションB`` (``option_title`` in ``data/quote_vocabulary.csv``), or
* its text says to pick one (``select one``, ``choose either``, ``二选一``, ``いずれか``; ``select_one``) and two or
  more sheets, or two or more sections of one sheet, each state their own total.

An option runs from its title to the next option title or to the total that closes it (a grand total, or a total
naming it); lines before the first option, after a closing total and on sheets that are no option are common to
every option (a cover sheet's services, a shared network). Each line gets the label of its option (``""`` when
common).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from .raw import RawLine, StatedTotal
from .rows import is_grand_total
from .vocab import fold, pattern

MAX_OPTIONS = 12


def option_label(text: str) -> str | None:
    """The option a title names (``Option A: 16x H100`` → ``Option A``), else None."""
    m = pattern("option_title").search(unicodedata.normalize("NFKC", text))  # letters keep their case: "Option A"
    return " ".join(m.group(0).split()).strip(" -:#") or None if m is not None else None


@lru_cache(maxsize=4_096)  # keyed on a section title or a description, a pure function of it and the vocabulary
def is_spares(text: str) -> bool:
    """True for a spares pool or an advance-replacement kit ("Spares pool", "Advance replacement kit", "备件")."""
    return bool(text) and bool(pattern("spares").search(fold(text)))


@lru_cache(maxsize=1_024)  # keyed on a section title, a pure function of it and the vocabulary
def optional_section(title: str) -> bool:
    """True for a section of optional items the quote offers but does not total ("Optional items", "选配")."""
    return bool(title) and option_label(title) is None and bool(pattern("optional_title").search(fold(title)))


def says_select_one(statements: Sequence[str]) -> bool:
    """True when the quote's text says its parts are alternatives to pick one of."""
    select = pattern("select_one")
    return any(select.search(fold(s)) for s in statements)


def _closes(total: StatedTotal, label: str) -> bool:
    """True when a total row ends the option ``label`` (a grand total, or a total naming the option)."""
    return is_grand_total(total.label) or fold(label) in fold(total.label)


def options_by_section(lines: Sequence[RawLine], totals: Sequence[StatedTotal]) -> list[RawLine]:
    """The lines of one sheet with the option their section titles name (see the module docstring)."""
    out: list[RawLine] = []
    current, started, section = "", 0, None
    closing = sorted(totals, key=lambda t: t.row)
    k = 0
    for ln in lines:
        while k < len(closing) and closing[k].row < ln.row:
            if current and closing[k].row > started and _closes(closing[k], current):
                current = ""
            k += 1
        if ln.section != section:
            section = ln.section
            named = option_label(section) if section else None
            if named is not None:
                current, started = named, ln.row
        out.append(replace(ln, option=current) if current else ln)
    return out


def sections_with_totals(lines: Sequence[RawLine], totals: Sequence[StatedTotal]) -> list[str]:
    """Sections of one sheet that each state their own total (a total row right after their lines), in order."""
    out: list[str] = []
    closing = sorted(totals, key=lambda t: t.row)
    k = 0
    last: RawLine | None = None
    for ln in [*lines, None]:
        while k < len(closing) and (ln is None or closing[k].row < ln.row):
            if last is not None and last.section and last.section not in out:
                out.append(last.section)
            k += 1
        last = ln
    return out


def distinct(labels: Sequence[str]) -> list[str]:
    """Option labels made distinct: a repeated label gets its position (``Alternative (2)``)."""
    out: list[str] = []
    for label in labels:
        name = label
        k = 2
        while name in out:
            name = f"{label} ({k})"
            k += 1
        out.append(name)
    return out


GPU_WORDS = re.compile(r"\b(HGX|DGX|H100|H200|H20|B200|B300|GB200|GB300|NVL\s?72|GPU)\b", re.IGNORECASE)

"""Text that is safe in a spreadsheet cell: the one formula-injection escape of every export.

A spreadsheet runs text that starts with ``= + - @``, a tab or a carriage return as a formula (OWASP's CSV
injection list). Every export — the plan's workbook and CSVs (:mod:`neoplan.export`) and the quote review's
annotated files (:mod:`neoplan.quote.export`) — writes such text with a leading apostrophe (CSV) or Excel's quote
prefix (xlsx, see :func:`neoplan.export.workbook.put`), so it shows unchanged and never runs.
"""

from __future__ import annotations

import math
import re
from typing import Any

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet treat text as a formula (OWASP CSV injection)."""
_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def is_formula_like(text: str) -> bool:
    """True if a spreadsheet could read ``text`` as a formula (it starts with ``= + - @``, tab or CR)."""
    return text.startswith(FORMULA_TRIGGERS)


def formula_safe(value: Any) -> Any:
    """``value`` with a leading apostrophe if it is formula-like text; anything else unchanged."""
    return "'" + value if isinstance(value, str) and is_formula_like(value) else value


def xml_text(text: str) -> str:
    """``text`` without the control characters an xlsx file cannot hold (tab, LF and CR stay)."""
    return _ILLEGAL_XML.sub("", text)


def safe_cell(value: Any) -> Any:
    """A value safe to put in a spreadsheet cell: numbers stay numbers (undefined ones ``""``), ``None`` is ``""``,
    booleans are text; text loses the characters XML forbids and gets :func:`formula_safe`'s apostrophe."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return value if math.isfinite(value) else ""
    return formula_safe(xml_text(str(value)))

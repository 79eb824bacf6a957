"""Number formats of every page (the same as the exports; see neoplan.formats), ``plain`` for user text and
``dollar_column`` for money in a table."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import streamlit as st

from neoplan.formats import (
    NA,
    count,
    kw,
    months,
    mw,
    pct,
    ratio,
    tokens_per_second,
    usd,
    usd_exact,
    usd_per_gpu_hour,
    usd_per_million_tokens,
)

if TYPE_CHECKING:  # what every st.column_config.* returns; Streamlit 1.67 does not name it in st.typing
    from streamlit.elements.lib.column_types import ColumnConfig

__all__ = [
    "NA",
    "ColumnConfig",
    "count",
    "dollar_column",
    "kw",
    "months",
    "mw",
    "pct",
    "plain",
    "ratio",
    "tokens_per_second",
    "usd",
    "usd_exact",
    "usd_per_gpu_hour",
    "usd_per_million_tokens",
]

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
"""Every ASCII punctuation character: CommonMark lets each be escaped with a backslash and shows it as is."""


def plain(text: object) -> str:
    """``text`` escaped for Streamlit Markdown so it shows literally: no image, link, HTML, emphasis, colour or
    icon directive (``:red[…]``, ``:material/…:``), LaTeX (``$…$``) or heading comes out of it. Line breaks and
    runs of whitespace become single spaces (a line starting ``#`` or ``-`` would otherwise turn into a block)."""
    return _PUNCTUATION.sub(r"\\\1", " ".join(str(text).split()))


def dollar_column(label: str | None = None) -> ColumnConfig:
    """A table column of whole dollars ($1,234), formatted by the browser (no pandas Styler)."""
    return st.column_config.NumberColumn(label, format="dollar", step=1)

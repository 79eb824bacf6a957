"""Number formats of every page (the same as the exports; see neoplan.formats), ``plain`` for user text and
``dollar_column`` for money in a table."""

from __future__ import annotations

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
from neoplan.plaintext import for_markdown

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
    "node_word",
    "pct",
    "plain",
    "ratio",
    "tokens_per_second",
    "usd",
    "usd_exact",
    "usd_per_gpu_hour",
    "usd_per_million_tokens",
]


def plain(text: object) -> str:
    """``text`` escaped for Streamlit Markdown so it shows literally (:func:`neoplan.plaintext.for_markdown`): no
    image, link (GFM's bare-URL and e-mail autolinks included), HTML, emphasis, colour or icon directive
    (``:red[…]``, ``:material/…:``), LaTeX (``$…$``) or heading comes out of it, on one line."""
    return for_markdown(text)


def node_word(rack_scale: bool, plural: bool = False) -> str:
    """What a node is called: a ``server`` (HGX), or a ``rack`` for a rack-scale NVL72 system (18 compute trays)."""
    word = "rack" if rack_scale else "server"
    return word + "s" if plural else word


def dollar_column(label: str | None = None) -> ColumnConfig:
    """A table column of whole dollars ($1,234), formatted by the browser (no pandas Styler)."""
    return st.column_config.NumberColumn(label, format="dollar", step=1)

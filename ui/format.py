"""Number formats of every page (the same as the exports; see neoplan.formats) and ``plain`` for user text."""

import re

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

__all__ = [
    "NA",
    "count",
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

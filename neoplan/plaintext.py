"""User text shown as text: the one place that escapes a string a user wrote (a scenario's name or description, a
saved name, a file name, a cell of a quote) for the two renderers that would otherwise read markup into it.

- :func:`for_plotly`: plotly draws titles, tick labels, legends, hover and annotation text from a subset of HTML
  (``<a href>``, ``<span style>``, ``<b>``, ``<br>``, …) and reads ``$…$`` as LaTeX; a name like
  ``<span style="fill:url(//host/x)">`` would make every viewer's browser fetch that address. Escaped, it shows as
  typed. The chart modules (:mod:`neoplan.charts`) pass every user string through it.
- :func:`for_markdown`: Streamlit renders bodies, captions, alerts, labels and help texts as GitHub-flavoured
  Markdown; every ASCII punctuation character is backslash-escaped (no link, image, HTML, emphasis, colour or icon
  directive, LaTeX or heading), and what GFM turns into links by itself (``www.…``, ``http://…``, ``a@b.c``) is
  broken with an invisible word joiner (U+2060) so it stays text.

Tables (``st.dataframe``) draw cells as text and need neither.

Both are pure, and idempotent on what they return being shown: escaping twice shows the escapes, so escape once, where
the text meets the renderer.
"""

from __future__ import annotations

import re

WORD_JOINER = "\u2060"
"""An invisible character that ends a GFM autolink match (it is neither a letter nor punctuation)."""
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
"""Every ASCII punctuation character: CommonMark lets each be escaped with a backslash and shows it as is."""
_AUTOLINK_STARTS = re.compile(r"(?i)(https?|ftp|mailto|xmpp|www)(?=[:.])|(?=@)")
"""Where GFM's autolink literals start (``http:``, ``www.``) and the ``@`` of an e-mail address."""


def for_markdown(text: object) -> str:
    """``text`` escaped for Streamlit Markdown so it shows literally, on one line.

    Line breaks and runs of whitespace become single spaces (a line starting ``#`` or ``-`` would otherwise turn
    into a block).
    """
    one_line = " ".join(str(text).split())
    unlinked = _AUTOLINK_STARTS.sub(lambda m: m.group(0) + WORD_JOINER, one_line)
    return _PUNCTUATION.sub(r"\\\1", unlinked)


def for_plotly(text: object) -> str:
    """``text`` escaped for any plotly string (title, tick label, legend, hover, annotation): ``&``, ``<`` and ``>``
    as entities (plotly shows them as the characters), and a leading ``$`` as ``&#36;`` (no LaTeX)."""
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "&#36;" + escaped[1:] if escaped.startswith("$") else escaped

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

What may be stored is checked here too: :func:`text_problem` refuses control, bidirectional and zero-width characters
in names and descriptions; :func:`for_terminal` and :func:`visible` write such characters as escapes (the CLI's
output, text stored before the rule).

Both are pure, and idempotent on what they return being shown: escaping twice shows the escapes, so escape once, where
the text meets the renderer.
"""

from __future__ import annotations

import re
import unicodedata

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


INVISIBLE = frozenset(
    [
        *(0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)),  # bidi marks, embeddings, isolates
        *(0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0x180E),  # zero-width and invisible characters
    ]
)
"""Characters that change how the text around them reads without being seen: bidirectional controls (a name can
show as ``gpj.exe`` while it is ``exe.jpg``) and zero-width characters (two names that look alike, one invisible)."""


def text_problem(text: str, *, lines: bool = False) -> str | None:
    """Why ``text`` cannot be stored as user text (None if it can): control characters (a line break and a tab
    allowed with ``lines``), bidirectional or zero-width characters, other format characters, unpaired surrogates.
    The message names the first such character by its code point."""
    for ch in text:
        code = ord(ch)
        category = unicodedata.category(ch)
        if category == "Cs":
            return "cannot contain unpaired surrogate characters (the text is not valid Unicode)"
        if lines and ch in "\n\t":
            continue
        if category == "Cc" or category in ("Zl", "Zp"):
            return f"cannot contain line breaks or control characters (U+{code:04X})"
        if code in INVISIBLE or category == "Cf":
            return f"cannot contain invisible or bidirectional formatting characters (U+{code:04X})"
    return None


_VISIBLE = {
    code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    for code in (*range(0x20), 0x7F, *range(0x80, 0xA0), *INVISIBLE)
    if chr(code) not in "\n\t"
}


def for_terminal(text: str) -> str:
    """``text`` with every control, bidirectional and zero-width character written visibly (``\\x1b``, ``\\u202e``),
    so printing it cannot move the cursor, recolour the terminal or reorder what is shown. Line breaks and tabs stay."""
    return text.translate(_VISIBLE)


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every character :func:`text_problem` refuses written as its escape (``\\u202e``): how text
    stored before that rule is shown, so nothing is lost and nothing is hidden."""
    out = []
    for ch in text:
        code = ord(ch)
        if text_problem(ch, lines=lines) is None:
            out.append(ch)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)


def for_plotly(text: object) -> str:
    """``text`` escaped for any plotly string (title, tick label, legend, hover, annotation): ``&``, ``<`` and ``>``
    as entities (plotly shows them as the characters), and a leading ``$`` as ``&#36;`` (no LaTeX)."""
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "&#36;" + escaped[1:] if escaped.startswith("$") else escaped

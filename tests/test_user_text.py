"""User text (scenario name and description, anything from a scenario file) is shown as text on every page, never
rendered as Markdown or HTML: an image link in a shared scenario must not make the browser fetch an outside address.

Streamlit renders the bodies of markdown, captions, alerts, titles, metric labels and widget labels as Markdown; a
body is safe when every Markdown/HTML character of the user text in it is escaped (``ui.format.plain``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf.message import Message
from streamlit.testing.v1 import AppTest

import neoplan
from ui import format as fmt
from ui.state import SCENARIO

ROOT = Path(__file__).resolve().parent.parent
PAYLOAD = "![x](http://127.0.0.1:9/x.png) **bold** <img src=x> see www.example.com, https://127.0.0.1:9/y or a@b.co"
PAGES = [
    "overview",
    "compute_node",
    "network",
    "storage_site",
    "operations",
    "financing",
    "pricing",
    "results",
    "stress_test",
    "compare",
    "export",
    "search",
]
"""Every page but Scenarios and Quote review (tested with their own pages); the header and sidebar are checked with
each page."""
OPENED = (
    "stress.drivers_open",
    "stress.tornado_table_open",
    "financing.monthly_open",
    "storage.capex_lines_open",
    "node.book_changes_open",
    "pricing.market_open",
    "network.topology_open",
)
"""The expanders that draw their content only when open (``ui.widgets.lazy_expander``): opened here."""
SHOWS_NAME = {"overview", "results", "export"}
"""Pages whose body names the scenario (the others show it only in the shared header and sidebar)."""
PLAIN_TEXT = {"text", "code", "arrow_data_frame", "selectbox", "multiselect", "text_input", "text_area"}
"""Elements whose strings Streamlit shows as text (no Markdown), where the raw user text is fine."""
UNSAFE = re.compile(r"(?<!\\)!\[|(?<!\\)<img|(?<!\\)\*\*bold")
"""An image link, an HTML tag or emphasis from the payload that Markdown would render (not backslash-escaped)."""


AUTOLINK = re.compile(r"www\.example\.com|https://127\.0\.0\.1:9/y|a@b\.co")
"""The payload's bare URLs and e-mail address as GFM would link them by itself (it matches the parsed text, once
backslash escapes are resolved)."""


def parsed(markdown: str) -> str:
    """A Markdown body's text as the parser hands it on: backslash escapes resolved, invisible characters kept."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def shown(markdown: str) -> str:
    """A Markdown body as it reads on screen: escapes resolved, the invisible word joiner (U+2060) gone."""
    return parsed(markdown).replace("\u2060", "")


def _strings(message: Message) -> Iterator[str]:
    """Every string field of a protobuf message, nested messages and repeated fields included."""
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        for item in values:
            if isinstance(item, Message):
                yield from _strings(item)
            elif isinstance(item, str):
                yield item


def _rendered(at: AppTest) -> Iterator[tuple[str, str]]:
    """(element type, string) of every string Streamlit may render as Markdown, main area and sidebar."""
    stack = [at.main, at.sidebar]  # the tree's blocks and elements
    while stack:
        node = stack.pop()
        stack.extend(getattr(node, "children", {}).values())
        proto = getattr(node, "proto", None)
        kind = getattr(node, "type", "")
        if isinstance(proto, Message) and kind not in PLAIN_TEXT:
            for text in _strings(proto):
                yield kind, text


def _shared_scenario() -> neoplan.Scenario:
    """A scenario as someone might share it: name and description carry Markdown and HTML."""
    return neoplan.load_scenario(
        {"base": "optimized", "name": f"Shared {PAYLOAD}", "description": f"{PAYLOAD} # not a heading"}
    )


def test_plain_escapes_every_markdown_construct() -> None:
    text = f"{PAYLOAD} :red[x] :material/home: $x^2$ `code` _em_ # h\n- item"
    escaped = fmt.plain(text)
    assert not UNSAFE.search(escaped)
    assert not AUTOLINK.search(parsed(escaped))  # no bare URL or e-mail address left for GFM to link
    assert shown(escaped) == " ".join(text.split())  # reads exactly as typed, on one line
    for construct in (":red[", ":material/", "$x", "`code", "_em_", "# h", "- item"):
        assert not re.search(r"(?<!\\)" + re.escape(construct), escaped), construct


@pytest.mark.parametrize("page", PAGES)
def test_user_text_is_never_rendered_as_markdown(page: str) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.session_state["stress.draws"] = "200"  # keep the Stress test page quick
    for key in OPENED:
        at.session_state[key] = True
    at.run()
    at.session_state[SCENARIO] = _shared_scenario()  # the open scenario, as after loading the shared file
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, at.exception
    rendered = list(_rendered(at))
    unsafe = [(kind, text) for kind, text in rendered if UNSAFE.search(text) or AUTOLINK.search(parsed(text))]
    assert not unsafe, unsafe
    if page in SHOWS_NAME:
        assert any(f"Shared {PAYLOAD}" in shown(text) for _, text in rendered), "the scenario name is not shown"

"""User text meets plotly and Markdown only through neoplan.plaintext, and shows as typed (issue 23: saved names
reached the Compare charts unescaped and plotly rendered their ``<a href>`` and ``<span style="fill:url(…)">``).
Every chart that shows a user's text (scenario names, a quote's items and sheets, a cost line's item) is checked
here; tests/test_browser_journeys.py checks the same in Chromium against a bait server."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from typing import Any

import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st
from plotly_support import as_json

import neoplan
from neoplan.charts.compare import capex_compare_figure, cumulative_cash_compare_figure, tco_compare_figure
from neoplan.charts.site import capex_treemap_figure
from neoplan.plaintext import WORD_JOINER, for_markdown, for_plotly

MARKUP = [
    '<a href="http://127.0.0.1:9/a">click</a>',
    '<span style="fill:url(http://127.0.0.1:9/b)">x</span>',
    "<b>bold</b><br><i>it</i><sub>2</sub>",
    "$x^2$",
    "%{x} %{y:.2f} <extra>trace</extra>",
    "AT&T &lt;tag&gt;",
]
PLOTLY_TAG = re.compile(r"<\s*/?\s*(a|span|b|i|br|sub|sup|em|s|u|extra)\b", re.IGNORECASE)


@pytest.mark.parametrize("text", MARKUP)
def test_for_plotly_leaves_no_tag_and_reads_as_typed(text: str) -> None:
    escaped = for_plotly(text)
    assert not PLOTLY_TAG.search(escaped)
    assert not escaped.startswith("$")
    assert html.unescape(escaped) == text  # plotly turns the entities back into the characters typed


@given(st.text(max_size=200))
def test_for_plotly_round_trips_any_text(text: str) -> None:
    escaped = for_plotly(text)
    assert "<" not in escaped and ">" not in escaped
    assert html.unescape(escaped) == text


@given(st.text(max_size=200))
def test_for_markdown_shows_any_text_on_one_line(text: str) -> None:
    escaped = for_markdown(text)
    resolved = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", escaped)
    assert resolved.replace(WORD_JOINER, "") == " ".join(text.split())
    assert not re.search(r"(?i)(https?|www)[:.]", resolved)  # no bare URL GFM would link
    assert not re.search(r"\w@", resolved)  # no e-mail address


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def assert_plain(figure: go.Figure, typed: str) -> None:
    """``typed`` is drawn (some string of the figure reads as it once plotly resolves its entities), no string of
    the figure carries its markup as markup, and it is in no hover template (where plotly reads ``%{…}``)."""
    spec = as_json(figure)
    strings = list(_strings(spec["data"])) + list(_strings(spec["layout"]))
    assert not [s for s in strings if "<" in typed and typed in s], "markup reached plotly as markup"
    assert not [s for s in strings if re.search(r"<\s*(a|span)\b", s, re.IGNORECASE)], (
        "a link or a style reached plotly"
    )
    assert not [s for s in strings if s.startswith("$x")], "a $…$ would be LaTeX"
    assert any(typed in html.unescape(s) for s in strings), "the text is not drawn"
    templates = [t.get("hovertemplate", "") for t in spec["data"]]
    assert not [t for t in templates if "127.0.0.1" in t or "%{x} %{y" in t], "user text in a hover template"


@pytest.fixture(scope="module")
def results() -> dict[str, neoplan.Result]:
    base = neoplan.evaluate(neoplan.load_scenario("optimized"))
    other = neoplan.evaluate(neoplan.load_scenario("reference"))
    return {MARKUP[0]: base, MARKUP[1]: other, MARKUP[3]: base, MARKUP[4]: other}


@pytest.mark.parametrize("build", [capex_compare_figure, tco_compare_figure, cumulative_cash_compare_figure])
def test_compare_figures_draw_names_as_text(results: dict[str, neoplan.Result], build: Callable) -> None:
    figure = build(results)
    for name in results:
        assert_plain(figure, name)


def test_a_cost_lines_item_is_drawn_as_text() -> None:
    """A price override can name a line anything: the treemap shows it as typed."""
    r = neoplan.evaluate(neoplan.load_scenario("optimized"))
    line = r.capex_lines[0]
    object.__setattr__(line, "item", MARKUP[1])  # as if the book had named it so
    assert_plain(capex_treemap_figure(r), MARKUP[1])


def test_a_quotes_text_is_drawn_as_text() -> None:
    """Findings name the quote's own sheets; a sheet named with markup shows as typed."""
    from pathlib import Path

    from neoplan.charts.quote import findings_figure
    from neoplan.quote import read_quote_file, review_quote

    review = review_quote(
        read_quote_file(Path(__file__).parent.parent / "data" / "quotes" / "oem_padded_1024_h100.xlsx")
    )
    finding = review.findings[0]
    object.__setattr__(finding, "sources", ((MARKUP[0], 7),))
    assert_plain(findings_figure(review), MARKUP[0])

"""User text meets plotly and Markdown only through neoplan.plaintext, and shows as typed (issue 23: saved names
reached the Compare charts unescaped and plotly rendered their ``<a href>`` and ``<span style="fill:url(…)">``)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import neoplan
from neoplan.charts.compare import capex_compare_figure, cumulative_cash_compare_figure, tco_compare_figure
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


@pytest.fixture(scope="module")
def results() -> dict[str, neoplan.Result]:
    base = neoplan.evaluate(neoplan.load_scenario("optimized"))
    other = neoplan.evaluate(neoplan.load_scenario("reference"))
    return {MARKUP[0]: base, MARKUP[1]: other, MARKUP[3]: base}


@pytest.mark.parametrize("build", [capex_compare_figure, tco_compare_figure, cumulative_cash_compare_figure])
def test_compare_figures_draw_names_as_text(results: dict[str, neoplan.Result], build: Any) -> None:
    figure = build(results).to_plotly_json()
    strings = list(_strings(figure["data"])) + list(_strings(figure["layout"]))
    assert not [s for s in strings if "127.0.0.1:9" in s and PLOTLY_TAG.search(s)]
    assert any(html.unescape(s) == MARKUP[0] for s in strings), "the name is not drawn"
    assert not [s for s in strings if s.startswith("$x")]
    templates = [t["hovertemplate"] for t in figure["data"]]
    assert not [t for t in templates if "127.0.0.1" in t], "a user string became part of a hover template"

"""User text meets plotly and Markdown only through neoplan.plaintext, and shows as typed (issue 23: saved names
reached the Compare charts unescaped and plotly rendered their ``<a href>`` and ``<span style="fill:url(…)">``).
The Compare charts are Vega-Lite specs now: Vega draws the names, data values, as plain text."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from vega_support import assert_valid_spec

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


@pytest.fixture(scope="module")
def results() -> dict[str, neoplan.Result]:
    base = neoplan.evaluate(neoplan.load_scenario("optimized"))
    other = neoplan.evaluate(neoplan.load_scenario("reference"))
    return {MARKUP[0]: base, MARKUP[1]: other, MARKUP[3]: base}


def _placed(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    """Every string of a spec with the path of keys to it (list items add no key), and every key (its path ending
    in ``(key)``)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key, "(key)"), key
            yield from _placed(item, (*path, key))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _placed(item, path)


@pytest.mark.parametrize("build", [capex_compare_figure, tco_compare_figure, cumulative_cash_compare_figure])
def test_compare_figures_draw_names_as_text(results: dict[str, neoplan.Result], build: Any) -> None:
    """Vega draws data values (and a scale's domain, the legend) as plain text: the names go there exactly as typed,
    and nowhere else (not in a field name, a title, a tooltip or an expression, where Vega would read them)."""
    spec = build(results)
    assert_valid_spec(spec, build.__name__)
    placed = list(_placed(spec))
    names = [s for path, s in placed if path[-2:] == ("values", "scenario")]
    assert set(names) == set(results), "the names are not drawn as typed"
    if build is cumulative_cash_compare_figure:  # a line per scenario: the legend names them, in order
        assert [s for path, s in placed if path[-2:] == ("scale", "domain")] == list(results)
    elsewhere = [
        (path, s)
        for path, s in placed
        if path[-2:] not in (("values", "scenario"), ("scale", "domain")) and ("127.0.0.1" in s or s.startswith("$x"))
    ]
    assert not elsewhere, "a user string became part of the spec's structure"

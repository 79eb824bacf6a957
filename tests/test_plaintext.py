"""User text shows as typed (issue 23: saved names reached the Compare charts unescaped and plotly rendered their
``<a href>`` and ``<span style="fill:url(…)">``). Markdown meets it only through neoplan.plaintext; the charts are
Vega-Lite specs, where the names are data values, which Vega draws as plain text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from vega_support import assert_valid_spec

import neoplan
from neoplan.charts.compare import capex_compare_figure, cumulative_cash_compare_figure, tco_compare_figure
from neoplan.plaintext import WORD_JOINER, for_markdown

MARKUP = [
    '<a href="http://127.0.0.1:9/a">click</a>',
    '<span style="fill:url(http://127.0.0.1:9/b)">x</span>',
    "<b>bold</b><br><i>it</i><sub>2</sub>",
    "$x^2$",
    "%{x} %{y:.2f} <extra>trace</extra>",
    "AT&T &lt;tag&gt;",
]


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

"""The review's invariants as properties over GENERATED quotes (issue 22), not only over the corpus.

Every generated quote (tests/quote_strategies.py: random styles, header languages, currencies, free lines,
discounts, options, sub-items, prices far off the book) must review without a traceback and keep the invariants:

* a finding never saves more than the quote charges for the lines it cites (a bundled sub-item counts as part of
  its server's price; a stand-alone line at 0 / Included / N/C saves nothing);
* the findings' savings never add up to more than the quote total, nor does the padding headline;
* a discount line is never an item and no finding rests on one;
* options are never summed: the reviewed total is the reviewed option's own;
* a withheld finding says why, and the JSON carries ``option``, ``conflicts`` and ``withheld``;
* a reading that breaks a band (issue 38) shows no headline, comparison or saving resting on it.

Metamorphic properties: the same quote with English or Chinese / Japanese headers gives the same findings and size;
two options as two sheets, as two sections of one sheet, or each as a quote of its own give the same findings.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quote_strategies import Spec, quote_specs, render

from neoplan.quote import QuoteReview, read_quote, review_quote
from neoplan.quote.guard import TOLERANCE_USD, quoted_amount

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REL = 1e-6


def rate_of(spec: Spec) -> float | None:
    return None if spec.currency == "USD" else spec.rate


def review(spec: Spec, option: int | None = None) -> QuoteReview:
    data, name = render(spec)
    return review_quote(read_quote(data, name), usd_per_unit=rate_of(spec), option=option)


def check_invariants(r: QuoteReview, spec: Spec, k: int) -> None:
    by_id = {ln.id: ln for ln in r.lines}
    total = r.quote_total_usd
    for f in r.findings:
        if f.saving_usd > TOLERANCE_USD:
            assert f.saving_usd <= quoted_amount(f.lines, by_id) + TOLERANCE_USD, (f.code, f.detail)
        assert all(by_id[i].category != "discount" for i in f.lines if i in by_id), f.code
        cited = [by_id[i] for i in f.lines if i in by_id]
        if cited and all(ln.total_usd == 0 and ln.parent_id is None for ln in cited):
            assert f.saving_usd <= TOLERANCE_USD, f"{f.code} saves {f.saving_usd} on lines quoted at no charge"
    positive = sum(f.saving_usd for f in r.findings if f.saving_usd > 0)
    assert positive <= max(total, 0) + TOLERANCE_USD
    assert r.padding_saving_usd <= max(total, 0) + TOLERANCE_USD
    for ln in r.lines:
        if ln.total_usd < 0:
            assert ln.category == "discount", ln.description
        if ln.category == "discount":
            assert ln.component == "discount" and ln.parent_id is None
    assert all(w.reason for w in r.withheld)
    if r.implausible:  # a reading that breaks a band: no headline, no comparison, no saving resting on it
        assert r.saving_usd is None and r.recommended_total_usd is None and r.design_change_usd is None
        assert not r.comparison and r.headline_withheld == r.implausible[0].sentence
        rests = {i for b in r.implausible for i in b.lines}
        whole = any(b.whole_quote for b in r.implausible)
        assert not any(f.saving_usd and (whole or set(f.lines) & rests) for f in r.findings)
        assert all(b.cause in ("currency", "size", "quantity_basis", "classification") for b in r.implausible)
    assert total == pytest.approx(spec.option_total_usd(k), rel=REL, abs=1.0)  # options never summed
    record = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert {"option", "conflicts", "withheld"} <= set(record)


@SETTINGS
@given(quote_specs())
def test_invariants_hold_on_generated_quotes(spec: Spec) -> None:
    for k in range(len(spec.options)):
        r = review(spec, k + 1 if len(spec.options) > 1 else None)
        assert r.option == (None if len(spec.options) == 1 else r.options[k])
        check_invariants(r, spec, k)
        if len(spec.options) == 1:
            assert r.servers == spec.servers and r.gpus == 8 * spec.servers
        disagree = spec.stated is not None and spec.stated != spec.servers and len(spec.options) == 1
        # (with options the stated count may be any option's: not a reading of the one reviewed)
        assert bool(r.conflicts) == disagree, [c.sentence for c in r.conflicts]
        if disagree:
            (conflict,) = r.conflicts
            assert conflict.taken == "lines" and "--size-from stated" in conflict.sentence
            picked = review_quote(read_quote(*render(spec)), usd_per_unit=rate_of(spec), option=k + 1,
                                  size_from="stated")  # fmt: skip
            assert picked.servers == spec.stated and picked.size_from == "stated"


@SETTINGS
@given(quote_specs(languages=("en",), max_options=1), st.sampled_from(["zh", "ja", "ko", "de", "fr", "es"]))
def test_header_language_changes_nothing(spec: Spec, language: str) -> None:
    english = review(spec)
    other = review(replace(spec, language=language))
    assert (other.gpus, other.servers, other.gpu_model) == (english.gpus, english.servers, english.gpu_model)
    assert [(f.code, round(f.saving_usd)) for f in other.findings] == [
        (f.code, round(f.saving_usd)) for f in english.findings
    ]


def _found(r: QuoteReview) -> list[tuple[str, int]]:
    return sorted((f.code, round(f.saving_usd)) for f in r.findings)


@SETTINGS
@given(quote_specs(max_options=2).filter(lambda s: len(s.options) == 2))
def test_options_as_sheets_sections_or_quotes_give_the_same_findings(spec: Spec) -> None:
    sheets = replace(spec, option_layout="sheets")
    sections = replace(spec, option_layout="sections", xlsx=False)
    for k in range(2):
        alone = review(replace(spec, options=[spec.options[k]]))
        by_sheet, by_section = review(sheets, k + 1), review(sections, k + 1)
        assert (by_sheet.gpus, by_section.gpus) == (alone.gpus, alone.gpus)
        assert _found(by_sheet) == _found(alone) == _found(by_section)

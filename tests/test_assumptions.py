"""Non-price assumptions: ``data/assumptions.csv`` is the one home of the scenario defaults about the world."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest
from pydantic import BaseModel

from neoplan.errors import DataError
from neoplan.inputs.pricebook import (
    ASSUMPTION_COLUMNS,
    BASES,
    PriceBookError,
    assumed,
    assumed_count,
    default_assumptions,
    read_assumptions,
)
from neoplan.inputs.scenario import Scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_SOURCE = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "neoplan" / "inputs").glob("*.py")))
"""The scenario schema's source (its sections live in several modules of neoplan/inputs/)."""
ASSUMPTIONS = default_assumptions()
HEADER = ",".join(ASSUMPTION_COLUMNS)


def _field(key: str):
    """(section model, field info) of a scenario field path such as ``facility.pue``."""
    section, name = key.split(".")
    model = Scenario.model_fields[section].annotation
    assert isinstance(model, type) and issubclass(model, BaseModel), key
    assert name in model.model_fields, f"{key}: no such scenario field"
    return model, model.model_fields[name]


def test_the_assumptions_the_issue_names_are_in_data():
    for key in (
        "facility.colo_usd_per_kw_month",
        "facility.electricity_usd_per_kwh",
        "facility.pue",
        "facility.idle_power_share",
        "facility.busy_power_share",
        "opex.staff_loaded_cost_usd",
        "opex.transit_usd_per_month",
    ):
        assert key in ASSUMPTIONS
    assert assumed("facility.colo_usd_per_kw_month") == 174.0  # CBRE H1 2024: the 2024-10 site of region us-average
    assert assumed("facility.electricity_usd_per_kwh") == 0.08
    assert assumed("opex.staff_loaded_cost_usd") == 220_000.0
    assert assumed("opex.transit_usd_per_month") == 15_000.0


@pytest.mark.parametrize("key", sorted(ASSUMPTIONS))
def test_every_assumption_is_a_field_default_with_source_date_and_basis(key):
    row = ASSUMPTIONS[key]
    _, info = _field(key)
    assert info.default == row.value
    # int fields get ints, float fields floats (JSON stays 3, 1.3); an optional field's default is of its own type
    assert type(info.default) in (info.annotation, *[a for a in get_args(info.annotation) if a is not type(None)])
    assert row.basis in BASES and len(row.source) >= 20 and row.unit and row.description
    assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", row.date)
    if (info.json_schema_extra or {}).get("unit") == "fraction":
        assert row.unit.startswith("fraction"), key


@pytest.mark.parametrize("key", sorted(ASSUMPTIONS))
def test_the_number_lives_only_in_data(key):
    """scenario.py reads the default by key instead of writing the number."""
    assert re.search(rf'assumed(_count)?\("{re.escape(key)}"\)', SCENARIO_SOURCE), key


def test_every_default_read_from_data_has_a_row():
    read = set(re.findall(r"""assumed(?:_count)?\(["']([\w.]+)["']\)""", SCENARIO_SOURCE))
    assert read == set(ASSUMPTIONS)


def test_defaults_from_data_pass_the_fields_own_bounds():
    """pydantic does not validate defaults: a value in the file outside a field's bounds would slip through."""
    default = Scenario()
    again = Scenario.model_validate(default.model_dump())
    assert again == default


def _write(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "assumptions.csv"
    path.write_text("\n".join((HEADER, *rows)) + "\n", encoding="utf-8")
    return path


GOOD = 'facility.pue,"PUE",ratio,1.3,2024-07,"Uptime Institute survey 2024",estimate'


def test_a_good_file_reads(tmp_path):
    rows = read_assumptions(_write(tmp_path, GOOD))
    assert rows["facility.pue"].value == 1.3 and rows["facility.pue"].basis == "estimate"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('facility.pue,"PUE",ratio,1.3,2024-07,"",estimate', "row 2, column 'source': is empty"),
        (
            'facility.pue,"PUE",ratio,1.3,2024-07,"Uptime",guess',
            "row 2, column 'basis': input should be 'quoted', 'estimate' or 'fitted', got 'guess'",
        ),
        ('facility.pue,"PUE",ratio,1.3,July 2024,"Uptime",estimate', "row 2, column 'date': must be a date YYYY-MM"),
        (
            'facility.pue,"PUE",ratio,about 1.3,2024-07,"Uptime",estimate',
            "row 2, column 'value': must be a number, got 'about 1.3'",
        ),
        (
            'facility.pue,"PUE",ratio,nan,2024-07,"Uptime",estimate',
            "row 2, column 'value': must be a finite number, got 'nan'",
        ),
    ],
)
def test_a_bad_row_is_refused_with_its_row_and_column(tmp_path, row, message):
    with pytest.raises(DataError, match=re.escape(message)):
        read_assumptions(_write(tmp_path, row))


def test_a_key_defined_twice_is_refused(tmp_path):
    with pytest.raises(DataError, match=re.escape("row 3, column 'key': 'facility.pue' is already on row 2")):
        read_assumptions(_write(tmp_path, GOOD, GOOD))


def test_unknown_and_fractional_counts_are_errors():
    with pytest.raises(PriceBookError, match=re.escape("no key 'facility.nope'")):
        assumed("facility.nope")
    assert assumed_count("timeline.useful_life_months") == 72
    with pytest.raises(PriceBookError, match="must be a whole number"):
        assumed_count("timeline.integration_burn_in_weeks")  # 3.5 weeks


# --- finding texts cite the data they rest on ---------------------------------------------------------------------


def test_finding_texts_cite_the_price_book_and_the_backend_model(monkeypatch):
    from neoplan import quote
    from neoplan.design import fabric
    from neoplan.design.costs import total_usd
    from neoplan.quote import codes

    assert quote.UFM_REQUIRED_ABOVE_GPUS is fabric.UFM_REQUIRED_ABOVE_GPUS  # one definition, in fabric.py
    book = codes.default_price_book()

    def change(topology: str, oversubscription: float = 1.0) -> float:
        cost = total_usd(
            fabric.backend_lines(fabric.size_backend(128, topology=topology, oversubscription=oversubscription), book)
        )
        return cost / total_usd(fabric.backend_lines(fabric.size_backend(128, topology="reference"), book)) - 1

    assert f"{change('vms'):+.1%} back-end cost at 1,024 GPUs" in codes.FINDINGS["optics_everywhere"][1]
    assert f"costs {-change('vms', 2.0):.1%} less than the reference" in codes.FINDINGS["backend_nonblocking"][1]
    assert "spines fall 16 → 8" in codes.FINDINGS["backend_nonblocking"][1]
    assert "$4,500 per GPU per year" in codes.FINDINGS["nvaie_license"][1]

    assert all("{" not in reason for _, reason in codes.FINDINGS.values())

    dearer = book.with_overrides({"nvidia_ai_enterprise_gpu_year": 5_250.0})
    codes._cited_figures.cache_clear()
    monkeypatch.setattr(codes, "default_price_book", lambda: dearer)
    try:
        assert "$5,250 per GPU per year" in codes.FINDINGS["nvaie_license"][1]
    finally:
        codes._cited_figures.cache_clear()  # the next reader rebuilds them from the shipped book

"""A vendor's alias list: kept in the scenario library, applied to the next quote from that vendor (issue 22)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from neoplan.cli import main
from neoplan.errors import ScenarioError
from neoplan.library import Library
from neoplan.quote import (
    QuoteError,
    aliases_from,
    default_rules,
    parse_aliases,
    parse_corrections,
    read_quote,
    review_quote,
)

ALIASES = [
    {"pattern": "ACME-NIC-400", "category": "backend_nic", "quantity_basis": "per_server"},
    {"pattern": r"gpu\s+sled", "category": "system"},
]


def csv_bytes(rows: list[list[Any]]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


QUOTE: list[list[Any]] = [
    ["Part Number", "Description", "Qty", "Unit Price", "Extended Price"],
    ["ACME-SLED-8", "Acme GPU sled S8, H100", 16, "$250,000.00", "$4,000,000.00"],
    ["ACME-NIC-400", "Acme fabric card 400", 8, "$1,600.00", "$12,800.00"],
]


def test_library_keeps_aliases_by_vendor(tmp_path: Path) -> None:
    lib = Library(tmp_path / "lib.sqlite")
    assert lib.alias_vendors() == [] and lib.aliases("Acme") == []
    lib.save_aliases("Acme", ALIASES)
    lib.save_aliases("Zeta Systems", ALIASES[:1])
    assert lib.aliases("Acme") == ALIASES
    assert lib.alias_vendors() == ["Acme", "Zeta Systems"]
    lib.save_aliases("Acme", ALIASES[1:])  # a new list replaces the old one
    assert lib.aliases("Acme") == ALIASES[1:]
    assert Library(tmp_path / "lib.sqlite").aliases("Zeta Systems") == ALIASES[:1]  # kept on disk


@pytest.mark.parametrize(
    ("alias", "message"),
    [
        ({"category": "ram"}, "pattern"),
        ({"pattern": "X", "category": ""}, "category"),
        ({"pattern": "X", "category": "ram", "quantity_basis": "per_rack"}, "quantity_basis"),
    ],
)
def test_library_refuses_malformed_aliases(tmp_path: Path, alias: dict[str, str], message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        Library(tmp_path / "lib.sqlite").save_aliases("Acme", [alias])


def test_aliases_read_a_vendors_own_names() -> None:
    quote = read_quote(csv_bytes(QUOTE), "acme.csv")
    plain = review_quote(quote)
    assert plain.gpus is None  # "GPU sled" is no name the rules know
    fixed = review_quote(quote, aliases=ALIASES)
    assert (fixed.gpus, fixed.servers) == (128, 16)
    nic = next(ln for ln in fixed.lines if ln.part_number == "ACME-NIC-400")
    assert (nic.component, nic.cluster_quantity, nic.basis) == ("backend_nic", 128, "user")
    assert fixed.per_server["backend_nics"] == 8


def test_corrections_become_aliases_for_the_next_quote() -> None:
    quote = read_quote(csv_bytes(QUOTE), "acme.csv")
    corrections = parse_corrections(
        [
            {"sheet": "", "row": 2, "category": "system"},
            {"sheet": "", "row": 3, "quantity_basis": "per_server", "category": "backend_nic"},
        ],
        default_rules(),
    )
    saved = aliases_from(corrections, quote.lines)
    assert saved == [
        {"pattern": "ACME-SLED-8", "category": "system"},
        {"pattern": "ACME-NIC-400", "category": "backend_nic", "quantity_basis": "per_server"},
    ]
    second = read_quote(csv_bytes([QUOTE[0], ["ACME-SLED-8", "Acme sled", 4, 250_000, 1_000_000], QUOTE[2]]), "b.csv")
    assert review_quote(second, aliases=saved).servers == 4


def test_a_description_alias_is_escaped_text() -> None:
    rows: list[list[Any]] = [QUOTE[0], ["", "Acme GPU sled (8x H100) v2+", 2, 250_000, 500_000]]
    quote = read_quote(csv_bytes(rows), "c.csv")
    (alias,) = aliases_from(parse_corrections([{"row": 2, "category": "system"}], default_rules()), quote.lines)
    assert alias["pattern"] == r"Acme\ GPU\ sled\ \(8x\ H100\)\ v2\+"
    assert review_quote(quote, aliases=[alias]).servers == 2


def test_bad_aliases_are_refused_naming_the_entry() -> None:
    with pytest.raises(QuoteError, match="entry 2: category 'gpu thing'"):
        parse_aliases([ALIASES[0], {"pattern": "x", "category": "gpu thing"}], default_rules())


def test_cli_takes_an_alias_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quote = tmp_path / "acme.csv"
    quote.write_bytes(csv_bytes(QUOTE))
    aliases = tmp_path / "acme_aliases.json"
    aliases.write_text(json.dumps(ALIASES), encoding="utf-8")
    assert main(["quote", str(quote), "--json", "--aliases", str(aliases)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["gpus"], out["servers"]) == (128, 16)
    aliases.write_text("{not json", encoding="utf-8")
    assert main(["quote", str(quote), "--aliases", str(aliases)]) == 2
    err = capsys.readouterr().err.strip()
    assert "--aliases" in err and "\n" not in err

"""The CLI's quote review keeps what the user says (issue 38): a rate or currency given on the command line is
applied or refused with the reason, never dropped; ``--book`` overrides the quote's date; the summary states the book,
the currency's source, racks as racks, a rate card as such and, when the reading breaks a band, the guard's sentence
in place of the headline. Runs ``neoplan.cli.main`` in-process (one line on stderr and exit 2 for bad input)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from neoplan.cli import main

CORPUS = Path(__file__).resolve().parent / "quote_corpus"
KRW = CORPUS / "ko_reseller_h100_32_won_units.xlsx"
QUOTE_TOTAL_KRW = 354_000_000 * 32 + 50_000_000 * 8 + 1_560_000 * 256 + 1_900_000 * 128 + 97_000 * 256


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["quote", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def as_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run([*args, "--json"], capsys)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def write(tmp_path: Path, rows: list[list[Any]], name: str = "q.csv") -> Path:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path = tmp_path / name
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


SERVER = "Supermicro SYS-821GE-TNHR, HGX H100 8-GPU, 2x Intel Xeon Gold 6530, 1TB (16x 64GB) DDR5, 8x ConnectX-7 400G"


def test_a_won_quote_takes_the_users_rate_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """원 in the units line and ₩ on the total make it won; the rate typed is the one used, and the JSON says it."""
    d = as_json([str(KRW), "--usd-per-unit", "0.00072"], capsys)
    assert d["currency"] == "KRW" and d["usd_per_unit"] == 0.00072
    assert d["rates"]["KRW"] == 0.00072 and d["rate_sources"]["KRW"] == "you (--usd-per-unit)"
    assert d["quote_total_usd"] == pytest.approx(0.00072 * QUOTE_TOTAL_KRW, rel=1e-6)
    assert "원" in d["currency_from"] or "₩" in d["currency_from"] or "total" in d["currency_from"]
    assert d["headline_withheld"] is None and d["gpus"] == 256


def test_a_won_quote_without_a_rate_is_refused_naming_the_currency(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([str(KRW)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "KRW" in err and "--usd-per-unit" in err


def test_a_rate_for_a_dollar_quote_is_refused_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, [["Part", "Description", "Qty", "Unit Price", "Ext"],
                            ["X", SERVER, 16, "$255,000.00", "$4,080,000.00"]])  # fmt: skip
    code, out, err = run([str(path), "--usd-per-unit", "0.00072"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "in USD" in err and "0.00072" in err and "--currency" in err
    d = as_json([str(path), "--usd-per-unit", "0.00072", "--currency", "KRW"], capsys)  # the user names it: applied
    assert d["currency"] == "KRW" and d["usd_per_unit"] == 0.00072 and d["currency_from"] == "you (--currency)"


def test_a_rate_for_a_quote_naming_no_currency_is_applied(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, [["Part", "Description", "Qty", "Unit Price", "Ext"],
                            ["X", SERVER, 16, "354000000", "5664000000"]])  # fmt: skip
    d = as_json([str(path), "--usd-per-unit", "0.00072"], capsys)
    assert d["currency"] == "unstated" and d["usd_per_unit"] == 0.00072 and d["headline_withheld"] is None
    assert any("does not name its currency" in w for w in d["warnings"])
    bare = as_json([str(path)], capsys)  # no rate: read as USD, and the guard names the currency
    assert bare["quote_total_usd"] is None and "--usd-per-unit" in bare["headline_withheld"]
    assert {b["cause"] for b in bare["implausible"]} == {"currency"}


def test_the_book_follows_the_quotes_date_unless_the_user_picks_one(capsys: pytest.CaptureFixture[str]) -> None:
    quote = str(CORPUS / "reseller_h200_64_2026.csv")
    own = as_json([quote], capsys)
    assert own["book"] == "2026-11" and "2026-03-02" in own["book_from"]
    old = as_json([quote, "--book", "2024-10"], capsys)
    assert old["book"] == "2024-10" and old["book_from"] == "you (--book)"
    code, _, err = run([quote, "--book", "2025-01"], capsys)
    assert code == 2 and "--book" in err and "2024-10" in err


def test_the_summary_states_book_currency_racks_and_rate_cards(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([str(CORPUS / "sa_integrator_h200_32_usd_sar.csv")], capsys)
    assert code == 0 and "SAR at 0.266667 USD each (rate from the quote, row" in out and "warning" not in out
    assert "2024-10 (the book nearest the quote's date 2024-11-04" in out
    code, out, _ = run([str(CORPUS / "nvl72_gb200_4racks_services.csv")], capsys)
    assert code == 0 and "288 GPUs in 4 NVL72 racks (72 compute trays)" in out and "price_above_book" in out
    code, out, _ = run([str(CORPUS / "broker_rate_card_2026.csv")], capsys)
    assert code == 0 and out.startswith("rate card") and "per GPU-hour" in out and "on demand h100-sxm" in out


def test_the_summary_shows_the_guards_sentence_not_a_headline(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([str(KRW), "--currency", "USD"], capsys)
    assert code == 0
    assert "headline  withheld: The 5 lines priced against the 2024-10 book cost a median" in out
    assert "quote total" not in out and "vs design" not in out and "also writes KRW" in out

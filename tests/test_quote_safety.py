"""Safe when unsure (issue 22): the invariants' guard, discounts, options, readings of the size, the JSON contract
and the CLI flags, each on a small quote written here."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from neoplan.cli import main
from neoplan.quote import Finding, QuoteError, read_quote, review_quote, text_summary
from neoplan.quote.guard import check, quoted_amount

HEADER = ["Part Number", "Description", "Qty", "Unit Price", "Extended Price"]
SERVER = "PowerEdge XE9680, HGX H100 8-GPU, 2x Xeon Platinum 8480+, 2TB (32x 64GB) DDR5, 8x ConnectX-7 400G"


def csv_bytes(rows: list[list[Any]]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


def review(rows: list[list[Any]], **kwargs: Any) -> Any:
    return review_quote(read_quote(csv_bytes(rows), "q.csv"), **kwargs)


def test_a_licence_quoted_included_saves_nothing() -> None:
    nvaie = ["NVAIE-5Y", "NVIDIA AI Enterprise 5-year subscription per GPU", 128, "Included", "Included"]
    r = review([HEADER, ["XE9680", SERVER, 16, 300_000, 4_800_000], nvaie])
    (nvaie,) = [f for f in r.findings if f.code == "nvaie_license"]
    assert nvaie.saving_usd == 0 and "no charge" in nvaie.detail
    assert r.padding_saving_usd <= r.quote_total_usd


def test_the_guard_withholds_what_breaks_an_invariant() -> None:
    free = ["LIC", "NVIDIA AI Enterprise 1-year subscription", 16, "N/C", "N/C"]
    r = review(
        [HEADER, ["XE9680", SERVER, 16, 300_000, 4_800_000], free, ["", "Special bid adjustment", 1, -5e4, -5e4]]
    )
    by_id = {ln.id: ln for ln in r.lines}
    server, free, discount = r.lines
    assert quoted_amount([server.id], by_id) == 4_800_000 and quoted_amount([free.id], by_id) == 0
    assert discount.category == "discount" and discount.component == "discount"
    crafted = [
        Finding("price_above_book", (server.id,), 5_000_000.0, "more than the line costs"),
        Finding("nvaie_license", (free.id,), 10.0, "on a free line"),
        Finding("price_above_book", (discount.id,), 1.0, "on a discount"),
        Finding("cpu_top_bin", (server.id,), 4_000_000.0, "fits its line, not the total"),
        Finding("ram_over_1tb", (server.id,), 3_000_000.0, "fits its line, not the total"),
    ]
    kept, withheld = check(crafted, r.lines, r.quote_total_usd)
    reasons = {w.finding.detail: w.reason for w in withheld}
    assert "more than the $4,800,000" in reasons["more than the line costs"]
    assert "no charge" in reasons["on a free line"]
    assert "discount" in reasons["on a discount"]
    assert "quote's total" in reasons["fits its line, not the total"]  # 3 M + 4 M > 4.75 M: the smaller goes
    assert [f.detail for f in kept] == ["fits its line, not the total"] and kept[0].code == "cpu_top_bin"


def test_a_negative_line_is_a_discount_whatever_its_words() -> None:
    r = review([HEADER, ["XE9680", SERVER, 4, 300_000, 1_200_000], ["P-1", "Project price", 1, -40_000, -40_000],
                ["D-1", "Discount sticker pack", 2, 5, 10]])  # fmt: skip
    project, stickers = r.lines[1], r.lines[2]
    assert (project.component, project.basis) == ("discount", "sign")
    assert stickers.component is None  # "discount" words on a charge: no discount, and nothing else known


def test_options_need_a_valid_choice_and_are_never_summed() -> None:
    rows = [
        HEADER,
        ["", "Option A: H100", "", "", ""],
        ["XE9680", SERVER, 16, 300_000, 4_800_000],
        ["", "Total Option A", "", "", 4_800_000],
        ["", "Option B: H200", "", "", ""],
        ["XE9680", SERVER.replace("H100", "H200"), 8, 330_000, 2_640_000],
        ["", "Total Option B", "", "", 2_640_000],
    ]
    a, b = review(rows), review(rows, option="Option B")
    assert (a.option, a.gpus, a.quote_total_usd) == ("Option A", 128, 4_800_000)
    assert (b.option, b.gpus, b.gpu_model, b.quote_total_usd) == ("Option B", 64, "h200-sxm", 2_640_000)
    with pytest.raises(QuoteError, match="option must be one of 1 = Option A, 2 = Option B; got 3"):
        review(rows, option=3)
    with pytest.raises(QuoteError, match="offers no alternatives"):
        review(rows[:3], option=2)


def test_readings_that_disagree_are_said_and_another_can_be_picked() -> None:
    rows = [["Number of servers: 32"], HEADER, ["XE9680", SERVER, 16, 300_000, 4_800_000]]
    r = review(rows)
    (conflict,) = r.conflicts
    assert r.gpus == 128 and conflict.taken == "lines"
    assert "stated 32 servers" in conflict.sentence and "--size-from stated" in conflict.sentence
    picked = review(rows, size_from="stated")
    assert (picked.gpus, picked.servers, picked.size_from) == (256, 32, "stated")
    with pytest.raises(QuoteError, match="size from must be one of"):
        review(rows, size_from="guess")


def test_ambiguous_yen_is_refused_or_given() -> None:
    rows = [HEADER, ["XE9680", SERVER, 2, "¥2,000,000", "¥4,000,000"]]
    with pytest.raises(QuoteError, match=r"yuan \(CNY\) or yen \(JPY\)"):
        read_quote(csv_bytes(rows), "q.csv")
    assert read_quote(csv_bytes(rows), "q.csv", currency="cny").currency == "CNY"
    with pytest.raises(QuoteError, match="ISO 4217"):
        read_quote(csv_bytes(rows), "q.csv", currency="yuan")


def test_the_json_contract_keeps_its_keys_and_adds_the_new_ones() -> None:
    record = review([HEADER, ["XE9680", SERVER, 16, 300_000, 4_800_000]]).to_dict()
    old = {"gpus", "gpu_model", "servers", "currency", "per_server", "lines", "unsure", "unmatched", "could_not_price",
           "findings", "quote_total_usd", "recommended_total_usd", "saving_usd"}  # fmt: skip
    assert old | {"option", "options", "conflicts", "withheld", "padding_saving_usd", "design_change_usd"} <= set(
        record
    )
    assert record["option"] is None and record["conflicts"] == [] and record["withheld"] == []
    json.dumps(record, allow_nan=False)


def test_summary_names_the_option_the_conflict_and_what_was_withheld() -> None:
    rows = [["Select one option."], ["Number of servers: 8"], HEADER, ["", "Option 1", "", "", ""],
            ["XE9680", SERVER, 16, 300_000, 4_800_000], ["LIC", "NVIDIA AI Enterprise 1-year", 128, 0.01, 1.28],
            ["", "Total Option 1", "", "", 4_800_001.28], ["", "Option 2", "", "", ""],
            ["XE9680", SERVER, 4, 300_000, 1_200_000], ["", "Total Option 2", "", "", 1_200_000]]  # fmt: skip
    text = text_summary(review(rows))
    assert "option         Option 1 (one of Option 1, Option 2; never summed)" in text
    assert "padding" in text and "design change" in text


def test_cli_option_size_from_and_currency(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quote = tmp_path / "q.csv"
    quote.write_bytes(
        csv_bytes([["Number of servers: 32"], HEADER, ["XE9680", SERVER, 16, "¥2,000,000", "¥32,000,000"]])
    )
    assert main(["quote", str(quote), "--json", "--currency", "JPY", "--usd-per-unit", "0.0067"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["currency"], out["gpus"], out["size_from"]) == ("JPY", 128, "lines") and out["conflicts"]
    assert main(["quote", str(quote), "--json", "--currency", "JPY", "--usd-per-unit", "0.0067",
                 "--size-from", "stated"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["gpus"] == 256
    assert main(["quote", str(quote), "--option", "2", "--currency", "JPY", "--usd-per-unit", "0.0067"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no alternatives" in err and "\n" not in err


def test_a_superpod_lot_and_a_quote_silent_on_nics() -> None:
    lot = "NVIDIA DGX SuperPOD scalable unit (32 DGX H100 systems), each: 8x H100, 2x Xeon Gold 6530, 1TB"
    r = review([HEADER, ["DGXH-SU", lot, 1, 9_000_000, 9_000_000]])
    assert (r.gpus, r.servers) == (256, 32)
    assert "nics_below_8" not in {f.code for f in r.findings}  # no NIC listed: nothing known, nothing claimed
    assert any("no back-end NIC" in w for w in r.warnings)


def test_an_nvl72_rack_shell_is_no_system() -> None:
    trays = ["GB200-CT", "NVIDIA GB200 NVL72 compute tray, 2x Grace, 4x B200", 36, 160_000, 5_760_000]
    shell = ["RACK", "NVL72 rack with power shelves and manifold", 2, 250_000, 500_000]
    r = review([HEADER, trays, shell])
    assert (r.gpus, r.servers, r.gpu_model) == (144, 36, "gb200-nvl72")
    assert r.lines[1].component != "system"


def test_optional_items_are_not_counted_unless_the_user_says() -> None:
    rows = [HEADER, ["XE9680", SERVER, 16, 250_000, 4_000_000], ["", "Total", "", "", 4_000_000],
            ["", "Optional items (not included in total)", "", "", ""],
            ["NVAIE", "NVIDIA AI Enterprise 5-year subscription", 128, 20_000, 2_560_000]]  # fmt: skip
    r = review(rows)
    assert r.quote_total_usd == 4_000_000 and "nvaie_license" not in {f.code for f in r.findings}
    assert [ln.row for ln in r.ignored] == [5] and any("optional line" in w for w in r.warnings)
    counted = review(rows, corrections=[{"row": 5, "ignore": False}])
    assert counted.quote_total_usd == 6_560_000 and "nvaie_license" in {f.code for f in counted.findings}


def test_server_lines_and_board_lines_are_two_readings_not_one_sum() -> None:
    rows = [HEADER, ["XE9680", SERVER, 16, 260_000, 4_160_000], ["935-24287", "HGX H100 8-GPU baseboard", 32, 1, 32]]
    r = review(rows)
    assert (r.gpus, r.servers) == (128, 16)
    (conflict,) = r.conflicts
    assert "the 32 GPU boards give 256 GPUs" in conflict.sentence and "--size-from boards" in conflict.sentence
    assert review(rows, size_from="boards").gpus == 256


def test_a_line_that_sells_several_servers_reads_the_per_node_configuration() -> None:
    text = "Compute rack, 4 servers per rack, per node: HGX H200 8-GPU, 2x Xeon Platinum 8480+, 3TB (32x 96GB) DDR5"
    r = review([HEADER, ["RACK-4", text, 4, 1_200_000, 4_800_000]])
    assert (r.gpus, r.servers, r.gpu_model) == (128, 16, "h200-sxm")
    assert r.per_server["ram_gb"] == 3072 and {"cpu_top_bin", "ram_over_1tb"} <= {f.code for f in r.findings}


def test_summary_says_when_the_servers_do_not_name_their_gpu() -> None:
    text = text_summary(review([HEADER, ["XE9680", "PowerEdge XE9680 8-GPU server", 16, 300_000, 4_800_000]]))
    size = next(line for line in text.splitlines() if line.startswith("size"))
    assert "None" not in size
    assert "128 GPUs in 16 servers (GPU model not named)" in size

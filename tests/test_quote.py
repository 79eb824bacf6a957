"""OEM quote review: import, classification, findings, comparison, export, CLI, and a fuzzed importer."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import neoplan
from neoplan.cli import main
from neoplan.inputs.pricebook import default_price_book, price_book
from neoplan.quote import (
    FINDINGS,
    MAX_QUOTE_BYTES,
    QUOTE_COLUMNS,
    UNSURE_BELOW,
    QuoteError,
    QuoteReview,
    apply_recommendations,
    classify,
    default_catalogue,
    default_rules,
    design_quote_rows,
    identify_line,
    normalise,
    parse_money,
    parse_quantity,
    read_quote,
    review_quote,
    rows_to_csv,
    safe_cell,
    sample_quotes,
    text_summary,
    to_csv_bytes,
    to_xlsx_bytes,
)

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "quotes"
PADDED = SAMPLES / "oem_padded_1024_h100.xlsx"
CLEAN = SAMPLES / "clean_1024_h100.csv"
MESSY = SAMPLES / "per_server_messy.csv"
EURO_SAMPLE = SAMPLES / "reseller_eur_h200_32.csv"
CONTRACT = {
    "lines",
    "classified",
    "unmatched",
    "unsure",
    "could_not_price",
    "findings",
    "quote_total_usd",
    "recommended_total_usd",
    "gpus",
    "gpu_model",
    "servers",
    "currency",
    "per_server",
    "warnings",
}
BOOK = default_price_book()


# --- helpers ----------------------------------------------------------------------------------------------------------


def design_rows(**overrides: Any) -> list[dict[str, Any]]:
    """Quote rows of the optimized preset with ``overrides`` (storage left out, as OEM quotes do)."""
    result = neoplan.evaluate(neoplan.load_scenario({"base": "optimized", **overrides}))
    cats = ("compute", "backend_network", "frontend_network", "oob_network", "management", "other", "software")
    return design_quote_rows(result, cats)


def review_rows(rows: list[dict[str, Any]], servers: int = 1, **kwargs: Any) -> QuoteReview:
    return review_quote(read_quote(rows_to_csv(rows, comment="SYNTHETIC test quote"), "test.csv"), servers, **kwargs)


def codes(review: QuoteReview) -> set[str]:
    return {f.code for f in review.findings}


def finding(review: QuoteReview, code: str) -> float:
    """Summed saving of the findings with ``code`` [USD]."""
    hits = [f for f in review.findings if f.code == code]
    assert hits, f"{code} did not fire; fired: {sorted(codes(review))}"
    return sum(f.saving_usd for f in hits)


def backend_usd(**fabric: Any) -> float:
    return neoplan.evaluate(neoplan.load_scenario({"base": "optimized", "fabric": fabric})).capex_usd["backend_network"]


def csv_bytes(rows: list[list[Any]]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode("utf-8")


def xlsx_bytes(sheets: dict[str, list[list[Any]]]) -> bytes:
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, rows in sheets.items():
        ws = wb.create_sheet(title)
        for row in rows:
            ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


@pytest.fixture(scope="module")
def clean() -> QuoteReview:
    return review_rows(design_rows())


@pytest.fixture(scope="module")
def padded() -> QuoteReview:
    return review_quote(read_quote(PADDED.read_bytes(), PADDED.name))


# --- rules ------------------------------------------------------------------------------------------------------------


def test_every_price_book_description_classifies_to_its_own_key() -> None:
    rules = default_rules()
    wrong = {k: getattr(classify(r.description, rules), "price_key", None) for k, r in BOOK.rows.items()}
    assert {k: v for k, v in wrong.items() if v != k} == {}


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Intel Xeon Platinum 8480+ 56C 2.0GHz", "cpu_top"),
        ("Xeon Platinum 8592+ 64C", "cpu_top"),
        ("Intel Xeon Gold 6530 32C", "cpu_mid"),
        ("AMD EPYC 9654 96-core", "cpu_top"),
        ("900-9D3B6-00CV-AA0 BlueField-3 B3220 DPU", "dpu_bluefield3"),
        ("B3220 BlueField DPU", "dpu_bluefield3"),
        ("MQM9700-NS2F Quantum-2 switch", "ib_switch_qm9700"),
        ("MQM9790-NS2R InfiniBand switch", "ib_switch_qm9700"),
        ("MSN4600-VS2FC Spectrum switch", "eth_switch_sn4600"),
        ("MSN4600-CS2FC SN4600C", "eth_switch_sn4600c"),
        ("MSN2201-CB2FC", "oob_switch_sn2201"),
        ("MMA4Z00-NS400 transceiver", "xcvr_ndr_osfp_400g_server"),
        ("MMA4Z00-NS transceiver", "xcvr_ndr_osfp_800g_twin"),
        ("OSFP 800G twin-port SR8 transceiver", "xcvr_ndr_osfp_800g_twin"),
        ("NVIDIA AI Enterprise 3-year subscription", "nvidia_ai_enterprise_gpu_year"),
        ("128GB DDR5-4800 RDIMM", "ram_ddr5_64gb"),
        ("MCX75310AAS-NEAT ConnectX-7", "nic_backend_400g"),
        ("MCX623106AN-CDAT ConnectX-6 Dx", "nic_frontend_2x100g"),
        ("MCP4Y10-N002 DAC", "dac_ndr_800g_twin"),
        ("MCA4J80-N003 ACC", "acc_ndr_800g_twin"),
        ("MCP7Y00-N001 splitter", "dac_ndr_800g_splitter_2x400g"),
        ("MFP7E10-N015 fibre", "fibre_mpo12_apc"),
        ("HGX H100 8-GPU baseboard", "gpu_baseboard_hgx_h100"),
        ("15.36TB NVMe U.2", "nvme_7_68tb"),
        ("APC 42U rack enclosure", "rack_42u"),
        ("Metered PDU 3-phase", "pdu_monitored"),
        ("3-year ProSupport NBD", "node_warranty_year"),
    ],
)
def test_rules_classify_oem_part_numbers(text: str, key: str) -> None:
    rule = classify(text, default_rules())
    assert rule is not None and rule.price_key == key


# --- a clean quote and the findings -----------------------------------------------------------------------------------


def test_clean_quote_has_no_finding_and_no_saving(clean: QuoteReview) -> None:
    assert clean.findings == ()
    assert clean.unmatched == []
    assert clean.gpus == 1024 and clean.servers == 128 and clean.gpu_model == "h100-sxm"
    assert clean.saving_usd == pytest.approx(0.0, abs=1e-6)
    assert clean.compared_quote_usd == pytest.approx(clean.quote_total_usd)


def test_clean_sample_has_no_finding() -> None:
    review = review_quote(read_quote(CLEAN.read_bytes(), CLEAN.name))
    assert review.findings == ()
    assert review.saving_usd == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize(
    ("overrides", "code", "saving_usd"),
    [
        ({"node": {"cpu_tier": "top"}}, "cpu_top_bin", 256 * (4695 - 2150)),
        ({"node": {"ram_tb": 2.0}}, "ram_over_1tb", 2048 * 260),
        ({"node": {"dpus": 2, "frontend_nics": 0}}, "dpu_bluefield", 256 * 2600 - 128 * 850),
        ({"opex": {"ai_enterprise": True}}, "nvaie_license", 1024 * 4500),
        ({"fabric": {"frontend": {"switch_class": "spectrum"}}}, "frontend_spectrum", None),
    ],
)
def test_swap_findings_equal_the_design_difference(overrides: dict, code: str, saving_usd: float | None) -> None:
    review = review_rows(design_rows(**overrides))
    assert codes(review) == {code}
    assert finding(review, code) == pytest.approx(review.saving_usd)
    if saving_usd is not None:
        assert finding(review, code) == pytest.approx(saving_usd)


def test_article_node_saving_on_the_padded_sample(padded: QuoteReview) -> None:
    node = sum(finding(padded, c) for c in ("cpu_top_bin", "ram_over_1tb", "dpu_bluefield"))
    assert node == pytest.approx(128 * 13_600)  # BRIEF.md §2.1: $270,000 → $256,400 per server


def test_oob_spectrum_fires() -> None:
    review = review_rows(design_rows(fabric={"oob": {"switch_class": "spectrum"}}))
    assert codes(review) == {"oob_spectrum"}
    assert finding(review, "oob_spectrum") == pytest.approx(6 * (9000 - 1500) + 2 * (11000 - 3500))


def test_optics_everywhere_matches_the_model_backend_difference() -> None:
    review = review_rows(design_rows(fabric={"topology": "reference"}))  # 2:1, optics on leaf-spine links
    assert codes(review) == {"optics_everywhere"}
    assert finding(review, "optics_everywhere") == pytest.approx(backend_usd(topology="reference") - backend_usd())


def test_nonblocking_matches_the_model_backend_difference() -> None:
    review = review_rows(design_rows(fabric={"oversubscription": 1.0}))
    assert codes(review) == {"backend_nonblocking"}
    assert finding(review, "backend_nonblocking") == pytest.approx(backend_usd(oversubscription=1.0) - backend_usd())


def test_nonblocking_stays_quiet_within_one_scalable_unit() -> None:
    review = review_rows(design_rows(cluster={"gpus": 256}, fabric={"oversubscription": 1.0}))
    assert "backend_nonblocking" not in codes(review)


def test_nics_below_8_costs_money_to_fix() -> None:
    review = review_rows(design_rows(fabric={"nics_per_node": 4}))
    assert "nics_below_8" in codes(review)
    assert finding(review, "nics_below_8") == pytest.approx(-512 * (1650 + 1125))


def test_price_above_book_fires_over_the_tolerance_only(clean: QuoteReview) -> None:
    rows = design_rows()
    switch = next(r for r in rows if "QM9700" in r["Description"])
    switch["Unit Price (USD)"] *= 1.3
    switch["Extended Price (USD)"] = switch["Qty"] * switch["Unit Price (USD)"]
    review = review_rows(rows)
    assert codes(review) == {"price_above_book"}
    assert finding(review, "price_above_book") == pytest.approx(switch["Qty"] * 36_000 * 0.3)
    assert codes(review_rows(rows, price_tolerance=0.35)) == set()


def test_price_above_book_scales_dimm_size() -> None:
    rows = [r for r in design_rows() if "RDIMM" not in r["Description"]]
    rows.append(
        {
            "Part Number": "",
            "Description": "128GB DDR5-5600 RDIMM",
            "Qty": 1024,
            "Unit Price (USD)": 520.0,
            "Extended Price (USD)": 1024 * 520.0,
        }
    )
    review = review_rows(rows)
    assert codes(review) == set()  # 1 TB per server at the book's price per GB
    rows[-1]["Unit Price (USD)"] = 800.0
    rows[-1]["Extended Price (USD)"] = 1024 * 800.0
    assert codes(review_rows(rows)) == {"price_above_book"}


def test_missing_server_optics_and_fibres() -> None:
    rows = [r for r in design_rows() if "transceiver at the server NIC" not in r["Description"]]
    review = review_rows(rows)
    assert codes(review) == {"missing_item"}
    assert finding(review, "missing_item") == pytest.approx(-1024 * 1125)
    no_fibre = [r for r in design_rows() if "APC" not in r["Description"]]
    assert finding(review_rows(no_fibre), "missing_item") == pytest.approx(-1024 * 70)


def test_missing_ufm_above_2048_gpus() -> None:
    rows = [r for r in design_rows(cluster={"gpus": 4096}) if "UFM" not in r["Description"]]
    missing = [f for f in review_rows(rows).findings if f.code == "missing_item"]
    assert any("UFM" in f.detail for f in missing)


def test_extended_mismatch_and_amd() -> None:
    rows = design_rows()
    cpu = next(r for r in rows if "Gold 6530" in r["Description"])
    cpu["Description"] = "AMD EPYC 9354 32-core"
    cpu["Extended Price (USD)"] += 1000
    review = review_rows(rows)
    assert codes(review) == {"cpu_amd", "extended_mismatch"}
    assert finding(review, "extended_mismatch") == pytest.approx(1000)


def test_every_finding_code_is_exercised() -> None:
    fired = set()
    for path, servers in ((PADDED, 1), (MESSY, 32)):
        fired |= codes(review_quote(read_quote(path.read_bytes(), path.name), servers))
    assert fired == set(FINDINGS) - {"cpu_amd", "total_mismatch"}  # test_extended_mismatch_and_amd, test_quote_safety


# --- import -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("$1,234.00", 1234.0),
        ("USD 1,234.00", 1234.0),
        ("1,234.00 USD", 1234.0),
        ("US$ 99", 99.0),
        ("(2,500.00)", -2500.0),
        ("-$12.50", -12.5),
        ("1 234.50", 1234.5),
        ("214330", 214330.0),
        ("Included", 0.0),
        ("N/C", 0.0),
        ("", None),
        ("TBD", None),
        ("call", None),
    ],
)
def test_parse_money_us_format(text: str, value: float | None) -> None:
    assert parse_money(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [("1.234,00", 1234.0), ("USD 1.234,56", 1234.56), ("12,50", 12.5), ("€1,234.00", 1234.0), ("1,234.00 EUR", 1234.0)],
)
def test_parse_money_reads_european_format_and_other_currencies(text: str, value: float) -> None:
    """Issue 11 changed the contract: European formats and € / EUR amounts are read (the review converts them)."""
    assert parse_money(text, "row 7") == value


@pytest.mark.parametrize(("text", "value"), [("32 ea", 32.0), ("1,024", 1024.0), ("x2", 2.0), ("", None), ("a", None)])
def test_parse_quantity(text: str, value: float | None) -> None:
    assert parse_quantity(text) == value


def test_messy_per_server_quote() -> None:
    review = review_quote(read_quote(MESSY.read_bytes(), MESSY.name), 32)
    assert review.servers == 32 and review.gpus == 256
    assert len(review.lines) == 16
    assert review.skipped == {"section title or note": 7, "subtotal or total": 3, "blank": 2}
    assert {ln.label for ln in review.unmatched} == {
        "Server management software node licence",
        "Customer asset tagging & BIOS settings",
    }
    cpu = next(ln for ln in review.lines if "8480" in ln.description)
    assert (cpu.section, cpu.quantity, cpu.unit_price_usd, cpu.cluster_quantity) == ("Processor", 2, 4695.0, 64)
    discount = next(ln for ln in review.lines if ln.category == "discount")
    assert discount.total_usd == -2500.0 * 32
    assert review.quote_total_usd == pytest.approx(258_357.0 * 32)  # the quote's own TOTAL row, × 32
    assert review.warnings == ()
    assert codes(review) == {"cpu_top_bin", "ram_over_1tb", "nics_below_8", "missing_item", "extended_mismatch"}


def test_header_found_below_title_rows_with_name_variants() -> None:
    rows = [["Quote 17"], ["made up"], [], ["SKU", "Item Description", "Quantity", "Price Each", "Line Total"]]
    rows += [["X1", "Intel Xeon Gold 6530", "2", "$2,150.00", "$4,300.00"], ["", "Subtotal", "", "", "$4,300.00"]]
    quote = read_quote(csv_bytes(rows), "q.csv")
    assert [(ln.part_number, ln.quantity, ln.extended_usd) for ln in quote.lines] == [("X1", 2.0, 4300.0)]


def test_semicolon_csv_with_us_numbers() -> None:
    text = "Part;Description;Qty;Unit price\nA;64GB DDR5 RDIMM;16;$260.00\n"
    quote = read_quote(text.encode(), "q.csv")
    assert quote.lines[0].quantity == 16 and quote.lines[0].unit_price_usd == 260.0


def test_header_beyond_the_first_30_rows_is_not_found() -> None:
    rows = [[f"note {i}"] for i in range(31)] + [["Description", "Qty", "Price"], ["Xeon Gold 6530", "2", "2150"]]
    with pytest.raises(QuoteError, match="no header row"):
        read_quote(csv_bytes(rows), "late.csv")


def test_wrong_stated_total_is_warned() -> None:
    rows = [["Description", "Qty", "Unit price"], ["Xeon Gold 6530", "2", "2150"], ["Grand total", "", "9,999"]]
    quote = read_quote(csv_bytes(rows), "q.csv")
    assert any("differs from the sum" in w for w in quote.warnings)


def test_several_sheets() -> None:
    header = ["Part Number", "Description", "Qty", "Unit Price", "Extended Price"]
    data = xlsx_bytes(
        {
            "Cover": [["SYNTHETIC test workbook"], ["Terms: net 30"]],
            "Servers": [["Servers"], header, ["935-24287", "HGX H100 8-GPU baseboard", 4, 214330, 857320]],
            "Notes": [["Description", "Qty"], ["no prices here", 1]],
            "Network": [[], [], header, ["MQM9790", "QM9790 switch", 2, "$36,000.00", "$72,000.00"]],
        }
    )
    quote = read_quote(data, "multi.xlsx")
    assert quote.sheets == ("Servers", "Network")
    assert [(ln.sheet, ln.row) for ln in quote.lines] == [("Servers", 3), ("Network", 4)]
    assert review_quote(quote).gpus == 32


def test_padded_sample_reads_every_table_sheet(padded: QuoteReview) -> None:
    assert padded.sheets == ("Compute", "Networking", "Software & services")
    assert padded.gpus == 1024
    assert [ln.label for ln in padded.unmatched] == ["Project management and solution architecture, 12 weeks"]
    assert padded.saving_usd is not None and padded.saving_usd > 0.15 * padded.compared_quote_usd


def test_per_server_multiplier_scales_everything() -> None:
    rows = [
        {
            "Part Number": "",
            "Description": "HGX H100 8-GPU baseboard",
            "Qty": 1,
            "Unit Price (USD)": 214330.0,
            "Extended Price (USD)": 214330.0,
        },
        {
            "Part Number": "",
            "Description": "Intel Xeon Gold 6530",
            "Qty": 2,
            "Unit Price (USD)": 2150.0,
            "Extended Price (USD)": 4300.0,
        },
    ]
    one, many = review_rows(rows), review_rows(rows, servers=16)
    assert (one.gpus, many.gpus) == (8, 128)
    assert many.quote_total_usd == pytest.approx(16 * one.quote_total_usd)
    assert any("single server" in w for w in one.warnings)


# --- bad files --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"  \n\n", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "binary"),
        (b"Description,Qty\nXeon Gold 6530,2\n", "no price column"),
        (b"just,some,words\nand,more,words\n", "no header row"),
        (b"Description,Qty,Price\nXeon,2,TBD\n", "no priced lines"),
        (b"PK\x03\x04 this is not a zip file at all", "not a readable XLSX"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "xls"),
        (b"a" * (MAX_QUOTE_BYTES + 1), "limit"),
    ],
)
def test_bad_files_raise_quote_error(data: bytes, message: str) -> None:
    with pytest.raises(QuoteError, match=message) as info:
        read_quote(data, "bad.csv")
    assert "\n" not in str(info.value)


def test_apply_needs_a_gpu_count() -> None:
    review = review_rows(
        [
            {
                "Part Number": "",
                "Description": "Intel Xeon Gold 6530",
                "Qty": 2,
                "Unit Price (USD)": 2150.0,
                "Extended Price (USD)": 4300.0,
            }
        ]
    )
    assert review.recommended_total_usd is None and review.saving_usd is None
    with pytest.raises(QuoteError, match="baseboard"):
        apply_recommendations(review)


# --- recommendations, contract, export --------------------------------------------------------------------------------


def test_apply_recommendations_gives_the_optimized_design_at_the_quote_size(padded: QuoteReview) -> None:
    scenario = apply_recommendations(padded)
    assert scenario.cluster.gpus == 1024 and scenario.cluster.gpu_model == "h100-sxm"
    assert (scenario.node.cpu_tier, scenario.node.ram_tb, scenario.node.dpus) == ("mid", 1.0, 0)
    assert (scenario.fabric.topology, scenario.fabric.oversubscription) == ("vms", 2.0)
    assert scenario.fabric.frontend.switch_class == scenario.fabric.oob.switch_class == "generic"
    assert not scenario.opex.ai_enterprise
    assert neoplan.evaluate(scenario).node_capex_usd == 256_400
    messy = review_quote(read_quote(MESSY.read_bytes(), MESSY.name), 32)
    assert apply_recommendations(messy).cluster.gpus == 256


def test_to_dict_is_the_json_contract(padded: QuoteReview) -> None:
    d = json.loads(json.dumps(padded.to_dict(), allow_nan=False))
    assert set(d) >= CONTRACT
    assert len(d["lines"]) == 35 and d["classified"] == 34 and len(d["unmatched"]) == 1
    assert all({"code", "lines", "saving_usd", "reason"} <= set(f) for f in d["findings"])
    assert d["quote_total_usd"] == pytest.approx(sum(ln["total_usd"] for ln in d["lines"]))


def test_export_is_formula_safe() -> None:
    rows = [
        {
            "Part Number": '=HYPERLINK("http://x")',
            "Description": "+cmd|' /C calc'!A0 Xeon Gold 6530",
            "Qty": 2,
            "Unit Price (USD)": 2150.0,
            "Extended Price (USD)": 4300.0,
        },
        {
            "Part Number": "@SUM(A1)",
            "Description": "-2+3 mystery part",
            "Qty": 1,
            "Unit Price (USD)": 5.0,
            "Extended Price (USD)": 5.0,
        },
    ]
    review = review_rows(rows)
    text = to_csv_bytes(review).decode()
    for bad in ("=HYPERLINK", "+cmd", "@SUM", "-2+3"):
        assert f"'{bad}" in text and f",{bad}" not in text
    wb = openpyxl.load_workbook(io.BytesIO(to_xlsx_bytes(review)))
    cells = [c for ws in wb.worksheets for row in ws.iter_rows() for c in row]
    assert all(c.data_type != "f" for c in cells)
    assert all(not str(c.value).startswith(("=", "+", "-", "@")) for c in cells if isinstance(c.value, str))
    assert {ws.title for ws in wb.worksheets} == {"Lines", "Findings", "Comparison"}


def test_safe_cell() -> None:
    assert safe_cell("=1+1") == "'=1+1"
    assert safe_cell("plain") == "plain"
    assert safe_cell(-5.0) == -5.0
    assert safe_cell(None) == ""
    assert safe_cell("a\x00b") == "ab"


def test_samples_are_marked_as_made_up() -> None:
    assert {p.name for p in sample_quotes()} == {PADDED.name, CLEAN.name, MESSY.name, EURO_SAMPLE.name}
    for path in (CLEAN, MESSY, EURO_SAMPLE):
        assert "SYNTHETIC" in path.read_text(encoding="utf-8").splitlines()[1] + path.read_text().splitlines()[0]
    wb = openpyxl.load_workbook(PADDED, read_only=True)
    assert all(
        any("SYNTHETIC" in str(v) for row in ws.iter_rows(max_row=3, values_only=True) for v in row)
        for ws in wb.worksheets
        if ws.title != "Summary"
    )


def test_quote_columns_round_trip(clean: QuoteReview) -> None:
    assert QUOTE_COLUMNS[0] == "Part Number"
    assert {ln.price_key for ln in clean.lines} >= {"cpu_mid", "ram_ddr5_64gb", "ib_switch_qm9700"}


# --- CLI --------------------------------------------------------------------------------------------------------------


def test_cli_quote_json() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "neoplan", "quote", str(MESSY), "--servers", "32", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert set(d) >= CONTRACT and d["gpus"] == 256


def test_cli_quote_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["quote", str(PADDED)]) == 0
    out = capsys.readouterr().out
    assert "cpu_top_bin" in out and "unmatched lines" in out and "saving" in out


@pytest.mark.parametrize("content", [b"", b"\x00\x01\x02binary", b"Description,Qty\nx,1\n"])
def test_cli_quote_bad_file_exits_2_with_one_line(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    proc = subprocess.run(
        [sys.executable, "-m", "neoplan", "quote", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr


def test_cli_quote_missing_file_and_bad_servers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["quote", "/no/such/quote.csv"]) == 2
    assert main(["quote", str(CLEAN), "--servers", "0"]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "servers quoted" in err


# --- fuzz -------------------------------------------------------------------------------------------------------------

_WORDS = [
    "Description",
    "Part Number",
    "Qty",
    "Unit Price",
    "Extended Price",
    "Total",
    "Subtotal",
    "SKU",
    "HGX H100 8-GPU",
    "Xeon Platinum 8480",
    "BlueField-3",
    "QM9700",
    "64GB DDR5",
    "AI Enterprise",
    "=1+2",
    "$1,234.00",
    "USD 12.50",
    "(3.00)",
    "1.234,00",
    "€5",
    "included",
    "",
    " ",
    "0",
    "-1",
    "1e309",
    "NaN",
    "9" * 40,
    "\t",
    '"',
    "#",
    "x2",
    "32 ea",
]
_cells = st.one_of(st.sampled_from(_WORDS), st.text(max_size=12), st.integers(-(10**6), 10**6).map(str))
_rows = st.lists(st.lists(_cells, max_size=7), max_size=14)


def _survives(data: bytes, name: str) -> None:
    try:
        quote = read_quote(data, name)
        review = review_quote(quote)
        json.dumps(review.to_dict(), allow_nan=False)
        to_csv_bytes(review)
    except QuoteError:
        pass


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2048))
def test_fuzz_random_bytes_raise_only_quote_error(data: bytes) -> None:
    _survives(data, "fuzz.bin")
    _survives(b"PK\x03\x04" + data, "fuzz.xlsx")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_rows, st.sampled_from([",", ";", "\t"]))
def test_fuzz_random_csv_text_raises_only_quote_error(rows: list[list[str]], delimiter: str) -> None:
    header = [["Part Number", "Description", "Qty", "Unit Price", "Extended Price"]]
    for table in (rows, header + rows):
        buf = io.StringIO()
        csv.writer(buf, delimiter=delimiter, lineterminator="\n").writerows(table)
        _survives(buf.getvalue().encode("utf-8"), "fuzz.csv")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_rows)
def test_fuzz_random_xlsx_raises_only_quote_error(rows: list[list[str]]) -> None:
    header = ["Part Number", "Description", "Qty", "Unit Price", "Extended Price"]
    cleaned = [[c.replace("\x00", "") for c in row] for row in rows]
    try:
        data = xlsx_bytes({"Quote": [header, *cleaned], "Other": cleaned})
    except openpyxl.utils.exceptions.IllegalCharacterError:
        return
    _survives(data, "fuzz.xlsx")


# --- identity: catalogue, scored rules, units, systems (issue 11) ---------------------------------------------------


def _one(description: str, part: str = "") -> Any:
    """Identity of one line (catalogue, system, scored rules)."""
    ident, config = identify_line(part, description, default_rules(), default_catalogue())
    return ident, config


@pytest.mark.parametrize(
    ("part", "component", "key"),
    [
        ("MQM9700-NS2F", "backend_switch", "ib_switch_qm9700"),
        ("MQM9790-NS2R", "backend_switch", "ib_switch_qm9700"),
        ("MSN4600-CS2FC", "frontend_switch", "eth_switch_sn4600c"),
        ("MSN2201-CB2FC", "oob_switch", "oob_switch_sn2201"),
        ("MSN5600-WS2FC", "frontend_switch", "eth_switch_sn5400"),
        ("MCX75310AAS-NEAT", "backend_nic", "nic_backend_400g"),
        ("MCX755106AS-HEAT", "frontend_nic", "nic_frontend_2x200g"),
        ("MCX623106AN-CDAT", "frontend_nic", "nic_frontend_2x100g"),
        ("900-9D3B6-00CV-AA0", "frontend_nic", "dpu_bluefield3"),
        ("MMA4Z00-NS", "backend_switch_link", "xcvr_ndr_osfp_800g_twin"),
        ("MMA4Z00-NS400", "backend_server_link", "xcvr_ndr_osfp_400g_server"),
        ("MMS4X00-NS", "backend_switch_link", "xcvr_ndr_osfp_800g_twin"),
        ("MMS4X00-NS400", "backend_server_link", "xcvr_ndr_osfp_400g_server"),
        ("MCP4Y10-N002", "backend_switch_link", "dac_ndr_800g_twin"),
        ("MCP7Y00-N003", "backend_server_link", "dac_ndr_800g_splitter_2x400g"),
        ("MCA4J80-N004", "backend_switch_link", "acc_ndr_800g_twin"),
        ("MFP7E10-N030", "backend_fibre", "fibre_mpo12_apc"),
        ("935-24287-0000-000", "gpu_baseboard", "gpu_baseboard_hgx_h100"),
    ],
)
def test_catalogue_identifies_part_numbers_before_descriptions(part: str, component: str, key: str) -> None:
    ident, _ = _one("misleading text: 64GB DDR5 multimode fibre", part)
    assert (ident.component, ident.price_key, ident.basis) == (component, key, "catalogue")
    assert ident.confidence >= UNSURE_BELOW


@pytest.mark.parametrize(
    ("description", "component", "key"),
    [
        ("NVIDIA 400Gb/s single-port OSFP transceiver, SR4 multimode, flat top", "backend_server_link",
         "xcvr_ndr_osfp_400g_server"),
        ("400G OSFP transceiver, SR4 MMF, 50m", "backend_server_link", "xcvr_ndr_osfp_400g_server"),
        ("XCVR 800G TWIN PORT OSFP 2XSR4 MMF FINNED", "backend_switch_link", "xcvr_ndr_osfp_800g_twin"),
        ("NVIDIA passive fiber cable, MMF, MPO12 APC to MPO12 APC, 30m", "backend_fibre", "fibre_mpo12_apc"),
        ("MPO-12 OM4 multimode trunk 10m", "frontend_fibre", "fibre_mpo12_om4"),
        ("DAC 800G TWIN PORT OSFP PASSIVE 2M", "backend_switch_link", "dac_ndr_800g_twin"),
        ("2U 24-bay NVMe storage server without data drives", "storage_server", "storage_server_2u24"),
        ("M.2 NVMe 960 GB boot drive", "boot_drive", "nvme_boot_960gb"),
        ("Cat6 RJ45 patch cord 2m", "oob_cable", "patch_cat6"),
    ],
)  # fmt: skip
def test_scored_rules_follow_the_head_noun(description: str, component: str, key: str) -> None:
    """A transceiver that says "multimode" is an optic, not a fibre; a storage server is not a drive."""
    ident, _ = _one(description)
    assert (ident.component, ident.price_key, ident.status) == (component, key, "classified")


def test_a_part_for_something_is_unsure_not_that_thing() -> None:
    ident, _ = _one("Mellanox spare fan module for QM9700")
    assert ident.status == "unsure" and ident.confidence < UNSURE_BELOW
    review = review_rows(
        [
            {"Part Number": "", "Description": "Mellanox spare fan module for QM9700", "Qty": 4,
             "Unit Price (USD)": 90_000.0, "Extended Price (USD)": 360_000.0},
        ]
    )  # fmt: skip
    assert review.unsure == [review.lines[0]] and review.lines[0].book_unit_price_usd is None
    assert not review.findings and review.to_dict()["unsure"][0]["status"] == "unsure"


def test_part_numbers_with_misleading_tokens_do_not_decide() -> None:
    ident, _ = _one("Power cord C19-C20 2m (6 per server)", "AOC-HGX-H100-8-PWR")
    assert ident.component == "node_accessory"


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("8x ConnectX-7 400Gb/s", "8x ConnectX-7 400G"),
        ("400 Gbps NIC", "400G NIC"),
        ("400GbE", "400G"),
        ("NDR adapter", "NDR 400G adapter"),
        ("ConnectX-8 XDR", "ConnectX-8 XDR 800G"),
        ("2 TB DDR5", "2TB DDR5"),
        ("32 × 64GB", "32x 64GB"),
    ],
)
def test_units_are_normalised(text: str, normal: str) -> None:
    assert normalise(text) == normal


@pytest.mark.parametrize(
    ("text", "gb"),
    [("2TB (32x 64GB) DDR5", 2048.0), ("(16x64GB)", 1024.0), ("1x96GB kit", 96.0), ("2TB DDR5", 2048.0),
     ("64GB RDIMM", 64.0), ("2,048 GB DDR5-5600 (32 x 64 GB RDIMM)", 2048.0)],
)  # fmt: skip
def test_memory_sizes(text: str, gb: float) -> None:
    from neoplan.quote.units import ram_gb

    assert ram_gb(normalise(text)) == gb


SYSTEM = (
    "Supermicro SYS-821GE-TNHR 8U GPU SuperServer, HGX H200 8-GPU SXM5 141GB, 2x Xeon Platinum 8480+ 56C, "
    "2TB (32x 64GB) DDR5-4800 ECC RDIMM, 8x ConnectX-7 400G NDR OSFP, 2x BlueField-3 B3220 2x200GbE, "
    "8x 3.84TB NVMe U.2, 2x 960GB M.2 NVMe boot, 6x 3000W PSU, rail kit"
)


def test_a_system_line_is_parsed_into_components() -> None:
    ident, config = _one(SYSTEM, "SYS-821GE-TNHR")
    assert ident.component == "system" and config is not None
    assert (config.gpu_model, config.gpus, config.cpu_vendor) == ("h200-sxm", 8, "intel")
    parts = {p.identity.component: p for p in config.parts}
    assert parts["cpu"].count == 2 and parts["cpu"].identity.price_key == "cpu_top"
    assert parts["ram"].ram_gb == 2048 and parts["backend_nic"].count == 8
    assert parts["frontend_nic"].identity.price_key == "dpu_bluefield3" and parts["frontend_nic"].count == 2
    assert parts["local_nvme"].count == 8 and parts["boot_drive"].count == 2


def test_system_lines_feed_size_aggregates_and_findings() -> None:
    rows = [{"Part Number": "SYS-821GE-TNHR", "Description": SYSTEM, "Qty": 16, "Unit Price (USD)": 300_000.0,
             "Extended Price (USD)": 4_800_000.0}]  # fmt: skip
    review = review_rows(rows)
    assert (review.gpus, review.servers, review.gpu_model) == (128, 16, "h200-sxm")
    ps = review.per_server
    assert (ps["ram_gb"], ps["backend_nics"], ps["dpus"], ps["cpus"], ps["cpu_vendor"]) == (2048, 8, 2, 2, "intel")
    assert {"cpu_top_bin", "dpu_bluefield"} <= codes(review)
    assert "nics_below_8" not in codes(review)
    assert "ram_over_1tb" not in codes(review)  # 2 TB on H200: what its 1,128 GB of HBM per server needs
    system = review.lines[0]
    assert system.component == "system" and system.book_unit_price_usd == pytest.approx(
        neoplan.evaluate(review.recommended).node_capex_usd
    )
    assert system.price_check in ("ok", "above_book")
    assert all(f.sources == (("", 3),) for f in review.findings)  # row 1: comment, row 2: header (CSV lines)
    assert next(f for f in review.findings if f.code == "cpu_top_bin").detail.startswith("32 × Xeon Platinum 8480+")


def test_dell_sub_items_are_per_server_quantities() -> None:
    rows = [
        ["Dell quote", "", "", "", ""],
        ["Description", "Qty", "Unit Price", "Extended Price", ""],
        ["PowerEdge XE9680 Rack Server", 16, "$290,000.00", "$4,640,000.00", ""],
        ["NVIDIA HGX H100 80GB 700W SXM5 8-GPU", 1, "", "", ""],
        ["Intel Xeon Platinum 8480+ 2.0G, 56C", 2, "", "", ""],
        ["64GB RDIMM, 4800MT/s", 32, "", "", ""],
        ["NVIDIA ConnectX-7 Single Port NDR OSFP Adapter", 8, "", "", ""],
    ]
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    review = review_quote(read_quote(buf.getvalue().encode(), "dell.csv"))
    assert (review.gpus, review.servers) == (128, 16)
    assert review.per_server["ram_gb"] == 2048 and review.per_server["backend_nics"] == 8
    cpu = next(ln for ln in review.lines if ln.component == "cpu")
    assert cpu.cluster_quantity == 32 and cpu.row == 5
    assert {"cpu_top_bin", "ram_over_1tb"} <= codes(review)


def test_a_b300_quote_is_reviewed_against_the_book_that_prices_the_b300() -> None:
    rows = [{"Part Number": "", "Description": "NVIDIA HGX B300 8-GPU baseboard", "Qty": 4,
             "Unit Price (USD)": 280_000.0, "Extended Price (USD)": 1_120_000.0}]  # fmt: skip
    review = review_rows(rows)
    assert (review.gpus, review.gpu_model) == (32, "b300-sxm")
    assert review.warnings[0].startswith("priced against the 2026-11 price book, the first that prices b300-sxm")
    design = review.recommended
    assert design is not None and (design.prices_as_of, design.cluster.gpu_model) == ("2026-11", "b300-sxm")
    assert design.fabric.nic_gbps == 800  # the platform's defaults: ConnectX-8 on the HGX B300 board
    board_usd = price_book("2026-11").price("gpu_baseboard_hgx_b300")
    (board,) = review.lines
    assert board.book_unit_price_usd == board_usd and board.price_check == "ok"  # $280k within 15 % of the book ($256k)
    (row,) = [r for r in review.comparison if r.component == "gpu_baseboard"]
    assert row.in_scope and row.recommended_usd == pytest.approx(4 * board_usd, rel=1e-12)
    assert review.saving_usd == pytest.approx(4 * (280_000.0 - board_usd), rel=1e-12)  # the board only


def test_a_b300_quote_against_a_given_book_that_cannot_price_it_is_counted_not_compared() -> None:
    rows = [{"Part Number": "", "Description": "NVIDIA HGX B300 8-GPU baseboard", "Qty": 4,
             "Unit Price (USD)": 400_000.0, "Extended Price (USD)": 1_600_000.0}]  # fmt: skip
    review = review_rows(rows, book=price_book("2024-10"))
    assert review.gpus == 32 and review.lines[0].book_unit_price_usd is None  # no B300 price in that book
    assert review.recommended is not None and review.recommended.prices_as_of == "2026-11"
    assert any(w.startswith("the recommended design is priced by the 2026-11 book") for w in review.warnings)


def test_a_price_3x_off_the_book_is_never_a_saving() -> None:
    rows = [{"Part Number": "", "Description": "Intel Xeon Gold 6530 32C", "Qty": 2, "Unit Price (USD)": 40_000.0,
             "Extended Price (USD)": 80_000.0},
            {"Part Number": "", "Description": "HGX H100 8-GPU baseboard", "Qty": 1, "Unit Price (USD)": 214_330.0,
             "Extended Price (USD)": 214_330.0}]  # fmt: skip
    review = review_rows(rows)
    cpu = review.lines[0]
    assert cpu.price_check == "could_not_price" and "check the classification" in cpu.note
    assert "price_above_book" not in codes(review) and review.could_not_price == [cpu]
    d = review.to_dict()
    assert d["could_not_price"][0]["price_check"] == "could_not_price"


def test_like_for_like_needs_the_same_speed() -> None:
    rows = [{"Part Number": "", "Description": "NVIDIA ConnectX-7 200G adapter", "Qty": 8, "Unit Price (USD)": 2_000.0,
             "Extended Price (USD)": 16_000.0}]  # fmt: skip
    line = review_rows(rows).lines[0]
    assert line.component == "backend_nic" and line.book_unit_price_usd is None and line.price_check is None
    assert "not like for like" in line.note


EURO = (
    "Pos;Beschreibung;Menge;Einzelpreis;Gesamtpreis\n"
    '1;"HGX H100 8-GPU baseboard";2;"200.000,00 €";"400.000,00 €"\n'
    '2;"Intel Xeon Platinum 8480+";4;"4.000,00 €";"16.000,00 €"\n'
    "3;VAT 19 %;;;79.040,00 €\n"
).encode()


def test_a_quote_in_euro_needs_a_rate_and_is_converted() -> None:
    quote = read_quote(EURO, "de.csv")
    assert quote.currency == "EUR"
    with pytest.raises(QuoteError, match=r"^the quote is in EUR: give the USD rate"):
        review_quote(quote)
    review = review_quote(quote, usd_per_unit=1.1)
    assert review.currency == "EUR" and review.to_dict()["currency"] == "EUR"
    assert review.quote_total_usd == pytest.approx(1.1 * 416_000)
    assert review.lines[1].unit_price_usd == pytest.approx(4_400.0)
    for bad in (0.0, -1.0, float("nan"), True):
        with pytest.raises(QuoteError, match="USD rate"):
            review_quote(quote, usd_per_unit=bad)


def test_findings_cite_the_sheet_and_row_as_the_file_shows_them(padded: QuoteReview) -> None:
    by_code = {f.code: f for f in padded.findings}
    assert by_code["nvaie_license"].sources == (("Software & services", 18),)
    assert by_code["nvaie_license"].where == "Software & services!18"
    assert by_code["cpu_top_bin"].where == "Compute!7"
    d = padded.to_dict()
    assert {"sheet": "Compute", "row": 7} in next(f for f in d["findings"] if f["code"] == "cpu_top_bin")["sources"]
    assert "Compute!7" in text_summary(padded)


def test_servers_quoted_is_inferred_from_the_quote() -> None:
    messy = review_quote(read_quote(MESSY.read_bytes(), MESSY.name))  # "order quantity 32"
    assert (messy.servers, messy.gpus, messy.servers_quoted) == (32, 256, 32)
    padded = review_quote(read_quote(PADDED.read_bytes(), PADDED.name), 32)  # lists 128 servers: 32 not applied
    assert padded.servers == 128 and any("not used" in w for w in padded.warnings)


def test_catalogue_rows_have_sources_and_compile() -> None:
    entries = default_catalogue()
    assert len(entries) >= 30 and all(e.source and e.line > 0 for e in entries)


def test_a_rack_scale_nvl72_line_is_sized_in_racks_and_compared_with_the_nvl72_design() -> None:
    data = (
        b"Description,Qty,Unit Price,Extended Price\n"
        b'"NVIDIA GB200 NVL72 rack, 72x Blackwell GPUs, 36x Grace CPUs, liquid cooled",2,"$3,400,000","$6,800,000"\n'
    )
    review = review_quote(read_quote(data, "nvl.csv"))
    assert (review.gpus, review.servers, review.racks, review.gpu_model) == (144, 36, 2, "gb200-nvl72")
    assert review.size_text == "144 GPUs in 2 NVL72 racks (36 compute trays)"
    assert review.recommended is not None and review.recommended.cluster.gpus == 144
    assert review.recommended.cluster.gpu_model == "gb200-nvl72" and review.book == "2026-11"
    rack = review.lines[0]
    node = neoplan.evaluate(review.recommended).node_capex_usd  # one NVL72 rack, its NICs, NVMe and services
    assert rack.book_unit_price_usd == pytest.approx(node) and rack.price_check in ("ok", "above_book")
    assert "nics_below_8" not in codes(review) and review.saving_usd is not None


def test_euro_sample_reads_whole_server_lines() -> None:
    quote = read_quote(EURO_SAMPLE.read_bytes(), EURO_SAMPLE.name)
    assert quote.currency == "EUR" and quote.skipped.get("tax") == 1
    review = review_quote(quote, usd_per_unit=1.08)
    assert (review.gpus, review.servers, review.gpu_model) == (256, 32, "h200-sxm")
    assert review.lines[0].component == "system" and review.lines[0].price_check == "ok"
    assert {"cpu_top_bin", "dpu_bluefield", "nvaie_license"} <= codes(review)
    assert "ram_over_1tb" not in codes(review)  # 2 TB per H200 server is the platform's recommendation
    assert not review.unsure and not review.unmatched and not review.could_not_price


def test_labelled_configuration_items_are_read() -> None:
    """Bullets and labels ("Memory: 32 x 64 GB", "Network: 8x 400Gb/s NDR") carry the kind the item omits."""
    text = (
        "Gigabyte G593-SD2 HGX server - GPU: 8x NVIDIA H100 80GB - Processor: 2 x Intel® Xeon® Platinum 8480+ - "
        "Memory: 32 x 64 GB - Network: 8x 400Gb/s NDR - Front end: 1x dual-port 100GbE - Storage: 4x 7.68 TB U.2"
    )
    ident, config = _one(text, "G593-SD2")
    assert ident.component == "system" and config is not None and config.gpu_model == "h100-sxm"
    parts = {p.identity.component: p for p in config.parts}
    assert parts["ram"].ram_gb == 2048 and parts["backend_nic"].count == 8 and parts["cpu"].count == 2
    assert parts["frontend_nic"].identity.price_key == "nic_frontend_2x100g" and parts["local_nvme"].count == 4


def test_a_bare_server_line_is_counted_but_its_configuration_not_judged() -> None:
    data = b'Description,Qty,Unit Price,Extended Price\nPowerEdge XE9680 Rack Server,3,"$250,000","$750,000"\n'
    review = review_quote(read_quote(data, "bare.csv"))
    assert (review.servers, review.gpus) == (3, 24) and "nics_below_8" not in codes(review)
    assert any("configuration" in w for w in review.warnings)


def test_a_per_server_count_in_the_description_scales_its_line() -> None:
    rows = [
        {"Part Number": "", "Description": "HGX H100 8-GPU baseboard", "Qty": 16, "Unit Price (USD)": 214_330.0,
         "Extended Price (USD)": 3_429_280.0},
        {"Part Number": "", "Description": "NVIDIA ConnectX-7 400G NDR adapter (4 per server)", "Qty": 4,
         "Unit Price (USD)": 1_650.0, "Extended Price (USD)": 6_600.0},
        {"Part Number": "", "Description": "NVIDIA ConnectX-7 400G NDR adapter (4 per server)", "Qty": 64,
         "Unit Price (USD)": 1_650.0, "Extended Price (USD)": 105_600.0},
    ]  # fmt: skip
    review = review_rows(rows)
    assert [ln.cluster_quantity for ln in review.lines] == [16, 64, 64]  # the total line is left as it is
    assert review.per_server["backend_nics"] == 8 and any("4 per server" in w for w in review.warnings)


def test_ram_advice_never_recommends_less_than_the_gpus_hold() -> None:
    """The RAM finding's target is the platform's ``node.ram_tb`` default: at least the HBM of its 8 GPUs on every
    HGX platform (H100 1 TB > 640 GB; H200 2 TB > 1,128 GB; B200 2 TB > 1,440 GB; B300 3 TB > 2,304 GB)."""
    from neoplan.inputs.pricebook import default_platforms
    from neoplan.quote.findings import ram_gb_recommended

    for key, platform in default_platforms().items():
        if not platform.rack_scale:
            assert ram_gb_recommended(key) >= platform.gpus_per_node * platform.gpu_memory_gb, key
    assert ram_gb_recommended("h100-sxm") == 1024 and ram_gb_recommended("b300-sxm") == 3072
    assert ram_gb_recommended("h20-sxm") == 1024  # a platform the model does not know: the article's 1 TB


def test_licences_are_saved_at_the_quoted_price_whatever_the_book_says() -> None:
    """NVIDIA AI Enterprise quoted for less (or more) than the book's per-GPU-year price is dropped for what the
    quote charges; a price far off the book is a licence's own terms, not a misread line."""
    rows = [
        {"Part Number": "SYS-821GE-TNHR", "Description": SYSTEM, "Qty": 16, "Unit Price (USD)": 300_000.0,
         "Extended Price (USD)": 4_800_000.0},
        {"Part Number": "NVAIE-5Y", "Description": "NVIDIA AI Enterprise 5-year subscription per GPU", "Qty": 128,
         "Unit Price (USD)": 5_000.0, "Extended Price (USD)": 640_000.0},
    ]  # fmt: skip
    review = review_rows(rows)
    (licence,) = [f for f in review.findings if f.code == "nvaie_license"]
    assert licence.saving_usd == pytest.approx(640_000.0)  # the book says 128 × 5 × $4,500 = $2.88 M
    line = next(ln for ln in review.lines if ln.part_number == "NVAIE-5Y")
    assert line.price_check != "could_not_price" and "as quoted" in line.note

"""Quote review against an independent corpus of OEM-style quotes (tests/quote_corpus/, issue 11).

Each file of the corpus is written the way a vendor writes real quotes (Dell, Supermicro resellers, HPE, Lenovo,
distributors, ODMs, European resellers, PDF exports, a clean quote that follows the article); its expectations
(``expected.yaml``, written with the corpus by ``make_corpus.py``) say what the quote says: cluster size, GPU
model, currency, the findings the article's advice demands or forbids, per-server aggregates and a few lines'
components by the row the file shows. Invariants hold for every quote whatever it contains.
"""

from __future__ import annotations

import csv
import functools
import importlib.util
import io
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import yaml

CORPUS = Path(__file__).resolve().parent / "quote_corpus"
RULES_CSV = Path(__file__).resolve().parent.parent / "data" / "quote_rules.csv"
MARK = "SYNTHETIC SAMPLE made for neoplan tests; not a real quote"
CURRENCY_NAMES = {
    "EUR": ("EUR", "€", "euro"),
    "GBP": ("GBP", "£", "pound"),
    "CNY": ("CNY", "yuan"),
    "JPY": ("JPY", "yen"),
    "KRW": ("KRW", "won"),
}


def load_entries() -> list[dict[str, Any]]:
    """The corpus expectations, one entry per file."""
    entries = yaml.safe_load((CORPUS / "expected.yaml").read_text(encoding="utf-8"))
    assert isinstance(entries, list) and entries, "expected.yaml holds no entries"
    return entries


ENTRIES = load_entries()
BY_FILE = {e["file"]: e for e in ENTRIES}
FILES = [e["file"] for e in ENTRIES]


def parse_rows(spec: str) -> list[int]:
    """'3-5,9' -> [3, 4, 5, 9]."""
    out: list[int] = []
    for part in filter(None, spec.split(",")):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def item_rows(entry: dict[str, Any]) -> set[tuple[str, int]]:
    """(sheet, row) of every quote line (items, sub-items, wrapped rows) as the file shows them."""
    return {(sheet, row) for sheet, lay in entry["layout"].items() for row in parse_rows(lay["item_rows"])}


def csv_text(name: str) -> str:
    """A corpus CSV decoded with the encoding it was written in."""
    encoding = BY_FILE[name]["encoding"]
    return (CORPUS / name).read_bytes().decode("utf-8-sig" if encoding == "utf-8" else encoding)


def file_rows(name: str) -> dict[str, list[list[Any]]]:
    """Rows of a corpus file as written: {sheet: rows}; a CSV is one sheet named ''."""
    if name.endswith(".csv"):
        rows = csv.reader(io.StringIO(csv_text(name)), delimiter=BY_FILE[name]["delimiter"])
        return {"": [list(r) for r in rows]}
    data = (CORPUS / name).read_bytes()
    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        return {ws.title: [list(r) for r in ws.iter_rows(values_only=True)] for ws in wb.worksheets}
    finally:
        wb.close()


def corpus_money(cell: Any) -> float | None:
    """A money cell as the corpus writes it ($1,234.00, ($1.00), $ 1.00, 1.234,00 €, £1.00, numbers)."""
    if cell is None or isinstance(cell, bool):
        return None
    if isinstance(cell, int | float):
        return float(cell)
    text = str(cell).strip()
    if not text or text.lower() == "included":
        return None
    negative = text.startswith("(") or text.endswith(")") or re.match(r"^[^\d]*-", text) is not None
    body = re.sub(r"[^\d.,]", "", text)
    european = re.search(r",\d{2}$", body)  # 1.234,56
    body = body.replace(".", "").replace(",", ".") if european else body.replace(",", "")
    if not re.search(r"\d", body):
        return None
    value = float(body)
    return -value if negative else value


@functools.cache
def parsed(name: str) -> Any:
    from neoplan.quote import read_quote

    return read_quote((CORPUS / name).read_bytes(), name)


@functools.cache
def reviewed(name: str) -> Any:
    from neoplan.quote import review_quote

    entry = BY_FILE[name]
    return review_quote(parsed(name), entry["servers_quoted"], usd_per_unit=entry["usd_per_unit"])


def codes(review: Any) -> set[str]:
    return {f.code for f in review.findings}


def quote_total_usd(entry: dict[str, Any]) -> float:
    """The net total of the cluster the quote prices [USD]."""
    return float(entry["quote_total"]) * entry["per_server_copies"] * float(entry["usd_per_unit"] or 1.0)


# ---------------------------------------------------------------- the corpus itself (no implementation needed)


def test_corpus_size_and_styles() -> None:
    styles = Counter(e["style"] for e in ENTRIES)
    assert len(ENTRIES) >= 18
    assert len(styles) >= 7, styles
    assert all(count >= 2 for count in styles.values()), styles
    on_disk = {p.name for p in CORPUS.iterdir() if p.suffix in {".csv", ".xlsx"}}
    assert on_disk == set(FILES), "expected.yaml and the corpus files disagree"
    assert len(set(FILES)) == len(FILES)
    models = {e["expect"]["gpu_model"] for e in ENTRIES}
    assert {"h100-sxm", "h200-sxm", "b200-sxm", "b300-sxm", "gb200-nvl72", "h20-sxm"} <= models
    sizes = {e["expect"]["servers"] for e in ENTRIES}
    assert {16, 32, 64, 128, 256} <= sizes
    assert {"EUR", "GBP", "USD", "CNY", "JPY", "KRW"} <= {e["expect"]["currency"] for e in ENTRIES}
    assert {"rack_scale", "options", "asia"} <= set(styles)
    assert {e["encoding"] for e in ENTRIES} >= {"utf-8", "cp1252", "cp932", "gb18030"}


@pytest.mark.parametrize("name", FILES)
def test_corpus_file_is_consistent(name: str) -> None:
    """Each file is marked synthetic, its layout points at real rows, and its lines add up to its total."""
    entry = BY_FILE[name]
    sheets = file_rows(name)
    assert any(MARK in str(c) for rows in sheets.values() for r in rows for c in r if c), "not marked synthetic"
    total = 0.0
    for sheet, lay in entry["layout"].items():
        rows = sheets[sheet]
        assert any(isinstance(c, str) and c.strip() for c in rows[lay["header_row"] - 1])
        for r in parse_rows(lay["item_rows"]):
            row = rows[r - 1]
            assert any(c not in (None, "") for c in row), f"{sheet}!{r} is empty"
            ext = corpus_money(row[lay["ext_col"]]) if lay["ext_col"] < len(row) else None
            total += ext or 0.0
    assert total == pytest.approx(entry["quote_total"], abs=0.02)
    for check in entry["expect"]["lines"]:
        assert (check["sheet"], check["row"]) in item_rows(entry)


def test_corpus_matches_its_generator(tmp_path: Path) -> None:
    """The committed files are exactly what make_corpus.py writes (edit the script, not the files)."""
    spec = importlib.util.spec_from_file_location("_neoplan_make_corpus", CORPUS / "make_corpus.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the script loads
    try:
        spec.loader.exec_module(module)
        module.main(tmp_path)
    finally:
        del sys.modules[spec.name]
    written = {p.name for p in tmp_path.iterdir()}
    committed = {p.name for p in CORPUS.iterdir() if p.suffix in {".csv", ".xlsx", ".yaml", ".md"}}
    assert written == committed
    stale = [name for name in sorted(written) if (tmp_path / name).read_bytes() != (CORPUS / name).read_bytes()]
    assert not stale, f"regenerate the corpus (python tests/quote_corpus/make_corpus.py): {stale}"


def test_spot_check_components_are_known() -> None:
    """Spot-checked components are the rules' components (or 'system'), so a rename shows up here."""
    known = {"system", "attribute"}  # attribute: a configurator's setting line (no part), read by the code
    with RULES_CSV.open(encoding="utf-8") as fh:
        for row in csv.DictReader(line for line in fh if not line.startswith("#")):
            known.add(row["component"])
    used = {c["component"] for e in ENTRIES for c in e["expect"]["lines"]}
    assert used <= known, used - known


# ---------------------------------------------------------------- expectations


@pytest.mark.parametrize("name", FILES)
def test_cluster_size_and_model(name: str) -> None:
    expect = BY_FILE[name]["expect"]
    review = reviewed(name)
    assert (review.gpus, review.servers, review.gpu_model) == (expect["gpus"], expect["servers"], expect["gpu_model"])


@pytest.mark.parametrize("name", FILES)
def test_currency(name: str) -> None:
    expect = BY_FILE[name]["expect"]
    assert parsed(name).currency == expect["currency"]
    review = reviewed(name)
    assert review.currency == expect["currency"]
    assert review.to_dict()["currency"] == expect["currency"]


@pytest.mark.parametrize("name", FILES)
def test_findings_must(name: str) -> None:
    expect = BY_FILE[name]["expect"]
    missing = set(expect["findings_must"]) - codes(reviewed(name))
    assert not missing, f"{name}: findings not raised: {sorted(missing)}"


@pytest.mark.parametrize("name", FILES)
def test_findings_must_not(name: str) -> None:
    expect = BY_FILE[name]["expect"]
    wrong = set(expect["findings_must_not"]) & codes(reviewed(name))
    details = [f"{f.code}: {getattr(f, 'detail', '')}" for f in reviewed(name).findings if f.code in wrong]
    assert not wrong, f"{name}: findings that must not be raised: {details}"


@pytest.mark.parametrize("name", [f for f in FILES if BY_FILE[f]["expect"].get("per_server")])
def test_per_server_aggregates(name: str) -> None:
    expect = BY_FILE[name]["expect"]["per_server"]
    got = reviewed(name).per_server
    for key, value in expect.items():
        assert key in got, f"per_server lacks {key!r}: {sorted(got)}"
        assert got[key] == pytest.approx(value), f"{key}: {got[key]} != {value}"


@pytest.mark.parametrize("name", FILES)
def test_line_spot_checks(name: str) -> None:
    review = reviewed(name)
    wrong = []
    for check in BY_FILE[name]["expect"]["lines"]:
        at = [ln for ln in review.lines if (ln.sheet, ln.row) == (check["sheet"], check["row"])]
        if not any(ln.component == check["component"] and ln.status == "classified" for ln in at):
            got = [(ln.component, ln.status) for ln in at] or "no line"
            wrong.append(f"{check['sheet']}!{check['row']}: want {check['component']}, got {got}")
    assert not wrong, wrong


# ---------------------------------------------------------------- invariants on every quote


@pytest.mark.parametrize("name", FILES)
def test_findings_rest_on_sure_priced_lines(name: str) -> None:
    """No finding cites a line the reader is unsure of or could not price like for like."""
    review = reviewed(name)
    by_id = {ln.id: ln for ln in review.lines}
    for f in review.findings:
        for line_id in f.lines:
            ln = by_id[line_id]
            assert ln.status != "unsure", f"{f.code} cites unsure line {ln.sheet}!{ln.row}"
            assert ln.price_check != "could_not_price", f"{f.code} cites unpriceable line {ln.sheet}!{ln.row}"


@pytest.mark.parametrize("name", FILES)
def test_finding_sources_are_quote_lines(name: str) -> None:
    """Every finding cites (sheet, row) pairs that are lines of the file, as the file shows them (a stated total
    off its lines also cites the total's own row)."""
    entry = BY_FILE[name]
    review = reviewed(name)
    lines = {(ln.sheet, ln.row) for ln in review.lines}
    items = item_rows(entry)
    bad_totals = {(t["sheet"], t["row"]) for t in entry["expect"].get("bad_totals", [])}
    for f in review.findings:
        assert f.sources, f"{f.code} cites nothing"
        for source in f.sources:
            if f.code == "total_mismatch" and source in bad_totals:
                continue
            sheet, row = source
            assert (sheet, row) in items, f"{f.code} cites {sheet}!{row}, not a line of {name}"
            assert (sheet, row) in lines, f"{f.code} cites {sheet}!{row}, which the review does not list"


@pytest.mark.parametrize("name", FILES)
def test_no_saving_exceeds_the_quote(name: str) -> None:
    total = quote_total_usd(BY_FILE[name])
    for f in reviewed(name).findings:
        assert math.isfinite(f.saving_usd)
        assert abs(f.saving_usd) <= total + 1.0, f"{f.code} saves {f.saving_usd:,.0f} of a {total:,.0f} quote"


@pytest.mark.parametrize("name", [f for f in FILES if BY_FILE[f]["expect"].get("savings_at_most")])
def test_savings_stay_within_what_the_lines_cost(name: str) -> None:
    """A finding on lines quoted at no charge ('Included') saves nothing; others at most what the quote charges."""
    limits = BY_FILE[name]["expect"]["savings_at_most"]
    for f in reviewed(name).findings:
        if f.code in limits:
            assert f.saving_usd <= limits[f.code] + 1.0, f"{f.code} saves {f.saving_usd:,.0f}: {f.detail}"


@pytest.mark.parametrize("name", [f for f in FILES if BY_FILE[f]["expect"].get("options")])
def test_options_are_reviewed_one_at_a_time(name: str) -> None:
    """Alternatives are told apart and never summed: each option's size is its own."""
    from neoplan.quote import review_quote

    entry = BY_FILE[name]
    expect = entry["expect"]
    first = reviewed(name)
    assert list(first.options) == expect["options"] and first.option == expect["options"][0]
    for number, want in expect["by_option"].items():
        other = review_quote(parsed(name), entry["servers_quoted"], usd_per_unit=entry["usd_per_unit"], option=number)
        assert other.option == expect["options"][int(number) - 1]
        assert (other.gpus, other.servers, other.gpu_model) == (want["gpus"], want["servers"], want["gpu_model"])
        assert other.quote_total_usd < quote_total_usd(entry)  # never the sum of the options


@pytest.mark.parametrize("name", [f for f in FILES if BY_FILE[f]["expect"].get("bad_totals")])
def test_a_stated_total_off_its_lines_is_a_finding(name: str) -> None:
    rows = {(t["sheet"], t["row"]) for t in BY_FILE[name]["expect"]["bad_totals"]}
    (finding,) = [f for f in reviewed(name).findings if f.code == "total_mismatch"]
    assert finding.sources[0] in rows and len(finding.sources) >= 2


@pytest.mark.parametrize("name", FILES)
def test_review_is_json_safe(name: str) -> None:
    record = reviewed(name).to_dict()
    text = json.dumps(record, allow_nan=False)
    assert json.loads(text)["currency"] == BY_FILE[name]["expect"]["currency"]
    assert {"option", "conflicts", "withheld"} <= set(record)


HARDWARE = [f for f in FILES if BY_FILE[f]["expect"].get("kind", "quote") == "quote"]


@pytest.mark.parametrize("name", [f for f in HARDWARE if BY_FILE[f]["usd_per_unit"]])
def test_foreign_currency_needs_a_rate(name: str) -> None:
    from neoplan.quote import QuoteError, review_quote

    entry = BY_FILE[name]
    with pytest.raises(QuoteError) as info:
        review_quote(parsed(name), entry["servers_quoted"])
    message = str(info.value)
    assert "\n" not in message.strip()
    assert any(token in message for token in CURRENCY_NAMES[entry["expect"]["currency"]]), message


@pytest.mark.parametrize("name", [f for f in HARDWARE if BY_FILE[f]["usd_per_unit"]])
def test_foreign_currency_scales_with_the_rate(name: str) -> None:
    """The same quote at twice the rate has twice the USD prices and savings; the findings stay."""
    from neoplan.quote import review_quote

    entry = BY_FILE[name]
    base = reviewed(name)
    double = review_quote(parsed(name), entry["servers_quoted"], usd_per_unit=2 * entry["usd_per_unit"])
    priced = [(a, b) for a, b in zip(base.lines, double.lines, strict=True) if a.unit_price_usd]
    assert priced
    for a, b in priced:
        assert b.unit_price_usd == pytest.approx(2 * a.unit_price_usd)
    assert codes(double) - {"price_above_book"} >= codes(base) - {"price_above_book"}


# ---------------------------------------------------------------- issue 38: what a quote says about itself


def _with(key: str) -> list[str]:
    return [f for f in FILES if key in BY_FILE[f]["expect"]]


@pytest.mark.parametrize("name", _with("book"))
def test_priced_by_the_book_of_its_date(name: str) -> None:
    """The book nearest the quote's date (or the first that prices its platform) checks its lines, and says so."""
    review = reviewed(name)
    assert review.book == BY_FILE[name]["expect"]["book"], review.book_from
    assert review.book_from and review.to_dict()["book"] == review.book


def test_a_2026_quote_against_the_2024_book_reads_its_2026_prices_as_padding() -> None:
    """Both books tested on one quote: at its own date its memory and NVMe prices are honest; forced onto the
    2024-10 book (--book) they are far over it, so the date is what keeps a 2026 price from reading as padding."""
    from neoplan.quote import review_quote

    name = "reseller_h200_64_2026.csv"
    own = reviewed(name)
    old = review_quote(parsed(name), book="2024-10")
    assert own.book == "2026-11" and old.book == "2024-10" and old.book_from == "you (--book)"
    assert not any(ln.price_check in ("above_book", "could_not_price") for ln in own.lines if ln.component == "ram")
    flagged = {ln.component for ln in old.lines if ln.price_check in ("above_book", "could_not_price")}
    assert {"ram", "local_nvme"} <= flagged


@pytest.mark.parametrize("name", _with("racks"))
def test_rack_scale_quotes_count_racks(name: str) -> None:
    expect = BY_FILE[name]["expect"]
    review = reviewed(name)
    assert review.racks == expect["racks"] and f"{expect['racks']} NVL72 racks" in review.size_text
    assert review.recommended is not None and review.recommended.cluster.gpus == expect["gpus"]
    assert review.saving_usd is not None  # compared with the NVL72 design of the same racks
    services = [ln for ln in review.lines if ln.component in ("integration", "warranty", "installation_rack")]
    assert services and all(ln.price_check != "could_not_price" for ln in services)


@pytest.mark.parametrize("name", _with("above_book_rows"))
def test_per_rack_services_over_the_book_are_found(name: str) -> None:
    rows = set(BY_FILE[name]["expect"]["above_book_rows"])
    cited = {row for f in reviewed(name).findings if f.code == "price_above_book" for _, row in f.sources}
    assert rows <= cited, (rows, cited)


@pytest.mark.parametrize("name", _with("rates"))
def test_lines_in_two_currencies_are_converted_at_the_stated_rate(name: str) -> None:
    review = reviewed(name)
    for code, rate in BY_FILE[name]["expect"]["rates"].items():
        assert review.rates[code] == pytest.approx(rate, rel=1e-5)
        assert review.rate_sources[code].startswith("the quote, row") or "!" in review.rate_sources[code]
    assert review.quote_total_usd < quote_total_usd(BY_FILE[name])  # the local-currency lines cost less in USD


@pytest.mark.parametrize("name", _with("rate_count"))
def test_a_rate_card_is_reported_as_such(name: str) -> None:
    review = reviewed(name)
    assert review.kind == "rate_card" and len(review.rate_card) == BY_FILE[name]["expect"]["rate_count"]
    assert not review.lines and not review.findings and review.saving_usd is None
    assert any("rate card" in w for w in review.warnings)
    assert all(r.reference for r in review.rate_card if r.gpu_model in ("h100-sxm", "h200-sxm", "b200-sxm"))


@pytest.mark.parametrize("name", [f for f in FILES if BY_FILE[f]["expect"].get("recommended") is False])
def test_a_platform_the_book_does_not_price_is_named_and_not_compared(name: str) -> None:
    review = reviewed(name)
    assert review.recommended is None and review.saving_usd is None
    assert any("this platform is not priced here" in w for w in review.warnings)


@pytest.mark.parametrize("name", _with("bundle_row"))
def test_a_bundle_read_as_one_part_is_refused_and_split_prices_each_part(name: str) -> None:
    from neoplan.quote import review_quote

    entry = BY_FILE[name]
    sheet = next(iter(entry["layout"]))
    row = entry["expect"]["bundle_row"]
    as_nic = review_quote(parsed(name), corrections=[{"sheet": sheet, "row": row, "category": "backend_nic"}])
    (refused,) = as_nic.refused
    assert "bundles several parts" in refused[1] and "split" in refused[1]
    assert not any(f.saving_usd < -1 for f in as_nic.findings if f.code == "nics_below_8")
    split = [{"sheet": sheet, "row": row, "split": "backend_nic×8, backend_server_link×8"}]
    parts = review_quote(parsed(name), corrections=split)
    assert not parts.refused and parts.per_server["backend_nics"] == 8
    kit = [ln for ln in parts.lines if ln.row == row]
    assert {ln.component for ln in kit} == {"backend_nic", "backend_server_link"}
    assert sum(ln.total_usd for ln in kit) == pytest.approx(sum(ln.total_usd for ln in reviewed(name).lines
                                                               if ln.row == row))  # fmt: skip
    assert all(ln.price_check in ("ok", "above_book") for ln in kit)


@pytest.mark.parametrize("name", _with("savings_at_least"))
def test_licences_are_saved_at_what_the_quote_charges(name: str) -> None:
    limits = BY_FILE[name]["expect"]["savings_at_least"]
    by_code = {f.code: f.saving_usd for f in reviewed(name).findings}
    for code, least in limits.items():
        assert by_code[code] >= least - 1.0

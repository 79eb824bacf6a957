"""Price book and GPU platform catalogue: the shipped data is complete and sourced; bad files are rejected."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import pytest

from neoplan.errors import DataError
from neoplan.inputs.pricebook import (
    BASES,
    BOOK_DATES,
    PRICE_COLUMNS,
    PRICES_DIR,
    PriceBook,
    PriceBookError,
    default_platforms,
    default_price_book,
    price_book,
    read_platforms,
    read_price_book,
)

DATE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$")


def _row(key: str, price: object = 100, **fields: object) -> dict[str, object]:
    row: dict[str, object] = {
        "key": key,
        "category": "compute",
        "description": f"Test item {key}",
        "unit": "card",
        "price_usd": price,
        "date": "2024-10",
        "source": "Test fixture",
        "basis": "quoted",
    }
    row.update(fields)
    return row


def _write(directory: Path, name: str, rows: list[dict[str, object]]) -> Path:
    path = directory / name
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=PRICE_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return path


def _error(directory: Path) -> str:
    with pytest.raises(DataError) as err:
        read_price_book(directory)
    return str(err.value)


@pytest.fixture(scope="module")
def book() -> PriceBook:
    return read_price_book()


# --- the shipped book ------------------------------------------------------------------------------------------


def test_shipped_book_loads(book: PriceBook) -> None:
    assert len(book.rows) > 10
    assert set(default_price_book().rows) == set(book.rows)
    assert "gpu_baseboard_hgx_h100" in book
    assert "no_such_key" not in book


def test_shipped_files_have_the_documented_columns() -> None:
    files = sorted(PRICES_DIR.glob("*.csv"))
    assert files
    for path in files:
        with path.open(newline="", encoding="utf-8") as fh:
            header = next(csv.reader(fh))
        assert tuple(h.strip() for h in header[: len(PRICE_COLUMNS)]) == PRICE_COLUMNS, path.name


def test_every_row_is_sourced_and_dated(book: PriceBook) -> None:
    bad = []
    for key, row in book.rows.items():
        problems = []
        if not row.source.strip():
            problems.append("no source")
        if not DATE.match(row.date):
            problems.append(f"date {row.date!r}")
        if row.basis not in BASES:
            problems.append(f"basis {row.basis!r}")
        if not (row.description.strip() and row.unit.strip() and row.category.strip()):
            problems.append("empty description/unit/category")
        if not (math.isfinite(row.price_usd) and row.price_usd >= 0):
            problems.append(f"price {row.price_usd!r}")
        if key != key.strip() or " " in key:
            problems.append("whitespace in key")
        if problems:
            bad.append((row.file, key, problems))
    assert bad == []


def test_bases_are_the_documented_three() -> None:
    assert set(BASES) == {"quoted", "estimate", "fitted"}


def test_fitted_rows_say_what_they_fit(book: PriceBook) -> None:
    fitted = [row for row in book.rows.values() if row.basis == "fitted"]
    assert fitted, "the calibration targets of BRIEF.md §5 need at least one fitted price"
    for row in fitted:
        assert re.search(r"fit|reproduc|calibrat", row.source, re.IGNORECASE), row.key
        assert re.search(r"\d", row.source), f"{row.key}: fitted source names no target value"
    board = book.row("gpu_baseboard_hgx_h100")
    assert board.basis == "fitted"
    assert "270,000" in board.source  # the oem_default node target


def test_lookup(book: PriceBook) -> None:
    row = book.row("cpu_mid")
    assert book.price("cpu_mid") == row.price_usd > 0
    with pytest.raises(PriceBookError, match="no_such_key"):
        book.price("no_such_key")
    with pytest.raises(PriceBookError, match="no_such_key"):
        book.row("no_such_key")


# --- the platform catalogue ------------------------------------------------------------------------------------


def test_h100_and_h200_platforms_exist() -> None:
    platforms = read_platforms()
    assert {"h100-sxm", "h200-sxm"} <= set(platforms)
    h100, h200 = platforms["h100-sxm"], platforms["h200-sxm"]
    assert h100.gpus_per_node == h200.gpus_per_node == 8
    assert (h100.gpu_memory_gb, h200.gpu_memory_gb) == (80, 141)
    assert h100.gpu_power_w == pytest.approx(700)
    assert h100.node_max_power_kw == pytest.approx(10.2)


def test_every_platform_has_its_baseboard_in_the_latest_book() -> None:
    platforms = default_platforms()
    latest = price_book(BOOK_DATES[-1])
    assert platforms
    for key, platform in platforms.items():
        assert platform.baseboard_price_key in latest, key
        assert latest.price(platform.baseboard_price_key) > 0
        assert platform.source.strip(), key
        assert DATE.match(platform.date), key
        assert platform.gpus_per_node >= 1
        assert platform.gpu_power_w * platform.gpus_per_node < platform.node_max_power_kw * 1000


def test_h200_board_costs_more_than_h100(book: PriceBook) -> None:
    platforms = default_platforms()
    h100 = book.price(platforms["h100-sxm"].baseboard_price_key)
    h200 = book.price(platforms["h200-sxm"].baseboard_price_key)
    assert h200 > h100


# --- bad files: rejected with file and line --------------------------------------------------------------------


def test_temp_book_reads(tmp_path: Path) -> None:
    _write(tmp_path, "a.csv", [_row("x", 10), _row("y", 0, basis="estimate")])
    _write(tmp_path, "b.csv", [_row("z", 2.5, basis="fitted", date="2024-10-03")])
    book = read_price_book(tmp_path)
    assert set(book.rows) == {"x", "y", "z"}
    assert book.price("z") == 2.5
    assert book.row("z").file == "b.csv"
    assert book.price("y") == 0.0  # free is allowed


def test_duplicate_key_across_files(tmp_path: Path) -> None:
    _write(tmp_path, "a.csv", [_row("x"), _row("dup")])
    _write(tmp_path, "b.csv", [_row("y"), _row("z"), _row("dup")])
    msg = _error(tmp_path)
    assert "b.csv row 4, column 'key'" in msg
    assert "dup" in msg
    assert "a.csv row 3" in msg


def test_duplicate_key_in_one_file(tmp_path: Path) -> None:
    _write(tmp_path, "a.csv", [_row("x"), _row("x")])
    assert "a.csv row 3, column 'key': key 'x' already defined in a.csv row 2" in _error(tmp_path)


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        pytest.param({"price_usd": -1}, "price_usd", id="negative-price"),
        pytest.param({"price_usd": "12k"}, "price_usd", id="price-not-a-number"),
        pytest.param({"basis": "guess"}, "basis", id="bad-basis"),
        pytest.param({"basis": "Quoted"}, "basis", id="basis-case"),
        pytest.param({"source": ""}, "source", id="empty-source"),
        pytest.param({"date": " "}, "date", id="blank-date"),
        pytest.param({"unit": ""}, "unit", id="empty-unit"),
        pytest.param({"price_usd": ""}, "price_usd", id="empty-price"),
        pytest.param({"key": ""}, "key", id="empty-key"),
    ],
)
def test_bad_row_names_file_row_and_column(tmp_path: Path, bad: dict, field: str) -> None:
    _write(tmp_path, "good.csv", [_row("g1"), _row("g2")])
    broken = _row("n3")
    broken.update(bad)
    _write(tmp_path, "network.csv", [_row("n1"), _row("n2"), broken])
    msg = _error(tmp_path)
    assert f"network.csv row 4, column {field!r}: " in msg
    assert "\n" not in msg


def test_missing_column_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text(
        "key,category,description,unit,price_usd,date,source\nx,compute,X,card,1,2024-10,src\n", encoding="utf-8"
    )
    assert "a.csv row 1: column 'basis' is missing" in _error(tmp_path)


def test_empty_directory_is_rejected(tmp_path: Path) -> None:
    assert "no prices" in _error(tmp_path)


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_non_finite_price_is_rejected(tmp_path: Path, value: str) -> None:
    _write(tmp_path, "a.csv", [_row("x", value)])
    assert f"a.csv row 2, column 'price_usd': must be a finite number, got '{value}'" in _error(tmp_path)


@pytest.mark.parametrize(
    ("text", "row"),
    [
        pytest.param(
            "x,compute,X,card,1,2024-10,src,quoted\n\ny,compute,Y,card,-1,2024-10,src,quoted\n", 4, id="blank"
        ),
        pytest.param(
            'x,compute,"two\nlines",card,1,2024-10,src,quoted\ny,compute,Y,card,-1,2024-10,src,quoted\n',
            3,
            id="multiline",
        ),
    ],
)
def test_row_number_is_the_spreadsheet_row(tmp_path: Path, text: str, row: int) -> None:
    """A spreadsheet shows a blank line as a row and a quoted cell over two lines as one row."""
    (tmp_path / "a.csv").write_text(",".join(PRICE_COLUMNS) + "\n" + text, encoding="utf-8")
    assert f"a.csv row {row}, column 'price_usd'" in _error(tmp_path)


def test_malformed_date_is_rejected(tmp_path: Path) -> None:
    _write(tmp_path, "a.csv", [_row("x", date="soon")])
    assert "a.csv row 2, column 'date': must be a date YYYY-MM or YYYY-MM-DD, got 'soon'" in _error(tmp_path)


def test_non_utf8_file_is_a_data_error(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_bytes(
        (",".join(PRICE_COLUMNS) + "\nx,compute,2× card,card,1,2024-10,src,quoted\n").encode("cp1252")
    )
    assert "a.csv: not UTF-8 text" in _error(tmp_path)


def test_row_with_extra_field_is_a_data_error(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text(",".join(PRICE_COLUMNS) + "\n,,,,,,,,extra\n", encoding="utf-8")
    assert "a.csv row 2: more cells than columns ('extra' in column 9)" in _error(tmp_path)


# --- overrides -------------------------------------------------------------------------------------------------


def test_overrides_apply(book: PriceBook) -> None:
    default = book.price("cpu_mid")
    over = book.with_overrides({"cpu_mid": default + 1000})
    assert over.price("cpu_mid") == default + 1000
    assert over.row("cpu_mid").price_usd == default  # the row keeps the book's price and source
    assert book.price("cpu_mid") == default  # the original book is untouched
    assert over.price("cpu_top") == book.price("cpu_top")
    rec = {r["key"]: r for r in over.records()}
    assert rec["cpu_mid"]["overridden"] is True
    assert rec["cpu_mid"]["price_usd"] == default + 1000
    assert rec["cpu_mid"]["default_price_usd"] == default
    assert rec["cpu_top"]["overridden"] is False


def test_override_to_zero_is_allowed(book: PriceBook) -> None:
    assert book.with_overrides({"dpu_bluefield3": 0}).price("dpu_bluefield3") == 0


def test_unknown_override_key_is_rejected(book: PriceBook) -> None:
    with pytest.raises(PriceBookError, match="cpu_mdi"):
        book.with_overrides({"cpu_mdi": 100})


@pytest.mark.parametrize("value", [-1.0, float("nan")])
def test_bad_override_value_is_rejected(book: PriceBook, value: float) -> None:
    with pytest.raises(PriceBookError, match=r"prices\.cpu_mid"):
        book.with_overrides({"cpu_mid": value})

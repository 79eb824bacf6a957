"""Every loader of ``data/`` reads through its row model: a broken copy of a shipped file raises the one
:class:`DataError`, naming the file, the row as a spreadsheet shows it (header = row 1) and the column."""

from __future__ import annotations

import csv
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import Field

from neoplan.design import storage
from neoplan.design.fabric import catalogue
from neoplan.economics import operations
from neoplan.errors import DataError, ScenarioError
from neoplan.inputs import pricebook
from neoplan.inputs.datafile import DataRow, keyed, read_numbered, read_rows
from neoplan.quote.accelerators import read_accelerators
from neoplan.quote.bands import read_bands

DATA = pricebook.DATA_DIR


def _prices(tmp: Path) -> Path:
    """A copy of the whole price book folder (the loader reads a folder, not a file)."""
    shutil.copytree(DATA / "prices", tmp / "prices")
    return tmp / "prices"


def _book(folder: Path) -> object:
    return pricebook.read_price_book(folder, pricebook.BOOK_DATES[-1])


# (loader of a copied file or folder, file relative to data/, a required number column, has a basis column)
LOADERS: dict[str, tuple[Callable[[Path], object], str, str, bool]] = {
    "price book": (_book, "prices/network.csv", "price_usd", True),
    "dated price book": (_book, "prices/2026-11/compute.csv", "price_usd", True),
    "gpu platforms": (pricebook.read_platforms, "gpu_platforms.csv", "gpu_power_w", False),
    "assumptions": (pricebook.read_assumptions, "assumptions.csv", "value", True),
    "operations": (pricebook.read_assumptions, "operations.csv", "value", True),
    "rental contracts": (pricebook.read_rental_contracts, "rental_contracts.csv", "usd_per_gpu_hour", True),
    "price curves": (pricebook.read_price_curves, "price_curves.csv", "decline_per_year", True),
    "network catalogue": (catalogue.read_network_catalogue, "network_catalogue.csv", "power_w", False),
    "storage catalogue": (storage.read_storage_catalogue, "storage_catalogue.csv", "power_kw", False),
    "quote bands": (read_bands, "quote_bands.csv", "high", True),
    "quote accelerators": (read_accelerators, "quote_accelerators.csv", "hbm_gb", True),
}


def _broken_copy(tmp: Path, name: str, edit: Callable[[list[list[str]]], None]) -> Path:
    """What the loader ``name`` reads, copied to ``tmp`` with its file edited as rows of cells."""
    _, relative, _, _ = LOADERS[name]
    if relative.startswith("prices/"):
        target, path = _prices(tmp), tmp / relative
    else:
        target = path = tmp / Path(relative).name
        shutil.copy(DATA / relative, path)
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    edit(rows)
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return target


def _error(tmp: Path, name: str, edit: Callable[[list[list[str]]], None]) -> DataError:
    loader = LOADERS[name][0]
    with pytest.raises(DataError) as err:
        loader(_broken_copy(tmp, name, edit))
    message, error = str(err.value), err.value
    assert "\n" not in message and error.__cause__ is None
    where = f"{error.file} row {error.row}" + (f", column {error.column!r}" if error.column else "")
    assert message == f"{where}: {error.problem}"
    relative = LOADERS[name][1]
    assert error.file == (relative.removeprefix("prices/") if relative.startswith("prices/") else relative)
    return error


def _set(column: str, value: str, row: int = 3) -> Callable[[list[list[str]]], None]:
    """An edit: the cell of ``column`` on spreadsheet row ``row`` (header = 1) set to ``value``."""

    def edit(rows: list[list[str]]) -> None:
        rows[row - 1][rows[0].index(column)] = value

    return edit


def _drop(column: str) -> Callable[[list[list[str]]], None]:
    """An edit: ``column`` removed from the header and every row."""

    def edit(rows: list[list[str]]) -> None:
        i = rows[0].index(column)
        for cells in rows:
            del cells[i]

    return edit


@pytest.mark.parametrize("name", LOADERS)
def test_the_shipped_file_loads_and_a_copy_loads_the_same(tmp_path: Path, name: str) -> None:
    loader = LOADERS[name][0]
    shipped = loader(DATA / "prices" if LOADERS[name][1].startswith("prices/") else DATA / LOADERS[name][1])
    assert loader(_broken_copy(tmp_path, name, lambda rows: None)) == shipped


@pytest.mark.parametrize("name", LOADERS)
def test_a_blank_required_number_names_file_row_and_column(tmp_path: Path, name: str) -> None:
    column = LOADERS[name][2]
    err = _error(tmp_path, name, _set(column, ""))
    assert (err.row, err.column, err.problem) == (3, column, "is empty")


@pytest.mark.parametrize("name", LOADERS)
def test_letters_in_a_number_name_file_row_and_column(tmp_path: Path, name: str) -> None:
    column = LOADERS[name][2]
    err = _error(tmp_path, name, _set(column, "12k", row=2))
    assert (err.row, err.column, err.problem) == (2, column, "must be a number, got '12k'")


@pytest.mark.parametrize("name", [name for name, spec in LOADERS.items() if spec[3]])
def test_an_unknown_basis_names_file_row_and_column(tmp_path: Path, name: str) -> None:
    err = _error(tmp_path, name, _set("basis", "guess"))
    assert (err.row, err.column) == (3, "basis")
    assert err.problem == "input should be 'quoted', 'estimate' or 'fitted', got 'guess'"


@pytest.mark.parametrize("name", LOADERS)
def test_a_missing_column_names_file_header_row_and_column(tmp_path: Path, name: str) -> None:
    column = LOADERS[name][2]
    err = _error(tmp_path, name, _drop(column))
    assert (err.row, err.column) == (1, None)
    assert err.problem.startswith(f"column {column!r} is missing (columns: ")


@pytest.mark.parametrize("name", LOADERS)
def test_a_bad_date_names_file_row_and_column(tmp_path: Path, name: str) -> None:
    err = _error(tmp_path, name, _set("date", "2024-02-30"))
    assert (err.row, err.column, err.problem) == (3, "date", "must be a date YYYY-MM or YYYY-MM-DD, got '2024-02-30'")


@pytest.mark.parametrize(
    ("name", "column", "value", "problem"),
    [
        ("network catalogue", "radix", "", "a switch needs its port count (≥ 1), got 0"),  # row 3 is a switch
        ("network catalogue", "links_per_unit", "", None),
        ("network catalogue", "cooling", "water", "input should be 'air' or 'liquid', got 'water'"),
        ("gpu platforms", "rack_scale", "maybe", "must be true or false, got 'maybe'"),
        ("gpu platforms", "gpus_per_tray", "4", "compute_trays × gpus_per_tray must equal gpus_per_node, got 4"),
        (
            "gpu platforms",
            "liquid_heat_share",
            "0.5",
            "must be 0 exactly when cooling is air (cooling is air), got 0.5",
        ),
        (
            "gpu platforms",
            "chassis_price_key",
            "",
            "must be set for an HGX server and blank for a rack-scale system, got ''",
        ),
        ("gpu platforms", "gpus_per_node", "8.5", "must be a whole number, got '8.5'"),
        ("storage catalogue", "protection_domain", "raid", "input should be 'server' or 'drive', got 'raid'"),
        ("storage catalogue", "reserve_share", "1", "input should be less than 1, got '1'"),
    ],
)
def test_checks_of_one_file_name_their_column(
    tmp_path: Path, name: str, column: str, value: str, problem: str | None
) -> None:
    if column == "links_per_unit":  # blank on the switch rows; on a cable row it is required
        rows = list(csv.reader((DATA / "network_catalogue.csv").open(encoding="utf-8")))
        row = next(i for i, r in enumerate(rows, start=1) if r[rows[0].index("kind")] == "cable")
        err = _error(tmp_path, name, _set(column, value, row=row))
        assert (err.row, err.column, err.problem) == (row, column, "a cable needs the links it serves (≥ 1), got 0")
        return
    err = _error(tmp_path, name, _set(column, value))
    assert (err.row, err.column, err.problem) == (3, column, problem)


@pytest.mark.parametrize("name", ["gpu platforms", "assumptions", "network catalogue", "storage catalogue"])
def test_a_key_on_two_rows_names_the_second(tmp_path: Path, name: str) -> None:
    def twice(rows: list[list[str]]) -> None:
        rows.append(list(rows[1]))

    err = _error(tmp_path, name, twice)
    assert err.column == "key" and err.problem.endswith("is already on row 2")


def test_an_optional_blank_takes_its_default_and_a_required_one_does_not() -> None:
    """Blank radix on an optic is 0 (not a switch); a blank power would have read as 0 W before row models."""
    optic = catalogue.default_network_catalogue()["xcvr_ndr_server"]
    assert optic.radix == 0 and optic.links_per_unit >= 1 and optic.power_w > 0
    assert catalogue.NetworkItem.model_fields["radix"].is_required() is False
    assert catalogue.NetworkItem.model_fields["power_w"].is_required() is True


def test_rows_come_with_their_spreadsheet_row(tmp_path: Path) -> None:
    numbered = read_numbered(DATA / "gpu_platforms.csv", pricebook.Platform)
    assert [row for row, _ in numbered] == list(range(2, 2 + len(numbered)))
    assert tuple(item for _, item in numbered) == read_rows(DATA / "gpu_platforms.csv", pricebook.Platform)


# --- the reader itself, on a small row model ---------------------------------------------------------------------


class _Item(DataRow):
    key: str
    watts: float = Field(ge=0)
    note: str = ""


def _read(tmp_path: Path, text: str, encoding: str = "utf-8") -> dict[str, _Item]:
    path = tmp_path / "items.csv"
    path.write_bytes(text.encode(encoding))
    return keyed(read_numbered(path, _Item), "items.csv")


def test_reader_strips_cells_skips_blank_rows_and_accepts_a_byte_order_mark(tmp_path: Path) -> None:
    items = _read(tmp_path, "\ufeffkey, watts ,note\n a , 1.5 ,\n,,\n\nb,2,hello\n")
    assert items == {"a": _Item(key="a", watts=1.5), "b": _Item(key="b", watts=2.0, note="hello")}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("key,watts,note\na,,\n", "items.csv row 2, column 'watts': is empty"),
        (
            "key,watts,note\n\n\na,-1,\n",
            "items.csv row 4, column 'watts': input should be greater than or equal to 0, got",
        ),
        ('key,watts,note\na,1,"two\nlines"\nb,x,\n', "items.csv row 3, column 'watts': must be a number, got 'x'"),
        ("key,watts,note\na,1,,extra\n", "items.csv row 2: more cells than columns ('extra' in column 4)"),
        ("key,watt,note\n", "items.csv row 1: column 'watt' is unknown (columns: key, watts, note)"),
        ("key,watts,watts,note\n", "items.csv row 1: column 'watts' appears twice"),
        ("", "items.csv row 1: column 'key' is missing"),
        ("watts,note,key\n2,,b\n", None),  # any column order
    ],
)
def test_reader_errors_name_row_and_column(tmp_path: Path, text: str, message: str | None) -> None:
    if message is None:
        assert _read(tmp_path, text) == {"b": _Item(key="b", watts=2.0)}
        return
    with pytest.raises(DataError) as err:
        _read(tmp_path, text)
    assert str(err.value).startswith(message)


def test_reader_refuses_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"^items\.csv: not UTF-8 text"):
        _read(tmp_path, "key,watts,note\nä,1,\n", encoding="latin-1")


def test_a_data_error_is_not_an_input_error() -> None:
    """No input check (a pydantic validator, an ``except ValueError``) may pass a broken file off as user input."""
    assert not issubclass(DataError, ValueError) and not issubclass(DataError, ScenarioError)


def test_operations_constants_come_through_the_same_loader() -> None:
    rows = pricebook.read_assumptions(operations.OPERATIONS_FILE)
    assert operations.constants() == {key: row.value for key, row in rows.items()}

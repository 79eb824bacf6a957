"""Reading the shipped CSV files of ``data/``: every row through a pydantic row model.

A row model (a subclass of :class:`DataRow`, one per file) is the file's schema: its fields are the columns, a
field without a default is a required column whose cell may not be blank, a field with a default is an optional
cell (blank = the default), and the field's type says how the text parses (``float``, ``int``, ``bool``,
:data:`Basis`, :data:`DataDate`). :func:`read_rows` reads a file through its model; any problem raises the one
:class:`~neoplan.errors.DataError`, naming the file, the row as a spreadsheet shows it (header = row 1, blank
lines counted, a quoted cell over several lines is one row) and the column.

Cells are stripped of surrounding white space; a blank cell is an absent value. Every header column must be a
field and every column field must be in the header.
"""

from __future__ import annotations

import csv
import datetime
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, ClassVar, Literal, TypeVar, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError

from .errors import DataError

Basis = Literal["quoted", "estimate", "fitted"]
"""How a number was found: a public price or figure, a judgement (the source says why), or set to fit a target."""
BASES: tuple[str, ...] = get_args(Basis)
_DATE = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$")


def _calendar_date(text: str) -> str:
    """``text`` unchanged if it is a real ``YYYY-MM`` or ``YYYY-MM-DD`` date."""
    match = _DATE.match(text)
    try:
        if match is None:
            raise ValueError
        year, month, day = match.groups()
        datetime.date(int(year), int(month), int(day or 1))
    except ValueError:
        raise ValueError(f"must be a date YYYY-MM or YYYY-MM-DD, got {text!r}") from None
    return text


DataDate = Annotated[str, AfterValidator(_calendar_date)]
"""A date of a data row, kept as written (``2024-10`` or ``2024-10-03``)."""


class DataRow(BaseModel):
    """One row of a data file. Subclasses declare the columns; see the module docstring for the rules."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    not_columns: ClassVar[tuple[str, ...]] = ()
    """Fields the loader sets itself (not read from a column)."""

    @classmethod
    def columns(cls) -> tuple[str, ...]:
        """The file's columns, in field order."""
        return tuple(name for name in cls.model_fields if name not in cls.not_columns)


Row = TypeVar("Row", bound=DataRow)


def column_error(column: str, problem: str, value: object) -> ValidationError:
    """A check across columns failed: raise this from a row model's validator to name ``column`` in the error."""
    error = PydanticCustomError("row_check", problem)
    details = InitErrorDetails(type=error, loc=(column,), input=value)
    return ValidationError.from_exception_data("row", [details])


def display_name(path: Path, data_dir: Path) -> str:
    """``path`` as an error names it: ``data/…`` for a file under ``data_dir``, else the path as given."""
    try:
        return f"data/{path.resolve().relative_to(data_dir.resolve()).as_posix()}"
    except ValueError:
        return str(path)


def read_rows(
    path: Path, model: type[Row], name: str, extra: Mapping[str, object] | None = None
) -> list[tuple[int, Row]]:
    """Non-blank rows of ``path`` parsed by ``model``, each with its spreadsheet row; ``name`` names the file in
    errors; ``extra`` adds the fields of :attr:`DataRow.not_columns`."""
    records = _records(path, name)
    header = _header(next(records, (1, [])), model, name)
    out = []
    for row, cells in records:
        values = _values(header, cells, name, row)
        if values is None:
            continue
        try:
            out.append((row, model.model_validate({**values, **(extra or {})})))
        except ValidationError as exc:
            first = exc.errors()[0]
            column = str(first["loc"][0]) if first["loc"] else "?"
            raise DataError(name, _problem(first), row=row, column=column) from None
    return out


def keyed(rows: list[tuple[int, Row]], name: str, key: str = "key") -> dict[str, Row]:
    """``rows`` by their ``key`` column; a key on two rows is an error naming the second."""
    out: dict[str, Row] = {}
    where: dict[str, int] = {}
    for row, item in rows:
        value = getattr(item, key)
        if value in out:
            raise DataError(name, f"{value!r} is already on row {where[value]}", row=row, column=key)
        out[value], where[value] = item, row
    return out


def _records(path: Path, name: str) -> Iterator[tuple[int, list[str]]]:
    """Every record of the CSV file with its spreadsheet row (1 = header), blank ones included."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            yield from enumerate(csv.reader(fh), start=1)
    except UnicodeDecodeError as exc:
        raise DataError(name, f"not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None
    except csv.Error as exc:
        raise DataError(name, f"not a readable CSV file ({exc})") from None


def _header(record: tuple[int, list[str]], model: type[DataRow], name: str) -> list[str]:
    """The header row's column names, checked against ``model``."""
    header = [cell.strip() for cell in record[1]]
    columns = model.columns()
    for column in header:
        if column not in columns:
            problem = f"{column!r} is not a column of this file (columns: {', '.join(columns)})"
            raise DataError(name, problem, row=1, column=column or "(blank)")
        if header.count(column) > 1:
            raise DataError(name, f"{column!r} is in the header twice", row=1, column=column)
    for column in columns:
        if column not in header:
            raise DataError(name, "missing from the header row", row=1, column=column)
    return header


def _values(header: list[str], cells: list[str], name: str, row: int) -> dict[str, str] | None:
    """The row's non-blank cells by column; None for a blank row."""
    cells = [cell.strip() for cell in cells]
    if not any(cells):
        return None
    for i, cell in enumerate(cells[len(header) :], start=len(header) + 1):
        if cell:
            raise DataError(name, f"a value ({cell!r}) right of the last header column", row=row, column=str(i))
    return {column: cell for column, cell in zip(header, cells, strict=False) if cell}


_PROBLEMS = {
    "missing": "blank; a value is required",
    "int_parsing": "{input!r} is not a whole number",
    "int_from_float": "{input!r} is not a whole number",
    "float_parsing": "{input!r} is not a number",
    "finite_number": "{input!r} is not a finite number",
    "bool_parsing": "{input!r} is not true or false",
}


def _problem(error: ErrorDetails) -> str:
    """One short sentence for a pydantic error on one cell."""
    template = _PROBLEMS.get(error["type"])
    if template is not None:
        return template.format(input=error["input"])
    message = error["msg"].removeprefix("Value error, ")
    message = message.replace("Input should be", "must be")
    if error["type"] == "row_check" or "got " in message:
        return message
    return f"{message}, got {error['input']!r}"

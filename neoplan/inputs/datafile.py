"""Reading the CSV files of ``data/``: every row through a pydantic row model, a bad cell named.

A row model (a subclass of :class:`DataRow`, one per file) is the file's schema: its fields are the columns (in any
order in the file), a field without a default is a required cell, a field with a default is an optional cell, and
the field's type says how the text parses (``float``, ``int``, ``bool``, :data:`Basis`, :data:`DataDate`).
Cells are stripped of surrounding blanks; a blank cell is ``None``, so a required cell left blank is an error and
an optional one takes its default (``None``, or the value the field names: a blank radix is 0).

:func:`read_rows` reads a file through its model. Any problem raises the one
:class:`~neoplan.errors.DataError`, naming the file, the row as a spreadsheet shows it (the header is row 1; blank
lines count, a quoted cell over several lines is one row) and the column:
``gpu_platforms.csv row 3, column 'gpu_power_w': is empty``.
"""

from __future__ import annotations

import csv
import datetime
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, TypeVar, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError, PydanticUndefined

from ..errors import DataError

_PACKAGE = Path(__file__).resolve().parent.parent  # neoplan/
_PACKAGED_DATA = _PACKAGE / "data"
DATA_DIR = _PACKAGED_DATA if _PACKAGED_DATA.is_dir() else _PACKAGE.parent / "data"
"""``data/`` of the repository, or the copy an installed wheel ships inside the package (``neoplan/data``)."""

Basis = Literal["quoted", "estimate", "fitted"]
"""How a number is known: a public figure, a judgement (the source says why), or set to reproduce a target."""
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
        raise ValueError("must be a date YYYY-MM or YYYY-MM-DD") from None
    return text


DataDate = Annotated[str, AfterValidator(_calendar_date)]
"""A date of a data row, kept as written (``2024-10`` or ``2024-10-03``)."""


class DataRow(BaseModel):
    """Base of a row model: frozen, no columns beyond the declared ones, numbers finite, text stripped."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False, str_strip_whitespace=True)
    not_columns: ClassVar[tuple[str, ...]] = ()
    """Fields the loader sets itself (not read from a column)."""

    @classmethod
    def columns(cls) -> tuple[str, ...]:
        """The file's columns, in field order."""
        return tuple(name for name in cls.model_fields if name not in cls.not_columns)


class SourcedRow(DataRow):
    """A row that carries numbers: its ``source``, ``date`` (``YYYY-MM`` or ``YYYY-MM-DD``) and ``basis``."""

    source: str = Field(min_length=10)
    date: DataDate
    basis: Basis


Row = TypeVar("Row", bound=DataRow)


def column_error(column: str, problem: str, value: object) -> ValidationError:
    """A check across columns failed: raise this from a row model's validator to name ``column`` in the error."""
    details = InitErrorDetails(type=PydanticCustomError("row_check", problem), loc=(column,), input=value)
    return ValidationError.from_exception_data("row", [details])


def read_numbered(
    path: Path, model: type[Row], name: str | None = None, extra: Mapping[str, object] | None = None
) -> list[tuple[int, Row]]:
    """Every non-blank row of ``path`` as a ``model``, with its spreadsheet row, in file order.

    ``name`` names the file in errors (default: the file name); ``extra`` sets the fields of
    :attr:`DataRow.not_columns`. Raises :class:`~neoplan.errors.DataError` (see the module docstring).
    """
    name = name or path.name
    records = _records(path, name)
    header = _header(next(records, (1, [])), model, name)
    defaults = _blank_defaults(model)
    out = []
    for row, cells in records:
        values = _values(header, cells, name, row)
        if values is None:
            continue
        given = {k: v for k, v in values.items() if v is not None or k not in defaults}
        try:
            out.append((row, model.model_validate({**given, **(extra or {})})))
        except ValidationError as exc:
            error = exc.errors()[0]
            column = str(error["loc"][0]) if error["loc"] else None
            raise DataError(name, _problem(error), row=row, column=column) from None
    return out


def read_rows(
    path: Path, model: type[Row], name: str | None = None, extra: Mapping[str, object] | None = None
) -> tuple[Row, ...]:
    """:func:`read_numbered` without the row numbers."""
    return tuple(item for _, item in read_numbered(path, model, name, extra))


def keyed(rows: list[tuple[int, Row]], name: str, key: str = "key") -> dict[str, Row]:
    """Numbered ``rows`` by their ``key`` column; a key on two rows is an error naming the second."""
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
    listed = f"(columns: {', '.join(columns)})"
    for column in header:
        if column not in columns:
            raise DataError(name, f"column {column!r} is unknown {listed}", row=1)
        if header.count(column) > 1:
            raise DataError(name, f"column {column!r} appears twice", row=1)
    for column in columns:
        if column not in header:
            raise DataError(name, f"column {column!r} is missing {listed}", row=1)
    return header


def _values(header: list[str], cells: list[str], name: str, row: int) -> dict[str, str | None] | None:
    """The row's cells by column, blank ones None; None for a blank row."""
    cells = [cell.strip() for cell in cells]
    if not any(cells):
        return None
    for i, cell in enumerate(cells[len(header) :], start=len(header) + 1):
        if cell:
            raise DataError(name, f"more cells than columns ({cell!r} in column {i})", row=row)
    cells += [""] * (len(header) - len(cells))
    return {column: cell or None for column, cell in zip(header, cells, strict=False)}


def _blank_defaults(model: type[DataRow]) -> set[str]:
    """Columns whose blank cell means the field's default rather than None (a default other than None)."""
    return {k for k, f in model.model_fields.items() if f.default is not None and f.default is not PydanticUndefined}


def _problem(error: ErrorDetails) -> str:
    """One pydantic error as the end of a message: ``is empty``, ``must be a number, got 'abc'`` …"""
    value: Any = error.get("input")
    if error["type"] in ("value_error", "row_check"):  # a validator's own message, as written
        rule = str(error.get("ctx", {}).get("error", error["msg"]))
    elif error["type"] == "missing" or value is None:
        return "is empty"
    else:
        words = {
            "float_parsing": "must be a number",
            "int_parsing": "must be a whole number",
            "int_from_float": "must be a whole number",
            "finite_number": "must be a finite number",
            "bool_parsing": "must be true or false",
        }
        rule = words.get(error["type"]) or error["msg"][:1].lower() + error["msg"][1:]
    return f"{rule}, got {value!r}" if error["loc"] and value is not None else rule

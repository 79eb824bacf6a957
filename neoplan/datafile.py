"""Read-only reference tables of ``data/``: each CSV row validated by a pydantic model, a bad cell named.

:func:`read_rows` reads a CSV whose header is exactly the model's fields (in any order): blank cells are ``None``
(so a required column left empty is an error, an optional one is unset), every value is checked by the model,
and a bad row raises :class:`~neoplan.pricebook.PriceBookError` — the error of every data file, shown as one
line by the app and the CLI — naming the file, the row (as a spreadsheet counts it: the header is row 1) and
the column: ``stress_drivers.csv row 4, column 'low_by': must be a number, got 'abc'``.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from .pricebook import DATA_DIR as DATA_DIR  # one data folder (installed wheel or checkout)
from .pricebook import PriceBookError

Row = TypeVar("Row", bound=BaseModel)


class DataRow(BaseModel):
    """Base of a row model: frozen, no columns beyond the declared ones, text stripped of surrounding blanks."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)


Basis = Literal["quoted", "estimate", "fitted"]
"""How a number is known: a public figure, a judgement (the source says why), or set to reproduce a target."""


class SourcedRow(DataRow):
    """A row that carries numbers: its ``source``, ``date`` (``YYYY-MM`` or ``YYYY-MM-DD``) and ``basis``."""

    source: str = Field(min_length=10)
    date: str = Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$")
    basis: Basis


def _problem(error: ErrorDetails) -> str:
    """One pydantic error as the end of a message: ``is empty``, ``must be a number, got 'abc'`` …"""
    value = error.get("input")
    if error["type"] == "value_error":  # a validator's own ValueError: its message as written
        rule = str(error.get("ctx", {}).get("error", error["msg"]))
    elif error["type"] == "missing" or value is None:
        return "is empty"
    else:
        words = {"float_parsing": "must be a number", "int_parsing": "must be a whole number"}
        rule = words.get(error["type"]) or error["msg"][:1].lower() + error["msg"][1:]
    return f"{rule}, got {value!r}" if error["loc"] and value is not None else rule


def read_rows(path: Path, model: type[Row]) -> tuple[Row, ...]:
    """Every non-blank row of the CSV at ``path`` as a ``model``, in file order (raises PriceBookError, see above)."""
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            columns = list(reader.fieldnames or [])
            expected = list(model.model_fields)
            if sorted(columns) != sorted(expected):
                missing = [c for c in expected if c not in columns]
                extra = [c for c in columns if c not in expected]
                what = f"column {missing[0]!r} is missing" if missing else f"column {extra[0]!r} is unknown"
                raise PriceBookError(f"{path.name} row 1: {what} (columns: {', '.join(expected)})")
            rows = []
            for raw in reader:
                if None in raw:
                    raise PriceBookError(f"{path.name} row {reader.line_num}: more cells than columns")
                cells = {k: (v.strip() or None) if v is not None else None for k, v in raw.items()}
                if not any(cells.values()):
                    continue
                try:
                    rows.append(model.model_validate(cells))
                except ValidationError as exc:
                    error = exc.errors()[0]
                    where = f", column {error['loc'][0]!r}" if error["loc"] else ""
                    raise PriceBookError(f"{path.name} row {reader.line_num}{where}: {_problem(error)}") from None
    except UnicodeDecodeError as exc:
        raise PriceBookError(f"{path.name}: not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None
    return tuple(rows)

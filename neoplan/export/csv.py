"""One CSV per table of :data:`~.sheets.TABLES` (and all of them in one zip), formula-like text escaped.

CSVs carry no types, so text a spreadsheet could run (:mod:`neoplan.spreadsheet`) gets a leading apostrophe.
"""

from __future__ import annotations

import io
import zipfile
from typing import TYPE_CHECKING

import pandas as pd

from ..spreadsheet import formula_safe
from .sheets import TABLE_BUILDERS, tables

if TYPE_CHECKING:
    from ..model import Result


def escaped(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with formula-like text cells (and column names) prefixed by an apostrophe."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(formula_safe).astype(object)
    out.columns = [formula_safe(str(c)) for c in out.columns]
    return out


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as UTF-8 CSV, no index, formula-like text escaped; undefined values as empty fields."""
    return escaped(frame).to_csv(index=False, lineterminator="\n").encode("utf-8")


def csv_table(result: Result, name: str) -> bytes:
    """One table of :data:`TABLES` as CSV bytes."""
    return csv_bytes(TABLE_BUILDERS[name](result))


def csv_tables(result: Result) -> dict[str, bytes]:
    """One CSV per table (keys of :data:`TABLES`; write each as ``<name>.csv``)."""
    return {name: csv_bytes(frame) for name, frame in tables(result).items()}


def csv_zip_bytes(result: Result, prefix: str = "") -> bytes:
    """Every CSV of :func:`csv_tables` in one zip archive (``<prefix><name>.csv``)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in csv_tables(result).items():
            archive.writestr(f"{prefix}{name}.csv", data)
    return buffer.getvalue()

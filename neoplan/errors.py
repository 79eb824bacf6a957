"""The error types for bad input and for broken data files, and the one helper that checks a value.

:class:`ScenarioError` is raised where an input is checked (scenario fields, price overrides, stress
settings, sizing limits the inputs run into); its message names the field and is shown to the user as is,
as one line (``st.error`` in the app, exit code 2 in the CLI). :class:`DataError` is raised by every loader of
``data/`` for a file it cannot read. Any other exception is a bug and propagates with its traceback: nothing
converts a ``ValueError`` into a ``ScenarioError`` after the fact.
"""

from __future__ import annotations

import math


class ScenarioError(ValueError):
    """An invalid scenario; the message names the field and is shown as is."""


class DataError(Exception):
    """A data file of ``data/`` (price book, catalogues, assumptions) is broken: a blank required cell, a number
    that does not parse, an unknown basis, a missing column.

    Not user input: a shipped file that breaks is a bug, or an operator's edit of the files. The message names the
    file, the row as a spreadsheet shows it (header = row 1) and the column. Deliberately not a ``ValueError``, so
    no input check (pydantic's included) turns it into a message about a scenario field.
    """

    def __init__(self, file: str, problem: str, *, row: int | None = None, column: str | None = None) -> None:
        self.file, self.problem, self.row, self.column = file, problem, row, column
        where = file + (f" row {row}" if row is not None else "") + (f", column {column!r}" if column else "")
        super().__init__(f"{where}: {problem}")


def check(name: str, value: float, ok: bool, rule: str, *, error: type[ValueError] = ScenarioError) -> None:
    """Raise ``error`` ("``name`` must be ``rule``, got ``value``") unless ``ok`` and ``value`` is finite.

    The default error is :class:`ScenarioError`, for values the user sets; pass ``error=ValueError`` for an
    argument only the code passes (a violation is then a bug, not bad input).
    """
    if not (ok and math.isfinite(value)):
        raise error(f"{name} must be {rule}, got {value!r}")

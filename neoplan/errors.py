"""The one error type for bad input, and the one helper that checks a value.

:class:`ScenarioError` is raised where an input is checked (scenario fields, price overrides, stress
settings, sizing limits the inputs run into); its message names the field and is shown to the user as is,
as one line (``st.error`` in the app, exit code 2 in the CLI). Any other exception is a bug and propagates
with its traceback: nothing converts a ``ValueError`` into a ``ScenarioError`` after the fact.
"""

from __future__ import annotations

import math


class ScenarioError(ValueError):
    """An invalid scenario; the message names the field and is shown as is."""


def check(name: str, value: float, ok: bool, rule: str, *, error: type[ValueError] = ScenarioError) -> None:
    """Raise ``error`` ("``name`` must be ``rule``, got ``value``") unless ``ok`` and ``value`` is finite.

    The default error is :class:`ScenarioError`, for values the user sets; pass ``error=ValueError`` for an
    argument only the code passes (a violation is then a bug, not bad input).
    """
    if not (ok and math.isfinite(value)):
        raise error(f"{name} must be {rule}, got {value!r}")

"""What the library hands out: entries, versions, saves and drafts, the conflict of two saves, and a stored
scenario read back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from ..errors import ScenarioError
from ..inputs.loading import parse_scenario
from ..inputs.scenario import Scenario
from ..plaintext import visible


class Conflict(ScenarioError):
    """Someone saved the scenario after the version this save was based on; nothing was written."""

    def __init__(self, name: str, expected: int, current: Version | None) -> None:
        self.name, self.expected, self.current = name, expected, current
        if current is None:
            text = f"library: “{name}” was deleted after version {expected} was opened here"
        elif expected == 0:
            text = f"library: a scenario named “{name}” was saved meanwhile (version {current.version})"
        else:
            text = (
                f"library: “{name}” was saved again after version {expected} was opened here: version "
                f"{current.version} by {current.author or 'local user'} at {current.saved_at}"
            )
        super().__init__(text)


class DraftTaken(Exception):
    """The draft id is held by another session (or user): write this session's draft under a new id."""


@dataclass(frozen=True)
class Entry:
    """One scenario the user can open: a shipped preset (read-only) or a saved one."""

    name: str
    """Its key: the name, or ``name (owner)`` where two visible scenarios share a name."""
    read_only: bool
    saved_at: str = ""
    owner: str = ""
    """How people see its owner: their verified e-mail or OIDC subject ('' for the local user)."""
    shared: bool = False
    version: int = 0
    mine: bool = False
    """Whether the user owns it (may delete it and change who sees it)."""


@dataclass(frozen=True)
class Version:
    """One save of a scenario."""

    version: int
    author: str
    """How people see who saved it: their verified e-mail or OIDC subject ('' for the local user)."""
    saved_at: str
    message: str


@dataclass(frozen=True)
class Saved:
    """What a save wrote: the scenario (renamed as saved), its key and the new version number."""

    scenario: Scenario
    name: str
    version: int


@dataclass(frozen=True)
class Draft:
    """What a browser session is editing: the scenario, what it was opened as, and where it came from.

    ``body`` and ``baseline`` are scenario JSON; ``origin`` is the key of the library entry it was opened from
    (None for an upload or a quote), ``origin_version`` the version opened; ``source`` is a short description for
    people ("file plan.yaml"); ``page_state`` is JSON of the pages' own settings that a refresh keeps (the Stress
    test's ranges, the Compare selection).
    """

    body: str
    baseline: str
    origin: str | None
    source: str
    origin_version: int | None = None
    page_state: str = "{}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def parse_stored(body: str, name: str) -> Scenario:
    """A scenario as the library stored it. One saved before names and descriptions refused control, bidirectional
    and zero-width characters (issue 39) opens with those characters written visibly (``\\u202e``) instead of not
    opening: nothing is lost, nothing is hidden."""
    try:
        return parse_scenario(body, name)
    except ScenarioError:
        try:
            data = json.loads(body)
        except json.JSONDecodeError:
            raise
        if not isinstance(data, dict):
            raise
        for key in ("name", "description"):
            if isinstance(data.get(key), str):
                data[key] = visible(data[key], lines=key == "description")
        return parse_scenario(json.dumps(data), name)


def _shown(label: Any, user_id: Any) -> Any:
    """SQL: how people see a user id (its ``users`` label; the id itself for users from before labels)."""
    return sa.func.coalesce(label, user_id)

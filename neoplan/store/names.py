"""What a name, a message, a draft id and a user may be: checked once here, before anything is stored.

Names are user text shown back to other people: one line, no control characters (C0, DEL, C1), no bidirectional or
zero-width characters (they make a name read as another), no lone surrogates (they cannot be encoded, so no database
can store them), at most ``MAX_NAME_CHARS`` characters (:func:`neoplan.plaintext.text_problem`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ScenarioError
from ..plaintext import text_problem

MAX_NAME_CHARS = 120
MAX_MESSAGE_CHARS = 200
MAX_USER_CHARS = 320
"""An e-mail address is at most 320 characters (RFC 3696); an OIDC ``sub`` at most 255."""
DRAFT_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")


def _refusal(text: str) -> str | None:
    """Why ``text`` cannot be stored as one line of user text (None if it can)."""
    return text_problem(text)


def check_name(name: str, what: str = "names") -> str:
    """A scenario's (or vendor's) name, checked: one line of text.

    Parameters
    ----------
    name : str
        The name as typed.
    what : str, optional
        What the name is, for the message (``names``, ``vendor names``).

    Returns
    -------
    str
        The name, stripped.

    Raises
    ------
    ScenarioError
        When it is empty, longer than :data:`MAX_NAME_CHARS` characters, or holds line breaks, control or unpaired
        surrogate characters.

    Examples
    --------
    >>> from neoplan.store import check_name
    >>> check_name("  10 MW plan ")
    '10 MW plan'
    >>> check_name("two\\nlines")
    Traceback (most recent call last):
    ...
    neoplan.errors.ScenarioError: library: names cannot contain line breaks or control characters (U+000A)
    """
    name = (name or "").strip()
    if not name:
        raise ScenarioError("library: a scenario needs a name" if what == "names" else f"library: {what} is empty")
    if len(name) > MAX_NAME_CHARS:
        raise ScenarioError(f"library: {what} are at most {MAX_NAME_CHARS} characters")
    why = _refusal(name)
    if why:
        raise ScenarioError(f"library: {what} {why}")
    return name


def check_message(message: str | None) -> str:
    """A version's message, checked: one line of text, or none.

    Parameters
    ----------
    message : str or None
        The message as typed.

    Returns
    -------
    str
        The message, stripped ('' for none).

    Raises
    ------
    ScenarioError
        When it is longer than :data:`MAX_MESSAGE_CHARS` characters or not one line.

    Examples
    --------
    >>> from neoplan.store import check_message
    >>> check_message(None), check_message(" twice the GPUs ")
    ('', 'twice the GPUs')
    """
    message = (message or "").strip()
    if len(message) > MAX_MESSAGE_CHARS:
        raise ScenarioError(f"library: a version message is at most {MAX_MESSAGE_CHARS} characters")
    why = _refusal(message)
    if why:
        raise ScenarioError(f"library: a version message {why}")
    return message


@dataclass(frozen=True)
class User:
    """Who is asking: ``id`` owns what they save (signed in: ``"<iss> <sub>"``, :mod:`neoplan.store.access`).

    ``sees_all`` is the one local user of an app without sign-in (and the CLI run by the operator): every
    scenario is theirs to open. ``LOCAL`` is that user; its saves belong to nobody in particular (``id`` '')
    and are shared with the team.
    """

    id: str
    sees_all: bool = False

    def __post_init__(self) -> None:
        if len(self.id) > MAX_USER_CHARS or _refusal(self.id):
            raise ScenarioError("library: a user id is one line of at most 320 characters")

    @property
    def label(self) -> str:
        """How people see this user: their id, or "local user"."""
        return self.id or "local user"


LOCAL = User("", sees_all=True)

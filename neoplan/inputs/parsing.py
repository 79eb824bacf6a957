"""Scenario text to a mapping, safely: bounded YAML (no aliases, tags or huge numbers) or JSON, shape limits, and
pydantic errors turned into one line naming the field, its range and what was given."""

from __future__ import annotations

import gc
import json
import math
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from ..errors import ScenarioError as ScenarioError  # re-exported: the one input-error type
from ..limits import SCENARIO_MAX_DEPTH, SCENARIO_MAX_NODES

MAX_NUMBER_CHARS = 100
"""Longer integers in a file are read as :class:`OversizedNumber` (Python refuses > 4,300 digits)."""


class OversizedNumber:
    """An integer literal too long to be a scenario value; validation refuses it, naming the field."""

    def __init__(self, chars: int) -> None:
        self.chars = chars

    def __repr__(self) -> str:
        return f"a number {self.chars:,} characters long"


def _int_or_oversized(text: str) -> int | OversizedNumber:
    """``int(text)``, or an :class:`OversizedNumber` for more than :data:`MAX_NUMBER_CHARS` characters."""
    return int(text) if len(text) <= MAX_NUMBER_CHARS else OversizedNumber(len(text))


class _Refused(yaml.MarkedYAMLError):
    """YAML this loader refuses on purpose; its ``problem`` is shown to the user."""


_YamlLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser where PyYAML has it (a megabyte is scanned in milliseconds), else PyYAML's own; safe either way."""


class _NoAliasLoader(_YamlLoader):
    """Safe YAML (never PyYAML's full loader) whose integers longer than :data:`MAX_NUMBER_CHARS` stay unparsed,
    dates stay text (no field is a date), and an explicitly tagged scalar that is not what its tag says
    (``!!int abc``) is refused with its line. Aliases, a second document and oversized shapes are refused
    before it builds anything (:func:`_check_yaml_events`)."""

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int | OversizedNumber:
        """YAML ints (decimal, 0x, 0o, 0b, 1_000, base 60) with over-long literals kept unparsed."""
        if len(str(node.value)) > MAX_NUMBER_CHARS:
            return OversizedNumber(len(str(node.value)))
        try:
            return int(super().construct_yaml_int(node))
        except ValueError:  # only an explicit !!int tag reaches here with a non-integer
            raise _Refused(None, None, f"{_short(node.value, 30)} is not an integer", node.start_mark) from None

    def construct_checked_float(self, node: yaml.ScalarNode) -> float:
        """YAML floats; an explicit ``!!float`` on text that is not a number is refused."""
        try:
            return float(super().construct_yaml_float(node))
        except ValueError:
            raise _Refused(None, None, f"{_short(node.value, 30)} is not a number", node.start_mark) from None

    def construct_date_as_text(self, node: yaml.ScalarNode) -> str:
        """``2024-13-45`` and other date-like scalars as the text they are (a name or a note, never a date)."""
        return str(self.construct_scalar(node))


_NoAliasLoader.add_constructor("tag:yaml.org,2002:int", _NoAliasLoader.construct_bounded_int)
_NoAliasLoader.add_constructor("tag:yaml.org,2002:float", _NoAliasLoader.construct_checked_float)
_NoAliasLoader.add_constructor("tag:yaml.org,2002:timestamp", _NoAliasLoader.construct_date_as_text)


def _check_yaml_events(text: str) -> None:
    """Refuse aliases (``*name``: alias bombs), a second document, more than :data:`SCENARIO_MAX_NODES` values and
    nesting deeper than :data:`SCENARIO_MAX_DEPTH`, from the parser's events, before any node is built: time and
    memory stay bounded whatever the shape of the text."""
    loader = _NoAliasLoader(text)
    nodes = depth = documents = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            problem = None
            if isinstance(event, yaml.AliasEvent):
                problem = "aliases (*name) are not allowed"
            elif isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                problem = "one YAML document only (a second starts here)" if documents > 1 else None
            elif isinstance(event, yaml.NodeEvent):
                nodes += 1
                depth += isinstance(event, yaml.CollectionStartEvent)
                if nodes > SCENARIO_MAX_NODES:
                    problem = f"more than {SCENARIO_MAX_NODES:,} values (a scenario has a few hundred)"
                elif depth > SCENARIO_MAX_DEPTH:
                    problem = _TOO_DEEP
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            if problem:
                raise _Refused(None, None, problem, event.start_mark)
    finally:
        loader.dispose()


def _load_yaml(text: str) -> Any:
    """One YAML document with the safe loader, its shape checked first."""
    _check_yaml_events(text)
    loader = _NoAliasLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


_TOO_DEEP = f"nested more than {SCENARIO_MAX_DEPTH} levels deep (a scenario nests 4)"
_JSON_OBJECT = re.compile(r"\s*\{\s*[\"}]")
"""How a JSON object starts (a YAML flow mapping such as ``{cluster: …}`` has bare keys)."""


def _is_json(text: str, origin: str) -> bool:
    """Whether ``text`` is read as JSON: a ``.json`` file, or an object with quoted keys not in a ``.yaml`` file."""
    suffix = Path(origin).suffix.lower()
    return suffix == ".json" or (suffix not in (".yaml", ".yml") and _JSON_OBJECT.match(text) is not None)


def _load_json(text: str, origin: str) -> Any:
    """JSON, its errors reported as JSON errors (never re-read as YAML)."""
    try:
        return json.loads(text, parse_int=_int_or_oversized)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{origin} line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg})") from None


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """The cycle collector paused: the parsers build acyclic trees (YAML aliases are refused), and a file of a
    quarter million lists would otherwise trigger hundreds of collections, each rescanning the whole process heap
    (seconds of CPU in a long-running server, and nothing to collect)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _load_data(text: str, origin: str) -> Any:
    """The parsed text: JSON (:func:`_is_json`), YAML, or None for blank text."""
    if _is_json(text, origin):
        return _load_json(text, origin)
    return _load_yaml(text) if text.strip() else None


def _parse_text(text: str, origin: str) -> dict[str, Any]:
    """A mapping from JSON (:func:`_is_json`) or YAML (safe, no aliases), its shape checked (:func:`check_shape`)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate: no text file holds one
        raise ScenarioError(f"{origin}: not valid text (character {exc.start + 1:,} is a lone surrogate)") from None
    with _no_cycle_collection():
        try:
            data = _load_data(text, origin)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" line {mark.line + 1}" if mark is not None else ""
            detail = f": {exc.problem}" if isinstance(exc, _Refused) else ": not valid YAML or JSON"
            raise ScenarioError(f"{origin}{where}{detail}") from None
        except RecursionError:
            raise ScenarioError(f"{origin}: {_TOO_DEEP}") from None
        if not isinstance(data, dict):
            raise ScenarioError(f"{origin}: a scenario must be a mapping of sections (cluster:, node:, …)")
        check_shape(data, origin)
    return data


def check_shape(data: Any, origin: str = "scenario") -> None:
    """Raise ScenarioError if ``data`` holds more than :data:`SCENARIO_MAX_NODES` values or nests deeper than
    :data:`SCENARIO_MAX_DEPTH` (mappings and lists; iterative, so no depth can exhaust the stack)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    nodes = 0
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > SCENARIO_MAX_NODES:
            raise ScenarioError(f"{origin}: more than {SCENARIO_MAX_NODES:,} values (a scenario has a few hundred)")
        children = value.values() if isinstance(value, Mapping) else value if isinstance(value, list | tuple) else ()
        if children and depth >= SCENARIO_MAX_DEPTH:
            raise ScenarioError(f"{origin}: {_TOO_DEEP}")
        stack.extend((child, depth + 1) for child in children)


_NUMBER_TEXT = re.compile(r"^[+-]?(\d[\d_]*\.?\d*|\.\d+)([eE][+-]?\d+)?$")


class _Raw(str):
    """A text shown without quotes."""

    def __repr__(self) -> str:
        return str(self)


def _short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters; a huge integer is described, not printed."""
    if isinstance(value, int) and value.bit_length() > 256:
        return f"a {int(value.bit_length() * math.log10(2)) + 1}-digit integer"
    if isinstance(value, str) and _NUMBER_TEXT.match(value):  # YAML reads 5e-324 (no dot) as text
        value = _Raw(value)
    try:
        text = repr(value)
    except ValueError:  # a container holding an integer past Python's 4,300-digit str() limit
        text = f"a {type(value).__name__} holding an integer too long to print"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown_path(text: str) -> str:
    """A path for a message: as is if printable and short, else quoted with escapes and cut."""
    return text if text.isprintable() and len(text) <= 200 else _short(text, 80)

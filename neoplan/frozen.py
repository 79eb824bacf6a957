"""Read-only results: a :class:`~neoplan.model.Result` is shared (the app caches one per scenario for every visitor),
so nothing reachable from it may be changed in place by one reader and seen by the others.

:func:`freeze` makes every NumPy array it reaches read-only (``setflags(write=False)``: a write raises
``ValueError``), and replaces every ``dict`` and ``list`` by a :class:`FrozenDict` or :class:`FrozenList` (still a
``dict``/``list`` for reading, JSON and pandas; any change raises ``TypeError``). It walks dataclasses, pydantic
models (the scenario) and neoplan's plain objects; pandas objects are left as they are. A copy (``dict(d)``,
``list(l)``, ``copy.deepcopy``, ``np.array(a)``) is the caller's own and writable.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, NoReturn, TypeVar

import numpy as np
from pydantic import BaseModel

T = TypeVar("T")


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"this {type(self).__name__} belongs to a shared result and cannot be changed; copy it first")


class FrozenDict(dict):
    """A ``dict`` that refuses every change (``TypeError``); copies are plain dicts."""

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __reduce__(self) -> tuple[Any, ...]:  # pickle builds it whole, never item by item, and it stays frozen
        return (type(self), (dict(self),))

    def copy(self) -> dict[Any, Any]:
        return dict(self)

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return {copy.deepcopy(k, memo): copy.deepcopy(v, memo) for k, v in self.items()}


class FrozenList(list):
    """A ``list`` that refuses every change (``TypeError``); copies are plain lists."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = remove = pop = clear = sort = reverse = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (list(self),))

    def copy(self) -> list[Any]:
        return list(self)

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(v, memo) for v in self]


def freeze(obj: T) -> T:
    """``obj`` with everything reachable from it made read-only, in place (see the module docstring); returns it."""
    return _freeze(obj, set())


def _freeze(obj: Any, seen: set[int]) -> Any:
    if isinstance(obj, np.ndarray):
        obj.setflags(write=False)
        return obj
    if obj is None or isinstance(obj, (str, bytes, int, float, complex, bool, type)) or id(obj) in seen:
        return obj
    seen.add(id(obj))
    if isinstance(obj, dict):
        items = {k: _freeze(v, seen) for k, v in obj.items()}
        return obj if isinstance(obj, FrozenDict) else FrozenDict(items)
    if isinstance(obj, list):
        return obj if isinstance(obj, FrozenList) else FrozenList(_freeze(v, seen) for v in obj)
    if isinstance(obj, tuple):
        frozen = [_freeze(v, seen) for v in obj]
        if all(a is b for a, b in zip(frozen, obj, strict=True)):
            return obj
        return type(obj)._make(frozen) if hasattr(obj, "_make") else tuple(frozen)  # a named tuple keeps its type
    if type(obj).__module__.startswith("pandas"):
        return obj
    attrs = getattr(obj, "__dict__", None)
    ours = dataclasses.is_dataclass(obj) or isinstance(obj, BaseModel) or type(obj).__module__.startswith("neoplan")
    if attrs is not None and ours:
        for name, value in list(attrs.items()):
            frozen = _freeze(value, seen)
            if frozen is not value:  # frozen dataclasses and validated models too: the one place a field is replaced
                object.__setattr__(obj, name, frozen)
    return obj

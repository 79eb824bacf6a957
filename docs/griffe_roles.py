"""A Griffe extension for the API pages: the code's Sphinx roles (:func:`evaluate`, :class:`~neoplan.Result`) as links.

neoplan's docstrings are numpydoc and cross-reference with Sphinx roles, which Markdown does not know. Each role
becomes an optional autorefs link to the object it names, resolved from the docstring's own scope as Python
would (``:func:`size_to_power``` in ``neoplan.design.sizing`` is ``neoplan.design.sizing.size_to_power``); an object
the site does not document shows as plain code, never as a broken link. ``~`` shows the last name only, as in
Sphinx. Named in ``mkdocs.yml`` under the Python handler's ``extensions``.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|data|mod|obj|exc|const):`(?P<target>[^`]+)`")


def _identifier(scope: griffe.Object, target: str) -> str:
    """The full dotted path ``target`` names from ``scope`` (as written when it cannot be resolved)."""
    if target.startswith("."):  # relative to the package: .read in neoplan.quote
        package = scope.module.path if scope.module.is_package else scope.module.path.rsplit(".", 1)[0]
        return package + target
    head, _, rest = target.partition(".")
    for where in (scope, scope.module):
        try:
            found = where.resolve(head)
        except (griffe.NameResolutionError, AttributeError, KeyError):
            continue
        return f"{found}.{rest}" if rest else found
    return target


def rewrite(text: str, scope: griffe.Object) -> str:
    """``text`` with every Sphinx role replaced by an optional autorefs link (HTML that autorefs resolves)."""

    def link(match: re.Match[str]) -> str:
        target = match.group("target").strip()
        short = target.startswith("~")
        target = target.lstrip("~")
        shown = target.rsplit(".", 1)[-1] if short else target
        identifier = _identifier(scope, target)
        return f'<autoref identifier="{html.escape(identifier)}" optional><code>{html.escape(shown)}</code></autoref>'

    return ROLE.sub(link, text)


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles of every docstring Griffe loads (see the module docstring)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring in place."""
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value, obj)

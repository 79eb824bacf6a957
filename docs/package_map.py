"""The picture of the ``neoplan`` package: its subpackages by stage, their modules, and who imports whom.

Run from the repository root::

    python docs/package_map.py            # subpackages, modules, lines and the first line of each docstring
    python docs/package_map.py --imports  # and, for each module, the modules of neoplan it imports

Read from the source (nothing is imported or run). ``tests/test_architecture.py`` uses :func:`import_graph` to
check that no import cycle exists, deferred and type-checking imports included.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "neoplan"


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name → file, for every module of ``package`` (a package is its ``__init__.py``)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imported(node: ast.ImportFrom, name: str, is_package: bool) -> str:
    """The absolute module a ``from … import`` in module ``name`` names."""
    if not node.level:
        return node.module or ""
    base = name.split(".") if is_package else name.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module → the modules of the package it imports, wherever the import stands (top level, inside a function,
    under ``if TYPE_CHECKING``). ``from pkg import name`` counts as an import of ``pkg.name`` when that is a module,
    else of ``pkg`` itself."""
    mods = modules(package)
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _imported(node, name, path.name == "__init__.py")
                subs = [f"{target}.{alias.name}" for alias in node.names]
                graph[name].update(s for s in subs if s in mods and s != name)
                if target in mods and target != name and any(s not in mods for s in subs):
                    graph[name].add(target)
            elif isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names if a.name in mods and a.name != name)
        graph.setdefault(name, set())
    return dict(graph)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted: the import cycles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 100))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _summary(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.strip().split("\n")[0]


def main(argv: list[str]) -> None:
    mods = modules()
    graph = import_graph() if "--imports" in argv else {}
    for name, path in mods.items():
        depth = name.count(".")
        lines = len(path.read_text(encoding="utf-8").splitlines())
        label = name.rsplit(".", 1)[-1] + ("/" if path.name == "__init__.py" else "")
        print(f"{'  ' * depth}{label:<{34 - 2 * depth}} {lines:>5}  {_summary(path)[:90]}")
        if graph.get(name):
            short = sorted(m.removeprefix("neoplan.") for m in graph[name])
            print(f"{'  ' * depth}{'':<{34 - 2 * depth}}        imports: {', '.join(short)}")
    found = cycles(import_graph())
    print(f"\n{len(mods)} modules; import cycles: {len(found)}" + "".join(f"\n  {' ↔ '.join(c)}" for c in found))


if __name__ == "__main__":
    main(sys.argv[1:])

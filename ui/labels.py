"""What a scenario field is called on screen: the label its widget carries, units included.

Messages in the app name fields by these labels (``Usable capacity [PB] must be between 0 and 1,000``); the dotted
path a scenario file uses (``storage.usable_pb``) is left to the field's tooltip and to the CLI. A field's label is
the one its ``field_input`` call on a page gives it (read once from the pages' source, so there is one place to
change a label: the page), else the start of its description up to its unit (``Usable capacity [PB]``).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import Any

from neoplan.formats import MINUS
from neoplan.inputs.scenario import field_of

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (*sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py")))
"""Where ``field_input`` calls live: every page, then the app's helpers."""
TOP_LEVEL = {"prices_as_of": "Price book (hardware prices as of)", "name": "Name", "prices": "Price overrides"}
"""Fields outside any section (a message names them without a dot)."""
OWN_WIDGETS = {
    "cluster.gpus": "GPUs in the cluster",  # ui.power.gpus_input
    "cluster.gpu_model": "GPU platform",
    "cluster.size_by": "Plan from power",
    "cluster.platform_defaults": "Take the platform's defaults",
    "facility.region": "Region",  # pages/storage_site.py
}
"""Fields drawn by a widget of their own rather than ``field_input``, by the label it carries."""
LABELLED = ("field_input", "table_field")
"""The widgets that take a field's path and its label as their first two arguments (ui.widgets)."""
_PATH = re.compile(r"(?<![\w./@-])([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+|prices_as_of)(?![\w/(-])(?!: (?:true|false)\b)")
"""A dotted field path in a message (``pricing.usd_per_gpu_hour``; list items by index, ``contracts.0.gpus``); not
one written as a file line to set (``cluster.platform_defaults: true``: the words of a file, kept)."""
_UNIT = re.compile(r"^(.{3,80}?\[[^\[\]]+\])")


def _call_name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


@functools.cache  # keyed on nothing: the app's own source files, fixed while the server runs
def page_labels() -> dict[str, str]:
    """``{field path: label}`` of every ``field_input("path", "label")`` (or ``table_field``) call with both given as
    plain text (the first page's label where two pages label one field)."""
    labels: dict[str, str] = dict(OWN_WIDGETS)
    for source in SOURCES:
        tree = ast.parse(source.read_text(encoding="utf-8"))
        names = {  # module constants a call may name its path by (ENVELOPE = "facility.it_power_mw")
            target.id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            for target in node.targets
            if isinstance(target, ast.Name) and isinstance(node.value.value, str)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _call_name(node.func) in LABELLED and len(node.args) >= 2:
                path, label = node.args[0], node.args[1]
                text = path.value if isinstance(path, ast.Constant) else names.get(getattr(path, "id", ""))
                if isinstance(text, str) and isinstance(label, ast.Constant):
                    labels.setdefault(text, str(label.value))
    return labels


def _described(path: str) -> str | None:
    """The label a field's description gives: its start up to the unit (``Usable capacity [PB]``), else its first
    clause; None for a path the scenario has not got."""
    try:
        description = field_of(path).description or ""
    except KeyError:
        return None
    unit = _UNIT.match(description)
    if unit and not re.search(r"[.;:]\s", unit.group(1)):
        return unit.group(1)
    first = re.split(r"[.;:](?:\s|$)| \(|, ", description, maxsplit=1)[0].strip()
    if len(first.split()) < 3:  # a description that opens with its choices ("True: …", "reference (…)")
        return path.rsplit(".", 1)[-1].replace("_", " ").capitalize()
    return first


def label_of(path: str) -> str:
    """What the app calls the field at dotted ``path`` (list items by index: ``contracts.0.gpus`` is contract 1's
    GPUs); the path itself if the scenario has no such field."""
    if path in TOP_LEVEL:
        return TOP_LEVEL[path]
    if path in page_labels():
        return page_labels()[path]
    parts = path.split(".")
    index = next((i for i, p in enumerate(parts) if p.isdigit()), None)
    if index is not None:  # an item of a list section: its field's label, and which item
        rest = ".".join(parts[index + 1 :])
        inner = label_of(rest) if rest else "item"
        return f"{label_of('.'.join(parts[:index]))} {int(parts[index]) + 1}: {inner}"
    return _described(path) or path


def humanize(message: str, own: dict[str, str] | None = None) -> str:
    """``message`` with every scenario field path in it named by its label: ``storage.usable_pb must be ≥ 0`` →
    ``Usable capacity [PB] must be ≥ 0``; ``own`` gives the labels of the fields drawn beside the message (the
    widget's own words win). Text that is no field path (a file name, a price key) stays."""
    labels = own or {}

    def name(match: re.Match[str]) -> str:
        path = match.group(1)
        label = labels.get(path) or label_of(path)
        return match.group(0) if label == path else label

    return _PATH.sub(name, message)


def _is_fraction(path: str) -> bool:
    """Whether the field at ``path`` holds a rate as a fraction (shown in percent; ``unit: fraction``)."""
    try:
        extra = field_of(path).json_schema_extra
    except KeyError:
        return False
    return isinstance(extra, dict) and extra.get("unit") == "fraction"


def input_change_text(path: str, old: Any, new: Any) -> tuple[str, str, str]:
    """(old, new, change) of one input as a diff shows it: a rate in percent and its change in percentage points
    (``85.0 %``, ``70.0 %``, ``−15.0 pp``), another number with its signed change, anything else as it is."""
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (old, new))
    if not numbers:
        return _text(old), _text(new), ""
    if _is_fraction(path):
        diff = 100 * (new - old)
        return f"{100 * old:,.1f} %", f"{100 * new:,.1f} %", f"{'+' if diff > 0 else MINUS}{abs(diff):,.1f} pp"
    diff = new - old
    return f"{old:,g}", f"{new:,g}", f"{'+' if diff > 0 else MINUS}{abs(diff):,g}"


def _text(value: Any) -> str:
    return "empty" if value is None else str(value)

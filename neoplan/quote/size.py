"""The cluster's size from independent readings of a quote, reconciled.

Readings (each with the rows it rests on):

* ``lines`` — system and rack lines × their quantities (servers per unit: a rack of 4 servers, an NVL72 rack
  of 18 trays), plus GPU boards and compute trays sold on lines of their own (a server line that names no GPU and
  a board line are one server, HPE style);
* ``boards`` — GPU boards on lines of their own next to server lines that already name their GPUs;
* ``stated`` — the server or rack count the quote states ("16 nodes", "8 racks", a Nodes column);
* ``trays`` — GPUs named on the compute trays listed under rack lines (``4x B200`` per tray);
* ``cpus`` — CPUs on lines of their own (not read from a server's description), two per server (a GB200 tray
  has two Grace);
* ``nics`` — back-end NICs on lines of their own: more than 8 per 8-GPU server means the servers are undercounted.

The review takes ``lines`` (else ``stated``) unless the user picks another; where another reading disagrees, one
sentence says so, names the reading taken and how to pick another (:class:`Conflict`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..inputs.pricebook import default_platforms
from .accelerators import unsupported
from .lines import QuoteLine
from .units import gpu_count, gpu_model

READINGS = ("lines", "boards", "stated", "trays", "cpus", "nics")
GPUS_PER_SERVER_DEFAULT = 8
_SOCKETS = 2
_MAX_NICS_PER_SERVER = 8


@dataclass(frozen=True)
class Reading:
    """One reading of the cluster's size: servers (or rack-scale trays) and GPUs, and the rows it rests on."""

    key: str
    label: str
    servers: int | None
    gpus: int | None
    rows: tuple[tuple[str, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record."""
        return {
            "key": self.key,
            "label": self.label,
            "servers": self.servers,
            "gpus": self.gpus,
            "rows": [{"sheet": s, "row": r} for s, r in self.rows],
        }


@dataclass(frozen=True)
class Conflict:
    """Readings of one quantity that disagree, the one taken, and the sentence that says so."""

    quantity: str
    taken: str
    readings: tuple[Reading, ...]
    sentence: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record."""
        return {
            "quantity": self.quantity,
            "taken": self.taken,
            "readings": [r.to_dict() for r in self.readings],
            "sentence": self.sentence,
        }


@dataclass(frozen=True)
class Size:
    """The size the review works with, the reading it came from, all readings and their conflicts."""

    servers: int | None
    gpus: int | None
    gpu_model: str | None
    taken: str
    readings: tuple[Reading, ...]
    conflicts: tuple[Conflict, ...]
    notes: tuple[str, ...]


def gpus_per_node(model: str | None) -> int:
    """GPUs per server (per rack for NVL72) of a GPU model id (accelerators per server of one the book does not
    price); 8 when unknown."""
    platform = default_platforms().get(model or "")
    if platform is not None:
        return int(platform.gpus_per_node)
    other = unsupported(model)
    return other.per_server if other is not None else GPUS_PER_SERVER_DEFAULT


def _rack_scale(model: str | None) -> bool:
    platform = default_platforms().get(model or "")
    return bool(platform is not None and platform.rack_scale)


@dataclass
class _Count:
    """What the server, board and tray lines add up to, as :func:`lines_reading` walks them."""

    servers: float = 0.0
    bare_servers: float = 0.0
    boards: float = 0.0
    rows: list[tuple[str, int]] = field(default_factory=list)
    board_rows: list[tuple[str, int]] = field(default_factory=list)
    gpus_by_model: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    board_gpus: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def add_system(self, ln: QuoteLine, children: Mapping[int, list[QuoteLine]]) -> None:
        model = ln.gpu_model or next((c.gpu_model for c in children.get(ln.id, ()) if c.gpu_model), None)
        self.rows.append((ln.sheet, ln.row))
        if model is None:
            self.bare_servers += ln.cluster_quantity
            return
        per = (ln.system.gpus if ln.system is not None else None) or gpus_per_node(model)
        count = ln.cluster_quantity * (ln.system.servers_per_unit if ln.system is not None else 1)
        self.servers += count
        self.gpus_by_model[model] += count * per

    def add_board(self, ln: QuoteLine) -> None:
        model = ln.gpu_model or "h100-sxm"
        self.board_rows.append((ln.sheet, ln.row))
        self.boards += ln.book_quantity  # book units are boards (a line priced per GPU counts 1/8 per unit)
        self.board_gpus[model] += ln.book_quantity * GPUS_PER_SERVER_DEFAULT

    def add_tray(self, ln: QuoteLine, per_tray: int) -> None:
        model = gpu_model(ln.text)
        if model is not None:
            self.rows.append((ln.sheet, ln.row))
            self.servers += ln.cluster_quantity
            self.gpus_by_model[_tray_model(model)] += ln.cluster_quantity * per_tray

    def boards_apart(self) -> Reading | None:
        """Servers that name their GPUs and boards besides: two readings, not one sum (the boards' reading)."""
        if self.servers and self.boards:
            label = f"the {self.boards:,.0f} GPU boards"
            gpus = round(sum(self.board_gpus.values()))
            reading = Reading("boards", label, round(self.boards), gpus, tuple(self.board_rows))
            self.boards = 0.0
            return reading
        self.rows += self.board_rows
        for model, count in self.board_gpus.items():
            self.gpus_by_model[model] += count
        return None


def lines_reading(
    lines: Sequence[QuoteLine], children: Mapping[int, list[QuoteLine]]
) -> tuple[Reading, str | None, list[str], Reading | None]:
    """(reading, GPU model, notes, boards reading) from server lines, and GPU boards and compute trays under no
    server line.

    A server line that names no GPU ("XD670 CTO server") with the GPU boards on lines of their own (HPE style)
    is the same server as its board: such servers count once, as the larger of the two counts.
    """
    by_id = {ln.id: ln for ln in lines}
    count = _Count()
    for ln in lines:
        if ln.status != "classified" or ln.cluster_quantity <= 0 or ln.pool == "spares":
            continue
        parent = by_id.get(ln.parent_id) if ln.parent_id is not None else None
        under_system = parent is not None and parent.component == "system"
        if ln.component == "system":
            count.add_system(ln, children)
        elif ln.component == "gpu_baseboard" and not under_system:
            count.add_board(ln)
        elif ln.component == "rack_tray" and not under_system and (per_tray := gpu_count(ln.text)):
            count.add_tray(ln, per_tray)
    boards_reading = count.boards_apart()
    unknown = max(0.0, count.bare_servers - count.boards)
    servers = count.servers + max(count.boards, count.bare_servers)
    rows = count.rows
    if servers < 1:
        return Reading("lines", "the server lines", None, None, tuple(rows)), None, [], None
    notes = []
    if not count.gpus_by_model:
        notes.append("the GPU servers do not say which GPU they carry: the cluster size is known, not its model")
        gpus = round(unknown * GPUS_PER_SERVER_DEFAULT)
        return Reading("lines", "the server lines", round(servers), gpus or None, tuple(rows)), None, notes, None
    by_model = count.gpus_by_model
    model = max(by_model, key=lambda k: by_model[k])
    if len(by_model) > 1:
        notes.append(f"several GPU models quoted ({', '.join(sorted(by_model))}); compared as {model}")
    gpus = round(sum(by_model.values()) + unknown * gpus_per_node(model))
    return Reading("lines", _label(lines, rows), round(servers), gpus, tuple(rows)), model, notes, boards_reading


def _tray_model(model: str) -> str:
    """A compute tray's GPU model as its rack's: B200 trays are GB200 NVL72, B300 trays GB300."""
    return {"b200-sxm": "gb200-nvl72", "b300-sxm": "gb300-nvl72"}.get(model, model)


def _label(lines: Sequence[QuoteLine], rows: Sequence[tuple[str, int]]) -> str:
    where = set(rows)
    named = [ln for ln in lines if (ln.sheet, ln.row) in where and not ln.derived]
    if len(named) == 1:
        ln = named[0]
        return f"the server line ({ln.source}: {ln.cluster_quantity:,.0f} × {ln.label[:40]})"
    return f"the {len(named)} server and GPU-board lines"


def stated_reading(servers: int | None, racks: int | None, model: str | None) -> Reading | None:
    """The size the quote states: its server count, or its rack count for a rack-scale model."""
    if _rack_scale(model) and racks:
        trays = racks * 18
        return Reading("stated", f"the stated {racks:,} racks", trays, racks * gpus_per_node(model))
    if servers:
        gpus = servers * gpus_per_node(model) if model and not _rack_scale(model) else None
        return Reading("stated", f"the stated {servers:,} servers", servers, gpus)
    return None


def tray_reading(lines: Sequence[QuoteLine]) -> Reading | None:
    """GPUs named on the compute trays listed under rack lines (``18 × compute tray, 4x B200`` per rack)."""
    by_id = {ln.id: ln for ln in lines}
    trays = [
        ln
        for ln in lines
        if ln.component == "rack_tray"
        and ln.pool != "spares"
        and ln.parent_id is not None
        and getattr(by_id.get(ln.parent_id), "component", None) == "system"
        and gpu_count(ln.text)
    ]
    if not trays:
        return None
    gpus = sum(ln.cluster_quantity * (gpu_count(ln.text) or 0) for ln in trays)
    servers = sum(ln.cluster_quantity for ln in trays)
    return Reading("trays", "the compute trays", round(servers), round(gpus), tuple((ln.sheet, ln.row) for ln in trays))


def _own(lines: Sequence[QuoteLine], component: str) -> list[QuoteLine]:
    """Classified lines of ``component`` that are not read from a server line's own description."""
    return [
        ln
        for ln in lines
        if ln.component == component and ln.status == "classified" and not ln.derived and ln.pool != "spares"
    ]


def cpu_reading(lines: Sequence[QuoteLine], model: str | None) -> Reading | None:
    """Servers from CPUs quoted on lines of their own, at two per server (per GB200/GB300 tray)."""
    cpus = _own(lines, "cpu")
    count = sum(ln.cluster_quantity for ln in cpus)
    if count < _SOCKETS:
        return None
    servers = round(count / _SOCKETS)
    per = gpus_per_node(model) if not _rack_scale(model) else 4
    gpus = servers * per if model else None
    rows = tuple((ln.sheet, ln.row) for ln in cpus)
    return Reading("cpus", f"the {count:,.0f} CPUs at two per server", servers, gpus, rows)


def nic_reading(lines: Sequence[QuoteLine]) -> Reading | None:
    """Servers from back-end NICs quoted on lines of their own, at eight per 8-GPU server."""
    nics = _own(lines, "backend_nic")
    count = sum(ln.cluster_quantity for ln in nics)
    if count < 1:
        return None
    servers = round(count / _MAX_NICS_PER_SERVER)
    rows = tuple((ln.sheet, ln.row) for ln in nics)
    return Reading("nics", f"the {count:,.0f} back-end NICs at one per GPU", servers or None, round(count), rows)


def _agrees(taken: Reading, other: Reading, rack_scale: bool) -> bool:
    """True when ``other`` is consistent with ``taken``: the same GPUs (or servers), or a per-server count that an
    honest quote has (1–2 CPUs, up to 8 back-end NICs per server)."""
    if other.key == "cpus":
        if not taken.servers or other.servers is None:
            return True
        per = other.servers * _SOCKETS / taken.servers  # CPUs per server
        return 1 - 1e-9 <= per <= _SOCKETS + 0.5
    if other.key == "nics":
        if rack_scale or not taken.servers or other.gpus is None:
            return True
        return other.gpus <= _MAX_NICS_PER_SERVER * taken.servers + taken.servers  # a stray NIC per server
    if taken.gpus is not None and other.gpus is not None:
        return taken.gpus == other.gpus
    return taken.servers == other.servers or taken.servers is None or other.servers is None


def reconcile(
    readings: Sequence[Reading], model: str | None, pick: str | None = None
) -> tuple[Reading | None, tuple[Conflict, ...], list[str]]:
    """(reading taken, conflicts, notes): the user's pick, else ``lines``, else ``stated``."""
    notes: list[str] = []
    usable = [r for r in readings if r.servers or r.gpus]
    by_key = {r.key: r for r in usable}
    default = by_key.get("lines") or by_key.get("stated")
    taken = default
    if pick is not None:
        if pick not in READINGS:
            from .cells import QuoteError

            raise QuoteError(f"size from must be one of {', '.join(READINGS)}, got {pick!r}")
        if pick in by_key:
            taken = by_key[pick]
        else:
            notes.append(f"the quote has no {pick} reading of its size; took {default.label if default else 'none'}")
    if taken is None:
        return None, (), notes
    rack_scale = _rack_scale(model)
    others = [r for r in usable if r.key != taken.key and not _agrees(taken, r, rack_scale)]
    if not others:
        return taken, (), notes
    said = "; ".join(_says(r) for r in others)
    choices = ", ".join(f"--size-from {r.key}" for r in others)
    sentence = (
        f"The readings of the cluster's size disagree: {_says(taken)}, but {said}. Took {taken.label}; "
        f"pick another with {choices} (or 'Size from' on the page)."
    )
    return taken, (Conflict("size", taken.key, (taken, *others), sentence),), notes


def _says(r: Reading) -> str:
    if r.key == "cpus" and r.servers:
        return f"{r.label} give {r.servers:,} servers"
    if r.key == "nics" and r.servers:
        return f"{r.label} give {r.gpus:,} GPUs ({r.servers:,} servers)"
    parts = [f"{r.gpus:,} GPUs" if r.gpus else "", f"{r.servers:,} servers" if r.servers else ""]
    return f"{r.label} give {' in '.join(p for p in parts if p)}"

"""Complete GPU servers on one quote line: recognise them and read their configuration into components.

A reseller writes a whole server on one line: ``SYS-821GE-TNHR, HGX H100 8-GPU, 2x Xeon Platinum 8480+,
2TB (32x 64GB) DDR5, 8x ConnectX-7 400G, 2x BlueField-3, 8x 3.84TB NVMe``. The description is split into items
(at commas, semicolons, pipes, " with " and " / "); each item is identified by the same scored rules as a quote
line and counted by its leading count (``8x``, ``2 ``); memory is read as DIMMs × size or a total
(``2TB`` = 2,048 GB). Items that are no server part (a warranty, a rail kit) are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .classify import SYSTEM_CONFIDENCE, CatalogueEntry, Identity, Rule, identify_rules, identity_of_rule
from .units import count_before, dimm_count, gpu_count, gpu_model, lead_count, normalise, ram_gb

NODE_PARTS = ("gpu_baseboard", "cpu", "ram", "backend_nic", "frontend_nic", "nic", "local_nvme", "boot_drive")
"""Components a server line's description may list (the ones per-server aggregates and findings read)."""

_SPLIT = re.compile(r"\s/\s|\bwith\b|\bw/|\bplus\b|\band\b|\s\+\s|\s[-–]\s", re.IGNORECASE)
_LABEL = re.compile(r"^[-*•\s]*(?:[A-Za-z][\w &/-]{1,24}:\s*)?")
"""A bullet and a label such as "Memory:" or "Compute fabric:" in front of a configuration item."""
_LABEL_HINTS = (
    (re.compile(r"memory|\bRAM\b|DIMM", re.IGNORECASE), "DIMM"),
    (re.compile(r"network|\bNICs?\b|fabric|infiniband|ethernet|adapter|interconnect", re.IGNORECASE), "NIC"),
    (re.compile(r"storage|drive|disk|SSD|boot", re.IGNORECASE), "NVMe drive"),
    (re.compile(r"\bCPUs?\b|processor", re.IGNORECASE), "CPU"),
    (re.compile(r"\bGPUs?\b|accelerator", re.IGNORECASE), "HGX GPU baseboard"),
)
_BARE = re.compile(r"\b(chassis|barebone|bare[- ]bones?|w/?o\s+GPUs?|without\s+GPUs?|no\s+GPUs?)\b", re.IGNORECASE)
_NO_GPU = re.compile(r"\b(w/?o|without|no|excl\.?|excluding)\s+(GPUs?|GPU\s+board|HGX|baseboard)\b", re.IGNORECASE)
_BOARD_WORD = re.compile(r"\bbaseboard\b|\bHGX\b|\b\d\s*-?\s*GPU\b", re.IGNORECASE)
_SERVER_NOUN = re.compile(r"\b(server|system|superserver|node)s?\b", re.IGNORECASE)
_GPU_SERVER = re.compile(
    r"\b(HGX|DGX)\b[^,;]*?\b\d\s*-?\s*GPU\b[^,;]*?\b(server|system|superserver|node)s?\b|"
    r"\b\d\s*-?\s*GPU\s+(server|system|superserver|node)s?\b|\bGPU\s+(server|node|system)s?\b|"
    r"GPU\s*服务器|GPU\s*サーバー?|GPU\s*서버",
    re.IGNORECASE,
)
"""A GPU server named as such ("HGX B200 8-GPU server", "8-GPU SuperServer", "GPU服务器"), whatever else it lists."""
_GPU_WORD = re.compile(
    r"\bHGX\b|\bDGX\b|\b(H100|H200|B200|B300)\b|\b\d\s*-?\s*GPU\b|\bInstinct\b|\bMI\s*-?\s*3\d\d\s*X\b|\bGaudi\s*-?\s*\d\b",
    re.IGNORECASE,
)
_CPU_WORD = re.compile(r"\bXeon\b|\bEPYC\b|\bprocessors?\b|\bCPUs?\b", re.IGNORECASE)
_RAM_WORD = re.compile(r"\bDDR[45]\b|\bDIMMs?\b|RDIMM|\bmemory\b|\bRAM\b|\d\s*TB\s*(DDR|RAM|memory)", re.IGNORECASE)
_DUAL_SOCKET = 2
_NVL72 = re.compile(r"\bNVL\s*-?\s*72\b", re.IGNORECASE)
_LOT_SYSTEMS = re.compile(r"\(\s*(\d{1,5})\s*(?:x\s*)?(?:[\w-]+\s+){0,3}?(?:systems|servers|nodes)\s*\)", re.IGNORECASE)
_PER_RACK = re.compile(
    r"\brack\s+(?:with|of|containing|incl\w*|holding|w/)\s+(\d{1,3})\s*[x×]?\s*|"
    r"\b(\d{1,3})\s*[x×]?\s*(?:[\w+-]+\s+){0,4}?(?:servers?|nodes?|systems?)\s+(?:per|/|in\s+each|in\s+one)\s+rack\b|"
    r"\brack\b[^,;(]{0,30}?\(\s*(\d{1,3})\s*[x×]?\s*(?:servers?|nodes?|systems?)\s*\)",
    re.IGNORECASE,
)
"""Servers one rack line holds: ``rack with 4x SYS-821GE-TNHR``, ``4 servers per rack``, ``rack (4 nodes)``."""
_EACH = re.compile(
    r"(?:\(|\b|^)(?:each|per\s+(?:node|server|system)|each\s+(?:node|server|system)|je\s+(?:server|knoten)|"
    r"par\s+serveur|por\s+servidor|chacun)\s*(?:with|has|:|：|-|–)\s*|(?:每台|每节点|单台|1台あたり|各)\s*[:：]?\s*",
    re.IGNORECASE,
)
"""The start of the per-node configuration of a line that sells several servers: ``(each: 2x Xeon …)``."""
_LOT_LEAD = re.compile(
    r"^\s*(\d{1,5})\s*x\s+(?!\s*(?:NVIDIA\s+)?(?:HGX|DGX|[HB][123]00|GB[23]00|GPU))"
    r"(?=.*\b(?:PowerEdge|SuperServer|server|system|ThinkSystem|Cray|node)s?\b)",
    re.IGNORECASE,
)
_PART_OF_SERVER = re.compile(
    r"\b(power\s+supply|PSU|fans?|kit|services?|support|care|warranty|rails?|cables?|cords?|bezel|riser|heat\s*sink|"
    r"licen[cs]e|upgrade|spares?|cage|backplane|bracket|module|installation|deploy\w*|ProDeploy\w*|ProSupport\w*|"
    r"rack\s+and\s+stack|premier|essentials?|\d+\s*-?\s*(?:yr|year)s?|validation|validate|integration|testing|"
    r"acceptance|burn-?in|commissioning|L1[01]|onsite|on-site|tray|extension|subscription|training)\b|"
    r"rack[- ]level|保修|服务(?!器)|维保|保守|サービス|検証",
    re.IGNORECASE,
)
_SERVICE_PART_NUMBER = re.compile(r"^\s*(SVC|SRV|SVS|WTY|WARR?|SUPP?|INST|DEPLOY|PSVC|L1[01])\b", re.IGNORECASE)
"""Part numbers of services: ``SVC-NVL72-L11``, ``WTY-3Y-NBD``."""
_HEAD_END = re.compile(r"\s[-–—|]\s|[,;(（]|\s(?:with|w/|incl\.?|including|plus|\+)\s", re.IGNORECASE)


@dataclass(frozen=True)
class SystemPart:
    """One item of a server line's configuration: its identity and count per server [units]."""

    text: str
    identity: Identity
    count: float
    ram_gb: float | None = None
    """Memory per server [GB] for a ``ram`` item."""


@dataclass(frozen=True)
class SystemConfig:
    """A server line's configuration: GPU model and count per server, and its parts."""

    gpu_model: str | None
    gpus: int | None
    parts: tuple[SystemPart, ...]
    cpu_vendor: str | None
    servers_per_unit: int = 1
    """Servers one unit of the line holds: ``16x PowerEdge XE9680 (16 systems), each with …`` sold as 1 lot."""


def is_bare_chassis(text: str) -> bool:
    """True when a server SKU line says it is a chassis / barebone without GPUs."""
    return bool(_BARE.search(text))


def is_rack_scale(text: str) -> bool:
    """True when a line names an NVL72 rack-scale system (GB200 / GB300 NVL72)."""
    return bool(_NVL72.search(text))


def head(text: str) -> str:
    """What a line sells, before what it says about it: ``ThinkSystem SR680a V3 - 3yr Warranty`` → its first part."""
    m = _HEAD_END.search(text)
    return text[: m.start()] if m else text


def is_server_part(text: str, part: str = "") -> bool:
    """True when a line naming a server SKU sells a part or service of it (a PSU kit, a GPU kit, a warranty, a
    rack-level validation): its part number is a service's, or the words before any ``-``, comma or ``with`` name
    one. A base line followed by its terms (``SR680a V3 - 3yr Warranty``) is the server."""
    if part and _SERVICE_PART_NUMBER.search(part):
        return True
    return bool(_PART_OF_SERVER.search(head(text)))


def looks_like_system(text: str) -> bool:
    """True when a description lists a GPU board, CPUs and memory, or names a GPU server as such: a whole server."""
    if _GPU_SERVER.search(text) and gpu_model(text) is not None and not _NO_GPU.search(text):
        return True
    return bool(_GPU_WORD.search(text) and _CPU_WORD.search(text) and _RAM_WORD.search(text))


def server_with_board(text: str) -> bool:
    """True when a line naming a chassis also names the GPU board and calls itself a server ("HGX H100 8-GPU
    server chassis and baseboard"): a GPU server, not a bare chassis."""
    return bool(_SERVER_NOUN.search(text) and _BOARD_WORD.search(text) and gpu_model(text) and not _NO_GPU.search(text))


def system_identity(entry: CatalogueEntry | None, confidence: float = SYSTEM_CONFIDENCE) -> Identity:
    """The identity of a complete server line (compared with the model's whole node)."""
    return Identity(
        "system",
        "compute",
        None,
        (),
        None,
        "",
        1.0,
        confidence,
        "catalogue" if entry is not None else "system",
        entry.gpu_model or None if entry is not None else None,
        entry.cpu_vendor or None if entry is not None else None,
    )


_NOUNS = {
    "nic": re.compile(r"ConnectX|\bCX-?\d|\bNICs?\b|adapters?|SuperNICs?|BlueField|\bHCAs?\b|\bDPUs?\b", re.IGNORECASE),
    "cpu": re.compile(r"\bXeon\b|\bEPYC\b|\bCPUs?\b|processors?|\bGrace\b", re.IGNORECASE),
    "drive": re.compile(r"\bNVMe\b|\bSSDs?\b|drives?|\bU\.[23]\b|\bE[13]\.S\b|\bM\.2\b", re.IGNORECASE),
}
_NOUN_OF = {"backend_nic": "nic", "frontend_nic": "nic", "nic": "nic", "cpu": "cpu", "local_nvme": "drive",
            "boot_drive": "drive"}  # fmt: skip


def parse_system(description: str, rules: Sequence[Rule], cpu_vendor: str | None = None) -> SystemConfig:
    """Read a server line's configuration into parts per server (see the module docstring).

    A line that sells several servers (``rack with 4x SYS-821GE-TNHR (each: 2x Xeon …, 8x CX-7)``) is read
    for its servers per unit and for the per-node configuration after ``each:`` / ``per node:``.
    """
    text = normalise(description)
    node_text = per_node_text(text)
    parts = [p for labelled in _items(node_text) if (p := _part(labelled, rules)) is not None]
    vendor = cpu_vendor or _cpu_vendor(node_text)
    boards = tuple(_merge_boards(parts, rules))
    model = gpu_model(node_text) or gpu_model(text)
    if _NVL72.search(text):  # a rack: 18 compute trays of 4 GPUs (and 2 Grace CPUs) each
        return SystemConfig(model, 4, (), None, 18 * servers_in_lot(text))
    return SystemConfig(model, gpu_count(node_text) or gpu_count(text), boards, vendor, servers_in_lot(text))


def _part(labelled: str, rules: Sequence[Rule]) -> SystemPart | None:
    """One configuration item as a part with its count per server, or None when it is no server part."""
    item = _LABEL.sub("", labelled)
    if not item:
        return None
    ident = identify_rules(item, rules)
    hint = _hint(labelled[: len(labelled) - len(item)])
    if (ident.component not in NODE_PARTS or ident.confidence < 0.5) and hint:
        ident = identify_rules(f"{item} {hint}", rules)  # "Memory: 32 x 64 GB", "Network: 8x 400G NDR"
    if ident.component not in NODE_PARTS or ident.confidence < 0.5:
        return None
    noun = _NOUNS.get(_NOUN_OF.get(ident.component or "", ""))
    count: float | None = (count_before(item, noun) if noun is not None else None) or lead_count(item)
    gb = None
    if ident.component == "gpu_baseboard":
        count = 1  # "8x H100" counts GPUs on one board
    elif ident.component == "cpu":
        count = count or _DUAL_SOCKET
    elif ident.component == "ram":
        gb = ram_gb(item)
        if gb is not None and count and dimm_count(item) is None and gb <= 256:
            gb *= count  # "16x DDR5 64GB RDIMM": the lead count is the DIMM count
        count = dimm_count(item) or count or (gb / 64.0 if gb else 1)
    return SystemPart(item, ident, float(count or 1), gb)


def per_node_text(text: str) -> str:
    """The per-node configuration of a line that sells several servers (``… (each: 2x Xeon, 32x 64GB)`` →
    ``2x Xeon, 32x 64GB``); the whole text when it has none."""
    m = _EACH.search(text)
    if m is None:
        return text
    depth = 1 if text[: m.end()].rstrip().endswith("(") or m.group(0).startswith("(") else 0
    out = []
    for ch in text[m.end() :]:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < (1 if m.group(0).startswith("(") else 0):
            break
        out.append(ch)
    return "".join(out).strip() or text


def servers_in_lot(text: str) -> int:
    """Servers a server line's one unit holds: ``16x Dell PowerEdge …``, ``(16 systems)``, ``rack with 4x
    SYS-821GE-TNHR``, ``4 servers per rack``; 1 when not said."""
    m = _PER_RACK.search(text)
    if m:
        n = int(next(g for g in m.groups() if g))
        if 1 < n <= 128:
            return n
    for pattern in (_LOT_SYSTEMS, _LOT_LEAD):
        m = pattern.search(text)
        if m and 1 < int(m.group(1)) <= 100_000:
            return int(m.group(1))
    return 1


def _items(text: str) -> list[str]:
    """Configuration items of a description: split at , ; | outside parentheses, then at with / and / plus."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(ch, 0)
        depth = max(depth, 0)
        thousands = ch == "," and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()
        if depth == 0 and ch in ",;|\n•" and not thousands:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [part.strip() for chunk in out for part in _SPLIT.split(chunk) if part and part.strip()]


def _hint(label: str) -> str:
    """The kind noun a configuration label implies: ``Memory:`` → ``DIMM``, ``Network:`` → ``NIC``; else ""."""
    return next((noun for pattern, noun in _LABEL_HINTS if pattern.search(label)), "")


def _merge_boards(parts: list[SystemPart], rules: Sequence[Rule]) -> list[SystemPart]:
    """One GPU board per server, however many items name the GPUs (``HGX H100``, ``8x H100 80GB``)."""
    boards = [p for p in parts if p.identity.component == "gpu_baseboard"]
    rest = [p for p in parts if p.identity.component != "gpu_baseboard"]
    if not boards:
        return rest
    best = max(boards, key=lambda p: (p.identity.price_key is not None, p.identity.confidence))
    return [SystemPart(best.text, best.identity, 1.0), *rest]


def _cpu_vendor(text: str) -> str | None:
    if re.search(r"\bEPYC\b|\bAMD\b", text, re.IGNORECASE):
        return "amd"
    if re.search(r"\bXeon\b|\bIntel\b", text, re.IGNORECASE):
        return "intel"
    return None


def board_identity(model: str | None, rules: Sequence[Rule]) -> Identity | None:
    """The GPU-board identity for a GPU model id (the rule pricing that board), or None."""
    name = {"h100-sxm": "HGX H100", "h200-sxm": "HGX H200", "b200-sxm": "HGX B200", "b300-sxm": "HGX B300"}.get(
        model or ""
    )
    if name is None:
        return None
    rule = next((r for r in rules if r.component == "gpu_baseboard" and r.pattern.search(name)), None)
    return identity_of_rule(rule, SYSTEM_CONFIDENCE, "system") if rule is not None else None

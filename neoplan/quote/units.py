"""Units as quotes write them, normalised: link speeds, memory and drive sizes, counts, GPU and CPU names.

Conventions: speeds in Gbit/s (``400Gb/s`` = ``400G`` = ``400Gbps`` = ``NDR``; ``800G`` = ``XDR``), memory in
GB with 1 TB = 1,024 GB (``2TB`` → 2,048), drives in TB as labelled (``7.68TB``; ``960GB`` → 0.96).
"""

from __future__ import annotations

import re
from functools import lru_cache

_SPEED = re.compile(r"(\d{2,4})\s*(?:[Gg]b/s|[Gg]bit/s|[Gg]bps|GBPS|[Gg]b[Ee]|GBE|Gb|G)(?![A-Za-z0-9/])")
_NDR200 = re.compile(r"\bNDR\s*-?\s*200\b", re.IGNORECASE)
_NDR = re.compile(r"\bNDR\b(?!\s*-?\s*200)", re.IGNORECASE)
_XDR = re.compile(r"\bXDR\b", re.IGNORECASE)
_TB_SPACE = re.compile(r"(\d(?:\.\d+)?)\s+(TB|GB)\b", re.IGNORECASE)
_SPEED_TOKEN = re.compile(r"(?<![\d.])(\d{2,4})G(?![A-Za-z0-9])")
_MULTIPLY = re.compile(r"(\d)\s*[×*](?=\s*[\dA-Za-z])")

GPU_MODELS = (
    ("gb300-nvl72", re.compile(r"\bGB300\b|\bGrace\s+Blackwell\s+Ultra\b", re.IGNORECASE)),
    ("gb200-nvl72", re.compile(r"\bGB200\b|\bGrace\s+Blackwell\b", re.IGNORECASE)),
    ("b300-sxm", re.compile(r"\bB300\b|\bBlackwell\s+Ultra\b", re.IGNORECASE)),
    ("b200-sxm", re.compile(r"\bB200\b", re.IGNORECASE)),
    ("h200-sxm", re.compile(r"\bH200\b", re.IGNORECASE)),
    ("h100-sxm", re.compile(r"\bH100\b", re.IGNORECASE)),
    ("h20-sxm", re.compile(r"\bH20\b", re.IGNORECASE)),
)
"""GPU model id → its name in a description, newest first (``HGX B300`` also says nothing about H100; ``H20``, the
export-compliant Hopper, is named apart from ``H200``)."""

_ACCELERATOR_WORD = re.compile(r"\bMI\s*-?\s*3\d\d\s*X\b|\bGaudi\b|\bHL-?\d{3}\b|\bTPU\b|\bv5\s*lite\b", re.IGNORECASE)
"""Words of an accelerator the price book does not price (AMD Instinct, Intel Gaudi, Google TPU)."""
_GPU_COUNT = re.compile(
    r"\b(\d{1,2})\s*-?\s*(?:x\s*)?(?:GPUs?\b|(?:NVIDIA\s+)?(?:Tesla\s+)?(?:H100|H200|H20|B200|B300)\b|"
    r"(?:AMD\s+)?(?:Instinct\s+)?MI\s*-?\s*3\d\d\s*X\b|(?:Intel\s+)?Gaudi\s*-?\s*\d\b|(?:Google\s+)?(?:Cloud\s+)?TPU\b|"
    r"accelerators?\b|OAMs?\b)",
    re.IGNORECASE,
)
_RAM_DIMMS = re.compile(r"\b(\d{1,3})\s*x\s*(\d{2,3})\s*GB\b", re.IGNORECASE)
_RAM_TOTAL_TB = re.compile(r"\b(\d(?:\.\d+)?)\s*TB\b", re.IGNORECASE)
_RAM_GB = re.compile(r"\b(\d{2,4})\s*GB\b", re.IGNORECASE)
_DRIVE_TB = re.compile(r"\b(\d{1,3}(?:\.\d{1,2})?)\s*TB\b", re.IGNORECASE)
_DRIVE_GB = re.compile(r"\b(\d{3,4})\s*GB\b", re.IGNORECASE)
_LEAD_COUNT = re.compile(r"^\s*(?:qty\s*:?\s*)?(\d{1,3})\s*(?:x\b|x(?=\s*[A-Za-z0-9])|\s+(?=[A-Za-z]))", re.IGNORECASE)
_PER_SERVER = re.compile(
    r"\(?\b(\d{1,3})\s*(?:x\s*)?(?:per|/)\s*(?:server|node|system|chassis)\b\)?|\(\s*x\s*(\d{1,3})\s*\)",
    re.IGNORECASE,
)


@lru_cache(maxsize=16384)  # keyed on a text, a pure function of it; quotes repeat texts (quote review +55 % without)
def normalise(text: str) -> str:
    """``text`` with speeds written one way (``400 Gb/s`` → ``400G``; ``NDR`` → ``NDR 400G``) and sizes joined."""
    s = _MULTIPLY.sub(r"\1x", text)
    s = _SPEED.sub(r"\1G", s)
    s = _NDR200.sub("NDR200 200G", s)
    s = _NDR.sub("NDR 400G", s)
    s = _XDR.sub("XDR 800G", s)
    return _TB_SPACE.sub(r"\1\2", s)


@lru_cache(maxsize=16384)  # keyed on a text, a pure function of it, returns a frozenset (quote review +12 % without)
def speeds_gbps(text: str) -> frozenset[int]:
    """Every link speed a normalised text names [Gbit/s] (``2x200G`` names 200)."""
    return frozenset(int(m.group(1)) for m in _SPEED_TOKEN.finditer(text))


def gpu_model(text: str) -> str | None:
    """The GPU model id a description names (``h100-sxm``, ``h200-sxm``, ``b200-sxm``, ``b300-sxm``, …; an accelerator
    the book does not price by its key in ``data/quote_accelerators.csv``, ``amd-mi355x``), or None."""
    found = next((key for key, pattern in GPU_MODELS if pattern.search(text)), None)
    if found is None and _ACCELERATOR_WORD.search(text):
        from .accelerators import accelerator_of  # reads data/ once

        other = accelerator_of(text)
        return other.key if other is not None else None
    return found


def gpu_count(text: str) -> int | None:
    """GPUs a system description states (``8x H100``, ``8-GPU``, ``HGX H200 8 GPU``), or None."""
    for m in _GPU_COUNT.finditer(text):
        n = int(m.group(1))
        if n in (1, 2, 4, 8, 16):
            return n
    return None


def ram_gb(text: str) -> float | None:
    """Memory a text describes per unit [GB]: ``32x 64GB`` → 2,048; ``2TB`` → 2,048; ``64GB`` → 64."""
    m = _RAM_DIMMS.search(text)
    if m:
        return float(int(m.group(1)) * int(m.group(2)))
    m = _RAM_TOTAL_TB.search(text)
    if m and 0 < float(m.group(1)) <= 16:
        return float(m.group(1)) * 1024.0
    m = _RAM_GB.search(text)
    if m and 8 <= int(m.group(1)) <= 8192:
        return float(m.group(1))
    return None


def dimm_count(text: str) -> int | None:
    """DIMMs a memory text states (``32x 64GB`` → 32), or None."""
    m = _RAM_DIMMS.search(text)
    return int(m.group(1)) if m else None


def drive_tb(text: str) -> float | None:
    """A drive's capacity [TB]: ``7.68TB`` → 7.68, ``960GB`` → 0.96."""
    m = _DRIVE_TB.search(text)
    if m and 0 < float(m.group(1)) <= 200:
        return float(m.group(1))
    m = _DRIVE_GB.search(text)
    return int(m.group(1)) / 1000.0 if m else None


_COUNTED = re.compile(
    r"(?<![\w.])(\d{1,3})\s*[x×]?\s+|(?<![\w.])(\d{1,3})\s*[x×]|"
    r"\b(dual|quad|single|octo)\b(?![-\s]*(?:ports?|slot|width|rank)\b)[-\s]+",
    re.IGNORECASE,
)
_WORDS = {"single": 1, "dual": 2, "quad": 4, "octo": 8}


def count_before(text: str, noun: re.Pattern[str]) -> int | None:
    """The count nearest before the first ``noun`` within three words: ``4x OSFP ports serving 8x single-port
    ConnectX-7`` → 8 for ConnectX, ``Dual Intel Xeon`` → 2; None when no count sits right before it."""
    m = noun.search(text)
    if m is None:
        return None
    head = text[: m.start()]
    best: int | None = None
    for c in _COUNTED.finditer(head):
        between = head[c.end() :].split()
        if len(between) > 3 or any(w.endswith((",", ";", ":")) for w in between):
            continue
        value = _WORDS[c.group(3).lower()] if c.group(3) else int(c.group(1) or c.group(2))
        best = value if 0 < value <= 128 else best
    return best


def lead_count(text: str) -> int | None:
    """The count a configuration item starts with: ``8x ConnectX-7`` → 8, ``2 Intel Xeon`` → 2."""
    m = _LEAD_COUNT.match(text)
    return int(m.group(1)) if m and 0 < int(m.group(1)) <= 128 else None


def per_server_count(text: str) -> int | None:
    """A per-server count a line states: ``(4 per server)``, ``8/node`` → 4, 8."""
    m = _PER_SERVER.search(text)
    if not m:
        return None
    value = int(m.group(1) or m.group(2))
    return value if 0 < value <= 128 else None

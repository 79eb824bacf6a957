"""The article's findings on a classified quote: what is padded, what is missing, and the saving."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..design.node import DIMM_GB
from ..formats import usd_exact
from ..inputs.pricebook import PriceBook
from .cells import _finite
from .codes import (
    _DROP_FINDINGS,
    _SWAP_FINDINGS,
    BACKEND_NICS_RECOMMENDED,
    CENT_USD,
    FINDINGS,
    RAM_GB_PER_SERVER_RECOMMENDED,
    UFM_REQUIRED_ABOVE_GPUS,
)
from .lines import QuoteLine


@dataclass(frozen=True)
class Finding:
    """A flagged issue: the code, the line ids it rests on, the saving [USD] and why."""

    code: str
    lines: tuple[int, ...]
    saving_usd: float
    detail: str
    sources: tuple[tuple[str, int], ...] = ()
    """The quote's own (sheet, row) of each line, as the file shows them (sheet "" for CSV)."""

    @property
    def where(self) -> str:
        """The cited rows as a spreadsheet user writes them: ``Compute!14, Compute!15`` or ``rows 14, 15``."""
        if not self.sources:
            return ""
        if all(not sheet for sheet, _ in self.sources):
            rows = [str(r) for _, r in self.sources]
            return ("row " if len(rows) == 1 else "rows ") + ", ".join(rows)
        return ", ".join(f"{sheet}!{row}" if sheet else f"row {row}" for sheet, row in self.sources)

    @property
    def title(self) -> str:
        """Short name of the finding."""
        return FINDINGS[self.code][0]

    @property
    def reason(self) -> str:
        """Why it matters (BRIEF.md / the article)."""
        return FINDINGS[self.code][1]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record."""
        return {
            "code": self.code,
            "title": self.title,
            "lines": list(self.lines),
            "saving_usd": _finite(self.saving_usd),
            "reason": self.reason,
            "detail": self.detail,
            "sources": [{"sheet": sheet, "row": row} for sheet, row in self.sources],
            "where": self.where,
        }


# --- findings -------------------------------------------------------------------------------------------------------


def _with(
    lines: Iterable[QuoteLine], *, component: str | None = None, code: str | None = None, key: str | None = None
) -> list[QuoteLine]:
    return [
        ln
        for ln in lines
        if (component is None or ln.component == component)
        and (code is None or code in ln.rule_findings)
        and (key is None or ln.price_key == key)
    ]


def _qty(lines: Iterable[QuoteLine]) -> float:
    """Book units of ``lines`` [count]."""
    return sum(ln.book_quantity for ln in lines)


def _cost(lines: Iterable[QuoteLine]) -> float:
    """Cluster cost of ``lines`` [USD]."""
    return sum(ln.cost_usd for ln in lines)


def _ids(lines: Iterable[QuoteLine]) -> tuple[int, ...]:
    return tuple(ln.id for ln in lines)


def _avg_unit(lines: Sequence[QuoteLine], book: PriceBook, fallback_key: str) -> float:
    """Average cost per book unit of ``lines`` [USD], or the book price of ``fallback_key`` without lines."""
    qty = _qty(lines)
    return _cost(lines) / qty if qty > 0 else book.price(fallback_key)


def _short(description: str) -> str:
    """A book description up to its first parenthesis: ``Mid-range Intel Xeon``."""
    return description.split(" (")[0]


def _n(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def find_all(
    lines: Sequence[QuoteLine],
    servers: int | None,
    gpus: int | None,
    book: PriceBook,
    price_tolerance: float,
    gpu_model: str | None = None,
) -> list[Finding]:
    """Every finding of a quote, in a stable order (the RAM recommendation is ``gpu_model``'s)."""
    family = "xdr" if _with(lines, key="nic_backend_800g") or _with(lines, key="ib_switch_q3400") else "ndr"
    out: list[Finding] = []
    out += find_swaps(lines, book, "cpu_top_bin")
    out += find_ram(lines, servers, ram_gb_recommended(gpu_model))
    out += find_dpus(lines, servers, book)
    out += find_swaps(lines, book, "frontend_spectrum")
    out += find_swaps(lines, book, "oob_spectrum")
    out += find_nvaie(lines)
    out += find_nics(lines, servers, book, family)
    out += find_missing(lines, servers, gpus, book, family)
    out += find_optics_everywhere(lines, book, family)
    out += find_nonblocking(lines, servers, book)
    out += find_flagged(lines, "cpu_amd")
    out += find_above_book(lines, price_tolerance)
    out += find_mismatch(lines)
    return out


def find_swaps(lines: Sequence[QuoteLine], book: PriceBook, code: str) -> list[Finding]:
    """Lines the rules flag with ``code`` swapped for their recommended key: quote cost − book replacement [USD]."""
    hit = _with(lines, code=code)
    if not hit:
        return []
    saving = 0.0
    groups: dict[tuple[str, str | None, float], list[QuoteLine]] = defaultdict(list)
    for ln in hit:
        replacement = book.price(ln.recommended_key) if ln.recommended_key else 0.0
        if ln.cost_usd > 0:  # a stand-alone line at 0 or "Included" saves nothing when swapped
            saving += max(0.0, ln.cost_usd - ln.book_quantity * replacement)
        unit = ln.cost_usd / ln.cluster_quantity if ln.cluster_quantity else 0.0
        groups[(_brief(ln.label), ln.recommended_key, round(unit, 2))].append(ln)
    parts = []
    for (label, rec_key, unit), group in groups.items():
        target = _brief(_short(book.row(rec_key).description), 60, at_comma=False) if rec_key else "nothing"
        replacement = book.price(rec_key) if rec_key else 0.0
        qty = sum(ln.cluster_quantity for ln in group)
        parts.append(f"{_n(qty)} × {label} at {usd_exact(unit)} → {target} at {usd_exact(replacement)}")
    return [Finding(code, _ids(hit), saving, "; ".join(parts))]


def _brief(label: str, width: int = 48, at_comma: bool = True) -> str:
    """A line label up to its first comma, at most ``width`` characters: ``NVIDIA Spectrum SN4600 64x200GbE…``."""
    head = label.split(",")[0].strip() if at_comma else label
    return head if len(head) <= width else head[: width - 1].rsplit(" ", 1)[0] + "…"


def find_flagged(lines: Sequence[QuoteLine], code: str) -> list[Finding]:
    """Lines the rules flag with ``code`` where the advice has no price (saving 0)."""
    hit = _with(lines, code=code)
    if not hit:
        return []
    return [Finding(code, _ids(hit), 0.0, "; ".join(f"{_n(ln.cluster_quantity)} × {ln.label}" for ln in hit))]


def ram_gb_recommended(gpu_model: str | None) -> float:
    """RAM per server the platform needs [GB]: its ``node.ram_tb`` default (at least the GPUs' HBM, as OEMs ship
    it: 1 TB on H100, 2 TB on H200 and B200, 3 TB on B300; ``data/platform_defaults.csv``); 1 TB for a platform the
    model does not know."""
    from ..inputs.platforms import default_table

    default = default_table().get(gpu_model or "", {}).get("node.ram_tb")
    return float(default.value) * 1024 if default is not None else RAM_GB_PER_SERVER_RECOMMENDED


def find_ram(lines: Sequence[QuoteLine], servers: int | None, recommended_gb: float | None = None) -> list[Finding]:
    """RAM above the platform's recommendation per server (``recommended_gb``, default 1 TB): the excess DIMM
    capacity at the quote's price per GB [USD]."""
    ram = _with(lines, component="ram")
    if not ram or not servers:
        return []
    gb = sum(ln.ram_gb for ln in ram)
    if gb <= 0:
        return []
    target = recommended_gb or RAM_GB_PER_SERVER_RECOMMENDED
    per_server_gb = gb / servers
    if per_server_gb <= target + 1e-6:
        return []
    excess_gb = gb - servers * target
    usd_per_gb = _cost(ram) / gb
    detail = (
        f"{per_server_gb / 1024:g} TB per server → {target / 1024:g} TB (the platform's recommendation): "
        f"{_n(excess_gb / DIMM_GB)} fewer {DIMM_GB} GB DIMMs over {servers:,} servers at "
        f"{usd_exact(usd_per_gb * DIMM_GB)} per {DIMM_GB} GB"
    )
    return [Finding("ram_over_1tb", _ids(ram), excess_gb * usd_per_gb, detail)]


def find_dpus(lines: Sequence[QuoteLine], servers: int | None, book: PriceBook) -> list[Finding]:
    """BlueField DPUs dropped; servers without a plain front-end NIC get one ConnectX (book price) [USD]."""
    dpus = _with(lines, code="dpu_bluefield")
    if not dpus:
        return []
    dpu_ids = set(_ids(dpus))
    plain = sum(ln.book_quantity for ln in _with(lines, component="frontend_nic") if ln.id not in dpu_ids)
    need = (servers if servers else math.ceil(_qty(dpus) / 2)) - plain
    nics = max(0.0, need)
    nic_usd = book.price("nic_frontend_2x100g")
    saving = _cost(dpus) - nics * nic_usd if _cost(dpus) > 0 else 0.0  # unknown price: no saving claimed
    detail = (
        f"Drop {_n(_qty(dpus))} BlueField-3 ({usd_exact(_cost(dpus))}); add {_n(nics)} dual-port 100GbE ConnectX "
        f"at {usd_exact(nic_usd)}"
    )
    return [Finding("dpu_bluefield", _ids(dpus), saving, detail)]


def _quoted_cost(lines: Iterable[QuoteLine]) -> float:
    """What the quote charges for ``lines`` [USD]: a priced line's own total (whatever the book says), a part
    bundled in a priced line at book, a stand-alone line at no charge 0."""
    return sum(ln.total_usd if ln.priced and ln.total_usd > 0 else ln.cost_usd for ln in lines)


def find_nvaie(lines: Sequence[QuoteLine]) -> list[Finding]:
    """NVIDIA AI Enterprise lines dropped: what the quote charges for them [USD] (the book only says the licence is
    padding, not what this one costs; the opex it also saves each year is noted)."""
    hit = _with(lines, code="nvaie_license")
    if not hit:
        return []
    years = _qty(hit)
    cost = _quoted_cost(hit)
    if cost <= 0:
        detail = f"{_n(years)} GPU-years of NVIDIA AI Enterprise quoted at no charge: nothing to save on this quote"
        return [Finding("nvaie_license", _ids(hit), 0.0, detail)]
    detail = f"{_n(years)} GPU-years of NVIDIA AI Enterprise quoted for {usd_exact(cost)}; drop them"
    return [Finding("nvaie_license", _ids(hit), cost, detail)]


def find_nics(lines: Sequence[QuoteLine], servers: int | None, book: PriceBook, family: str) -> list[Finding]:
    """Fewer than 8 back-end NICs per server: the cost of adding NICs and their optics (negative saving) [USD].

    A quote that lists no back-end NIC at all says nothing about them (integrated, or quoted apart): no finding.
    """
    if not servers:
        return []
    nics = _with(lines, component="backend_nic")
    have = _qty(nics)
    if have <= 0:
        return []
    if have >= servers:  # whole NICs per GPU server; a stray NIC of a management node does not count
        have = servers * math.floor(have / servers + 1e-9)
    per_server = have / servers
    if per_server >= BACKEND_NICS_RECOMMENDED - 1e-9:
        return []
    missing = servers * BACKEND_NICS_RECOMMENDED - have
    nic_key, optic_key = (
        ("nic_backend_800g", "xcvr_xdr_osfp_800g_server")
        if family == "xdr"
        else ("nic_backend_400g", "xcvr_ndr_osfp_400g_server")
    )
    cost = missing * (_avg_unit(nics, book, nic_key) + book.price(optic_key))
    detail = (
        f"{per_server:g} back-end NICs per server; {_n(missing)} more NICs and server-side optics would cost "
        f"{usd_exact(cost)}"
    )
    boards = _with(lines, component="gpu_baseboard")
    return [Finding("nics_below_8", _ids(nics or boards), -cost, detail)]


def _optical_links(lines: Sequence[QuoteLine]) -> tuple[float, float, float]:
    """(server-side optical links, switch-side optical ports, switch-to-switch optical links) [count]."""
    server = _qty(_with(lines, component="backend_server_link", key="xcvr_ndr_osfp_400g_server")) + _qty(
        _with(lines, component="backend_server_link", key="xcvr_xdr_osfp_800g_server")
    )
    twin = _qty(_with(lines, key="xcvr_ndr_osfp_800g_twin")) + _qty(_with(lines, key="xcvr_xdr_osfp_1600g_twin"))
    ports = 2 * twin
    return server, ports, max(0.0, (ports - server) / 2)


def _switch_copper(lines: Sequence[QuoteLine]) -> list[QuoteLine]:
    return [ln for ln in _with(lines, component="backend_switch_link") if "xcvr" not in (ln.price_key or "")]


def find_missing(
    lines: Sequence[QuoteLine], servers: int | None, gpus: int | None, book: PriceBook, family: str
) -> list[Finding]:
    """Parts the quoted design needs but lacks, at book prices (negative saving) [USD].

    Server-side optics or splitter cables for every back-end NIC of the GPU servers (whole NICs per server;
    a stray NIC of a management node is not counted); one fibre per optical link; UFM above 2,048 GPUs when
    the quote has InfiniBand switches.
    """
    out = []
    nics = _with(lines, component="backend_nic")
    n_nics = _qty(nics)
    if servers and n_nics >= servers:
        n_nics = servers * math.floor(n_nics / servers + 1e-9)
    server_links = _with(lines, component="backend_server_link")
    ends = sum(ln.book_quantity * (2 if "splitter" in (ln.price_key or "") else 1) for ln in server_links)
    if n_nics > 0 and ends < n_nics - 1e-9:
        key = "xcvr_xdr_osfp_800g_server" if family == "xdr" else "xcvr_ndr_osfp_400g_server"
        missing = n_nics - ends
        cost = missing * book.price(key)
        out.append(
            Finding(
                "missing_item",
                _ids(nics),
                -cost,
                f"{_n(n_nics)} back-end NICs but only {_n(ends)} server-side transceivers or splitter-"
                f"cable ends: {_n(missing)} × {book.row(key).description} at {usd_exact(book.price(key))}",
            )
        )
    server, _ports, switch_links = _optical_links(lines)
    needed = server + switch_links
    fibres = _with(lines, component="backend_fibre")
    have = _qty(fibres)
    if needed > 0 and have < needed - 1e-9:
        cost = (needed - have) * book.price("fibre_mpo12_apc")
        optics = _with(lines, component="backend_server_link") + _with(lines, component="backend_switch_link")
        out.append(
            Finding(
                "missing_item",
                _ids(fibres or optics),
                -cost,
                f"{_n(needed)} optical links need one MPO-12/APC fibre each; the quote has {_n(have)}: "
                f"{_n(needed - have)} more at {usd_exact(book.price('fibre_mpo12_apc'))}",
            )
        )
    switches = _with(lines, component="backend_switch")
    if gpus and gpus > UFM_REQUIRED_ABOVE_GPUS and switches and not _with(lines, component="subnet_manager"):
        endpoints = n_nics or gpus
        cost = endpoints * book.price("ufm_licence_per_endpoint")
        out.append(
            Finding(
                "missing_item",
                _ids(switches),
                -cost,
                f"UFM is a hard requirement above {UFM_REQUIRED_ABOVE_GPUS:,} GPUs and the quote has none: "
                f"{_n(endpoints)} endpoint licences at {usd_exact(book.price('ufm_licence_per_endpoint'))}",
            )
        )
    return out


def find_optics_everywhere(lines: Sequence[QuoteLine], book: PriceBook, family: str) -> list[Finding]:
    """Rail-optimized quote whose switch-to-switch links are all optical: optics + fibre → twin DAC [USD]."""
    server, _ports, links = _optical_links(lines)
    if links <= 0 or server <= 0 or _switch_copper(lines):
        return []
    twins = _with(lines, component="backend_switch_link")
    fibres = _with(lines, component="backend_fibre")
    twin_unit = _avg_unit(twins, book, "xcvr_ndr_osfp_800g_twin")
    fibre_unit = _avg_unit(fibres, book, "fibre_mpo12_apc")
    dac_key = "lacc_xdr_1600g_twin" if family == "xdr" else "dac_ndr_800g_twin"
    dacs = math.ceil(links / 2)
    saving = links * (twin_unit + fibre_unit) - dacs * book.price(dac_key)
    detail = (
        f"{_n(links)} switch-to-switch links on optics ({_n(links)} twin-port transceivers + {_n(links)} "
        f"fibres) → {dacs:,} twin-port DAC at {usd_exact(book.price(dac_key))} with the spine rack between the leaf "
        "racks (virtual modular switch)"
    )
    return [Finding("optics_everywhere", _ids(twins + fibres), saving, detail)]


def _radix(key: str | None) -> int:
    from ..design.fabric import default_network_catalogue

    return next((it.radix for it in default_network_catalogue().values() if it.price_key == key and it.radix), 64)


def find_nonblocking(lines: Sequence[QuoteLine], servers: int | None, book: PriceBook) -> list[Finding]:
    """A non-blocking multi-pod back end: at 2:1 half the spines and half the leaf-spine links go [USD].

    Leaves are estimated as rail-optimized non-blocking leaves: NICs per server × scalable units of
    ``radix/2`` servers; the rest of the quoted InfiniBand switches are spines. Fires below 1.5:1 when the
    cluster has more than one scalable unit.
    """
    switches = _with(lines, component="backend_switch")
    n_nics = _qty(_with(lines, component="backend_nic"))
    if not switches or n_nics <= 0 or not servers:
        return []
    radix = _radix(switches[0].price_key)
    down = radix // 2
    if servers <= down:
        return []
    leaves = max(1, round(n_nics / servers)) * math.ceil(servers / down)
    spines = _qty(switches) - leaves
    if spines <= 0:
        return []
    oversubscription = (leaves * down) / (spines * radix)
    if oversubscription >= 1.5:
        return []
    links_removed = math.floor(leaves * down / 2)
    spines_removed = math.floor(spines / 2)
    switch_unit = _avg_unit(switches, book, switches[0].price_key or "ib_switch_qm9700")
    copper = _switch_copper(lines)
    if copper:
        per_link = _avg_unit(copper, book, "dac_ndr_800g_twin") / 2
        media, links = "DAC", copper
    else:
        twins = _with(lines, component="backend_switch_link")
        fibres = _with(lines, component="backend_fibre")
        per_link = _avg_unit(twins, book, "xcvr_ndr_osfp_800g_twin") + _avg_unit(fibres, book, "fibre_mpo12_apc")
        media, links = "optics and fibre", twins + fibres
    if not links:
        per_link = 0.0  # links the quote does not list save nothing
    saving = spines_removed * switch_unit + links_removed * per_link
    detail = (
        f"~{leaves:,} leaves and {_n(spines)} spines ({oversubscription:.1f}:1) → 2:1 with "
        f"{_n(spines - spines_removed)} spines: {spines_removed:,} switches and {links_removed:,} leaf-spine links "
        f"({media}) fewer"
    )
    return [Finding("backend_nonblocking", _ids(switches + links), saving, detail)]


_SWAPPED_OR_DROPPED = (*_SWAP_FINDINGS, *_DROP_FINDINGS)


def find_above_book(lines: Sequence[QuoteLine], tolerance: float) -> list[Finding]:
    """One finding per line whose unit price exceeds the book by more than ``tolerance`` [USD over book].

    Lines that a swap or drop finding already removes are left out (their saving counts there).
    """
    out = []
    for ln in lines:
        unit = ln.effective_unit_usd
        book_unit = ln.book_unit_price_usd
        if unit is None or not book_unit or any(c in _SWAPPED_OR_DROPPED for c in ln.rule_findings):
            continue
        if ln.price_check == "could_not_price" or ln.derived:  # 3× off the book: a misread, never a saving
            continue
        if unit > (1 + tolerance) * book_unit:
            over = unit / book_unit - 1
            detail = (
                f"{ln.label}: {usd_exact(unit)} per unit vs {usd_exact(book_unit)} in the price book ({ln.price_key}), "
                f"{over:.0%} over; {_n(ln.cluster_quantity)} units"
            )
            out.append(Finding("price_above_book", (ln.id,), ln.cluster_quantity * (unit - book_unit), detail))
    return out


def find_mismatch(lines: Sequence[QuoteLine]) -> list[Finding]:
    """Lines whose quantity × unit price differs from the extended price by more than cent rounding explains
    (a cent per unit, at least $1); saving = any overcharge [USD]."""
    out = []
    for ln in lines:
        if ln.unit_price_usd is None or ln.extended_usd is None or ln.quantity_assumed:
            continue
        expected = ln.quantity * ln.unit_price_usd
        gap = ln.extended_usd - expected
        if abs(gap) > max(1.0, CENT_USD * ln.quantity):  # more than unit prices rounded to the cent explain
            multiplier = ln.cluster_quantity / ln.quantity if ln.quantity else 1.0
            detail = (
                f"{ln.label}: {_n(ln.quantity)} × {usd_exact(ln.unit_price_usd)} = {usd_exact(expected)}, but the "
                f"extended price says {usd_exact(ln.extended_usd)}"
            )
            out.append(Finding("extended_mismatch", (ln.id,), max(0.0, gap) * multiplier, detail))
    return out

"""The design stage: Scenario + PriceBook → :class:`Design`, everything bought before a dollar is earned.

Order of work: the platform and the price book with the scenario's overrides → the server counts (in service and
hot spares, counted once here and handed to every module that needs them) → node BoM → storage → fabric (front-end
and out-of-band ports of storage and management feed it, and the PDUs of every rack) → management and site (the
fabric's racks and power feed it; see :func:`_site_and_networks`) → capex lines.

:func:`design_at_count` is the one place this happens, at the scenario's GPU count. :func:`neoplan.design.sizing.design`
chooses the count: the scenario's own, or with ``cluster.size_by: power`` the largest design that fits
``facility.it_power_mw`` (:func:`neoplan.design.sizing.size_to_power`, whose candidates are built here).
:func:`neoplan.evaluate` prices the monthly economics of the :class:`Design`, and :mod:`neoplan.analysis.search` ranks
designs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import ScenarioError
from ..inputs.hardware import Node
from ..inputs.platforms import platform_problems
from ..inputs.pricebook import Platform, PriceBook, PriceBookError, default_platforms, price_book
from ..inputs.scenario import Scenario
from .costs import CostLine, total_usd
from .fabric import FabricDesign, FabricError, design_fabric
from .facility import FacilityDesign, design_facility, site_asks
from .node import compute_servers, node_lines
from .storage import StorageDesign, design_storage

KW_PER_MW = 1000.0


@dataclass(frozen=True)
class Design:
    """One sized design: node, storage, fabric and site of ``scenario``, with its capex lines. USD, counts, kW.

    ``scenario`` is the scenario the design was built for: with ``cluster.size_by: power`` its ``cluster.gpus``
    is the count the sizing chose, and ``envelope`` says how the design fills ``facility.it_power_mw``.
    """

    scenario: Scenario
    book: PriceBook
    """The price book with the scenario's ``prices`` overrides applied."""
    platform: Platform
    servers: int
    """Compute servers in service (NVL72: racks) [count]."""
    spare_servers: int
    """Hot-spare servers bought on top [count]."""
    node_lines: list[CostLine]
    """BoM of one server [USD per server]."""
    oem_default_node_lines: list[CostLine]
    """BoM of one server with the OEM-default options on the same platform and fabric [USD per server]."""
    storage: StorageDesign
    fabric: FabricDesign
    facility: FacilityDesign
    capex_lines: list[CostLine]
    """Every capex line of the cluster [USD]."""
    envelope: Envelope | None = None
    """How the design fills the power envelope (``cluster.size_by: power``); None when sized by GPU count."""

    @property
    def gpus(self) -> int:
        """GPUs in service [count] (hot spares excluded)."""
        return self.scenario.cluster.gpus

    @property
    def installed_servers(self) -> int:
        """Compute servers bought, hot spares included [count]."""
        return self.servers + self.spare_servers

    @property
    def capex_usd(self) -> float:
        """All capex [USD]."""
        return total_usd(self.capex_lines)

    @property
    def it_peak_kw(self) -> float:
        """Peak IT load: compute, network, storage, management and CDU pumps [kW]."""
        return self.facility.it_peak_kw


def design_at_count(scenario: Scenario, book: PriceBook | None = None) -> Design:
    """The design of ``scenario`` at its ``cluster.gpus``, whatever ``cluster.size_by`` says (the count is chosen by
    :func:`neoplan.design.sizing.design`)."""
    try:
        return _design(scenario, book)
    except FabricError as exc:  # an impossible fabric; the message names the field to change
        raise ScenarioError(str(exc)) from None


def scenario_book(scenario: Scenario, book: PriceBook | None = None) -> tuple[Platform, PriceBook]:
    """The scenario's platform (checked to be priced) and ``book`` (default: the shipped one of ``prices_as_of``)
    with the scenario's ``prices`` overrides on top."""
    base_book = book if book is not None else price_book(scenario.prices_as_of)
    platform = _priced_platform(scenario, base_book)
    try:
        return platform, base_book.with_overrides({**base_book.overrides, **scenario.prices})
    except PriceBookError as exc:  # an unknown key or a bad value under prices:
        raise ScenarioError(str(exc)) from None


def _design(scenario: Scenario, base_book: PriceBook | None) -> Design:
    platform, book = scenario_book(scenario, base_book)
    counts = compute_servers(scenario.cluster.servers, scenario.cluster.hot_spare_share)
    servers, spares = counts
    oem_lines = node_lines(Node(preset="oem_default"), scenario.fabric, platform, book)  # with the fabric's NICs
    lines = node_lines(scenario.node, scenario.fabric, platform, book)
    st = scenario.storage
    storage = design_storage(scenario, book, server_model=st.server_model, bytes_per_param=st.bytes_per_param)
    site, fabric = _site_and_networks(scenario, book, storage, counts)
    capex_lines = _scaled(lines, servers + spares) + list(fabric.lines) + list(storage.lines) + list(site.lines)
    return Design(
        scenario=scenario,
        book=book,
        platform=platform,
        servers=servers,
        spare_servers=spares,
        node_lines=lines,
        oem_default_node_lines=oem_lines,
        storage=storage,
        fabric=fabric,
        facility=site,
        capex_lines=capex_lines,
    )


def _site_and_networks(
    scenario: Scenario, book: PriceBook, storage: StorageDesign, counts: tuple[int, int]
) -> tuple[FacilityDesign, FabricDesign]:
    """Site and networks sized together: the site's ports feed the fabric, the fabric's racks and power the site.

    Sized once each, in the order the dependencies run, which gives the fixed point at once: the site asks the
    fabric for the front-end and out-of-band ports of its management nodes and firewalls (fixed counts) and an
    out-of-band port per monitored PDU, two per rack bought; of those racks only the network racks depend on the
    fabric, and they hold its back and front ends, which the PDUs do not change (they reach the out-of-band
    network only). So the fabric is sized first, with the PDUs of the site's other racks and of its own network
    racks, then the site around the fabric's racks and power; the site asks for exactly the ports the fabric has.
    """
    fabric = _networks(scenario, book, storage, counts)
    site = _site(scenario, book, storage, fabric, counts)
    assert site.pdus == fabric.oob.pdu_ports, "the site has other PDUs than the fabric was sized with"
    return site, fabric


def _networks(scenario: Scenario, book: PriceBook, storage: StorageDesign, counts: tuple[int, int]) -> FabricDesign:
    """The fabric around ``storage`` and the site's asks (:func:`~neoplan.design.facility.site_asks`)."""
    f = scenario.facility
    frontend_ports, oob_ports, site_racks = site_asks(
        scenario,
        storage_racks=storage.racks,
        management_nodes=f.management_nodes,
        firewall_pairs=f.firewall_pairs,
        server_counts=counts,
    )
    return design_fabric(
        scenario,
        book,
        frontend_extra_ports=frontend_ports,
        oob_extra_ports=storage.oob_ports + oob_ports,
        site_racks=site_racks,
        storage_ports=storage.frontend_ports,
        storage_port_gbps=storage.port_gbps,
        installed=sum(counts),
    )


def _site(
    scenario: Scenario, book: PriceBook, storage: StorageDesign, fabric: FabricDesign, counts: tuple[int, int]
) -> FacilityDesign:
    """The site around ``storage`` and ``fabric``: it sees the fabric's racks and power only."""
    f = scenario.facility
    racks, power = _network_load(fabric)
    return design_facility(
        scenario,
        book,
        network_power_kw=power,
        network_racks=racks,
        storage_power_kw=storage.power_kw,
        storage_racks=storage.racks,
        storage_servers=storage.servers,
        management_nodes=f.management_nodes,
        firewall_pairs=f.firewall_pairs,
        idle_power_share=f.idle_power_share,
        busy_power_share=f.busy_power_share,
        server_counts=counts,
    )


def _network_load(fabric: FabricDesign) -> tuple[int, float]:
    """(network racks [count], network power [kW]): all that the site sees of the fabric."""
    return fabric.backend.network_racks + fabric.frontend.network_racks, sum(fabric.power_kw.values())


def _platform(scenario: Scenario, platforms: dict[str, Platform]) -> Platform:
    """The scenario's platform, its inputs checked against it: every problem in one message, each with its fix, and
    the one switch that takes them all from the platform (``cluster.platform_defaults``)."""
    key = scenario.cluster.gpu_model
    if key not in platforms:
        raise ScenarioError(f"cluster.gpu_model must be one of {', '.join(sorted(platforms))}, got {key!r}")
    platform = platforms[key]
    held = scenario.cluster.held_back_trays_per_rack
    if held and not platform.rack_scale:
        raise ScenarioError(
            f"cluster.held_back_trays_per_rack applies to rack-scale platforms only; {platform.name} is an HGX "
            f"server, got {held}"
        )
    if held >= platform.compute_trays:
        raise ScenarioError(
            f"cluster.held_back_trays_per_rack must be < {platform.compute_trays} (the compute trays of a rack), "
            f"got {held}"
        )
    c, f = scenario.cluster, scenario.facility
    problems = platform_problems(
        key, c.gpus_per_node, scenario.prices_as_of, f.rack_power_kw, scenario.fabric.nics_per_node
    )
    if problems:
        fix = (
            "the file sets these itself: remove them to take the platform's defaults"
            if c.platform_defaults
            else "or set cluster.platform_defaults: true to take the platform's defaults"
        )
        raise ScenarioError(f"cluster.gpu_model {key} needs: {'; '.join(problems)} ({fix})")
    return platform


def _priced_platform(scenario: Scenario, book: PriceBook) -> Platform:
    """The scenario's platform, checked (:func:`_platform`) and to have a price in ``book`` (overrides included)."""
    platform = _platform(scenario, default_platforms())
    if platform.baseboard_price_key not in book:
        raise ScenarioError(f"prices_as_of: the {book.as_of} price book has no price for {platform.name}")
    return platform


def _scaled(lines: list[CostLine], count: int) -> list[CostLine]:
    """Per-server lines multiplied up to ``count`` servers."""
    return [
        CostLine(ln.category, ln.item, ln.key, ln.quantity * count, ln.unit, ln.unit_price_usd, ln.basis)
        for ln in lines
    ]


@dataclass(frozen=True)
class Envelope:
    """How a power-first design fills its envelope. Power in kW, GPUs as counts."""

    it_power_kw: float
    """The envelope: the IT load the site can deliver (``facility.it_power_mw`` × 1,000)."""
    used_kw: float
    """Peak IT load of the chosen design."""
    unit_gpus: int
    """GPUs added per step: one node (an HGX server, or an NVL72 rack)."""
    unit_name: str
    """``server`` or ``rack``."""
    next_used_kw: float | None
    """Peak IT load of the design one node larger; None when that design cannot be built or exceeds the schema."""
    next_reason: str
    """Why the next step up does not fit, in words."""
    designs_tried: int
    """Candidate designs built by the search."""
    scalable_unit_fill: float | None = None
    """Servers (NVL72: compute trays) in the last scalable unit ÷ a full SU [fraction]; None without SUs."""
    step_loads_kw: dict[str, float] = field(default_factory=dict)
    """What the next node would add, by load (compute, network, storage, management, CDU pumps) [kW]."""

    @property
    def left_kw(self) -> float:
        """Envelope not used [kW]."""
        return self.it_power_kw - self.used_kw

    @property
    def fill_share(self) -> float:
        """Share of the envelope the design uses [fraction]."""
        return self.used_kw / self.it_power_kw

    def sentence(self) -> str:
        """The leftover and why one more node does not fit, as one sentence."""
        used, envelope = self.used_kw / KW_PER_MW, self.it_power_kw / KW_PER_MW
        return (
            f"Sized by power: the design uses {used:,.3f} MW of the {envelope:,g} MW IT envelope "
            f"({100 * self.fill_share:.1f} %), leaving {self.left_kw:,.1f} kW unused; {self.next_reason}."
        )

    def to_dict(self) -> dict[str, object]:
        """JSON-safe summary [MW, kW, fractions, counts]."""
        return {
            "it_power_mw": self.it_power_kw / KW_PER_MW,
            "it_used_mw": self.used_kw / KW_PER_MW,
            "it_left_mw": self.left_kw / KW_PER_MW,
            "fill_share": self.fill_share,
            "unit_gpus": self.unit_gpus,
            "unit": self.unit_name,
            "next_step_it_kw": self.next_used_kw,
            "next_step_adds_kw": dict(self.step_loads_kw),
            "next_step_reason": self.next_reason,
            "scalable_unit_fill": self.scalable_unit_fill,
            "designs_tried": self.designs_tried,
        }

"""Plan from power: the largest design whose peak IT load fits ``facility.it_power_mw``.

The unit of growth is one node: an HGX server (8 GPUs) or a whole NVL72 rack (72 GPUs, its own rack); hot spares
follow ``cluster.hot_spare_share`` as for any GPU count. Every candidate is a full design
(:func:`neoplan.design.cluster.design_at_count`): its back end, front end and out-of-band networks, storage servers
(sized for the read target per GPU), management nodes and firewalls, and the CDU pumps of liquid-cooled racks all count
in its peak IT load, and racks are filled as the rack power allows (``facility.rack_power_kw``, NVL72 one per rack).
A rail-optimized fabric takes a partial last scalable unit with a full set of leaves, so growth needs no rounding
to whole units; that SU's fill is reported. Nothing here divides a budget by kW per GPU.

Search: peak IT load rises with the node count (a node adds its own power and never removes a switch, a storage
server or a rack), so the largest count that fits is bracketed between a count known to fit and one known not to,
and the bracket is closed by secant steps on the load, each clamped inside the bracket (a bisection step when the
secant leaves it). A count whose fabric cannot be built counts as not fitting, with the fabric's reason. The node
count that compute power alone rules out bounds the first bracket. Power in kW unless named ``_mw``.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..errors import ScenarioError
from ..inputs.pricebook import PriceBook
from ..inputs.scenario import Scenario, describe
from .cluster import KW_PER_MW, Design, Envelope, design_at_count
from .fabric.backend import RAIL_OPTIMIZED

MAX_GPUS = 1_000_000
"""Upper bound of ``cluster.gpus`` in the scenario schema."""
POWER_TOLERANCE_KW = 1e-6
"""A design fits when its peak IT load is at most the envelope plus this [kW] (float noise)."""
_LOADS = ("compute_peak_kw", "network_kw", "storage_kw", "management_kw", "cooling_kw")
_LOAD_NAMES = {
    "compute_peak_kw": "compute",
    "network_kw": "network",
    "storage_kw": "storage",
    "management_kw": "management",
    "cooling_kw": "CDU pumps",
}


def with_gpus(scenario: Scenario, gpus: int) -> Scenario:
    """``scenario`` sized to ``gpus`` (a multiple of GPUs per node; not re-validated): ``cluster.gpus`` set, and a
    generated description that counts them (:func:`neoplan.inputs.scenario.describe`, ``sized``)."""
    sized = scenario.model_copy(update={"cluster": scenario.cluster.model_copy(update={"gpus": gpus})})
    if not scenario.description_by_user:
        sized.__dict__["description"] = describe(sized, sized=True)  # as the validator does: no re-validation
    return sized


class _Candidates:
    """Designs of ``scenario`` by node count, each built once; ``fits`` says whether one fits the envelope."""

    def __init__(self, scenario: Scenario, book: PriceBook | None, envelope_kw: float) -> None:
        self.scenario, self.book, self.envelope_kw = scenario, book, envelope_kw
        self.unit = scenario.cluster.gpus_per_node
        self.designs: dict[int, Design | str] = {}

    def get(self, nodes: int) -> Design | str:
        """The design at ``nodes`` nodes, or why it cannot be built (a fabric or schema limit)."""
        if nodes not in self.designs:
            gpus = nodes * self.unit
            if gpus > MAX_GPUS:
                self.designs[nodes] = f"{gpus:,} GPUs would exceed the schema's maximum of {MAX_GPUS:,}"
            else:
                try:
                    self.designs[nodes] = design_at_count(with_gpus(self.scenario, gpus), self.book)
                except ScenarioError as exc:  # a fabric that cannot be built at this size
                    self.designs[nodes] = str(exc)
        return self.designs[nodes]

    def fits(self, nodes: int) -> bool:
        plan = self.get(nodes)
        return isinstance(plan, Design) and plan.it_peak_kw <= self.envelope_kw + POWER_TOLERANCE_KW

    def load_kw(self, nodes: int) -> float | None:
        plan = self.get(nodes)
        return plan.it_peak_kw if isinstance(plan, Design) else None


def largest_fitting_nodes(candidates: _Candidates, node_kw: float, kw_per_node: float | None = None) -> int:
    """The most nodes whose design fits the envelope (≥ 1), by a safeguarded secant search over node counts.

    ``kw_per_node``: peak IT load per node of a similar design [kW], if known; the first guess is then the
    envelope ÷ it (a hint only: every count tried is designed).
    """
    envelope = candidates.envelope_kw
    lo = 1
    hi = min(math.floor(envelope / node_kw + 1e-9) + 1, MAX_GPUS // candidates.unit + 1)  # compute alone: too many
    lo_kw = candidates.load_kw(lo)
    assert lo_kw is not None
    hi_kw: float | None = None
    first = kw_per_node is not None and kw_per_node > 0
    while hi - lo > 1:
        slope = (hi_kw - lo_kw) / (hi - lo) if hi_kw is not None else lo_kw / lo  # kW per node
        guess = lo + math.floor((envelope - lo_kw) / slope) if slope > 0 else (lo + hi) // 2
        if first and kw_per_node is not None:
            guess, first = math.floor(envelope / kw_per_node), False
        if not lo < guess < hi:
            guess = (lo + hi) // 2
        if candidates.fits(guess):
            lo, lo_kw = guess, candidates.load_kw(guess) or lo_kw
            if lo + 1 < hi and not candidates.fits(lo + 1):  # the secant usually lands just below the edge
                hi, hi_kw = lo + 1, candidates.load_kw(lo + 1)
        else:
            hi, hi_kw = guess, candidates.load_kw(guess)
    return lo


def size_to_power(scenario: Scenario, book: PriceBook | None = None, *, kw_per_node: float | None = None) -> Design:
    """The largest design of a scenario whose peak IT load fits the site's power.

    Grows the cluster a node at a time (an HGX server, or a whole NVL72 rack); every candidate is a full design
    whose peak IT load counts its networks, storage, management and CDU pumps, in racks filled as
    ``facility.rack_power_kw`` allows. A safeguarded secant search over node counts finds the largest that fits in
    a handful of designs.

    Parameters
    ----------
    scenario : Scenario
        The plan; ``facility.it_power_mw`` [MW] is the envelope (``cluster.gpus`` is ignored).
    book : PriceBook, optional
        Unit prices [USD per unit]; default the shipped book of ``scenario.prices_as_of`` with its overrides.
    kw_per_node : float, optional
        A first guess of the peak IT load per node [kW] (see :func:`largest_fitting_nodes`); it only speeds the
        search up.

    Returns
    -------
    Design
        The design found; its ``scenario.cluster.gpus`` is the GPU count that fits [count], and its ``envelope``
        (:class:`Envelope`) says the kW used and left and why one more node does not fit.

    Raises
    ------
    ScenarioError
        Naming ``facility.it_power_mw`` when it is not set or not even one node fits.

    Examples
    --------
    >>> import neoplan
    >>> from neoplan.design.sizing import size_to_power
    >>> power_first = {"base": "optimized", "cluster": {"size_by": "power"}, "facility": {"it_power_mw": 10}}
    >>> plan = neoplan.load_scenario(power_first)
    >>> found = size_to_power(plan)
    >>> found.envelope.used_kw <= 10_000 < found.envelope.next_used_kw  # [kW]: one more server would not fit
    True
    >>> round(found.scenario.cluster.gpus, -3)  # about 7,000 H100 in 10 MW of IT load
    7000
    """
    mw = scenario.facility.it_power_mw
    if mw is None:
        raise ScenarioError("facility.it_power_mw must be set when cluster.size_by is power")
    envelope_kw = mw * KW_PER_MW
    candidates = _Candidates(scenario, book, envelope_kw)
    first = candidates.get(1)
    if isinstance(first, str):
        raise ScenarioError(first)
    node = "rack" if first.platform.rack_scale else "server"
    if not candidates.fits(1):
        raise ScenarioError(
            f"facility.it_power_mw must be ≥ {first.it_peak_kw / KW_PER_MW:.3f} MW to feed one {node} of "
            f"{first.platform.name} with its network, storage and management, got {mw:g}"
        )
    nodes = largest_fitting_nodes(candidates, first.platform.node_max_power_kw, kw_per_node)
    chosen = candidates.get(nodes)
    assert isinstance(chosen, Design)
    nxt = candidates.get(nodes + 1)
    envelope = _envelope(chosen, nxt, envelope_kw, node, len(candidates.designs))
    return replace(chosen, envelope=envelope)


def _envelope(chosen: Design, nxt: Design | str, envelope_kw: float, node: str, tried: int) -> Envelope:
    """The envelope summary of ``chosen``, with why the design one node larger (``nxt``) does not fit."""
    left = envelope_kw - chosen.it_peak_kw
    if isinstance(nxt, str):
        reason, next_kw, adds = f"one more {node} cannot be built: {nxt}", None, {}
    else:
        adds = {_LOAD_NAMES[k]: getattr(nxt.facility, k) - getattr(chosen.facility, k) for k in _LOADS}
        step = nxt.it_peak_kw - chosen.it_peak_kw
        parts = ", ".join(f"{v:,.1f} kW {k}" for k, v in adds.items() if abs(v) > 1e-9)
        reason = f"one more {node} would need {step:,.1f} kW ({parts}), more than the {left:,.1f} kW left"
        next_kw = nxt.it_peak_kw
    backend = chosen.fabric.backend
    su_fill = None
    if backend.topology in RAIL_OPTIMIZED and backend.scalable_units > 1:
        per_su = chosen.scenario.fabric.servers_per_su
        su_fill = (backend.servers - (backend.scalable_units - 1) * per_su) / per_su
    return Envelope(
        it_power_kw=envelope_kw,
        used_kw=chosen.it_peak_kw,
        unit_gpus=chosen.scenario.cluster.gpus_per_node,
        unit_name=node,
        next_used_kw=next_kw,
        next_reason=reason,
        designs_tried=tried,
        scalable_unit_fill=su_fill,
        step_loads_kw=adds,
    )


def design(scenario: Scenario, book: PriceBook | None = None) -> Design:
    """The design stage: a scenario's cluster, bill of materials and site, before any money over time.

    Node bill of materials → storage → back-end, front-end and out-of-band fabrics → management and site → capex
    lines, at ``cluster.gpus`` or, when ``cluster.size_by`` is ``power``, the largest count that fits
    ``facility.it_power_mw`` (:func:`size_to_power`). :func:`neoplan.evaluate` prices the design month by month.

    Parameters
    ----------
    scenario : Scenario
        The plan.
    book : PriceBook, optional
        Unit prices [USD per unit]; default the shipped book of ``scenario.prices_as_of`` with the scenario's
        ``prices:`` overrides.

    Returns
    -------
    Design
        The node, storage, fabric and facility designs and every capex line [USD].

    Raises
    ------
    ScenarioError
        For a design the inputs make impossible, naming the field; an impossible fabric's
        :class:`~neoplan.design.fabric.FabricError` is passed on as one.

    Examples
    --------
    >>> import neoplan
    >>> from neoplan.design.sizing import design
    >>> reference = design(neoplan.load_scenario("reference"))  # 1,024 H100, non-blocking
    >>> reference.fabric.backend.leaf_switches, reference.fabric.backend.spine_switches
    (32, 16)
    >>> design(neoplan.load_scenario("optimized")).fabric.backend.spine_switches  # 2:1 at the leaf
    8
    """
    if scenario.cluster.size_by == "power":
        return size_to_power(scenario, book)
    return design_at_count(scenario, book)

"""Scenario: every input of a plan, validated, with units in field names.

A scenario file (YAML or JSON) may name a preset with ``base:`` (a file in
``data/scenarios/``); every other key overrides that preset by deep merge::

    base: optimized
    cluster: {gpus: 2048}
    pricing: {usd_per_gpu_hour: 2.2}

Conventions: money in nominal USD, rates as fractions per year unless named
``_per_month``, time in months unless the name says otherwise. Each field's
``description`` is the help text of its widget in the app. Defaults that are
assumptions about the world (colocation and power prices, staff cost, rates,
durations) are read from ``data/assumptions.csv`` with their source, date and
basis (``assumed("facility.pue")``); the rest are the plan's own choices.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, ValidationInfo, field_validator, model_validator
from pydantic.fields import FieldInfo

from ..errors import ScenarioError as ScenarioError  # re-exported: the one input-error type
from ..plaintext import text_problem
from .business import Customers, Financing, Operations, Opex, Pricing, Timeline
from .fields import NODE_PRESET_LABELS, SCHEMA_VERSION, TOPOLOGY_LABELS, PriceKey, UnitPriceUsd, _Section
from .hardware import Cluster, Fabric, Facility, Node, Storage
from .pricebook import default_platforms
from .regions import fill_site


class Scenario(_Section):
    """A whole plan: cluster, node, fabric, storage, facility, opex, financing, pricing, timeline."""

    schema_version: int = Field(SCHEMA_VERSION, ge=1, le=SCHEMA_VERSION, description="Scenario file format version.")
    name: str = Field("untitled", max_length=120, description="Scenario name.")
    description: str = Field(
        "",
        max_length=2000,
        description="What the plan is. Generated from the plan (platform, GPUs, fabric, price book) and kept true as "
        "it changes, unless description_by_user.",
    )
    description_by_user: bool = Field(
        False,
        description="True: description is the user's own text, kept as written; false: it is generated from the plan "
        "(a file that gives a description without this flag counts as the user's).",
    )
    base: str | None = Field(None, max_length=64, description="Preset from data/scenarios/ this scenario started from.")
    cluster: Cluster = Field(default_factory=Cluster, description="Cluster size and GPU platform.")
    node: Node = Field(default_factory=Node, description="Compute-node bill of materials.")
    fabric: Fabric = Field(default_factory=Fabric, description="Networks.")
    storage: Storage = Field(default_factory=Storage, description="Shared storage.")
    facility: Facility = Field(default_factory=Facility, description="Site and power.")
    opex: Opex = Field(default_factory=Opex, description="Running costs.")
    financing: Financing = Field(default_factory=Financing, description="Debt and equity.")
    pricing: Pricing = Field(default_factory=Pricing, description="GPU rental pricing.")
    timeline: Timeline = Field(default_factory=Timeline, description="Schedule and horizon.")
    operations: Operations = Field(
        default_factory=Operations, description="Failures, recovery, performance and readiness."
    )
    customers: Customers = Field(
        default_factory=Customers, description="Market tier, churn at renewal and the acceptance test."
    )
    prices_as_of: Literal["2024-10", "2026-11"] = Field(
        "2024-10",
        description="Date of the hardware price book: 2024-10 (the article's) or 2026-11 (Blackwell, dearer DRAM "
        "and NAND); price overrides apply on top.",
    )
    prices: dict[PriceKey, UnitPriceUsd] = Field(
        default_factory=dict,
        max_length=1000,
        description="Overrides of price-book unit prices by key [USD per unit].",
    )

    @field_validator("name", "description")
    @classmethod
    def _plain_text(cls, text: str, info: ValidationInfo) -> str:
        """Names are one line; neither holds control, bidirectional or zero-width characters (they would reorder or
        hide text where it is shown, or drive a terminal that prints it)."""
        problem = text_problem(text, lines=info.field_name == "description")
        if problem:
            raise ValueError(problem)
        return text

    @model_validator(mode="after")
    def _power_plan_has_an_envelope(self) -> Scenario:
        if self.cluster.size_by == "power" and self.facility.it_power_mw is None:
            raise ValueError(
                "facility.it_power_mw must be set (the IT load the site can deliver, in MW) when cluster.size_by is "
                "power"
            )
        return self

    @model_validator(mode="before")
    @classmethod
    def _site_from_its_region(cls, data: Any) -> Any:
        """The site fields the scenario does not set take its region's values as of its book date
        (:mod:`neoplan.inputs.regions`)."""
        return fill_site(data) if isinstance(data, Mapping) else data

    @model_validator(mode="before")
    @classmethod
    def _description_given_is_the_users(cls, data: Any) -> Any:
        """A description given without ``description_by_user`` is the user's own text (presets give none)."""
        if isinstance(data, Mapping) and "description_by_user" not in data and data.get("description"):
            return {**data, "description_by_user": True}
        return data

    @model_validator(mode="after")
    def _description_true_to_the_plan(self) -> Scenario:
        if not self.description_by_user:
            self.__dict__["description"] = describe(self)  # not an assignment: no re-validation loop
        return self

    @model_validator(mode="after")
    def _frontend_ports_exist(self) -> Scenario:
        ports = 2 * (self.node.dpus + self.node.frontend_nics)  # BlueField-3 and ConnectX cards are dual-port
        if self.fabric.frontend.ports_per_node > ports:
            raise ValueError(
                f"fabric.frontend.ports_per_node must be ≤ {ports} (the dual-port DPUs and front-end NICs of "
                f"the node), got {self.fabric.frontend.ports_per_node}"
            )
        return self

    def to_yaml(self) -> str:
        """The scenario as YAML (all fields explicit)."""
        # allow_unicode=False: PyYAML writes NEL/LS/PS raw and reads them back as line breaks
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False, allow_unicode=False)

    def to_json(self) -> str:
        """The scenario as indented JSON (all fields explicit)."""
        return self.model_dump_json(indent=2)


def field_of(path: str) -> FieldInfo:
    """The pydantic FieldInfo of a dotted Scenario field path such as ``fabric.frontend.port_gbps`` (KeyError for a
    path the scenario has not got)."""
    model: Any = Scenario
    info: FieldInfo | None = None
    for part in path.split("."):
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise KeyError(path)
        info = model.model_fields[part]
        model = info.annotation
    assert info is not None
    return info


def describe(scenario: Scenario, *, sized: bool = False) -> str:
    """One line saying what the plan is, from its inputs: platform and GPUs, node BoM, back-end fabric, price book.

    ``2,048 GPUs in 256 × NVIDIA HGX B200 8-GPU (SXM6) · Optimized BoM · back end: Virtual modular switch, 2:1,
    400G · hardware prices as of 2026-11``. An NVL72 plan counts racks and compute trays. A plan sized by power
    (``cluster.size_by: power``) has no GPU count until it is sized: its inputs say the platform and the envelope
    (``NVIDIA GB200 NVL72 rack …, the largest design within 10 MW of IT power``); ``sized`` says ``cluster.gpus``
    is the count the sizing found (:func:`neoplan.design.sizing.with_gpus`), which is then counted as above.
    """
    c, f = scenario.cluster, scenario.fabric
    platform = default_platforms().get(c.gpu_model)
    name = platform.name if platform is not None else c.gpu_model
    nodes = c.gpus // c.gpus_per_node
    envelope = f"{scenario.facility.it_power_mw:,g} MW" if scenario.facility.it_power_mw is not None else "the"
    if c.size_by == "power" and not sized:
        size = f"{name}: the largest design within {envelope} of IT power"
    elif platform is not None and platform.rack_scale:
        size = f"{c.gpus:,} GPUs in {nodes:,} × {name}, {nodes * platform.compute_trays:,} compute trays"
    else:
        size = f"{c.gpus:,} GPUs in {nodes:,} × {name}"
    if c.size_by == "power" and sized:
        size += f", sized to {envelope} of IT power"
    ratio = "non-blocking" if f.oversubscription == 1 else f"{f.oversubscription:g}:1"
    fabric = f"back end: {TOPOLOGY_LABELS[f.topology]}, {ratio}, {f.nic_gbps}G"
    book = f"hardware prices as of {scenario.prices_as_of}"
    return f"{size} · {NODE_PRESET_LABELS[scenario.node.preset]} · {fabric} · {book}"

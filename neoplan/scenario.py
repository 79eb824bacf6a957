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

import copy
import gc
import json
import math
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic.fields import FieldInfo

from .errors import ScenarioError as ScenarioError  # re-exported: the one input-error type
from .files import write_atomic
from .limits import SCENARIO_FILE_BYTES, SCENARIO_FILE_MB, SCENARIO_MAX_DEPTH, SCENARIO_MAX_NODES, size_text
from .plaintext import text_problem
from .pricebook import DATA_DIR, MAX_UNIT_PRICE_USD, assumed, assumed_count, default_platforms, default_rentals

SCHEMA_VERSION = 1
SCENARIOS_DIR = DATA_DIR / "scenarios"
NODE_PRESETS_FILE = DATA_DIR / "node_presets.yaml"
MAX_FILE_BYTES = SCENARIO_FILE_BYTES
_PRESET_NAME = re.compile(r"^[a-z0-9][a-z0-9_\-]{0,63}$")

PriceKey = Annotated[str, Field(min_length=1, max_length=64)]
UnitPriceUsd = Annotated[float, Field(ge=0, le=MAX_UNIT_PRICE_USD)]

Topology = Literal["reference", "tor", "vms", "modular", "spectrum_x"]
NodePreset = Literal["oem_default", "optimized"]
TOPOLOGY_LABELS: dict[str, str] = {
    "reference": "Reference (NVIDIA RA, optics everywhere)",
    "tor": "Top-of-rack",
    "vms": "Virtual modular switch",
    "modular": "Modular chassis (CS9500 class)",
    "spectrum_x": "Spectrum-X Ethernet (SN5600 + SuperNICs)",
}
"""Names of the back-end designs for people (``fabric.topology``)."""
NODE_PRESET_LABELS: dict[str, str] = {"oem_default": "OEM default BoM", "optimized": "Optimized BoM"}
"""Names of the node presets for people (``node.preset``)."""
CpuTier = Literal["entry", "mid", "top"]


_NUMBER_TYPES: tuple[Any, ...] = (int, float, int | None, float | None)


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_booleans_for_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        """``true``/``false`` where a number belongs is a mistake (pydantic would read it as 1/0)."""
        field = cls.model_fields.get(info.field_name or "")
        if field is None:
            return value
        if isinstance(value, bool) and field.annotation in _NUMBER_TYPES:
            raise ValueError(f"must be a number, got {str(value).lower()}")
        if info.field_name == "prices" and isinstance(value, Mapping):
            for key, price in value.items():
                if isinstance(price, bool):
                    raise ValueError(f"prices.{_loc_part(key)} must be a number, got {str(price).lower()}")
        return value


class Cluster(_Section):
    """What is being built."""

    size_by: Literal["gpus", "power"] = Field(
        "gpus",
        description="What fixes the cluster's size: gpus (cluster.gpus, the power follows) or power (the largest "
        "design whose peak IT load fits facility.it_power_mw; cluster.gpus is then what the sizing finds).",
    )
    gpus: int = Field(
        1024,
        ge=8,
        le=1_000_000,
        description="GPUs in the cluster [count], a multiple of GPUs per node; found by the sizing when size_by is "
        "power.",
    )
    gpu_model: str = Field(
        "h100-sxm",
        max_length=64,
        description="GPU platform key from data/gpu_platforms.csv (h100-sxm, h200-sxm, b200-sxm, b300-sxm, "
        "gb200-nvl72, gb300-nvl72).",
    )
    gpus_per_node: int = Field(
        8,
        ge=1,
        le=72,
        description="GPUs per node [count]: 8 for an HGX server, 72 for a rack-scale NVL72 system (one rack).",
    )
    hot_spare_share: float = Field(
        0.0,
        ge=0,
        le=0.5,
        json_schema_extra={"unit": "fraction"},
        description="Hot-spare servers bought on top, as a share of servers [fraction]; they earn nothing.",
    )
    platform_defaults: bool = Field(
        False,
        description="True: the platform's defaults (data/platform_defaults.csv: price book, rental price, rack "
        "power, back-end NIC generation, storage per GPU) replace the preset's for every input the file does not "
        "set itself; GPUs per node follow the platform and GPUs round up to whole nodes unless the file sets them.",
    )

    held_back_trays_per_rack: int = Field(
        0,
        ge=0,
        le=8,
        description="Compute trays of each rack-scale (NVL72) rack kept out of sale as in-rack spares [count]; they "
        "cover the first trays down in their rack. 0 for HGX servers.",
    )

    @model_validator(mode="after")
    def _whole_servers(self) -> Cluster:
        if self.gpus % self.gpus_per_node and self.size_by == "gpus":  # sized by power: found in whole nodes
            n = self.gpus_per_node
            below, above = max(n, self.gpus // n * n), (self.gpus // n + 1) * n
            raise ValueError(
                f"cluster.gpus must be a multiple of cluster.gpus_per_node ({n}): {below:,} or {above:,}, "
                f"got {self.gpus:,}"
            )
        return self

    @property
    def servers(self) -> int:
        """Compute servers in service [count] (hot spares excluded)."""
        return self.gpus // self.gpus_per_node


class Node(_Section):
    """Compute-node bill of materials. Fields left out are filled from ``preset``."""

    preset: NodePreset = Field(
        "optimized", description="Starting point: oem_default (the OEM's quote) or optimized (the article's BoM)."
    )
    cpu_tier: CpuTier = Field("mid", description="CPU tier of both sockets: entry, mid (recommended) or top bin.")
    cpu_sockets: int = Field(2, ge=1, le=2, description="CPU sockets per server [count].")
    ram_tb: float = Field(1.0, ge=0.25, le=8, description="DDR5 system memory per server [TB], in 64 GB DIMMs.")
    nvme_tb: float = Field(30.0, ge=0, le=500, description="Local NVMe capacity per server [TB], in 7.68 TB drives.")
    dpus: int = Field(
        0, ge=0, le=2, description="BlueField-3 DPUs per server [count]; they also serve as front-end NICs."
    )
    frontend_nics: int = Field(1, ge=0, le=2, description="Plain dual-port ConnectX front-end NICs per server [count].")
    warranty_years: int = Field(3, ge=0, le=7, description="OEM hardware warranty bought with the server [years].")

    @model_validator(mode="before")
    @classmethod
    def _fill_from_preset(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            preset = data.get("preset", "optimized")
            presets = node_presets()
            if isinstance(preset, str) and preset in presets:  # anything else fails as node.preset
                return {**presets[preset], **data}
        return data

    @model_validator(mode="after")
    def _has_frontend(self) -> Node:
        if self.dpus + self.frontend_nics < 1:
            raise ValueError("node.frontend_nics must be ≥ 1 when node.dpus is 0 (a server needs a front-end port)")
        return self


class Frontend(_Section):
    """Front-end Ethernet: internet, scheduler, storage, images."""

    port_gbps: Literal[100, 200, 400] = Field(100, description="Speed of each front-end port on a server [Gbit/s].")
    ports_per_node: int = Field(2, ge=1, le=4, description="Front-end ports per server [count].")
    switch_class: Literal["generic", "spectrum"] = Field(
        "generic", description="generic Ethernet (Arista, Cisco, ODM) or NVIDIA Spectrum SN4600 class."
    )
    oversubscription: float = Field(
        1.0, ge=1, le=16, description="Front-end leaf downlinks per uplink, N:1 [ratio]; 1 = non-blocking."
    )
    server_cable: Literal["optics", "dac"] = Field(
        "optics",
        description="optics (leaves in network racks) or dac (a top-of-rack leaf per compute rack, copper to servers).",
    )
    match_storage_ports: bool = Field(
        False,
        description="True: front-end switches as fast as the storage servers' NICs (storage at full speed); "
        "False: storage runs at port_gbps and storage servers are added until the read target holds.",
    )


class Oob(_Section):
    """Out-of-band 1 GbE management network (BMCs, PDUs, switches)."""

    switch_class: Literal["generic", "spectrum"] = Field(
        "generic", description="generic 1 GbE switch or NVIDIA Spectrum SN2201."
    )
    racks_per_switch: int | None = Field(
        None,
        ge=1,
        le=48,
        description="Compute racks sharing one 48-port access switch [count]; empty = as many as their ports "
        "fit (1 = a switch in every rack).",
    )


class Fabric(_Section):
    """Back-end GPU fabric (InfiniBand NDR/XDR or Spectrum-X Ethernet), front end and out-of-band."""

    topology: Topology = Field(
        "vms",
        description="reference (NVIDIA RA, optics everywhere), tor (top-of-rack), "
        "vms (virtual modular switch), modular (chassis) or spectrum_x (Ethernet, SN5600 + SuperNICs).",
    )
    oversubscription: float = Field(
        2.0, ge=1, le=16, description="Leaf downlinks per uplink, N:1 [ratio]; 1 = non-blocking."
    )
    nics_per_node: Literal[4, 8] = Field(
        8, description="Back-end NICs per server [count]; 4 halves back-end bandwidth."
    )
    nic_gbps: Literal[400, 800] = Field(
        400,
        description="Generation: speed of each back-end NIC port [Gbit/s] (400 = NDR / ConnectX-7 / BlueField-3, "
        "800 = XDR / ConnectX-8); picks the NIC, switch and optics.",
    )
    switch_model: str = Field(
        "auto",
        max_length=64,
        description="Back-end switch key from the network catalogue, or auto: qm9700 (Quantum-2 64×400G) or "
        "q3400 (Quantum-X800 144×800G) for InfiniBand, sn5600 (Spectrum-4 64×800G) for spectrum_x.",
    )
    servers_per_su: int = Field(32, ge=1, le=256, description="Servers per scalable unit (pod) [count].")
    leaf_spine_cable: Literal["dac", "acc"] = Field(
        "dac", description="Copper for leaf→spine in vms: passive DAC or active copper (ACC)."
    )
    subnet_manager: Literal["ufm", "opensm"] = Field(
        "ufm", description="UFM (licence per NIC endpoint) or open-source OpenSM."
    )
    frontend: Frontend = Field(default_factory=Frontend, description="Front-end Ethernet network.")
    oob: Oob = Field(default_factory=Oob, description="Out-of-band management network.")


class Storage(_Section):
    """Shared networked NVMe storage."""

    usable_pb: float = Field(2.0, ge=0, le=1000, description="Usable capacity [PB].")
    vendor_class: Literal["licensed", "self_built"] = Field(
        "licensed",
        description="licensed (Weka/Vast-like software per TB) or self_built (NFS class; small-file slowness)",
    )
    licence_term: Literal["perpetual", "yearly"] = Field(
        "perpetual", description="Software licence bought up front or paid yearly."
    )
    min_servers: int = Field(8, ge=1, le=1000, description="Minimum storage servers for high availability [count].")
    network: Literal["frontend", "backend"] = Field(
        "frontend", description="Network carrying storage traffic; the article advises the front end."
    )
    target_gbps_per_gpu: float = Field(
        2.0, ge=0, le=100, description="Aggregate read throughput wanted per GPU [Gbit/s]."
    )
    server_model: str | None = Field(
        None,
        max_length=64,
        description="Storage-server key from data/storage_catalogue.csv; empty = the vendor class's default.",
    )
    bytes_per_param: float = Field(
        14.0,
        ge=0.5,
        le=100,
        description="Checkpoint size per model parameter [bytes] (bf16 weights + fp32 Adam = 14).",
    )
    checkpoint_params_billion: float = Field(
        70.0, ge=0, le=100_000, description="Model size for the checkpoint-time check [billion parameters]."
    )


class Facility(_Section):
    """Racks, power and colocation."""

    rack_power_kw: float = Field(41.0, ge=5, le=300, description="Power available per compute rack [kW].")
    servers_per_rack: int = Field(
        4,
        ge=1,
        le=32,
        description="Most HGX servers per 42U compute rack by space [count]; fewer go in when the rack power "
        "cannot feed them (an NVL72 rack is one node).",
    )
    pue: float = Field(
        assumed("facility.pue"),
        ge=1,
        le=3,
        description="Power usage effectiveness: facility power ÷ IT power [ratio].",
    )
    colo_usd_per_kw_month: float = Field(
        assumed("facility.colo_usd_per_kw_month"),
        ge=0,
        le=2000,
        description="Colocation price per contracted IT kW per month [USD/kW-month].",
    )
    electricity_usd_per_kwh: float = Field(
        assumed("facility.electricity_usd_per_kwh"),
        ge=0,
        le=2,
        description="Electricity price per kWh consumed at the meter [USD/kWh].",
    )
    management_nodes: int = Field(
        3, ge=3, le=100, description="CPU management nodes [count], ≥ 3; two get a back-end ConnectX for HA UFM."
    )
    firewall_pairs: int = Field(1, ge=0, le=20, description="Physical firewall HA pairs [count].")
    idle_power_share: float = Field(
        assumed("facility.idle_power_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Server draw when idle [fraction of max power].",
    )
    busy_power_share: float = Field(
        assumed("facility.busy_power_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Server draw when busy [fraction of max power].",
    )
    electricity_in_colo: bool = Field(False, description="True if the colocation price already includes electricity.")
    it_power_mw: float | None = Field(
        None,
        ge=0.01,
        le=2000,
        description="IT load the site can deliver [MW]: the envelope a power-first plan (cluster.size_by power) "
        "fills with the largest design whose peak IT load (servers, network, storage, management, CDU pumps) fits; "
        "empty = no envelope (size by GPUs).",
    )
    cdu_power_share: float = Field(
        assumed("facility.cdu_power_share"),
        ge=0,
        le=0.2,
        json_schema_extra={"unit": "fraction"},
        description="Pump power of the coolant distribution units of liquid-cooled racks [fraction of the heat "
        "they remove]; counted as IT load.",
    )

    cooling_plant: Literal["tenant", "colocation"] = Field(
        "tenant",
        description="Who supplies the CDUs and the facility-water loop of liquid-cooled racks: tenant (the plan buys "
        "CDUs and loop hook-ups as capex) or colocation (no such capex; the colocation charges the liquid-cooling "
        "premium on the liquid-cooled racks' kW).",
    )
    liquid_colo_premium: float = Field(
        assumed("facility.liquid_colo_premium"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Colocation price premium per kW of liquid-cooled racks when the colocation supplies their "
        "cooling plant [fraction of the colocation price].",
    )
    air_cooled_rack_limit_kw: float = Field(
        assumed("facility.air_cooled_rack_limit_kw"),
        ge=5,
        le=100,
        description="Highest compute-rack power air cooling handles; above it the result warns [kW].",
    )

    @model_validator(mode="after")
    def _idle_below_busy(self) -> Facility:
        if self.idle_power_share > self.busy_power_share:
            raise ValueError(
                f"facility.idle_power_share must be ≤ facility.busy_power_share ({self.busy_power_share}), "
                f"got {self.idle_power_share}"
            )
        return self


class Opex(_Section):
    """Running costs other than power and colocation."""

    staff_fte_per_1000_gpus: float = Field(
        assumed("opex.staff_fte_per_1000_gpus"),
        ge=0,
        le=100,
        description="Operations staff per 1,000 GPUs [FTE].",
    )
    staff_loaded_cost_usd: float = Field(
        assumed("opex.staff_loaded_cost_usd"),
        ge=0,
        le=5_000_000,
        description="Fully loaded cost of one FTE per year [USD].",
    )
    support_rate: float = Field(
        assumed("opex.support_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Hardware support after warranty, per year [fraction of hardware capex].",
    )
    remote_hands_usd_per_hour: float = Field(
        assumed("opex.remote_hands_usd_per_hour"),
        ge=0,
        le=10_000,
        description="Colocation remote-hands labour per hour, billed for each hardware repair [USD/hour].",
    )
    insurance_rate: float = Field(
        assumed("opex.insurance_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Insurance per year [fraction of capex].",
    )
    ai_enterprise: bool = Field(
        False, description="Pay NVIDIA AI Enterprise per GPU per year (the article advises against)."
    )
    transit_usd_per_month: float = Field(
        assumed("opex.transit_usd_per_month"),
        ge=0,
        le=10_000_000,
        description="Internet transit and cross-connects [USD/month].",
    )
    ufm_subscription: bool = Field(
        False,
        description="Pay UFM yearly per endpoint instead of the up-front licence (when the subnet manager is UFM).",
    )
    sga_rate: float = Field(
        assumed("opex.sga_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Sales, general and administrative costs [fraction of revenue].",
    )
    opensm_engineering_fte: float = Field(
        assumed("opex.opensm_engineering_fte"),
        ge=0,
        le=10,
        description="Engineering time an OpenSM subnet manager needs instead of a UFM licence (REST wrapper, fabric "
        "tooling, upgrades) [FTE]; paid at the staff cost, as software opex.",
    )
    escalation_per_year: float = Field(
        assumed("opex.escalation_per_year"),
        ge=0,
        le=0.3,
        json_schema_extra={"unit": "fraction"},
        description="Yearly rise of every opex line but SG&A, in steps by project year: year 1 (months 0–11) at "
        "the scenario's prices, each later year × (1 + this) [fraction per year]; nominal, like the hurdle rate.",
    )


class Financing(_Section):
    """How the capex is paid for."""

    debt_share: float = Field(
        0.6, ge=0, le=1, json_schema_extra={"unit": "fraction"}, description="Share of capex funded by debt [fraction]."
    )
    interest_rate: float = Field(
        assumed("financing.interest_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Nominal annual interest rate on the debt, compounding monthly (rate ÷ 12 a month), before the "
        "credit spread [fraction].",
    )
    credit_spread: float = Field(
        assumed("financing.credit_spread"),
        ge=0,
        le=0.3,
        json_schema_extra={"unit": "fraction"},
        description="Credit spread the borrower pays on top of the interest rate: the all-in rate is interest "
        "rate + spread, nominal a year, compounding monthly [fraction].",
    )
    term_months: int = Field(
        assumed_count("financing.term_months"),
        ge=1,
        le=360,
        description="Debt term from the first draw to maturity [months].",
    )
    grace_months: int = Field(6, ge=0, le=120, description="Interest-only months before repayment starts [months].")
    amortization: Literal["annuity", "straight_line", "sculpted"] = Field(
        "annuity",
        description="Repayment profile: annuity (level service), straight line (level principal) or sculpted to "
        "the base case's CFADS at the target DSCR; the schedule is fixed at financial close.",
    )
    sizing: Literal["capex_share", "contracted_revenue"] = Field(
        "capex_share",
        description="How the loan is sized at financial close: capex_share (debt share × capex) or "
        "contracted_revenue (at most the take-or-pay reserved revenue of the first contracts, less its share of "
        "opex, discounted at the loan rate ÷ target DSCR, as delayed-draw loans against customer contracts are).",
    )
    dsra_months: int = Field(
        assumed_count("financing.dsra_months"),
        ge=0,
        le=24,
        description="Debt service reserve: this many months of the largest scheduled debt service, funded by "
        "equity at financial close (the first draw), held in cash without interest and released when the loan is "
        "repaid [months].",
    )
    target_dscr: float = Field(
        assumed("financing.target_dscr"),
        ge=1,
        le=10,
        description="Debt-service cover a sculpted loan is sized at: service = CFADS ÷ this, the loan no larger "
        "than that service repays by maturity [ratio].",
    )
    covenant_dscr: float = Field(
        assumed("financing.covenant_dscr"),
        ge=1,
        le=10,
        description="Minimum DSCR the loan covenant allows in any year of operation; below it the loan is in "
        "breach [ratio].",
    )
    upfront_fee_rate: float = Field(
        assumed("financing.upfront_fee_rate"),
        ge=0,
        le=0.2,
        json_schema_extra={"unit": "fraction"},
        description="Arrangement fee on the debt [fraction of principal].",
    )
    capitalize_idc: bool = Field(
        True,
        description="Add interest during construction to the loan instead of paying it (for tax it is capitalised "
        "into the asset either way and depreciated with it).",
    )
    hurdle_rate: float = Field(
        assumed("financing.hurdle_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Discount rate for NPV and TCO capital recovery (WACC) [fraction per year].",
    )
    tax_rate: float = Field(
        assumed("financing.tax_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Corporate income tax rate [fraction].",
    )
    tax_period_months: int = Field(
        assumed_count("financing.tax_period_months"),
        ge=1,
        le=12,
        description="Tax assessment period: 12 = tax years (project years from the purchase order; each year's "
        "net taxable income is taxed, losses netted within the year and carried forward, the tax paid as it "
        "accrues, so a later loss in the year gives back tax paid earlier in it); 1 = each month taxed on its own, "
        "losses carried forward [months].",
    )
    tax_depreciation: Literal["straight_line", "macrs_5"] = Field(
        "straight_line",
        description="Tax depreciation of the hardware (and capitalised IDC), apart from the book's straight line "
        "over the useful life: straight_line over the tax life, or macrs_5 (US 5-year property, half-year "
        "convention, IRS Pub 946 Table A-1: 20, 32, 19.2, 11.52, 11.52, 5.76 % in the 6 tax years from go-live).",
    )
    tax_life_months: int | None = Field(
        None,
        ge=12,
        le=360,
        description="Tax life of straight-line tax depreciation [months]; empty = the useful life.",
    )

    @model_validator(mode="after")
    def _tax_period_is_a_year_or_a_month(self) -> Financing:
        if self.tax_period_months not in (1, 12):
            raise ValueError(
                "financing.tax_period_months must be 12 (tax years) or 1 (each month on its own), "
                f"got {self.tax_period_months}"
            )
        return self

    @model_validator(mode="after")
    def _grace_within_term(self) -> Financing:
        if self.grace_months >= self.term_months:
            raise ValueError(
                f"financing.grace_months must be < financing.term_months ({self.term_months}), got {self.grace_months}"
            )
        return self


class TokenPrices(_Section):
    """Token list prices, per million tokens; empty = the workload's reference price from data/token_prices.csv."""

    input: float | None = Field(
        None,
        ge=0,
        le=1000,
        description="Price of a million input (prompt) tokens at go-live [USD]; empty = the median list price of the "
        "workload's model in data/token_prices.csv.",
    )
    output: float | None = Field(
        None,
        ge=0,
        le=1000,
        description="Price of a million output (generated) tokens at go-live [USD]; empty = the median list price of "
        "the workload's model in data/token_prices.csv.",
    )


class Pricing(_Section):
    """What customers pay."""

    usd_per_gpu_hour: float = Field(
        default_rentals()["h100-sxm"].usd_per_gpu_hour,
        ge=0,
        le=100,
        description="On-demand price of a GPU-hour at go-live [USD/GPU-hour]; default the H100 neocloud on-demand "
        "index of 2026-10 (the on-demand row of data/rental_contracts.csv).",
    )
    utilization: float = Field(
        assumed("pricing.utilization"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of all sellable GPU-hours customers use at steady state, reserved capacity included "
        "[fraction]. On demand sells what exceeds the reserved share; reserved capacity is paid for whether used or "
        "not, so billed hours never fall below the reserved share.",
    )
    reserved_share: float = Field(
        assumed("pricing.reserved_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of sellable GPUs under take-or-pay contracts, paid for from go-live whether used or "
        "not; each renewal re-prices to the then-market price [fraction].",
    )
    reserved_price_multiple: float | None = Field(
        None,
        ge=0,
        le=5,
        description="Reserved price as a multiple of the headline price [ratio]; empty = the platform's contract "
        "price for the reserved term ÷ its on-demand price (data/rental_contracts.csv: 1- and 3-year rows, a term "
        "between them interpolated geometrically).",
    )
    reserved_usd_per_gpu_hour: float | None = Field(
        None,
        ge=0,
        le=100,
        description="Pinned price of the first reserved contracts [USD/GPU-hour]; renewals re-price to the market "
        "(multiple × headline × the price path to that date); empty = multiple × headline.",
    )
    reserved_term_months: int = Field(
        assumed_count("pricing.reserved_term_months"),
        ge=1,
        le=120,
        description="Length of reserved contracts before renewal at the then-market price: the headline price "
        "along the price path to that date × the reserved multiple; 12 and 36 months take the 1- and 3-year "
        "contract prices [months].",
    )
    on_demand_price_multiple: float = Field(
        1.0, ge=0, le=5, description="On-demand price as a multiple of the headline price [ratio]."
    )
    price_decline_per_year: float | None = Field(
        None,
        ge=0,
        le=0.95,
        json_schema_extra={"unit": "fraction"},
        description="Flat yearly fall of on-demand and renewal prices [fraction]; empty = the platform "
        "generation's curve by year of age (data/price_curves.csv), the age at go-live taken from the price "
        "book's date plus the go-live month.",
    )
    ramp_months: int = Field(
        assumed_count("pricing.ramp_months"),
        ge=0,
        le=36,
        description="Months after go-live to reach steady utilization [months].",
    )
    sell: Literal["gpu_hours", "tokens", "mix"] = Field(
        "gpu_hours",
        description="What the cluster sells: gpu_hours (rented GPUs), tokens (served through an API, priced per "
        "million tokens) or mix (token_share of the GPU-hours served as tokens, the rest rented); both go through "
        "the same contract book and utilization.",
    )
    token_share: float = Field(
        0.5,
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of the sellable GPU-hours served as tokens when sell is mix [fraction].",
    )
    workload: str = Field(
        "llama70b-chat",
        max_length=64,
        description="What is served: a key of data/workloads.csv (llama70b-chat, llama405b-long, llama8b-summarize, "
        "deepseek-r1-reasoning, gpt-oss-120b, …): the model, its precision and the request's input/output tokens.",
    )
    serving_scenario: Literal["offline", "server", "interactive"] = Field(
        "interactive",
        description="Latency the throughput is measured at (data/inference_throughput.csv): interactive (MLPerf's "
        "tighter p99 limits, 25-70 tokens/s per user: the chat speed API list prices are sold at), server (looser "
        "limits, Llama 70B at 5-8 tokens/s per user) or offline (batch, no bound); a platform without an interactive "
        "result takes its server rate × a sibling platform's interactive ÷ server ratio "
        "(data/inference_derivations.csv).",
    )
    serving_load_factor: float = Field(
        assumed("pricing.serving_load_factor"),
        gt=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Tokens served on average as a share of the published benchmark rate at the serving latency "
        "[fraction]: a fleet sized for its busiest hour serves less the rest of the day and keeps headroom for "
        "bursts; tokens only, before utilization and the contract book. "
        f"{assumed('pricing.serving_load_factor'):g} from DeepSeek's published day of serving (2025-03).",
    )
    usd_per_million_tokens: TokenPrices = Field(
        default_factory=TokenPrices,
        description="Token prices per million input and output tokens at go-live [USD]; a request of the workload's "
        "shape pays input × input price + output × output price.",
    )
    token_price_decline_per_year: float | None = Field(
        None,
        ge=0,
        le=0.95,
        json_schema_extra={"unit": "fraction"},
        description="Yearly fall of token prices [fraction]; empty = the same-model trend in "
        "data/token_price_trends.csv (Llama 70B class: 45 % a year; DeepSeek-R1: 4 %).",
    )
    sla_credit_share: float = Field(
        assumed("pricing.sla_credit_share"),
        ge=0,
        le=0.5,
        json_schema_extra={"unit": "fraction"},
        description="Revenue given back as SLA credits [fraction]; used when operations.sla_credits is "
        "fixed_share (the default derives credits from the failure model).",
    )
    receivable_days: float = Field(
        assumed("pricing.receivable_days"),
        ge=0,
        le=180,
        description="Days from the end of the month revenue is earned to the customer's payment: working capital "
        "tied up in receivables, collected at the horizon at the latest; tax follows revenue as earned [days].",
    )


class Timeline(_Section):
    """From purchase order to end of life; month 0 = purchase order."""

    delivery_lead_months: int = Field(
        assumed_count("timeline.delivery_lead_months"),
        ge=0,
        le=36,
        description="Purchase order to delivery at the OEM's dock [months].",
    )
    integration_burn_in_weeks: float = Field(
        assumed("timeline.integration_burn_in_weeks"),
        ge=0,
        le=26,
        description="OEM integration and burn-in before shipping [weeks].",
    )
    site_install_weeks: float = Field(
        assumed("timeline.site_install_weeks"),
        ge=0,
        le=26,
        description="Installation and cabling at the colocation site [weeks].",
    )
    onsite_burn_in_days: float = Field(
        assumed("timeline.onsite_burn_in_days"),
        ge=0,
        le=60,
        description="On-site burn-in before customers get access [days].",
    )
    deposit_share: float = Field(
        assumed("timeline.deposit_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of capex paid at purchase order; the rest at delivery [fraction].",
    )
    capex_timing: Literal["end_of_month", "mid_month"] = Field(
        "end_of_month",
        description="When in its month a capex payment is made: end_of_month (with every other flow) or mid_month "
        "(half a month earlier, with the debt drawn for it: NPV, IRR and MIRR count it so; the accounts keep it in "
        "its month).",
    )
    horizon_months: int = Field(72, ge=12, le=240, description="Analysis horizon from month 0 [months].")
    useful_life_months: int = Field(
        assumed_count("timeline.useful_life_months"),
        ge=12,
        le=180,
        description="Useful life of the hardware from go-live [months]: its depreciation period, and its end of "
        "service (see end of life) when the horizon runs past it.",
    )
    residual_value_share: float | None = Field(
        None,
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Resale value of the hardware when it leaves service (at the end of its useful life, or at "
        "the horizon if that comes first) [fraction of capex]; empty = the platform's resale curve by age at sale "
        "(data/residual_values.csv: linear between 36, 48, 60 and 72 months, flat beyond either end).",
    )
    end_of_life: Literal["shutdown", "refresh"] = Field(
        "shutdown",
        description="What happens at the end of the useful life when the horizon runs past it: shutdown (revenue "
        "and opex stop, the hardware is sold at the residual value) or refresh (the hardware is sold and a new "
        "cluster of the same design, bought beforehand, goes live the same day and earns a new cluster's price).",
    )
    refresh_capex_multiple: float = Field(
        assumed("timeline.refresh_capex_multiple"),
        ge=0,
        le=5,
        description="Capex of each refresh cluster as a multiple of the designed capex at the price book's prices "
        "[ratio]; its insurance and hardware support follow it. Funded by equity.",
    )


class Operations(_Section):
    """Running the cluster: failures, recovery, delivered performance and the readiness checklist.

    Checklist fields are True when the item is in place; each gap has a priced effect (:mod:`neoplan.operations`).
    """

    failure_preset: Literal["article", "llama3"] = Field(
        "article",
        description="Failure rate: article (one job-interrupting failure per 7 days per 512 H100) or llama3 "
        "(Meta: 419 interruptions in 54 days on 16,384 H100).",
    )
    mtbf_multiple: float = Field(
        1.0, ge=0.05, le=20, description="Mean time between failures as a multiple of the preset's [ratio]."
    )
    checkpoint_interval_minutes: float = Field(
        assumed("operations.checkpoint_interval_minutes"),
        ge=1,
        le=1440,
        description="Interval between training checkpoints [minutes]; half of it is lost per interruption.",
    )
    job_share: float = Field(
        assumed("operations.job_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of the cluster's GPUs one interrupted job spans [fraction].",
    )
    performance_elasticity: float = Field(
        assumed("operations.performance_elasticity"),
        ge=0,
        le=3,
        description="Price change per unit change of delivered performance the customer cannot see at signature "
        "(fabric, rank placement, storage) [ratio]; 1 = customers pay the same per unit of work, 0 = the headline "
        "price whatever the cluster delivers. Reliability moves the market tier instead (customers section).",
    )
    early_life_hazard_multiple: float = Field(
        assumed("operations.early_life_hazard_multiple"),
        ge=1,
        le=1000,
        description="Failure rate of new hardware at power-on as a multiple of the burned-in rate [ratio]; it decays "
        "with the early-life time constant, and burn-in ages the hardware before customers see it.",
    )
    four_nic_refusal_share: float = Field(
        assumed("operations.four_nic_refusal_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of customers who refuse servers with 4 back-end NICs instead of 8 [fraction]; a lost "
        "segment slows filling (utilization), it does not cut the price.",
    )
    sla_credits: Literal["failure_model", "fixed_share"] = Field(
        "failure_model",
        description="SLA credits from the failure model's unavailability, or the fixed pricing.sla_credit_share.",
    )
    sla_credit_multiple: float = Field(
        assumed("operations.sla_credit_multiple"),
        ge=0,
        le=100,
        description="Credit per unavailable GPU-hour, in GPU-hours of revenue [ratio] (failure_model credits).",
    )
    virtual_machines: bool = Field(False, description="Tenants get virtual machines (then NCCL_TOPO_FILE matters).")
    scheduler: Literal["slurm", "kubernetes", "both", "none"] = Field(
        "slurm", description="Scheduler offered: 70 % of customers want SLURM, 20 % Kubernetes, 10 % their own."
    )
    drivers: bool = Field(True, description="cuda-drivers, fabricmanager and cuda-toolkit installed.")
    ofed: bool = Field(True, description="MLNX_OFED (RDMA stack) installed.")
    gpudirect_rdma: bool = Field(
        True, description="GPUDirect RDMA on (nvidia-peermem and HPC-X): 391 instead of ~80 Gbit/s per NIC."
    )
    shared_storage: bool = Field(True, description="Shared /home/$USER and /data mounted (autofs).")
    pkey_isolation: bool = Field(True, description="Tenants isolated on the back end by InfiniBand pKeys.")
    monitoring: bool = Field(True, description="DCGM and IPMI exporters → Prometheus → Grafana, promtail for dmesg.")
    sdc_checks: bool = Field(True, description="Silent-data-corruption checks (dcgmi diag -r 4 catches ~95 %).")
    nccl_hang_detection: bool = Field(
        True, description="Hang detector (job under 150 W for 4 min) instead of the 30–35 min NCCL watchdog."
    )
    slurm_topology_conf: bool = Field(True, description="SLURM topology.conf for rank placement (else −20–30 %).")
    nccl_topo_file: bool = Field(True, description="NCCL_TOPO_FILE inside VMs (else ~50 % bandwidth).")


class Customers(_Section):
    """What customers do about the cluster's record: the market tier it earns, churn at renewal and the acceptance
    test (:mod:`neoplan.customers`). Tiers are positioned by first-year goodput against the same cluster run the
    reference way (silver = the reference way, the index price)."""

    tier_gap: float = Field(
        assumed("customers.tier_gap"),
        ge=0,
        le=0.5,
        json_schema_extra={"unit": "fraction"},
        description="First-year goodput gap between adjacent market tiers (bronze, silver, gold), relative to the "
        "reference way of running [fraction]; 0 = any shortfall is bronze and any gain gold.",
    )
    churn_gold_per_year: float = Field(
        assumed("customers.churn_gold_per_year"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Reserved customers lost per year at renewal by a gold-tier operator [fraction].",
    )
    churn_silver_per_year: float = Field(
        assumed("customers.churn_silver_per_year"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Reserved customers lost per year at renewal by a silver-tier operator [fraction].",
    )
    churn_bronze_per_year: float = Field(
        assumed("customers.churn_bronze_per_year"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Reserved customers lost per year at renewal by a bronze-tier operator [fraction].",
    )
    premium_gold: float = Field(
        assumed("customers.premium_gold"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="On-demand (list) price premium of a gold-tier operator over the index [fraction]; reserved "
        "contracts sell at the same nominal price whatever the tier.",
    )
    discount_bronze: float = Field(
        assumed("customers.discount_bronze"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="On-demand (list) price discount of a bronze-tier operator under the index [fraction].",
    )
    idle_months: float = Field(
        assumed("customers.idle_months"),
        ge=0,
        le=24,
        description="Months a churned customer's capacity sits unsold before a new contract [months].",
    )
    reacquisition_months: float = Field(
        assumed("customers.reacquisition_months"),
        ge=0,
        le=24,
        description="Cost of winning a replacement customer, in months of the churned customer's revenue [months].",
    )
    acceptance_test_days: float = Field(
        assumed("customers.acceptance_test_days"),
        ge=0,
        le=60,
        description="Length of the customer's acceptance test at go-live, at full scale [days]; 0 = no test.",
    )
    acceptance_pass_probability: float = Field(
        assumed("customers.acceptance_pass_probability"),
        ge=0,
        le=0.999,
        json_schema_extra={"unit": "fraction"},
        description="Chance a burned-in cluster at its steady failure rate passes the acceptance test: the test "
        "allows that quantile of its interruptions [fraction].",
    )
    acceptance_retest_days: float = Field(
        assumed("customers.acceptance_retest_days"),
        ge=0,
        le=90,
        description="Delay of go-live revenue when the acceptance test fails: find and replace the failing parts, "
        "test again [days].",
    )
    acceptance_failure_credit: float = Field(
        assumed("customers.acceptance_failure_credit"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Credit owed when the acceptance test fails [fraction of one month's revenue].",
    )

    @model_validator(mode="after")
    def _ordered(self) -> Customers:
        if not self.churn_gold_per_year <= self.churn_silver_per_year <= self.churn_bronze_per_year:
            raise ValueError(
                "customers: churn must not fall from gold to bronze (churn_gold_per_year ≤ churn_silver_per_year ≤ "
                f"churn_bronze_per_year), got {self.churn_gold_per_year:g}, {self.churn_silver_per_year:g}, "
                f"{self.churn_bronze_per_year:g}"
            )
        return self


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

    @field_validator("pricing")
    @classmethod
    def _known_workload(cls, pricing: Pricing) -> Pricing:
        from .inference import workloads  # reads data/ (imports nothing from here at module level)

        known = workloads()
        if pricing.workload not in known:
            raise ValueError(f"pricing.workload must be one of {', '.join(known)}, got {pricing.workload!r}")
        return pricing

    @model_validator(mode="after")
    def _tokens_have_a_published_rate(self) -> Scenario:
        if self.pricing.sell != "gpu_hours":
            from .inference import throughput

            throughput(self.cluster.gpu_model, self.pricing.workload, self.pricing.serving_scenario)
        return self

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


def describe(scenario: Scenario) -> str:
    """One line saying what the plan is, from its inputs: platform and GPUs, node BoM, back-end fabric, price book.

    ``2,048 GPUs in 256 × NVIDIA HGX B200 8-GPU (SXM6) · Optimized BoM · back end: Virtual modular switch, 2:1,
    400G · hardware prices as of 2026-11``. An NVL72 plan counts racks and compute trays.
    """
    c, f = scenario.cluster, scenario.fabric
    platform = default_platforms().get(c.gpu_model)
    name = platform.name if platform is not None else c.gpu_model
    nodes = c.gpus // c.gpus_per_node
    if platform is not None and platform.rack_scale:
        size = f"{c.gpus:,} GPUs in {nodes:,} × {name}, {nodes * platform.compute_trays:,} compute trays"
    else:
        size = f"{c.gpus:,} GPUs in {nodes:,} × {name}"
    ratio = "non-blocking" if f.oversubscription == 1 else f"{f.oversubscription:g}:1"
    fabric = f"back end: {TOPOLOGY_LABELS[f.topology]}, {ratio}, {f.nic_gbps}G"
    book = f"hardware prices as of {scenario.prices_as_of}"
    return f"{size} · {NODE_PRESET_LABELS[scenario.node.preset]} · {fabric} · {book}"


# --- presets and files -------------------------------------------------------------------------


@lru_cache(maxsize=1)  # keyed on nothing: the shipped data/node_presets.yaml (load_scenario 0.07 → 0.7 ms without)
def node_presets() -> dict[str, dict[str, Any]]:
    """Node presets from ``data/node_presets.yaml`` (field values by preset name)."""
    with NODE_PRESETS_FILE.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return {name: dict(values) for name, values in data.items()}


def preset_names() -> list[str]:
    """Names of the shipped scenario presets (files in ``data/scenarios/``)."""
    return sorted(p.stem for p in SCENARIOS_DIR.glob("*.yaml"))


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` laid over ``base``: mappings merge key by key, anything else replaces."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _preset_dict(name: str, depth: int = 0) -> dict[str, Any]:
    if not isinstance(name, str) or not _PRESET_NAME.match(name):
        raise ScenarioError(f"base must name a preset ({', '.join(preset_names())}), got {_short(name)}")
    path = SCENARIOS_DIR / f"{name}.yaml"
    if not path.is_file():
        raise ScenarioError(f"base: no preset named {name!r}; choose one of {', '.join(preset_names())}")
    data = copy.deepcopy(_parsed_preset(str(path), path.stat().st_mtime_ns))
    return _resolve_base(data, depth + 1)


@lru_cache(maxsize=32)  # keyed on a preset file and its mtime: an edited file is read again (load_scenario ×15 without)
def _parsed_preset(path: str, mtime_ns: int) -> dict[str, Any]:
    """A preset file parsed once per version of the file (``mtime_ns`` is the cache key's version)."""
    return _parse_text(Path(path).read_text(encoding="utf-8"), Path(path).name)


def _resolve_base(data: Mapping[str, Any], depth: int = 0) -> dict[str, Any]:
    if depth > 5:
        raise ScenarioError("base: presets nest too deeply (more than 5 levels)")
    base = data.get("base")
    if base is None:
        return dict(data)
    merged = deep_merge(_preset_dict(base, depth), data)
    merged["base"] = base
    return merged


MAX_NUMBER_CHARS = 100
"""Longer integers in a file are read as :class:`OversizedNumber` (Python refuses > 4,300 digits)."""


class OversizedNumber:
    """An integer literal too long to be a scenario value; validation refuses it, naming the field."""

    def __init__(self, chars: int) -> None:
        self.chars = chars

    def __repr__(self) -> str:
        return f"a number {self.chars:,} characters long"


def _int_or_oversized(text: str) -> int | OversizedNumber:
    """``int(text)``, or an :class:`OversizedNumber` for more than :data:`MAX_NUMBER_CHARS` characters."""
    return int(text) if len(text) <= MAX_NUMBER_CHARS else OversizedNumber(len(text))


class _Refused(yaml.MarkedYAMLError):
    """YAML this loader refuses on purpose; its ``problem`` is shown to the user."""


_YamlLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser where PyYAML has it (a megabyte is scanned in milliseconds), else PyYAML's own; safe either way."""


class _NoAliasLoader(_YamlLoader):
    """Safe YAML (never PyYAML's full loader) whose integers longer than :data:`MAX_NUMBER_CHARS` stay unparsed,
    dates stay text (no field is a date), and an explicitly tagged scalar that is not what its tag says
    (``!!int abc``) is refused with its line. Aliases, a second document and oversized shapes are refused
    before it builds anything (:func:`_check_yaml_events`)."""

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int | OversizedNumber:
        """YAML ints (decimal, 0x, 0o, 0b, 1_000, base 60) with over-long literals kept unparsed."""
        if len(str(node.value)) > MAX_NUMBER_CHARS:
            return OversizedNumber(len(str(node.value)))
        try:
            return int(super().construct_yaml_int(node))
        except ValueError:  # only an explicit !!int tag reaches here with a non-integer
            raise _Refused(None, None, f"{_short(node.value, 30)} is not an integer", node.start_mark) from None

    def construct_checked_float(self, node: yaml.ScalarNode) -> float:
        """YAML floats; an explicit ``!!float`` on text that is not a number is refused."""
        try:
            return float(super().construct_yaml_float(node))
        except ValueError:
            raise _Refused(None, None, f"{_short(node.value, 30)} is not a number", node.start_mark) from None

    def construct_date_as_text(self, node: yaml.ScalarNode) -> str:
        """``2024-13-45`` and other date-like scalars as the text they are (a name or a note, never a date)."""
        return str(self.construct_scalar(node))


_NoAliasLoader.add_constructor("tag:yaml.org,2002:int", _NoAliasLoader.construct_bounded_int)
_NoAliasLoader.add_constructor("tag:yaml.org,2002:float", _NoAliasLoader.construct_checked_float)
_NoAliasLoader.add_constructor("tag:yaml.org,2002:timestamp", _NoAliasLoader.construct_date_as_text)


def _check_yaml_events(text: str) -> None:
    """Refuse aliases (``*name``: alias bombs), a second document, more than :data:`SCENARIO_MAX_NODES` values and
    nesting deeper than :data:`SCENARIO_MAX_DEPTH`, from the parser's events, before any node is built: time and
    memory stay bounded whatever the shape of the text."""
    loader = _NoAliasLoader(text)
    nodes = depth = documents = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            problem = None
            if isinstance(event, yaml.AliasEvent):
                problem = "aliases (*name) are not allowed"
            elif isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                problem = "one YAML document only (a second starts here)" if documents > 1 else None
            elif isinstance(event, yaml.NodeEvent):
                nodes += 1
                depth += isinstance(event, yaml.CollectionStartEvent)
                if nodes > SCENARIO_MAX_NODES:
                    problem = f"more than {SCENARIO_MAX_NODES:,} values (a scenario has a few hundred)"
                elif depth > SCENARIO_MAX_DEPTH:
                    problem = _TOO_DEEP
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            if problem:
                raise _Refused(None, None, problem, event.start_mark)
    finally:
        loader.dispose()


def _load_yaml(text: str) -> Any:
    """One YAML document with the safe loader, its shape checked first."""
    _check_yaml_events(text)
    loader = _NoAliasLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


_TOO_DEEP = f"nested more than {SCENARIO_MAX_DEPTH} levels deep (a scenario nests 4)"
_JSON_OBJECT = re.compile(r"\s*\{\s*[\"}]")
"""How a JSON object starts (a YAML flow mapping such as ``{cluster: …}`` has bare keys)."""


def _is_json(text: str, origin: str) -> bool:
    """Whether ``text`` is read as JSON: a ``.json`` file, or an object with quoted keys not in a ``.yaml`` file."""
    suffix = Path(origin).suffix.lower()
    return suffix == ".json" or (suffix not in (".yaml", ".yml") and _JSON_OBJECT.match(text) is not None)


def _load_json(text: str, origin: str) -> Any:
    """JSON, its errors reported as JSON errors (never re-read as YAML)."""
    try:
        return json.loads(text, parse_int=_int_or_oversized)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{origin} line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg})") from None


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """The cycle collector paused: the parsers build acyclic trees (YAML aliases are refused), and a file of a
    quarter million lists would otherwise trigger hundreds of collections, each rescanning the whole process heap
    (seconds of CPU in a long-running server, and nothing to collect)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _load_data(text: str, origin: str) -> Any:
    """The parsed text: JSON (:func:`_is_json`), YAML, or None for blank text."""
    if _is_json(text, origin):
        return _load_json(text, origin)
    return _load_yaml(text) if text.strip() else None


def _parse_text(text: str, origin: str) -> dict[str, Any]:
    """A mapping from JSON (:func:`_is_json`) or YAML (safe, no aliases), its shape checked (:func:`check_shape`)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate: no text file holds one
        raise ScenarioError(f"{origin}: not valid text (character {exc.start + 1:,} is a lone surrogate)") from None
    with _no_cycle_collection():
        try:
            data = _load_data(text, origin)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" line {mark.line + 1}" if mark is not None else ""
            detail = f": {exc.problem}" if isinstance(exc, _Refused) else ": not valid YAML or JSON"
            raise ScenarioError(f"{origin}{where}{detail}") from None
        except RecursionError:
            raise ScenarioError(f"{origin}: {_TOO_DEEP}") from None
        if not isinstance(data, dict):
            raise ScenarioError(f"{origin}: a scenario must be a mapping of sections (cluster:, node:, …)")
        check_shape(data, origin)
    return data


def check_shape(data: Any, origin: str = "scenario") -> None:
    """Raise ScenarioError if ``data`` holds more than :data:`SCENARIO_MAX_NODES` values or nests deeper than
    :data:`SCENARIO_MAX_DEPTH` (mappings and lists; iterative, so no depth can exhaust the stack)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    nodes = 0
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > SCENARIO_MAX_NODES:
            raise ScenarioError(f"{origin}: more than {SCENARIO_MAX_NODES:,} values (a scenario has a few hundred)")
        children = value.values() if isinstance(value, Mapping) else value if isinstance(value, list | tuple) else ()
        if children and depth >= SCENARIO_MAX_DEPTH:
            raise ScenarioError(f"{origin}: {_TOO_DEEP}")
        stack.extend((child, depth + 1) for child in children)


_NUMBER_TEXT = re.compile(r"^[+-]?(\d[\d_]*\.?\d*|\.\d+)([eE][+-]?\d+)?$")


class _Raw(str):
    """A text shown without quotes."""

    def __repr__(self) -> str:
        return str(self)


def _short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters; a huge integer is described, not printed."""
    if isinstance(value, int) and value.bit_length() > 256:
        return f"a {int(value.bit_length() * math.log10(2)) + 1}-digit integer"
    if isinstance(value, str) and _NUMBER_TEXT.match(value):  # YAML reads 5e-324 (no dot) as text
        value = _Raw(value)
    try:
        text = repr(value)
    except ValueError:  # a container holding an integer past Python's 4,300-digit str() limit
        text = f"a {type(value).__name__} holding an integer too long to print"
    return text if len(text) <= limit else text[: limit - 1] + "…"


_PLAIN_KEY = re.compile(r"^[\w\-]{1,64}$")


def _loc_part(part: int | str) -> str:
    """A field name as is; a user's mapping key quoted and cut short (it may hold anything)."""
    text = str(part)
    return text if _PLAIN_KEY.match(text) else _short(text, 40)


def _num(value: float) -> str:
    """A bound for a message: ``5``, ``0.95``, ``1,000,000``."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def _field_limits(loc: tuple[int | str, ...]) -> tuple[list[str], list[str]]:
    """Lower and upper bounds of the field at ``loc`` as texts (``["≥ 5"]``, ``["≤ 300"]``); empty if none."""
    annotation: Any = Scenario
    info: FieldInfo | None = None
    for part in loc:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel) and part in annotation.model_fields:
            info = annotation.model_fields[str(part)]
            annotation = info.annotation
        elif get_origin(annotation) is dict:  # a value of a mapping field such as prices
            value_type = get_args(annotation)[1]
            info = next((m for m in get_args(value_type)[1:] if isinstance(m, FieldInfo)), None)
            annotation = None
        else:
            return [], []
    lower: list[str] = []
    upper: list[str] = []
    for m in info.metadata if info is not None else []:
        for attr, sign, out in (("ge", "≥", lower), ("gt", ">", lower), ("le", "≤", upper), ("lt", "<", upper)):
            if getattr(m, attr, None) is not None:
                out.append(f"{sign} {_num(getattr(m, attr))}")
    return lower, upper


def _range_text(loc: tuple[int | str, ...], fallback: str) -> str:
    """``between 5 and 300`` for inclusive bounds on both sides, ``> 0 and ≤ 100`` otherwise, else ``fallback``."""
    lower, upper = _field_limits(loc)
    if len(lower) != 1 or len(upper) != 1:
        return fallback
    if lower[0].startswith("≥") and upper[0].startswith("≤"):
        return f"between {lower[0][2:]} and {upper[0][2:]}"
    return f"{lower[0]} and {upper[0]}"


def format_validation_error(exc: ValidationError) -> str:
    """One line naming the first bad field, e.g. ``facility.rack_power_kw must be between 5 and 300, got 1``."""
    err = exc.errors(include_url=False)[0]
    loc = ".".join(_loc_part(p) for p in err["loc"])
    ctx = err.get("ctx") or {}
    kind = err["type"]
    got = _short(err.get("input"))
    if err["loc"][-1:] == ("[key]",):  # a bad key of a mapping such as prices
        parent = ".".join(_loc_part(p) for p in err["loc"][:-2])
        return f"{parent}: key {_short(err.get('input'), 40)}: {err['msg'][:1].lower()}{err['msg'][1:]}"
    bounds = {"greater_than_equal": "≥", "greater_than": ">", "less_than_equal": "≤", "less_than": "<"}
    if kind in bounds:
        limit = next(iter(ctx.values()))
        return f"{loc} must be {_range_text(err['loc'], f'{bounds[kind]} {_num(limit)}')}, got {got}"
    if kind == "invalid_key":  # a key that is not text, such as 1: in YAML
        parent = ".".join(_loc_part(p) for p in err["loc"][:-1])
        return f"{parent or 'scenario'}: key {got} must be text (a field name)"
    if kind == "extra_forbidden":
        return f"{loc}: unknown field (check the spelling)"
    if kind == "missing":
        return f"{loc}: required field is missing"
    if kind == "literal_error":
        return f"{loc} must be one of {ctx.get('expected', '')}, got {got}"
    if kind == "value_error":
        msg = str(ctx.get("error", err["msg"]))
        return msg if (loc == "" or msg.startswith(loc.split(".")[0])) else f"{loc}: {msg}"
    msg = err["msg"][:1].lower() + err["msg"][1:]
    if not loc:
        return msg
    return f"{loc}: {msg} ({got})" if ", got " in msg else f"{loc}: {msg}, got {got}"


def scenario_from_dict(data: Mapping[str, Any]) -> Scenario:
    """Validate a scenario mapping, resolving ``base:`` first; raises ScenarioError."""
    if not isinstance(data, Mapping):
        raise ScenarioError("a scenario must be a mapping of sections (cluster:, node:, …)")
    check_shape(data)
    resolved = _resolve_base(data)
    cluster = resolved.get("cluster")
    if isinstance(cluster, Mapping) and cluster.get("platform_defaults") is True:
        resolved = _with_platform_defaults(resolved, data)
    try:
        return Scenario.model_validate(resolved)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(exc)) from None


def _with_platform_defaults(resolved: dict[str, Any], own: Mapping[str, Any]) -> dict[str, Any]:
    """``resolved`` (preset + file) with its platform's defaults where the file (``own``) sets nothing itself."""
    return _platform_switch(resolved, own)[0]


def _platform_switch(resolved: dict[str, Any], own: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """(``resolved`` with its platform's defaults, what they changed for people) (:mod:`neoplan.platforms`)."""
    from .platforms import apply_file_defaults  # platforms reads the price book and catalogues; a cycle at import

    key = resolved["cluster"].get("gpu_model", Cluster.model_fields["gpu_model"].default)
    if key not in default_platforms():
        return resolved, ""  # validation names the unknown platform
    preset = _resolve_base({"base": own["base"]}) if isinstance(own.get("base"), str) else {}
    old = (preset.get("cluster") or {}).get("gpu_model", Cluster.model_fields["gpu_model"].default)
    data, switch = apply_file_defaults({**resolved, "cluster": {**resolved["cluster"], "gpu_model": key}}, own, old)
    return data, switch.note()


def platform_defaults_note(text: str, origin: str = "scenario") -> str:
    """What ``cluster.platform_defaults: true`` changed in the scenario file ``text``, for people (empty: nothing,
    or no such switch). Raises ScenarioError like :func:`parse_scenario`."""
    own = _parse_text(text, _shown_path(origin))
    resolved = _resolve_base(own)
    cluster = resolved.get("cluster")
    if not (isinstance(cluster, Mapping) and cluster.get("platform_defaults") is True):
        return ""
    return _platform_switch(resolved, own)[1]


def parse_scenario(text: str, origin: str = "scenario") -> Scenario:
    """Parse YAML or JSON text (JSON is YAML) into a validated Scenario; ``origin`` names it in messages."""
    origin = _shown_path(origin)
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:  # text may hold lone surrogates
        raise ScenarioError(f"{origin}: file larger than {size_text(SCENARIO_FILE_MB)}")
    return scenario_from_dict(_parse_text(text, origin))


def load_scenario(source: str | Path | Mapping[str, Any]) -> Scenario:
    """A Scenario from a file path, a preset name or a mapping.

    A string that names a preset (``"reference"``) loads that preset; any
    other string or Path is read as a YAML/JSON file.
    """
    if isinstance(source, Mapping):
        return scenario_from_dict(source)
    if isinstance(source, str) and _PRESET_NAME.match(source) and source in preset_names():
        return scenario_from_dict({"base": source})
    path = Path(source)
    shown, name = _shown_path(str(path)), _shown_path(path.name)
    try:
        if not path.is_file():
            raise ScenarioError(f"{shown}: {'not a regular file' if path.exists() else 'no such file'}")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ScenarioError(f"{name}: file larger than {size_text(SCENARIO_FILE_MB)}")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(f"{name}: not a text file (expected YAML or JSON)") from None
    except OSError as exc:  # unreadable, a name too long, a folder that vanished …
        raise ScenarioError(f"{shown}: cannot read the file ({exc.strerror or type(exc).__name__})") from None
    return parse_scenario(text, name)


def _shown_path(text: str) -> str:
    """A path for a message: as is if printable and short, else quoted with escapes and cut."""
    return text if text.isprintable() and len(text) <= 200 else _short(text, 80)


def save_scenario(scenario: Scenario, path: str | Path) -> Path:
    """Write ``scenario`` to ``path`` (atomically): JSON if it ends in ``.json``, else YAML."""
    path = Path(path)
    text = scenario.to_json() if path.suffix.lower() == ".json" else scenario.to_yaml()
    return write_atomic(path, text.encode("utf-8"))  # whole or not at all


def scenario_json(scenario: Scenario) -> str:
    """Canonical compact JSON of a scenario (a cache key)."""
    return json.dumps(scenario.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))

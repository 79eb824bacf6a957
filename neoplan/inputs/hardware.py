"""Scenario sections for what is built: the cluster and its GPU platform, the compute node's bill of materials,
the networks, shared storage and the site (see :mod:`neoplan.inputs.scenario` for the whole plan)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ..errors import ScenarioError as ScenarioError  # re-exported: the one input-error type
from .fields import CpuTier, NodePreset, Topology, _Section
from .presets import node_presets
from .pricebook import assumed
from .regions import DEFAULT_REGION, regions


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

    usable_pb: float | None = Field(
        2.0,
        ge=0,
        le=1000,
        description="Usable capacity [PB]; empty = the platform's rule (data/platform_defaults.csv: PB per 1,024 GPUs, "
        "scaled by HBM per GPU) for the plan's GPUs, the count found when the plan is sized by power.",
    )
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

    region: str = Field(
        DEFAULT_REGION,
        max_length=32,
        description="Where the site is: a region of data/regions.csv (us-average, us-virginia, us-texas, us-georgia, "
        "us-arizona, us-illinois, nordics, europe, gulf, asia-singapore, asia-japan). Its power price, colocation "
        "price for the rack density, PUE and corporate tax rate as of prices_as_of are the defaults of those fields; "
        "a value the scenario sets itself wins.",
    )
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

    @field_validator("region")
    @classmethod
    def _known_region(cls, region: str) -> str:
        if region not in regions():
            raise ValueError(f"must be one of {', '.join(regions())}, got {region!r}")
        return region

    @model_validator(mode="after")
    def _idle_below_busy(self) -> Facility:
        if self.idle_power_share > self.busy_power_share:
            raise ValueError(
                f"facility.idle_power_share must be ≤ facility.busy_power_share ({self.busy_power_share}), "
                f"got {self.idle_power_share}"
            )
        return self

"""Shared networked NVMe storage: servers, capacity, throughput, checkpoint time, ports and cost.

Sizing, from a usable capacity [PB] and a throughput target [Gbit/s per GPU]:

1. Start from the larger of ``storage.min_servers`` (≥ 8 for HA, per the article), the servers the
   throughput target needs, and the fewest servers the protection scheme allows.
2. Data protection gives the *net efficiency* (usable ÷ raw). For a distributed file system
   (Weka/Vast-like, ``protection_domain = server``) it follows WEKA's published formula::

       stripe k  = min(stripe_data_max, servers − protection − hot_spares)
       net / raw = (1 − reserve) × (servers − hot_spares) / servers × k / (k + protection)

   so 8 servers give a 5+2 stripe and ~56% net; more servers widen the stripe. A self-built NFS
   server (``protection_domain = drive``) uses RAID6 k+p inside each server plus hot-spare drives.
3. Drives are spread evenly over the servers; if they do not fit the bays, add a server and redo 2.
   Empty bays are the headroom to grow (the article: leave bays, ports, power and rack space).

Aggregate throughput is servers × min(drive/CPU-limited GB/s, NIC line rate) per server. The
checkpoint check writes ``params × bytes_per_param`` at the aggregate write bandwidth; the default
14 B/param is bf16 weights (2) + fp32 master weights (4) + fp32 Adam moments (4 + 4).

Units: capacity in decimal TB/PB (1 PB = 1,000 TB), throughput in GB/s (gigabytes) unless named
``_gbps`` (Gbit/s), power in kW.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field

from ..errors import ScenarioError, check
from ..inputs.datafile import DataDate, DataRow, keyed, read_numbered
from ..inputs.hardware import Storage
from ..inputs.pricebook import DATA_DIR, PriceBook, default_platforms
from ..inputs.scenario import Scenario
from .costs import CostLine, priced, total_usd
from .fabric.frontend import frontend_switch_gbps

CATALOGUE_FILE = DATA_DIR / "storage_catalogue.csv"
CATEGORY = "storage"
TB_PER_PB = 1000.0
BITS_PER_BYTE = 8.0
BYTES_PER_PARAM_TRAINING = 14.0
"""bf16 weights (2 B) + fp32 master weights (4 B) + fp32 Adam first and second moments (4 B + 4 B)."""
CHECKPOINT_WARN_S = 300.0
"""A checkpoint slower than this [s] stalls training noticeably at hourly checkpoints (~8%)."""
RACK_UNITS_FOR_SERVERS = 38
"""Rack units of a 42U storage rack left for servers; 4U go to patch panels and switches."""
OOB_PORTS_PER_SERVER = 1
"""One 1 GbE BMC port per storage server on the out-of-band network."""
MAX_SERVERS = 10_000
LICENCE_PERPETUAL_KEY = "storage_licence_perpetual_tb"
LICENCE_YEARLY_KEY = "storage_licence_tb_year"

BACKEND_WARNING = (
    "storage.network is backend: storage traffic then binds to GPU 0's back-end NIC (GPU 0 straggles in "
    "real workloads) and disk rebuilds congest the compute fabric; the article advises the front end"
)
NFS_WARNING = (
    "storage.vendor_class is self_built: a self-built NFS server suffers lots-of-small-files (LOSF) "
    "slowness (even `import torch` lags across many nodes); Weka/Vast-class storage avoids it"
)


class StorageServerModel(DataRow):
    """One storage-server model of ``data/storage_catalogue.csv`` (its row model, :mod:`neoplan.inputs.datafile`)."""

    key: str
    name: str
    vendor_class: str
    default: bool
    rack_units: int = Field(gt=0)
    drive_bays: int = Field(gt=0)
    drive_tb: float = Field(gt=0)
    drive_price_key: str
    server_price_key: str
    read_gbyte_per_s: float = Field(gt=0)
    write_gbyte_per_s: float = Field(gt=0)
    network_ports: int = Field(gt=0)
    port_gbps: float = Field(gt=0)
    power_kw: float = Field(ge=0)
    protection_domain: Literal["server", "drive"]
    stripe_data_max: int = Field(gt=0)
    protection_blocks: int = Field(ge=0)
    hot_spares: int = Field(ge=0)
    reserve_share: float = Field(ge=0, lt=1)
    date: DataDate
    source: str

    @property
    def nic_gbyte_per_s(self) -> float:
        """Line rate of the server's storage NIC ports [GB/s]."""
        return self.network_ports * self.port_gbps / BITS_PER_BYTE

    @property
    def server_read_gbyte_per_s(self) -> float:
        """Read bandwidth one server delivers, capped by its NICs [GB/s]."""
        return min(self.read_gbyte_per_s, self.nic_gbyte_per_s)

    @property
    def server_write_gbyte_per_s(self) -> float:
        """Write bandwidth one server absorbs, capped by its NICs [GB/s]."""
        return min(self.write_gbyte_per_s, self.nic_gbyte_per_s)


@dataclass(frozen=True)
class StorageDesign:
    """A sized storage cluster. Capacities in TB, bandwidths in GB/s, power in kW, money in USD."""

    model: StorageServerModel
    vendor_class: str
    network: str
    licence_term: str
    usable_tb: float
    servers: int
    servers_for_capacity: int
    servers_for_throughput: int
    drives: int
    drives_per_server: int
    raw_tb: float
    net_efficiency: float
    installed_net_tb: float
    max_net_tb: float
    free_bays: int
    stripe_data: int
    read_gbyte_per_s: float
    write_gbyte_per_s: float
    target_gbyte_per_s: float
    bytes_per_param: float
    checkpoint_tb: float
    checkpoint_write_s: float
    power_kw: float
    rack_units: int
    racks: int
    free_rack_units: int
    frontend_ports: int
    backend_ports: int
    oob_ports: int
    port_gbps: float
    lines: tuple[CostLine, ...]
    licence_usd_per_year: float
    warnings: tuple[str, ...]
    wired_port_gbps: float = 0.0
    """Speed the storage ports run at: the slower of the NIC and the switch port it plugs into [Gbit/s]."""

    @property
    def port_capped(self) -> bool:
        """True when the switch ports are slower than the storage NICs (throughput capped, servers added)."""
        return 0 < self.wired_port_gbps < self.port_gbps

    def port_note(self) -> str:
        """One line on the port cap for captions ('' when the NICs run at full speed)."""
        if not self.port_capped or not self.servers:
            return ""
        per = self.read_gbyte_per_s / self.servers
        return (
            f"The storage servers' {self.model.network_ports}×{self.port_gbps:g}GbE run at {self.wired_port_gbps:g}G "
            f"on the ports they plug into: {per:g} GB/s each, so {self.servers} servers are needed for "
            f"{self.read_gbyte_per_s:,.0f} GB/s (fabric.frontend.match_storage_ports plugs them into faster ports)."
        )

    @property
    def usable_pb(self) -> float:
        """Usable capacity asked for [PB]."""
        return self.usable_tb / TB_PER_PB

    @property
    def meets_target(self) -> bool:
        """Whether the aggregate read bandwidth reaches the per-GPU target."""
        return self.read_gbyte_per_s >= self.target_gbyte_per_s - 1e-9

    @property
    def headroom_tb(self) -> float:
        """Net capacity that filling every empty bay would add [TB]."""
        return max(self.max_net_tb - self.installed_net_tb, 0.0)

    @property
    def capex_usd(self) -> float:
        """Storage capex: servers, drives and a perpetual licence if any [USD]."""
        return total_usd(list(self.lines))

    @property
    def hardware_capex_usd(self) -> float:
        """Storage servers and drives only [USD]."""
        return total_usd([ln for ln in self.lines if ln.key != LICENCE_PERPETUAL_KEY])


# --- catalogue ----------------------------------------------------------------------------------


def read_storage_catalogue(path: Path = CATALOGUE_FILE) -> dict[str, StorageServerModel]:
    """Storage-server models by key, from ``data/storage_catalogue.csv``."""
    return keyed(read_numbered(path, StorageServerModel), path.name)


@lru_cache(maxsize=1)  # keyed on nothing: the shipped data/storage_catalogue.csv (evaluate +15 % without)
def default_storage_catalogue() -> dict[str, StorageServerModel]:
    """The shipped storage catalogue (cached; treat as read-only)."""
    return read_storage_catalogue()


def pick_model(
    catalogue: dict[str, StorageServerModel], vendor_class: str, key: str | None = None
) -> StorageServerModel:
    """The catalogue model ``key``, or the default model of ``vendor_class``."""
    if key is not None:
        if key not in catalogue:
            raise ScenarioError(f"storage.server_model must be one of {', '.join(sorted(catalogue))}, got {key!r}")
        model = catalogue[key]
        if model.vendor_class != vendor_class:
            raise ScenarioError(
                f"storage.server_model {key!r} is a {model.vendor_class} model; storage.vendor_class is {vendor_class}"
            )
        return model
    for model in catalogue.values():
        if model.vendor_class == vendor_class and model.default:
            return model
    raise ScenarioError(f"storage catalogue has no default model for storage.vendor_class {vendor_class!r}")


# --- sizing -------------------------------------------------------------------------------------


def min_protected_servers(model: StorageServerModel) -> int:
    """Fewest servers the protection scheme allows [count] (a 3-wide stripe for server-level EC)."""
    if model.protection_domain == "server":
        return 3 + model.protection_blocks + model.hot_spares
    return 1


def stripe_data_blocks(model: StorageServerModel, servers: int) -> int:
    """Data blocks per protection stripe [count]; bounded by failure domains for server-level EC."""
    if model.protection_domain == "server":
        return max(min(model.stripe_data_max, servers - model.protection_blocks - model.hot_spares), 0)
    return model.stripe_data_max


def net_efficiency(model: StorageServerModel, servers: int) -> float:
    """Usable ÷ raw capacity of the data drives [fraction] (WEKA formula for server-level EC)."""
    k = stripe_data_blocks(model, servers)
    if k < 1:
        return 0.0
    parity = k / (k + model.protection_blocks)
    if model.protection_domain == "server":
        return (1 - model.reserve_share) * (servers - model.hot_spares) / servers * parity
    return (1 - model.reserve_share) * parity


def data_bays(model: StorageServerModel) -> int:
    """Bays per server that can hold data drives (hot-spare drives excluded) [count]."""
    if model.protection_domain == "drive":
        return max(model.drive_bays - model.hot_spares, 0)
    return model.drive_bays


def data_drives_per_server(model: StorageServerModel, servers: int, usable_tb: float) -> int:
    """Data drives per server needed for ``usable_tb`` [TB] on ``servers`` servers [count]."""
    if usable_tb <= 0:
        return 0
    eff = net_efficiency(model, servers)
    if eff <= 0:
        raise ValueError(
            f"storage: {servers} servers are too few for {model.key}'s protection "
            f"(at least {min_protected_servers(model)})"
        )
    raw_tb = usable_tb / eff
    return math.ceil(raw_tb / (servers * model.drive_tb) - 1e-9)


def servers_for_capacity(model: StorageServerModel, usable_tb: float, start: int) -> int:
    """Fewest servers ≥ ``start`` whose bays hold the drives for ``usable_tb`` [TB]."""
    servers = max(start, min_protected_servers(model))
    while data_drives_per_server(model, servers, usable_tb) > data_bays(model):
        servers += 1
        if servers > MAX_SERVERS:
            pb = usable_tb / TB_PER_PB
            raise ScenarioError(f"storage.usable_pb: {pb:g} PB needs more than {MAX_SERVERS} servers")
    return servers


def servers_for_throughput(model: StorageServerModel, target_gbyte_per_s: float) -> int:
    """Servers whose aggregate read bandwidth reaches ``target_gbyte_per_s`` [GB/s]."""
    if target_gbyte_per_s <= 0:
        return 0
    return math.ceil(target_gbyte_per_s / model.server_read_gbyte_per_s - 1e-9)


def target_gbyte_per_s(gpus: int, gbps_per_gpu: float) -> float:
    """Aggregate read bandwidth wanted [GB/s] from ``gbps_per_gpu`` [Gbit/s per GPU]."""
    return gpus * gbps_per_gpu / BITS_PER_BYTE


def checkpoint_tb(params_billion: float, bytes_per_param: float = BYTES_PER_PARAM_TRAINING) -> float:
    """Size of a full training checkpoint [TB] of a ``params_billion`` [1e9 params] model."""
    return params_billion * 1e9 * bytes_per_param / 1e12


def checkpoint_write_s(size_tb: float, write_gbyte_per_s: float) -> float:
    """Seconds to write ``size_tb`` [TB] at ``write_gbyte_per_s`` [GB/s]; inf with no bandwidth."""
    if size_tb <= 0:
        return 0.0
    if write_gbyte_per_s <= 0:
        return math.inf
    return size_tb * 1000.0 / write_gbyte_per_s


def port_capped(model: StorageServerModel, plugged_port_gbps: float | None) -> StorageServerModel:
    """``model`` with its port speed capped by the switch port it plugs into [Gbit/s] (None: uncapped)."""
    if plugged_port_gbps is None or plugged_port_gbps >= model.port_gbps:
        return model
    return model.model_copy(update={"port_gbps": float(plugged_port_gbps)})


def gpus_per_frontend_unit(scenario: Scenario) -> int:
    """GPUs behind one set of front-end ports [count]: the server, or a compute tray of a rack-scale system."""
    platform = default_platforms().get(scenario.cluster.gpu_model)
    if platform is not None and platform.rack_scale:
        return platform.gpus_per_tray
    return scenario.cluster.gpus_per_node


def plugged_port_gbps(scenario: Scenario, model_port_gbps: float) -> float:
    """Speed of the switch ports storage servers plug into [Gbit/s]: the back-end NIC speed, or the front-end
    switch speed (as fast as the storage NICs when ``fabric.frontend.match_storage_ports``)."""
    fab = scenario.fabric
    if scenario.storage.network == "backend":
        return float(fab.nic_gbps)
    fe = fab.frontend
    return float(frontend_switch_gbps(fe.port_gbps, model_port_gbps if fe.match_storage_ports else 0))


def storage_racks(servers: int, rack_units: int, power_kw: float, rack_power_kw: float) -> int:
    """Racks for ``servers`` storage servers, limited by rack units and rack power [count]."""
    if servers <= 0:
        return 0
    by_space = math.ceil(servers * rack_units / RACK_UNITS_FOR_SERVERS)
    by_power = math.ceil(servers * power_kw / rack_power_kw - 1e-9)
    return max(by_space, by_power, 1)


def storage_ports(servers: int, model: StorageServerModel, network: str) -> tuple[int, int, int]:
    """(front-end, back-end, out-of-band) switch ports the storage servers take [count]."""
    data_ports = servers * model.network_ports
    oob = servers * OOB_PORTS_PER_SERVER
    if network == "backend":
        return 0, data_ports, oob
    return data_ports, 0, oob


def storage_lines(
    book: PriceBook, model: StorageServerModel, servers: int, drives: int, usable_tb: float, storage: Storage
) -> list[CostLine]:
    """Capex lines: servers, data drives, and the perpetual licence if the term is perpetual [USD]."""
    lines = []
    if servers > 0:
        lines.append(priced(book, model.server_price_key, servers, CATEGORY, f"Storage server: {model.name}"))
    if drives > 0:
        lines.append(priced(book, model.drive_price_key, drives, CATEGORY))
    if storage.vendor_class == "licensed" and storage.licence_term == "perpetual" and usable_tb > 0:
        lines.append(priced(book, LICENCE_PERPETUAL_KEY, usable_tb, CATEGORY))
    return lines


def licence_usd_per_year(book: PriceBook, storage: Storage) -> float:
    """Yearly storage-software subscription [USD/year]; 0 unless licensed on a yearly term (``storage.usable_pb``
    resolved: a number)."""
    if storage.vendor_class != "licensed" or storage.licence_term != "yearly":
        return 0.0
    return (storage.usable_pb or 0.0) * TB_PER_PB * book.price(LICENCE_YEARLY_KEY)


def _check_inputs(storage: Storage, gpus: int, rack_power_kw: float, bytes_per_param: float) -> None:
    """Scenario fields raise :class:`~neoplan.errors.ScenarioError`; ``bytes_per_param`` (an argument) raises
    ``ValueError``."""
    pb = storage.usable_pb
    check("storage.usable_pb", math.nan if pb is None else pb, pb is not None and pb >= 0, "≥ 0")
    check("storage.min_servers", storage.min_servers, storage.min_servers >= 1, "≥ 1")
    check("storage.target_gbps_per_gpu", storage.target_gbps_per_gpu, storage.target_gbps_per_gpu >= 0, "≥ 0")
    params = storage.checkpoint_params_billion
    check("storage.checkpoint_params_billion", params, params >= 0, "≥ 0")
    check("cluster.gpus", gpus, gpus >= 0, "≥ 0")
    check("facility.rack_power_kw", rack_power_kw, rack_power_kw > 0, "> 0")
    check("bytes_per_param", bytes_per_param, bytes_per_param > 0, "> 0", error=ValueError)


def size_storage(
    storage: Storage,
    book: PriceBook,
    *,
    gpus: int,
    rack_power_kw: float,
    frontend_gbps_per_gpu: float | None = None,
    catalogue: dict[str, StorageServerModel] | None = None,
    server_model: str | None = None,
    bytes_per_param: float = BYTES_PER_PARAM_TRAINING,
    checkpoint_warn_s: float = CHECKPOINT_WARN_S,
    plugged_port_gbps: float | None = None,
) -> StorageDesign:
    """Size the storage cluster for ``storage`` serving ``gpus`` GPUs.

    ``plugged_port_gbps`` [Gbit/s] is the speed of the switch ports the storage servers plug into (None: as fast
    as their NICs); a slower port caps each server's throughput, the servers are sized on the capped figure so
    the target still holds, and a warning says so.

    ``frontend_gbps_per_gpu`` [Gbit/s per GPU] is the compute servers' front-end bandwidth; when the
    storage rides the front end and that is below the target, a warning says so. ``server_model``
    picks a catalogue row (default: the vendor class's default model). ``usable_pb = 0`` means no
    shared storage at all (zero servers and a warning).
    """
    _check_inputs(storage, gpus, rack_power_kw, bytes_per_param)
    model = pick_model(catalogue or default_storage_catalogue(), storage.vendor_class, server_model)
    wired = port_capped(model, plugged_port_gbps)
    usable_tb = (storage.usable_pb or 0.0) * TB_PER_PB
    target = target_gbyte_per_s(gpus, storage.target_gbps_per_gpu)
    warnings: list[str] = []

    if usable_tb > 0:
        by_throughput = servers_for_throughput(wired, target)
        by_capacity = servers_for_capacity(model, usable_tb, storage.min_servers)
        servers = servers_for_capacity(model, usable_tb, max(by_capacity, by_throughput))
    else:
        by_throughput = by_capacity = servers = 0
        warnings.append("storage.usable_pb is 0: no shared storage (SLURM needs shared /home and /data)")

    per_server = data_drives_per_server(model, servers, usable_tb) if servers else 0
    hot_spare_drives = model.hot_spares if model.protection_domain == "drive" else 0
    drives_per_server = per_server + (hot_spare_drives if servers else 0)
    drives = servers * drives_per_server
    eff = net_efficiency(model, servers) if servers else 0.0
    raw_tb = servers * per_server * model.drive_tb
    read = servers * wired.server_read_gbyte_per_s
    write = servers * wired.server_write_gbyte_per_s
    ckpt_tb = checkpoint_tb(storage.checkpoint_params_billion, bytes_per_param)
    ckpt_s = checkpoint_write_s(ckpt_tb, write)
    power_kw = servers * model.power_kw
    racks = storage_racks(servers, model.rack_units, model.power_kw, rack_power_kw)
    frontend, backend, oob = storage_ports(servers, model, storage.network)

    if storage.network == "backend":
        warnings.append(BACKEND_WARNING)
    if storage.vendor_class == "self_built":
        warnings.append(NFS_WARNING)
    if servers and read < target - 1e-9:
        warnings.append(f"storage: aggregate read {read:.0f} GB/s is below the target {target:.0f} GB/s")
    if (
        servers
        and storage.network == "frontend"
        and frontend_gbps_per_gpu is not None
        and frontend_gbps_per_gpu < storage.target_gbps_per_gpu
    ):
        warnings.append(
            f"storage.target_gbps_per_gpu {storage.target_gbps_per_gpu:g} Gbit/s exceeds the front-end bandwidth "
            f"of {frontend_gbps_per_gpu:g} Gbit/s per GPU that carries it"
        )
    if ckpt_tb > 0 and ckpt_s > checkpoint_warn_s:
        warnings.append(
            f"storage: a {storage.checkpoint_params_billion:g}B-parameter checkpoint ({ckpt_tb:.1f} TB) takes "
            f"{ckpt_s:.0f} s to write, more than {checkpoint_warn_s:.0f} s"
        )

    return StorageDesign(
        model=model,
        vendor_class=storage.vendor_class,
        network=storage.network,
        licence_term=storage.licence_term,
        usable_tb=usable_tb,
        servers=servers,
        servers_for_capacity=by_capacity,
        servers_for_throughput=by_throughput,
        drives=drives,
        drives_per_server=drives_per_server,
        raw_tb=raw_tb,
        net_efficiency=eff,
        installed_net_tb=raw_tb * eff,
        max_net_tb=servers * data_bays(model) * model.drive_tb * eff,
        free_bays=servers * model.drive_bays - drives,
        stripe_data=stripe_data_blocks(model, servers) if servers else 0,
        read_gbyte_per_s=read,
        write_gbyte_per_s=write,
        target_gbyte_per_s=target,
        bytes_per_param=bytes_per_param,
        checkpoint_tb=ckpt_tb,
        checkpoint_write_s=ckpt_s,
        power_kw=power_kw,
        rack_units=servers * model.rack_units,
        racks=racks,
        free_rack_units=racks * RACK_UNITS_FOR_SERVERS - servers * model.rack_units,
        frontend_ports=frontend,
        backend_ports=backend,
        oob_ports=oob,
        port_gbps=model.port_gbps,
        lines=tuple(storage_lines(book, model, servers, drives, usable_tb, storage)),
        licence_usd_per_year=licence_usd_per_year(book, storage) if servers else 0.0,
        warnings=tuple(warnings),
        wired_port_gbps=wired.port_gbps,
    )


def rule_usable_pb(gpu_model: str, gpus: int) -> float:
    """Usable capacity by the platform's rule for ``gpus`` GPUs [PB] (``storage.usable_pb`` left empty): its row of
    ``data/platform_defaults.csv`` (PB per 1,024 GPUs) scaled to the count and rounded to 0.1 PB."""
    from ..inputs.platforms import platform_defaults  # reads the price book and catalogues; loaded when first asked

    try:
        rule = platform_defaults(gpu_model)["storage.usable_pb"]
    except KeyError:
        raise ScenarioError(f"cluster.gpu_model: no storage rule for {gpu_model!r}; set storage.usable_pb") from None
    return float(rule.for_gpus(gpus))


def design_storage(
    scenario: Scenario,
    book: PriceBook,
    *,
    catalogue: dict[str, StorageServerModel] | None = None,
    server_model: str | None = None,
    bytes_per_param: float = BYTES_PER_PARAM_TRAINING,
    checkpoint_warn_s: float = CHECKPOINT_WARN_S,
) -> StorageDesign:
    """:func:`size_storage` with GPU count, rack power and front-end bandwidth taken from ``scenario``."""
    fe = scenario.fabric.frontend
    st = scenario.storage
    if st.usable_pb is None:  # the platform's rule, for the GPUs of this (sized) design
        st = st.model_copy(update={"usable_pb": rule_usable_pb(scenario.cluster.gpu_model, scenario.cluster.gpus)})
    model = pick_model(catalogue or default_storage_catalogue(), st.vendor_class, server_model)
    return size_storage(
        st,
        book,
        gpus=scenario.cluster.gpus,
        rack_power_kw=scenario.facility.rack_power_kw,
        frontend_gbps_per_gpu=fe.port_gbps * fe.ports_per_node / gpus_per_frontend_unit(scenario),
        catalogue=catalogue,
        server_model=server_model,
        bytes_per_param=bytes_per_param,
        checkpoint_warn_s=checkpoint_warn_s,
        plugged_port_gbps=plugged_port_gbps(scenario, model.port_gbps),
    )

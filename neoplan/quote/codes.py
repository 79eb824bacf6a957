"""Quote-review vocabulary: capex categories, finding codes with their reasons, the article's thresholds."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache

from ..design.costs import total_usd
from ..design.fabric import UFM_REQUIRED_ABOVE_GPUS as UFM_REQUIRED_ABOVE_GPUS  # defined once, in fabric.py
from ..design.fabric import backend_lines, size_backend
from ..formats import usd_exact
from ..inputs.categories import QUOTE_CATEGORIES
from ..inputs.pricebook import default_platforms, default_price_book

DEFAULT_PRICE_TOLERANCE = 0.15
RAM_GB_PER_SERVER_RECOMMENDED = 1024.0
BACKEND_NICS_RECOMMENDED = 8
MISMATCH_SHARE = 0.005
CENT_USD = 0.01
CATEGORIES = QUOTE_CATEGORIES
"""Categories of a quote line: the capex ones, then ``software`` and ``discount`` (``data/categories.csv``)."""

_FINDING_TEXTS = {
    "cpu_top_bin": (
        "Top-bin CPUs",
        "LLM training barely uses the CPU: a mid-range Intel Xeon does the job (SemiAnalysis, AI Neocloud "
        "Playbook, 2024-10-03).",
    ),
    "ram_over_1tb": (
        "More RAM per server than the platform needs",
        "RAM per server need not exceed the platform's recommendation, at least the GPUs' HBM as OEMs ship it "
        "({ram_recommended}); more buys nothing for training, and RAM is the 4th most expensive item of the node.",
    ),
    "dpu_bluefield": (
        "BlueField-3 DPUs",
        "Drop the BlueField-3 DPUs and use one plain ConnectX NIC for the front end: a BlueField-3 costs more "
        "than an extra 54-core CPU and a neocloud does not need its offloads.",
    ),
    "frontend_spectrum": (
        "NVIDIA Spectrum front end",
        "The front end (internet, scheduler, storage) needs 25-50 Gbit/s per GPU on generic Ethernet switches "
        "(Arista, Cisco, OEM/ODM) with third-party optics; NVIDIA Spectrum SN4600-class switches and LinkX "
        "optics cost more for no gain.",
    ),
    "oob_spectrum": (
        "NVIDIA Spectrum out-of-band",
        "The out-of-band network only carries 1 GbE management of BMCs, PDUs and switches: any generic 1 GbE "
        "switch does; a Spectrum SN2201 is hard to justify.",
    ),
    "nvaie_license": (
        "NVIDIA AI Enterprise licences",
        "NVIDIA AI Enterprise / Base Command Manager costs {nvaie_usd} per GPU per year at MSRP; the article "
        "recommends dropping it (drivers, SLURM or Kubernetes and monitoring are free to run).",
    ),
    "nics_below_8": (
        "Fewer than 8 back-end NICs per server",
        "Fewer than 8 back-end NICs halves back-end bandwidth; most customers will not accept less than "
        "8×400G per HGX server.",
    ),
    "price_above_book": (
        "Unit price above the price book",
        "The unit price is well above the price book's street price for the same item: ask for a better price "
        "or a third-party equivalent.",
    ),
    "missing_item": (
        "Missing item",
        "The quote lacks parts the design needs to work; budget them now so that the comparison is like for "
        "like and the cluster can be cabled on delivery.",
    ),
    "optics_everywhere": (
        "Optics on every switch-to-switch link",
        "A virtual modular switch puts the spine rack between the leaf racks so leaf-to-spine links are "
        "passive DAC: cheaper and more reliable than optics (lasers are the main failure part); {vms_change} "
        "back-end cost at {gpus} GPUs.",
    ),
    "backend_nonblocking": (
        "Non-blocking back end",
        "For small clusters the article recommends 2:1 leaf oversubscription: pod-local traffic (TP/EP/PP) "
        "stays on the leaves and only data-parallel traffic crosses the spines; at {gpus} GPUs spines fall "
        "{spines_nonblocking} → {spines_2to1} and the back end costs {vms_2to1_saving} less than the reference, "
        "with spare leaf ports to add spines later.",
    ),
    "extended_mismatch": (
        "Quantity × unit price ≠ extended price",
        "The line's arithmetic does not add up; one of the figures is wrong. Ask the OEM which one holds.",
    ),
    "total_mismatch": (
        "Stated total ≠ sum of its lines",
        "The total the quote states differs from the sum of the lines above it by more than rounding explains: a "
        "line is missing, priced twice or mistyped. Ask which figure holds before the purchase order.",
    ),
    "cpu_amd": (
        "AMD CPUs in the GPU server",
        "The article prefers Intel in HGX servers: NCCL and virtualization are easier; on AMD you need "
        "NCCL_IB_PCI_RELAXED_ORDERING and NPS tuning.",
    ),
}
"""Finding code → (title, reason template); the ``{fields}`` are filled by :func:`_cited_figures`."""

_REFERENCE_GPUS = 1024
"""The article's reference cluster: 1,024 H100 in 128 HGX servers of 8 GPUs (BRIEF.md §2)."""


@lru_cache(maxsize=1)  # keyed on nothing: the shipped price book's figures; every finding title reads it (0.2 ms)
def _cited_figures() -> dict[str, str]:
    """The figures the reasons cite, from the shipped price book and the back-end model (evaluated once)."""
    book = default_price_book()

    def backend(topology: str, oversubscription: float = 1.0) -> tuple[float, int]:
        design = size_backend(_REFERENCE_GPUS // 8, topology=topology, oversubscription=oversubscription)
        return total_usd(backend_lines(design, book)), design.spine_switches

    reference, spines_nonblocking = backend("reference")
    vms, _ = backend("vms")
    vms_2to1, spines_2to1 = backend("vms", 2.0)
    from ..inputs.platforms import (
        default_table,  # the platform switch reads the scenario schema, which reads this module
    )

    platforms = default_platforms()
    ram = {k: fields["node.ram_tb"].value for k, fields in default_table().items() if not platforms[k].rack_scale}
    return {
        "ram_recommended": ", ".join(f"{tb:g} TB on {key.split('-')[0].upper()}" for key, tb in ram.items()),
        "nvaie_usd": usd_exact(book.price("nvidia_ai_enterprise_gpu_year")),
        "gpus": f"{_REFERENCE_GPUS:,}",
        "vms_change": f"{vms / reference - 1:+.1%}",
        "vms_2to1_saving": f"{1 - vms_2to1 / reference:.1%}",
        "spines_nonblocking": f"{spines_nonblocking:,}",
        "spines_2to1": f"{spines_2to1:,}",
    }


class _Findings(Mapping[str, tuple[str, str]]):
    """Finding code → (title, reason), reasons built on first read from the data they cite.

    Listing or testing codes (``code in FINDINGS``) evaluates nothing; reading a reason evaluates the
    back-end designs once (cached).
    """

    def __getitem__(self, code: str) -> tuple[str, str]:
        title, reason = _FINDING_TEXTS[code]
        return title, reason.format(**_cited_figures())

    def __iter__(self) -> Iterator[str]:
        return iter(_FINDING_TEXTS)

    def __len__(self) -> int:
        return len(_FINDING_TEXTS)


FINDINGS: Mapping[str, tuple[str, str]] = _Findings()
"""Finding code → (title, reason). Reasons paraphrase BRIEF.md §2 (SemiAnalysis, 2024-10-03)."""

_SWAP_FINDINGS = ("cpu_top_bin", "frontend_spectrum", "oob_spectrum")
_DROP_FINDINGS = ("nvaie_license", "dpu_bluefield")
DESIGN_FINDINGS = ("backend_nonblocking", "optics_everywhere")
"""Findings that change the design (fabric, storage) rather than remove padding: the headline counts them apart."""
DESIGN_CATEGORIES = ("backend_network", "storage")
"""Categories whose difference from the recommended design is a design change, not padding."""

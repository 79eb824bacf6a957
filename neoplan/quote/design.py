"""The recommended design at a quote's size: the base design (optimized) at its GPU count and platform."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ScenarioError
from ..inputs.loading import load_scenario
from ..inputs.pricebook import PriceBook, default_platforms
from ..inputs.scenario import Scenario
from ..model import Result, evaluate
from .accelerators import unsupported
from .cells import QuoteError
from .lines import QuoteLine


def design(
    name: str,
    lines: Sequence[QuoteLine],
    gpus: int | None,
    gpu_model: str | None,
    servers: int | None,
    base: str,
    book: PriceBook,
    warnings: list[str],
) -> tuple[Scenario | None, Result | None]:
    """The recommended scenario at the quote's size and its evaluation (an NVL72 quote: the NVL72 design of the
    same racks); None (with a warning) when impossible."""
    if not gpus or not gpu_model:
        return None, None
    platform = default_platforms().get(gpu_model)
    other = unsupported(gpu_model)
    if other is not None:
        warnings.insert(
            0,
            f"{other.name} ({other.per_server} per server, {other.hbm_gb:g} GB of HBM each): this platform is not "
            f"priced here (the price book prices NVIDIA HGX and NVL72 systems), so the quote is read — {gpus:,} "
            f"accelerators in {servers or '?'} servers, its lines, the network and price findings — with no "
            "comparison with an NVIDIA design and no advice on its servers' CPUs, memory or NICs",
        )
        return None, None
    if platform is None:
        known = ", ".join(sorted(default_platforms()))
        warnings.append(
            f"the quote is for {gpu_model}, a platform the price book does not know: the comparison with a "
            f"recommended design is made for {known}; findings are listed"
        )
        return None, None
    try:
        recommended = recommended_scenario(name, lines, gpus, gpu_model, servers, base, book)
        return recommended, evaluate(recommended)
    except (QuoteError, ScenarioError) as exc:
        warnings.append(f"the {base} design cannot be built at {gpus:,} GPUs ({exc}); no comparison")
        return None, None


def recommended_scenario(
    name: str, lines: Sequence[QuoteLine], gpus: int, gpu_model: str, servers: int | None, base: str, book: PriceBook
) -> Scenario:
    """The ``base`` design at the quote's GPU count and platform, keeping the quote's local NVMe per server.

    The platform brings its defaults (``cluster.platform_defaults``: rack power, servers per rack, NIC, rental
    price) where it is not the base design's own; the design is priced by ``book`` (the book of the quote's
    lines) when that book prices the platform, else by the platform's own book."""
    node: dict[str, Any] = {}
    nvme_tb = sum(ln.book_quantity for ln in lines if ln.price_key == "nvme_7_68tb" and ln.classified) * 7.68
    if servers and nvme_tb > 0:
        node["nvme_tb"] = round(min(nvme_tb / servers, 500.0), 2)
    data: dict[str, Any] = {
        "base": base,
        "name": f"Recommended for {name}"[:120],
        "description": f"{base} design at the size of the quote {name} ({gpus:,} GPUs), from the Quote review.",
        "cluster": {"gpus": gpus, "gpu_model": gpu_model, "platform_defaults": True},
    }
    if default_platforms()[gpu_model].baseboard_price_key in book:
        data["prices_as_of"] = book.as_of
    if node:
        data["node"] = node
    try:
        return load_scenario(data)
    except ScenarioError as exc:
        raise QuoteError(f"cannot build the recommended design for this quote: {exc}") from None

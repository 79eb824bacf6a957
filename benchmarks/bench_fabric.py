"""Timing of the fabric designer: ``python benchmarks/bench_fabric.py [repeats]``.

Reports the median wall time [ms] of ``design_fabric`` (all three networks,
priced) and of ``design_options`` (six back-end designs) at 1,024 and
100,000 GPUs, for the reference, optimized and a Spectrum-X fabric.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere without installing

from timing import median_ms

from neoplan.design.fabric import design_fabric, design_options
from neoplan.inputs.loading import scenario_from_dict
from neoplan.inputs.pricebook import default_price_book


def main(repeats: int = 50) -> None:
    book = default_price_book()
    cases = [(gpus, base, {}) for gpus in (1_024, 100_000) for base in ("reference", "optimized")]
    cases += [(gpus, "spectrum_x", {"fabric": {"topology": "spectrum_x"}}) for gpus in (1_024, 100_000)]
    for gpus, name, extra in cases:
        base = "optimized" if extra else name
        s = scenario_from_dict({"base": base, "cluster": {"gpus": gpus}, **extra})
        fab = median_ms(lambda s=s: design_fabric(s, book, frontend_extra_ports=22, oob_extra_ports=11), repeats)
        opts = median_ms(lambda s=s: design_options(s, book), repeats)
        print(f"{gpus:>7,} GPUs {name:<10}  design_fabric {fab:7.3f} ms   design_options {opts:7.3f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)

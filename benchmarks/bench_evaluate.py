"""Timing of the whole model: ``python benchmarks/bench_evaluate.py [repeats]``.

Reports the median (and fastest) wall time [ms] of ``neoplan.evaluate`` (sizing, monthly engine, failure model,
KPIs) and of the operations report alone, at 1,024 and 16,384 GPUs. Target: ``evaluate`` ≤ 5 ms median at 1,024
GPUs. On a shared 2-core machine the median moves with other load; the fastest run shows the code's own cost.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere without installing

from timing import median_ms, times_ms

from neoplan import evaluate
from neoplan.operations import operations_report
from neoplan.scenario import scenario_from_dict

TARGET_MS = 5.0



def main(repeats: int = 50) -> None:
    for gpus in (1_024, 16_384):
        for base in ("reference", "optimized"):
            s = scenario_from_dict({"base": base, "cluster": {"gpus": gpus, "hot_spare_share": 0.03}})
            design = evaluate(s).basis.reliability  # type: ignore[union-attr]
            runs = times_ms(lambda s=s: evaluate(s), repeats)
            whole, fastest = statistics.median(runs), min(runs)
            ops = median_ms(lambda s=s, d=design: operations_report(s, d), repeats)
            flag = "" if gpus != 1_024 or whole <= TARGET_MS else f"  (over the {TARGET_MS:g} ms target)"
            print(
                f"{gpus:>7,} GPUs {base:<9}  evaluate {whole:7.3f} ms (fastest {fastest:6.3f})"
                f"   operations_report {ops:6.3f} ms{flag}"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)

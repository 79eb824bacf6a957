"""Timing of the stress test: ``python benchmarks/bench_stress.py [repeats]``.

Reports the median (and fastest) wall time of each task over ``repeats`` runs (time.perf_counter) on the
1,024-GPU ``optimized`` preset, against the goals of issue 8:

==============================================  ==========
one deterministic ``evaluate``                    ≤ 5 ms
full tornado (12 drivers × low/high + base)       ≤ 0.3 s
21 × 21 two-way grid (price × utilization)        ≤ 0.5 s
Monte Carlo, 10,000 draws, all 12 drivers         ≤ 1 s
the same with capex paid mid-month                ≤ 1 s
==============================================  ==========

The mid-month run (``timeline.capex_timing``, issue 24) finds its IRRs on a grid of half months, twice the months
of the default run: it must stay within the same goal.

Wall time on a shared machine includes other processes' load; the fastest run shows the unloaded cost.
Exit code 1 if a median misses its goal.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere without installing

from neoplan import evaluate, load_scenario
from neoplan.analysis import stress

GOALS_S = {"evaluate": 0.005, "tornado": 0.3, "grid 21x21": 0.5, "monte carlo 10k": 1.0, "mc 10k mid-month": 1.0}


def timings_s(fn: Callable[[], object], repeats: int) -> list[float]:
    """Wall times of ``repeats`` calls of ``fn()`` after one warm-up call [s]."""
    fn()
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main(repeats: int = 15) -> int:
    scenario = load_scenario("optimized")
    result = evaluate(scenario)
    mid_month = evaluate(load_scenario({"base": "optimized", "timeline": {"capex_timing": "mid_month"}}))
    tasks: dict[str, tuple[Callable[[], object], int]] = {
        "evaluate": (lambda: evaluate(scenario), repeats * 20),
        "tornado": (lambda: stress.tornado(result), repeats * 2),
        "grid 21x21": (lambda: stress.grid(result, "usd_per_gpu_hour", "utilization", points=21), repeats * 2),
        "monte carlo 10k": (lambda: stress.monte_carlo(result, draws=10_000, seed=0), repeats),
        "mc 10k mid-month": (lambda: stress.monte_carlo(mid_month, draws=10_000, seed=0), repeats),
    }
    missed = 0
    print(f"{'task':<18}{'median':>12}{'fastest':>12}{'goal':>10}  runs")
    for name, (fn, runs) in tasks.items():
        times = timings_s(fn, runs)
        median, fastest, goal = statistics.median(times), min(times), GOALS_S[name]
        ok = median <= goal
        missed += not ok
        print(
            f"{name:<18}{median * 1e3:>9.2f} ms{fastest * 1e3:>9.2f} ms{goal * 1e3:>7.0f} ms  {runs:>4}"
            f"  {'ok' if ok else 'MISSED'}"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 15))

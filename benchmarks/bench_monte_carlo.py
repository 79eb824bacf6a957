"""Monte Carlo at scale: ``python benchmarks/bench_monte_carlo.py [draws ...]`` (default 100,000 and 1,000,000).

For each number of draws, in a fresh process (so that its peak resident memory is its own): wall time, seconds per
10⁵ draws and the process's peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``, KiB on Linux) for the
1,024-GPU ``optimized`` preset with a sculpted loan and every driver drawn, against issue 24's goal: draws up to 10⁶
in chunks with memory ≤ 1 GB. Exit code 1 if a run goes over it. Since issue 37 every draw meets the debt fixed at
close through the cash waterfall (the loan sized on the contracts; the cases with a lock-up, a breach or a default
run its loop over months): the covenant-breach, lock-up and payment-default probabilities are printed beside the
minimum-DSCR one. Compare a change with ``git archive`` of the commit before it, run in the same session.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from anywhere without installing

MEMORY_GOAL_MIB = 1024.0
SCENARIO = {"base": "optimized", "financing": {"amortization": "sculpted"}}


def run_once(draws: int) -> dict[str, float]:
    """One Monte Carlo of ``draws`` draws in this process: seconds, seconds per 10⁵ draws, peak RSS [MiB]."""
    from neoplan import evaluate, load_scenario
    from neoplan.analysis import stress

    result = evaluate(load_scenario(SCENARIO))
    start = time.perf_counter()
    mc = stress.monte_carlo(result, draws=draws, seed=0)
    seconds = time.perf_counter() - start
    summary = mc.summary()
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return {
        "draws": draws,
        "seconds": seconds,
        "seconds_per_1e5": seconds / draws * 1e5,
        "peak_rss_mib": peak_mib,
        "probability_dscr_breach": summary["probability_dscr_breach"],
        "se_probability_dscr_breach": summary["standard_errors"]["probability_dscr_breach"],
        "events": {
            key: summary[key]
            for key in ("probability_covenant_breach", "probability_lockup", "probability_payment_default")
            if key in summary
        },
    }


def main(counts: list[int]) -> int:
    over = 0
    print(f"{'draws':>10}{'seconds':>10}{'s / 1e5':>10}{'peak RSS':>12}  breach probability ± SE")
    for draws in counts:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(draws)], capture_output=True, text=True, check=True, cwd=ROOT
        )
        row = json.loads(out.stdout)
        over += row["peak_rss_mib"] > MEMORY_GOAL_MIB
        print(
            f"{draws:>10,}{row['seconds']:>10.1f}{row['seconds_per_1e5']:>10.2f}{row['peak_rss_mib']:>9.0f} MiB"
            f"  {row['probability_dscr_breach']:.4f} ± {row['se_probability_dscr_breach']:.4f}"
            + "".join(f"  {k.removeprefix('probability_')} {v:.4f}" for k, v in row.get("events", {}).items())
        )
    return 1 if over else 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        print(json.dumps(run_once(int(sys.argv[2]))))
        sys.exit(0)
    sys.exit(main([int(a) for a in sys.argv[1:]] or [100_000, 1_000_000]))

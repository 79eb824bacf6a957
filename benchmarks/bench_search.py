"""Timing of the design search: ``python benchmarks/bench_search.py [repeats]``.

Reports the median wall time of ``neoplan.evaluate`` on the ``b200_1024`` preset (fresh inputs each run, as in
bench_evaluate.py) and of ``neoplan.search`` over three spaces around it, per table row (a design × a debt share)
and per design built. Target: a search of ≥ 1,000 rows costs no more than one ``evaluate`` per row. A row shares
its design with the other debt shares of that design (one batch of the monthly engine); every design is built and
financed for real. On a shared 2-core machine the medians move with other load.
"""

from __future__ import annotations

import statistics
import sys
import time
from itertools import count
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere without installing

from timing import times_ms

from neoplan import evaluate
from neoplan.analysis.search import search
from neoplan.inputs.loading import scenario_from_dict
from neoplan.inputs.scenario import Scenario

BASE = "b200_1024"
SPACES = {
    "1,440 rows (360 designs × 4 debt shares)": {
        "oversubscriptions": [1.0, 1.5, 2.0],
        "debt_shares": [0.3, 0.45, 0.6, 0.75],
    },
    "10,080 rows (480 designs × 21 debt shares)": {
        "oversubscriptions": [1.0, 1.5, 2.0, 3.0],
        "debt_shares": [i / 25 for i in range(21)],
    },
}


def fresh(runs: count) -> Scenario:
    """The base preset with inputs no earlier run had (so no cache keyed on them is hit twice)."""
    e = next(runs) * 1e-6
    return scenario_from_dict(
        {"base": BASE, "pricing": {"usd_per_gpu_hour": 5.30 + e}, "financing": {"hurdle_rate": 0.12 + e}}
    )


def main(repeats: int = 5) -> None:
    runs = count(1)
    todo = iter([fresh(runs) for _ in range(30 * repeats + 1)])
    evaluate_ms = statistics.median(times_ms(lambda: evaluate(next(todo)), 30 * repeats))
    print(f"evaluate ({BASE}): {evaluate_ms:.3f} ms median")
    cases = [(name, space, BASE) for name, space in SPACES.items()]
    power = {"base": BASE, "cluster": {"size_by": "power"}, "facility": {"it_power_mw": 10}}
    cases.append(("1,440 rows sized to 10 MW", SPACES["1,440 rows (360 designs × 4 debt shares)"], "power"))
    for name, space, which in cases:
        seconds = []
        for _ in range(repeats):
            scenario = fresh(runs) if which == BASE else scenario_from_dict(power)
            start = time.perf_counter()
            found = search(scenario, space=space)
            seconds.append(time.perf_counter() - start)
        s = statistics.median(seconds)
        rows, designs = len(found.table), int(found.table["design"].nunique())
        per_row = 1000 * s / rows
        verdict = "within" if per_row <= evaluate_ms else "over"
        print(
            f"search {name}: {s:6.2f} s, {per_row:.3f} ms per row ({per_row / evaluate_ms:.2f} evaluate, {verdict} "
            f"the target), {1000 * s / designs:.3f} ms per design built"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)

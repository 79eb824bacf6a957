"""Server-side rerun time of every page after a widget change: ``python benchmarks/bench_pages.py [repeats]``.

Runs the whole app (``app.py``: navigation, header, sidebar and the page) under Streamlit's AppTest on the 1,024-GPU
``optimized`` preset. For each page it changes one of the page's widgets to a value not seen before (so the
model really re-evaluates, no cache hit on the scenario) and times the rerun (``time.perf_counter`` around
``AppTest.run``). Pages without inputs of their own (Overview, Results, Compare, Export, Scenarios) are timed
on the rerun that shows them right after the headline price was changed on Pricing & revenue. Goal (issue 12):
median ≤ 150 ms on every page.

Stress test is timed for three kinds of change: a display choice (tornado metric: nothing to recompute), a
new scenario (price changed on Pricing, then the page: tornado, grid and solvers re-run, the Monte Carlo too),
and a driver range (everything re-runs, the 10,000-draw Monte Carlo included).

Wall time on a shared machine includes other processes' load; the fastest run shows the unloaded cost.
Exit code 1 if a median misses the goal.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from anywhere without installing
os.environ.setdefault("NEOPLAN_LIBRARY", str(Path(tempfile.mkdtemp(prefix="neoplan-bench-")) / "scenarios.sqlite"))

from streamlit.runtime.scriptrunner import script_runner  # noqa: E402
from streamlit.runtime.scriptrunner.script_cache import ScriptCache  # noqa: E402
from streamlit.testing.v1 import AppTest, app_test  # noqa: E402

# A Streamlit server compiles each script once and keeps its bytecode; AppTest compiles app.py and the page again
# on every run (a new ScriptCache each time), which is no part of a server's rerun. Share one cache, as a server does.
_SCRIPTS = ScriptCache()
app_test.ScriptCache = lambda: _SCRIPTS  # type: ignore[assignment,misc]

# CPU time of the script thread per run: on a machine shared with other work, wall time measures the neighbours too.
_CPU_S: list[float] = []
_run_script = script_runner.ScriptRunner._run_script


def _timed_run_script(self: Any, *args: Any, **kwargs: Any) -> Any:
    start = time.thread_time()
    try:
        return _run_script(self, *args, **kwargs)
    finally:
        _CPU_S.append(time.thread_time() - start)


script_runner.ScriptRunner._run_script = _timed_run_script  # type: ignore[method-assign]

GOAL_S = 0.150
PRICE_KEY = "w.pricing.usd_per_gpu_hour"
Change = Callable[[AppTest, int], None]
"""Sets widget ``i`` (a value not used before) on the page shown; the timed rerun follows."""


def _number(key: str, start: float, step: float) -> Change:
    return lambda at, i: at.text_input(key=key).input(str(round(start + step * i, 6))) and None


def _submitted(key: str, start: float, step: float, button: str) -> Change:
    """A number typed into a form, then the form's button pressed (the timed rerun runs the form)."""

    def change(at: AppTest, i: int) -> None:
        at.text_input(key=key).input(str(round(start + step * i, 6)))
        at.button(key=button).click()

    return change


def _choice(kind: str, key: str, values: list[object]) -> Change:
    return lambda at, i: getattr(at, kind)(key=key).set_value(values[i % len(values)]) and None


# (name, page, change on the page itself or None = change the price on Pricing, then show the page)
CASES: list[tuple[str, str, Change | None]] = [
    ("Overview", "pages/overview.py", None),
    ("Compute node", "pages/compute_node.py", _number("w.node.ram_tb", 1.0, 0.25)),
    ("Network", "pages/network.py", _number("w.fabric.oversubscription", 1.0, 0.05)),
    ("Storage & site", "pages/storage_site.py", _number("w.storage.usable_pb", 2.0, 0.1)),
    ("Financing", "pages/financing.py", _number("w.financing.interest_rate", 9.0, 0.1)),
    ("Pricing & revenue", "pages/pricing.py", _number(PRICE_KEY, 2.5, 0.01)),
    ("Results", "pages/results.py", None),
    (
        "Stress: tornado metric",
        "pages/stress_test.py",
        _choice("radio", "stress.tornado_metric", ["npv_usd", "equity_irr", "payback_months", "project_irr"]),
    ),
    ("Stress: new scenario", "pages/stress_test.py", None),
    # Typing a range or a Monte Carlo setting reruns nothing (both sit in forms); "Apply ranges" is the explicit
    # action that recomputes the tornado, the grid and the 10,000-draw Monte Carlo: timed here as such.
    (
        "Stress: Apply ranges",
        "pages/stress_test.py",
        _submitted("stress.low.usd_per_gpu_hour", 1.5, 0.01, "stress.apply_ranges"),
    ),
    ("Scenarios", "pages/scenarios.py", None),
    ("Compare", "pages/compare.py", None),
    ("Quote review", "pages/quote_review.py", _number("quote.servers.text", 8, 1)),
    ("Export", "pages/export.py", None),
]


def rerun_times_s(page: str, change: Change | None, repeats: int) -> tuple[list[float], list[float]]:
    """Wall and script-thread CPU times of ``page``'s reruns after ``repeats`` widget changes, after one warm-up
    change [s]."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["stress.drivers_open"] = True  # the ranges' form is drawn only in its open expander
    at.run()
    at.switch_page(page).run()
    out, cpu = [], []
    for i in range(repeats + 1):
        if change is None:
            at.switch_page("pages/pricing.py").run()
            at.text_input(key=PRICE_KEY).input(str(round(2.0 + 0.01 * i, 4))).run()
            at.switch_page(page)
        else:
            change(at, i)
        _CPU_S.clear()
        start = time.perf_counter()
        at.run()
        elapsed = time.perf_counter() - start
        if at.exception:
            raise RuntimeError(f"{page}: {at.exception[0].message}")
        if i:  # the first change warms caches that every later change reuses (imports, price book …)
            out.append(elapsed)
            cpu.append(sum(_CPU_S))
    return out, cpu


def main(repeats: int = 7) -> int:
    missed = 0
    print(f"goal: median wall time ≤ {GOAL_S * 1e3:.0f} ms; {repeats} reruns each; CPU = the script thread's own")
    print(f"{'page (change)':<26}{'median':>10}{'fastest':>11}{'CPU median':>13}")
    for name, page, change in CASES:
        times, cpu = rerun_times_s(page, change, repeats)
        median = statistics.median(times)
        ok = median <= GOAL_S
        missed += not ok
        print(
            f"{name:<26}{median * 1e3:>7.0f} ms{min(times) * 1e3:>8.0f} ms{statistics.median(cpu) * 1e3:>10.0f} ms"
            f"  {'ok' if ok else 'MISSED'}"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 7))

"""One evaluation against other models, paired: ``python benchmarks/bench_paired.py [--ai-infra DIR] [--neoplan DIR]``.

Times one evaluation (load + evaluate + ``to_dict`` of the ``optimized`` preset, fresh inputs each call as in
``bench_evaluate.py``) of this checkout, and in the same session:

- ``--ai-infra DIR``: the open GPU Cloud Model of ai-infra-model (``DIR`` = the ``ai-infra-model-main-2`` folder of
  github.com/ljbaumer/LJG_Testing, ``2_applications/``, with its ``src/`` and ``data/``): its default scenario at
  1,024 GPUs with debt financing, ``run_model()`` + ``get_summary_metrics()``, the price a few parts per million
  apart each call;
- ``--neoplan DIR`` (repeatable): another neoplan checkout (e.g. ``git archive a540ed4 neoplan data | tar -x -C
  DIR``), the same evaluation.

Each model runs in its own process (two ``neoplan`` packages cannot share one); the processes take turns, a round of
calls each, so that every model meets the same load on a shared machine. Reports the median and fastest call [ms] of
each and this checkout's ratio to each other model; the goal (issue 34) is ≥ 5× faster than the GPU Cloud Model.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_RATIO = 5.0

_NEOPLAN = """
import sys, time, json
sys.path.insert(0, {root!r})
from itertools import count
from neoplan import evaluate, load_scenario
runs = count(1)
def call():
    e = next(runs) * 1e-6
    s = load_scenario({{"base": "optimized", "pricing": {{"usd_per_gpu_hour": 2.80 + e, "utilization": 0.85 - e}},
                        "financing": {{"hurdle_rate": 0.12 + e}}}})
    return evaluate(s).to_dict()
"""

_AI_INFRA = """
import sys, time, json, os, dataclasses
sys.path.insert(0, {root!r})
os.chdir({root!r})
from itertools import count
from src.constants.gpu_cloud_scenarios_dataclass import DEFAULT_SCENARIO, create_gpu_cloud_model_from_scenario
runs = count(1)
def call():
    e = next(runs) * 1e-6
    scenario = dataclasses.replace(DEFAULT_SCENARIO, gpu_count=1024, neocloud_gpu_cost_per_chip_hour=3.0 + e)
    model = create_gpu_cloud_model_from_scenario(scenario)
    model.run_model()
    return model.get_summary_metrics()
"""

_LOOP = """
for _ in range(5):
    call()
print("ready", flush=True)
for line in sys.stdin:
    times = []
    for _ in range(int(line)):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    print(json.dumps(times), flush=True)
"""


def _start(code: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", code + _LOOP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        raise SystemExit(f"a model did not start: {code.splitlines()[2]}")
    return proc


def _round(proc: subprocess.Popen[str], calls: int) -> list[float]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{calls}\n")
    proc.stdin.flush()
    return list(json.loads(proc.stdout.readline()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ai-infra", type=Path, help="the ai-infra-model-main-2 folder (src/ and data/)")
    parser.add_argument("--neoplan", type=Path, action="append", default=[], help="another neoplan checkout (repeat)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--calls", type=int, default=20, help="calls per model per round")
    args = parser.parse_args(argv)
    models = {"this checkout": _NEOPLAN.format(root=str(ROOT))}
    for other in args.neoplan:
        models[f"neoplan at {other}"] = _NEOPLAN.format(root=str(other.resolve()))
    if args.ai_infra:
        models["ai-infra-model GPU Cloud Model"] = _AI_INFRA.format(root=str(args.ai_infra.resolve()))
    procs = {name: _start(code) for name, code in models.items()}
    times: dict[str, list[float]] = {name: [] for name in procs}
    try:
        for _ in range(args.rounds):
            for name, proc in procs.items():
                times[name] += _round(proc, args.calls)
    finally:
        for proc in procs.values():
            proc.kill()
    ours = statistics.median(times["this checkout"])
    for name, t in times.items():
        median, fastest = statistics.median(t), min(t)
        ratio = "" if name == "this checkout" else f"   this checkout {median / ours:5.2f}× faster (median)"
        print(f"{name:<40} median {median:7.2f} ms   fastest {fastest:7.2f} ms{ratio}")
    ai = times.get("ai-infra-model GPU Cloud Model")
    if ai and statistics.median(ai) / ours < GOAL_RATIO:
        print(f"under the goal of {GOAL_RATIO:g}× the GPU Cloud Model's speed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Wall-time helpers shared by the benchmark scripts (run them as scripts: this folder is then on ``sys.path``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def times_ms(fn: Callable[[], object], repeats: int) -> list[float]:
    """Wall time of each of ``repeats`` calls of ``fn()`` after one warm-up call (caches) [ms]."""
    fn()
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``fn()`` over ``repeats`` calls [ms]."""
    return statistics.median(times_ms(fn, repeats))

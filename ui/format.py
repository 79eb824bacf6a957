"""Number formats used on every page (the same ones the exports use): see neoplan.formats."""

from neoplan.formats import NA, count, months, mw, pct, ratio, usd, usd_exact, usd_per_gpu_hour

__all__ = ["NA", "count", "months", "mw", "pct", "ratio", "usd", "usd_exact", "usd_per_gpu_hour"]

"""Command line: ``python -m neoplan evaluate FILE [--json]``.

A FILE may be a path to a YAML/JSON scenario or the name of a preset
(``reference``, ``optimized``). Bad input exits with code 2 and one line on
stderr naming the field; no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from .model import Result, evaluate
from .pricebook import PriceBookError
from .scenario import ScenarioError, load_scenario

EXIT_USAGE = 2


def _money(value: float | None) -> str:
    return "n/a" if value is None else f"${value:,.0f}"


def summary(result: Result) -> str:
    """A short human-readable summary of ``result``."""
    d = result.to_dict()
    rows: list[tuple[str, Any]] = [
        ("scenario", d["scenario"]),
        (
            "GPUs / servers",
            f"{d['gpus']:,} GPUs in {d['servers']:,} servers ({result.platform.name})"
            + (f" + {d['spare_servers']} hot spares" if d["spare_servers"] else ""),
        ),
        ("node price", _money(d["node_capex_usd"])),
        ("saving vs OEM default node", f"{_money(d['node_saving_vs_oem_usd'])} per server"),
    ]
    rows += [(f"capex {k}", _money(v)) for k, v in d["capex_usd"].items() if v]
    width = max(len(k) for k, _ in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    lines += [f"warning: {w}" for w in d["warnings"]]
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m neoplan", description="GPU cloud capacity planning.")
    sub = parser.add_subparsers(dest="command", required=True)
    ev = sub.add_parser("evaluate", help="evaluate a scenario file or preset")
    ev.add_argument("file", help="scenario YAML/JSON file, or a preset name (reference, optimized)")
    ev.add_argument("--json", action="store_true", help="print the JSON contract instead of a summary")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its one-line usage error
        return int(exc.code or 0)
    try:
        result = evaluate(load_scenario(args.file))
    except (ScenarioError, PriceBookError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(summary(result))
    return 0

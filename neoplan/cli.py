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
    if value is None:
        return "n/a"
    sign = "-" if value < 0 else ""
    v = abs(value)
    return f"{sign}${v / 1e6:,.2f} M" if v >= 1e6 else f"{sign}${v:,.0f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f} %"


def _per_hour(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.2f} /GPU-h"


def summary(result: Result) -> str:
    """A short human-readable summary of ``result``."""
    d = result.to_dict()
    b = d["backend"]
    spares = f" + {d['spare_servers']} hot spares" if d["spare_servers"] else ""
    payback = "n/a" if d["payback_months"] is None else f"{d['payback_months']:.1f} months"
    dscr = "n/a" if d["min_dscr"] is None else f"{d['min_dscr']:.2f}x"
    rows: list[tuple[str, Any]] = [
        ("scenario", d["scenario"]),
        ("GPUs / servers", f"{d['gpus']:,} GPUs in {d['servers']:,} servers{spares} ({result.platform.name})"),
        ("node price", f"{_money(d['node_capex_usd'])} ({_money(d['node_saving_vs_oem_usd'])} below OEM default)"),
        ("back end", f"{b['topology']} {b['oversubscription']:g}:1, {b['leaf_switches']} leaf / "
                     f"{b['spine_switches']} spine / {b['core_switches']} core switches, "
                     f"{b['transceivers']:,} transceivers, {b['cables']:,} cables"),
        ("power", f"{d['it_power_peak_kw'] / 1000:.2f} MW IT peak, {d['racks']} racks"),
    ]
    rows += [(f"capex {k}", _money(v)) for k, v in d["capex_usd"].items() if v]
    rows += [
        ("capex per server excl. storage", _money(d["capex_per_server_excl_storage_usd"])),
        ("opex per year (run rate)", _money(d["opex_usd_per_year"]["total"])),
        ("TCO", _per_hour(d["tco_usd_per_gpu_hour"])),
        ("break-even price", _per_hour(d["breakeven_usd_per_gpu_hour"])),
        ("NPV at hurdle", _money(d["npv_usd"])),
        ("project IRR / equity IRR", f"{_pct(d['project_irr'])} / {_pct(d['equity_irr'])}"),
        ("payback", payback),
        ("min DSCR", dscr),
    ]
    width = max(len(k) for k, _ in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    lines += [f"warning: {w}" for w in d["warnings"]]
    return "\n".join(lines)


class UsageError(ValueError):
    """Bad input to a command: exit code 2 with a one-line message."""


def cmd_evaluate(args: argparse.Namespace) -> int:
    """``evaluate FILE [--json]``: the summary or the JSON contract."""
    result = evaluate(load_scenario(args.file))
    print(json.dumps(result.to_dict(), indent=2) if args.json else summary(result))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m neoplan", description="GPU cloud capacity planning.")
    sub = parser.add_subparsers(dest="command", required=True)
    ev = sub.add_parser("evaluate", help="evaluate a scenario file or preset")
    ev.add_argument("file", help="scenario YAML/JSON file, or a preset name (reference, optimized)")
    ev.add_argument("--json", action="store_true", help="print the JSON contract instead of a summary")
    ev.set_defaults(func=cmd_evaluate)
    # Further subcommands (report, quote, stress) register here: add_parser(...).set_defaults(func=cmd_...),
    # each handler returning an exit code and raising ScenarioError / UsageError for bad input.
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input, 1 internal error)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its usage error
        return int(exc.code or 0)
    try:
        return int(args.func(args))
    except (ScenarioError, PriceBookError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into `head` and closed early
        return 0
    except Exception as exc:  # never a traceback in front of a user
        print(f"error: internal error ({type(exc).__name__}: {exc}); please report it", file=sys.stderr)
        return 1

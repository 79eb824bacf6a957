"""Command line: ``python -m neoplan evaluate FILE [--json]``, ``stress FILE --draws N --seed S [--json]``,
``advice FILE [--json]`` (the article's recommendations tested on the scenario, :mod:`neoplan.analysis.advice`),
``search FILE [--objective K] [--min-dscr X] [--max-capex-usd X] [--top N] [--json]``,
``library list|save|show|history|diff|delete`` (:mod:`neoplan.cli_library`), ``check-server [--secrets FILE]`` (the
team server's secrets, :mod:`neoplan.store.access`; compose.yaml runs it before the app starts) ….

A FILE may be a path to a YAML/JSON scenario or the name of a preset
(``reference``, ``optimized``). Bad input exits with code 2 and one line on
stderr naming the field; no traceback. A broken data file (``data/``) exits with
code 1 and one line naming the file, row and column. Everything printed goes through
:func:`neoplan.plaintext.for_terminal`: a control, bidirectional or zero-width character in a file's text is shown
as an escape (``\x1b``), never sent to the terminal.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tomllib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

from . import cli_library, formats, metrics
from .errors import DataError, ScenarioError
from .inputs.loading import load_scenario
from .inputs.pricebook import BOOK_DATES, PriceBookError
from .metrics import METRICS, lookup
from .model import Result, evaluate
from .plaintext import for_terminal

EXIT_USAGE = 2


def summary(result: Result) -> str:
    """A short human-readable summary of ``result``: labels and formats of :data:`neoplan.metrics.METRICS`."""
    d = result.to_dict()
    b = d["backend"]

    def row(key: str, extra: str = "") -> tuple[str, str]:
        m = METRICS[key]
        return m.label, m.text(lookup(d, key)) + extra

    spares = f" + {d['spare_servers']} hot spares" if d["spare_servers"] else ""
    nodes = "racks" if result.platform.rack_scale else "servers"
    saving = f" ({metrics.text('node_saving_vs_oem_usd', d['node_saving_vs_oem_usd'])} below OEM default)"
    rows: list[tuple[str, str]] = [
        ("Scenario", d["scenario"]),
        (
            "GPUs / servers",
            f"{d['gpus']:,} GPUs in {d['servers']:,} {nodes}{spares} ({result.platform.name}), "
            f"hardware prices as of {result.book.as_of}",
        ),
        row("node_capex_usd", saving),
        (
            "Back end",
            f"{b['topology']} {b['oversubscription']:g}:1, {b['leaf_switches']} leaf / "
            f"{b['spine_switches']} spine / {b['core_switches']} core switches, "
            f"{b['transceivers']:,} transceivers, {b['cables']:,} cables",
        ),
        row("it_power_peak_kw", f", {metrics.text('racks', d['racks'])} racks"),
    ]
    rows += [row(f"capex_usd.{k}") for k, v in d["capex_usd"].items() if v and k != "total"]
    rows += [
        row(key)
        for key in (
            "capex_usd.total",
            "capex_per_server_excl_storage_usd",
            "opex_usd_per_year.total",
            "tco_usd_per_gpu_hour",
            "breakeven_usd_per_gpu_hour",
            "npv_usd",
            "project_irr",
            "equity_irr",
            "payback_months",
            "min_dscr",
        )
    ]
    if d["envelope"] is not None:
        e = d["envelope"]
        rows.insert(
            2,
            (
                "Power envelope",
                f"{e['it_used_mw']:,.3f} of {e['it_power_mw']:,g} MW IT used ({formats.pct(e['fill_share'])}), "
                f"{metrics.text('it_power_left_kw', d['it_power_left_kw'])} left",
            ),
        )
    if d["tokens_per_second_per_gpu"] is not None:
        s = d["serving"]
        shown = {k: metrics.text(k, d[k]) for k in metrics.TOKEN_KEYS}
        rows.append(
            (
                "Token serving",
                f"{s['workload']} ({s['serving_scenario']}): {shown['tokens_per_second_per_gpu']} per GPU, cost "
                f"{shown['cost_usd_per_million_tokens']}, break-even {shown['breakeven_usd_per_million_tokens']}, "
                f"sold at {shown['usd_per_million_tokens']}",
            )
        )
    width = max(len(k) for k, _ in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    lines += [f"warning: {w}" for w in d["warnings"]]
    return "\n".join(lines)


class UsageError(ValueError):
    """Bad input to a command: exit code 2 with a one-line message."""


def cmd_evaluate(args: argparse.Namespace) -> int:
    """``evaluate FILE [--json]``: the summary or the JSON contract."""
    result = evaluate(load_scenario(args.file))
    print(json.dumps(result.to_dict(), indent=2, allow_nan=False) if args.json else summary(result))
    return 0


def cmd_advice(args: argparse.Namespace) -> int:
    """``advice FILE [--json]``: each of the article's recommendations, its NPV difference and its flip point."""
    from .analysis import advice

    table = advice.recommendations(load_scenario(args.file))
    print(json.dumps(advice.records(table), indent=2, allow_nan=False) if args.json else advice.text_table(table))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """``report FILE --out DIR``: workbook, HTML report and one CSV per table into DIR; prints the paths."""
    from .analysis.stress import Settings
    from .export import write_report
    from .files import out_folder

    try:
        out_folder(args.out)
    except ValueError as exc:
        raise UsageError(f"--out {args.out!r} {exc}") from None
    result = evaluate(load_scenario(args.file))
    settings = Settings(draws=args.draws, seed=args.seed, run="the command line's (--draws, --seed)")
    try:
        paths = write_report(result, args.out, settings)
    except OSError as exc:
        raise UsageError(f"--out {args.out}: cannot write the report ({exc.strerror or exc})") from None
    print("\n".join(str(p) for p in paths))
    return 0


def cmd_quote(args: argparse.Namespace) -> int:
    """``quote FILE [--json] [--servers N] [--usd-per-unit X] [--tolerance X] [--option N] [--aliases FILE]
    [--size-from R] [--currency C] [--book D]``: review an OEM quote (CSV/XLSX)."""
    from .quote import QuoteError, default_rules, load_quote, read_aliases_file, text_summary

    try:
        aliases = read_aliases_file(args.aliases, default_rules()) if args.aliases else []
        review = load_quote(
            args.file,
            args.servers,
            currency=args.currency,
            usd_per_unit=args.usd_per_unit,
            price_tolerance=args.tolerance,
            option=args.option,
            aliases=aliases,
            size_from=args.size_from,
            book=args.book,
        )
    except QuoteError as exc:
        raise UsageError(str(exc)) from None
    print(json.dumps(review.to_dict(), indent=2) if args.json else text_summary(review))
    return 0


def _stress_text(mc: Any, solutions: dict[str, Any]) -> str:
    """A short human-readable summary of a Monte Carlo run and the solvers."""
    from .analysis.stress import METRIC_LABELS

    s = mc.summary()
    keys = ("project_irr", "equity_irr", "npv_usd", "equity_moic", "payback_months", "min_dscr")
    fmt = {k: METRICS[k].text for k in keys} | {"payback_months": lambda v: "never" if v is None else formats.months(v)}
    lines = [
        f"Monte Carlo: {s['draws']:,} draws, seed {s['seed']}, price–utilization correlation "
        f"{s['price_utilization_correlation']:g}",
        f"{'':16}{'P10':>14}{'P50':>14}{'P90':>14}{'scenario':>14}{'sits at':>9}",
    ]
    for metric, show in fmt.items():
        p, where = s[metric], s["base_case_percentile"][metric]
        lines.append(
            f"{METRIC_LABELS[metric]:16}"
            + "".join(f"{show(p[k]):>14}" for k in ("p10", "p50", "p90"))
            + f"{show(s['deterministic'][metric]):>14}"
            + f"{'' if where is None else f'P{where:.0f}':>9}"
        )
    lines += [
        f"{'probability of loss (equity MOIC < 1)':40}{formats.pct(s['probability_of_loss']):>8}",
        f"{'probability NPV < 0 at the hurdle rate':40}{formats.pct(s['probability_npv_negative']):>8}",
        f"{'probability min DSCR < covenant ' + format(s['covenant_dscr'], 'g') + 'x':40}"
        f"{formats.pct(s['probability_dscr_breach']):>8}",
        *(
            f"{label:40}{formats.pct(s[key]):>8}"
            for key, label in (
                ("probability_covenant_breach", "probability of a covenant breach"),
                ("probability_lockup", "probability of a lock-up"),
                ("probability_payment_default", "probability of a payment default"),
            )
            if key in s
        ),
    ]
    for sol in solutions.values():
        lines.append(f"solver: {sol.message}")
    return "\n".join(lines)


def cmd_stress(args: argparse.Namespace) -> int:
    """``stress FILE --draws N --seed S [--json]``: Monte Carlo percentiles, probabilities and break-even solvers."""
    from .analysis import stress

    if not -0.99 < args.target_irr < 10:
        raise UsageError(f"--target-irr must be between -0.99 and 10 (a fraction per year), got {args.target_irr}")
    result = evaluate(load_scenario(args.file))
    mc = stress.monte_carlo(
        result, draws=args.draws, seed=args.seed, correlation=args.correlation, covenant_dscr=args.covenant
    )
    solutions = stress.solve_all(result, args.target_irr, mc.covenant_dscr)
    if args.json:
        out = mc.summary()
        out["solvers"] = {
            k: {
                "driver": v.driver,
                "metric": v.metric,
                "target": v.target,
                "value": v.value,
                "achieved": v.achieved,
                "message": v.message,
            }
            for k, v in solutions.items()
        }
        print(json.dumps(out, indent=2, allow_nan=False))
    else:
        print(_stress_text(mc, solutions))
    return 0


def _search_text(found: Any, top: int) -> str:
    """The ``top`` rows of a search as a text table."""
    head = f"{'#':>4}  {'platform':<12}{'topology':<11}{'ratio':>6}{'NICs':>5}  {'storage':<11}{'debt':>6}"
    head += f"{'GPUs':>8}{'capex':>11}{'NPV':>11}{'IRR':>9}{'eq. IRR':>10}{'DSCR':>7}{'TCO':>14}  feasible"
    lines = [
        f"{found.objective} over {found.table['design'].nunique():,} designs × {len(found.space.debt_shares)} debt "
        f"shares = {len(found.table):,} rows, {int(found.table['feasible'].sum()):,} feasible, "
        f"{found.seconds:.2f} s",
        head,
    ]
    for r in found.table.head(top).to_dict(orient="records"):
        built = r["feasible"] or r["capex_usd"] == r["capex_usd"]  # NaN capex: the design could not be built
        figures = (
            f"{r['gpus']:>8,}{formats.usd(r['capex_usd']):>11}{formats.usd(r['npv_usd']):>11}"
            f"{formats.pct(r['project_irr']):>9}{formats.pct(r['equity_irr']):>10}{formats.ratio(r['min_dscr']):>7}"
            f"{formats.usd_per_gpu_hour(r['tco_usd_per_gpu_hour']):>14}"
            if built
            else f"{'':>70}"
        )
        fabric = f"{r['topology']:<11}{r['oversubscription']:>5g}:1{r['nics_per_node']:>5}"
        verdict = "yes" if r["feasible"] else f"no: {r['infeasible_reason']}"
        debt = formats.pct(r["debt_share"], 0)
        lines.append(f"{r['rank']:>4}  {r['gpu_model']:<12}{fabric}  {r['storage']:<11}{debt:>6}{figures}  {verdict}")
    return "\n".join(lines)


def cmd_search(args: argparse.Namespace) -> int:
    """``search FILE [--objective K] [--min-dscr X] [--max-capex-usd X] [--min-equity-irr X] [--top N] [--json]``."""
    from .analysis.search import search

    if args.top < 1:
        raise UsageError(f"--top must be ≥ 1, got {args.top}")
    constraints = {
        "min_dscr": args.min_dscr,
        "max_capex_usd": args.max_capex_usd,
        "min_equity_irr": args.min_equity_irr,
    }
    found = search(load_scenario(args.file), objective=args.objective, constraints=constraints)
    if args.json:
        print(json.dumps(found.to_dict(top=args.top), indent=2, allow_nan=False))
    else:
        print(_search_text(found, args.top))
    return 0


def cmd_check_server(args: argparse.Namespace) -> int:
    """``check-server [--secrets FILE]``: exit 2 naming what is unsafe in the team server's secrets (the Streamlit
    secrets file and ``$NEOPLAN_SHARE_SECRET``): an example or short secret, an ``[auth]`` without an allow-list."""
    from .store.access import server_problems

    data: dict[str, Any] = {}
    if args.secrets and not os.path.exists(args.secrets):
        print(f"note: no secrets file at {args.secrets} (Streamlit then runs without sign-in)")
    elif args.secrets:
        try:
            with open(args.secrets, "rb") as fh:
                data = tomllib.load(fh)
        except OSError as exc:
            raise UsageError(f"--secrets {args.secrets}: cannot be read ({exc.strerror or exc})") from None
        except tomllib.TOMLDecodeError as exc:
            raise UsageError(f"--secrets {args.secrets}: not valid TOML ({exc})") from None
    auth = data.get("auth") if isinstance(data.get("auth"), dict) else None
    share = data.get("share_secret") or os.environ.get("NEOPLAN_SHARE_SECRET") or None
    problems = server_problems(auth, None if share is None else str(share))
    if problems:
        raise UsageError("the server is not set up safely: " + "; ".join(problems))
    links = "share links on" if share else "share links off (no NEOPLAN_SHARE_SECRET)"
    print(f"ok: {'sign-in with an allow-list' if auth else 'no sign-in (one local user)'}, {links}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m neoplan", description="GPU cloud capacity planning.")
    sub = parser.add_subparsers(dest="command", required=True)
    ev = sub.add_parser("evaluate", help="evaluate a scenario file or preset")
    ev.add_argument("file", help="scenario YAML/JSON file, or a preset name (reference, optimized)")
    ev.add_argument("--json", action="store_true", help="print the JSON contract instead of a summary")
    ev.set_defaults(func=cmd_evaluate)
    adv = sub.add_parser("advice", help="test the article's recommendations on a scenario: NPV difference, flip point")
    adv.add_argument("file", help="scenario YAML/JSON file, or a preset name (reference, optimized)")
    adv.add_argument("--json", action="store_true", help="print the rows as JSON instead of a table")
    adv.set_defaults(func=cmd_advice)
    rep = sub.add_parser("report", help="write the Excel workbook, CSV tables and HTML report of a scenario")
    rep.add_argument("file", help="scenario YAML/JSON file, or a preset name (reference, optimized)")
    rep.add_argument("--out", required=True, metavar="DIR", help="folder to write into (created if missing)")
    rep.add_argument(
        "--draws",
        type=int,
        default=10_000,
        metavar="N",
        help="Monte Carlo draws of the stress sheets and report section (default 10,000)",
    )
    rep.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of the stress test (default 0)")
    rep.set_defaults(func=cmd_report)
    qu = sub.add_parser("quote", help="review an OEM quote (CSV/XLSX): classify lines, flag padding, price savings")
    qu.add_argument("file", help="quote file, .csv or .xlsx (a file over the size limit is refused, naming it)")
    qu.add_argument("--json", action="store_true", help="print the JSON review instead of a summary")
    qu.add_argument(
        "--servers",
        type=int,
        default=None,
        metavar="N",
        help="servers bought, for a quote that prices one server (default: read from the quote)",
    )
    qu.add_argument(
        "--usd-per-unit",
        type=float,
        default=None,
        metavar="X",
        help="US dollars per unit of the quote's currency, e.g. 1.08 for a quote in EUR (needed unless in USD)",
    )
    qu.add_argument(
        "--tolerance",
        type=float,
        default=0.15,
        metavar="X",
        help="flag unit prices more than X (a fraction) over the price book (default 0.15)",
    )
    qu.add_argument(
        "--option",
        default=None,
        metavar="N",
        help="the alternative to review when the quote offers several (Option A/B): its number or label (default 1)",
    )
    qu.add_argument(
        "--aliases",
        default=None,
        metavar="FILE",
        help="a vendor's alias list (JSON: [{pattern, category, quantity_basis?}]) applied before the rules",
    )
    qu.add_argument(
        "--size-from",
        default=None,
        choices=("lines", "boards", "stated", "trays", "cpus", "nics"),
        help="the reading of the cluster's size to take when the readings disagree (default: the server lines)",
    )
    qu.add_argument(
        "--currency",
        default=None,
        metavar="C",
        help="the quote's currency (ISO code: CNY, JPY, KRW, …) when the quote does not say it or says it wrong, e.g. "
        "prices marked ¥",
    )
    qu.add_argument(
        "--book",
        default=None,
        choices=BOOK_DATES,
        help="the price book to check the quote against (default: the book nearest the quote's date, else "
        f"{BOOK_DATES[0]})",
    )
    qu.set_defaults(func=cmd_quote)
    st = sub.add_parser("stress", help="Monte Carlo stress test: P10/P50/P90 of IRR, NPV, payback, DSCR")
    st.add_argument("file", help="scenario YAML/JSON file, or a preset name (reference, optimized)")
    st.add_argument("--draws", type=int, default=10_000, metavar="N", help="Monte Carlo draws (default 10,000)")
    st.add_argument("--seed", type=int, default=0, metavar="S", help="random seed; the same seed, the same result")
    st.add_argument("--json", action="store_true", help="print the JSON summary instead of a table")
    st.add_argument(
        "--correlation",
        type=float,
        default=0.0,
        metavar="R",
        help="rank correlation of price and utilization, -1 to 1 (default 0)",
    )
    st.add_argument(
        "--covenant",
        type=float,
        default=None,
        metavar="X",
        help="DSCR covenant for the breach probability and the debt solver (default: the scenario's)",
    )
    st.add_argument(
        "--target-irr",
        type=float,
        default=0.20,
        metavar="X",
        help="equity IRR the price solver aims at, a fraction per year (default 0.20)",
    )
    st.set_defaults(func=cmd_stress)
    se = sub.add_parser("search", help="design search: every platform, fabric, storage tier and debt share, ranked")
    se.add_argument("file", help="scenario YAML/JSON file, or a preset name (the base of every design)")
    se.add_argument(
        "--objective",
        default="npv_usd",
        help="what ranks the designs: npv_usd (default), project_irr, equity_irr, min_dscr, tco_usd_per_gpu_hour, "
        "capex_usd, breakeven_usd_per_gpu_hour, cost_usd_per_million_tokens, breakeven_usd_per_million_tokens",
    )
    se.add_argument("--min-dscr", type=float, default=None, metavar="X", help="constraint: min DSCR at least X")
    se.add_argument("--max-capex-usd", type=float, default=None, metavar="X", help="constraint: capex at most X USD")
    se.add_argument(
        "--min-equity-irr", type=float, default=None, metavar="X", help="constraint: equity IRR at least X (fraction)"
    )
    se.add_argument("--top", type=int, default=20, metavar="N", help="rows shown (default 20)")
    se.add_argument("--json", action="store_true", help="print the JSON summary and the top rows")
    se.set_defaults(func=cmd_search)
    cs = sub.add_parser("check-server", help="check the team server's secrets before it starts (exit 2 if unsafe)")
    cs.add_argument("--secrets", default=None, metavar="FILE", help="the Streamlit secrets file the app reads")
    cs.set_defaults(func=cmd_check_server)
    cli_library.add_parser(sub)
    # A subcommand is add_parser(...).set_defaults(func=cmd_...); its handler returns an exit code and raises
    # ScenarioError / UsageError for bad input (exit 2, one line).
    return parser


class _Visible(io.TextIOBase):
    """A text stream that writes through :func:`for_terminal` to ``out``."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        self.out.write(for_terminal(text))
        return len(text)

    def flush(self) -> None:
        self.out.flush()

    def writable(self) -> bool:
        return True


@contextmanager
def _visible_output() -> Iterator[None]:
    """stdout and stderr through :class:`_Visible` while a command runs."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Visible(out), _Visible(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input, 1 internal error)."""
    with _visible_output():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
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
    except OSError as exc:  # a path the user gave: missing, unreadable, too long, a folder
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except DataError as exc:  # not the user's input: a shipped file edited or broken
        print(f"error: broken data file: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into `head` and closed early
        return 0
    except Exception as exc:  # never a traceback in front of a user
        print(f"error: internal error ({type(exc).__name__}: {exc}); please report it", file=sys.stderr)
        return 1

"""The documentation's generated content: the scenario format from the schema, the data tables from ``data/``, the
presets' results and the calibration targets from the model, the metrics map, the article's recommendations and the
package map.

Nothing here is written to disk: :mod:`hooks` (the MkDocs hook named in ``mkdocs.yml``) adds :func:`pages` to the
site as generated files and fills each ``<!-- neoplan:NAME -->`` marker of a hand-written page with
``FILLERS[NAME]()`` while the site is built. Each function returns Markdown and may be called on its own::

    python -c "import sys; sys.path[:0] = ['.', 'docs']; import gen_pages; print(gen_pages.scenario_page())"
"""

from __future__ import annotations

import ast
import csv
import html
import math
import re
import sys
import typing
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
if str(ROOT) not in sys.path:  # the checkout's neoplan, installed or not
    sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402
from pydantic import BaseModel  # noqa: E402
from pydantic.fields import FieldInfo  # noqa: E402

import neoplan  # noqa: E402
from neoplan import formats, metrics  # noqa: E402
from neoplan.inputs.pricebook import default_assumptions  # noqa: E402
from neoplan.inputs.scenario import Scenario  # noqa: E402

MARKER = re.compile(r"<!--\s*neoplan:([a-z_]+)\s*-->")
"""A place in a hand-written page that the build fills with generated Markdown: ``<!-- neoplan:metrics_table -->``."""

# --- Markdown helpers ---------------------------------------------------------------------------------------------

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]|])")


_SECTION = r"BRIEF(?:\.md)?\s*(?:§\s*|section\s+)[\d.]+"
INTERNAL_REFERENCES = (
    (re.compile(r"\s*\([Ii]ssue #?\d+\)"), ""),  # "Market check (issue N):" → "Market check:"
    (re.compile(r"\bwave \d+ "), ""),  # "Fitted (wave N re-fit) to …" → "Fitted (re-fit) to …"
    (re.compile(rf",\s*{_SECTION}"), ""),  # "(2024-10-03, <notes> section N)" → "(2024-10-03)"
    (re.compile(rf"\s*\({_SECTION}\)"), ""),  # " (<notes> §N)" → ""
    (re.compile(rf"\({_SECTION}:\s*"), "("),  # "(<notes> §N: start with" → "(start with"
    (re.compile(rf"{_SECTION}:\s*"), ""),  # "<notes> §N: Latent Space" → "Latent Space"
    (re.compile(_SECTION), "the SemiAnalysis AI Neocloud Playbook"),  # "Estimate from <notes> §N" → the article
    (re.compile(r"[;,]?\s*(?:\S*/)?(?:BRIEF|ARCHITECTURE|QUOTES)\.md"), ""),  # "guides (…); <notes>" → "guides (…)"
)
"""Pointers in data rows to the project's internal notes, which a reader cannot open, and what the pages show
instead: the public source each row also names stays; the pointer goes."""


def public(text: str) -> str:
    """``text`` without pointers to internal notes or issue numbers (see :data:`INTERNAL_REFERENCES`)."""
    for pattern, replacement in INTERNAL_REFERENCES:
        text = pattern.sub(replacement, text)
    return text


def cell(value: object) -> str:
    """``value`` as the text of one Markdown table cell: HTML and Markdown specials escaped, line breaks kept."""
    text = "" if value is None else public(str(value))
    text = html.escape(text, quote=False)
    text = _MARKDOWN_SPECIALS.sub(r"\\\1", text)
    return text.replace("\r\n", "\n").replace("\n", "<br>")


_ENTITIES = {c: f"&#{ord(c)};" for c in "\\`*_[]|{}"}


def code(value: object) -> str:
    """``value`` as inline code in a table cell (a key, a path, a pattern): nothing in it read as Markdown."""
    text = html.escape(str(value), quote=False)
    return "<code>" + "".join(_ENTITIES.get(c, c) for c in text) + "</code>"


def table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    """A Markdown table from cells that are already Markdown (see :func:`cell`)."""
    head = list(header)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# --- the scenario format, from the schema --------------------------------------------------------------------------

_SUFFIX_UNITS = (
    ("_usd_per_gpu_hour", "USD/GPU-hour"),
    ("_usd_per_kw_month", "USD per kW-month"),
    ("_usd_per_kwh", "USD/kWh"),
    ("_usd_per_hour", "USD/hour"),
    ("_usd_per_month", "USD/month"),
    ("_usd", "USD"),
    ("_kw", "kW"),
    ("_mw", "MW"),
    ("_gbps", "Gbit/s"),
    ("_tb", "TB"),
    ("_pb", "PB"),
    ("_months", "months"),
    ("_weeks", "weeks"),
    ("_days", "days"),
    ("_minutes", "minutes"),
    ("_per_year", "fraction per year"),
    ("_share", "fraction"),
    ("_rate", "fraction per year"),
)
_BRACKET_UNIT = re.compile(r"\[([^\[\]]{1,40})\]")


def unit_of(name: str, info: FieldInfo) -> str:
    """The unit of a scenario field: its ``json_schema_extra`` unit, else the first ``[unit]`` of its description,
    else what its name's suffix says (``_usd`` → USD); empty when it has none (a choice, a flag, a text)."""
    extra = info.json_schema_extra
    if isinstance(extra, dict) and isinstance(extra.get("unit"), str):
        return str(extra["unit"])
    found = _BRACKET_UNIT.search(info.description or "")
    if found:
        return found.group(1)
    return next((unit for suffix, unit in _SUFFIX_UNITS if name.endswith(suffix)), "")


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (itself, an optional one, or the items of a list), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def type_text(annotation: Any) -> str:
    """A field's type for people: ``number``, ``whole number``, ``one of a, b``, ``number or empty``, …"""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        return "one of " + ", ".join(code(a) for a in args)
    if origin in (list, tuple):
        return "list of " + (type_text(args[0]) if args else "values")
    if origin is dict:
        return "mapping of keys to " + (type_text(args[1]) if len(args) == 2 else "values")
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return " or ".join(type_text(a) for a in rest) + " or empty"
    if origin is typing.Annotated:
        return type_text(args[0])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "section"
    names = {bool: "true / false", int: "whole number", float: "number", str: "text"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def range_text(info: FieldInfo) -> str:
    """The bounds a field accepts: ``8 … 1,000,000``, ``> 0 … 1``, ``≤ 120 characters``; empty when unbounded."""
    lo = hi = ""
    for meta in info.metadata:
        for attr, sign in (("ge", ""), ("gt", "> ")):
            if getattr(meta, attr, None) is not None:
                lo = sign + _number(getattr(meta, attr))
        for attr, sign in (("le", ""), ("lt", "< ")):
            if getattr(meta, attr, None) is not None:
                hi = sign + _number(getattr(meta, attr))
        if getattr(meta, "max_length", None) is not None and not (lo or hi):
            return f"≤ {meta.max_length:,} {'entries' if info.annotation not in (str, str | None) else 'characters'}"
    if lo and hi:
        return f"{lo} … {hi}"
    return f"≥ {lo}" if lo else (f"≤ {hi}" if hi else "")


def _number(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return f"{int(value):,}" if float(value).is_integer() else f"{value:,g}"
    return str(value)


def default_text(path: str, info: FieldInfo) -> str:
    """A field's default as a scenario file would write it, and where an assumption's default comes from."""
    if info.default_factory is not None:
        value = info.default_factory()  # type: ignore[call-arg]
        return "" if isinstance(value, BaseModel) else f"`{_yaml_value(value)}`"
    if info.is_required():
        return "required"
    shown = f"`{_yaml_value(info.default)}`"
    if path in default_assumptions():
        shown += " (`data/assumptions.csv`)"
    return shown


def _yaml_value(value: object) -> str:
    """``value`` as a scenario file writes it: ``null``, ``true``, ``1024``, ``0.85``, ``""``, ``{}``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict | list):
        return yaml.safe_dump(value, default_flow_style=True).strip()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value) if value != "" else '""'


def schema_rows(model: type[BaseModel], prefix: str = "") -> list[tuple[str, FieldInfo]]:
    """Every field of ``model`` by dotted path, sections before their fields, in the schema's order."""
    rows: list[tuple[str, FieldInfo]] = []
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        rows.append((path, info))
        sub = _model_in(info.annotation)
        if sub is not None:
            item = "[]" if typing.get_origin(info.annotation) in (list, tuple) else ""
            rows += schema_rows(sub, f"{path}{item}.")
    return rows


def _section_table(rows: list[tuple[str, FieldInfo]]) -> str:
    body = [
        (
            code(path),
            type_text(info.annotation),
            cell(unit_of(path.rsplit(".", 1)[-1], info)),
            default_text(path, info),
            cell(range_text(info)),
            cell(info.description or ""),
        )
        for path, info in rows
    ]
    return table(["field", "type", "unit", "default", "range", "description"], body)


def scenario_page() -> str:
    """The scenario format: one table per section of :class:`neoplan.Scenario`, every field with its type, unit,
    default, range and description, read from the pydantic schema."""
    rows = schema_rows(Scenario)
    sections = [p for p, info in rows if "." not in p and _model_in(info.annotation) is not None]
    top = [(p, info) for p, info in rows if "." not in p and p not in sections]
    out = [
        "# Scenario format",
        "",
        "Every field a scenario file may set, read from the schema itself (`neoplan.inputs.scenario.Scenario` and "
        "its sections), so this page is as current as the code that checks your file. A field left out takes the "
        "default below; a preset (`base:`) sets many of them itself (see [Presets](presets.md)). Defaults marked "
        "`data/assumptions.csv` are assumptions about the world, each with its source, date and basis in "
        "[that table](data/assumptions.md). How to write a file: [Scenario files](../scenario-files.md).",
        "",
        "Types: *number* accepts any finite number (no `true`/`false`); *fraction* units are shares and rates "
        "written as fractions (`0.11` for 11 %; the app shows them in percent); a range `a … b` includes both ends.",
        "",
        "## Top level",
        "",
        _section_table(top),
    ]
    for section in sections:
        info = dict(rows)[section]
        fields = [(p, i) for p, i in rows if p.startswith(section + ".") or p.startswith(section + "[].")]
        out += ["", f"## `{section}`", "", cell(info.description or ""), "", _section_table(fields)]
    return "\n".join(out) + "\n"


# --- the data tables, from data/ ------------------------------------------------------------------------------------

DATA_GROUPS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "prices": (
        "Price book",
        "Unit prices by key, one row each: the 2024-10 book in `data/prices/*.csv`, and in each dated folder "
        "(`data/prices/YYYY-MM/`) the rows that differ from it or are new from that date "
        "([The price book](../../price-book.md) says how a book is put together).",
        ("prices/*.csv", "prices/*/*.csv"),
    ),
    "assumptions": (
        "Assumptions",
        "Non-price defaults, keyed by the scenario field they set: rates, shares, durations "
        "(`data/assumptions.csv`), and the failure and recovery model's inputs (`data/operations.csv`).",
        ("assumptions.csv", "operations.csv"),
    ),
    "platforms": (
        "Platforms and catalogues",
        "The physical facts the design reads: GPU platforms, each platform's defaults, the network and storage "
        "catalogues, the compute-node presets, and the all-in IT power per GPU the sizing is checked against.",
        (
            "gpu_platforms.csv",
            "platform_defaults.csv",
            "node_presets.yaml",
            "network_catalogue.csv",
            "storage_catalogue.csv",
            "it_power_per_gpu.csv",
        ),
    ),
    "market": (
        "Market",
        "Rental contracts by platform and term, the price curves of each GPU generation and the resale values "
        "by age (the evidence is discussed in [Market evidence, 2026-12](../../sources/market_2026-12.md)).",
        ("rental_contracts.csv", "price_curves.csv", "residual_values.csv"),
    ),
    "inference": (
        "Token serving",
        "Workloads, published throughput per GPU, derived rates, token prices and their trends (see "
        "[Token-serving evidence, 2026-12](../../sources/inference_2026-12.md)).",
        (
            "workloads.csv",
            "inference_throughput.csv",
            "inference_derivations.csv",
            "token_prices.csv",
            "token_price_trends.csv",
        ),
    ),
    "stress": (
        "Stress drivers",
        "The Stress test's drivers: the scenario field each varies, its default range as a rule around the "
        "scenario's value, its bounds and Monte Carlo distribution, with why, source, date and basis.",
        ("stress_drivers.csv",),
    ),
    "quotes": (
        "Quote review tables",
        "What the quote review reads a quote with: part numbers, scored classification rules, column headers and "
        "row words in several languages. Rules, not sourced figures: their prices come from the price book.",
        ("quote_catalogue.csv", "quote_rules.csv", "quote_headers.csv", "quote_vocabulary.csv"),
    ),
    "other": (
        "Names and other tables",
        "The names of the cost categories every table, chart and export uses, and any other table of `data/`.",
        ("categories.csv",),
    ),
}
"""Page → (title, what its tables are, the files of ``data/`` on it, as globs). A file no group names goes to
``other``, so every table of ``data/`` is on a page."""

SOURCED = ("source", "date", "basis")


def data_files() -> list[Path]:
    """Every table of ``data/``: CSV files and the YAML catalogues, without presets and sample quotes."""
    found = [*sorted(DATA.rglob("*.csv")), DATA / "node_presets.yaml"]
    skip = (DATA / "quotes", DATA / "scenarios")
    return [p for p in found if p.is_file() and not any(p.is_relative_to(s) for s in skip)]


def group_of(path: Path) -> str:
    """The data page a file of ``data/`` is shown on."""
    rel = path.relative_to(DATA)
    for group, (_, _, globs) in DATA_GROUPS.items():
        if any(rel.match(g) and len(rel.parts) == len(Path(g).parts) for g in globs):
            return group
    return "other"


def _csv_table(path: Path) -> tuple[str, int]:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.reader(handle) if r and not r[0].startswith("#")]
    header, body = rows[0], rows[1:]
    first = {header[0]} | ({"path"} if "path" in header else set())
    shown = [[code(v) if h in first and v else cell(v) for h, v in zip(header, r, strict=False)] for r in body]
    return table([cell(h) for h in header], shown), len(body)


def _yaml_table(path: Path) -> tuple[str, int]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    fields = sorted({k for entry in data.values() for k in entry})
    rows = [[code(name)] + [cell(_yaml_value(entry.get(f, ""))) for f in fields] for name, entry in data.items()]
    return table(["preset", *fields], rows), len(rows)


def _file_section(path: Path) -> str:
    rel = path.relative_to(ROOT).as_posix()
    body, count = _yaml_table(path) if path.suffix == ".yaml" else _csv_table(path)
    header = path.read_text(encoding="utf-8").splitlines()[0].split(",")
    sourced = all(c in header for c in SOURCED)
    note = "every row with its source, date and basis" if sourced else "no sourced figures"
    return f"## `{rel}`\n\n{count:,} rows; {note}.\n\n{body}\n"


def data_pages() -> dict[str, str]:
    """``reference/data/<group>.md`` → its page: each table of ``data/`` whole, as the model reads it."""
    grouped: dict[str, list[Path]] = {g: [] for g in DATA_GROUPS}
    for path in data_files():
        grouped[group_of(path)].append(path)
    pages = {}
    for group, paths in grouped.items():
        title, intro, _ = DATA_GROUPS[group]
        sections = "\n".join(_file_section(p) for p in paths)
        pages[f"reference/data/{group}.md"] = f"# {title}\n\n{intro}\n\n{_basis_note()}\n\n{sections}"
    pages["reference/data/index.md"] = _data_index(grouped)
    return pages


def _basis_note() -> str:
    return (
        "`basis` is `quoted` (a public price or figure), `estimate` (judgement; the source says how it was "
        "reasoned) or `fitted` (set to reproduce a calibration target, which the source names). Every file is "
        "checked as it loads: a bad cell stops the model with one line naming the file, the row and the column."
    )


def _data_index(grouped: dict[str, list[Path]]) -> str:
    rows = []
    for group, paths in grouped.items():
        title = DATA_GROUPS[group][0]
        rows += [[code(p.relative_to(ROOT).as_posix()), f"[{title}]({group}.md)"] for p in paths]
    return (
        "# Data tables\n\nEvery number the model uses by default is a row of a file in `data/`, shown here whole "
        "as this build of the documentation read it.\n\n"
        f"{_basis_note()}\n\n{table(['file', 'page'], rows)}\n"
    )


# --- the presets, evaluated -----------------------------------------------------------------------------------------

PRESET_FIGURES = (
    "gpus",
    "capex_usd.total",
    "capex_per_gpu_usd",
    "tco_usd_per_gpu_hour",
    "sold_usd_per_gpu_hour_at_go_live",
    "breakeven_usd_per_gpu_hour",
    "npv_usd",
    "project_irr",
    "equity_irr",
    "equity_moic",
    "payback_months",
    "min_dscr",
)
"""The figures of the presets' table, by their ``Result.to_dict()`` key (labels and formats from the registry)."""


@cache
def preset_results() -> dict[str, neoplan.Result]:
    """Every shipped preset, evaluated with the shipped data."""
    return {name: neoplan.evaluate(neoplan.load_scenario(name)) for name in neoplan.preset_names()}


def _preset_inputs(name: str) -> str:
    data = yaml.safe_load((DATA / "scenarios" / f"{name}.yaml").read_text(encoding="utf-8"))
    data.pop("schema_version", None)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110).strip()


def presets_page() -> str:
    """The presets and what the model makes of them, evaluated while the site is built."""
    results = preset_results()
    dicts = {name: r.to_dict() for name, r in results.items()}
    inputs = [
        ("Platform (input)", [code(r.scenario.cluster.gpu_model) for r in results.values()]),
        ("Price book (input)", [cell(r.scenario.prices_as_of) for r in results.values()]),
        (
            "Headline price (input)",
            [cell(formats.usd_per_gpu_hour(r.scenario.pricing.usd_per_gpu_hour)) for r in results.values()],
        ),
    ]
    rows = [[cell(label), *values] for label, values in inputs]
    rows += [
        [cell(m.label), *(cell(m.text(metrics.lookup(d, m.key))) for d in dicts.values())]
        for m in (metrics.METRICS[k] for k in PRESET_FIGURES)
    ]
    out = [
        "# Presets",
        "",
        "The shipped plans in `data/scenarios/`, to start from (`base: NAME` in a scenario file, or the sidebar's "
        "picker in the app). The figures below are the model's, computed from the shipped data while this page was "
        "built; every figure is defined on [Metrics](metrics.md). The headline price is the platform's on-demand "
        "price at go-live ([market evidence](../price-book.md#market-evidence)). `n/a` is a figure the plan leaves "
        "undefined (an IRR whose cash never turns positive, a payback beyond the horizon); the result's warnings "
        "say why.",
        "",
        table(["", *(code(name) for name in results)], rows),
    ]
    for name, r in results.items():
        warnings = "".join(f"\n- {cell(w)}" for w in r.warnings)
        out += [
            "",
            f"## `{name}`",
            "",
            f"**{cell(r.scenario.name)}.** {cell(r.scenario.description)}.",
            "",
            "What the preset sets (every other field takes the default of the [scenario format](scenario.md)):",
            "",
            "```yaml",
            _preset_inputs(name),
            "```",
        ]
        if warnings:
            out += ["", "What the model warns about:", warnings]
    return "\n".join(out) + "\n"


# --- calibration targets ----------------------------------------------------------------------------------------------


def _backend_ratio(reference: neoplan.Result, topology: str, oversubscription: float) -> float:
    changed = {"base": "reference", "fabric": {"topology": topology, "oversubscription": oversubscription}}
    r = neoplan.evaluate(neoplan.load_scenario(changed))
    return r.capex_usd["backend_network"] / reference.capex_usd["backend_network"] - 1


def _pct(x: float) -> str:
    return f"{x * 100:+.1f} %".replace("-", "−")


def calibration_table() -> str:
    """The article's calibration targets beside the model's values, computed while the site is built."""
    results = preset_results()
    ref, opt = results["reference"], results["optimized"]
    b = ref.fabric.backend, opt.fabric.backend
    per_server = ref.capex_per_server_excl_storage_usd, opt.capex_per_server_excl_storage_usd
    ratios = [_backend_ratio(ref, t, o) for t, o in (("tor", 1.0), ("vms", 1.0), ("vms", 2.0))]
    matched = neoplan.evaluate(
        neoplan.load_scenario({"base": "optimized", "fabric": {"frontend": {"match_storage_ports": True}}})
    )
    rows = [
        ("OEM-default HGX H100 node", "$270,000", f"${ref.node_capex_usd:,.0f}"),
        (
            "recommended node (mid CPU, 1 TB RAM, no BlueField-3, one ConnectX)",
            "$256,400",
            f"${opt.node_capex_usd:,.0f} ({_usd_m(-opt.node_saving_vs_oem_usd * opt.servers)} over "
            f"{opt.servers:,} servers)",
        ),
        (
            "back-end spines, 1,024 GPUs, non-blocking / 2:1",
            "16 / 8",
            f"{b[0].spine_switches} / {b[1].spine_switches} (on {b[0].leaf_switches} leaves)",
        ),
        (
            "back-end cost vs reference: `tor` / `vms` / `vms` 2:1",
            "−34.8 / −24.9 / −31.6 %",
            " / ".join(_pct(x) for x in ratios),
        ),
        (
            "cluster capex excl. storage per server: reference / optimized",
            "$318k / $283k (±3 %)",
            f"${per_server[0] / 1e3:,.0f}k / ${per_server[1] / 1e3:,.0f}k "
            f"({_pct(per_server[0] / 318e3 - 1)} / {_pct(per_server[1] / 283e3 - 1)})",
        ),
        (
            "storage for 1,024 H100 at 2 PB",
            "≥ 8 servers, 250–400 GB/s",
            f"{opt.storage.servers} servers, {opt.storage.read_gbyte_per_s:,.0f} GB/s read "
            f"({matched.storage.servers} at {matched.storage.read_gbyte_per_s:,.0f} GB/s with "
            "`fabric.frontend.match_storage_ports`)",
        ),
    ]
    return table(["target", "article", "neoplan"], rows)  # our own words: Markdown as written


def _usd_m(x: float) -> str:
    return f"{'−' if x < 0 else ''}${abs(x) / 1e6:,.2f} M"


def default_plan_summary() -> str:
    """The headline figures of the optimized and reference presets, in one paragraph."""
    results = preset_results()
    opt, ref = results["optimized"].to_dict(), results["reference"].to_dict()

    def t(d: dict[str, Any], key: str) -> str:
        return metrics.text(key, metrics.lookup(d, key))

    return (
        f"With the shipped market inputs the optimized 1,024-GPU plan costs {t(opt, 'capex_usd.total')}, has a TCO "
        f"of {t(opt, 'tco_usd_per_gpu_hour')} per sold GPU-hour and breaks even at "
        f"{t(opt, 'breakeven_usd_per_gpu_hour')} at go-live, against {t(opt, 'sold_usd_per_gpu_hour_at_go_live')} "
        f"sold at go-live: NPV at the hurdle rate {t(opt, 'npv_usd')}, project IRR {t(opt, 'project_irr')}, equity "
        f"MOIC {t(opt, 'equity_moic')}. The reference plan (the OEM/NVIDIA quote, AI Enterprise included) costs "
        f"{t(ref, 'capex_usd.total')} and breaks even at {t(ref, 'breakeven_usd_per_gpu_hour')}."
    )


# --- the metrics map, the article's recommendations, the package map ----------------------------------------------


def metrics_table() -> str:
    """Every headline figure: label, key, unit, the page that explains it, the function that makes it, what it reads."""
    return metrics.readme_table()


def recommendations_table() -> str:
    """The article's recommendations tested on the optimized preset (``neoplan.analysis.advice.recommendations``)."""
    from neoplan.analysis import advice

    return advice.markdown_table(advice.recommendations(neoplan.load_scenario("optimized")))


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def _docstring_line(path: Path) -> str:
    """The first paragraph of a module's docstring as Markdown: reST literals and roles as code, nothing else read."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    text = doc.strip().split("\n\n")[0].replace("\n", " ")
    text = _ROLE.sub(r"``\1``", text)
    parts = re.split(r"``(.+?)``", text)  # even: prose, odd: code
    return "".join(code(p) if i % 2 else cell(p) for i, p in enumerate(parts))


def package_map() -> str:
    """The package by stage: every subpackage and module of ``neoplan/`` with its lines and the first sentence of its
    docstring, and the import cycles (none), read from the source like ``docs/package_map.py``."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import package_map as pm
    finally:
        sys.path.remove(str(ROOT / "docs"))
    mods = pm.modules()
    rows = []
    for name, path in mods.items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        shown = name + ("/" if path.name == "__init__.py" else "")
        rows.append([code(shown), f"{lines:,}", _docstring_line(path)])
    found = pm.cycles(pm.import_graph())
    cycles = "none" if not found else "; ".join(" ↔ ".join(c) for c in found)
    return f"{table(['module', 'lines', 'what it holds'], rows)}\n\n{len(mods)} modules; import cycles: {cycles}."


FILLERS: dict[str, Callable[[], str]] = {
    "metrics_table": metrics_table,
    "recommendations_table": recommendations_table,
    "calibration_table": calibration_table,
    "default_plan_summary": default_plan_summary,
    "package_map": package_map,
}
"""Marker name → what fills it."""


def pages() -> dict[str, str]:
    """Every generated page by its path in the site's sources."""
    return {"reference/scenario.md": scenario_page(), "reference/presets.md": presets_page(), **data_pages()}


def fill(markdown: str, where: str = "page") -> str:
    """``markdown`` with each ``<!-- neoplan:NAME -->`` marker replaced by ``FILLERS[NAME]()``; an unknown marker
    is an error naming the page."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in FILLERS:
            raise KeyError(f"{where}: unknown marker <!-- neoplan:{name} --> (one of {', '.join(FILLERS)})")
        return FILLERS[name]()

    return MARKER.sub(replace, markdown)

"""Layouts, currencies and the plausibility guard as properties over GENERATED quotes (issue 38).

The same cluster written three ways must review alike — the same size, per-server figures, findings and savings:

* configuration sub-items with quantities per server under a priced server line, or the order's totals;
* a rack matrix (a quantity per rack in one column per rack type, a "Number of racks" row) or a list of totals;
* every line in USD, or the services in another currency with the rate stated in the title block.

And the guard: a quote read in the wrong currency, with sub-item totals that do not divide by the servers (so they
are read per server), or a rack matrix read as a list never shows a headline, a saving or a comparison; one sentence
names the likely cause (``currency``, ``quantity_basis``, ``size``) and the fix.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neoplan.quote import QuoteReview, read_quote, review_quote

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HEADER = ["Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price"]
CPUS = (("Intel Xeon Gold 6530 32C 2.1GHz", 2150.0), ("Intel Xeon Platinum 8480+ 56C 2.0GHz", 4700.0))
GPUS = {"H100": 214_000.0, "H200": 252_000.0}


def csv_bytes(rows: list[list[Any]]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


def money(x: float, sign: str = "$") -> str:
    return f"{sign}{x:,.2f}" if sign == "$" else f"{sign} {x:,.2f}"


def same(a: QuoteReview, b: QuoteReview) -> None:
    """Two reviews of one cluster: size, per-server figures, findings and savings agree (1 % or $1)."""
    assert (a.gpus, a.servers, a.gpu_model) == (b.gpus, b.servers, b.gpu_model)
    for key in ("ram_gb", "backend_nics", "dpus", "cpus"):
        assert a.per_server[key] == pytest.approx(b.per_server[key]), key
    savings = {f.code: f.saving_usd for f in a.findings}
    other = {f.code: f.saving_usd for f in b.findings}
    assert set(savings) == set(other), (sorted(savings), sorted(other))
    for code, saving in savings.items():
        assert other[code] == pytest.approx(saving, rel=0.01, abs=1.0), code


@st.composite
def nodes(draw: st.DrawFn) -> dict[str, Any]:
    """A GPU server's configuration per server and the servers bought."""
    cpu, cpu_usd = draw(st.sampled_from(CPUS))
    return {
        "gpu": draw(st.sampled_from(sorted(GPUS))),
        "cpu": cpu,
        "cpu_usd": cpu_usd,
        "cpus": 2,
        "dimms": draw(st.sampled_from([16, 24, 32])),
        "nics": draw(st.sampled_from([4, 8])),
        "dpus": draw(st.integers(0, 2)),
        "drives": draw(st.sampled_from([0, 4, 8])),
        "servers": draw(st.integers(2, 64)),
        "price": draw(st.sampled_from([255_000.0, 280_000.0, 310_000.0])),
    }


def children(node: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(part, description, quantity per server) of the server's configuration."""
    out = [
        ("CPU", node["cpu"], node["cpus"]),
        ("MEM-64G", "64GB DDR5-5600 RDIMM", node["dimms"]),
        ("MCX75310AAS-NEAT", "NVIDIA ConnectX-7 400G NDR single-port OSFP adapter", node["nics"]),
    ]
    if node["dpus"]:
        out.append(("900-9D3B6-00CV-AA0", "NVIDIA BlueField-3 B3220 DPU 2x200GbE", node["dpus"]))
    if node["drives"]:
        out.append(("MZQL27T6HBLA", "7.68TB NVMe U.2 Gen4 data drive", node["drives"]))
    return out


def configured(node: dict[str, Any], totals: bool, style: str, extra: int = 0) -> bytes:
    """A configured server as a priced line and its sub-items: quantities per server, or the order's totals
    (``extra`` adds to the DIMM total so that it no longer divides by the servers)."""
    n = node["servers"]
    rows: list[list[Any]] = [["Example Systems - quotation (synthetic)"], ["Date: 2024-11-04"], [], HEADER]
    rows.append([1, "SYS-821GE-TNHR", f"Supermicro SYS-821GE-TNHR GPU SuperServer, HGX {node['gpu']} 8-GPU", n,
                 money(node["price"]), money(n * node["price"])])  # fmt: skip
    for k, (part, desc, per) in enumerate(children(node), start=2):
        qty = per * n + (extra if part == "MEM-64G" else 0) if totals else per
        price = ["", ""] if style == "blank" else ["$0.00", "$0.00"] if style == "zero" else ["Included", "Included"]
        rows.append([f"1.{k - 1}", part, ("   " if style == "blank" else "") + desc, qty, *price])
    rows.append(["", "", "Total", "", "", money(n * node["price"])])
    return csv_bytes(rows)


@SETTINGS
@given(nodes(), st.sampled_from(["blank", "zero", "included"]))
def test_sub_items_per_server_or_as_totals_give_the_same_review(node: dict[str, Any], style: str) -> None:
    per_server = review_quote(read_quote(configured(node, False, style), "per.csv"))
    totals = review_quote(read_quote(configured(node, True, style), "totals.csv"))
    same(per_server, totals)
    assert per_server.per_server["ram_gb"] == node["dimms"] * 64
    assert any("read as totals" in w for w in totals.warnings)
    assert not per_server.implausible and not totals.implausible


@SETTINGS
@given(nodes(), st.sampled_from(["blank", "zero"]))
def test_totals_that_do_not_divide_are_caught_by_the_guard(node: dict[str, Any], style: str) -> None:
    """512 + 1 DIMMs for 16 servers are no per-server reading to take silently: read per server they break what
    one server holds, and the guard withholds every saving resting on them, naming the quantity basis."""
    review = review_quote(read_quote(configured(node, True, style, extra=1), "odd.csv"))
    basis = [b for b in review.implausible if b.cause == "quantity_basis"]
    assert basis, [b.sentence for b in review.implausible]
    for breach in basis:  # one sentence each: what, why, the cause and the fix
        assert "Per server" in breach.sentence and breach.sentence.count(". ") == 0
    rests = {i for b in basis for i in b.lines}
    assert not any(set(f.lines) & rests for f in review.findings)
    assert review.saving_usd is None and review.headline_withheld == review.implausible[0].sentence
    assert json.loads(json.dumps(review.to_dict()))["quote_total_usd"] is None


# --- rack matrices --------------------------------------------------------------------------------------------------

RACK_PARTS = (
    ("MMA4Z00-NS400", "NVIDIA 400G OSFP single-port transceiver SR4 flat top", 1_150.0),
    ("MFP7E10-N030", "NVIDIA MPO12 APC multimode fiber 30m", 70.0),
    ("AP8886", "APC metered rack PDU 3-phase 415V 60A", 1_700.0),
)


@st.composite
def racks(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "per_rack": draw(st.sampled_from([2, 4])),
        "compute": draw(st.integers(1, 12)),
        "network": draw(st.integers(1, 2)),
        "switches": draw(st.integers(1, 8)),
        "server_usd": draw(st.sampled_from([255_000.0, 290_000.0])),
        "ram": draw(st.sampled_from(["1TB (16x 64GB)", "2TB (32x 64GB)"])),
    }


def _rack_items(r: dict[str, Any]) -> list[tuple[str, str, int, int, float]]:
    """(part, description, per compute rack, per network rack, unit price)."""
    server = f"Supermicro SYS-821GE-TNHR, HGX H100 8-GPU, 2x Intel Xeon Gold 6530, {r['ram']} DDR5, 8x ConnectX-7 400G"
    per = r["per_rack"]
    return [
        ("SYS-821GE-TNHR", server, per, 0, r["server_usd"]),
        ("MQM9700-NS2F", "NVIDIA Quantum-2 QM9700 64-port NDR switch", 0, r["switches"], 36_900.0),
        (*RACK_PARTS[0][:2], 8 * per, 0, RACK_PARTS[0][2]),
        (*RACK_PARTS[1][:2], 8 * per, 0, RACK_PARTS[1][2]),
        (*RACK_PARTS[2][:2], 2, 2, RACK_PARTS[2][2]),
    ]


def matrix(r: dict[str, Any], racks_row: bool = True) -> bytes:
    rows: list[list[Any]] = [["Rack BOM (synthetic)"], ["Date: 2024-11-04"], []]
    rows.append(["Part", "Description", "Compute rack", "Network rack", "Unit Price", "Extended"])
    if racks_row:
        rows.append(["Number of racks", "", r["compute"], r["network"], "", ""])
    for part, desc, c, n, unit in _rack_items(r):
        total = c * r["compute"] + n * r["network"]
        rows.append([part, desc, c or "", n or "", money(unit), money(total * unit)])
    return csv_bytes(rows)


def as_list(r: dict[str, Any]) -> bytes:
    rows: list[list[Any]] = [["Rack BOM (synthetic)"], ["Date: 2024-11-04"], [], HEADER]
    for k, (part, desc, c, n, unit) in enumerate(_rack_items(r), start=1):
        total = c * r["compute"] + n * r["network"]
        rows.append([k, part, desc, total, money(unit), money(total * unit)])
    return csv_bytes(rows)


@SETTINGS
@given(racks())
def test_a_rack_matrix_and_its_list_give_the_same_review(r: dict[str, Any]) -> None:
    grid = review_quote(read_quote(matrix(r), "matrix.csv"))
    listed = review_quote(read_quote(as_list(r), "list.csv"))
    same(grid, listed)
    assert grid.servers == r["per_rack"] * r["compute"]
    assert grid.quote_total_usd == pytest.approx(listed.quote_total_usd)


@SETTINGS
@given(racks().filter(lambda r: r["compute"] >= 2))
def test_a_matrix_read_as_a_list_is_caught_by_the_guard(r: dict[str, Any]) -> None:
    """Without its racks row the matrix is read one rack of each type: the quote then costs far too much per GPU
    for the size read, so the guard names the size as the likely cause and withholds every saving."""
    review = review_quote(read_quote(matrix(r, racks_row=False), "lost.csv"))
    causes = {b.cause for b in review.implausible}
    assert "size" in causes, [b.sentence for b in review.implausible]
    sentence = next(b.sentence for b in review.implausible if b.cause == "size")
    assert "misread" in sentence and "size" in sentence and ("--servers" in sentence or "--size-from" in sentence)
    assert not any(f.saving_usd for f in review.findings) and review.saving_usd is None
    assert not review.comparison and review.to_dict()["padding_saving_usd"] is None


# --- currencies -----------------------------------------------------------------------------------------------------

SERVICES = (
    ("SVC-INST", "On-site installation per server (rack and stack, cabling)", 250.0),
    ("SVC-BURN", "On-site acceptance burn-in, per server-day", 30.0),
)


@st.composite
def usd_quotes(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "node": draw(nodes()),
        "rate": draw(st.sampled_from([3.75, 3.6725, 83.2, 1380.0])),
        "code": draw(st.sampled_from(["SAR", "AED", "INR", "KRW"])),
        "statement": draw(st.sampled_from(["1 USD = {r} {c}", "Exchange rate: USD/{c} {r}", "{r} {c} per USD"])),
    }


def services_quote(spec: dict[str, Any], local: bool) -> bytes:
    """A reseller quote: whole servers in USD; its services in USD, or in a local currency at a stated rate."""
    node = spec["node"]
    n = node["servers"]
    config = ", ".join(f"{per}x {desc}" for _, desc, per in children(node))
    rows: list[list[Any]] = [["Example Systems - quotation (synthetic)"], ["Date: 2024-11-04"]]
    if local:
        rows.append([spec["statement"].format(r=spec["rate"], c=spec["code"])])
    rows += [[], HEADER]
    rows.append([1, "SYS-821GE-TNHR", f"Supermicro SYS-821GE-TNHR, HGX {node['gpu']} 8-GPU, {config}", n,
                 money(node["price"]), money(n * node["price"])])  # fmt: skip
    for k, (part, desc, usd) in enumerate(SERVICES, start=2):
        qty = n * (3 if "day" in desc else 1)
        if local:
            unit = round(usd * spec["rate"], 2)
            rows.append([k, part, desc, qty, money(unit, spec["code"]), money(unit * qty, spec["code"])])
        else:
            rows.append([k, part, desc, qty, money(usd), money(usd * qty)])
    return csv_bytes(rows)


@SETTINGS
@given(usd_quotes())
def test_one_currency_or_two_with_a_stated_rate_give_the_same_review(spec: dict[str, Any]) -> None:
    one = review_quote(read_quote(services_quote(spec, False), "usd.csv"))
    two = review_quote(read_quote(services_quote(spec, True), "local.csv"))
    same(one, two)
    assert two.quote_total_usd == pytest.approx(one.quote_total_usd, rel=1e-6, abs=1.0)
    assert two.rates[spec["code"]] == pytest.approx(1 / spec["rate"])
    assert two.rate_sources[spec["code"]].startswith("the quote, row 3")


@SETTINGS
@given(nodes(), st.sampled_from([1388.0, 150.0, 7.2]))
def test_a_quote_read_in_the_wrong_currency_is_caught_by_the_guard(node: dict[str, Any], factor: float) -> None:
    """Won, yen or yuan amounts written as bare numbers in a quote that names no currency read as dollars: every
    price is ~1,400× (or 150×, 7×) the book, so the guard names the currency, suggests the rate, claims nothing."""
    spec = {"node": node, "rate": 1.0, "code": "USD", "statement": ""}
    rows = list(csv.reader(io.StringIO(services_quote(spec, False).decode())))
    scaled = [[_scaled(cell, factor) if k >= 4 else cell for k, cell in enumerate(row)] for row in rows]
    review = review_quote(read_quote(csv_bytes(scaled), "bare.csv"))
    (breach,) = [b for b in review.implausible if b.cause == "currency"]
    assert breach.value == pytest.approx(factor, rel=0.5)
    assert "--currency" in breach.sentence and "--usd-per-unit" in breach.sentence
    implied = float(breach.sentence.split("--usd-per-unit ≈")[1].split(";")[0])
    assert implied == pytest.approx(1 / factor, rel=0.5)
    assert not review.findings and review.saving_usd is None and review.recommended_total_usd is None
    record = review.to_dict()
    assert record["quote_total_usd"] is None and record["headline_withheld"] == breach.sentence


def _scaled(cell: str, factor: float) -> str:
    text = cell.replace("$", "").replace(",", "")
    try:
        value = float(text)
    except ValueError:
        return cell
    return f"{value * factor:,.0f}" if math.isfinite(value) else cell

"""Timing of quote review: ``python benchmarks/bench_quote.py [repeats]``.

Builds an honest 5,000-line quote in memory: a rack-by-rack bill of materials for HGX H100 servers (each rack:
a section title, a whole-server line with its configuration in the description, back-end optics and fibres,
front-end optics, out-of-band switch and cables, PDUs, rack, services; then the fabric switches), written as CSV
and as XLSX. Reports the median and fastest wall time (time.perf_counter) and the median CPU time
(time.process_time) over ``repeats`` runs of reading each file (:func:`neoplan.quote.read_quote`), of reviewing
the parsed quote (:func:`neoplan.quote.review_quote`: identity, sizing, findings, comparison) and of both,
against the goal of issue 11, kept by issue 22 (the review is now also guarded by its invariants, options, size
readings and corrections): a 5,000-line honest quote read and reviewed in ≤ 1 s. Wall time on a shared
machine includes other processes' load; the fastest run and the CPU time show the unloaded cost. Exit code 1 if
the median CPU time of reading and reviewing misses the goal.
"""

from __future__ import annotations

import csv
import io
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere without installing

from neoplan.quote import read_quote, review_quote

LINES = 5_000
GOAL_S = 1.0
HEADER = ["Item", "Part Number", "Description", "Qty", "Unit Price", "Ext. Price"]
SERVERS_PER_RACK = 4
# (part number, description, quantity per rack, unit price [USD]) of one compute rack of the honest design
RACK = (
    ("SYS-821GE-TNHR", "Supermicro SYS-821GE-TNHR 8U GPU SuperServer, HGX H100 8-GPU SXM5 80GB, 2x Intel Xeon Gold "
     "6530 32C 2.1GHz, 1TB (16x 64GB) DDR5-4800, 8x ConnectX-7 400G NDR OSFP, 1x ConnectX-6 Dx 2x100GbE, "
     "4x 7.68TB NVMe U.2, 2x 960GB M.2 boot", SERVERS_PER_RACK, 249_800.0),
    ("MMA4Z00-NS400", "NVIDIA 400Gb/s single-port OSFP transceiver, SR4 multimode, flat top", 32, 1_185.0),
    ("MFP7E10-N030", "NVIDIA passive fiber cable, MMF, MPO12 APC to MPO12 APC, 30m", 32, 70.0),
    ("QSFP28-SR4-100G", "100G QSFP28 SR4 transceiver, third-party", 8, 54.0),
    ("FIB-MPO12-OM4-10M", "MPO-12 OM4 multimode fibre patch for SR4 optics, 10m", 8, 40.0),
    ("EX2300-48T", "Juniper EX2300 48x 1GbE + 4x 10GbE SFP+ switch (out-of-band)", 1, 1_550.0),
    ("CAT6-RJ45-2M", "Cat6 RJ45 patch cord 2m", 8, 4.0),
    ("AP8886-PDU", "APC metered rack PDU 3-phase 415V 60A", 2, 1_700.0),
    ("AR3300-42U", "APC NetShelter SX 42U 600x1200 server rack enclosure", 1, 1_500.0),
    ("SVC-3Y-NBD-821GE", "3-year parts & labor warranty, next business day on-site, per server", SERVERS_PER_RACK,
     5_900.0),
    ("SVC-L11", "L11 rack integration and burn-in, per server", SERVERS_PER_RACK, 1_900.0),
    ("SVC-ONSITE-INST", "On-site installation per server: rack and stack, cabling, power-on", SERVERS_PER_RACK,
     250.0),
)  # fmt: skip
FABRIC = (
    ("MQM9790-NS2F", "NVIDIA Quantum-2 QM9790 64x NDR 400Gb/s InfiniBand switch, externally managed", 34_900.0),
    ("MMA4Z00-NS", "NVIDIA 800Gb/s twin-port OSFP transceiver, 2x SR4 multimode, finned top", 1_270.0),
    ("DCS-7260CX3-64", "Arista 7260CX3-64 64x 100GbE switch (front end)", 13_400.0),
)


def honest_rows(lines: int = LINES) -> list[list[Any]]:
    """Title block, header and ``lines`` item rows (section titles and totals come on top) [USD]."""
    rows: list[list[Any]] = [["Example Systems - quotation BENCH-1 (synthetic benchmark data)"], [], HEADER]
    item = 0
    racks = (lines - len(FABRIC)) // len(RACK)
    for rack in range(1, racks + 1):
        rows.append(["", "", f"Compute rack {rack:03d}"])
        for part, description, qty, price in RACK:
            item += 1
            rows.append([item, part, description, qty, f"${price:,.2f}", f"${qty * price:,.2f}"])
    servers = racks * SERVERS_PER_RACK
    rows.append(["", "", "Fabric"])
    for part, description, price in FABRIC:
        qty = max(1, servers // 32) if part.startswith("MQM") else servers * 4
        item += 1
        rows.append([item, part, description, qty, f"${price:,.2f}", f"${qty * price:,.2f}"])
    while item < lines:  # pad to exactly ``lines`` items with honest cables
        item += 1
        rows.append([item, "CAT6-RJ45-2M", "Cat6 RJ45 patch cord 2m", 1, "$4.00", "$4.00"])
    return rows


def to_csv(rows: list[list[Any]]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


def to_xlsx(rows: list[list[Any]]) -> bytes:
    import openpyxl

    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Quote")
    for row in rows:
        ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, float, float]:
    """(median wall, fastest wall, median CPU) time of ``fn()`` over ``repeats`` calls [s], after a warm-up call."""
    fn()
    walls, cpus = [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), min(walls), statistics.median(cpus)


def _show(label: str, t: tuple[float, float, float]) -> str:
    return f"{label} {t[0]:.3f} s (fastest {t[1]:.3f}, CPU {t[2]:.3f})"


def main(repeats: int = 5) -> int:
    rows = honest_rows()
    files = {"quote.csv": to_csv(rows), "quote.xlsx": to_xlsx(rows)}
    failed = False
    for name, data in files.items():
        parsed = read_quote(data, name)
        review = review_quote(parsed)
        assert len(parsed.lines) == LINES, len(parsed.lines)
        read_s = timed(lambda d=data, n=name: read_quote(d, n), repeats)
        review_s = timed(lambda p=parsed: review_quote(p), repeats)
        both_s = timed(lambda d=data, n=name: review_quote(read_quote(d, n)), repeats)
        print(
            f"{name:<11} {len(data) / 1e6:5.2f} MB, {len(parsed.lines):,} lines, {review.gpus:,} GPUs: "
            f"{_show('read', read_s)}; {_show('review', review_s)}; {_show('both', both_s)}; goal ≤ {GOAL_S:g} s"
        )
        failed = failed or both_s[2] > GOAL_S
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5))

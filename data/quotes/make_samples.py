"""Write the synthetic sample quotes of data/quotes/ (run: ``python data/quotes/make_samples.py``).

Every sample is MADE UP for neoplan's demos and tests; none is a real OEM quote. Counts come from the model
(``reference`` and ``optimized`` presets at 1,024 H100); prices from neoplan's price book, with a few invented
OEM markups. Part numbers follow public OEM/NVIDIA naming patterns.

* ``oem_padded_1024_h100.xlsx``: a padded 1,024-GPU quote (top-bin CPU, 2 TB RAM, 2× BlueField-3, SN4600 front
  end, SN2201 out-of-band, NVIDIA AI Enterprise, optics on every link), spread over several sheets.
* ``clean_1024_h100.csv``: the article's optimized design at price-book prices.
* ``per_server_messy.csv``: one server as a reseller exports it: title rows, odd headers, ``$``/``USD`` amounts,
  section and subtotal rows, a discount, an arithmetic slip and 4 back-end NICs (quote 32 servers).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

import openpyxl  # noqa: E402
from openpyxl.styles import Font  # noqa: E402

import neoplan  # noqa: E402
from neoplan.quote import QUOTE_COLUMNS  # noqa: E402

MADE_UP = "SYNTHETIC SAMPLE: made up for neoplan demos and tests; not a real quote from any vendor."
FIXED_TIME = dt.datetime(2024, 10, 15, 9, 0, 0)

# price key → (part number, OEM-style description)
PARTS = {
    "gpu_baseboard_hgx_h100": ("935-24287-0000-000", "NVIDIA HGX H100 8-GPU SXM5 80GB baseboard with 4x NVSwitch"),
    "cpu_top": ("P4X-EMR8580-SRN3", "Intel Xeon Platinum 8580 60C 2.0GHz 350W (Emerald Rapids)"),
    "cpu_mid": ("P4X-EMR6530-SRN6", "Intel Xeon Gold 6530 32C 2.1GHz 270W (Emerald Rapids)"),
    "ram_ddr5_64gb": ("MEM-DR564MC-ER56", "64GB DDR5-5600 2Rx4 ECC RDIMM"),
    "nvme_7_68tb": ("HDS-SUN1-PM9A3-7T6", "7.68TB NVMe PCIe4 U.2 1DWPD data drive"),
    "nvme_boot_960gb": ("HDS-M2N4-960G0-E1", "960GB M.2 NVMe boot drive"),
    "nic_backend_400g": ("MCX75310AAS-NEAT", "NVIDIA ConnectX-7 single-port 400G OSFP NDR adapter"),
    "dpu_bluefield3": ("900-9D3B6-00CV-AA0", "NVIDIA BlueField-3 B3220 DPU, 2x 200GbE QSFP112"),
    "nic_frontend_2x100g": ("MCX623106AN-CDAT", "NVIDIA ConnectX-6 Dx dual-port 100GbE adapter"),
    "node_chassis": ("SYS-821GE-TNHR", "8U HGX GPU chassis, dual-socket X13 board, 6x 3000W Titanium PSU, rails"),
    "node_integration": ("SVC-L11-INTEG", "L11 rack integration, factory burn-in and shipping, per server"),
    "node_warranty_year": ("WTY-HGX-1Y-NBD", "HGX server warranty, 1 year parts & labour, NBD on-site"),
    "ib_switch_qm9700": ("MQM9790-NS2F", "NVIDIA Quantum-2 QM9790 64-port NDR 400G InfiniBand switch, unmanaged"),
    "xcvr_ndr_osfp_400g_server": ("MMA4Z00-NS400", "NVIDIA 400G OSFP SR4 flat-top transceiver, single-port (NIC)"),
    "xcvr_ndr_osfp_800g_twin": ("MMA4Z00-NS", "NVIDIA twin-port 2x400G OSFP SR8 finned-top transceiver (switch)"),
    "fibre_mpo12_apc": ("MFP7E10-N015", "NVIDIA MPO-12/APC passive fibre cable 15m, NDR"),
    "dac_ndr_800g_twin": ("MCP4Y10-N002", "NVIDIA 800G twin-port OSFP passive DAC 2m, switch to switch"),
    "eth_switch_sn4600": ("MSN4600-VS2FC", "NVIDIA Spectrum SN4600 64x200GbE switch with Cumulus Linux"),
    "xcvr_eth_200g_nvidia": ("MMA1T00-VS", "NVIDIA 200GbE QSFP56 SR4 transceiver"),
    "fibre_mpo12_om4": ("FIB-MPO12-OM4-10M", "MPO-12 OM4 multimode trunk 10m"),
    "eth_switch_generic_64x100g": ("DCS-7260CX3-64-F", "Arista 7260CX3-64 64x100GbE switch"),
    "xcvr_eth_100g_generic": ("QSFP28-SR4-100G", "100G QSFP28 SR4 transceiver, third-party"),
    "oob_switch_sn2201": ("MSN2201-CB2FC", "NVIDIA Spectrum SN2201 48x1GbE + 4x100GbE switch, Cumulus"),
    "oob_agg_sn2100": ("MSN2100-CB2FC", "NVIDIA Spectrum SN2100 16x100GbE half-width switch"),
    "dac_eth_100g_nvidia": ("MCP1600-C003E26N", "NVIDIA 100G QSFP28 passive DAC 3m"),
    "oob_switch_generic_48x1g": ("AS4610-54T", "Edgecore AS4610-54T 48x1GbE managed switch, 4x10G SFP+"),
    "oob_agg_generic_48x10g": ("AS5812-54X", "Edgecore 48x10G SFP+ aggregation switch"),
    "dac_eth_10g_generic": ("SFP-10G-DAC-2M", "10G SFP+ passive DAC 2m"),
    "patch_cat6": ("CAT6-RJ45-2M", "Cat6 RJ45 patch cord 2m"),
    "ufm_licence_per_endpoint": ("UFM-ENT-3Y", "NVIDIA UFM Enterprise licence per endpoint, 3 years support"),
    "mgmt_node_cpu": ("SYS-111C-NR-MGMT", "1U management node: 2x Xeon Gold, 512GB, 2x 1.92TB NVMe, 2x 100GbE"),
    "nic_backend_400g_mgmt": (
        "MCX75310AAS-NEAT",
        "NVIDIA ConnectX-7 single-port 400G OSFP NDR adapter, subnet-manager hosts",
    ),
    "firewall_pair": ("FG-1800F-HA", "FortiGate 1800F firewall HA pair with 1 year support"),
    "rack_42u": ("AR3300-42U", "APC NetShelter SX 42U 600x1200 server rack enclosure"),
    "pdu_monitored": ("AP8886-PDU", "APC metered rack PDU 3-phase 415V 60A"),
    "install_server": ("SVC-ONSITE-INST", "On-site installation per server: rack and stack, cabling, power-on"),
    "install_rack": ("SVC-ONSITE-RACK", "Site installation per rack: placement, PDUs, cable trays"),
    "cluster_burn_in_server_week": ("SVC-CLUSTER-BI", "Cluster-level burn-in (NCCL, HBM, BF16/FP8), per server-week"),
    "site_burn_in_server_day": ("SVC-SITE-BI", "On-site acceptance burn-in, per server-day"),
}
MARKUP_PADDED = {"ib_switch_qm9700": 45_000.0, "xcvr_eth_200g_nvidia": 600.0, "node_integration": 3_500.0}
SHEET_OF = {
    "compute": "Compute",
    "backend_network": "Networking",
    "frontend_network": "Networking",
    "oob_network": "Networking",
    "management": "Software & services",
    "other": "Software & services",
}
SECTION_OF = {
    "compute": "HGX H100 compute nodes",
    "backend_network": "InfiniBand NDR compute fabric (rail-optimized, non-blocking, optics)",
    "frontend_network": "Front-end Ethernet (2x200GbE per server)",
    "oob_network": "Out-of-band management network (1GbE)",
    "management": "Management and fabric software",
    "other": "Racks, power distribution, installation",
}


def design(name: str) -> neoplan.Result:
    """The preset at 1,024 H100."""
    return neoplan.evaluate(neoplan.load_scenario(name))


def lines_of(result: neoplan.Result, markup: dict[str, float]) -> list[tuple[str, str, str, float, float]]:
    """(category, part, description, qty, unit price) per capex line except storage (bought separately)."""
    out = []
    for cl in result.capex_lines:
        if cl.category == "storage":
            continue
        key = "nic_backend_400g_mgmt" if (cl.key == "nic_backend_400g" and cl.category == "management") else cl.key
        part, desc = PARTS[key]
        if cl.key == "node_warranty_year":
            out.append(
                (
                    cl.category,
                    "WTY-HGX-3Y-NBD",
                    "HGX server warranty, 3 year parts & labour, NBD on-site",
                    cl.quantity / 3,
                    3 * cl.unit_price_usd,
                )
            )
            continue
        out.append((cl.category, part, desc, cl.quantity, markup.get(cl.key, cl.unit_price_usd)))
    return out


def padded_xlsx(path: Path) -> None:
    """The reference design as a padded OEM quote over several sheets, with NVIDIA AI Enterprise."""
    result = design("reference")
    rows = lines_of(result, MARKUP_PADDED)
    rows.append(
        ("management", "NVAIE-SUB-1Y", "NVIDIA AI Enterprise subscription per GPU, 1 year", result.gpus, 4500.0)
    )
    rows.append(("management", "PS-PM-12W", "Project management and solution architecture, 12 weeks", 1, 38_000.0))
    wb = openpyxl.Workbook()
    wb.properties.creator = "neoplan make_samples.py"
    wb.properties.created = wb.properties.modified = FIXED_TIME
    cover = wb.active
    cover.title = "Cover"
    for line in (
        ["Example OEM Systems Inc. - Quotation EX-2024-0815"],
        [MADE_UP],
        ["Customer: Example Neocloud (fictitious)"],
        ["1,024x NVIDIA H100 SXM5 cluster, turnkey, NVIDIA reference architecture"],
        ["Terms: net 30; 30% deposit at purchase order; prices in USD, valid 30 days"],
    ):
        cover.append(line)
    cover["A1"].font = Font(bold=True, size=14)
    sheets: dict[str, list[tuple[str, str, str, float, float]]] = {}
    for row in rows:
        sheets.setdefault(SHEET_OF[row[0]], []).append(row)
    totals = {}
    for title, sheet_rows in sheets.items():
        ws = wb.create_sheet(title)
        ws.append([f"Quotation EX-2024-0815 - {title}"])
        ws.append([MADE_UP])
        ws.append([])
        ws.append(["Line", *QUOTE_COLUMNS])
        for cell in ws[4]:
            cell.font = Font(bold=True)
        section = None
        for n, (category, part, desc, qty, unit) in enumerate(sheet_rows, start=1):
            if category != section:
                section = category
                ws.append(["", "", SECTION_OF[category]])
            ws.append([n, part, desc, qty, unit, qty * unit])
            ws.cell(ws.max_row, 5).number_format = ws.cell(ws.max_row, 6).number_format = '"$"#,##0.00'
        total = sum(q * u for _, _, _, q, u in sheet_rows)
        totals[title] = total
        ws.append([])
        ws.append(["", "", f"{title} subtotal", "", "", total])
        ws.column_dimensions["C"].width = 18
        ws.column_dimensions["D"].width = 70
    summary = wb.create_sheet("Summary")
    summary.append(["Summary", "Amount (USD)"])
    for title, total in totals.items():
        summary.append([title, total])
    summary.append(["Grand total", sum(totals.values())])
    wb.save(path)


def write_csv(path: Path, rows: list[list[object]]) -> None:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def clean_csv(path: Path) -> None:
    """The optimized design at book prices, one flat table."""
    rows: list[list[object]] = [
        [f"# {MADE_UP}"],
        ["# 1,024x H100 SXM5, optimized bill of materials"],
        list(QUOTE_COLUMNS),
    ]
    for _, part, desc, qty, unit in lines_of(design("optimized"), {}):
        rows.append([part, desc, f"{qty:g}", f"{unit:.2f}", f"{qty * unit:.2f}"])
    write_csv(path, rows)


def messy_csv(path: Path) -> None:
    """One HGX server as a reseller exports it (quote 32 servers)."""
    rows: list[list[object]] = [
        ["ACME Integration LLC", "", "Quotation Q-2024-1187"],
        [MADE_UP],
        ["Customer:", "Example Neocloud", "", "Date:", "2024-10-15"],
        ["Pricing per GPU server; order quantity 32"],
        [],
        ["Ln", "Mfr. Part #", "Item Description", "QTY.", "Unit Price (US$)", "Ext. Price"],
        ["", "", "GPU SERVER - per node"],
        [
            "1",
            "SYS-821GE-TNHR",
            "Supermicro 8U HGX GPU chassis, X13 dual socket, 6x 3000W",
            "1",
            "$7,800.00",
            "$7,800.00",
        ],
        ["2", "935-24287-0000-000", "NVIDIA HGX H100 8-GPU SXM5 80GB", "1", "USD 214,330.00", "USD 214,330.00"],
        ["", "", "Processor"],
        ["3", "P4X-SPR8480-SRM9", "Intel Xeon Platinum 8480+ 56C 2.0GHz 350W", "2", "$4,695.00", "$9,930.00"],
        ["", "", "Memory"],
        ["4", "MEM-DR564L-SL01-ER56", "64GB DDR5-5600 ECC RDIMM", "32 ea", "$260.00", "$8,320.00"],
        ["", "", "Sub-Total:", "", "", "$240,380.00"],
        ["", "", "Storage"],
        ["5", "HDS-MUN-MTFDKCC7T6TGP", "Micron 7450 PRO 7.68TB NVMe U.3", "4", "$850.00", "$3,400.00"],
        ["6", "HDS-M2N-MTFDKBG960TFR", "Micron 7450 960GB M.2 NVMe boot", "2", "$180", "$360"],
        ["", "", "Networking"],
        ["7", "MCX75310AAS-NEAT", "NVIDIA ConnectX-7 400G OSFP single-port NDR adapter", "4", "$1,650.00", "$6,600.00"],
        [
            "8",
            "MCX755106AS-HEAT",
            "NVIDIA ConnectX-7 dual-port 200GbE adapter (front end)",
            "1",
            "$1,500.00",
            "$1,500.00",
        ],
        ["", "", "Services & Warranty"],
        ["9", "SVC-L11", "L11 rack integration, burn-in and shipping", "1", "2,000.00", "2,000.00"],
        ["10", "WTY-3Y-NBD", "3 year parts & labor warranty, NBD on-site", "1", "$6,000.00", "$6,000.00"],
        ["11", "MCP-290-00059-0B", "Rail kit", "1", "Included", ""],
        ["12", "CBL-PWEX-1040", "Power cord C19-C20 1.5m", "6", "$12.00", "$72.00"],
        ["13", "SFT-DCMS-SINGLE", "Server management software node licence", "1", "$150.00", "$150.00"],
        ["14", "", "Customer asset tagging & BIOS settings", "1", "$45.00", "$45.00"],
        ["15", "", "Special bid discount", "1", "($2,500.00)", "($2,500.00)"],
        ["", "", "Sub-Total:", "", "", "$17,627.00"],
        [],
        ["", "", "Freight & insurance, per node", "", "", "$350.00"],
        ["", "", "TOTAL (USD):", "", "", "$258,357.00"],
        [],
        ["Prices valid for 30 days. Lead time 12-16 weeks ARO."],
    ]
    write_csv(path, rows)


def euro_system_lines_csv(path: Path) -> None:
    """A regional reseller's quote: whole-server lines, semicolons, decimal commas, prices in EUR, a VAT line."""
    server = (
        "Supermicro SYS-821GE-TNHR GPU-Server, HGX H200 8-GPU SXM5 141GB, 2x Intel Xeon Platinum 8570 56C, "
        "2TB (32x 64GB) DDR5-5600 RDIMM, 8x NVIDIA ConnectX-7 400Gb/s NDR OSFP, 2x BlueField-3 B3220, "
        "8x 3,84TB NVMe U.2, 2x 960GB M.2 Boot"
    )
    items = [
        ("SYS-821GE-TNHR", server, 32, 279_500.00),
        ("SVC-3Y-NBD", "Garantie 3 Jahre, Vor-Ort-Service nächster Arbeitstag, pro Server", 32, 5_450.00),
        ("MQM9790-NS2F", "NVIDIA Quantum-2 QM9790 InfiniBand Switch 64x NDR 400Gb/s", 8, 33_900.00),
        ("MMA4Z00-NS400", "NVIDIA OSFP Transceiver 400Gb/s, Single-Port, SR4 Multimode, Flat Top", 256, 1_090.00),
        ("MMA4Z00-NS", "NVIDIA OSFP Transceiver 800Gb/s, Twin-Port, 2x SR4 Multimode, Finned Top", 128, 1_190.00),
        ("MFP7E10-N030", "NVIDIA Glasfaserkabel MPO12 APC, Multimode, 30 m", 256, 65.00),
        ("MSN4600-VS2FC", "NVIDIA Spectrum SN4600 Ethernet Switch 64x 200GbE, Cumulus Linux", 2, 31_200.00),
        ("MSN2201-CB2FC", "NVIDIA Spectrum SN2201 Switch 48x 1GbE, Cumulus Linux (Out-of-Band)", 2, 8_600.00),
        ("NVAIE-5Y", "NVIDIA AI Enterprise Subscription pro GPU, 5 Jahre", 256, 20_700.00),
    ]

    def eur(value: float) -> str:
        whole, cents = f"{value:,.2f}".split(".")
        return f"{whole.replace(',', '.')},{cents} €"

    rows: list[list[object]] = [
        ["Beispiel Systemhaus GmbH", "", "Angebot A-2024-4711"],
        [MADE_UP],
        ["Kunde:", "Example Neocloud GmbH", "", "Datum:", "15.10.2024"],
        [],
        ["Pos.", "Artikelnummer", "Beschreibung", "Menge", "Einzelpreis", "Gesamtpreis"],
    ]
    net = 0.0
    for i, (part, text, qty, price) in enumerate(items, start=1):
        rows.append([i, part, text, qty, eur(price), eur(qty * price)])
        net += qty * price
    rows += [
        ["", "", "Summe netto", "", "", eur(net)],
        ["", "", "MwSt. 19 %", "", "", eur(0.19 * net)],
        ["", "", "Gesamtbetrag brutto", "", "", eur(1.19 * net)],
    ]
    buf = io.StringIO()
    csv.writer(buf, delimiter=";", lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def main() -> None:
    padded_xlsx(HERE / "oem_padded_1024_h100.xlsx")
    clean_csv(HERE / "clean_1024_h100.csv")
    messy_csv(HERE / "per_server_messy.csv")
    euro_system_lines_csv(HERE / "reseller_eur_h200_32.csv")
    print(f"wrote 4 sample quotes to {HERE}")


if __name__ == "__main__":
    main()

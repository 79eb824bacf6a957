"""CLI: ``python -m neoplan evaluate FILE [--json]`` — summary, JSON contract, exit 2 on bad input."""

from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from neoplan import evaluate, load_scenario
from neoplan.cli import main
from neoplan.inputs.pricebook import default_price_book

ROOT = Path(__file__).resolve().parent.parent

CONTRACT_KEYS = {
    "gpus",
    "servers",
    "node_capex_usd",
    "backend",
    "capex_usd",
    "capex_per_server_excl_storage_usd",
    "tco_usd_per_gpu_hour",
    "breakeven_usd_per_gpu_hour",
    "project_irr",
    "equity_irr",
    "npv_usd",
    "payback_months",
    "min_dscr",
}
BACKEND_KEYS = {"leaf_switches", "spine_switches", "core_switches", "transceivers", "cables", "capex_usd"}
CAPEX_KEYS = {
    "compute",
    "backend_network",
    "frontend_network",
    "oob_network",
    "storage",
    "management",
    "other",
    "total",
}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "neoplan", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def _strict_json(text: str) -> dict:
    """Parse JSON refusing NaN/Infinity (not JSON; undefined values must be null)."""

    def reject(token: str) -> None:
        raise AssertionError(f"non-JSON constant {token}")

    return json.loads(text, parse_constant=reject)


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# --- real processes --------------------------------------------------------------------------------------------


def test_evaluate_reference_prints_the_node_price() -> None:
    proc = _run("evaluate", "reference")
    assert proc.returncode == 0, proc.stderr
    assert "$270,000" in proc.stdout
    assert "1,024" in proc.stdout
    assert proc.stderr == ""


def test_evaluate_json_has_the_contract_keys() -> None:
    proc = _run("evaluate", "reference", "--json")
    assert proc.returncode == 0, proc.stderr
    d = _strict_json(proc.stdout)
    assert set(d) >= CONTRACT_KEYS
    assert set(d["backend"]) >= BACKEND_KEYS
    assert set(d["capex_usd"]) >= CAPEX_KEYS
    assert (d["gpus"], d["servers"]) == (1024, 128)
    assert d["node_capex_usd"] == 270_000
    assert d["capex_usd"]["compute"] == 128 * 270_000


def test_bad_file_in_a_real_process_exits_2_with_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.yaml", "base: optimized\nfabric: {oversubscription: 0.5}\n")
    proc = _run("evaluate", str(path))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "fabric.oversubscription" in lines[0]
    assert "Traceback" not in proc.stderr


def test_broken_data_file_exits_1_with_one_line_naming_file_row_and_column(tmp_path: Path) -> None:
    """The 2026-11 book is read on first use: a blank price there is a data error, not the user's input."""
    prices = tmp_path / "prices"
    shutil.copytree(ROOT / "data" / "prices", prices)
    compute = prices / "2026-11" / "compute.csv"
    with compute.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    rows[1][rows[0].index("price_usd")] = ""
    with compute.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    plan = _write(tmp_path, "plan.yaml", "base: optimized\nprices_as_of: 2026-11\n")
    code = (
        "import sys, pathlib; import neoplan.inputs.pricebook as pb; pb.PRICES_DIR = pathlib.Path(sys.argv[1]); "
        "from neoplan.cli import main; sys.exit(main(['evaluate', sys.argv[2]]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(prices), str(plan)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "error: broken data file: 2026-11/compute.csv row 2, column 'price_usd': is empty"
    ]


# --- in process ------------------------------------------------------------------------------------------------


def test_json_matches_the_python_api(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, "evaluate", "optimized", "--json")
    assert code == 0, err
    d = _strict_json(out)
    expected = json.loads(json.dumps(evaluate(load_scenario("optimized")).to_dict()))
    assert d == expected
    assert d["node_capex_usd"] == 256_400
    assert d["node_saving_vs_oem_usd"] == 13_600


def test_json_values_are_numbers_or_null(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _main(capsys, "evaluate", "reference", "--json")
    d = _strict_json(out)
    for key in CONTRACT_KEYS - {"backend", "capex_usd"}:
        value = d[key]
        assert value is None or (isinstance(value, int | float) and math.isfinite(value)), key
    for section, keys in (("backend", BACKEND_KEYS), ("capex_usd", CAPEX_KEYS)):
        for key in keys:
            value = d[section][key]
            assert value is None or (isinstance(value, int | float) and math.isfinite(value)), f"{section}.{key}"
    capex = d["capex_usd"]
    assert capex["total"] == pytest.approx(sum(v for k, v in capex.items() if k != "total"))


def test_summary_reports_the_saving(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, "evaluate", "optimized")
    assert code == 0
    assert "$256,400" in out
    assert "$13,600" in out


def test_file_with_base_and_override_evaluates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(
        tmp_path,
        "mine.yaml",
        "base: optimized\nname: Bigger\ncluster: {gpus: 2048}\nnode: {ram_tb: 2.0}\n",
    )
    code, out, err = _main(capsys, "evaluate", str(path), "--json")
    assert code == 0, err
    d = _strict_json(out)
    assert d["scenario"] == "Bigger"
    assert (d["gpus"], d["servers"]) == (2048, 256)
    dimm = default_price_book().price("ram_ddr5_64gb")
    assert d["node_capex_usd"] == pytest.approx(256_400 + 16 * dimm)  # 16 more DIMMs than the optimized node
    assert d["capex_usd"]["compute"] == pytest.approx(256 * d["node_capex_usd"])


def test_json_scenario_file_evaluates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "plan.json", json.dumps({"base": "reference", "cluster": {"gpus": 512}}))
    code, out, err = _main(capsys, "evaluate", str(path), "--json")
    assert code == 0, err
    assert _strict_json(out)["servers"] == 64


INVALID_FILES = [
    pytest.param("fabric: {oversubscription: 0.5}\n", "fabric.oversubscription", id="bad-value"),
    pytest.param("fabric: {oversubscriptoin: 2}\n", "fabric.oversubscriptoin", id="unknown-field"),
    pytest.param("cluster: {gpus: lots}\n", "cluster.gpus", id="wrong-type"),
    pytest.param("cluster: {gpus: 1020}\n", "cluster.gpus", id="not-whole-servers"),
    pytest.param("financing: {grace_months: 60, term_months: 60}\n", "financing.grace_months", id="grace-term"),
    pytest.param("base: nosuch\n", "nosuch", id="unknown-base"),
    pytest.param("base: ../../etc/passwd\n", "base", id="traversal-base"),
    pytest.param("schema_version: 99\n", "schema_version", id="future-schema"),
    pytest.param("cluster: {gpu_model: a100}\n", "cluster.gpu_model", id="unknown-platform"),
    pytest.param("prices: {no_such_key: 1}\n", "no_such_key", id="unknown-price-key"),
    pytest.param("cluster: {gpus: [1024\n", "plan.yaml", id="not-yaml"),
    pytest.param("- a\n- b\n", "mapping", id="not-a-mapping"),
    pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff", "not a text file", id="binary"),
]


@pytest.mark.parametrize(("content", "expected"), INVALID_FILES)
def test_invalid_file_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes, expected: str
) -> None:
    path = _write(tmp_path, "plan.yaml", content)
    code, out, err = _main(capsys, "evaluate", str(path))
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert expected in lines[0]
    assert "Traceback" not in err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, "evaluate", str(tmp_path / "nope.yaml"))
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "nope.yaml" in err


def test_oversize_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "big.yaml", "# " + "x" * 1_100_000 + "\n")
    code, _, err = _main(capsys, "evaluate", str(path))
    assert code == 2
    assert "larger" in err
    assert len(err.strip().splitlines()) == 1


def test_deeply_nested_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "deep.yaml", "[" * 1_000 + "]" * 1_000 + "\n")
    code, _, err = _main(capsys, "evaluate", str(path))
    assert code == 2
    assert len(err.strip().splitlines()) == 1


def test_missing_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _main(capsys, "evaluate")
    assert code == 2
    assert "Traceback" not in err


# --- bad input from issue 12: exit 2 and one line, never a traceback, a null KPI or exit 0 -------------------

ISSUE_12_INPUTS = [
    pytest.param("node: {preset: {a: 1}}\n", "node.preset", id="preset-mapping"),
    pytest.param("cluster: {gpus: " + "9" * 5000 + "}\n", "cluster.gpus", id="5000-digit-int"),
    pytest.param(
        "facility: {rack_power_kw: 5e-324}\n", "facility.rack_power_kw must be between 5 and 300", id="denormal"
    ),
    pytest.param("opex: {staff_loaded_cost_usd: 1e308}\n", "opex.staff_loaded_cost_usd", id="staff-1e308"),
    pytest.param("prices: {gpu_baseboard_hgx_h100: 1e300}\n", "prices.gpu_baseboard_hgx_h100", id="price-1e300"),
]


@pytest.mark.parametrize(("content", "expected"), ISSUE_12_INPUTS)
def test_issue_12_bad_input_in_a_real_process_exits_2_with_one_line(
    tmp_path: Path, content: str, expected: str
) -> None:
    proc = _run("evaluate", str(_write(tmp_path, "plan.yaml", content)), "--json")
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr  # no traceback, no numpy RuntimeWarning
    assert lines[0].startswith("error: ") and expected in lines[0]


BAD_INPUTS = [
    *ISSUE_12_INPUTS,
    pytest.param("node: {preset: [1]}\n", "node.preset", id="preset-list"),
    pytest.param('{"cluster": {"gpus": ' + "9" * 5000 + "}}", "cluster.gpus", id="json-5000-digit-int"),
    pytest.param("facility: {pue: " + "9" * 5000 + "}\n", "facility.pue", id="5000-digit-float-field"),
    pytest.param("base: " + "9" * 5000 + "\n", "base", id="5000-digit-base"),
    pytest.param("cluster: {gpus: 0x" + "f" * 5000 + "}\n", "cluster.gpus", id="huge-hex"),
    pytest.param("pricing: {usd_per_gpu_hour: .nan}\n", "pricing.usd_per_gpu_hour", id="nan"),
    pytest.param("financing: {interest_rate: .inf}\n", "financing.interest_rate", id="inf"),
    pytest.param('{"timeline": {"deposit_share": NaN}}', "timeline.deposit_share", id="json-nan"),
    pytest.param('{"facility": {"pue": 1e999}}', "facility.pue", id="json-overflow"),
    pytest.param("prices: {cpu_mid: .nan}\n", "prices.cpu_mid", id="price-nan"),
    pytest.param("prices: {cpu_mid: -1}\n", "prices.cpu_mid", id="price-negative"),
    pytest.param("prices: {cpu_mid: true}\n", "prices.cpu_mid", id="price-bool"),
    pytest.param("prices: {cpu_mid: [1]}\n", "prices.cpu_mid", id="price-list"),
    pytest.param("prices: {" + "k" * 300 + ": 1}\n", "prices: key", id="price-long-key"),
    pytest.param("prices: [1, 2]\n", "prices", id="prices-list"),
    pytest.param("cluster: {gpus: true}\n", "cluster.gpus", id="bool-for-int"),
    pytest.param("facility: {pue: yes}\n", "facility.pue", id="yaml-yes-for-float"),
    pytest.param("opex: {transit_usd_per_month: 1e300}\n", "opex.transit_usd_per_month", id="transit-1e300"),
    pytest.param("storage: {bytes_per_param: 5e-324}\n", "storage.bytes_per_param", id="tiny-bytes"),
    pytest.param("cluster: {gpu_model: " + "h" * 10_000 + "}\n", "cluster.gpu_model", id="long-key-string"),
    pytest.param("cluster: {gpus: [1024]}\n", "cluster.gpus", id="list-for-int"),
    pytest.param("cluster: {gpus: {a: 1}}\n", "cluster.gpus", id="mapping-for-int"),
    pytest.param("cluster: [1, 2]\n", "cluster", id="list-for-section"),
    pytest.param("cluster: {gpuz: 1024}\n", "cluster.gpuz", id="unknown-key"),
    pytest.param("clusters: {gpus: 1024}\n", "clusters", id="unknown-section"),
    pytest.param("42\n", "mapping", id="yaml-number"),
    pytest.param("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n", "aliases", id="yaml-bomb"),
    pytest.param("!!python/object/apply:os.system [echo hi]\n", "not valid YAML", id="python-tag"),
]


@pytest.mark.parametrize(("content", "expected"), BAD_INPUTS)
def test_bad_input_exits_2_with_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, expected: str
) -> None:
    code, out, err = _main(capsys, "evaluate", str(_write(tmp_path, "plan.yaml", content)), "--json")
    assert (code, out) == (2, ""), err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert expected in lines[0]
    assert len(lines[0]) < 300


@pytest.mark.parametrize("command", [["stress", "--draws", "10"], ["report", "--out"]])
def test_other_commands_refuse_bad_input_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    path = _write(tmp_path, "plan.yaml", "prices: {gpu_baseboard_hgx_h100: 1e300}\n")
    args = [*command, str(tmp_path / "report")] if command[-1] == "--out" else command
    code, out, err = _main(capsys, args[0], str(path), *args[1:])
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and "prices.gpu_baseboard_hgx_h100" in err
    assert not (tmp_path / "report").exists()


def test_a_null_kpi_comes_with_a_warning_in_json_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "base: optimized\nfinancing: {sizing: capex_share, debt_share: 0}\npricing: {usd_per_gpu_hour: 1}\n"
    path = _write(tmp_path, "plan.yaml", text)
    code, out, err = _main(capsys, "evaluate", str(path), "--json")
    assert code == 0, err
    d = _strict_json(out)
    assert d["min_dscr"] is None and d["payback_months"] is None
    assert "Min DSCR undefined: no debt, so no DSCR." in d["warnings"]
    assert any(w.startswith("Payback undefined: no payback within the 72-month horizon") for w in d["warnings"])
    code, out, _ = _main(capsys, "evaluate", str(path))
    assert code == 0
    assert "warning: Min DSCR undefined: no debt, so no DSCR." in out.splitlines()


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        pytest.param("a" * 5000, "cannot read the file", id="name-too-long"),
        pytest.param("plan\x00.yaml", "'plan\\x00.yaml': no such file", id="nul-byte"),
        pytest.param("\x1b[31mred.yaml", "'\\x1b[31mred.yaml': no such file", id="terminal-escape"),
        pytest.param(".", ".: not a regular file", id="folder"),
    ],
)
def test_unreadable_paths_exit_2_with_one_short_line(
    capsys: pytest.CaptureFixture[str], path: str, expected: str
) -> None:
    code, out, err = _main(capsys, "evaluate", path)
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 1 and expected in lines[0] and len(lines[0]) < 200, err
    assert "\x1b" not in err and "\x00" not in err

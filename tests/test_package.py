"""The installable package: a wheel built from the tree installs, ships ``data/`` and runs the ``neoplan`` command.

The wheel is built with hatchling: offline with ``--no-build-isolation`` when hatchling is installed (``pip
install -r requirements.txt`` brings it), else in pip's isolated build environment, which fetches it from PyPI.
Without either the test skips and says why; in CI (``CI`` set) it fails instead. Everything is written to a
temporary folder: the working tree is left as it was (no ``build/``, no ``*.egg-info``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import site
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def _name(requirement: str) -> str:
    """The normalised project name of a requirement: ``PyYAML>=6`` → ``pyyaml``."""
    return re.split(r"[<>=!~;\[ ]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"package test cannot run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of the working tree, built into a temporary folder."""
    out = tmp_path_factory.mktemp("wheel")
    offline = importlib.util.find_spec("hatchling") is not None
    args = [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out)]
    done = _run([*args, "--no-build-isolation"] if offline else args, cwd=out)
    if done.returncode != 0:
        if not offline:
            _unavailable(f"hatchling is not installed and pip could not fetch it: {done.stderr.strip()[-300:]}")
        pytest.fail(f"pip wheel failed:\n{done.stderr}")
    wheels = list(out.glob("neoplan-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed; its dependencies are those of the environment running
    the tests (a ``.pth`` file appends its site-packages, after the venv's own, so the wheel's copy is the one
    imported)."""
    env_dir = tmp_path_factory.mktemp("venv")
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], cwd=env_dir)
    assert made.returncode == 0, made.stderr
    python = env_dir / "bin" / "python"
    own = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=env_dir)
    assert own.returncode == 0, own.stderr
    (Path(own.stdout.strip()) / "_test_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    args = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index"]
    installed = _run([*args, str(wheel)], cwd=env_dir)
    assert installed.returncode == 0, installed.stderr
    return env_dir


def test_wheel_ships_every_data_file_and_the_console_command(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        entry_points = next(zf.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt"))
        metadata = next(zf.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    shipped = {n.removeprefix("neoplan/data/") for n in names if n.startswith("neoplan/data/")}
    in_repo = {
        p.relative_to(ROOT / "data").as_posix()
        for p in (ROOT / "data").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert shipped == in_repo
    assert not any("__pycache__" in n or n.startswith(("tests/", "pages/", "data/")) for n in names)
    assert "neoplan = neoplan.cli:main" in entry_points
    requires = [line.removeprefix("Requires-Dist: ") for line in metadata.splitlines()]
    declared = {_name(r) for r, line in zip(requires, metadata.splitlines(), strict=True) if r != line}
    pinned = {_name(line) for line in (ROOT / "requirements.txt").read_text().splitlines() if "==" in line}
    assert pinned - {"neoplan"} <= declared  # every pinned package is a dependency or in an extra
    assert "Provides-Extra: app" in metadata and "Provides-Extra: dev" in metadata


def test_installed_command_evaluates_like_the_repository(venv: Path, tmp_path: Path) -> None:
    where = _run(
        [str(venv / "bin" / "python"), "-c", "import neoplan.inputs.pricebook as p; print(p.DATA_DIR)"], tmp_path
    )
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(venv)  # the installed copy, not the repository's data/

    installed = _run([str(venv / "bin" / "neoplan"), "evaluate", "optimized", "--json"], cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr
    in_repo = _run([sys.executable, "-m", "neoplan", "evaluate", "optimized", "--json"], cwd=ROOT)
    assert in_repo.returncode == 0, in_repo.stderr
    assert json.loads(installed.stdout) == json.loads(in_repo.stdout)


def test_installed_command_reports_bad_input_in_one_line(venv: Path, tmp_path: Path) -> None:
    done = _run([str(venv / "bin" / "neoplan"), "evaluate", "no_such_plan.yaml"], cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no_such_plan.yaml" in done.stderr


def test_building_leaves_the_tree_clean(wheel: Path) -> None:
    assert wheel.is_file()
    assert not (ROOT / "build").exists()
    assert not list(ROOT.glob("*.egg-info")) and not (ROOT / "neoplan" / "data").exists()


def test_wheel_ships_the_migrations_and_the_installed_command_keeps_a_library(
    wheel: Path, venv: Path, tmp_path: Path
) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    assert {
        "neoplan/store/migrations/env.py",
        "neoplan/store/migrations/versions/r0001_library_before_versions.py",
    } <= names
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHOME", "NEOPLAN_DATABASE_URL")}
    env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]  # SQLAlchemy and Alembic from the test run (no neoplan there)
    env["NEOPLAN_LIBRARY"] = str(tmp_path / "lib.sqlite")

    def library(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [str(venv / "bin" / "neoplan"), "library", *argv]
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        return done

    library("save", "Plan", "optimized", "-m", "from the wheel")
    listed = library("history", "Plan", "--json")
    assert [v["message"] for v in json.loads(listed.stdout)] == ["from the wheel"]


def test_the_app_installs_its_runtime_alone() -> None:
    """Issue 34: the README's quick start installs the app without the test and lint tools: requirements-app.txt is
    the runtime block of requirements.txt, pin for pin, and the README's first command uses it; the app serves this
    machine only unless told otherwise, and the README says how to turn share links on."""
    pins = (ROOT / "requirements.txt").read_text()
    runtime = {ln.split("#")[0].strip() for ln in pins[: pins.index("# Tests and tooling")].splitlines() if "==" in ln}
    app = {ln.split("#")[0].strip() for ln in (ROOT / "requirements-app.txt").read_text().splitlines() if "==" in ln}
    assert app == runtime and not any(ln.startswith(("pytest", "playwright", "ruff", "mypy")) for ln in app)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme[readme.index("## Quick start") : readme.index("\n## ", readme.index("## Quick start") + 5)]
    commands = [ln for ln in quick.splitlines() if ln.startswith("python3 -m venv")]
    assert commands == [
        "python3 -m venv .venv && .venv/bin/pip install -r requirements-app.txt && .venv/bin/streamlit run app.py",
        "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && .venv/bin/python -m pytest",
    ]
    assert "NEOPLAN_SHARE_SECRET" in quick and "127.0.0.1" in quick
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"

"""The deployment files: the image runs the app from what it copies, compose wires PostgreSQL, two replicas and nginx,
the Dockerfile, compose, nginx and the local team set-up (tests/team_support.py) agree on the command, port, health
check and upload limit, and nginx's configuration is valid.

Docker itself is not run here (no daemon in the test environment): tests/test_team.py runs the same set-up without
it. ``nginx -t`` runs where Debian's nginx is installed (``.ci/run`` installs nginx-light; in CI it must be there).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from team_support import dockerfile_command, free_port, local_nginx_conf, nginx_binary, replica_command

from neoplan.limits import UPLOAD_MB, UPLOAD_REQUEST_MB

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = (ROOT / "Dockerfile").read_text()
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
NGINX = ROOT / "deploy" / "nginx.conf"


def _copied() -> list[str]:
    """The sources of the Dockerfile's COPY lines."""
    return [part for line in DOCKERFILE.splitlines() if line.startswith("COPY ") for part in line.split()[1:-1]]


def test_image_runs_as_a_non_root_user_with_a_health_check() -> None:
    users = re.findall(r"^USER (\S+)", DOCKERFILE, flags=re.M)
    assert users and users[-1] not in ("root", "0")
    health = re.search(r"^HEALTHCHECK .*?CMD (.+?)$", DOCKERFILE, flags=re.M | re.S)
    assert health and "http://127.0.0.1:8501/_stcore/health" in DOCKERFILE[health.start() :]
    command = dockerfile_command()
    assert command.startswith(
        'python -m neoplan check-server --secrets "$NEOPLAN_SECRETS" && exec streamlit run app.py '
    )
    assert '--secrets.files="$NEOPLAN_SECRETS"' in command
    assert "NEOPLAN_SECRETS=/run/secrets/streamlit.toml" in DOCKERFILE


def test_image_installs_the_pinned_runtime_and_no_test_tools() -> None:
    text = (ROOT / "requirements.txt").read_text()
    assert "sed '/^# Tests and tooling/,$d' requirements.txt" in DOCKERFILE
    runtime = text[: text.index("# Tests and tooling")]
    names = {re.split(r"[=\[ ]", line, maxsplit=1)[0].lower() for line in runtime.splitlines() if "==" in line}
    assert {"streamlit", "sqlalchemy", "alembic", "psycopg", "authlib"} <= names
    assert not names & {"pytest", "playwright", "mypy", "ruff", "oidc-provider-mock"}


def test_the_app_runs_from_only_what_the_image_copies(tmp_path: Path) -> None:
    app = tmp_path / "app"
    for source in _copied():
        if source == "requirements.txt":
            continue
        target = app / source
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / source).is_dir():
            shutil.copytree(ROOT / source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / source, target)
    script = (
        "from streamlit.testing.v1 import AppTest\n"
        "at = AppTest.from_file('app.py', default_timeout=60)\n"
        "at.run()\n"
        "assert not at.exception, at.exception\n"
        "import neoplan, pathlib\n"
        "assert pathlib.Path(neoplan.__file__).resolve().is_relative_to(pathlib.Path.cwd().resolve())\n"
        "print(at.metric[0].label)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "NEOPLAN_LIBRARY": str(tmp_path / "data" / "lib.sqlite")}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=app, env=env, capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "data" / "lib.sqlite").exists()  # the library made where NEOPLAN_LIBRARY says


def test_compose_runs_postgres_and_two_replicas_behind_nginx() -> None:
    services = COMPOSE["services"]
    assert services["db"]["image"].startswith("postgres:") and "healthcheck" in services["db"]
    replicas = {name: spec for name, spec in services.items() if name.startswith("app-")}
    assert list(replicas) == ["app-1", "app-2"] and replicas["app-1"] == replicas["app-2"]  # one definition, twice
    app = replicas["app-1"]
    assert app["build"] == "." and "command" not in app  # the image's CMD: check-server, then streamlit
    assert app["environment"]["NEOPLAN_DATABASE_URL"].startswith("postgresql+psycopg://neoplan:")
    assert app["environment"]["NEOPLAN_DATABASE_URL"].endswith("@db:5432/neoplan")
    assert "NEOPLAN_SHARE_SECRET" in app["environment"]
    assert app["depends_on"]["db"]["condition"] == "service_healthy"
    assert [f"/run/secrets/{s['target']}" for s in app["secrets"]] == [
        re.search(r"NEOPLAN_SECRETS=(\S+)", DOCKERFILE).group(1)  # type: ignore[union-attr]
    ]
    proxy = services["proxy"]
    assert proxy["image"].startswith("nginx:") and "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in proxy["volumes"]
    assert {name: c["condition"] for name, c in proxy["depends_on"].items()} == dict.fromkeys(
        replicas, "service_healthy"
    )
    assert proxy["ports"] == ["8080:80"] and "listen 80;" in NGINX.read_text()
    assert COMPOSE["secrets"]["streamlit"]["file"] == "./deploy/secrets.toml"
    for example in ("deploy/env.example", "deploy/secrets.example.toml"):
        assert (ROOT / example).is_file()


def test_compose_the_dockerfile_nginx_and_the_local_team_agree() -> None:
    """One command, one port, one health check, one upload limit, whichever way the team set-up is started."""
    port = int(re.search(r"^EXPOSE (\d+)$", DOCKERFILE, flags=re.M).group(1))  # type: ignore[union-attr]
    command = dockerfile_command()
    assert f"--server.port={port}" in command and f"127.0.0.1:{port}/_stcore/health" in DOCKERFILE
    text = NGINX.read_text()
    assert re.findall(r"server (\S+);", text) == [f"{name}:{port}" for name in ("app-1", "app-2")]
    assert re.findall(r"client_max_body_size (\d+)m;", text) == [str(UPLOAD_REQUEST_MB)]
    assert UPLOAD_REQUEST_MB == UPLOAD_MB + 1  # what Streamlit accepts for an upload of server.maxUploadSize
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == UPLOAD_MB
    local = replica_command(9999)  # what tests/team_support.py runs: the same line, another address and port
    assert local == command.replace("--server.address=0.0.0.0", "--server.address=127.0.0.1").replace(
        f"--server.port={port}", "--server.port=9999"
    )
    directives = "\n".join(line.split("#")[0] for line in text.splitlines())
    assert "ip_hash" not in directives and "Host $http_host;" in directives and "$host;" not in directives


def test_the_local_nginx_config_changes_only_addresses(tmp_path: Path) -> None:
    shipped = NGINX.read_text()
    local = local_nginx_conf(shipped, [7001, 7002], 7000, tmp_path / "nginx.pid")
    changed = [(a, b) for a, b in zip(shipped.splitlines(), local.splitlines(), strict=True) if a != b]
    assert [a.strip() for a, _ in changed] == [
        "pid /tmp/nginx.pid;",
        "server app-1:8501;",
        "server app-2:8501;",
        "listen 80;",
    ]
    assert "server 127.0.0.1:7001;" in local and "listen 127.0.0.1:7000;" in local


def test_nginx_config_is_valid(tmp_path: Path) -> None:
    nginx = nginx_binary()
    if nginx is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is not installed in CI (.ci/run installs nginx-light)")
        pytest.skip("nginx is not installed (apt-get install nginx-light) to check the configuration's syntax")
    (tmp_path / "logs").mkdir()
    local = tmp_path / "nginx.conf"
    local.write_text(local_nginx_conf(NGINX.read_text(), [8501, 8502], free_port(), tmp_path / "nginx.pid"))
    done = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(local), "-g", f"error_log {tmp_path}/logs/error.log;"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0 and "syntax is ok" in done.stderr, done.stderr


def test_the_example_secrets_are_refused_before_the_server_starts(tmp_path: Path) -> None:
    """compose's app runs check-server first: with deploy/'s examples copied as they are, it exits 2, naming each."""
    env = dict(
        line.split("=", 1)
        for line in (ROOT / "deploy" / "env.example").read_text().splitlines()
        if "=" in line and not line.startswith("#")
    )
    run = subprocess.run(
        [sys.executable, "-m", "neoplan", "check-server", "--secrets", str(ROOT / "deploy" / "secrets.example.toml")],
        cwd=ROOT,
        env={**os.environ, "NEOPLAN_SHARE_SECRET": env["NEOPLAN_SHARE_SECRET"]},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "share-link secret" in run.stderr and "cookie_secret is the example" in run.stderr
    good = tmp_path / "secrets.toml"
    good.write_text((ROOT / "deploy" / "secrets.example.toml").read_text().replace("a long random string", "k" * 40))
    ok = subprocess.run(
        [sys.executable, "-m", "neoplan", "check-server", "--secrets", str(good)],
        cwd=ROOT,
        env={**os.environ, "NEOPLAN_SHARE_SECRET": "s" * 32},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ok.returncode == 0 and ok.stdout.startswith("ok: sign-in with an allow-list, share links on"), ok.stderr

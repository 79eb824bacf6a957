"""The deployment files: the image runs the app from what it copies, compose wires PostgreSQL, two replicas and nginx,
and nginx's configuration is valid and passes WebSockets.

Docker itself is not run here (no daemon in the test environment); ``nginx -t`` runs where Debian's nginx is
installed (``.ci/run`` installs nginx-light) and skips with the reason elsewhere.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

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
    assert health and "/_stcore/health" in DOCKERFILE[health.start() :]
    assert 'CMD ["streamlit", "run", "app.py"' in DOCKERFILE


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
    app = services["app"]
    assert app["build"] == "." and app["deploy"]["replicas"] == 2
    assert app["environment"]["NEOPLAN_DATABASE_URL"].startswith("postgresql+psycopg://neoplan:")
    assert app["environment"]["NEOPLAN_DATABASE_URL"].endswith("@db:5432/neoplan")
    assert "NEOPLAN_SHARE_SECRET" in app["environment"]
    assert app["depends_on"]["db"]["condition"] == "service_healthy"
    assert [s["target"] for s in app["secrets"]] == ["streamlit.toml"]
    assert "--secrets.files=/run/secrets/streamlit.toml" in app["command"]
    proxy = services["proxy"]
    assert proxy["image"].startswith("nginx:") and "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in proxy["volumes"]
    assert COMPOSE["secrets"]["streamlit"]["file"] == "./deploy/secrets.toml"
    for example in ("deploy/env.example", "deploy/secrets.example.toml"):
        assert (ROOT / example).is_file()


def test_nginx_passes_websockets_to_every_replica_and_its_config_is_valid(tmp_path: Path) -> None:
    text = NGINX.read_text()
    for line in (
        "proxy_http_version 1.1;",
        "proxy_set_header Upgrade $http_upgrade;",
        "proxy_set_header Connection $connection_upgrade;",
        "server app:8501;",
        "ip_hash;",
    ):
        assert line in text, line
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.skip("nginx is not installed (apt-get install nginx-light) to check the configuration's syntax")
    (tmp_path / "logs").mkdir()
    local = tmp_path / "nginx.conf"  # the compose service name resolves only inside compose: test with localhost
    local.write_text(
        text.replace("server app:8501;", "server 127.0.0.1:8501;").replace("/tmp/nginx.pid", f"{tmp_path}/nginx.pid")
    )
    done = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(local), "-g", f"error_log {tmp_path}/logs/error.log;"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0 and "syntax is ok" in done.stderr, done.stderr

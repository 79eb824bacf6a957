"""The team set-up of compose.yaml without Docker: PostgreSQL, two app replicas, nginx with the shipped config, and an
OpenID Connect provider, all on loopback; for tests/test_team.py and for trying it by hand.

- PostgreSQL: a fresh schema on the server ``.ci/postgres`` starts (``NEOPLAN_TEST_DATABASE_URL``; store_support).
- OIDC: ``oidc-provider-mock`` in a thread (accounts are typed in its form; their claims set with ``PUT /users/…``).
- Replicas: the Dockerfile's ``CMD`` itself (``check-server``, then ``streamlit run``), with only the address and
  port changed (:func:`replica_command`), the secrets file in ``$NEOPLAN_SECRETS`` as the image has it.
- nginx: Debian's, as a foreground process from a temporary prefix, with ``deploy/nginx.conf`` where only the
  upstream addresses, the listening address and the pid file are changed (:func:`local_nginx_conf`).

The app is reached as ``http://planner.test:PORT``, a host name with a port (the case ``Host $host`` broke); the
browser maps planner.test to 127.0.0.1 (``--host-resolver-rules``). By hand::

    source .ci/postgres && .venv/bin/python tests/team_support.py    # prints the address; Ctrl-C stops it all
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "planner.test"
"""The host name the browser uses for the app (mapped to 127.0.0.1)."""
RESOLVER_ARG = f"--host-resolver-rules=MAP {HOST} 127.0.0.1"
DOMAIN = "example.com"
"""The allow-list's one domain: accounts with a verified e-mail there may sign in."""


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def dockerfile_command() -> str:
    """The shell line of the Dockerfile's ``CMD ["sh", "-c", "…"]``."""
    line = next(x for x in (ROOT / "Dockerfile").read_text().splitlines() if x.startswith("CMD "))
    argv = json.loads(line[4:])
    assert argv[:2] == ["sh", "-c"], argv
    return str(argv[2])


def replica_command(port: int) -> str:
    """The Dockerfile's command for a replica on 127.0.0.1:``port`` (the image listens on 0.0.0.0:8501)."""
    command = dockerfile_command()
    for old, new in (
        ("--server.address=0.0.0.0", "--server.address=127.0.0.1"),
        ("--server.port=8501", f"--server.port={port}"),
    ):
        assert command.count(old) == 1, (old, command)
        command = command.replace(old, new)
    return command


def local_nginx_conf(text: str, replicas: list[int], listen: int, pid: Path) -> str:
    """``deploy/nginx.conf`` for loopback: the upstream servers, the listening address and the pid file changed."""
    upstreams = re.findall(r"server (app-\d+):8501;", text)
    assert upstreams == [f"app-{i + 1}" for i in range(len(replicas))], upstreams
    for name, port in zip(upstreams, replicas, strict=True):
        text = text.replace(f"server {name}:8501;", f"server 127.0.0.1:{port};")
    for old, new in (("listen 80;", f"listen 127.0.0.1:{listen};"), ("pid /tmp/nginx.pid;", f"pid {pid};")):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def nginx_binary() -> str | None:
    found = shutil.which("nginx") or "/usr/sbin/nginx"
    return found if Path(found).exists() else None


def wait_healthy(url: str, seconds: float = 90) -> None:
    """Until ``url``/_stcore/health answers 200 (the Dockerfile's health check), or RuntimeError."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not become healthy in {seconds:g} s")


@dataclass
class Replica:
    """One ``streamlit run`` of the app on 127.0.0.1:``port``."""

    port: int
    env: dict[str, str]
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                ["sh", "-c", replica_command(self.port)], cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )

    def kill(self) -> None:
        """kill -9: no clean shut-down, as a crash or an OOM kill."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


@dataclass
class Team:
    """What :func:`team` started: the app's address through nginx, the replicas, the provider."""

    url: str
    provider: str
    replicas: list[Replica]
    share_secret: str
    database_url: str
    folder: Path
    nginx_log: Path
    accounts: dict[str, str] = field(default_factory=dict)

    def account(self, sub: str, email: str | None, verified: bool = True) -> str:
        """Give the provider's account ``sub`` these claims (as a real provider's directory would); returns sub."""
        claims: dict[str, object] = {} if email is None else {"email": email, "email_verified": verified}
        request = urllib.request.Request(
            f"{self.provider}/users/{sub}",
            data=json.dumps(claims).encode(),
            method="PUT",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as r:
            assert r.status == 204, r.status
        return sub


@contextmanager
def team(folder: Path, database_url: str) -> Iterator[Team]:
    """Start the team set-up (module docstring) in ``folder``; everything is stopped on exit."""
    nginx = nginx_binary()
    if nginx is None:
        raise RuntimeError("nginx is not installed (apt-get install nginx-light)")
    from oidc_provider_mock import run_server_in_thread

    with ExitStack() as stack:
        server = stack.enter_context(run_server_in_thread())
        provider = f"http://localhost:{server.server_port}"
        listen = free_port()
        url = f"http://{HOST}:{listen}"
        share = secrets.token_urlsafe(32)
        secrets_file = folder / "streamlit.toml"
        auth = {
            "redirect_uri": f"{url}/oauth2callback",
            "cookie_secret": secrets.token_urlsafe(32),
            "client_id": "neoplan",
            "client_secret": secrets.token_urlsafe(16),
            "server_metadata_url": f"{provider}/.well-known/openid-configuration",
        }
        secrets_file.write_text(
            "[auth]\n" + "".join(f'{k} = "{v}"\n' for k, v in auth.items()) + f'allowed_domains = ["{DOMAIN}"]\n'
        )
        venv_bin = str(Path(sys.executable).parent)
        env = {
            **os.environ,
            "PATH": f"{venv_bin}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "NEOPLAN_SECRETS": str(secrets_file),
            "NEOPLAN_DATABASE_URL": database_url,
            "NEOPLAN_SHARE_SECRET": share,
            "AUTHLIB_INSECURE_TRANSPORT": "1",  # plain http to the provider on loopback
        }
        env.pop("NEOPLAN_LIBRARY", None)
        replicas = [Replica(free_port(), env, folder / f"replica-{i + 1}.log") for i in range(2)]
        for replica in replicas:
            replica.start()
            stack.callback(replica.stop)
        prefix = folder / "nginx"
        (prefix / "logs").mkdir(parents=True)
        conf = prefix / "nginx.conf"
        shipped = (ROOT / "deploy" / "nginx.conf").read_text()
        conf.write_text(local_nginx_conf(shipped, [r.port for r in replicas], listen, prefix / "nginx.pid"))
        log = prefix / "logs" / "error.log"
        proxy = subprocess.Popen(
            [nginx, "-p", str(prefix), "-c", str(conf), "-g", f"daemon off; error_log {log};"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )

        def stop_proxy() -> None:
            proxy.terminate()
            try:
                proxy.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proxy.kill()

        stack.callback(stop_proxy)
        for replica in replicas:
            wait_healthy(replica.url)
        wait_healthy(f"http://127.0.0.1:{listen}")
        yield Team(url, provider, replicas, share, database_url, folder, log)


if __name__ == "__main__":
    import tempfile

    here = Path(tempfile.mkdtemp(prefix="neoplan-team-"))
    with team(here, os.environ["NEOPLAN_TEST_DATABASE_URL"]) as running:
        print(f"neoplan through nginx: {running.url} (map {HOST} to 127.0.0.1); provider {running.provider}")
        print(f"replicas: {', '.join(r.url for r in running.replicas)}; logs in {here}")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass

"""The library under load, on both backends: nothing refused, nothing dropped, nothing lost, replicas agree.

- 16 sessions (threads) of one server write their drafts for a bounded time: 0 refused, 0 dropped.
- Four processes save and read through the CLI for a bounded time: every save is in the history, once, in order.
- Two replicas (separate processes, one database, started together so they migrate it together): a save through one
  is listed by the other; two saves based on the same version never both land (the second is told).

Each test prints what it measured (``-s`` shows it): writes, retries, the longest wait.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from store_support import BACKENDS, database

from neoplan.store import Draft, Library, User
from neoplan.store.connection import open_store

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = 16
DRAFT_SECONDS = 2.5
PROCESSES = 4
CLI_SECONDS = 3.0


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as where:
        yield where


def _env(url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NEOPLAN_LIBRARY", "NEOPLAN_DATABASE_URL")}
    env["NEOPLAN_DATABASE_URL"] = url
    return env


def test_sixteen_sessions_writing_drafts_none_refused_none_dropped(url: str) -> None:
    store = open_store(url)
    Library(store=store).check()  # migrated before the clock starts, as a running server is
    before = store.backend.stats.retries
    written: dict[int, int] = {}
    refused: list[str] = []
    start = threading.Barrier(SESSIONS)

    def session(n: int) -> None:
        library = Library(store=store, user=User(f"user{n % 4}@example.com"))
        draft_id = f"session-{n:02d}-draft-id"
        start.wait()
        deadline = time.monotonic() + DRAFT_SECONDS
        i = 0
        while time.monotonic() < deadline:
            body = json.dumps({"session": n, "edit": i})
            try:
                library.save_draft(draft_id, Draft(body, "{}", None, "load test"), session=f"s{n}")
            except Exception as exc:  # any refusal is a failure of this test: count it, say what it was
                refused.append(f"{type(exc).__name__}: {exc}")
                continue
            written[n] = i
            i += 1

    threads = [threading.Thread(target=session, args=(n,)) for n in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    dropped = 0
    for n in range(SESSIONS):
        kept = Library(store=store, user=User(f"user{n % 4}@example.com")).load_draft(f"session-{n:02d}-draft-id")
        dropped += kept is None or json.loads(kept.body) != {"session": n, "edit": written[n]}
    writes = sum(written.values()) + SESSIONS
    stats = store.backend.stats
    print(
        f"\n{url.split(':')[0]}: {SESSIONS} sessions, {writes} draft writes in {DRAFT_SECONDS} s, "
        f"{len(refused)} refused, {dropped} dropped, {stats.retries - before} retries, "
        f"longest wait {stats.longest_wait_s * 1000:.0f} ms"
    )
    assert refused == [] and dropped == 0
    assert all(written[n] > 5 for n in range(SESSIONS))  # every session got its turn, many times


WORKER = """
import contextlib, io, json, sys, time
from neoplan.cli import main

worker, seconds = int(sys.argv[1]), float(sys.argv[2])
saved, failed, reads = [], [], 0
with contextlib.redirect_stdout(io.StringIO()):
    main(["library", "list", "--json"])  # imports and the store opened (the first ones migrate it) before the clock
print("ready", flush=True)
sys.stdin.readline()  # all four start together
deadline = time.monotonic() + seconds
i = 0
while time.monotonic() < deadline:
    for argv in (
        ["library", "save", "Common", "optimized", "-m", f"w{worker}-{i}"],
        ["library", "save", f"Own {worker}", "reference", "-m", f"w{worker}-{i}"],
        ["library", "list", "--json"],
        ["library", "history", "Common", "--json"],
    ):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        if code != 0:
            failed.append(" ".join(argv[:2]) + ": " + err.getvalue().strip())
        elif argv[1] == "save":
            saved.append((argv[2], argv[5], int(out.getvalue().split()[-1])))
        else:
            reads += 1
    i += 1
from neoplan.store import default_url
from neoplan.store.connection import open_store
stats = open_store(default_url()).backend.stats
print(json.dumps({"saved": saved, "failed": failed, "reads": reads, "retries": stats.retries,
                  "wait_ms": stats.longest_wait_s * 1000}))
"""


def _cli(url: str, *argv: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "neoplan", "library", *argv],
        cwd=ROOT,
        env=_env(url),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_four_processes_through_the_cli_lose_nothing(url: str) -> None:
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(w), str(CLI_SECONDS)],
            cwd=ROOT,
            env=_env(url),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(PROCESSES)
    ]
    for proc in workers:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    for proc in workers:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    results = []
    for proc in workers:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    failed = [f for r in results for f in r["failed"]]
    assert failed == [], failed[:3]
    history = _cli(url, "history", "Common", "--json")  # through the CLI too; the rest is checked in-process
    library = Library(url)
    mine = [(name, message) for r in results for name, message, _ in r["saved"] if name == "Common"]
    assert [v["version"] for v in history] == list(range(1, len(history) + 1))  # complete, no gaps
    assert sorted(v["message"] for v in history) == sorted(m for _, m in mine)  # every save, once
    for r in results:  # each process's saves landed in the order it made them, at the versions it was told
        common = [(m, v) for name, m, v in r["saved"] if name == "Common"]
        assert [v for _, v in common] == sorted(v for _, v in common)
        assert all(history[v - 1]["message"] == m for m, v in common)
    assert {"Common", *(f"Own {w}" for w in range(PROCESSES))} <= set(library.names())
    for w in range(PROCESSES):
        own = library.history(f"Own {w}")
        assert [v.message for v in own] == [m for name, m, _ in results[w]["saved"] if name == f"Own {w}"]
    print(
        f"\n{url.split(':')[0]}: {PROCESSES} CLI processes in {CLI_SECONDS} s: {len(history)} versions of one "
        f"scenario, {sum(len(r['saved']) for r in results)} saves, {sum(r['reads'] for r in results)} reads, 0 failed, "
        f"{sum(r['retries'] for r in results)} retries, longest wait {max(r['wait_ms'] for r in results):.0f} ms"
    )


REPLICA = """
import json, sys
from neoplan.inputs.loading import load_scenario
from neoplan.store import Conflict, Library, User

library = Library(user=User(sys.argv[1]))
library.check()
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    ask = json.loads(line)
    if ask["op"] == "list":
        answer = {"names": [e.name for e in library.entries() if not e.read_only]}
    else:
        try:
            saved = library.save(ask["name"], load_scenario(ask["preset"]), expected_version=ask["expected"],
                                 shared=True)
            answer = {"version": saved.version}
        except Conflict as exc:
            answer = {"conflict": exc.current.version, "message": str(exc)}
    print(json.dumps(answer), flush=True)
"""


class Replica:
    """One app process on the shared database (its own store), driven line by line."""

    def __init__(self, url: str, user: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", REPLICA, user],
            cwd=ROOT,
            env=_env(url),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, **request: Any) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if request:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def test_two_replicas_on_one_database_behave_as_one(url: str) -> None:
    one, two = Replica(url, "alice@example.com"), Replica(url, "bob@example.com")  # they migrate it together
    try:
        assert one.ask() == {"ready": True} and two.ask() == {"ready": True}
        assert two.ask(op="list") == {"names": []}
        assert one.ask(op="save", name="Plan", preset="optimized", expected=0) == {"version": 1}
        assert two.ask(op="list") == {"names": ["Plan"]}  # a save through one is listed by the other
        assert two.ask(op="save", name="Plan", preset="reference", expected=1) == {"version": 2}
        told = one.ask(op="save", name="Plan", preset="optimized", expected=1)  # based on version 1 too
        assert told["conflict"] == 2 and "bob@example.com" in told["message"]
        assert one.ask(op="save", name="Plan", preset="optimized", expected=2) == {"version": 3}  # on top
    finally:
        one.close()
        two.close()
    assert [v.author for v in Library(url).history("Plan")] == [
        "alice@example.com",
        "bob@example.com",
        "alice@example.com",
    ]

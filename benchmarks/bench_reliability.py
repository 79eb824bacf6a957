"""The team library's reliability figures (issue 39), measured: concurrency, faults, and a fuzz of bad input.

    .venv/bin/python benchmarks/bench_reliability.py concurrency URL [SECONDS]   # threads racing on one library
    .venv/bin/python benchmarks/bench_reliability.py kill URL [ROUNDS]           # kill -9 of a process mid-save
    .venv/bin/python benchmarks/bench_reliability.py down URL "PG_CTL" [SECONDS] # the server stopped, then back
    .venv/bin/python benchmarks/bench_reliability.py fuzz [COUNT] [SEED]         # bad input through the CLI

URL is a library (a PostgreSQL URL, or an SQLite file path); PG_CTL is the command that runs the server's pg_ctl
with its data folder (``runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D DIR``). Each prints what it
measured and exits 1 if anything was lost or crashed. Goals: nothing refused under load, nothing lost, every save a
whole version; while the server is down every call fails within the budgets of neoplan.store.backend and the first
call after it is back works; bad input exits 2 with one line, never 1 (an internal error).
"""

from __future__ import annotations

import contextlib
import copy as copy_module
import io
import json
import random
import secrets
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import neoplan  # noqa: E402
from neoplan.store import Conflict, Draft, Library, LibraryError, User  # noqa: E402
from neoplan.store.backend import APP_BUDGET_S  # noqa: E402

SECRET = secrets.token_urlsafe(32)


def concurrency(url: str, seconds: float = 20.0, threads: int = 16) -> int:
    """Threads of two 'replicas' (two stores would be two processes; here one process, 16 sessions) doing a mix of
    draft writes, reads, saves on top of one shared scenario, optimistic saves, share links. Counts everything."""
    users = [User(f"https://id.example.com user-{i}") for i in range(4)]
    base = neoplan.load_scenario("optimized")
    Library(url, users[0]).save("Racing", base, shared=True)
    Library(url, users[0]).save("Optimistic", base, shared=True)
    counts: dict[str, int] = {}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def add(key: str, n: int = 1) -> None:
        with lock:
            counts[key] = counts.get(key, 0) + n

    def session(i: int) -> None:
        library = Library(url, users[i % len(users)])
        draft_id = secrets.token_urlsafe(16)
        rng = random.Random(i)
        while time.monotonic() < stop:
            op = rng.random()
            try:
                if op < 0.45:
                    library.save_draft(draft_id, Draft(base.to_json(), "{}", None, f"s{i}"), session=str(i))
                    add("draft writes")
                elif op < 0.7:
                    library.entries()
                    library.load_draft(draft_id)
                    add("reads", 2)
                elif op < 0.85:
                    library.save("Racing", base, message=f"session {i}")
                    add("racing saves")
                elif op < 0.95:
                    version = library.entry("Optimistic").version  # type: ignore[union-attr]
                    try:
                        library.save("Optimistic", base, expected_version=version)
                        add("optimistic saves that landed")
                    except Conflict:
                        add("optimistic saves told of a conflict")
                else:
                    token = library.share_token("Racing", 1, SECRET)
                    library.open_shared(token, SECRET)
                    add("share links made and opened", 2)
            except LibraryError as exc:
                add(f"refused: {exc}")

    workers = [threading.Thread(target=session, args=(i,)) for i in range(threads)]
    started = time.monotonic()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    took = time.monotonic() - started
    check = Library(url)
    racing = len(check.history("Racing")) - 1
    optimistic = len(check.history("Optimistic")) - 1
    ops = sum(v for k, v in counts.items() if not k.startswith("refused"))
    refused = sum(v for k, v in counts.items() if k.startswith("refused"))
    print(f"{threads} sessions for {took:.1f} s: {ops:,} library operations, {refused} refused")
    for key, value in sorted(counts.items()):
        print(f"  {key}: {value:,}")
    print(f"  versions of Racing: {racing:,} for {counts.get('racing saves', 0):,} saves on top")
    print(f"  versions of Optimistic: {optimistic:,} for {counts.get('optimistic saves that landed', 0):,} that landed")
    lost = racing != counts.get("racing saves", 0) or optimistic != counts.get("optimistic saves that landed", 0)
    return 1 if lost or refused else 0


_SAVER = """
import sys, neoplan
from neoplan.store import Library
library = Library(sys.argv[1])
big = neoplan.load_scenario({"base": "optimized", "prices": {}, "description": "x" * 1900})
print("ready", flush=True)
while True:
    library.save("Killed", big, message="mid-save")
"""


def kill(url: str, rounds: int = 20) -> int:
    """A process saving as fast as it can, killed with SIGKILL at a random moment, ``rounds`` times; then every
    version must be whole (its body parses) and the numbers contiguous."""
    Library(url).save("Killed", neoplan.load_scenario("optimized"))
    for _ in range(rounds):
        proc = subprocess.Popen([sys.executable, "-c", _SAVER, url], cwd=ROOT, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        proc.stdout.readline()
        time.sleep(random.uniform(0.05, 0.6))
        proc.kill()
        proc.wait()
    library = Library(url)
    history = library.history("Killed")
    numbers = [v.version for v in history]
    broken = 0
    for v in numbers:
        try:
            library.load("Killed", v)
        except Exception:
            broken += 1
    whole = numbers == list(range(1, len(numbers) + 1))
    print(f"{rounds} kill -9 mid-save: {len(numbers):,} versions, contiguous: {whole}, unreadable: {broken}")
    return 0 if whole and not broken else 1


def down(url: str, pg_ctl: str, seconds: float = 20.0) -> int:
    """Calls every 0.25 s (a page's read and a draft write, with the app's budget) while the server is stopped for
    ``seconds``: how long each call took, that each failed with a message, and that the first call after works."""
    library = Library(url, User("https://id.example.com down"), budget_s=APP_BUDGET_S)
    library.save("Before the outage", neoplan.load_scenario("optimized"))
    draft = Draft(neoplan.load_scenario("reference").to_json(), "{}", None, "down")
    rows: list[tuple[float, str, float, bool]] = []
    t0 = time.monotonic()
    subprocess.run([*shlex.split(pg_ctl), "-m", "fast", "-w", "stop"], check=True, capture_output=True)
    stopped = time.monotonic()
    restarted = False
    while time.monotonic() - t0 < seconds + 8:
        if not restarted and time.monotonic() - stopped >= seconds:
            subprocess.run([*shlex.split(pg_ctl), "-w", "-l", "/dev/null", "start"], check=True, capture_output=True)
            restarted = True
            back = time.monotonic()
        for what, call in (("read", library.check), ("draft", lambda: library.save_draft("down" * 5, draft))):
            started = time.monotonic()
            try:
                call()
                ok = True
            except LibraryError:
                ok = False
            rows.append((started - t0, what, time.monotonic() - started, ok))
        time.sleep(0.25)
    during = [r for r in rows if r[0] < back - t0]
    after = [r for r in rows if r[0] >= back - t0]
    slowest = max(r[2] for r in during)
    first_ok = next((r[0] - (back - t0) for r in after if r[3]), None)
    print(
        f"server stopped {seconds:g} s: {len(during)} calls during, {sum(not r[3] for r in during)} failed with a "
        f"message, slowest {slowest:.2f} s, median {sorted(r[2] for r in during)[len(during) // 2]:.3f} s; "
        f"after restart: first call worked {first_ok if first_ok is None else round(first_ok, 2)} s after, "
        f"{sum(r[3] for r in after)}/{len(after)} worked; 'Before the outage' still there: "
        f"{'Before the outage' in library.names()}"
    )
    return 0 if first_ok is not None and slowest < 10 and "Before the outage" in library.names() else 1


# -- fuzz ---------------------------------------------------------------------------------------------------------

ODD: list[Any] = [
    "60",
    " 60 ",
    "6e1",
    "0x3c",
    "",
    "   ",
    "-1",
    "-0",
    "1e400",
    "nan",
    "inf",
    "-inf",
    None,
    True,
    False,
    [],
    {},
    [1],
    {"a": 1},
    10**30,
    -(10**30),
    2**63,
    1e308,
    -1e-308,
    0,
    0.5,
    "\x1b[31mred\x1b[0m",
    "a\u202eb",
    "z\u200bw",
    "\ud800",
    "é" * 300,
    "x" * 5000,
    "1,024",
    "1_024",
    "١٠٢٤",
    "Infinity",
    "true",
    "null",
    "~",
    "- a",
    "{a: 1}",
]
"""Values a file may hold where a number, a name, a key or a section belongs."""


def _fields(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(data, dict):
        out = [path] if path else []
        for key, value in data.items():
            out += _fields(value, (*path, key))
        return out
    return [path]


def _mutate(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    copy = json.loads(json.dumps(data))
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(_fields(copy))
        node = copy
        for key in path[:-1]:
            node = node[key]
        roll = rng.random()
        if roll < 0.8:
            node[path[-1]] = copy_module.deepcopy(rng.choice(ODD))  # never the shared object itself
        elif roll < 0.9:
            del node[path[-1]]
        else:
            node[f"{path[-1]}_unknown"] = copy_module.deepcopy(rng.choice(ODD))
    if rng.random() < 0.3:
        copy.setdefault("cluster", {})
        if isinstance(copy["cluster"], dict):
            copy["cluster"]["platform_defaults"] = True
            copy["cluster"]["gpu_model"] = rng.choice(["b200-sxm", "gb200-nvl72", "h200-sxm", "nope"])
    return copy


def _cli(argv: list[str]) -> tuple[int, str]:
    from neoplan.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def fuzz(count: int = 12_000, seed: int = 39) -> int:
    """``count`` bad inputs: mutated scenario files through ``evaluate`` (YAML and JSON, some with platform defaults),
    and odd arguments to ``library``, ``report`` and ``quote``. Exit 0 or 2 is an answer; 1 is an internal error."""
    import yaml

    rng = random.Random(seed)
    base = neoplan.load_scenario("optimized").model_dump(mode="json")
    codes: dict[int, int] = {}
    crashes: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="neoplan-fuzz-"))
    library = folder / "lib.sqlite"
    import os

    os.environ["NEOPLAN_LIBRARY"] = str(library)
    os.environ.pop("NEOPLAN_DATABASE_URL", None)
    _cli(["library", "save", "Fuzz", "optimized"])
    started = time.monotonic()
    for i in range(count):
        if i % 5 == 4:
            argv = rng.choice(
                [
                    ["library", "show", "Fuzz", "--version", str(rng.choice([0, -1, 2**31, 10**20, 1]))],
                    ["library", "diff", "Fuzz", str(rng.randint(-5, 5)), str(rng.choice([1, 10**25]))],
                    ["library", "save", rng.choice([*ODD[26:30], "ok", " ", "x" * 200]) or "-", "optimized"],
                    ["library", "--user", rng.choice(["a\nb", "x" * 400, "", "https://id.example.com u"]), "list"],
                    ["report", "optimized", "--out", rng.choice(["", "x" * 300, "/dev/null", str(folder / "r")])],
                    ["quote", str(folder / "missing.csv")],
                    ["stress", "optimized", "--draws", str(rng.choice([0, -1, 10**12])), "--seed", "1"],
                ]
            )
        else:
            data = _mutate(base, rng)
            path = folder / f"f{i % 7}.{'json' if i % 2 else 'yaml'}"
            try:
                text = json.dumps(data) if i % 2 else yaml.safe_dump(data, allow_unicode=True)
            except (ValueError, UnicodeEncodeError):
                text = json.dumps(data, ensure_ascii=True)
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            argv = ["evaluate", str(path)]
        code, err = _cli(argv)
        codes[code] = codes.get(code, 0) + 1
        if code not in (0, 2) or (code == 2 and len(err.strip().splitlines()) != 1):
            crashes.append(f"{argv}: exit {code}: {err.strip()[:300]}")
        if (i + 1) % 250 == 0:
            print(f"  {i + 1:,} inputs: exit codes {dict(sorted(codes.items()))}, {len(crashes)} crashes", flush=True)
    took = time.monotonic() - started
    print(f"{count:,} bad inputs in {took:.0f} s: exit codes {dict(sorted(codes.items()))}; {len(crashes)} crashes")
    for line in crashes[:10]:
        print("  " + line)
    return 1 if crashes else 0


if __name__ == "__main__":
    what, *rest = sys.argv[1:] or ["fuzz"]
    if what == "concurrency":
        sys.exit(concurrency(rest[0], *(float(x) for x in rest[1:2])))
    if what == "kill":
        sys.exit(kill(rest[0], *(int(x) for x in rest[1:2])))
    if what == "down":
        sys.exit(down(rest[0], rest[1], *(float(x) for x in rest[2:3])))
    sys.exit(fuzz(*(int(x) for x in rest[:2])))

"""``neoplan library list|save|show|history|diff|delete``: the scenario library from the command line.

The same store as the app: ``$NEOPLAN_DATABASE_URL``, else the SQLite file at ``$NEOPLAN_LIBRARY`` (or the user data
folder). The CLI acts as the operator, who sees every scenario; ``--user ID`` acts as that signed-in user instead
(what they see, and the owner and author of what they save). Saves are versions: ``save`` adds one with ``-m``'s
message. Errors (no such scenario, a bad name, a library that cannot be read) exit with code 2 and one line; the
library's location is named with any password hidden.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from typing import Any

import yaml

from .inputs.loading import load_scenario


class _Usage(ValueError):
    pass


def _library(args: argparse.Namespace) -> Any:
    from .store import LOCAL, Library, User

    return Library(user=User(args.user) if args.user else LOCAL)


def _entry_dict(e: Any) -> dict[str, Any]:
    return {
        "name": e.name,
        "preset": e.read_only,
        "version": e.version or None,
        "saved_at": e.saved_at or None,
        "owner": None if e.read_only else e.owner,
        "shared": None if e.read_only else e.shared,
    }


def _list(args: argparse.Namespace) -> None:
    library = _library(args)
    library.check()  # the app falls back to the presets; the operator is told what is wrong
    entries = library.entries()
    if args.json:
        print(json.dumps([_entry_dict(e) for e in entries], indent=2, ensure_ascii=False))
        return
    width = max(len(e.name) for e in entries)
    for e in entries:
        if e.read_only:
            print(f"{e.name:<{width}}  preset")
        else:
            who = f"{e.owner or 'local user'}, {'shared' if e.shared else 'private'}"
            print(f"{e.name:<{width}}  v{e.version}  {e.saved_at}  {who}")


def _save(args: argparse.Namespace) -> None:
    saved = _library(args).save(args.name, load_scenario(args.file), message=args.message or "")
    print(f"saved “{saved.name}” version {saved.version}")


def _show(args: argparse.Namespace) -> None:
    scenario = _library(args).load(args.name, args.version)
    data = scenario.model_dump(mode="json")
    print(json.dumps(data, indent=2, ensure_ascii=False) if args.json else yaml.safe_dump(data, sort_keys=False))


def _history(args: argparse.Namespace) -> None:
    versions = _library(args).history(args.name)
    if args.json:
        print(json.dumps([v.__dict__ for v in versions], indent=2, ensure_ascii=False))
        return
    for v in versions:
        print(f"v{v.version}  {v.saved_at}  {v.author or 'local user'}  {v.message}")


def _show_value(value: Any) -> str:
    return (
        json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list, str)) or value is None else f"{value}"
    )


def _diff(args: argparse.Namespace) -> None:
    diff = _library(args).diff(args.name, args.a, args.b)
    if args.json:
        print(json.dumps(diff.to_dict(), indent=2, ensure_ascii=False, allow_nan=False))
        return
    print(f"“{diff.name}” version {diff.a} → version {diff.b}")
    print(f"inputs that differ ({len(diff.inputs)}):" if diff.inputs else "inputs: the same")
    for change in diff.inputs:
        print(f"  {change.path}: {_show_value(change.old)} → {_show_value(change.new)}")
    width = max(len(k.label) for k in diff.kpis)
    print("KPIs:")
    for k in diff.kpis:
        old, new, delta = k.text()
        print(f"  {k.label:<{width}}  {old} → {new}" + (f"  ({delta})" if delta else ""))


def _delete(args: argparse.Namespace) -> None:
    library = _library(args)
    if not library.exists(args.name):
        raise _Usage(f"library: no scenario named {args.name!r}")
    library.delete(args.name)
    print(f"deleted “{args.name}”")


def run(args: argparse.Namespace) -> int:
    """Run one ``library`` subcommand; errors become one line on stderr and exit code 2."""
    from .errors import ScenarioError
    from .store import LibraryError, default_url, redact

    logging.getLogger("neoplan.store").addHandler(logging.NullHandler())  # the one line below says it all
    try:
        args.library_func(args)
    except LibraryError as exc:
        cause = str(exc.__cause__ or "").strip().splitlines()
        why = f" ({cause[0][:200]})" if cause else ""
        print(f"error: scenario library {redact(default_url())}: {exc}{why}", file=sys.stderr)
        return 2
    except (ScenarioError, _Usage) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def add_parser(sub: Any) -> None:
    """The ``library`` command and its subcommands, on the CLI's subparsers ``sub``."""
    lib = sub.add_parser("library", help="saved scenarios and their versions (the app's library)")
    lib.add_argument("--user", default="", metavar="ID", help="act as this signed-in user (default: the operator)")
    commands = lib.add_subparsers(dest="library_command", required=True)

    def command(name: str, func: Callable[[argparse.Namespace], None], text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = commands.add_parser(name, help=text)
        parser.set_defaults(func=run, library_func=func)
        return parser

    command("list", _list, "presets and saved scenarios").add_argument("--json", action="store_true")
    save = command("save", _save, "save a scenario file (or preset) as a new version of NAME")
    save.add_argument("name", metavar="NAME")
    save.add_argument("file", metavar="FILE", help="scenario YAML/JSON file, or a preset name")
    save.add_argument("-m", "--message", default="", metavar="MSG", help="one line saying what changed")
    show = command("show", _show, "print a saved scenario (YAML, or JSON with --json)")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--version", type=int, default=None, metavar="N", help="that version (default: the newest)")
    show.add_argument("--json", action="store_true")
    history = command("history", _history, "every version of NAME: number, time, author, message")
    history.add_argument("name", metavar="NAME")
    history.add_argument("--json", action="store_true")
    diff = command("diff", _diff, "inputs that differ between versions A and B of NAME, and the KPI deltas")
    diff.add_argument("name", metavar="NAME")
    diff.add_argument("a", type=int, metavar="A")
    diff.add_argument("b", type=int, metavar="B")
    diff.add_argument("--json", action="store_true")
    command("delete", _delete, "delete NAME and its history").add_argument("name", metavar="NAME")

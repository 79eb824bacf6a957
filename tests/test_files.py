"""Exports are written whole or not at all, and ``--out`` must name a folder (issue 23)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

import neoplan
from neoplan import export as ex
from neoplan.analysis import stress
from neoplan.cli import main
from neoplan.files import out_folder, write_atomic
from neoplan.inputs.loading import save_scenario


def _disk_full(*_args: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_write_atomic_replaces_the_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "book.xlsx"
    target.write_bytes(b"old")
    assert write_atomic(target, b"new content") == target
    assert target.read_bytes() == b"new content"
    assert [p.name for p in tmp_path.iterdir()] == ["book.xlsx"]  # no temporary file left


def test_a_full_disk_leaves_the_old_file_and_no_fragment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "book.xlsx"
    target.write_bytes(b"old")
    monkeypatch.setattr(os, "fsync", _disk_full)
    with pytest.raises(OSError, match="No space"):
        write_atomic(target, b"x" * 100_000)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["book.xlsx"]


def test_a_full_disk_during_a_report_leaves_no_truncated_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = neoplan.evaluate(neoplan.load_scenario("optimized"))
    monkeypatch.setattr(os, "fsync", _disk_full)
    out = tmp_path / "out"
    with pytest.raises(OSError):
        ex.write_report(result, out, stress.Settings(draws=100))
    assert list(out.iterdir()) == []


def test_cli_report_on_a_full_disk_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(os, "fsync", _disk_full)
    assert main(["report", "optimized", "--out", str(tmp_path / "out"), "--draws", "100"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err
    assert list((tmp_path / "out").iterdir()) == []


def test_save_scenario_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "plan.yaml"
    save_scenario(neoplan.load_scenario("optimized"), target)
    before = target.read_text(encoding="utf-8")
    monkeypatch.setattr(os, "fsync", _disk_full)
    with pytest.raises(OSError):
        save_scenario(neoplan.load_scenario("reference"), target)
    assert target.read_text(encoding="utf-8") == before
    assert neoplan.load_scenario(target).name == neoplan.load_scenario("optimized").name


@pytest.mark.parametrize("out", ["", "   "])
def test_cli_report_refuses_an_empty_out(
    out: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["report", "optimized", "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err and "must name a folder" in err
    assert list(tmp_path.iterdir()) == []  # nothing written into the current folder


def test_cli_report_refuses_a_file_as_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "report.txt"
    blocker.write_text("mine", encoding="utf-8")
    assert main(["report", "optimized", "--out", str(blocker)]) == 2
    assert "is a file" in capsys.readouterr().err
    assert blocker.read_text(encoding="utf-8") == "mine"


def test_write_report_refuses_an_empty_folder_name() -> None:
    result = neoplan.evaluate(neoplan.load_scenario("optimized"))
    with pytest.raises(ValueError, match="must name a folder"):
        ex.write_report(result, "")


def test_out_folder_accepts_a_new_or_existing_folder(tmp_path: Path) -> None:
    assert out_folder(tmp_path) == tmp_path
    assert out_folder(tmp_path / "new") == tmp_path / "new"

"""Every CLI path answers bad input with exit 2 and one line (issue 39 found exit 1 "internal error" on each case
here), and text from a file never drives the terminal: control, bidi and zero-width characters print as escapes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neoplan.cli import main
from neoplan.errors import ScenarioError
from neoplan.inputs.loading import load_scenario
from neoplan.plaintext import INVISIBLE, for_terminal
from neoplan.store import Library, check_name
from neoplan.store.access import AllowList, ConfigError, Identity, Refused, admit, secret_problem, server_problems


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line(code: int, err: str) -> None:
    assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("error: "), (code, err)


def test_a_quoted_number_with_platform_defaults_is_an_answer_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "q.yaml"
    plan.write_text('cluster:\n  gpu_model: b200-sxm\n  platform_defaults: true\nfacility:\n  rack_power_kw: "60"\n')
    code, out, _ = _main(capsys, "evaluate", str(plan))
    assert code == 0 and "GPUs / servers" in out


@pytest.mark.parametrize("value", ["[]", "{}", '""', '" "', "1e400", '"abc"', "-5"])
@pytest.mark.parametrize("field", ["cluster:\n  gpus", "facility:\n  rack_power_kw", "prices_as_of"])
def test_odd_values_beside_platform_defaults_are_answers_not_internal_errors(
    field: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by benchmarks/bench_reliability.py's fuzz: a list, a mapping or an empty string where the platform
    switch reads a number was an internal error (exit 1)."""
    plan = tmp_path / "p.yaml"
    head = "cluster:\n  gpu_model: b200-sxm\n  platform_defaults: true\n"
    plan.write_text(head + (f"  gpus: {value}\n" if field.startswith("cluster") else f"{field}: {value}\n"))
    code, _, err = _main(capsys, "evaluate", str(plan))
    assert code in (0, 2), err
    if code == 2:
        _one_line(code, err)


@pytest.mark.parametrize("version", ["99999999999999999999", "0", "-1", "2147483648"])
def test_a_version_out_of_range_exits_2(
    version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("NEOPLAN_LIBRARY", str(tmp_path / "lib.sqlite"))
    assert _main(capsys, "library", "save", "Plan", "optimized")[0] == 0
    for argv in (("show", "Plan", "--version", version), ("diff", "Plan", "1", version)):
        code, _, err = _main(capsys, "library", *argv)
        _one_line(code, err)
        assert "a version is a whole number from 1 to 2,147,483,647" in err


def test_paths_and_urls_that_cannot_be_used_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _main(capsys, "report", "optimized", "--out", str(tmp_path / ("a" * 300)))
    _one_line(code, err)
    assert "File name too long" in err
    for url in ("postgresql+psycopg://u:secret@h:notaport/db", "::::", "nosuchdriver://x/y"):
        monkeypatch.setenv("NEOPLAN_DATABASE_URL", url)
        code, _, err = _main(capsys, "library", "list")
        _one_line(code, err)
        assert "secret" not in err  # the password never printed


def test_terminal_escapes_in_a_file_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "esc.yaml"
    plan.write_text('name: "x\\e[31mred\\e[0m"\n', encoding="utf-8")
    code, out, err = _main(capsys, "evaluate", str(plan))
    _one_line(code, err)
    assert "\x1b" not in out + err and "U+001B" in err
    described = tmp_path / "desc.yaml"
    described.write_text('description: "a\\u202eb"\n', encoding="utf-8")
    code, _, err = _main(capsys, "evaluate", str(described))
    _one_line(code, err)
    assert "\u202e" not in err and "bidirectional" in err
    missing = tmp_path / "gone\x1b[2J.yaml"
    code, _, err = _main(capsys, "evaluate", str(missing))
    assert code == 2 and "\x1b" not in err and "\\x1b" in err  # the path, as typed, shown visibly


@pytest.mark.parametrize("text", ["a\u202eb", "zero\u200bwidth", "x\u2066y", "soft\u00adhyphen", "bom\ufeff", "a\nb"])
def test_names_with_invisible_or_bidi_characters_are_refused(text: str, tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="U\\+"):
        check_name(text)
    with pytest.raises(ScenarioError, match="name"):
        load_scenario({"base": "optimized", "name": text})
    with pytest.raises(ScenarioError, match="library: names"):
        Library(tmp_path / "lib.sqlite").save(text, load_scenario("optimized"))


def test_descriptions_keep_line_breaks_and_ordinary_scripts() -> None:
    plan = load_scenario({"base": "optimized", "name": "Tōkyō 東京 ✓ Ωmega", "description": "line one\nline two\tend"})
    assert plan.description.count("\n") == 1 and check_name("Référence ✓ 東京") == "Référence ✓ 東京"


@given(st.text(max_size=80))
@settings(max_examples=200)
def test_for_terminal_leaves_nothing_that_moves_the_cursor(text: str) -> None:
    shown = for_terminal(text)
    hidden = [
        ch for ch in shown if ch not in "\n\t" and (ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 or ord(ch) in INVISIBLE)
    ]
    assert not hidden and for_terminal(shown) == shown  # nothing left to escape a second time


# -- identity and server secrets, pure ---------------------------------------------------------------------------


ALLOW = AllowList(frozenset({"example.com"}), frozenset({"x@partner.org"}), frozenset({"svc"}))


def test_identity_is_iss_and_sub_and_the_email_only_when_verified() -> None:
    who = Identity.from_claims({"iss": "https://id", "sub": "42", "email": "a@example.com", "email_verified": True})
    assert (who.user_id, who.label) == ("https://id 42", "a@example.com")
    unverified = Identity.from_claims({"iss": "https://id", "sub": "43", "email": "a@example.com"})
    assert unverified.email is None and unverified.label == "43" and unverified.user_id == "https://id 43"
    with pytest.raises(Refused, match="has not verified"):
        admit({"iss": "https://id", "sub": "43", "email": "a@example.com", "email_verified": "false"}, ALLOW)
    assert admit({"iss": "https://id", "sub": "svc"}, ALLOW).label == "svc"
    for bad in ({"sub": "1"}, {"iss": "https://id"}, {"iss": "a b", "sub": "1"}, {"iss": "i", "sub": "x" * 400}):
        with pytest.raises(Refused):
            Identity.from_claims(bad)


CLAIM_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=40), st.lists(st.text(max_size=5)))


@given(st.dictionaries(st.sampled_from(["iss", "sub", "email", "email_verified", "name"]), CLAIM_VALUES))
@settings(max_examples=200)
def test_any_claims_are_admitted_or_refused_never_an_error(claims: dict[str, object]) -> None:
    try:
        who = admit(claims, ALLOW)
    except Refused:
        return
    assert who.subject == "svc" or (who.email or "").lower().endswith(("@example.com", "x@partner.org"))


def test_secrets_are_refused_when_short_or_examples() -> None:
    assert secret_problem("k" * 32, "s") is None
    assert "31 bytes" in str(secret_problem("k" * 31, "s"))
    assert "example" in str(secret_problem("change-me-too-at-least-16-characters", "s"))
    assert "example" in str(secret_problem("Change-Me-please-with-many-more-characters", "s"))
    with pytest.raises(ConfigError, match="names nobody"):
        AllowList.from_auth({})
    assert server_problems(None, None) == []
    assert len(server_problems({"cookie_secret": "short"}, "short")) == 3

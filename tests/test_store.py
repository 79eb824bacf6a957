"""The scenario library on both backends (SQLite file, PostgreSQL server): versions, owners, drafts, aliases, links.

Each test runs twice, on a fresh SQLite file and on a fresh PostgreSQL schema (see ``store_support``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from store_support import BACKENDS, database

import neoplan
from neoplan import metrics
from neoplan.errors import ScenarioError
from neoplan.store import LOCAL, Conflict, Draft, DraftTaken, Library, ShareError, User
from neoplan.store import share as share_mod

ALICE, BOB = User("alice@example.com"), User("bob@example.com")
SECRET = "s3cret-for-the-tests-only-" + "x" * 16  # 42 bytes: the least a share secret may be is 32
Factory = Callable[[User], Library]


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as where:
        yield where


@pytest.fixture
def as_user(url: str) -> Factory:
    """``as_user(user)``: the library at ``url`` as that user sees it."""
    return lambda user: Library(url, user)


def scenario(**changes: object) -> neoplan.Scenario:
    return neoplan.load_scenario({"base": "optimized", **changes})


def test_every_save_is_a_version_with_who_when_and_message(as_user: Factory) -> None:
    lib = as_user(ALICE)
    first = lib.save("Plan", scenario(), message="first cut")
    second = lib.save("Plan", scenario(cluster={"gpus": 2048}), message="twice the GPUs", expected_version=1)
    assert (first.version, second.version) == (1, 2)
    history = lib.history("Plan")
    assert [(v.version, v.author, v.message) for v in history] == [
        (1, ALICE.id, "first cut"),
        (2, ALICE.id, "twice the GPUs"),
    ]
    assert all(v.saved_at.endswith("+00:00") for v in history)  # ISO 8601, UTC
    assert lib.load("Plan").cluster.gpus == 2048
    assert lib.load("Plan", version=1).cluster.gpus == 1024
    assert lib.load_versioned("Plan") == (lib.load("Plan"), 2)
    with pytest.raises(ScenarioError, match="no version 7"):
        lib.load("Plan", version=7)


def test_a_stale_save_is_told_and_writes_nothing_then_can_save_on_top(as_user: Factory) -> None:
    alice, bob = as_user(ALICE), as_user(BOB)
    alice.save("Team", scenario(), shared=True)
    bob.save("Team", scenario(pricing={"utilization": 0.7}), message="bob's", expected_version=1)
    with pytest.raises(Conflict) as told:
        alice.save("Team", scenario(pricing={"utilization": 0.9}), message="alice's", expected_version=1)
    assert told.value.current is not None and told.value.current.version == 2
    assert "version 2 by bob@example.com" in str(told.value)
    assert [v.message for v in alice.history("Team")] == ["", "bob's"]  # nothing written
    on_top = alice.save("Team", scenario(pricing={"utilization": 0.9}), message="alice's", expected_version=2)
    assert on_top.version == 3
    assert [v.author for v in bob.history("Team")] == [ALICE.id, BOB.id, ALICE.id]  # no update lost
    with pytest.raises(Conflict, match="saved meanwhile"):
        bob.save("Team", scenario(), expected_version=0)  # "it must be new", but it exists


def test_saving_a_deleted_scenario_is_a_conflict(as_user: Factory) -> None:
    lib = as_user(ALICE)
    lib.save("Gone", scenario())
    lib.delete("Gone")
    with pytest.raises(Conflict, match="deleted"):
        lib.save("Gone", scenario(), expected_version=1)
    assert "Gone" not in lib.names()


def test_restore_saves_the_old_version_as_the_newest(as_user: Factory) -> None:
    lib = as_user(LOCAL)
    lib.save("P", scenario())
    lib.save("P", scenario(cluster={"gpus": 512}))
    restored = lib.restore("P", 1)
    assert restored.version == 3
    assert lib.load("P").cluster.gpus == 1024
    assert [v.message for v in lib.history("P")] == ["", "", "restored version 1"]


def test_diff_names_changed_inputs_and_kpi_deltas_from_the_model(as_user: Factory) -> None:
    lib = as_user(LOCAL)
    a = scenario()
    price = a.pricing.usd_per_gpu_hour + 1.0
    b = scenario(fabric={"oversubscription": 1.0}, pricing={"usd_per_gpu_hour": price})
    lib.save("D", a)
    lib.save("D", b)
    diff = lib.diff("D", 1, 2)
    changed = {c.path: (c.old, c.new) for c in diff.inputs}
    assert changed == {"fabric.oversubscription": (2.0, 1.0), "pricing.usd_per_gpu_hour": (price - 1.0, price)}
    ra, rb = neoplan.evaluate(a).to_dict(), neoplan.evaluate(b).to_dict()
    assert [k.key for k in diff.kpis] == list(metrics.HEADLINE)
    for k in diff.kpis:
        assert k.label == metrics.METRICS[k.key].label and k.unit == metrics.METRICS[k.key].unit
        old, new = metrics.lookup(ra, k.key), metrics.lookup(rb, k.key)
        assert (k.old, k.new) == (old, new)
        if old is not None and new is not None:
            assert k.delta == pytest.approx(new - old, rel=1e-12, abs=1e-9)
    npv = next(k for k in diff.kpis if k.key == "npv_usd")
    assert npv.delta is not None and npv.delta > 0  # $1 more per GPU-hour outweighs the non-blocking fabric
    assert lib.diff("D", 1, 1).inputs == []


def test_each_user_sees_own_and_shared_never_others_private(as_user: Factory) -> None:
    alice, bob = as_user(ALICE), as_user(BOB)
    alice.save("Alice private", scenario())
    alice.save("Alice shared", scenario(), shared=True)
    bob.save("Bob private", scenario())
    saved = lambda lib: {e.name for e in lib.entries() if not e.read_only}  # noqa: E731
    assert saved(alice) == {"Alice private", "Alice shared"}
    assert saved(bob) == {"Alice shared", "Bob private"}
    assert saved(as_user(LOCAL)) == {"Alice private", "Alice shared", "Bob private"}  # the operator sees all
    for call in (lambda: bob.load("Alice private"), lambda: bob.history("Alice private")):
        with pytest.raises(ScenarioError, match="no scenario named"):
            call()
    assert not bob.exists("Alice private")
    with pytest.raises(ScenarioError, match="only they can"):
        bob.delete("Alice shared")
    with pytest.raises(ScenarioError, match="only they can"):
        bob.set_shared("Alice shared", False)
    bob.save("Alice shared", scenario(cluster={"gpus": 512}), message="team edit")  # shared: the team may save
    assert alice.load("Alice shared").cluster.gpus == 512
    alice.set_shared("Alice shared", False)
    assert "Alice shared" not in saved(bob)
    bob.save("Alice private", scenario())  # not visible to him: a new scenario of his own, hers untouched
    assert alice.load("Alice private").cluster.gpus == 1024
    assert {e.name for e in bob.entries() if e.mine} == {"Alice private", "Bob private"}


def test_same_name_from_two_owners_gets_distinct_keys(as_user: Factory) -> None:
    alice, bob = as_user(ALICE), as_user(BOB)
    bob.save("Plan", scenario(cluster={"gpus": 512}))  # private: alice cannot see it ...
    alice.save("Plan", scenario(cluster={"gpus": 256}), shared=True)  # ... and shares a "Plan" of her own
    keys = [e.name for e in bob.entries() if not e.read_only]
    assert keys == ["Plan", f"Plan ({ALICE.id})"]
    assert bob.load("Plan").cluster.gpus == 512
    assert bob.load(f"Plan ({ALICE.id})").cluster.gpus == 256
    assert bob.load(f"Plan ({ALICE.id})").name == "Plan"


def test_drafts_belong_to_their_user_and_one_row_per_session(as_user: Factory) -> None:
    alice, bob = as_user(ALICE), as_user(BOB)
    draft = Draft(body='{"a": 1}', baseline='{"a": 0}', origin="Plan", source="saved “Plan”", origin_version=3)
    alice.save_draft("d" * 22, draft, session="tab-1")
    assert alice.load_draft("d" * 22) == draft
    assert bob.load_draft("d" * 22) is None and bob.claim_draft("d" * 22, "tab-9") is None  # opens nothing
    with pytest.raises(DraftTaken):
        bob.save_draft("d" * 22, draft, session="tab-1")  # and cannot write over it
    assert alice.load_draft("d" * 22) == draft
    for i in range(5):  # every edit updates the same row
        alice.save_draft("d" * 22, Draft(f'{{"a": {i}}}', "{}", None, "x"), session="tab-1")
    assert alice.load_draft("d" * 22) == Draft('{"a": 4}', "{}", None, "x")
    assert alice.claim_draft("d" * 22, "tab-2") is not None  # a refresh: the new session takes it over
    with pytest.raises(DraftTaken):
        alice.save_draft("d" * 22, draft, session="tab-1")  # the old tab must move to a new id
    alice.save_draft("d" * 22, Draft("{}", "{}", None, "refreshed"), session="tab-2")
    assert alice.load_draft("d" * 22) == Draft("{}", "{}", None, "refreshed")
    assert as_user(LOCAL).load_draft("d" * 22) is None  # drafts are per user, even for the operator
    assert "d" * 22 not in alice.names()


def test_drafts_reject_bad_ids(as_user: Factory) -> None:
    lib = as_user(LOCAL)
    draft = Draft("{}", "{}", None, "x")
    for bad in ("", "short", "../../etc/passwd-xxxxxxxxxx", "x" * 65, "a b" * 10):
        assert lib.load_draft(bad) is None and lib.claim_draft(bad, "s") is None
        with pytest.raises(ValueError):
            lib.save_draft(bad, draft)


def test_names_are_checked_before_anything_is_stored(as_user: Factory) -> None:
    lib = as_user(LOCAL)
    bad_names = {
        "": "needs a name",
        "   ": "needs a name",
        "x" * 121: "at most 120",
        "two\nlines": "control characters",
        "bell\x07": "control characters",
        "c1\x85control": "control characters",
        "lone \ud800 surrogate": "surrogate",
        "\udfff": "surrogate",
    }
    for bad, why in bad_names.items():
        with pytest.raises(ScenarioError, match=why):
            lib.save(bad, scenario())
    with pytest.raises(ScenarioError, match="surrogate"):
        lib.save("fine", scenario(), message="bad \udc80 message")
    with pytest.raises(ScenarioError, match="at most 200"):
        lib.save("fine", scenario(), message="m" * 201)
    assert [e.name for e in lib.entries() if not e.read_only] == []
    lib.save("  Référence ✓ 東京 🚀  ", scenario())
    assert lib.load("Référence ✓ 東京 🚀").name == "Référence ✓ 東京 🚀"


def test_aliases_are_kept_per_vendor_and_owner(as_user: Factory) -> None:
    alice, bob = as_user(ALICE), as_user(BOB)
    rows = [
        {"pattern": "PowerEdge XE9680", "category": "server"},
        {"pattern": "QSFP", "category": "optic", "quantity_basis": "total"},
    ]
    alice.save_aliases("Dell", rows)
    assert alice.aliases("Dell") == rows
    assert bob.aliases("Dell") == rows  # shared with the team by default
    bob.save_aliases("Dell", rows[:1], shared=False)
    assert bob.aliases("Dell") == rows[:1] and alice.aliases("Dell") == rows  # his own list wins for him only
    alice.save_aliases("Supermicro", [], shared=False)
    assert alice.alias_vendors() == ["Dell", "Supermicro"] and bob.alias_vendors() == ["Dell"]
    assert bob.aliases("HPE") == []
    for bad in (
        [{"pattern": "x"}],
        [{"pattern": "x", "category": "y", "extra": "z"}],
        [{"pattern": 1, "category": "y"}],
    ):
        with pytest.raises(ScenarioError, match=r"aliases\[0\]"):
            alice.save_aliases("Dell", bad)  # type: ignore[arg-type]
    with pytest.raises(ScenarioError, match="control characters"):
        alice.save_aliases("Dell", [{"pattern": "a\nb", "category": "y"}])
    assert alice.aliases("Dell") == rows


def test_share_link_opens_one_version_as_a_copy(as_user: Factory) -> None:
    alice, bob = as_user(ALICE), as_user(BOB)
    alice.save("Mine", scenario(cluster={"gpus": 256}), shared=True)
    alice.save("Mine", scenario(cluster={"gpus": 512}))
    token = alice.share_token("Mine", 1, SECRET)
    copy, label = bob.open_shared(token, SECRET)  # shared with the team: the link opens that one version
    assert copy.cluster.gpus == 256 and "“Mine” version 1" in label and ALICE.id in label
    with pytest.raises(ShareError, match="another server secret"):
        bob.open_shared(token, "another-secret-of-at-least-32-bytes-xxxxx")
    payload, signature = token.split(".")
    forged = share_mod.make_token(share_mod.Grant(1, 2, 2**40), "not-the-servers-secret-but-32-bytes-long")
    for bad in (f"{payload}.{signature[:-2]}xy", forged, "garbage", "", f"{payload}.é", f"{token}{'A' * 9_000}"):
        with pytest.raises(ShareError):
            bob.open_shared(bad, SECRET)
    expired = share_mod.make_token(share_mod.grant_for(1, 1, days=1, now=0.0), SECRET)
    with pytest.raises(ShareError, match="expired"):
        bob.open_shared(expired, SECRET)
    for weak, why in (
        (None, "no share-link secret"),
        ("short", "5 bytes"),
        ("change-me-too-at-least-16-characters", "example"),
    ):
        with pytest.raises(ShareError, match=why):
            alice.share_token("Mine", 1, weak)
        with pytest.raises(ShareError, match=why):
            bob.open_shared(token, weak)
    with pytest.raises(ScenarioError, match="no version 9"):
        alice.share_token("Mine", 9, SECRET)
    alice.delete("Mine")
    with pytest.raises(ShareError, match="deleted"):
        bob.open_shared(token, SECRET)


def test_a_link_opens_only_while_its_reader_may_see_the_scenario(as_user: Factory) -> None:
    alice, bob = as_user(ALICE), as_user(BOB)
    alice.save("Plan", scenario(), shared=True)
    token = alice.share_token("Plan", 1, SECRET)
    assert bob.open_shared(token, SECRET)[0].name == "Plan"
    alice.set_shared("Plan", False)  # made private after the link was made: it opens for alice only
    with pytest.raises(ShareError, match="no longer shared"):
        bob.open_shared(token, SECRET)
    assert alice.open_shared(token, SECRET)[0].name == "Plan"
    with pytest.raises(ScenarioError, match="private: share it with the team first"):
        alice.share_token("Plan", 1, SECRET)
    alice.set_shared("Plan", True)
    assert bob.open_shared(token, SECRET)[0].name == "Plan"


def test_a_link_to_a_deleted_scenario_never_opens_a_later_one(as_user: Factory) -> None:
    """Ids are never used again (AUTOINCREMENT, or PostgreSQL's sequence), and a link names its version's save."""
    alice, bob = as_user(ALICE), as_user(BOB)
    alice.save("Old", scenario(), shared=True)
    token = alice.share_token("Old", 1, SECRET)
    alice.delete("Old")  # the newest row: SQLite without AUTOINCREMENT would give its id to the next scenario
    bob.save("Bob private", scenario(cluster={"gpus": 2048}), shared=False)
    bob.save("Bob shared", scenario(cluster={"gpus": 4096}), shared=True)
    for reader in (alice, bob):
        with pytest.raises(ShareError, match="deleted"):
            reader.open_shared(token, SECRET)
    grant = share_mod.read_token(token, SECRET)
    ids = [bob._run(lambda conn, n=n: bob._find(conn, n).id) for n in ("Bob private", "Bob shared")]
    assert min(ids) > grant.scenario_id
    same_id = share_mod.make_token(share_mod.Grant(ids[1], 1, 2**40, "x" * 12), SECRET)  # signed, wrong save: refused
    with pytest.raises(ShareError, match="deleted"):
        alice.open_shared(same_id, SECRET)
    legacy = share_mod._b64(f"{ids[1]}.1.{2**40}".encode())
    legacy += "." + share_mod._sign(SECRET.encode(), f"{ids[1]}.1.{2**40}".encode())
    with pytest.raises(ShareError, match="older neoplan"):
        alice.open_shared(legacy, SECRET)


def test_text_stored_before_the_invisible_character_rule_opens_shown_visibly(as_user: Factory) -> None:
    """A version saved when names could hold bidi or control characters still opens (issue 39: refused or shown
    visibly): those characters come back written as escapes; nothing else changes."""
    import sqlalchemy as sa

    from neoplan.store.schema import versions

    alice = as_user(ALICE)
    alice.save("Old", scenario(cluster={"gpus": 256}), shared=True)
    body = scenario(cluster={"gpus": 256}).model_dump(mode="json") | {
        "name": "inv\u202eexe.pdf",
        "description": "a\x1bb",
        "description_by_user": True,
    }
    import json as json_

    alice._run(lambda conn: conn.execute(sa.update(versions).values(body=json_.dumps(body))), write=True)
    opened = alice.load("Old")
    assert opened.name == "inv\\u202eexe.pdf" and opened.description == "a\\x1bb" and opened.cluster.gpus == 256
    alice.register("x" * 400 + "\u202e", "")  # a label longer than a name and not plain: kept visibly, cut to fit

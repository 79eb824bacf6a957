"""The scenario library as one user sees it: saved scenarios and their versions, drafts, quote aliases.

A :class:`Library` is a light view of one :class:`Store` (one database, shared by every session of a process)
for one :class:`~neoplan.store.names.User`. That user sees the shipped presets (read-only), their own scenarios,
and every scenario shared with the team; the local user of an app without sign-in (``LOCAL``) sees them all.
A scenario is known by its *key*: its name, or ``name (owner)`` where two visible scenarios share a name.

Every save is a new version (who, when, a one-line message). A save names the version it was based on
(``expected_version``): if someone saved in between, :class:`Conflict` says who and when, and nothing is written;
the caller may then save on top (a new version, the other save kept in the history). The check and the bump run
in one transaction with the scenario's row locked (``SELECT … FOR UPDATE`` on PostgreSQL; SQLite's write lock), so
two replicas or processes never lose an update.

Drafts are what a browser session is editing: one row per session, updated in place, owned by the user who made
it. A session that opens a draft (a refresh, a link) takes it over; the session it was taken from learns so from
:class:`DraftTaken` on its next write and starts a new draft, so two tabs never write to one. Someone else's draft
id opens nothing. Drafts untouched for ``DRAFT_DAYS`` are deleted.

A library that cannot be read never stops the presets: :meth:`Library.entries` falls back to them and records the
reason in :attr:`Library.error` (visitor-safe words; the location is in the server log); the other methods raise
:class:`LibraryError`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, make_url

from ..errors import ScenarioError
from ..inputs.loading import load_scenario
from ..inputs.presets import preset_names
from ..inputs.scenario import Scenario
from ..plaintext import visible
from . import share
from .backend import LibraryError, as_url
from .connection import Store, _upsert, open_store
from .names import DRAFT_ID, LOCAL, MAX_NAME_CHARS, MAX_USER_CHARS, User, check_message, check_name
from .records import Conflict, Draft, DraftTaken, Entry, Saved, Version, _now, _shown, parse_stored
from .schema import aliases as aliases_t
from .schema import drafts as drafts_t
from .schema import scenarios as scenarios_t
from .schema import users as users_t
from .schema import versions as versions_t
from .versions import Diff, diff

T = TypeVar("T")
DRAFT_DAYS = 30
"""Drafts untouched for this many days are deleted [days]."""
MAX_ALIASES = 2000
ALIAS_KEYS = ("pattern", "category", "quantity_basis")


class Library:
    """Saved scenarios, versions, drafts and aliases as ``user`` sees them, plus the shipped presets (read-only).

    Every method in one session: the manual's Scenario library page (run as a doctest).

    Parameters
    ----------
    where : str or pathlib.Path, optional
        An SQLAlchemy URL, or an SQLite file's path; default ``$NEOPLAN_DATABASE_URL``, else
        :func:`neoplan.store.default_path`.
    user : User, optional
        Who is asking; default ``LOCAL``, the one user of an app without sign-in, who sees everything.
    store : Store, optional
        The database to use instead of ``where``.
    budget_s : float, optional
        How long each call retries a busy or unreachable database [s]; default ``RETRY_BUDGET_S`` (the app passes
        a shorter one so a page answers quickly).
    """

    def __init__(
        self,
        where: str | Path | None = None,
        user: User = LOCAL,
        *,
        store: Store | None = None,
        budget_s: float | None = None,
    ) -> None:
        self.store = store if store is not None else open_store(as_url(where))
        self.user = user
        self.budget_s = budget_s
        """How long each call retries a busy or unreachable database [s] (None: ``RETRY_BUDGET_S``)."""
        self.error: str | None = None
        """Why the library could not be used on the last call (None when it worked); names no file or host."""

    @property
    def path(self) -> Path | None:
        """The SQLite file (None for a database server)."""
        url = make_url(self.store.url)
        return Path(url.database) if url.get_backend_name() == "sqlite" and url.database else None

    @property
    def location(self) -> str:
        return self.store.location

    def _run(self, work: Callable[[Connection], T], *, write: bool = False, durable: bool = True) -> T:
        try:
            result = self.store.run(work, write=write, durable=durable, budget_s=self.budget_s)
        except LibraryError as exc:
            self.error = str(exc)
            raise
        self.error = None
        return result

    def check(self) -> None:
        """Raise :class:`LibraryError` (words fit for any visitor) unless the library can be read; migrates it."""
        self._run(lambda conn: conn.execute(sa.select(sa.func.count()).select_from(scenarios_t)).scalar())

    # -- who sees what ---------------------------------------------------------------------------------------

    def _visible(self) -> sa.ColumnElement[bool]:
        if self.user.sees_all:
            return sa.true()
        return sa.or_(scenarios_t.c.owner == self.user.id, scenarios_t.c.shared.is_(True))

    def _rows(self, conn: Connection) -> dict[str, Any]:
        """Visible scenarios (no bodies) by key, sorted by key without case; ``who`` is how people see the owner."""
        s, u = scenarios_t.c, users_t.c
        rows = conn.execute(
            sa.select(s.id, s.owner, s.name, s.shared, s.version, s.updated_at, _shown(u.label, s.owner).label("who"))
            .outerjoin(users_t, u.id == s.owner)
            .where(self._visible())
            .order_by(sa.func.lower(s.name), s.name, s.owner)
        ).all()
        counts = Counter(r.name for r in rows)
        keyed: dict[str, Any] = {}
        for r in rows:
            alone = counts[r.name] == 1 or r.owner == self.user.id
            keyed.setdefault(r.name if alone else f"{r.name} ({r.who or 'local user'})", r)
        return dict(sorted(keyed.items(), key=lambda item: (item[0].lower(), item[0])))

    def _entry(self, key: str, r: Any) -> Entry:
        mine = r.owner == self.user.id or self.user.sees_all
        return Entry(key, False, r.updated_at, r.who, bool(r.shared), int(r.version), mine)

    def _find(self, conn: Connection, name: str) -> Any:
        row = self._rows(conn).get(name)
        if row is None:
            raise ScenarioError(f"library: no scenario named {name!r}")
        return row

    # -- scenarios -------------------------------------------------------------------------------------------

    def entries(self) -> list[Entry]:
        """Presets first, then saved scenarios by name; only the presets if the library cannot be read (``error``).

        Returns
        -------
        list of Entry
            Key, read-only flag, time saved, owner, shared flag, version [count], whether the user owns it.
        """
        presets = [Entry(p, True) for p in preset_names()]
        try:
            keyed = self._run(self._rows)
        except LibraryError:
            return presets
        return presets + [self._entry(k, r) for k, r in keyed.items()]

    def names(self) -> list[str]:
        """Keys of every scenario that can be opened."""
        return [e.name for e in self.entries()]

    def is_preset(self, name: str) -> bool:
        """Whether ``name`` is a shipped, read-only preset."""
        return name in preset_names()

    def entry(self, name: str) -> Entry | None:
        """The saved scenario ``name`` (None for a preset or an unknown name)."""
        if self.is_preset(name):
            return None
        keyed = self._run(self._rows)
        return self._entry(name, keyed[name]) if name in keyed else None

    def exists(self, name: str) -> bool:
        """Whether a preset or a visible saved scenario is called ``name`` (LibraryError if the library is broken)."""
        return self.is_preset(name) or self.entry(name) is not None

    def load(self, name: str, version: int | None = None) -> Scenario:
        """The scenario saved (or shipped) under ``name``: its newest version, or ``version``.

        Parameters
        ----------
        name : str
            A preset's or saved scenario's key (``name (owner)`` where two share a name).
        version : int, optional
            The version; default the newest.

        Returns
        -------
        Scenario
            Validated again; ScenarioError for an unknown name or version.
        """
        return self.load_versioned(name, version)[0]

    def load_versioned(self, name: str, version: int | None = None) -> tuple[Scenario, int | None]:
        """:meth:`load`, and the version number read (None for a preset), in one transaction."""
        if self.is_preset(name):
            if version is not None:
                raise ScenarioError(f"library: {name!r} is a preset; presets have no versions")
            return load_scenario(name), None

        if version is not None:
            _check_version(version)

        def read(conn: Connection) -> tuple[str | None, int]:
            row = self._find(conn, name)
            v = versions_t.c
            wanted = row.version if version is None else version
            body = conn.execute(sa.select(v.body).where(v.scenario_id == row.id, v.version == wanted)).scalar()
            return body, int(wanted)

        body, read_version = self._run(read)
        if body is None:
            raise ScenarioError(f"library: “{name}” has no version {version}")
        return parse_stored(body, name), read_version

    def save(
        self,
        name: str,
        scenario: Scenario,
        *,
        message: str = "",
        expected_version: int | None = None,
        shared: bool | None = None,
    ) -> Saved:
        """Save ``scenario`` as a new version of ``name`` (a new scenario if there is none).

        Parameters
        ----------
        name : str
            One line, not a preset's.
        scenario : Scenario
            What to save (renamed ``name``).
        message : str, optional
            A one-line note for the history.
        expected_version : int, optional
            The version this save is based on (0: none, it must be new); None saves on top of the newest.
        shared : bool, optional
            Who sees it (its owner only): a new one is private for a signed-in user, shared for the local user.

        Returns
        -------
        Saved
            The scenario as saved, its key and its new version; :class:`Conflict` (nothing written) if someone
            saved after ``expected_version``.
        """
        if self.is_preset(name.strip()):
            raise ScenarioError(f"library: {name.strip()!r} is a read-only preset; save under another name")
        message = check_message(message)

        def write(conn: Connection) -> Saved:
            existing = self._rows(conn).get(name)
            if existing is None:
                return self._insert(conn, check_name(name), scenario, message, expected_version, shared)
            return self._add_version(conn, name, existing, scenario, message, expected_version, shared)

        return self._run(write, write=True)

    def _insert(
        self, conn: Connection, name: str, scenario: Scenario, message: str, expected: int | None, shared: bool | None
    ) -> Saved:
        if expected:  # it was there when the user opened it: it has been deleted since
            raise Conflict(name, expected, None)
        now = _now()
        values = {"owner": self.user.id, "name": name, "version": 1, "created_at": now, "updated_at": now}
        values["shared"] = self.user.sees_all if shared is None else shared
        scenario_id = conn.execute(scenarios_t.insert().values(**values)).inserted_primary_key[0]  # type: ignore[index]
        named = scenario.model_copy(update={"name": name})
        self._write_version(conn, scenario_id, 1, named, message, now)
        return Saved(named, name, 1)

    def _add_version(
        self,
        conn: Connection,
        key: str,
        row: Any,
        scenario: Scenario,
        message: str,
        expected: int | None,
        shared: bool | None,
    ) -> Saved:
        s = scenarios_t.c
        locked = conn.execute(sa.select(s.version).where(s.id == row.id).with_for_update()).scalar_one()
        if expected is not None and expected != locked:
            raise Conflict(key, expected, self._version(conn, row.id, locked))
        now = _now()
        changes: dict[str, Any] = {"version": locked + 1, "updated_at": now}
        if shared is not None and (row.owner == self.user.id or self.user.sees_all):
            changes["shared"] = shared
        conn.execute(scenarios_t.update().where(s.id == row.id).values(**changes))
        named = scenario.model_copy(update={"name": row.name})
        self._write_version(conn, row.id, locked + 1, named, message, now)
        return Saved(named, key, locked + 1)

    def _write_version(
        self, conn: Connection, scenario_id: int, version: int, scenario: Scenario, message: str, now: str
    ) -> None:
        conn.execute(
            versions_t.insert().values(
                scenario_id=scenario_id,
                version=version,
                body=scenario.to_json(),
                author=self.user.id,
                message=message,
                saved_at=now,
            )
        )

    @staticmethod
    def _versions_query() -> sa.Select[Any]:
        v, u = versions_t.c, users_t.c
        return sa.select(v.version, _shown(u.label, v.author), v.saved_at, v.message).outerjoin(
            users_t, u.id == v.author
        )

    def _version(self, conn: Connection, scenario_id: int, version: int) -> Version | None:
        v = versions_t.c
        row = conn.execute(self._versions_query().where(v.scenario_id == scenario_id, v.version == version)).first()
        return None if row is None else Version(*row)

    def duplicate(self, name: str, new_name: str) -> Saved:
        """Save a copy of ``name`` (preset or saved) as the new scenario ``new_name``.

        Parameters
        ----------
        name, new_name : str
            The scenario to copy, and the copy's name (new).

        Returns
        -------
        Saved
            The copy, as version 1.
        """
        new_name = check_name(new_name)
        if self.exists(new_name):
            raise ScenarioError(f"library: a scenario named {new_name!r} already exists")
        return self.save(new_name, self.load(name), message=f"copy of “{name}”", expected_version=0)

    def _own(self, row: Any, name: str) -> None:
        if row.owner != self.user.id and not self.user.sees_all:
            raise ScenarioError(f"library: “{name}” belongs to {row.owner or 'the local user'}; only they can do that")

    def delete(self, name: str) -> None:
        """Delete the saved scenario ``name`` and its history (its owner only); presets cannot be deleted.

        Parameters
        ----------
        name : str
            The scenario's key.
        """
        if self.is_preset(name):
            raise ScenarioError(f"library: {name!r} is a read-only preset")

        def write(conn: Connection) -> None:
            row = self._find(conn, name)
            self._own(row, name)
            conn.execute(versions_t.delete().where(versions_t.c.scenario_id == row.id))
            conn.execute(scenarios_t.delete().where(scenarios_t.c.id == row.id))

        self._run(write, write=True)

    def set_shared(self, name: str, shared: bool) -> None:
        """Share ``name`` with the team, or make it private to its owner (its owner only).

        Parameters
        ----------
        name : str
            The scenario's key.
        shared : bool
            True: everyone signed in sees it and may save versions; False: its owner only.
        """

        def write(conn: Connection) -> None:
            row = self._find(conn, name)
            self._own(row, name)
            conn.execute(scenarios_t.update().where(scenarios_t.c.id == row.id).values(shared=shared))

        self._run(write, write=True)

    # -- versions --------------------------------------------------------------------------------------------

    def history(self, name: str) -> list[Version]:
        """Every version of ``name``, oldest first.

        Parameters
        ----------
        name : str
            The scenario's key.

        Returns
        -------
        list of Version
            Version, author, time saved (ISO 8601, UTC) and message of each.
        """

        def read(conn: Connection) -> list[Version]:
            row = self._find(conn, name)
            v = versions_t.c
            rows = conn.execute(self._versions_query().where(v.scenario_id == row.id).order_by(v.version)).all()
            return [Version(*r) for r in rows]

        if self.is_preset(name):
            raise ScenarioError(f"library: {name!r} is a preset; presets have no versions")
        return self._run(read)

    def diff(self, name: str, a: int, b: int) -> Diff:
        """Version ``a`` against version ``b`` of ``name``: the inputs that differ and the KPI deltas.

        Parameters
        ----------
        name : str
            The scenario's key.
        a, b : int
            The two versions, old then new.

        Returns
        -------
        Diff
            Inputs by dotted path (old → new); headline KPIs of both, evaluated, and their deltas in their units.
        """
        return diff(name, a, self.load(name, a), b, self.load(name, b))

    def restore(self, name: str, version: int, *, expected_version: int | None = None) -> Saved:
        """Save version ``version`` of ``name`` again, as its newest version (the history keeps everything).

        Parameters
        ----------
        name : str
            The scenario's key.
        version : int
            The version to restore.
        expected_version : int, optional
            The newest version the caller saw (see :meth:`save`).

        Returns
        -------
        Saved
            The restored scenario and its new version.
        """
        return self.save(
            name, self.load(name, version), message=f"restored version {version}", expected_version=expected_version
        )

    # -- share links -----------------------------------------------------------------------------------------

    def share_token(self, name: str, version: int, secret: str | None, days: float = share.SHARE_DAYS) -> str:
        """A signed read-only link token to ``version`` of ``name``, valid for ``days``.

        Only for a scenario shared with the team (or any, for the local user): a link opens only for people who may
        see the scenario, so a link to a private one would open for nobody but its owner.

        Parameters
        ----------
        name : str
            The scenario's key.
        version : int
            The version the link opens.
        secret : str or None
            The HMAC-SHA256 secret (at least 32 bytes and not the example's, the same on every replica; changing it
            revokes every link).
        days : float, optional
            How long the link is valid [days].

        Returns
        -------
        str
            The token (ShareError without a secret, or with a weak one: links are off); :meth:`open_shared` reads it.
        """

        def read(conn: Connection) -> tuple[Any, str | None]:
            row = self._find(conn, name)
            v = versions_t.c
            saved_at = conn.execute(sa.select(v.saved_at).where(v.scenario_id == row.id, v.version == version)).scalar()
            return row, saved_at

        share.make_token(share.Grant(0, 0, 0), secret)  # no secret, or a weak one: say so before anything else
        _check_version(version)
        row, saved_at = self._run(read)
        if saved_at is None:
            raise ScenarioError(f"library: “{name}” has no version {version}")
        if not row.shared and not self.user.sees_all:
            raise ScenarioError(
                f"library: “{name}” is private: share it with the team first (a link opens only for people who may "
                "see the scenario)"
            )
        return share.make_token(share.grant_for(int(row.id), version, days, saved_at=saved_at), secret)

    def open_shared(self, token: str, secret: str | None) -> tuple[Scenario, str]:
        """The scenario version a share token names, and a description ("“Plan” version 3, shared by …").

        Checked at every open: the link's signature and expiry, that the version is the one the link was made for,
        and that this user may see the scenario *now* (its owner, or anyone while it is shared with the team).
        """
        grant = share.read_token(token, secret)

        def read(conn: Connection) -> Any | None:
            s, v, u = scenarios_t.c, versions_t.c, users_t.c
            return conn.execute(
                sa.select(s.name, s.owner, s.shared, v.body, v.saved_at, _shown(u.label, s.owner).label("who"))
                .join(versions_t, v.scenario_id == s.id)
                .outerjoin(users_t, u.id == s.owner)
                .where(s.id == grant.scenario_id, v.version == grant.version)
            ).first()

        row = self._run(read)
        if row is None or share.stamp_of(row.saved_at) != grant.stamp:
            raise share.ShareError("the scenario this link shares has been deleted")
        if not (row.shared or row.owner == self.user.id or self.user.sees_all):
            raise share.ShareError("the scenario this link shares is no longer shared with the team; ask its owner")
        scenario = parse_stored(row.body, row.name)
        return scenario, f"“{row.name}” version {grant.version} shared by {row.who or 'local user'}"

    # -- users -----------------------------------------------------------------------------------------------

    def register(self, label: str, email: str | None = None) -> None:
        """Keep how people see this signed-in user (``label``: their verified e-mail, else their OIDC subject).

        With a verified ``email``: what was owned by that address before user ids were the provider's (``iss``,
        ``sub``) — scenarios, drafts, aliases, authorship — becomes this user's, once.
        """
        if self.user.sees_all or not self.user.id:
            return
        label = visible(label.strip())[:MAX_USER_CHARS] or self.user.id[:MAX_USER_CHARS]
        values = {"id": self.user.id, "label": label, "seen_at": _now()}

        def write(conn: Connection) -> None:
            insert = _upsert(conn)(users_t).values(**values)
            conn.execute(insert.on_conflict_do_update(index_elements=[users_t.c.id], set_={"label": values["label"]}))
            if email and email != self.user.id:
                _adopt(conn, email, self.user.id)

        self._run(write, write=True)

    # -- drafts ----------------------------------------------------------------------------------------------

    def save_draft(self, draft_id: str, draft: Draft, *, session: str = "") -> None:
        """Keep ``draft`` under ``draft_id`` for this session (in place); DraftTaken if another session holds it.

        Prunes drafts older than DRAFT_DAYS.
        """
        if not DRAFT_ID.fullmatch(draft_id):
            raise ValueError(f"bad draft id {draft_id!r}")
        values = {
            "id": draft_id,
            "body": draft.body,
            "baseline": draft.baseline,
            "origin": draft.origin,
            "source": draft.source,
            "origin_version": draft.origin_version,
            "page_state": draft.page_state,
            "updated_at": _now(),
            "owner": self.user.id,
            "session": session,
        }
        cutoff = (datetime.now(UTC) - timedelta(days=DRAFT_DAYS)).isoformat(timespec="seconds")
        d = drafts_t.c

        def write(conn: Connection) -> int:
            insert = _upsert(conn)(drafts_t).values(**values)
            kept = {k: insert.excluded[k] for k in values if k not in ("id", "owner", "session")}
            held_here = (d.owner == self.user.id) & (sa.func.coalesce(d.session, "") == session)
            upsert = insert.on_conflict_do_update(index_elements=[d.id], set_=kept, where=held_here)
            written = len(conn.execute(upsert.returning(d.id)).all())  # 0: held by another session or user
            conn.execute(drafts_t.delete().where(d.updated_at < cutoff))
            return written

        if self._run(write, write=True, durable=False) == 0:
            raise DraftTaken(draft_id)

    def _draft(self, conn: Connection, draft_id: str) -> Draft | None:
        d = drafts_t.c
        row = conn.execute(
            sa.select(d.body, d.baseline, d.origin, d.source, d.origin_version, d.page_state).where(
                d.id == draft_id, d.owner == self.user.id
            )
        ).first()
        return None if row is None else Draft(*row)

    def load_draft(self, draft_id: str) -> Draft | None:
        """This user's draft under ``draft_id``; None if there is none, it is someone else's, or the id is malformed."""
        if not DRAFT_ID.fullmatch(draft_id):
            return None
        return self._run(lambda conn: self._draft(conn, draft_id))

    def claim_draft(self, draft_id: str, session: str) -> Draft | None:
        """Like :meth:`load_draft`, and ``session`` takes the draft over (its writes go to this row from now on)."""
        if not DRAFT_ID.fullmatch(draft_id):
            return None

        def write(conn: Connection) -> Draft | None:
            found = self._draft(conn, draft_id)
            if found is not None:
                conn.execute(drafts_t.update().where(drafts_t.c.id == draft_id).values(session=session))
            return found

        return self._run(write, write=True)

    # -- quote aliases ---------------------------------------------------------------------------------------

    def save_aliases(self, vendor: str, aliases: list[dict[str, str]], *, shared: bool = True) -> None:
        """Keep ``aliases`` as this user's list for ``vendor``, replacing their earlier one.

        Parameters
        ----------
        vendor : str
            The vendor's name.
        aliases : list of dict
            ``{pattern, category, quantity_basis?}``: a part number (else a regex of the description), the
            component, and whether its quantity is ``per_server`` or the line's ``total``.
        shared : bool, optional
            Whether the team reads it.
        """
        vendor = check_name(vendor, "vendor names")
        body = json.dumps(_checked_aliases(aliases), ensure_ascii=False)
        values = {"owner": self.user.id, "vendor": vendor, "body": body, "shared": shared, "saved_at": _now()}
        a = aliases_t.c

        def write(conn: Connection) -> None:
            insert = _upsert(conn)(aliases_t).values(**values)
            kept = {k: insert.excluded[k] for k in ("body", "shared", "saved_at")}
            conn.execute(insert.on_conflict_do_update(index_elements=[a.owner, a.vendor], set_=kept))

        self._run(write, write=True)

    def _alias_rows(self) -> sa.Select[Any]:
        a = aliases_t.c
        seen = sa.true() if self.user.sees_all else sa.or_(a.owner == self.user.id, a.shared.is_(True))
        return sa.select(a.owner, a.vendor, a.body, a.saved_at).where(seen)

    def aliases(self, vendor: str) -> list[dict[str, str]]:
        """The aliases for ``vendor``: this user's own list, else the newest one shared with the team ([] if none)."""
        a = aliases_t.c
        rows = self._run(lambda conn: conn.execute(self._alias_rows().where(a.vendor == vendor.strip())).all())
        if not rows:
            return []
        own = [r for r in rows if r.owner == self.user.id]
        row = own[0] if own else max(rows, key=lambda r: r.saved_at)
        return [dict(item) for item in json.loads(row.body)]

    def alias_vendors(self) -> list[str]:
        """Vendors with aliases this user can read, sorted."""
        rows = self._run(lambda conn: conn.execute(self._alias_rows()).all())
        return sorted({r.vendor for r in rows}, key=lambda v: (v.lower(), v))


MAX_VERSION = 2**31 - 1
"""The largest version number a library can hold (a 32-bit integer column)."""


def _check_version(version: int) -> None:
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= MAX_VERSION:
        raise ScenarioError(f"library: a version is a whole number from 1 to {MAX_VERSION:,}, got {version!r}")


def _adopt(conn: Connection, old: str, new: str) -> None:
    """Move what user id ``old`` (an e-mail, as ids were before sign-in used ``iss`` and ``sub``) owns to ``new``;
    a scenario whose name ``new`` already uses stays where it is."""
    s, d, a, v = scenarios_t.c, drafts_t.c, aliases_t.c, versions_t.c
    mine = sa.select(s.name).where(s.owner == new)
    conn.execute(scenarios_t.update().where(s.owner == old, s.name.not_in(mine)).values(owner=new))
    conn.execute(versions_t.update().where(v.author == old).values(author=new))
    conn.execute(drafts_t.update().where(d.owner == old).values(owner=new))
    taken = sa.select(a.vendor).where(a.owner == new)
    conn.execute(aliases_t.update().where(a.owner == old, a.vendor.not_in(taken)).values(owner=new))


QUANTITY_BASES = ("per_server", "total")
"""How an alias's quantity reads: per server, or the line's total."""


def _checked_aliases(aliases: Sequence[Any]) -> list[dict[str, str]]:
    """``aliases`` as plain dicts; ScenarioError naming the item and field that is not one line of text."""
    if not isinstance(aliases, Sequence) or isinstance(aliases, str) or len(aliases) > MAX_ALIASES:
        raise ScenarioError(f"aliases: a list of at most {MAX_ALIASES} aliases")
    out = []
    for i, item in enumerate(aliases):
        if not isinstance(item, dict) or set(item) - set(ALIAS_KEYS):
            raise ScenarioError(f"aliases[{i}]: keys are {', '.join(ALIAS_KEYS)}")
        for key in ALIAS_KEYS[:2]:
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise ScenarioError(f"aliases[{i}].{key} must be text")
        for key, value in item.items():
            if not isinstance(value, str) or len(value) > MAX_NAME_CHARS * 2:
                raise ScenarioError(f"aliases[{i}].{key} must be text of at most {MAX_NAME_CHARS * 2} characters")
            check_name(value or "-", f"aliases[{i}].{key}")
        if item.get("quantity_basis") not in (None, "", *QUANTITY_BASES):
            raise ScenarioError(
                f"aliases[{i}].quantity_basis must be {' or '.join(QUANTITY_BASES)}, got {item['quantity_basis']!r}"
            )
        out.append({k: str(v) for k, v in item.items()})
    return out

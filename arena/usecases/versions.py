"""A hosted bot's versions: one submitted (kept once by its hash, numbered per bot, within
the bot's caps: :class:`arena.domain.versions.Caps`), one judged once its check is over
(rejected saying why; else made the bot's active version, the one before retired, or
kept a candidate when it was submitted as one: arena/usecases/checks.py plays the
check), and one made active by its author (docs/hosting.md, "Versions")."""

from __future__ import annotations

from typing import IO, NamedTuple

from arena.domain.actors import ARENA
from arena.domain.identity import BotRef
from arena.domain.versions import CHECKED, KEPT, Caps, Checked, Manifest, refuse_activation
from arena.engine import quoted
from arena.errors import Invalid
from arena.store.base import Unit
from arena.store.rows import BotVersionRow
from arena.store.store import Store


class Submitted(NamedTuple):
    """What a submission came to: the version as it is now, and for files submitted
    before, the version's status as the submission found it ("": a new version)."""

    version: BotVersionRow
    found: str = ""

    @property
    def new(self) -> bool:
        return not self.found


def submit(
    store: Store,
    bot: str,
    manifest: Manifest,
    archive: IO[bytes] | bytes,
    checked: Checked,
    caps: Caps = KEPT,
    *,
    candidate: bool = False,
    actor: str = ARENA,
) -> Submitted:
    """The version of ``bot`` that ``archive`` (checked:
    :func:`arena.hosted.archive.check`) is. A new one past the bot's ``caps`` is refused
    (Exhausted), counted under the bot's lock, so that two at once cannot both pass the
    last place; it is logged as submitted by ``actor`` (the arena itself by default: its
    house bots), and once checked becomes active, or stays a candidate with
    ``candidate``. The same files and manifest again are the version they were, which
    then does what the flags say: without ``candidate``, it is made active if it was
    checked (a candidate or retired; logged as :func:`activate` does), or will be once
    its check passes; with ``candidate`` nothing changes."""
    with store.unit() as conn:
        owner = store.lock_submitter(conn, bot)
        found = store.version_by_hash(conn, owner.id, checked.hash)
        if found is not None:
            row = found
            if not candidate and found.status in CHECKED:
                row, _ = _activate(store, conn, BotRef(owner.name, found.number), found, actor)
            elif not candidate and found.status == "checking" and found.candidate:
                row = store.version_not_candidate(conn, found.id)
            return Submitted(row, found.status)
        versions, kept, has_archive = store.bot_keeps(conn, owner.id, checked.archive)
        caps.refuse(owner.name, versions, kept, 0 if has_archive else checked.size)
        store.keep_archive(conn, checked, archive)
        row = store.insert_version(conn, owner, manifest, checked, candidate)
        detail: dict[str, object] = {
            "version": row.number,
            "hash": checked.hash,
            "runtime": manifest.runtime,
        }
        if candidate:
            detail["candidate"] = True
        store.log_action(conn, actor, "submit", f"bot {owner.name}", detail)
        return Submitted(row)


def judge(store: Store, version_id: int, reason: str = "") -> BotVersionRow:
    """The version's check is over: rejected for ``reason``; with none, a candidate if
    it was submitted as one, else made its bot's active version at once (the one active
    before retired)."""
    with store.unit() as conn:
        row = store.lock_version(conn, version_id=version_id)
        status = "rejected" if reason else "candidate"
        row = store.set_version_status(conn, row.id, status, reason)
        if not reason and not row.candidate:
            row, _ = store.activate_version(conn, row.id)
        return row


def activate(
    store: Store, version: str, *, actor: str = ARENA
) -> tuple[BotVersionRow, BotVersionRow | None]:
    """Make ``version`` (``NAME@N``) its bot's active one, logged as done by ``actor``:
    any version checked and not rejected (a candidate, or one retired); the one active
    before is retired. Active already: nothing changes. NotFound for no such version,
    NotReady for one still being checked or rejected. The version as it is now, and the
    one it retired (None: none)."""
    ref = BotRef.parse(version)
    if not ref.is_version:
        raise Invalid(
            f"give the version to make active, NAME@N: {quoted(version)} is a bot "
            f"(arena bot versions {ref.bot} lists its versions)"
        )
    with store.unit() as conn:
        row = store.lock_version(conn, name=str(ref))
        if row.status == "active":
            return row, None
        refuse_activation(ref, row.status, row.reason)
        return _activate(store, conn, ref, row, actor)


def _activate(
    store: Store, conn: Unit, ref: BotRef, row: BotVersionRow, actor: str
) -> tuple[BotVersionRow, BotVersionRow | None]:
    """The version made active in the unit of work ``conn`` (its bot locked), logged;
    it and the version it retired."""
    made, retired = store.activate_version(conn, row.id)
    detail: dict[str, object] = {"version": ref.version, "was": row.status}
    if retired is not None:
        detail["retired"] = retired.number
    store.log_action(conn, actor, "activate", f"bot {ref.bot}", detail)
    return made, retired

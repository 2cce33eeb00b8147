"""A hosted bot's versions: one submitted (kept once by its hash, numbered per bot, within
the bot's caps: :class:`arena.domain.versions.Caps`) and one judged once its check is
over (made the bot's active version, the one before retired; or rejected, saying why:
arena/usecases/checks.py plays the check)."""

from __future__ import annotations

from typing import IO

from arena.domain.actors import ARENA
from arena.domain.versions import KEPT, Caps, Checked, Manifest
from arena.store.rows import BotVersionRow
from arena.store.store import Store


def submit(
    store: Store,
    bot: str,
    manifest: Manifest,
    archive: IO[bytes] | bytes,
    checked: Checked,
    caps: Caps = KEPT,
    *,
    actor: str = ARENA,
) -> tuple[BotVersionRow, bool]:
    """The version of ``bot`` that ``archive`` (checked:
    :func:`arena.hosted.archive.check`) is, and whether it is new: the same files and
    manifest again are the version they were the first time, whatever its status. A new
    one past the bot's ``caps`` is refused (Exhausted), counted under the bot's lock, so
    that two at once cannot both pass the last place. A new version is logged as
    submitted by ``actor`` (the arena itself by default: its house bots)."""
    with store.unit() as conn:
        owner = store.lock_submitter(conn, bot)
        found = store.version_by_hash(conn, owner.id, checked.hash)
        if found is not None:
            return found, False
        versions, kept, has_archive = store.bot_keeps(conn, owner.id, checked.archive)
        caps.refuse(owner.name, versions, kept, 0 if has_archive else checked.size)
        store.keep_archive(conn, checked, archive)
        row = store.insert_version(conn, owner, manifest, checked)
        detail = {"version": row.number, "hash": checked.hash, "runtime": manifest.runtime}
        store.log_action(conn, actor, "submit", f"bot {owner.name}", detail)
        return row, True


def judge(store: Store, version_id: int, reason: str = "") -> BotVersionRow:
    """The version's check is over: rejected for ``reason``, or with none made its bot's
    active version (the one active before is retired), at once."""
    return store.judge_version(version_id, reason)

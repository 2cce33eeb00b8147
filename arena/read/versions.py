"""Hosted bots' versions as people see them (the bot page, ``arena bot versions``, the
Arena API's ListVersions)."""

from __future__ import annotations

from typing import TypedDict

from arena.engine import quoted
from arena.errors import NotFound
from arena.read import stamp
from arena.store.rows import BotVersionRow
from arena.store.store import Store


class Version(TypedDict):
    bot: str
    number: int
    name: str  # its own bot row's: NAME@N
    hash: str
    runtime: str
    entry: str
    size: int
    unpacked: int
    files: int
    status: str
    reason: str
    created_at: str | None
    checked_at: str | None


def version(bot: str, row: BotVersionRow) -> Version:
    return Version(
        bot=bot,
        number=row.number,
        name=f"{bot}@{row.number}",
        hash=row.hash,
        runtime=row.runtime,
        entry=row.entry,
        size=row.size,
        unpacked=row.unpacked,
        files=row.files,
        status=row.status,
        reason=row.reason,
        created_at=stamp(row.created_at),
        checked_at=stamp(row.checked_at),
    )


def versions(store: Store, bot: str) -> list[Version]:
    """The bot's versions, the latest first."""
    if store.bot(bot) is None:
        raise NotFound(f"no bot named {quoted(bot)}")
    return [version(bot, r) for r in store.versions(bot)]

"""Hosted bots' versions in the store: each submission of a bot's code, kept once by its
hash, numbered per bot, with its own bot row ``NAME@N`` for its ratings and seats
(migration 0010)."""

from __future__ import annotations

import hashlib

from arena.engine import quoted
from arena.errors import NotFound
from arena.hosted.archive import Checked, Manifest
from arena.store.base import Connected
from arena.store.rows import BotVersionRow
from arena.store.sql import QUERIES as Q


class Versions(Connected):
    def add_version(
        self, bot: str, manifest: Manifest, data: bytes, checked: Checked
    ) -> tuple[BotVersionRow, bool]:
        """The version of ``bot`` that ``data`` (checked: :func:`arena.hosted.archive.check`)
        is, and whether it is new: the same files and manifest again are the version
        they were the first time, whatever its status."""
        with self._transaction() as conn:
            owner = conn.execute(Q["lock_bot"], {"name": bot}).fetchone()
            if owner is None:
                raise NotFound(f"no bot named {quoted(bot)}")
            row = conn.execute(
                Q["version_by_hash"], {"bot_id": owner["id"], "hash": checked.hash}
            ).fetchone()
            if row is not None:
                return BotVersionRow(**row), False
            archive = hashlib.sha256(data).hexdigest()
            conn.execute(Q["keep_archive"], {"hash": archive, "data": data})
            params = {
                "bot_id": owner["id"],
                "name": owner["name"],
                "owner": owner["owner"],
                "hash": checked.hash,
                "archive": archive,
                "runtime": manifest.runtime,
                "entry": manifest.entry,
                "size": checked.size,
                "unpacked": checked.unpacked,
                "files": checked.files,
            }
            row = conn.execute(Q["insert_version"], params).fetchone()
        assert row is not None
        return BotVersionRow(**row), True

    def versions(self, bot: str) -> list[BotVersionRow]:
        """The bot's versions, the latest first."""
        with self._transaction() as conn:
            return [BotVersionRow(**r) for r in conn.execute(Q["bot_versions"], {"name": bot})]

    def version_archive(self, version_id: int) -> bytes:
        with self._statement() as conn:
            row = conn.execute(Q["version_archive"], {"id": version_id}).fetchone()
        if row is None:
            raise NotFound(f"no version {version_id}")
        return bytes(row["data"])

"""Hosted bots' versions in the store: each submission of a bot's code, kept once by its
hash, numbered per bot, with its own bot row ``NAME@N`` for its ratings and seats
(migration 0010)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

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

    def playing_as(self, names: Sequence[str]) -> dict[str, tuple[int, str]]:
        """For each active bot among ``names``: the id and name it plays as, its active
        hosted version's (NAME@N) if it has one, else its own."""
        with self._transaction() as conn:
            rows = conn.execute(Q["active_bots"], {"names": list(names)})
            return {r["name"]: (r["id"], r["seat"]) for r in rows}

    def versions(self, bot: str) -> list[BotVersionRow]:
        """The bot's versions, the latest first."""
        with self._transaction() as conn:
            return [BotVersionRow(**r) for r in conn.execute(Q["bot_versions"], {"name": bot})]

    def version_ratings(self, bot: str) -> dict[int, list[dict[str, Any]]]:
        """Each version's ratings (pool, elo, games), by version number."""
        out: dict[int, list[dict[str, Any]]] = {}
        with self._transaction() as conn:
            for r in conn.execute(Q["version_ratings"], {"name": bot}):
                out.setdefault(r.pop("number"), []).append(r)
        return out

    def version(self, name: str) -> BotVersionRow:
        """A version by its name, ``NAME@N``."""
        with self._statement() as conn:
            row = conn.execute(Q["version_by_name"], {"name": name}).fetchone()
        if row is None:
            raise NotFound(f"no version {quoted(name)}")
        return BotVersionRow(**row)

    def judge_version(self, version_id: int, reason: str = "") -> BotVersionRow:
        """The version's check is over: rejected for ``reason``, or with none made its
        bot's active version (the one active before is retired), at once."""
        with self._transaction() as conn:
            if not reason:
                conn.execute(Q["retire_active"], {"id": version_id})
            status = "rejected" if reason else "active"
            params = {"id": version_id, "status": status, "reason": reason}
            row = conn.execute(Q["set_version_status"], params).fetchone()
        if row is None:
            raise NotFound(f"no version {version_id}")
        return BotVersionRow(**row)

    def keep_log(self, match_id: str, bot_id: int, log: str, status: int | None) -> None:
        """What a version's process printed in a match (kept again if played again)."""
        params = {"match_id": match_id, "bot_id": bot_id, "log": log, "status": status}
        with self._statement() as conn:
            conn.execute(Q["keep_log"], params)

    def bot_logs(self, match_id: str, name: str) -> list[dict[str, Any]]:
        """What the versions of bot ``name`` (or the version ``name``, NAME@N) printed in
        the match: version, status and log of each."""
        with self._statement() as conn:
            return list(conn.execute(Q["bot_logs"], {"match_id": match_id, "name": name}))

    def version_archive(self, version_id: int) -> bytes:
        with self._statement() as conn:
            row = conn.execute(Q["version_archive"], {"id": version_id}).fetchone()
        if row is None:
            raise NotFound(f"no version {version_id}")
        return bytes(row["data"])

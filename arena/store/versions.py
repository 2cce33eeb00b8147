"""Hosted bots' versions in the store: each submission of a bot's code, kept once by its
hash, numbered per bot, with its own bot row ``NAME@N`` for its ratings and seats
(migration 0010). The rows a submission reads and writes are on the unit of work of its
use case (arena/usecases/versions.py), which counts the bot's caps."""

from __future__ import annotations

import io
import struct
from collections.abc import Sequence
from typing import IO, Any

import psycopg

from arena.domain.versions import Checked, Manifest
from arena.engine import quoted
from arena.errors import Invalid, NotFound
from arena.store.base import Connected, Unit
from arena.store.rows import BotRow, BotVersionRow
from arena.store.sql import QUERIES as Q

CHUNK = 256 * 1024  # bytes of an archive sent to the server at a time
PART = 1024 * 1024  # bytes of an archive read from the server at a time
COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\0" + bytes(8)  # binary COPY's header: no flags, no extension
COPY_TRAILER = b"\xff\xff"


class Versions(Connected):
    def lock_submitter(self, conn: Unit, bot: str) -> BotRow:
        """The bot a version is submitted for (active, dialing in or hosted, not a
        version), locked until the unit of work ends: its versions are numbered, and its
        caps counted, one at a time."""
        row = conn.execute(Q["lock_bot"], {"name": bot}).fetchone()
        if row is None:
            raise NotFound(f"no bot named {quoted(bot)}")
        return BotRow(**row)

    def version_by_hash(self, conn: Unit, bot_id: int, hash: str) -> BotVersionRow | None:
        row = conn.execute(Q["version_by_hash"], {"bot_id": bot_id, "hash": hash}).fetchone()
        return None if row is None else BotVersionRow(**row)

    def bot_keeps(self, conn: Unit, bot_id: int, archive: str) -> tuple[int, int, bool]:
        """What the store keeps of the bot: its versions, the bytes of their archives
        (each archive once), and whether ``archive`` is one of them."""
        row = conn.execute(Q["bot_keeps"], {"bot_id": bot_id, "archive": archive}).fetchone()
        assert row is not None  # an aggregate has a row
        return row["versions"], row["kept"], row["has_archive"]

    def keep_archive(self, conn: Unit, checked: Checked, archive: IO[bytes] | bytes) -> None:
        """The archive kept (once, whoever sends it: locked by its hash), sent to the
        server a chunk at a time, from its file."""
        conn.execute(Q["lock_archive"], {"hash": checked.archive})
        if conn.execute(Q["archive_kept"], {"hash": checked.archive}).fetchone() is None:
            data = io.BytesIO(archive) if isinstance(archive, bytes) else archive
            _copy_archive(conn, checked.archive, data, checked.size)

    def insert_version(
        self, conn: Unit, bot: BotRow, manifest: Manifest, checked: Checked, candidate: bool
    ) -> BotVersionRow:
        """The bot's next version (numbered after its last), with its own bot row NAME@N;
        a ``candidate`` stays one once checked."""
        params = {
            "candidate": candidate,
            "bot_id": bot.id,
            "name": bot.name,
            "owner": bot.owner,
            "hash": checked.hash,
            "archive": checked.archive,
            "runtime": manifest.runtime,
            "entry": manifest.entry,
            "size": checked.size,
            "unpacked": checked.unpacked,
            "files": checked.files,
        }
        row = conn.execute(Q["insert_version"], params).fetchone()
        assert row is not None
        return BotVersionRow(**row)

    def playing_as(self, names: Sequence[str]) -> dict[str, tuple[int, str]]:
        """For each active bot among ``names``: the id and name it plays as, its active
        hosted version's (NAME@N) if it has one, else its own."""
        with self._transaction() as conn:
            rows = conn.execute(Q["active_bots"], {"names": list(names), "as_of": None})
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

    def lock_version(self, conn: Unit, name: str = "", version_id: int = 0) -> BotVersionRow:
        """A version by its name (``NAME@N``) or its id, its bot locked until the unit of
        work ends: what becomes of a bot's versions is decided one at a time."""
        params = {"name": name, "id": version_id}
        row = conn.execute(Q["lock_version"], params).fetchone()
        if row is None:
            raise NotFound(f"no version {quoted(name) if name else version_id}")
        return BotVersionRow(**row)

    def set_version_status(
        self, conn: Unit, version_id: int, status: str, reason: str = ""
    ) -> BotVersionRow:
        """The version's check is over: ``status`` (rejected, or a candidate), ``reason``."""
        params = {"id": version_id, "status": status, "reason": reason}
        row = conn.execute(Q["set_version_status"], params).fetchone()
        assert row is not None  # locked by lock_version
        return BotVersionRow(**row)

    def activate_version(
        self, conn: Unit, version_id: int
    ) -> tuple[BotVersionRow, BotVersionRow | None]:
        """The version made its bot's active one (its activation kept: migration 0019),
        the one active before retired; both rows as they are now (None: none was)."""
        retired = conn.execute(Q["retire_active"], {"id": version_id}).fetchone()
        row = conn.execute(Q["activate_version"], {"id": version_id}).fetchone()
        assert row is not None  # locked by lock_version
        return BotVersionRow(**row), None if retired is None else BotVersionRow(**retired)

    def version_not_candidate(self, conn: Unit, version_id: int) -> BotVersionRow:
        """A version being checked becomes active once it passes, after all."""
        row = conn.execute(Q["version_not_candidate"], {"id": version_id}).fetchone()
        assert row is not None  # locked by lock_version
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

    def version_archive(self, version_id: int, into: IO[bytes]) -> int:
        """Write the version's archive to ``into``, a part at a time (never the whole in
        memory); its size."""
        with self._transaction() as conn:
            row = conn.execute(Q["version_by_id"], {"id": version_id}).fetchone()
            if row is None:
                raise NotFound(f"no version {version_id}")
            size: int = row["size"]
            for at in range(0, size, PART):
                params = {"hash": row["archive"], "from": at + 1, "count": PART}
                part = conn.execute(Q["archive_part"], params, binary=True).fetchone()
                assert part is not None  # a version's archive is kept with it
                into.write(part["part"])
        return size

    def live_version_hashes(self, hashes: Sequence[str]) -> set[str]:
        """Of the version hashes named, those of a version active or being checked."""
        with self._statement() as conn:
            rows = conn.execute(Q["live_version_hashes"], {"hashes": list(hashes)})
            return {r["hash"] for r in rows}


def _copy_archive(conn: psycopg.Connection[Any], hash: str, data: IO[bytes], size: int) -> None:
    """The archive's row sent by COPY in its binary format (one row: the hash, then the
    bytes, their length first), read from ``data`` a chunk at a time: the store holds a
    chunk of it, not the whole (PostgreSQL builds the row on its side)."""
    key = hash.encode()
    head = struct.pack("!hi", 2, len(key)) + key + struct.pack("!i", size)
    data.seek(0)
    with conn.cursor().copy(Q["copy_archive"]) as copy:
        copy.write(COPY_SIGNATURE + head)
        left = size
        while left:
            chunk = data.read(min(CHUNK, left))
            if not chunk:
                raise Invalid(f"the archive ended {left:,} bytes short of its {size:,}")
            copy.write(chunk)
            left -= len(chunk)
        copy.write(COPY_TRAILER)

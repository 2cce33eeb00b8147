"""The Arena API's exports (docs/exports.md): a run's standings, matches or records, a
pool's leaderboard, a bot's matches or records, streamed as files in chunks. Anyone may
export; the organizer's files hold the whole records, a bot's own token its records
with its own seats' cards (:mod:`arena.read.exports`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from arena.domain.pools import DEFAULT_POOL, parse_pool
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import exports
from arena.read.exports import Export
from arena.store.store import Store
from referee.callers import Callers

Chunks = AsyncIterator[api.ExportChunk]


class Exports:
    """ExportRun, ExportPool and ExportBot, on ``store``."""

    def __init__(self, store: Store, callers: Callers) -> None:
        self.store, self.callers = store, callers

    async def ExportRun(self, request: Any, context: Any) -> Chunks:
        organizer = await self.callers.is_organizer(context)
        export = await asyncio.to_thread(
            exports.run_export, self.store, request.id, request.what, request.format,
            organizer=organizer,
        )  # fmt: skip
        async for chunk in _sent(export):
            yield chunk

    async def ExportPool(self, request: Any, context: Any) -> Chunks:
        pool = parse_pool(request.pool or DEFAULT_POOL)
        export = await asyncio.to_thread(
            exports.pool_export, self.store, pool, request.format, retired=request.retired
        )
        async for chunk in _sent(export):
            yield chunk

    async def ExportBot(self, request: Any, context: Any) -> Chunks:
        who = await self.callers.viewer(context)
        pool = parse_pool(request.pool) if request.pool else None
        export = await asyncio.to_thread(
            exports.bot_export, self.store, request.bot, request.what, request.format, pool,
            organizer=who.organizer, owner=who.owns(request.bot),
        )  # fmt: skip
        async for chunk in _sent(export):
            yield chunk


async def _sent(export: Export) -> Chunks:
    """The export's chunks as messages, the first naming the file (an empty file: one
    message of no bytes)."""
    first = True
    async for data in exports.streamed(export.chunks):
        yield _chunk(export, data, first)
        first = False
    if first:
        yield _chunk(export, b"", first)


def _chunk(export: Export, data: bytes, first: bool) -> api.ExportChunk:
    if not first:
        return api.ExportChunk(data=data)
    return api.ExportChunk(data=data, name=export.name, media_type=export.media_type)

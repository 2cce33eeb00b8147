"""The Arena API's ladders (docs/ladder.md): a pool's ladder turned on or off and set,
and one as it stands. A bot's own choice of ladders is referee/api/bots.py's."""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

from arena.domain.matchmaking import MAX_CONCURRENCY
from arena.domain.pools import parse_pool
from arena.errors import Invalid, NotFound
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import ladders
from arena.store.store import Store
from arena.usecases.ladder import set_ladder
from arena.wire_clock import request_clock, sets_clock
from referee import messages
from referee.callers import Callers, Dispatch

log = logging.getLogger(__name__)


class Ladders:
    """SetLadder and GetLadder, on ``store``; a ladder turned on goes to the workers'
    scheduler (``dispatch``)."""

    def __init__(self, store: Store, callers: Callers, dispatch: Dispatch | None) -> None:
        self.store, self.callers, self.dispatch = store, callers, dispatch

    async def SetLadder(self, request: Any, context: Any) -> api.Ladder:
        actor = await self.callers.organizer(context)
        pool = parse_pool(request.pool)
        concurrency = request.concurrency if request.HasField("concurrency") else None
        if concurrency is not None and not 1 <= concurrency <= MAX_CONCURRENCY:
            raise Invalid(f"concurrency must be from 1 to {MAX_CONCURRENCY}, not {concurrency}")
        clock = None
        if sets_clock(request):  # whole; each deprecated field set changes its clock alone
            clock = functools.partial(request_clock, request)
        row = await asyncio.to_thread(
            set_ladder, self.store, pool, request.on, concurrency, clock, actor=actor
        )
        log.info("ladder %s %s (%d at once)", pool, "on" if row.running else "off", row.concurrency)
        if row.running and self.dispatch is not None:
            self.dispatch.ladder(pool)
        return await self._ladder(pool)

    async def GetLadder(self, request: Any, context: Any) -> api.Ladder:
        return await self._ladder(messages.pool_of_request(request.pool))

    async def _ladder(self, pool: str) -> api.Ladder:
        found = await asyncio.to_thread(ladders.ladder, self.store, pool)
        if found is None:
            raise NotFound(f"pool {pool} has no ladder (arena ladder on {pool})")
        return messages.ladder_message(found)

"""The Arena API servicer: thin, each call checks its caller and hands off to the store
(in a thread, so the event loop stays free for the bots)."""

from __future__ import annotations

import asyncio
import hmac
import logging
from typing import Any

import grpc

from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.rating import is_provisional
from arena.store.rows import BotRow
from arena.store.store import Store, StoreError

log = logging.getLogger(__name__)

DEFAULT_POOL = "paulista/1"


def _bot(row: BotRow) -> api.Bot:
    return api.Bot(
        name=row.name, owner=row.owner, active=row.active, created_at=row.created_at.isoformat()
    )


class ArenaServicer(arena_pb2_grpc.ArenaServicer):
    def __init__(self, store: Store, admin_token: str) -> None:
        self.store = store
        self._admin = admin_token.encode()

    async def _organizer(self, context: Any) -> None:
        for key, value in context.invocation_metadata() or ():
            if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
                if hmac.compare_digest(value.removeprefix("Bearer ").strip().encode(), self._admin):
                    return
                await context.abort(grpc.StatusCode.PERMISSION_DENIED, "not the organizer's token")
        await context.abort(
            grpc.StatusCode.UNAUTHENTICATED,
            "this call needs the organizer's token (metadata authorization: Bearer TOKEN)",
        )

    async def RegisterBot(self, request: Any, context: Any) -> api.RegisterBotResponse:
        await self._organizer(context)
        try:
            row, token = await asyncio.to_thread(
                self.store.register_bot, request.name, request.owner
            )
        except StoreError as e:
            code = (
                grpc.StatusCode.ALREADY_EXISTS
                if "already exists" in str(e)
                else grpc.StatusCode.INVALID_ARGUMENT
            )
            await context.abort(code, str(e))
        log.info("registered bot %s (owner %r)", row.name, row.owner)
        return api.RegisterBotResponse(bot=_bot(row), token=token)

    async def ListBots(self, request: Any, context: Any) -> api.ListBotsResponse:
        rows = await asyncio.to_thread(self.store.bots)
        return api.ListBotsResponse(bots=[_bot(r) for r in rows])

    async def GetLeaderboard(self, request: Any, context: Any) -> api.GetLeaderboardResponse:
        pool = request.pool or DEFAULT_POOL
        standings = await asyncio.to_thread(self.store.leaderboard, pool)
        return api.GetLeaderboardResponse(
            pool=pool,
            standings=[
                api.Standing(
                    rank=i + 1,
                    bot=s.name,
                    elo=s.rating.elo,
                    games=s.rating.games,
                    wins=s.rating.wins,
                    losses=s.rating.losses,
                    provisional=is_provisional(s.rating.games),
                )
                for i, s in enumerate(standings)
            ],
        )

"""The Arena API's bots: registering them and their tokens, the list of them with who is
connected, their ratings, their choice of ladders and whether people may play them."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from arena.domain.pools import parse_pool
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import bots, ratings
from arena.store.rows import BotRow
from arena.store.store import Store
from arena.usecases import participants
from arena.usecases.bots import register_bot, rotate_token, set_bot_ladder
from arena.usecases.human import set_bot_humans
from referee import messages
from referee.callers import Callers, Dispatch
from referee.hub import Hub

log = logging.getLogger(__name__)


class Bots:
    """RegisterBot, RotateToken, ListBots, SetBotLadder, SetBotHumans, SetBotState,
    GetRatingHistory and GetLeaderboard, on ``store``; a rotated token, or a bot no
    longer active, stops working on ``hub`` at once."""

    def __init__(
        self, store: Store, callers: Callers, hub: Hub, dispatch: Dispatch | None = None
    ) -> None:
        self.store, self.callers, self.hub, self.dispatch = store, callers, hub, dispatch

    async def RegisterBot(self, request: Any, context: Any) -> api.RegisterBotResponse:
        actor = await self.callers.organizer(context)
        row, token = await asyncio.to_thread(
            register_bot, self.store, request.name, request.owner, actor=actor
        )
        log.info("registered bot %s (owner %r) for %s", row.name, row.owner, actor)
        return api.RegisterBotResponse(bot=messages.bot_message(bots.bot_line(row)), token=token)

    async def RotateToken(self, request: Any, context: Any) -> api.RegisterBotResponse:
        actor = await self.callers.organizer(context)
        row, token = await asyncio.to_thread(rotate_token, self.store, request.name, actor=actor)
        self.hub.revoke(row.name, "this bot's token was rotated")  # its live session too
        log.info("rotated the token of bot %s for %s", row.name, actor)
        shown = await asyncio.to_thread(bots.line, self.store, row)
        return api.RegisterBotResponse(bot=messages.bot_message(shown), token=token)

    async def ListBots(self, request: Any, context: Any) -> api.ListBotsResponse:
        found = await asyncio.to_thread(bots.roster, self.store)
        seen = await self.callers.presence()
        return api.ListBotsResponse(
            bots=[messages.bot_message(b, seen.get(b["name"])) for b in found]
        )

    async def SetBotLadder(self, request: Any, context: Any) -> api.Bot:
        actor = await self.callers.owner(context, request.bot)
        pool = parse_pool(request.pool) if request.pool else None
        row = await asyncio.to_thread(
            set_bot_ladder, self.store, request.bot, request.on, pool, actor=actor
        )
        where = f"the ladder of {pool}" if pool else "ladders"
        log.info("bot %s opted %s %s", row.name, "in to" if request.on else "out of", where)
        return await self._bot(row)

    async def SetBotHumans(self, request: Any, context: Any) -> api.Bot:
        actor = await self.callers.owner(context, request.bot)
        row = await asyncio.to_thread(
            set_bot_humans, self.store, request.bot, request.on, actor=actor
        )
        log.info("bot %s: people may %schallenge it", row.name, "" if request.on else "not ")
        return await self._bot(row)

    async def _bot(self, row: BotRow) -> api.Bot:
        """The bot as a write that changed it answers: its row, its ladders' choices and
        whether it is connected, read now."""
        shown = await asyncio.to_thread(bots.line, self.store, row)
        seen = await self.callers.presence([row.name])
        return messages.bot_message(shown, seen.get(row.name))

    async def SetBotState(self, request: Any, context: Any) -> api.Bot:
        who = await self.callers.organizer(context)
        send = self.dispatch.play if self.dispatch is not None else (lambda ids: None)
        row = await asyncio.to_thread(
            participants.set_state, self.store, request.bot, request.state, request.reason,
            request.run or None, who, send,
        )  # fmt: skip
        if row.state == "disqualified":  # its live session ends (its matches count not)
            self.hub.revoke(row.name, "this bot is disqualified")
        log.info("%s set bot %s %s", who, row.name, request.state)
        return await self._bot(row)

    async def GetRatingHistory(self, request: Any, context: Any) -> api.GetRatingHistoryResponse:
        pool = messages.pool_of_request(request.pool)
        rows = await asyncio.to_thread(ratings.rating_history, self.store, request.bot, pool)
        return api.GetRatingHistoryResponse(
            changes=[messages.message(api.RatingChange, r) for r in rows]
        )

    async def GetLeaderboard(self, request: Any, context: Any) -> api.GetLeaderboardResponse:
        pool = messages.pool_of_request(request.pool)
        rows = await asyncio.to_thread(
            ratings.standings, self.store, pool, trends=False, retired=request.retired
        )
        return api.GetLeaderboardResponse(
            pool=pool, standings=[messages.message(api.Standing, r) for r in rows]
        )

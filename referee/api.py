"""The Arena API servicer: thin, each call checks its caller and hands off to the store
(in a thread, so the event loop stays free for the bots)."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
import uuid
from datetime import datetime
from typing import Any

import grpc

from arena.bots import house_bot
from arena.clock import TimeControl
from arena.engine import Rules
from arena.engine.record import public_record
from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.rating import half_intervals, is_provisional
from arena.store.rows import BotRow, MatchRow
from arena.store.store import Store, StoreError
from referee.hub import Hub
from referee.local import seatings
from referee.runner import MatchRunner
from referee.server import bearer

log = logging.getLogger(__name__)

DEFAULT_POOL = "paulista/1"
MAX_REQUESTED = 1000  # matches in one RequestMatch


def _bot(row: BotRow) -> api.Bot:
    return api.Bot(
        name=row.name, owner=row.owner, active=row.active, created_at=row.created_at.isoformat()
    )


class ArenaServicer(arena_pb2_grpc.ArenaServicer):
    def __init__(self, store: Store, admin_token: str, hub: Hub | None = None) -> None:
        self.store = store
        self.hub = hub  # set by create_server: the referee that plays requested matches
        self._admin = admin_token.encode()
        self._playing: set[asyncio.Task[None]] = set()

    def _is_organizer(self, context: Any) -> bool | None:
        """True for the organizer's token, False for another token, None for none."""
        token = bearer(context)
        return hmac.compare_digest(token.encode(), self._admin) if token else None

    async def _organizer(self, context: Any) -> None:
        verdict = self._is_organizer(context)
        if verdict is False:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "not the organizer's token")
        if verdict is None:
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

    async def RotateToken(self, request: Any, context: Any) -> api.RegisterBotResponse:
        await self._organizer(context)
        try:
            row, token = await asyncio.to_thread(self.store.rotate_token, request.name)
        except StoreError as e:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(e))
        log.info("rotated the token of bot %s", row.name)
        return api.RegisterBotResponse(bot=_bot(row), token=token)

    async def GetRatingHistory(self, request: Any, context: Any) -> api.GetRatingHistoryResponse:
        rows = await asyncio.to_thread(
            self.store.rating_history, request.bot, request.pool or DEFAULT_POOL
        )
        return api.GetRatingHistoryResponse(
            changes=[
                api.RatingChange(
                    match_id=r["match_id"],
                    before=r["before"],
                    after=r["after"],
                    at=r["created_at"].isoformat(),
                )
                for r in rows
            ]
        )

    async def GetLeaderboard(self, request: Any, context: Any) -> api.GetLeaderboardResponse:
        pool = request.pool or DEFAULT_POOL
        standings = await asyncio.to_thread(self.store.leaderboard, pool)
        results = await asyncio.to_thread(self.store.pool_results, pool)
        spread = await asyncio.to_thread(half_intervals, results)
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
                    low=s.rating.elo - spread.get(s.name, 0.0),
                    high=s.rating.elo + spread.get(s.name, 0.0),
                )
                for i, s in enumerate(standings)
            ],
        )

    async def RequestMatch(self, request: Any, context: Any) -> api.RequestMatchResponse:
        await self._organizer(context)
        try:
            if request.matches > MAX_REQUESTED:
                raise ValueError(f"at most {MAX_REQUESTED} matches per request")
            rules = Rules.parse(request.rules or "paulista")
            clock = TimeControl(decision_ms=request.decision_ms or 1000)
            plan = seatings(rules, list(request.bots), request.matches or 2)
        except ValueError as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        registered = {b.name: b for b in await asyncio.to_thread(self.store.bots)}
        names = list(dict.fromkeys(request.bots))
        for name in names:
            if name not in registered or not registered[name].active:
                await context.abort(grpc.StatusCode.NOT_FOUND, f"no active bot named {name!r}")
        for name in names:
            if self.hub is None or name not in self.hub.sessions:
                await context.abort(
                    grpc.StatusCode.FAILED_PRECONDITION, f"bot {name!r} is not connected"
                )
        base = secrets.randbits(31)
        ids = [f"m-{uuid.uuid4().hex[:16]}" for _ in plan]
        for k, (match_id, seats) in enumerate(zip(ids, plan, strict=True)):
            bot_ids = [registered[name].id for name in seats]
            await asyncio.to_thread(
                self.store.create_match, match_id, rules, bot_ids, seed=base + k // 2
            )
        task = asyncio.create_task(
            self._play(rules, clock, list(zip(ids, plan, strict=True)), base)
        )
        self._playing.add(task)
        task.add_done_callback(self._playing.discard)
        return api.RequestMatchResponse(match_ids=ids)

    async def _play(
        self, rules: Rules, clock: TimeControl, plan: list[tuple[str, list[str]]], base: int
    ) -> None:
        """Play the requested matches one after another, recording each."""
        assert self.hub is not None
        for k, (match_id, seats) in enumerate(plan):
            try:
                await asyncio.to_thread(self.store.set_status, match_id, "running")
                runner = MatchRunner(
                    self.hub, match_id, rules, seats, seed=base + k // 2, clock=clock,
                    stand_in=lambda: house_bot("heuristic"),
                )  # fmt: skip
                record = await runner.run()
                await asyncio.to_thread(self.store.finish_match, match_id, record)
            except Exception:
                log.exception("match %s failed", match_id)
                await asyncio.to_thread(self.store.set_status, match_id, "failed")

    async def GetMatch(self, request: Any, context: Any) -> api.GetMatchResponse:
        found = await asyncio.to_thread(self.store.match, request.id)
        if found is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.id!r}")
        row, names = found
        record = row.record
        if record is not None and not self._is_organizer(context):
            record = public_record(record)
        return api.GetMatchResponse(
            match=_summary(row, names), record_json="" if record is None else json.dumps(record)
        )

    async def ListMatches(self, request: Any, context: Any) -> api.ListMatchesResponse:
        size = min(request.page_size or 20, 200)
        after = None
        try:
            if request.page_token:
                stamp, match_id = request.page_token.split("|", 1)
                after = (datetime.fromisoformat(stamp), match_id)
            since = datetime.fromisoformat(request.since) if request.since else None
            until = datetime.fromisoformat(request.until) if request.until else None
        except ValueError:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                "page_token must come from a previous page; since and until are RFC 3339 times",
            )
        rows = await asyncio.to_thread(
            self.store.matches,
            bot=request.bot or None,
            pool=request.pool or None,
            limit=size + 1,
            after=after,
            since=since,
            until=until,
        )
        page, more = rows[:size], len(rows) > size
        token = f"{page[-1][0].created_at.isoformat()}|{page[-1][0].id}" if more else ""
        return api.ListMatchesResponse(
            matches=[_summary(r, n) for r, n in page], next_page_token=token
        )


def _summary(row: MatchRow, names: list[str]) -> api.MatchSummary:
    summary = api.MatchSummary(
        id=row.id,
        pool=row.pool,
        rules=row.rules,
        status=row.status,
        seats=names,
        score=row.score or [],
        finished_at=row.finished_at.isoformat() if row.finished_at else "",
    )
    if row.winner is not None:
        summary.winner = row.winner
    return summary

"""The organizer's calls of the Arena API that set the workers going: tournaments and
their runs, and ladders (docs/ladder.md), with the bots opting in to them."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

import grpc

from arena.domain.clock import TimeControl
from arena.domain.identity import is_version, owner_bot
from arena.domain.matchmaking import MAX_CONCURRENCY
from arena.domain.pools import parse_pool
from arena.domain.sprt import MAX_GAMES, OWNER_ROOM, Asked, Sprt
from arena.engine import Rules, quoted
from arena.errors import Invalid, NotFound
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import ladders, sprts, tournaments
from arena.usecases.runs import create_run, create_tournament
from arena.usecases.sprts import start_sprt
from arena.wire_clock import request_clock, sets_clock
from referee import messages
from referee.callers import Callers

log = logging.getLogger(__name__)

MAX_TEST_GAMES = 10_000  # a test's matches at most (migration 0012's bound)


def given_or(request: Any, **defaults: float) -> list[float]:
    """The optional fields named, each as sent or else its default, in order."""
    return [getattr(request, k) if request.HasField(k) else v for k, v in defaults.items()]


class Organizing(Callers):
    async def StartTest(self, request: Any, context: Any) -> api.SprtTest:
        """A sequential test (docs/testing.md): the organizer's, or asked for with the
        own token of NEW's bot (against any bot), unrated and within its owner's room
        (arena.domain.sprt.OWNER_ROOM). Both bots must be there to play: hosted, or connected."""
        new = request.new_bot
        by = await self._owner(context, owner_bot(new))
        if request.rated and by != "organizer":
            await context.abort(
                grpc.StatusCode.PERMISSION_DENIED,
                "a bot's own token starts unrated tests only: rated matches move the "
                "leaderboard, and who plays them is the organizer's choice",
            )
        await self._available([new, request.base_bot], context)
        test = Sprt(request.elo0, request.elo1, *given_or(request, alpha=0.05, beta=0.05))
        max_games = request.max_games if request.HasField("max_games") else MAX_GAMES
        if not 2 <= max_games <= MAX_TEST_GAMES:
            raise Invalid(f"max_games must be from 2 to {MAX_TEST_GAMES}, not {max_games}")
        asked = Asked(
            Rules.parse(request.rules or "paulista"), request_clock(request),
            max_games=max_games - max_games % 2, rated=request.rated,
        )  # fmt: skip
        room = None if by == "organizer" else OWNER_ROOM
        row = await asyncio.to_thread(
            start_sprt, self.store, new, request.base_bot, test, asked, by, room
        )
        log.info("test %d: %s against %s (%s)", row.id, new, request.base_bot, by)
        if self.dispatch is None:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION, "this server has no workers to play tests"
            )
        assert self.dispatch is not None
        await asyncio.to_thread(self.dispatch.sprt, row.id)
        return await self.GetTest(api.GetTestRequest(id=row.id), context)

    async def _available(self, names: list[str], context: Any) -> None:
        """FAILED_PRECONDITION unless each bot named can play now: hosted (its process is
        started for each match), or dialing in and connected to a node. A bot that is
        not there would have a stand-in play every match for it."""
        seated = await asyncio.to_thread(self.store.playing_as, names)
        dial_in = [n for n in names if n in seated and not is_version(seated[n][1])]
        connected = await self._presence(dial_in) if dial_in else {}
        for name in dial_in:
            if name not in connected:
                await context.abort(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"bot {quoted(name)} dials in and is not connected: a test plays bots "
                    "that are hosted or connected now, never a stand-in for one",
                )

    async def GetTest(self, request: Any, context: Any) -> api.SprtTest:
        found = await asyncio.to_thread(sprts.sprt, self.store, request.id)
        return messages.message(api.SprtTest, found)

    async def SetLadder(self, request: Any, context: Any) -> api.Ladder:
        await self._organizer(context)
        pool = parse_pool(request.pool)
        concurrency = request.concurrency if request.HasField("concurrency") else None
        if concurrency is not None and not 1 <= concurrency <= MAX_CONCURRENCY:
            raise Invalid(f"concurrency must be from 1 to {MAX_CONCURRENCY}, not {concurrency}")
        clock = None
        if sets_clock(request):  # whole; each deprecated field set changes its clock alone
            now = await asyncio.to_thread(self.store.ladder, pool)
            clock = request_clock(request, TimeControl.from_json(now.clock if now else None))
        row = await asyncio.to_thread(self.store.set_ladder, pool, request.on, concurrency, clock)
        log.info("ladder %s %s (%d at once)", pool, "on" if row.running else "off", row.concurrency)
        if row.running and self.dispatch is not None:
            self.dispatch.ladder(pool)
        return await self.GetLadder(api.GetLadderRequest(pool=pool), context)

    async def GetLadder(self, request: Any, context: Any) -> api.Ladder:
        pool = messages.pool_of_request(request.pool)
        found = await asyncio.to_thread(ladders.ladder, self.store, pool)
        if found is None:
            raise NotFound(f"pool {pool} has no ladder (arena ladder on {pool})")
        return messages.ladder_message(found)

    async def SetBotLadder(self, request: Any, context: Any) -> api.Bot:
        await self._owner(context, request.bot)
        row = await asyncio.to_thread(self.store.set_bot_ladder, request.bot, request.on)
        log.info("bot %s opted %s ladders", row.name, "in to" if request.on else "out of")
        seen = await self._presence([row.name])
        return messages.bot_message(row, seen.get(row.name))

    async def CreateTournament(self, request: Any, context: Any) -> api.Tournament:
        await self._organizer(context)
        definition = messages.definition_of(request.definition)
        row = await asyncio.to_thread(create_tournament, self.store, definition)
        log.info("created tournament %s", row.name)
        empty = {"runs": 0, "last_run": None, "last_status": None}
        return messages.tournament_message(
            tournaments.tournament(row, empty, [], datetime.now(UTC), organizer=True)
        )

    async def StartTournament(self, request: Any, context: Any) -> api.Run:
        await self._organizer(context)
        row = await asyncio.to_thread(self.store.tournament, request.tournament)
        if row is None:
            raise NotFound(f"no tournament {quoted(request.tournament)}")
        if self.dispatch is None:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION, "this server has no workers to play runs"
            )
        run = await asyncio.to_thread(create_run, self.store, row)
        assert run is not None and self.dispatch is not None
        await asyncio.to_thread(self.dispatch.start_run, run.id)
        log.info("started run %d of tournament %s", run.id, row.name)
        return await self._run(run.id, organizer=True)

    async def ListTournaments(self, request: Any, context: Any) -> api.ListTournamentsResponse:
        organizer = await self._is_organizer(context)
        found = await asyncio.to_thread(
            tournaments.tournaments, self.store, organizer=organizer, runs=0
        )
        return api.ListTournamentsResponse(
            tournaments=[messages.tournament_message(t) for t in found["tournaments"]]
        )

    async def GetRun(self, request: Any, context: Any) -> api.Run:
        return await self._run(request.id, organizer=await self._is_organizer(context))

    async def _run(self, run_id: int, *, organizer: bool) -> api.Run:
        found = await asyncio.to_thread(self.store.run, run_id)
        if found is None:
            raise NotFound(f"no run {run_id}")
        row, name = found
        progress = await asyncio.to_thread(tournaments.progress, self.store, row, datetime.now(UTC))
        table = row.standings
        if table is None and row.status == "running":  # sealed matches for the organizer
            table = await asyncio.to_thread(self.store.run_standings, row, sealed=organizer)
        return messages.run_message(row, name, progress, table, organizer)

"""The Arena API's tournaments: defining one, starting a run of it (played by the
workers), the list of them, and a run with its standings."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

from arena.engine import quoted
from arena.errors import NotFound, NotReady
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import tournaments
from arena.store.store import Store
from arena.usecases.runs import create_run, create_tournament
from referee import messages
from referee.callers import Callers, Dispatch

log = logging.getLogger(__name__)


class Tournaments:
    """CreateTournament, StartTournament, ListTournaments and GetRun, on ``store``; a run
    started goes to the workers (``dispatch``: without it, StartTournament is refused)."""

    def __init__(self, store: Store, callers: Callers, dispatch: Dispatch | None) -> None:
        self.store, self.callers, self.dispatch = store, callers, dispatch

    async def CreateTournament(self, request: Any, context: Any) -> api.Tournament:
        await self.callers.organizer(context)
        definition = messages.definition_of(request.definition)
        row = await asyncio.to_thread(create_tournament, self.store, definition)
        log.info("created tournament %s", row.name)
        empty = {"runs": 0, "last_run": None, "last_status": None}
        return messages.tournament_message(
            tournaments.tournament(row, empty, [], datetime.now(UTC), organizer=True)
        )

    async def StartTournament(self, request: Any, context: Any) -> api.Run:
        await self.callers.organizer(context)
        row = await asyncio.to_thread(self.store.tournament, request.tournament)
        if row is None:
            raise NotFound(f"no tournament {quoted(request.tournament)}")
        if self.dispatch is None:
            raise NotReady("this server has no workers to play runs")
        run = await asyncio.to_thread(create_run, self.store, row)
        assert run is not None  # None only for a scheduled firing that has its run
        await asyncio.to_thread(self.dispatch.start_run, run.id)
        log.info("started run %d of tournament %s", run.id, row.name)
        return await self._run(run.id, organizer=True)

    async def ListTournaments(self, request: Any, context: Any) -> api.ListTournamentsResponse:
        organizer = await self.callers.is_organizer(context)
        found = await asyncio.to_thread(
            tournaments.tournaments, self.store, organizer=organizer, runs=0
        )
        return api.ListTournamentsResponse(
            tournaments=[messages.tournament_message(t) for t in found["tournaments"]]
        )

    async def GetRun(self, request: Any, context: Any) -> api.Run:
        """The run as its web page shows it (:func:`arena.read.tournaments.run_state`)."""
        return await self._run(request.id, organizer=await self.callers.is_organizer(context))

    async def _run(self, run_id: int, *, organizer: bool) -> api.Run:
        now = datetime.now(UTC)
        state = await asyncio.to_thread(
            tournaments.run_state, self.store, run_id, now, organizer=organizer
        )
        return messages.run_message(state)

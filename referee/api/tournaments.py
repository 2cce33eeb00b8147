"""The Arena API's tournaments: defining one, changing and deleting it, starting a run of
it (played by the workers), pausing, resuming and cancelling a run, voiding a match of
one or playing it again, the list of them, and a run with its standings."""

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
from arena.usecases import runs
from arena.usecases.tournaments import create_tournament, delete_tournament, edit_tournament
from referee import messages
from referee.callers import Callers, Dispatch

log = logging.getLogger(__name__)


class Tournaments:
    """The tournaments' and runs' RPCs, on ``store``; a run started, resumed, or with a
    match to play again goes to the workers (``dispatch``: without it, those are
    refused)."""

    def __init__(self, store: Store, callers: Callers, dispatch: Dispatch | None) -> None:
        self.store, self.callers, self.dispatch = store, callers, dispatch

    async def CreateTournament(self, request: Any, context: Any) -> api.Tournament:
        who = await self.callers.organizer(context)
        definition = messages.definition_of(request.definition)
        row = await asyncio.to_thread(create_tournament, self.store, definition, who)
        log.info("%s created tournament %s", who, row.name)
        return await self._tournament(row.name)

    async def EditTournament(self, request: Any, context: Any) -> api.Tournament:
        who = await self.callers.organizer(context)
        definition = messages.definition_of(request.definition)
        row = await asyncio.to_thread(
            edit_tournament, self.store, request.tournament, definition, who
        )
        log.info("%s edited tournament %s", who, row.name)
        return await self._tournament(row.name)

    async def DeleteTournament(self, request: Any, context: Any) -> api.DeleteTournamentResponse:
        who = await self.callers.organizer(context)
        row = await asyncio.to_thread(delete_tournament, self.store, request.tournament, who)
        log.info("%s deleted tournament %s", who, row.name)
        return api.DeleteTournamentResponse()

    async def StartTournament(self, request: Any, context: Any) -> api.Run:
        who = await self.callers.organizer(context)
        row = await asyncio.to_thread(self.store.tournament, request.tournament)
        if row is None:
            raise NotFound(f"no tournament {quoted(request.tournament)}")
        dispatch = self._workers()
        top = request.top if request.HasField("top") else None
        run = await asyncio.to_thread(
            runs.create_run, self.store, row, actor=who, seed_from=request.seed_from or None,
            top=top,
        )  # fmt: skip
        assert run is not None  # None only for a scheduled firing that has its run
        await asyncio.to_thread(dispatch.start_run, run.id)
        log.info("%s started run %d of tournament %s", who, run.id, row.name)
        return await self._run(run.id, organizer=True)

    async def PauseRun(self, request: Any, context: Any) -> api.Run:
        who = await self.callers.organizer(context)
        await asyncio.to_thread(runs.pause_run, self.store, request.id, who)
        log.info("%s paused run %d", who, request.id)
        return await self._run(request.id, organizer=True)

    async def ResumeRun(self, request: Any, context: Any) -> api.Run:
        who = await self.callers.organizer(context)
        dispatch = self._workers()
        ids = await asyncio.to_thread(runs.resume_run, self.store, request.id, who)
        await asyncio.to_thread(dispatch.play, ids)
        log.info("%s resumed run %d", who, request.id)
        return await self._run(request.id, organizer=True)

    async def CancelRun(self, request: Any, context: Any) -> api.Run:
        who = await self.callers.organizer(context)
        await asyncio.to_thread(runs.cancel_run, self.store, request.id, request.reason, who)
        log.info("%s cancelled run %d", who, request.id)
        return await self._run(request.id, organizer=True)

    async def VoidMatch(self, request: Any, context: Any) -> api.Run:
        who = await self.callers.organizer(context)
        await asyncio.to_thread(
            runs.void_match, self.store, request.run, request.match_id, request.reason, who
        )
        log.info("%s voided match %s of run %d", who, request.match_id, request.run)
        return await self._run(request.run, organizer=True)

    async def ReplayMatch(self, request: Any, context: Any) -> api.ReplayMatchResponse:
        who = await self.callers.organizer(context)
        dispatch = self._workers()
        new_id, ids = await asyncio.to_thread(
            runs.replay_match, self.store, request.run, request.match_id, request.reason, who
        )
        await asyncio.to_thread(dispatch.play, ids)
        log.info("%s replays match %s of run %d as %s", who, request.match_id, request.run, new_id)
        return api.ReplayMatchResponse(
            match_id=new_id, run=await self._run(request.run, organizer=True)
        )

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

    def _workers(self) -> Dispatch:
        if self.dispatch is None:
            raise NotReady("this server has no workers to play runs")
        return self.dispatch

    async def _tournament(self, name: str) -> api.Tournament:
        found = await asyncio.to_thread(
            tournaments.tournament_named, self.store, name, datetime.now(UTC)
        )
        return messages.tournament_message(found)

    async def _run(self, run_id: int, *, organizer: bool) -> api.Run:
        now = datetime.now(UTC)
        state = await asyncio.to_thread(
            tournaments.run_state, self.store, run_id, now, organizer=organizer
        )
        return messages.run_message(state)

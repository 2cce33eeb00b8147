"""The Arena API's matches: rated matches asked for between bots (played by the workers),
one match with its record, and pages of them."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

from arena.domain.pools import parse_pool
from arena.engine import Rules
from arena.errors import Invalid
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import matches
from arena.store.store import Store
from arena.usecases.matches import challenge
from arena.wire_clock import request_clock
from referee import messages
from referee.callers import Callers, Dispatch

MAX_REQUESTED = 1000  # matches in one RequestMatch
MAX_PAGE = 200  # matches in one page of ListMatches


class Matches:
    """RequestMatch, GetMatch and ListMatches, on ``store``; the matches asked for go to
    the workers (``dispatch``: without it, RequestMatch is refused)."""

    def __init__(self, store: Store, callers: Callers, dispatch: Dispatch | None) -> None:
        self.store, self.callers, self.dispatch = store, callers, dispatch

    async def RequestMatch(self, request: Any, context: Any) -> api.RequestMatchResponse:
        """Rated matches for the workers to play, like a run's: each its own row, its own
        secret deals (the bots dial in, so no two matches share deals) and its clocks,
        played through RunMatch and recorded by the one exactly-once path, so a referee
        that dies mid-match has it played again."""
        await self.callers.organizer(context)
        count = request.matches if request.HasField("matches") else 2
        if not 1 <= count <= MAX_REQUESTED:
            raise Invalid(f"matches must be from 1 to {MAX_REQUESTED}, not {count}")
        rules, clock = Rules.parse(request.rules or "paulista"), request_clock(request)
        connected = await self.callers.presence()  # to any node
        workers = self.dispatch
        ids = await asyncio.to_thread(
            challenge, self.store, request.bots, rules, count, clock, connected,
            played=workers is not None,
        )  # fmt: skip
        assert workers is not None  # else challenge refused
        await asyncio.to_thread(workers.play, ids)
        return api.RequestMatchResponse(match_ids=ids)

    async def GetMatch(self, request: Any, context: Any) -> api.GetMatchResponse:
        who = await self.callers.viewer(context)
        found = await asyncio.to_thread(
            matches.shown, self.store, request.id, organizer=who.organizer, owner=who.bot
        )
        record = found["record"]
        return api.GetMatchResponse(
            match=messages.summary_message(found["match"]),
            record_json="" if record is None else json.dumps(record),
        )

    async def ListMatches(self, request: Any, context: Any) -> api.ListMatchesResponse:
        organizer = await self.callers.is_organizer(context)
        now = datetime.now(UTC)
        found = await asyncio.to_thread(
            matches.page,
            self.store,
            size=min(request.page_size or 20, MAX_PAGE),
            organizer=organizer,
            bot=request.bot or None,
            pool=parse_pool(request.pool) if request.pool else None,
            run=request.run_id or None,
            after=matches.page_after(request.page_token),
            since=messages.time_field("since", request.since, now),
            until=messages.time_field("until", request.until, now),
        )
        return api.ListMatchesResponse(
            matches=[messages.summary_message(m) for m in found["matches"]],
            next_page_token=found["next_page"] or "",
        )

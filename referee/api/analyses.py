"""The Arena API's analyses of matches (docs/web.md, "The analysis of a match"): asking
for one, the analyses of a match as the caller may see them, and a version's average
loss against the reference bot."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from arena.domain.actors import FIRST, bot_actor
from arena.domain.analyses import DEFAULT_SAMPLES
from arena.errors import NotReady, Unauthenticated
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read.analyses import analyses, version_loss
from arena.store.store import Store
from arena.usecases.analyses import ask_analysis
from referee.callers import Callers, Dispatch

log = logging.getLogger(__name__)


class Analyses:
    """AnalyseMatch, GetAnalysis and GetLosses, on ``store``; an analysis asked goes to
    the workers (``dispatch``: without it, AnalyseMatch gives only what is stored)."""

    def __init__(self, store: Store, callers: Callers, dispatch: Dispatch | None) -> None:
        self.store, self.callers, self.dispatch = store, callers, dispatch

    async def AnalyseMatch(self, request: Any, context: Any) -> api.Analysis:
        viewer = await self.callers.viewer(context)
        if not viewer.organizer and viewer.bot is None:
            raise Unauthenticated(
                "an analysis needs a bot's own token (its own seats) or an organizer's "
                "(metadata authorization: Bearer TOKEN)"
            )
        samples = request.samples if request.HasField("samples") else DEFAULT_SAMPLES
        if self.dispatch is None:  # what is stored may still be read
            shown = await self._shown(request.match_id, viewer.organizer, viewer.bot, [])
            if not any(a["samples"] == samples for a in json.loads(shown.analyses_json)):
                raise NotReady("this server has no workers to analyse matches")
            return shown
        name = await self.callers.organizer_name(context) if viewer.organizer else None
        actor = name or FIRST if viewer.bot is None else bot_actor(viewer.bot)
        asked = await asyncio.to_thread(
            ask_analysis, self.store, request.match_id, samples, viewer.bot, actor=actor
        )
        shown = await self._shown(request.match_id, viewer.organizer, viewer.bot, asked)
        if asked:  # asked again while pending: nothing more (the sweep sends a lost one)
            log.info("match %s: seats %s analysed at %d samples (%s)", request.match_id,
                     asked, samples, actor)  # fmt: skip
            await asyncio.to_thread(self.dispatch.analyse, request.match_id, samples)
        return shown

    async def GetAnalysis(self, request: Any, context: Any) -> api.Analysis:
        viewer = await self.callers.viewer(context)
        return await self._shown(request.match_id, viewer.organizer, viewer.bot, [])

    async def GetLosses(self, request: Any, context: Any) -> api.GetLossesResponse:
        viewer = await self.callers.viewer(context)
        names = [n for n in request.names if viewer.organizer or viewer.owns(n)]
        found = await asyncio.to_thread(lambda: [version_loss(self.store, n) for n in names])
        shown = [v for v in found if v["decisions"]]
        return api.GetLossesResponse(losses_json=json.dumps(shown))

    async def _shown(
        self, match_id: str, organizer: bool, bot: str | None, asked: list[int]
    ) -> api.Analysis:
        found = await asyncio.to_thread(
            analyses, self.store, match_id, organizer=organizer, owner=bot
        )
        return api.Analysis(
            match_id=match_id, asked=asked, analyses_json=json.dumps(found),
            pending=any(a["status"] == "pending" for a in found),
        )  # fmt: skip

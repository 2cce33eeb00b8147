"""The Arena API's organizers and action log (docs/events.md): named organizers added,
removed and listed, and who did what. Every call here is an organizer's."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import actions, stamp
from arena.store.store import Store
from arena.usecases.organizers import add_organizer, remove_organizer
from referee import messages
from referee.callers import Callers

log = logging.getLogger(__name__)


class Accounts:
    """AddOrganizer, RemoveOrganizer, ListOrganizers and ListActions, on ``store``."""

    def __init__(self, store: Store, callers: Callers) -> None:
        self.store, self.callers = store, callers

    async def AddOrganizer(self, request: Any, context: Any) -> api.AddOrganizerResponse:
        actor = await self.callers.organizer(context)
        row, token = await asyncio.to_thread(add_organizer, self.store, request.name, actor=actor)
        log.info("organizer %s added by %s", row.name, actor)
        organizer = messages.message(
            api.Organizer, {"name": row.name, "created_at": stamp(row.created_at)}
        )
        return api.AddOrganizerResponse(organizer=organizer, token=token)

    async def RemoveOrganizer(self, request: Any, context: Any) -> api.Organizer:
        actor = await self.callers.organizer(context)
        row = await asyncio.to_thread(remove_organizer, self.store, request.name, actor=actor)
        log.info("organizer %s removed by %s", row.name, actor)
        return messages.message(
            api.Organizer,
            {
                "name": row.name,
                "created_at": stamp(row.created_at),
                "removed_at": stamp(row.removed_at),
            },
        )

    async def ListOrganizers(self, request: Any, context: Any) -> api.ListOrganizersResponse:
        await self.callers.organizer(context)
        found = await asyncio.to_thread(actions.organizers, self.store)
        return api.ListOrganizersResponse(
            organizers=[messages.message(api.Organizer, o) for o in found]
        )

    async def ListActions(self, request: Any, context: Any) -> api.ListActionsResponse:
        await self.callers.organizer(context)
        limit = request.limit if request.HasField("limit") else actions.LIMIT
        found = await asyncio.to_thread(
            actions.actions, self.store, request.subject or None, request.actor or None,
            limit, request.before_id or None,
        )  # fmt: skip
        return api.ListActionsResponse(
            actions=[
                messages.message(api.LoggedAction, {**a, "detail": json.dumps(a["detail"])})
                for a in found
            ]
        )

"""The Arena API's calls between the referees on one database (docs/cluster.md): the
live nodes, and a relay opened for a match another node plays."""

from __future__ import annotations

import asyncio
from typing import Any

from arena.errors import Forbidden, Invalid
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import nodes
from arena.store.store import Store
from referee import messages
from referee.callers import Callers
from referee.nodes import Node


class Cluster:
    """ListNodes and OpenRelay, for ``node`` (None: this referee is no node of a
    cluster, and opens no relays)."""

    def __init__(self, store: Store, callers: Callers, node: Node | None) -> None:
        self.store, self.callers, self.node = store, callers, node

    async def ListNodes(self, request: Any, context: Any) -> api.ListNodesResponse:
        """The organizer's (the nodes call with it too): others are refused, the nodes'
        addresses and loads are no one else's business."""
        if not await self.callers.is_organizer(context):
            raise Forbidden("ListNodes is the organizer's (and the nodes')")
        found = await asyncio.to_thread(nodes.nodes, self.store)
        return api.ListNodesResponse(
            nodes=[messages.message(api.Node, n) for n in found],
            answered_by=self.node.name if self.node is not None else "",
        )

    async def OpenRelay(self, request: Any, context: Any) -> api.OpenRelayResponse:
        await self.callers.organizer(context)
        if self.node is None:
            raise Invalid("this referee is not a node of a cluster")
        if not request.match_id or not request.bot or not request.referee:
            raise Invalid("give the match, the bot and the referee that plays it")
        await self.node.open_relay(request)
        return api.OpenRelayResponse()

"""The Arena API, one class an area: bots (referee/api/bots.py), hosted versions
(hosting.py), matches (matches.py), the referee's own RunMatch (playing.py), the
cluster's calls (cluster.py), tournaments and runs (tournaments.py), sequential tests
(sprts.py), ladders (ladders.py), the organizers and the action log (accounts.py), the
audit (audit.py) and the exports (exports.py).
Each is built with what it works with, and each RPC reads its request, calls one use
case (:mod:`arena.usecases`) or one read (:mod:`arena.read`), and builds its reply, in a
thread when it touches the database, so that the event loop stays free for the bots.
:func:`add_arena` registers them all as the one Arena service; who calls is
referee/callers.py's to check, and what errors become, referee/statuses.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import grpc

from arena.hosted.uploads import Uploads
from arena.proto.truco.v1 import arena_pb2, arena_pb2_grpc
from arena.store.store import Store
from referee.api.accounts import Accounts
from referee.api.analyses import Analyses
from referee.api.audit import Audits
from referee.api.bots import Bots
from referee.api.cluster import Cluster
from referee.api.exports import Exports
from referee.api.hosting import Hosting
from referee.api.ladders import Ladders
from referee.api.matches import Matches
from referee.api.playing import Playing
from referee.api.sprts import Testing
from referee.api.tournaments import Tournaments
from referee.callers import Callers, Dispatch
from referee.hub import Hub
from referee.nodes import Node

METHODS = tuple(arena_pb2.DESCRIPTOR.services_by_name["Arena"].methods_by_name)


@dataclass(frozen=True)
class ArenaApi:
    """What the Arena API serves from, besides the referee it runs in: the store, the
    organizer's token, what hands work to the workers (``dispatch``; without it, the
    calls that start matches are refused), where uploads are spooled and how many at
    once. :func:`referee.server.create_server` adds the referee's hub and its node."""

    store: Store
    admin_token: str
    dispatch: Dispatch | None = None
    spool: Path | None = None
    uploads: Uploads = field(default_factory=Uploads)

    def serve(self, server: grpc.aio.Server, hub: Hub, node: Node | None) -> None:
        """The Arena service on ``server``, its areas serving on ``hub`` as ``node``."""
        add_arena(self.areas(hub, node), server)

    def areas(self, hub: Hub, node: Node | None) -> list[object]:
        """The areas of the API, serving on ``hub`` as ``node`` (None: alone)."""
        store, dispatch = self.store, self.dispatch
        callers = Callers(store, self.admin_token, hub, node)
        return [
            Bots(store, callers, hub, dispatch),
            Hosting(store, callers, dispatch, self.spool, self.uploads),
            Matches(store, callers, dispatch),
            Playing(callers, hub, node),
            Cluster(store, callers, node),
            Tournaments(store, callers, dispatch),
            Testing(store, callers, dispatch),
            Ladders(store, callers, dispatch),
            Accounts(store, callers),
            Audits(store, callers),
            Exports(store, callers),
            Analyses(store, callers, dispatch),
        ]


def add_arena(areas: Sequence[object], server: grpc.aio.Server) -> None:
    """The Arena service on ``server``, each RPC answered by the one area that has it;
    TypeError when one has none, or two have it."""
    handlers = {}
    for name in METHODS:
        found = [getattr(a, name) for a in areas if hasattr(a, name)]
        if len(found) != 1:
            raise TypeError(f"Arena.{name} is served by {len(found)} areas, not 1")
        handlers[name] = found[0]
    arena_pb2_grpc.add_ArenaServicer_to_server(SimpleNamespace(**handlers), server)

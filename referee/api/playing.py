"""The Arena API's RunMatch: the workers' way of having this referee play a match, its
dial-in bots seated here or, when connected to other nodes, through their relays, and
its hosted bots' processes let in with their match tokens."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from typing import Any

from arena.bots import house_bot
from arena.domain.clock import TimeControl
from arena.domain.identity import is_version
from arena.domain.nodes import Where
from arena.engine import Rules
from arena.errors import Invalid, Unavailable
from arena.logs import about_match
from arena.metrics import DECISIONS, FAULT_KINDS, FAULTS, LATENESS, MATCHES_ENDED
from arena.proto.truco.v1 import arena_pb2 as api
from arena.wire_clock import request_clock
from referee.callers import Callers
from referee.hub import Hub
from referee.nodes import Node
from referee.runner import MatchRunner

log = logging.getLogger(__name__)

KEPT_RECORDS = 256  # records of ended RunMatch calls kept for a retried call
HOSTED_START_S = 10.0  # a match waits this long for its hosted bots' processes to connect


class Playing:
    """RunMatch, played on ``hub``; with ``node``, this referee is one of several and a
    seat whose bot is connected to another is relayed from there."""

    def __init__(self, callers: Callers, hub: Hub, node: Node | None) -> None:
        self.callers, self.hub, self.node = callers, hub, node
        hub.on_late = LATENESS.observe
        self._runs: dict[str, asyncio.Task[dict[str, Any]]] = {}  # RunMatch calls playing
        self._ended: OrderedDict[str, dict[str, Any]] = OrderedDict()

    async def RunMatch(self, request: Any, context: Any) -> api.RunMatchResponse:
        """The match's record, once played: a call sent again while it plays, or a while
        after, waits for the same match (a cancelled call leaves it playing)."""
        await self.callers.organizer(context)
        rules = Rules.parse(request.rules or "paulista")
        clock = request_clock(request)
        if len(request.seats) != rules.seats or not request.match_id:
            raise Invalid(f"give a match id and {rules.seats} seats for {rules}")
        match_id = request.match_id
        record = self._ended.get(match_id)
        if record is None:
            task = self._runs.get(match_id)
            if task is None:
                seats = list(request.seats)
                keys = dict(request.hosted_keys)
                task = asyncio.create_task(
                    self._run_match(match_id, rules, seats, request.seed, clock, keys)
                )
                self._runs[match_id] = task
            record = await asyncio.shield(task)
        return api.RunMatchResponse(record_json=json.dumps(record))

    async def _run_match(
        self,
        match_id: str,
        rules: Rules,
        seats: list[str],
        seed: int,
        clock: TimeControl,
        hosted_keys: Mapping[str, str],
    ) -> dict[str, Any]:
        """RunMatch's play, once its bots have free seats (and its hosted processes have
        connected): registered while it plays, its record kept a while after."""
        with about_match(match_id):  # on each line logged meanwhile, in the tasks it starts too
            # a seat with a key, or a hosted version's, is let in by a match token: a
            # version's process, or a person's seat held by the web (docs/web.md)
            hosted = [b for b in dict.fromkeys(seats) if is_version(b) or b in hosted_keys]
            keys = {b: hosted_keys.get(b, match_id) for b in hosted}
            dial_in = [b for b in dict.fromkeys(seats) if b not in keys]
            remote = await self.node.elsewhere(dial_in) if self.node is not None else {}
            try:
                async with (
                    self.hub.expect(match_id, keys, HOSTED_START_S, frozenset(remote)),
                    self._seated(match_id, dial_in, remote),
                ):
                    runner = MatchRunner(
                        self.hub, match_id, rules, seats, seed=seed, clock=clock,
                        stand_in=lambda: house_bot("heuristic"), live=self.hub.live,
                    )  # fmt: skip
                    record = await runner.run()
                counted(record)
                self._ended[match_id] = record
                while len(self._ended) > KEPT_RECORDS:
                    self._ended.popitem(last=False)
                return record
            finally:
                del self._runs[match_id]

    @contextlib.asynccontextmanager
    async def _seated(
        self, match_id: str, bots: list[str], remote: Mapping[str, Where]
    ) -> AsyncIterator[None]:
        """While the match plays, a slot of each bot's concurrency is its. Bots connected
        here are seated all at once; when some are connected to other nodes (``remote``),
        each bot is seated in turn in the order of their names, here or by its node's
        relay: every match takes its bots in one order, so two never wait for each other
        across nodes (docs/cluster.md). A relay that cannot open leaves its seat away
        until its bot is found again."""
        if not remote:
            async with self.hub.playing(bots):
                yield
            return
        assert self.node is not None  # only a node knows of bots elsewhere
        async with contextlib.AsyncExitStack() as stack:
            for bot in sorted(bots):
                if bot not in remote:
                    await stack.enter_async_context(self.hub.playing([bot]))
                    continue
                try:
                    await self.node.relay_seat(remote[bot], match_id)
                except Unavailable as e:
                    log.warning("match %s: %s; its seat is away", match_id, e)
            await stack.enter_async_context(self.node.relinking(match_id, remote))
            yield


def counted(record: Mapping[str, Any]) -> None:
    """A match ended here, in the referee's metrics (arena/metrics.py)."""
    MATCHES_ENDED.inc()
    DECISIONS.inc(sum(p["decisions"] for p in record["presence"].values()))
    for kind in FAULT_KINDS:
        FAULTS.labels(kind).inc(sum(f[kind] for f in record["faults"].values()))

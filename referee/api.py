"""The Arena API servicer: thin, each call checks its caller (referee/callers.py) and
hands off to the store (in a thread, so the event loop stays free for the bots).
Tournaments and ladders are referee/organizing.py's."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import tempfile
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import grpc

from arena import read
from arena.bots import house_bot
from arena.domain.clock import TimeControl
from arena.domain.identity import BotRef, is_version, owner_bot
from arena.domain.nodes import Node as NodeRow
from arena.domain.nodes import Where
from arena.domain.pools import parse_pool
from arena.domain.tournament import seatings
from arena.domain.versions import KEPT, Manifest
from arena.engine import Rules, public_record, quoted
from arena.errors import Exhausted, Invalid, NotFound, Unavailable
from arena.hosted.archive import Limits, check
from arena.hosted.uploads import UPLOAD_S, Uploads
from arena.proto.truco.v1 import arena_pb2 as api
from arena.settings import private_folder
from arena.store.store import Store
from arena.usecases.matches import request as request_match
from arena.usecases.versions import submit
from arena.wire_clock import request_clock
from referee import messages
from referee.callers import Dispatch, translating
from referee.hub import Hub
from referee.organizing import Organizing
from referee.runner import MatchRunner

log = logging.getLogger(__name__)

MAX_REQUESTED = 1000  # matches in one RequestMatch
KEPT_RECORDS = 256  # records of ended RunMatch calls kept for a retried call
ARCHIVE_LIMITS = Limits()  # how large a submitted bot may be
STORE_CAPS = KEPT  # what the store keeps of a bot
ADMITTED = (("arena-upload", "admitted"),)  # SubmitBot's initial metadata, once taken
HOSTED_START_S = 10.0  # a match waits this long for its hosted bots' processes to connect


class ArenaServicer(Organizing):
    """The Arena API: bots, their hosted versions, matches and ratings, and the referee's
    own RunMatch (:class:`Organizing`: tournaments and ladders). ``dispatch`` hands
    work to the workers (by id); without it, StartTournament and RequestMatch are
    refused. Uploads are spooled under ``spool`` (a folder made private; default: one of
    the system's temporary folder), at most as many at once as ``uploads`` takes."""

    def __init__(
        self,
        store: Store,
        admin_token: str,
        hub: Hub | None = None,
        dispatch: Dispatch | None = None,
        spool: Path | None = None,
        uploads: Uploads | None = None,
    ) -> None:
        super().__init__(store, admin_token, hub, dispatch)
        self.spool = spool
        self.uploads = uploads or Uploads()
        self._runs: dict[str, asyncio.Task[dict[str, Any]]] = {}  # RunMatch calls playing
        self._ended: OrderedDict[str, dict[str, Any]] = OrderedDict()

    async def SubmitBot(self, requests: Any, context: Any) -> api.SubmitBotResponse:
        """Reads the manifest, takes the upload if the caps allow (else RESOURCE_EXHAUSTED
        at once, saying which), then spools the archive to a private file up to the size
        limit (refused as soon as it goes over, or when it takes longer than UPLOAD_S),
        checks it whole and keeps it as a version. Once taken, the upload is told so by
        its initial metadata (ADMITTED): a client may wait for it before sending more."""
        first = await anext(aiter(requests), None)
        if first is None or first.WhichOneof("part") != "manifest":
            raise Invalid("the first message must be the manifest")
        m = first.manifest
        await self._owner(context, m.bot)
        manifest = Manifest(m.runtime, m.entry)
        limit = ARCHIVE_LIMITS.archive_bytes
        if m.size > limit:
            raise Invalid(f"archive: {m.size:,} bytes, over the limit of {limit:,}")
        with self.uploads.admitted(m.bot), self._spooled() as spooled:
            await context.send_initial_metadata(ADMITTED)
            try:
                async with asyncio.timeout(UPLOAD_S):
                    await _spool(requests, spooled, limit)
            except TimeoutError:
                raise Exhausted(
                    f"archive: not all sent within {UPLOAD_S:g} s, the time an upload may "
                    "hold its place; send it again from a faster link"
                ) from None
            checked = await asyncio.to_thread(check, spooled, manifest, ARCHIVE_LIMITS)
            row, new = await asyncio.to_thread(
                submit, self.store, m.bot, manifest, spooled, checked, STORE_CAPS
            )
        if new:
            log.info("bot %s: version %d submitted (%s)", m.bot, row.number, checked.hash[:12])
        if row.status == "checking" and self.dispatch is not None:  # sent again: no harm
            self.dispatch.check(str(BotRef(m.bot, row.number)))
        return api.SubmitBotResponse(
            version=messages.message(api.BotVersion, read.version(m.bot, row)), new=new
        )

    def _spooled(self) -> IO[bytes]:
        """A new file for an upload, with no name (gone when closed, or when the process
        ends), in a folder only this user may enter."""
        folder = self.spool or Path(tempfile.gettempdir()) / f"truco-arena-uploads-{os.getuid()}"
        return tempfile.TemporaryFile(dir=private_folder(folder))

    async def ListVersions(self, request: Any, context: Any) -> api.ListVersionsResponse:
        rows = await asyncio.to_thread(read.versions, self.store, request.bot)
        return api.ListVersionsResponse(
            versions=[messages.message(api.BotVersion, v) for v in rows]
        )

    async def GetBotLogs(self, request: Any, context: Any) -> api.GetBotLogsResponse:
        await self._owner(context, owner_bot(request.bot))
        logs = await asyncio.to_thread(self.store.bot_logs, request.match_id, request.bot)
        if not logs:
            raise NotFound(
                f"no log of {quoted(request.bot)} in match {quoted(request.match_id)}: "
                "only hosted versions' processes leave one"
            )
        return api.GetBotLogsResponse(logs=[messages.message(api.BotLog, x) for x in logs])

    async def RegisterBot(self, request: Any, context: Any) -> api.RegisterBotResponse:
        await self._organizer(context)
        row, token = await asyncio.to_thread(self.store.register_bot, request.name, request.owner)
        log.info("registered bot %s (owner %r)", row.name, row.owner)
        return api.RegisterBotResponse(bot=messages.bot_message(row), token=token)

    async def ListBots(self, request: Any, context: Any) -> api.ListBotsResponse:
        rows = await asyncio.to_thread(self.store.bots)
        seen = await self._presence()
        return api.ListBotsResponse(bots=[messages.bot_message(r, seen.get(r.name)) for r in rows])

    async def ListNodes(self, request: Any, context: Any) -> api.ListNodesResponse:
        """The organizer's (the nodes call with it too): others are refused, the nodes'
        addresses and loads are no one else's business."""
        if not await self._is_organizer(context):
            await context.abort(
                grpc.StatusCode.PERMISSION_DENIED, "ListNodes is the organizer's (and the nodes')"
            )
        nodes = await asyncio.to_thread(self.store.live_nodes)
        return api.ListNodesResponse(
            nodes=[messages.message(api.Node, _shown(n)) for n in nodes],
            answered_by=self.node.name if self.node is not None else "",
        )

    async def OpenRelay(self, request: Any, context: Any) -> api.OpenRelayResponse:
        await self._organizer(context)
        if self.node is None:
            raise Invalid("this referee is not a node of a cluster")
        if not request.match_id or not request.bot or not request.referee:
            raise Invalid("give the match, the bot and the referee that plays it")
        await self.node.open_relay(request)
        return api.OpenRelayResponse()

    async def RotateToken(self, request: Any, context: Any) -> api.RegisterBotResponse:
        await self._organizer(context)
        row, token = await asyncio.to_thread(self.store.rotate_token, request.name)
        if self.hub is not None:  # the old token stops working at once, live session too
            self.hub.revoke(row.name, "this bot's token was rotated")
        log.info("rotated the token of bot %s", row.name)
        return api.RegisterBotResponse(bot=messages.bot_message(row), token=token)

    async def GetRatingHistory(self, request: Any, context: Any) -> api.GetRatingHistoryResponse:
        pool = messages.pool_of_request(request.pool)
        rows = await asyncio.to_thread(read.rating_history, self.store, request.bot, pool)
        return api.GetRatingHistoryResponse(
            changes=[messages.message(api.RatingChange, r) for r in rows]
        )

    async def GetLeaderboard(self, request: Any, context: Any) -> api.GetLeaderboardResponse:
        pool = messages.pool_of_request(request.pool)
        rows = await asyncio.to_thread(read.standings, self.store, pool, trends=False)
        return api.GetLeaderboardResponse(
            pool=pool, standings=[messages.message(api.Standing, r) for r in rows]
        )

    async def RequestMatch(self, request: Any, context: Any) -> api.RequestMatchResponse:
        """Rated matches for the workers to play, like a run's: each its own row, its own
        secret deals (the bots dial in, so no two matches share deals) and its clocks,
        played through RunMatch and recorded by the one exactly-once path, so a referee
        that dies mid-match has it played again."""
        await self._organizer(context)
        matches = request.matches if request.HasField("matches") else 2
        if not 1 <= matches <= MAX_REQUESTED:
            raise Invalid(f"matches must be from 1 to {MAX_REQUESTED}, not {matches}")
        rules = Rules.parse(request.rules or "paulista")
        clock = request_clock(request)
        plan = seatings(rules, list(request.bots), matches)
        names = list(dict.fromkeys(request.bots))
        playing = await asyncio.to_thread(self.store.playing_as, names)  # or its version
        for name in names:
            if name not in playing:
                raise NotFound(f"no active bot named {quoted(name)}")
        connected = await self._presence()  # to any node
        for name in names:  # a hosted version's process is started for its match
            hosted = is_version(playing[name][1])
            if not hosted and name not in connected:
                await context.abort(
                    grpc.StatusCode.FAILED_PRECONDITION, f"bot {quoted(name)} is not connected"
                )
        dispatch = self.dispatch
        if dispatch is None:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION, "this server has no workers to play matches"
            )
            return api.RequestMatchResponse()  # not reached: abort raises
        ids = [f"m-{uuid.uuid4().hex[:16]}" for _ in plan]
        for match_id, seats in zip(ids, plan, strict=True):
            bot_ids = [playing[name][0] for name in seats]
            await asyncio.to_thread(
                request_match, self.store, match_id, rules, bot_ids, clock=clock
            )
        await asyncio.to_thread(dispatch.play, ids)
        return api.RequestMatchResponse(match_ids=ids)

    async def GetMatch(self, request: Any, context: Any) -> api.GetMatchResponse:
        organizer = await self._is_organizer(context)
        found = await asyncio.to_thread(self.store.match, request.id)
        if found is None:
            raise NotFound(f"no match {quoted(request.id)}")
        row = found[0]
        (shown,) = await asyncio.to_thread(read.summaries, self.store, [found], organizer=organizer)
        record = None if shown["sealed"] else row.record
        if record is not None and not organizer:
            record = public_record(record)
        return api.GetMatchResponse(
            match=messages.summary_message(shown),
            record_json="" if record is None else json.dumps(record),
        )

    async def ListMatches(self, request: Any, context: Any) -> api.ListMatchesResponse:
        organizer = await self._is_organizer(context)
        size = min(request.page_size or 20, 200)
        pool = parse_pool(request.pool) if request.pool else None
        now = datetime.now(UTC)
        since = messages.time_field("since", request.since, now)
        until = messages.time_field("until", request.until, now)
        after = messages.page_after(request.page_token)
        rows = await asyncio.to_thread(
            self.store.matches,
            bot=request.bot or None,
            pool=pool,
            limit=size + 1,
            after=after,
            since=since,
            until=until,
        )
        page, more = rows[:size], len(rows) > size
        token = f"{page[-1][0].created_at.isoformat()}|{page[-1][0].id}" if more else ""
        shown = await asyncio.to_thread(read.summaries, self.store, page, organizer=organizer)
        return api.ListMatchesResponse(
            matches=[messages.summary_message(m) for m in shown], next_page_token=token
        )

    async def RunMatch(self, request: Any, context: Any) -> api.RunMatchResponse:
        await self._organizer(context)
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
            try:
                record = await asyncio.shield(task)  # a cancelled call leaves the match playing
            except Exception as e:
                log.exception("match %s failed", match_id)
                await context.abort(grpc.StatusCode.INTERNAL, f"match {match_id} failed: {e}")
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
        assert self.hub is not None
        keys = {b: hosted_keys.get(b, match_id) for b in dict.fromkeys(seats) if is_version(b)}
        dial_in = [b for b in dict.fromkeys(seats) if not is_version(b)]
        remote = await self.node.elsewhere(dial_in) if self.node is not None else {}
        try:
            async with (
                self.hub.expect(match_id, keys, HOSTED_START_S, frozenset(remote)),
                self._seated(match_id, dial_in, remote),
            ):
                runner = MatchRunner(
                    self.hub, match_id, rules, seats, seed=seed, clock=clock,
                    stand_in=lambda: house_bot("heuristic"),
                )  # fmt: skip
                record = await runner.run()
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
        assert self.hub is not None
        if not remote:
            async with self.hub.playing(bots):
                yield
            return
        async with contextlib.AsyncExitStack() as stack:
            for bot in sorted(bots):
                if bot not in remote:
                    await stack.enter_async_context(self.hub.playing([bot]))
                    continue
                assert self.node is not None
                try:
                    await self.node.relay_seat(remote[bot], match_id)
                except Unavailable as e:
                    log.warning("match %s: %s; its seat is away", match_id, e)
            if self.node is not None:
                await stack.enter_async_context(self.node.relinking(match_id, remote))
            yield


async def _spool(requests: Any, into: IO[bytes], limit: int) -> None:
    """The archive's chunks written to ``into`` as they come, refused once past
    ``limit`` bytes."""
    size = 0
    async for part in requests:
        if part.WhichOneof("part") != "chunk":
            raise Invalid("after the manifest, only chunks of the archive")
        size += len(part.chunk)
        if size > limit:
            raise Invalid(f"archive: over the limit of {limit:,} bytes")
        into.write(part.chunk)


def _shown(node: NodeRow) -> dict[str, Any]:
    return asdict(node) | {t: getattr(node, t).isoformat() for t in ("started_at", "renewed_at")}


for _name in api.DESCRIPTOR.services_by_name["Arena"].methods_by_name:
    setattr(ArenaServicer, _name, translating(getattr(ArenaServicer, _name)))

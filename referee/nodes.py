"""This referee as one node of several on one database (docs/cluster.md).

A :class:`Node` keeps the leases that tell the others, and the workers, which bots are
connected here (arena/store/nodes.py): written as bots come and go, renewed with the
node's load every few seconds, dropped on a clean stop. A bot that connects to another
node takes its row; the node that held it then ends its session here, as one node does
when a bot reconnects.

A match played here reaches a seat whose bot is connected to another node through a
relay: this node asks that one (``OpenRelay``, with the organizer's token), which takes a
free slot of the bot's concurrency and opens the seat here with a match token, as a
hosted bot's process would, then passes this node's messages for that match to the bot
and the bot's replies back. Each seat still sees only the view made for it, here. While
a relayed seat is away (its bot, or its node, went), the match looks for the bot on the
live nodes every :data:`RELINK_S` and opens its seat again from wherever it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any

import grpc

from arena.channel import open_channel
from arena.domain.identity import HostedSeat
from arena.domain.nodes import LOAD_S, RENEW_S, Held, Where
from arena.errors import ArenaError, Unavailable
from arena.hosted.tokens import match_token
from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.wire import PROTOCOL_VERSION
from referee.hub import Hub
from referee.sessions import Session

if TYPE_CHECKING:  # a local referee (arena match) has no store: a bot author's install
    from arena.store.store import Store

log = logging.getLogger(__name__)

RELINK_S = 0.5  # how often a match looks for the bot of an away relayed seat
PLAY = "/truco.v1.Referee/Play"
# A relay passes the playing node's messages on as the bytes they came in. The first byte
# of an encoded RefereeMessage is the tag of the one field of its oneof that is set: those
# of `decision` (3) and `rejected` (4), the messages that invite a reply, are these.
ASKING = (b"\x1a", b"\x22")


class Node:
    """This node: its name, the address the others reach it at, its leases and relays."""

    def __init__(
        self,
        name: str,
        address: str,
        store: Store,
        hub: Hub,
        admin_token: str,
        secure: tuple[str | None, bool] = (None, False),
    ) -> None:
        self.name, self.address = name, address
        self.store, self.hub = store, hub
        self._metadata = [("authorization", f"Bearer {admin_token}")]
        self._secure = secure
        self._changed: dict[str, Session | None] = {}  # bots come or gone, not yet written
        self._wake = asyncio.Event()
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._relays: dict[tuple[str, str], asyncio.Task[None]] = {}
        self.relayed = 0  # seats carried to other nodes' matches, since it started
        self._loads: set[str] = set()  # bots whose matches changed, their leases not yet
        hub.on_presence = self._presence
        hub.on_load = self._loaded

    # ---- leases --------------------------------------------------------------------

    def _presence(self, bot: str, session: Session | None) -> None:
        self._changed[bot] = session
        self._wake.set()
        # its relays end: the seats they carried are away, and are opened again (the match
        # resent as it stands) once it is found connected; a new session of the bot here
        # too, for its stream has lost what the old one was sent
        for (_, relayed), task in list(self._relays.items()):
            if relayed == bot:
                task.cancel()

    def _loaded(self, bots: frozenset[str]) -> None:
        self._loads.update(bots)
        self._wake.set()

    async def run(self) -> None:
        """Keep the leases until cancelled: each arrival and departure written as it
        comes, the bots' matches at most LOAD_S after they change, every lease renewed
        every RENEW_S. A database that fails is tried again at the next renewal
        (meanwhile the leases may lapse: the others see this node's bots go)."""
        loop = asyncio.get_running_loop()
        renew_at = load_at = loop.time()
        while True:
            until = min(renew_at, load_at) if self._loads else renew_at
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(0.0, until - loop.time()))
            self._wake.clear()
            due = loop.time() >= renew_at
            if due:
                renew_at = loop.time() + RENEW_S
            try:
                await self._write()
                if due:
                    self._loads.clear()  # the renewal writes every bot's
                    await self._renew()
                elif self._loads and loop.time() >= load_at:
                    load_at = loop.time() + LOAD_S
                    await self._write_loads()
            except ArenaError as e:
                log.warning("node %s: could not write its leases: %s", self.name, e)

    async def _write(self) -> None:
        while self._changed:
            bot, session = next(iter(self._changed.items()))
            if session is None:
                await asyncio.to_thread(self.store.depart, self.name, bot)
            else:
                held = Held(bot, session.concurrency, self.hub.busy(bot))
                await asyncio.to_thread(self.store.arrive, self.name, held)
            if self._changed.get(bot, ...) is session:  # not changed again meanwhile
                del self._changed[bot]

    async def _write_loads(self) -> None:
        sessions = self.hub.sessions
        bots, self._loads = self._loads, set()
        held = [
            Held(b, sessions[b].concurrency, self.hub.busy(b))
            for b in sorted(bots) if b in sessions and not sessions[b].match
        ]  # fmt: skip
        if held:
            await asyncio.to_thread(self.store.load, self.name, held)

    async def _renew(self) -> None:
        sessions = {s.bot: s for s in self.hub.sessions.values() if not s.match}
        held = [Held(b, s.concurrency, self.hub.busy(b)) for b, s in sessions.items()]
        lost = await asyncio.to_thread(
            self.store.renew_node, self.name, self.address, held, self.hub.playing_now,
            self.relayed,
        )  # fmt: skip
        for bot in lost:
            session = sessions[bot]
            if self.hub.sessions.get(bot) is session and bot not in self._changed:
                session.close(
                    grpc.StatusCode.ABORTED,
                    "another connection took over this bot's session (at another node)",
                )

    async def stop(self) -> None:
        """Drop this node's leases at once (a clean stop: no one waits for them to lapse)."""
        with contextlib.suppress(ArenaError):
            await asyncio.to_thread(self.store.drop_node, self.name)

    # ---- the node that plays a match -------------------------------------------------

    async def elsewhere(self, bots: Iterable[str]) -> dict[str, Where]:
        """The bots among ``bots`` connected to other live nodes, and where (the
        database is asked only about those not connected here)."""
        wanted = [b for b in bots if b not in self.hub.sessions]
        if not wanted:
            return {}
        found = await asyncio.to_thread(self.store.presence, wanted)
        return {b: w for b, w in found.items() if w.node != self.name}

    async def relay_seat(self, where: Where, match_id: str, *, resume: bool = False) -> None:
        """Have ``where``'s node carry its bot to the match's seat here; returns once the
        seat is open. :class:`Unavailable` when that node cannot."""
        assert self.hub.token_key is not None
        request = api.OpenRelayRequest(
            match_id=match_id, bot=where.bot, referee=self.address, resume=resume,
            token=match_token(self.hub.token_key, match_id, where.bot),
        )  # fmt: skip
        try:
            await self._stub(where.address).OpenRelay(request, metadata=self._metadata)
        except grpc.RpcError as e:
            raise Unavailable(
                f"node {where.node} could not relay {where.bot}: {e.details()} ({e.code().name})"
            ) from None

    @contextlib.asynccontextmanager
    async def relinking(self, match_id: str, bots: Iterable[str]) -> AsyncIterator[None]:
        """While the match plays: each relayed seat of ``bots`` that is away is opened
        again from the node its bot is connected to now, if any."""
        task = asyncio.create_task(self._relink(match_id, list(bots)))
        try:
            yield
        finally:
            task.cancel()

    async def _relink(self, match_id: str, bots: list[str]) -> None:
        while True:
            await asyncio.sleep(RELINK_S)
            away = [b for b in bots if not self.hub.connected(str(HostedSeat(b, match_id)))]
            if not away:
                continue
            try:
                found = await asyncio.to_thread(self.store.presence, away)
            except ArenaError:
                continue
            for where in found.values():
                try:
                    await self.relay_seat(where, match_id, resume=True)
                    log.info("match %s: %s is back, by node %s", match_id, where.bot, where.node)
                except Unavailable as e:
                    log.info("match %s: %s", match_id, e)

    def _stub(self, address: str) -> Any:
        return arena_pb2_grpc.ArenaStub(self._channel(address))

    # ---- the node a relayed bot is connected to --------------------------------------

    async def open_relay(self, request: api.OpenRelayRequest) -> None:
        """OpenRelay: carry the bot connected here to its seat on the requesting node,
        in the background; returns once the seat is open there."""
        key = (request.match_id, request.bot)
        old = self._relays.pop(key, None)
        if old is not None:  # a relink after a break this side has not seen yet
            old.cancel()
        opened = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(self._carry(request, opened))
        self._relays[key] = task
        task.add_done_callback(lambda t: self._relays.get(key) is t and self._relays.pop(key))
        await opened

    async def _carry(self, request: api.OpenRelayRequest, opened: asyncio.Future[None]) -> None:
        bot, match_id = request.bot, request.match_id
        up: asyncio.Queue[pb.BotMessage] = asyncio.Queue()
        call = route = None
        try:
            session = self.hub.sessions.get(bot)
            if session is None or session.match:
                raise Unavailable(f"{bot} is not connected to node {self.name}")
            seat = self.hub.holding([bot]) if request.resume else None
            async with contextlib.AsyncExitStack() as stack:
                if seat is not None:
                    stack.enter_context(seat)
                else:
                    await stack.enter_async_context(self.hub.playing([bot]))
                if self.hub.sessions.get(bot) is not session:
                    raise Unavailable(f"{bot} left node {self.name}")
                hello = pb.Hello(
                    token=request.token, protocol_version=PROTOCOL_VERSION, concurrency=1,
                    name=f"{bot} by node {self.name}", hand_results=session.hand_results,
                )  # fmt: skip
                up.put_nowait(pb.BotMessage(hello=hello))
                route = self.hub.relays[(match_id, bot)] = _forwarding(up)
                play = self._channel(request.referee).stream_stream(
                    PLAY, request_serializer=pb.BotMessage.SerializeToString
                )  # the replies as bytes
                call = play(_drained(up))
                first = await call.read()
                if first is grpc.aio.EOF or not pb.RefereeMessage.FromString(first).welcome.bot:
                    raise Unavailable(f"node at {request.referee} did not open the seat")
                opened.set_result(None)
                self.relayed += 1
                while (data := await call.read()) is not grpc.aio.EOF:
                    self.hub.send(bot, data, asks=data[:1] in ASKING)
        except grpc.RpcError as e:
            if not opened.done():
                opened.set_exception(Unavailable(f"{e.details()} ({e.code().name})"))
        except (Unavailable, asyncio.CancelledError) as e:
            if not opened.done():
                opened.set_exception(e if isinstance(e, Unavailable) else Unavailable("cancelled"))
        finally:
            if route is not None and self.hub.relays.get((match_id, bot)) is route:
                del self.hub.relays[(match_id, bot)]
            if call is not None:
                call.cancel()

    def _channel(self, address: str) -> grpc.aio.Channel:
        """One channel per node reached, kept (a node's calls share its connection)."""
        channel = self._channels.get(address)
        if channel is None:
            channel = self._channels[address] = open_channel(address, *self._secure, aio=True)
        return channel

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
        self._channels.clear()


def _forwarding(up: asyncio.Queue[pb.BotMessage]) -> Callable[[pb.ActionReply], None]:
    return lambda reply: up.put_nowait(pb.BotMessage(action=reply))


async def _drained(queue: asyncio.Queue[pb.BotMessage]) -> AsyncIterator[pb.BotMessage]:
    while True:
        yield await queue.get()

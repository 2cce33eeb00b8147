"""A bot session: hello, tokens, versions, takeover, keepalive pings and a clean stop.

The referee runs on its own event loop in a thread; the tests are clients on real
loopback gRPC with the raw generated stubs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import threading
from collections.abc import Iterator

import grpc
import pytest

from arena.proto.truco.v1 import bot_pb2 as pb
from arena.proto.truco.v1 import bot_pb2_grpc
from referee import server as server_module
from referee.hub import Hub
from referee.server import RefereeServer, create_server
from referee.sessions import MemoryTokens


class Referee:
    """A referee on a background event loop."""

    def __init__(self) -> None:
        self.tokens = MemoryTokens()
        self.token = self.tokens.issue("alpha")
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server: RefereeServer = self.call(self._start())

    async def _start(self) -> RefereeServer:
        self.hub = Hub(self.tokens)
        server = create_server("127.0.0.1:0", self.hub)
        await server.start()
        return server

    def call(self, coroutine):  # type: ignore[no-untyped-def]
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(10)

    def close(self) -> None:
        self.call(self.server.stop(0))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def referee() -> Iterator[Referee]:
    ref = Referee()
    yield ref
    ref.close()


class Client:
    """A raw Play stream: put messages in, read what comes back."""

    def __init__(self, address: str, metadata: tuple[tuple[str, str], ...] = ()) -> None:
        self.outbox: queue.SimpleQueue[pb.BotMessage | None] = queue.SimpleQueue()
        self.channel = grpc.insecure_channel(address)
        self.stream = bot_pb2_grpc.RefereeStub(self.channel).Play(
            iter(self.outbox.get, None), metadata=metadata
        )

    def send(self, message: pb.BotMessage) -> None:
        self.outbox.put(message)

    def hello(self, token: str, version: int = 1) -> None:
        self.send(pb.BotMessage(hello=pb.Hello(token=token, protocol_version=version)))

    def next(self) -> pb.RefereeMessage:
        return next(self.stream)

    def error(self) -> grpc.RpcError:
        with pytest.raises(grpc.RpcError) as caught:
            for _ in self.stream:
                pass
        return caught.value

    def close(self) -> None:
        self.outbox.put(None)
        self.channel.close()


def test_a_good_token_is_welcomed_by_name(referee: Referee) -> None:
    client = Client(referee.server.address)
    client.hello(referee.token)
    welcome = client.next().welcome
    assert (welcome.bot, welcome.protocol_version, welcome.concurrency) == ("alpha", 1, 1)
    client.close()


def test_the_token_may_come_in_metadata(referee: Referee) -> None:
    client = Client(referee.server.address, (("authorization", f"Bearer {referee.token}"),))
    client.hello("")
    assert client.next().welcome.bot == "alpha"
    client.close()


@pytest.mark.parametrize("token", ["", "guess", "x" * 5000])
def test_an_unknown_token_is_refused(referee: Referee, token: str) -> None:
    client = Client(referee.server.address)
    client.hello(token)
    error = client.error()
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert referee.hub.sessions == {}
    client.close()


def test_the_first_message_must_be_a_hello(referee: Referee) -> None:
    client = Client(referee.server.address)
    client.send(pb.BotMessage(action=pb.ActionReply(match_id="m", request_id=1)))
    assert client.error().code() == grpc.StatusCode.INVALID_ARGUMENT
    client.close()


def test_an_unknown_protocol_version_is_refused(referee: Referee) -> None:
    client = Client(referee.server.address)
    client.hello(referee.token, version=99)
    error = client.error()
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "speaks 1" in error.details()
    client.close()


def test_a_stream_that_never_says_hello_is_closed(
    referee: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module, "HELLO_TIMEOUT_S", 0.3)
    client = Client(referee.server.address)
    assert client.error().code() == grpc.StatusCode.DEADLINE_EXCEEDED
    client.close()


def test_a_second_connection_takes_over_the_session(referee: Referee) -> None:
    first = Client(referee.server.address)
    first.hello(referee.token)
    assert first.next().welcome.bot == "alpha"
    second = Client(referee.server.address)
    second.hello(referee.token)
    assert second.next().welcome.bot == "alpha"
    error = first.error()
    assert error.code() == grpc.StatusCode.ABORTED and "took over" in error.details()
    assert len(referee.hub.sessions) == 1
    first.close()
    second.close()


def test_an_action_for_no_match_is_rejected_with_a_reason(referee: Referee) -> None:
    client = Client(referee.server.address)
    client.hello(referee.token)
    client.next()
    client.send(pb.BotMessage(action=pb.ActionReply(match_id="nope", request_id=4)))
    rejected = client.next().rejected
    assert rejected.match_id == "nope" and "not seated" in rejected.reason
    client.close()


def test_a_clean_stop_writes_what_is_queued_then_ends_the_stream_with_ok(
    referee: Referee,
) -> None:
    client = Client(referee.server.address)
    client.hello(referee.token)
    client.next()

    async def queue_then_stop() -> None:
        session = referee.hub.sessions["alpha"]
        for k in range(50):
            session.send(pb.RefereeMessage(rejected=pb.ActionRejected(match_id=f"m{k}")))
        await referee.server.stop()

    referee.call(queue_then_stop())
    received = [m.rejected.match_id for m in client.stream]  # no RpcError: it ended with OK
    assert received == [f"m{k}" for k in range(50)]
    assert client.stream.code() == grpc.StatusCode.OK
    client.close()


def test_a_bot_connecting_while_the_referee_stops_is_not_welcomed(referee: Referee) -> None:
    referee.call(referee.hub.finish(0))  # the first step of a clean stop
    client = Client(referee.server.address)
    client.hello(referee.token)
    assert next(client.stream, None) is None  # no welcome: the stream ended at once
    assert client.stream.code() == grpc.StatusCode.OK and referee.hub.sessions == {}
    client.close()


def pings_sent(address: str) -> int:
    """Keepalive pings this process has sent on its live connections to ``address``, as
    grpc's channelz counts them (what the grpcio-channelz service reads)."""
    from grpc._cython import cygrpc

    count = 0
    for channel in json.loads(cygrpc.channelz_get_top_channels(0)).get("channel", []):
        if channel["data"].get("target") != f"dns:///{address}":
            continue
        for ref in channel.get("subchannelRef", []):
            sub = json.loads(cygrpc.channelz_get_subchannel(int(ref["subchannelId"])))
            for sock in sub["subchannel"].get("socketRef", []):
                found = json.loads(cygrpc.channelz_get_socket(int(sock["socketId"])))
                count += int(found["socket"]["data"].get("keepAlivesSent", 0))
    return count


def test_a_client_pinging_every_second_keeps_its_session(referee: Referee) -> None:
    """grpc-js and others let bots ping every second. The session is idle (no match), so
    the referee sends nothing between pings: the case its ping policy judges. The test
    waits until the client has sent PINGS keepalive pings, counted by grpc itself, or the
    stream has ended, whichever comes first (a refused pinger is cut off by its third
    early ping), then asks the referee something to show the session is still live."""
    pings = 6
    address = referee.server.address
    options = [
        ("grpc.keepalive_time_ms", 1000),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.max_pings_without_data", 0),
    ]
    outbox: queue.SimpleQueue[pb.BotMessage | None] = queue.SimpleQueue()
    with grpc.insecure_channel(address, options=options) as channel:
        stream = bot_pb2_grpc.RefereeStub(channel).Play(iter(outbox.get, None))
        outbox.put(pb.BotMessage(hello=pb.Hello(token=referee.token, protocol_version=1)))
        assert next(stream).welcome.bot == "alpha"
        received: queue.SimpleQueue[pb.RefereeMessage | grpc.RpcError | None] = queue.SimpleQueue()

        def read() -> None:
            try:
                for message in stream:
                    received.put(message)
                received.put(None)
            except grpc.RpcError as e:
                received.put(e)

        threading.Thread(target=read, daemon=True).start()
        ended = None
        while pings_sent(address) < pings and ended is None:
            with contextlib.suppress(queue.Empty):
                ended = received.get(timeout=0.05)  # between two looks at the count
        assert ended is None, f"the stream ended before {pings} pings: {ended}"
        outbox.put(pb.BotMessage(action=pb.ActionReply(match_id="still-there", request_id=1)))
        answer = received.get()
        assert isinstance(answer, pb.RefereeMessage), answer
        assert answer.rejected.match_id == "still-there"
        outbox.put(None)


def test_latency_percentiles_come_from_the_per_microsecond_counts() -> None:
    from referee.hub import percentile_us

    counts = [0] * 11
    counts[2], counts[5], counts[10] = 50, 49, 1
    assert [percentile_us(counts, q) for q in (0.5, 0.99, 1.0)] == [2, 5, 10]
    with pytest.raises(ValueError):
        percentile_us([0, 0], 0.5)


def test_matches_wait_for_free_seats_within_each_bots_concurrency() -> None:
    from referee.hub import Hub
    from referee.sessions import MemoryTokens, Session

    async def scenario() -> list[str]:
        hub = Hub(MemoryTokens())
        for bot, concurrency in (("a", 1), ("b", 2), ("c", 1)):
            hub.sessions[bot] = Session.open(bot, concurrency, "test")
        order: list[str] = []
        release = {name: asyncio.Event() for name in ("ab1", "ab2", "bc", "cancelled")}

        async def match(name: str, *bots: str) -> None:
            async with hub.playing(bots):
                order.append(name)
                await release[name].wait()

        first = asyncio.create_task(match("ab1", "a", "b"))
        second = asyncio.create_task(match("ab2", "a", "b"))  # a is busy: waits
        third = asyncio.create_task(match("bc", "b", "c"))  # b has a second slot: plays
        gone = asyncio.create_task(match("cancelled", "a", "c"))
        await asyncio.sleep(0)  # let each reach its wait (one loop turn, no timing)
        assert order == ["ab1", "bc"]
        gone.cancel()
        release["ab1"].set()
        await first
        await asyncio.sleep(0)
        assert order == ["ab1", "bc", "ab2"]  # the cancelled waiter took nothing
        release["ab2"].set()
        release["bc"].set()
        await asyncio.gather(second, third, return_exceptions=True)
        assert sum(hub._busy.values()) == 0 and hub._waiting == []
        return order

    asyncio.run(scenario())


def test_a_session_cut_off_with_a_status_leaves_the_hub_at_once() -> None:
    # its stream's writer may be stuck on a bot that does not read: the seats are held
    # from the moment the session is cut off, not from when that writer ends
    from types import SimpleNamespace

    from referee.sessions import OUTBOX_LIMIT, Session

    async def scenario() -> tuple[Hub, list[str], Session, Session]:
        hub = Hub(MemoryTokens())
        left: list[str] = []
        match = SimpleNamespace(bots={"a"}, bot_left=left.append, bot_returned=lambda bot: None)
        hub.matches["m"] = match  # type: ignore[assignment]
        first, second = Session.open("a", 1, "one"), Session.open("a", 1, "two")
        await hub.attach(first)
        await hub.attach(second)  # a takeover: the first leaves, but is no disconnect
        assert first.close_code == grpc.StatusCode.ABORTED and left == []
        for _ in range(OUTBOX_LIMIT):  # after the welcome: one too many
            second.send(pb.RefereeMessage())
        return hub, left, first, second

    hub, left, first, second = asyncio.run(scenario())
    assert second.close_code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert hub.sessions == {} and left == ["a"]
    assert not first.ended.is_set() and not second.ended.is_set()  # their streams go on


def test_behind_a_trusted_proxy_a_bad_token_counts_against_the_address_it_forwarded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # behind nginx every bot comes from nginx's address: one guesser would lock all out
    forwarded = (("x-forwarded-for", "198.51.100.9, 203.0.113.7"),)  # the proxy's is last
    for proxies, refused in ((("127.0.0.1",)), "203.0.113.7"), ((), "127.0.0.1"):
        ref = Referee()
        ref.hub.proxies = frozenset(proxies)
        try:
            with caplog.at_level("WARNING", logger="referee.server"):
                caplog.clear()
                client = Client(ref.server.address, forwarded)
                client.hello("guess")
                assert client.error().code() == grpc.StatusCode.UNAUTHENTICATED
                client.close()
            assert f"refused a bot from {refused}: unknown token" in caplog.text
            good = Client(ref.server.address, forwarded)  # a good token is never held
            good.hello(ref.token)
            assert good.next().welcome.bot == "alpha"
            good.close()
        finally:
            ref.close()


@pytest.mark.parametrize(
    ("peer", "forwarded", "address"),
    [
        ("ipv4:10.0.0.5:4000", ["1.2.3.4"], "1.2.3.4"),  # from the proxy: what it saw
        ("ipv4:10.0.0.5:4000", ["9.9.9.9, 1.2.3.4"], "1.2.3.4"),  # the client's own first
        ("ipv4:10.0.0.5:4000", ["x", "1.2.3.4"], "1.2.3.4"),  # the last header
        ("ipv4:10.0.0.5:4000", ["not-an-address"], "10.0.0.5"),
        ("ipv4:10.0.0.5:4000", [], "10.0.0.5"),
        ("ipv4:10.0.0.6:4000", ["1.2.3.4"], "10.0.0.6"),  # not a proxy: its word ignored
        ("ipv6:[::1]:4000", ["2001:db8::1"], "2001:db8::1"),
    ],
)
def test_the_callers_address_is_the_forwarded_one_only_from_a_trusted_proxy(
    peer: str, forwarded: list[str], address: str
) -> None:
    from arena.guard import caller_address

    metadata = [("x-forwarded-for", value) for value in forwarded]
    assert caller_address(peer, metadata, {"10.0.0.5", "::1"}) == address


def test_trusted_proxies_must_be_ip_addresses() -> None:
    from arena.errors import Invalid
    from arena.settings import Settings

    env = {"ARENA_TRUSTED_PROXIES": "10.0.0.5, ::1"}
    assert Settings.from_env(env).trusted_proxies == {"10.0.0.5", "::1"}
    with pytest.raises(Invalid, match="'nginx' is not an IP address"):
        Settings.from_env({"ARENA_TRUSTED_PROXIES": "10.0.0.5 nginx"})

"""The hosted bots' relay (arena/hosted/relay.py, its checks in arena/hosted/gate.py) on
real gRPC over loopback, to a real referee with the Arena API: a process's own Play goes
through, every other call is refused PERMISSION_DENIED at the relay, and a :class:`Tap`
between the relay and the referee shows what reached the referee. Clients are gRPC
channels on the relay's socket, or raw HTTP/2 (:class:`Raw`) where a test needs bytes
gRPC would not send. The sandbox's own attack is at the end."""

from __future__ import annotations

import json
import logging
import queue
import select
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from hpack import Decoder, Encoder
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.channel import server_credentials
from arena.hosted import calls
from arena.hosted import gate as gates
from arena.hosted import h2frames as h2
from arena.hosted.relay import MAX_CONNECTIONS, Relay
from arena.hosted.sandbox import unavailable
from arena.hosted.tokens import match_token
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.proto.truco.v1 import bot_pb2_grpc
from arena.wire import action_to_pb, view_from_pb
from referee.hub import Hub
from referee.server import RefereeServer, create_server
from tests import relayprobe
from tests.referee.test_api import arena  # noqa: F401 (the fixture)
from tests.referee.test_hosted_referee import (  # noqa: F401 (the fixtures)
    CLEAN,
    beta,
    bot_process,
    host_for,
    hosted,
    run_match,
    stored,
    versions,
)
from tests.referee.test_hosting_api import register
from tests.referee.test_sessions import Client, Referee
from tests.referee.test_tls import self_signed

PLAY = relayprobe.PLAY
WAIT_S = 30.0  # for an event that comes in well under a second; only a failure waits it out
Frame = tuple[int, int, int, bytes]  # type, flags, stream, payload


class Tap:
    """Between the relay and the referee: carries each connection both ways (threads:
    it is the test's) and decodes the header blocks on their way to the referee, so that
    :attr:`paths` lists the ``:path`` of every call that reached it."""

    def __init__(self, folder: Path, referee: str) -> None:
        self.path = folder / "tap.sock"
        self.referee = referee
        self.paths: list[str] = []
        self.connections = 0
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(self.path))
        self.listener.listen()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                inner, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            host, _, port = self.referee.rpartition(":")
            outer = socket.create_connection((host, int(port)))
            threading.Thread(target=self._copy, args=(inner, outer, True), daemon=True).start()
            threading.Thread(target=self._copy, args=(outer, inner, False), daemon=True).start()

    def _copy(self, source: socket.socket, sink: socket.socket, read: bool) -> None:
        seen, decoder, block = b"", Decoder(), b""
        try:
            while data := source.recv(65536):
                sink.sendall(data)
                if not read:
                    continue
                seen += data
                if seen.startswith(h2.PREFACE):
                    seen = seen[len(h2.PREFACE) :]
                while len(seen) >= 9 and len(seen) >= 9 + h2.head(seen)[0]:
                    length, kind, flags, _ = h2.head(seen)
                    if kind in (h2.HEADERS, h2.CONTINUATION):
                        block += seen[9 : 9 + length]
                        if flags & h2.END_HEADERS:
                            fields = dict(decoder.decode(block))
                            self.paths.append(fields.get(":path", "(none)"))
                            block = b""
                    seen = seen[9 + length :]
        except OSError:
            pass
        finally:
            for end in (source, sink):
                end.close()

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def gated(versions: Any, tmp_path: Path) -> Iterator[tuple[Any, Any, str, Relay, Tap]]:  # noqa: F811
    """The arena, alpha@1's match token for m-1, a relay for it, the tap behind it."""
    ref, stub, key = versions
    token = match_token(key, "m-1", "alpha@1")
    tap = Tap(tmp_path, ref.server.address)
    relay = Relay(f"unix:{tap.path}", token=token)
    yield ref, stub, token, relay, tap
    relay.close()
    tap.close()


class Player:
    """A Play on ``channel``, by hand: a hello with ``token``, the first legal action to
    every decision, until its one match ends (:attr:`ended`)."""

    def __init__(self, channel: Any, token: str) -> None:
        self.outbox: queue.SimpleQueue[pb.BotMessage | None] = queue.SimpleQueue()
        self.outbox.put(pb.BotMessage(hello=pb.Hello(token=token, protocol_version=1)))
        self.stream = bot_pb2_grpc.RefereeStub(channel).Play(iter(self.outbox.get, None))
        self.welcomed, self.ended = threading.Event(), threading.Event()
        threading.Thread(target=self._play, daemon=True).start()

    def _play(self) -> None:
        for message in self.stream:
            kind = message.WhichOneof("kind")
            if kind == "welcome":
                self.welcomed.set()
            elif kind == "decision":
                asked = message.decision
                action = action_to_pb(view_from_pb(asked.view).legal[0])
                reply = pb.ActionReply(match_id=asked.match_id, request_id=asked.request_id)
                reply.action.CopyFrom(action)
                self.outbox.put(pb.BotMessage(action=reply))
            elif kind == "match_ended":
                self.ended.set()
                self.outbox.put(None)
                return


def refused_here(answer: str) -> bool:
    return answer.startswith("PERMISSION_DENIED: ") and calls.ONLY in answer


def test_its_own_play_plays_its_match_through_the_relay(gated: Any, beta: str) -> None:  # noqa: F811
    _, stub, token, relay, tap = gated
    process = bot_process(f"unix:{relay.path}", token)
    try:
        record = json.loads(run_match(stub, "m-1", ["alpha@1", beta]).result().record_json)
        assert record["faults"]["alpha@1"] == CLEAN
        assert process.wait(timeout=WAIT_S) == 0, process.communicate()
    finally:
        process.kill()
        process.wait()
    assert tap.paths == [PLAY]


def test_play_with_any_other_token_is_refused_at_the_relay(gated: Any) -> None:
    ref, stub, token, relay, tap = gated
    key = ref.hub.token_key
    others = {
        "a registered bot's token": register(stub, "gamma"),
        "another match's token": match_token(key, "m-2", "alpha@1"),
        "another seat's token": match_token(key, "m-1", "beta"),
        "the organizer's token": "organizer-secret",
        "its own token, changed": token[:-1] + ("A" if token[-1] != "A" else "B"),
    }
    found = relayprobe.calls(f"unix:{relay.path}", {}, others)
    assert len(found) == 2 * len(others)
    assert all(refused_here(answer) for answer in found.values()), found
    assert tap.paths == []


def test_the_arena_api_health_reflection_and_any_other_call_are_refused(gated: Any) -> None:
    _, _, _, relay, tap = gated
    tokens = {"no token": "", "the organizer's": "organizer-secret"}
    found = relayprobe.calls(f"unix:{relay.path}", tokens, {})
    methods = relayprobe.arena_methods()
    assert len(methods) > 20 and len(found) == 2 * (len(methods) + len(relayprobe.OTHERS))
    assert all(refused_here(answer) for answer in found.values()), found
    assert tap.paths == [] and tap.connections == 1


def test_a_refused_call_leaves_the_play_beside_it_working(gated: Any, beta: str) -> None:  # noqa: F811
    _, stub, token, relay, tap = gated
    with grpc.insecure_channel(f"unix:{relay.path}") as channel:
        get_match = "/truco.v1.Arena/GetMatch"
        assert refused_here(relayprobe.call(channel, get_match, (False, False), b"", ""))
        player = Player(channel, token)
        match = run_match(stub, "m-1", ["alpha@1", beta])
        assert player.welcomed.wait(WAIT_S)
        list_bots = "/truco.v1.Arena/ListBots"
        assert refused_here(relayprobe.call(channel, list_bots, (False, False), b"", ""))
        record = json.loads(match.result().record_json)
        assert player.ended.wait(WAIT_S)
    assert record["faults"]["alpha@1"] == CLEAN
    assert tap.paths == [PLAY] and tap.connections == 1


class Raw:
    """A raw HTTP/2 connection to the relay's socket, past the handshake: the referee's
    SETTINGS and the acknowledgement of the client's have come back."""

    def __init__(self, path: Path, preface: bytes = h2.PREFACE) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.sock.settimeout(WAIT_S)
        self.encoder, self.decoder = Encoder(), Decoder()
        self.inbox = b""
        if preface:
            self.sock.sendall(preface + h2.frame(h2.SETTINGS, 0, 0))
            self.until(lambda f: f[0] == h2.SETTINGS and bool(f[1] & h2.ACK))

    def headers(self, stream: int, path: str, end_stream: bool = False) -> None:
        fields = [(":method", "POST"), (":scheme", "http"), (":path", path),
                  (":authority", "localhost"), ("content-type", "application/grpc"),
                  ("te", "trailers")]  # fmt: skip
        flags = h2.END_HEADERS | (h2.END_STREAM if end_stream else 0)
        self.sock.sendall(h2.frame(h2.HEADERS, flags, stream, self.encoder.encode(fields)))

    def next(self) -> Frame | None:
        """The next frame from the relay; None once it closed the connection."""
        while len(self.inbox) < 9 or len(self.inbox) < 9 + h2.head(self.inbox)[0]:
            try:
                data = self.sock.recv(65536)
            except ConnectionResetError:
                data = b""
            if not data:
                return None
            self.inbox += data
        length, kind, flags, stream = h2.head(self.inbox)
        payload, self.inbox = self.inbox[9 : 9 + length], self.inbox[9 + length :]
        return kind, flags, stream, payload

    def until(self, wanted: Callable[[Frame], bool]) -> list[Frame]:
        """Frames up to the first ``wanted`` one, which ends the list."""
        seen = []
        while (got := self.next()) is not None:
            seen.append(got)
            if wanted(got):
                return seen
        raise AssertionError(f"the relay closed the connection; frames: {seen}")

    def status(self, frame: Frame) -> dict[str, str]:
        return dict(self.decoder.decode(frame[3]))

    def closed(self) -> bool:
        while (got := self.next()) is not None:
            pass
        return got is None


def test_the_data_of_a_refused_call_is_given_back_to_the_connection_window(gated: Any) -> None:
    _, _, _, relay, tap = gated
    raw = Raw(relay.path)
    raw.headers(1, "/truco.v1.Arena/SubmitBot")
    sent = 0
    for _ in range(40):  # 640 KB
        raw.sock.sendall(h2.frame(h2.DATA, 0, 1, bytes(16_000)))
        sent += 16_000
    frames = raw.until(lambda f: f[0] == h2.HEADERS)
    given = 0
    while given < sent:
        frames += raw.until(lambda f: f[0] == h2.WINDOW_UPDATE)
        _, _, stream, payload = frames[-1]
        assert stream == 0, frames
        given += int.from_bytes(payload, "big")
    refusal = next(f for f in frames if f[0] == h2.HEADERS)
    assert refusal[1] & h2.END_STREAM and refusal[2] == 1
    fields = raw.status(refusal)
    assert fields["grpc-status"] == "7" and calls.ONLY in fields["grpc-message"], fields
    assert given == sent and tap.paths == []


def test_streams_past_the_cap_are_refused_stream(gated: Any) -> None:
    _, _, _, relay, tap = gated
    raw = Raw(relay.path)
    held = [1 + 2 * k for k in range(gates.MAX_STREAMS)]
    for stream in held:  # Play streams, held until a hello that never comes
        raw.headers(stream, PLAY)
    over = held[-1] + 2
    raw.headers(over, PLAY)
    reset = raw.until(lambda f: f[0] == h2.RST_STREAM)[-1]
    assert reset[2] == over and int.from_bytes(reset[3], "big") == h2.REFUSED_STREAM
    raw.headers(over + 2, "/truco.v1.Arena/ListBots")  # a refusal holds no stream
    refusal = raw.until(lambda f: f[0] == h2.HEADERS)[-1]
    assert refusal[2] == over + 2 and raw.status(refusal)["grpc-status"] == "7"
    raw.sock.sendall(h2.rst_stream(held[0], 8))  # the bot cancels one: room for one more
    raw.headers(over + 4, PLAY)
    raw.headers(over + 6, "/truco.v1.Arena/ListBots")
    frames = raw.until(lambda f: f[0] == h2.HEADERS)
    assert frames[-1][2] == over + 6 and not any(f[0] == h2.RST_STREAM for f in frames)
    assert tap.paths == []


MALFORMED = {
    "no preface": b"GET / HTTP/1.1\r\nHost: referee\r\n\r\n",
    "a frame over the referee's limit": h2.HEAD.pack(0x50, 0, h2.DATA, 0, 1),
    "a PUSH_PROMISE": h2.frame(h2.PUSH_PROMISE, h2.END_HEADERS, 1, bytes(4)),
    "a CONTINUATION out of place": h2.frame(h2.CONTINUATION, h2.END_HEADERS, 1, b"\x82"),
    "undecodable HPACK": h2.frame(h2.HEADERS, h2.END_HEADERS, 1, b"\xbf"),  # no index 63
    "a header block over its limit": h2.frame(h2.HEADERS, 0, 1, bytes(10_000))
    + h2.frame(h2.CONTINUATION, 0, 1, bytes(10_000)),
    "DATA on a stream never opened": h2.frame(h2.DATA, 0, 9, b"hello"),
    "a frame inside a header block": h2.frame(h2.HEADERS, 0, 1, b"\x82")
    + h2.frame(h2.PING, 0, 0, bytes(8)),
}


def test_malformed_http2_ends_that_connection_only(
    gated: Any,
    beta: str,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
) -> None:
    _, stub, token, relay, tap = gated
    caplog.set_level(logging.INFO, logger="arena.hosted.relay")
    with grpc.insecure_channel(f"unix:{relay.path}") as channel:
        player = Player(channel, token)
        for name, bad in MALFORMED.items():
            raw = Raw(relay.path, preface=b"" if name == "no preface" else h2.PREFACE)
            raw.sock.sendall(bad)
            assert raw.closed(), name
            raw.sock.close()
        record = json.loads(run_match(stub, "m-1", ["alpha@1", beta]).result().record_json)
        assert player.ended.wait(WAIT_S)
    assert record["faults"]["alpha@1"] == CLEAN
    ended = [r for r in caplog.records if "ended a connection" in r.getMessage()]
    assert len(ended) == len(MALFORMED) and {r.levelno for r in ended} == {logging.INFO}
    assert tap.paths == [PLAY]


def proc_counts(pid: int | str) -> tuple[int, int]:
    """A process's threads and open descriptors."""
    status = Path(f"/proc/{pid}/status").read_text()
    threads = int(next(line.split()[1] for line in status.splitlines() if line[:8] == "Threads:"))
    return threads, len(list(Path(f"/proc/{pid}/fd").iterdir()))


def helper(*args: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "tests.relayflood", *args]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def report(process: subprocess.Popen[str]) -> Any:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 120)
    assert ready, "the helper said nothing"
    return json.loads(process.stdout.readline())


FLOOD = 1000


@pytest.mark.hostile
def test_a_flood_of_connections_holds_a_few_and_costs_no_threads(
    versions: Any,  # noqa: F811
    beta: str,  # noqa: F811
) -> None:
    """A worker's process with two relays; a sandbox's process opens 1,000 connections
    to the first and holds them. The worker's threads and descriptors and the referee's
    descriptors stay within the caps; a match through the other relay plays cleanly."""
    ref, stub, key = versions
    flooded, good = match_token(key, "m-0", "alpha@1"), match_token(key, "m-1", "alpha@1")
    worker = helper("host", ref.server.address, flooded, good)
    flood = bot = None
    try:
        ready = report(worker)
        threads_before, worker_fds = proc_counts(worker.pid)
        referee_fds = proc_counts("self")[1]
        flood = helper("flood", ready["paths"][0], str(FLOOD))
        opened = report(flood)
        assert opened == {"live": MAX_CONNECTIONS, "refused": FLOOD - MAX_CONNECTIONS}
        threads, fds = proc_counts(worker.pid)
        referee_now = proc_counts("self")[1]
        print(  # the figures docs/sandbox.md quotes (pytest -s shows them)
            f"flood: worker threads {ready['threads_before']} before its relays, "
            f"{threads_before} with them, {threads} flooded; its descriptors {worker_fds}, "
            f"then {fds}; the referee's {referee_fds}, then {referee_now}"
        )
        assert threads <= ready["threads_before"] + 2 and threads == threads_before
        assert fds - worker_fds <= 2 * MAX_CONNECTIONS + 4, (worker_fds, fds)
        assert referee_now - referee_fds <= MAX_CONNECTIONS + 4, (referee_fds, referee_now)
        bot = bot_process(f"unix:{ready['paths'][1]}", good)
        record = json.loads(run_match(stub, "m-1", ["alpha@1", beta]).result().record_json)
        assert record["faults"] == {"alpha@1": CLEAN, beta: CLEAN}
        assert bot.wait(timeout=WAIT_S) == 0
    finally:
        for process in (flood, worker, bot):
            if process is not None:
                process.kill()
                process.wait()


PROBER = """\
import json
import relayprobe
from arena.sdk import run

OWNER = {owner!r}
found = relayprobe.calls(
    "unix:/run/arena/referee.sock", {{"none": "", "its owner's": OWNER}}, {{"its owner's": OWNER}}
)
print("PROBED " + json.dumps(found), flush=True)

class Bot:
    name = "prober"
    def decide(self, view):
        return view.legal[0]

run(Bot())
"""


@pytest.mark.hostile
@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
def test_a_sandboxed_bot_reaches_its_own_play_only(
    versions: Any,  # noqa: F811
    beta: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A hosted bot holding its owner's token tries the Arena API, health, reflection and
    Play with that token through its socket, then plays its match with the SDK: every
    call is refused, its match is clean."""
    ref, stub, _ = versions
    owner = register(stub, "villain")
    folder = tmp_path / "villain"
    folder.mkdir()
    (folder / "bot.py").write_text(PROBER.format(owner=owner))
    shutil.copy(relayprobe.__file__, folder / "relayprobe.py")
    villain = hosted(ref, "villain", folder, "bot.py", "python")
    seats = stored(ref, "m-8", [villain, beta])
    with host_for(ref, tmp_path).seated("m-8", seats) as keys:
        request_keys = dict(keys)
        record = json.loads(run_match(stub, "m-8", seats).result().record_json)
    assert request_keys == {villain: "m-8"}
    assert record["faults"] == {villain: CLEAN, beta: CLEAN}
    (log,) = ref.store.bot_logs("m-8", villain)
    line = next(x for x in log["log"].splitlines() if x.startswith("PROBED "))
    found = json.loads(line.removeprefix("PROBED "))
    methods = len(relayprobe.arena_methods()) + len(relayprobe.OTHERS)
    assert len(found) == 2 * methods + 2
    assert all(refused_here(answer) for answer in found.values()), found


class TlsReferee(Referee):
    """A referee that speaks TLS only, with a self-signed certificate."""

    def __init__(self, cert: Path, key: Path) -> None:
        self.credentials = server_credentials(str(cert), str(key))
        super().__init__()

    async def _start(self) -> RefereeServer:
        self.hub = Hub(self.tokens)
        server = create_server("127.0.0.1:0", self.hub, credentials=self.credentials)
        await server.start()
        return server


def test_the_relay_reaches_a_referee_over_tls(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    ref = TlsReferee(cert, key)
    try:  # its own token here is a dial-in bot's, which this referee welcomes
        with Relay(f"localhost:{ref.server.port}", token=ref.token, ca_file=str(cert)) as relay:
            client = Client(f"unix:{relay.path}")
            client.hello(ref.token)
            assert client.next().welcome.bot == "alpha"
            with grpc.insecure_channel(f"unix:{relay.path}") as channel:
                health = relayprobe.OTHERS["/grpc.health.v1.Health/Check"]
                answer = relayprobe.call(channel, "/grpc.health.v1.Health/Check", health, b"", "")
                assert refused_here(answer), answer
            client.close()
    finally:
        ref.close()


PLAY_BLOCK = [(":method", "POST"), (":scheme", "http"), (":path", PLAY), ("te", "trailers")]
FRAMES = st.tuples(
    st.integers(0, 10),  # the type (10: one of none)
    st.integers(0, 255),  # the flags
    st.sampled_from([0, 1, 2, 3, 5, 7, 1 << 30]),  # the stream
    st.one_of(
        st.binary(max_size=40),
        st.just(b"PLAY"),  # a Play's header block, encoded when the frame is made
        st.just(b"HELLO"),  # a hello with the gate's token, as a gRPC message
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(FRAMES, max_size=12), st.integers(1, 64))
def test_the_gate_takes_any_frames_and_fails_only_as_malformed(
    frames: list[tuple[int, int, int, bytes]], cut: int
) -> None:
    """Whatever frames the bot sends, in whatever pieces, the gate passes them, refuses
    them or ends the connection (Malformed): nothing else escapes it."""
    gate = gates.Gate("match.own")
    gate.from_referee(h2.frame(h2.SETTINGS, 0, 0))
    encoder = Encoder()
    hello = relayprobe.hello("match.own")
    stream = h2.PREFACE
    for kind, flags, number, payload in frames:
        if payload == b"PLAY":
            payload = encoder.encode(PLAY_BLOCK)
        elif payload == b"HELLO":
            payload = bytes(1) + len(hello).to_bytes(4, "big") + hello
        stream += h2.frame(kind, flags, number, payload)
    try:
        for at in range(0, len(stream), cut):
            gate.from_bot(stream[at : at + cut])
            gate.from_referee(h2.frame(h2.DATA, 0, 1, b"x"))
    except h2.Malformed:
        pass

"""What the hosted bots' relay (arena/hosted/relay.py) costs a decision: a client's Play
and a referee that answers each message at once, each a process of its own, raw HTTP/2
on unix sockets, with the relay between them in this process; round trips per second
and this process's CPU per round trip (all its threads), through the relay and, for
reference, the client straight to the referee. ``--rounds`` of each, alternating.

The referee here is an echo: it answers every DATA frame with one of the same payload on
the same stream, and no gRPC at all, so what is timed is the relay and the sockets.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hpack import Encoder

from arena.hosted import h2frames as h2
from arena.hosted.relay import Relay
from arena.proto.truco.v1 import bot_pb2 as pb
from tests.bench.hosting import spread_table

TOKEN = "match.bench"
MESSAGE = bytes(5) + bytes(40)  # a gRPC message about the size of an action


def read_frame(sock: socket.socket, inbox: bytearray) -> tuple[int, int, bytes]:
    """The next frame's type, stream and payload (inbox keeps what follows)."""
    while len(inbox) < 9 or len(inbox) < 9 + h2.head(bytes(inbox[:9]))[0]:
        data = sock.recv(65536)
        if not data:
            raise EOFError
        inbox += data
    length, kind, _, stream = h2.head(bytes(inbox[:9]))
    payload = bytes(inbox[9 : 9 + length])
    del inbox[: 9 + length]
    return kind, stream, payload


def echo(path: str) -> None:
    """The referee: answers each DATA frame with the same payload."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen()
    print("ready", flush=True)
    while True:
        sock, _ = listener.accept()
        sock.sendall(h2.frame(h2.SETTINGS, 0, 0))
        inbox = bytearray()
        sock.recv(len(h2.PREFACE), socket.MSG_WAITALL)
        try:
            while True:
                kind, stream, payload = read_frame(sock, inbox)
                if kind == h2.DATA:
                    sock.sendall(h2.frame(h2.DATA, 0, stream, payload))
        except (EOFError, OSError):
            sock.close()


def client(path: str, rounds: int) -> None:
    """The bot: its Play's headers and hello, then ``rounds`` messages, each waiting for
    its answer; prints the seconds they took."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    fields = [(":method", "POST"), (":scheme", "http"), (":path", "/truco.v1.Referee/Play"),
              (":authority", "bench"), ("content-type", "application/grpc"),
              ("te", "trailers")]  # fmt: skip
    hello = pb.BotMessage(hello=pb.Hello(token=TOKEN, protocol_version=1)).SerializeToString()
    sock.sendall(
        h2.PREFACE
        + h2.frame(h2.SETTINGS, 0, 0)
        + h2.frame(h2.HEADERS, h2.END_HEADERS, 1, Encoder().encode(fields))
        + h2.frame(h2.DATA, 0, 1, bytes(1) + len(hello).to_bytes(4, "big") + hello)
    )
    inbox = bytearray()
    while read_frame(sock, inbox)[0] != h2.DATA:  # the hello's echo
        pass
    message = h2.frame(h2.DATA, 0, 1, MESSAGE)
    began = time.perf_counter()
    for _ in range(rounds):
        sock.sendall(message)
        while read_frame(sock, inbox)[0] != h2.DATA:
            pass
    print(time.perf_counter() - began, flush=True)


def helper(*args: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "tests.bench.relay", *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


def timed(path: str, trips: int) -> tuple[float, float]:
    """Round trips per second of a client on ``path``, and this process's CPU (us) per
    round trip meanwhile."""
    cpu = time.process_time()
    process = helper("client", path, str(trips))
    assert process.stdout is not None
    seconds = float(process.stdout.readline())
    process.wait()
    return trips / seconds, (time.process_time() - cpu) / trips * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--trips", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        referee = str(Path(folder) / "referee.sock")
        server = helper("echo", referee)
        assert server.stdout is not None
        server.stdout.readline()
        rates: dict[str, list[float]] = {"relayed": [], "direct": []}
        cpus: dict[str, list[float]] = {"relayed": [], "direct": []}
        try:
            for _ in range(args.rounds):
                with Relay(f"unix:{referee}", token=TOKEN) as relay:
                    for kind, path in (("relayed", str(relay.path)), ("direct", referee)):
                        rate, cpu = timed(path, args.trips)
                        rates[kind].append(rate)
                        cpus[kind].append(cpu)
        finally:
            server.kill()
            server.wait()
    print(f"{args.trips} round trips a round, {args.rounds} rounds")
    spread_table(("trips/s", "relay CPU us/trip"), rates, cpus, (".0f", ".1f"))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["echo"]:
        echo(sys.argv[2])
    elif sys.argv[1:2] == ["client"]:
        client(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(main())

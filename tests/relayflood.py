"""The two processes of the relay's flood test (tests/hosted/test_relay.py), each reporting on
stdout as a JSON line and then holding on until its stdin closes:

``python -m tests.relayflood host ADDRESS TOKEN...``: a worker's side, one relay per
token to the referee at ADDRESS; reports its thread count from before the first relay
and the relays' socket paths.

``python -m tests.relayflood flood PATH COUNT``: a sandbox gone wild, opening COUNT
connections to the relay's socket one after the other and holding them; each speaks
HTTP/2's preface and waits for the first thing to come back: the referee's SETTINGS (the
relay carried it) or the end of the connection (the relay closed it). Reports how many
of each it got.
"""

from __future__ import annotations

import json
import resource
import select
import socket
import sys
from pathlib import Path

SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # empty, on stream 0
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + SETTINGS
WAIT_S = 30.0  # an answer comes at once; only a failure waits this out


def threads() -> int:
    status = Path("/proc/self/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads")))


def host(address: str, tokens: list[str]) -> None:
    from arena.hosted.relay import Relay

    before = threads()
    relays = [Relay(address, token=token) for token in tokens]
    print(json.dumps({"threads_before": before, "paths": [str(r.path) for r in relays]}))
    sys.stdout.flush()
    sys.stdin.read()
    for relay in relays:
        relay.close()


def flood(path: str, count: int) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    held: list[socket.socket] = []
    live = refused = 0
    for _ in range(count):
        link = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        link.connect(path)
        held.append(link)
        try:
            link.sendall(PREFACE)
            readable, _, _ = select.select([link], [], [], WAIT_S)
            got = link.recv(64) if readable else b""
        except OSError:  # reset by the relay
            got = b""
        if got:
            live += 1
        else:
            refused += 1
    print(json.dumps({"live": live, "refused": refused}))
    sys.stdout.flush()
    sys.stdin.read()


if __name__ == "__main__":
    if sys.argv[1] == "host":
        host(sys.argv[2], sys.argv[3:])
    else:
        flood(sys.argv[2], int(sys.argv[3]))

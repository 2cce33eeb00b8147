"""Live viewers of one match on one web process (part of ``make bench``).

``python -m tests.bench.live`` starts ``arena web`` on a scratch database (of
``ARENA_DATABASE_URL``'s server, else the machine's, else an embedded one), opens VIEWERS
streams of one match's live page from this process (real sockets, tests/liveclient.py),
and SLOW more that never read, then tells the match's events through the real channel
(the referee's publisher) at RATE a second for SECONDS. It prints:

- viewers connected and served, and how many of the slow ones the server cut;
- the web process's memory per viewer: its resident size with every viewer connected
  against before any, over the viewers;
- the latency of each event from the referee's action (its stamp) to a viewer's read of
  it, p50 and p99 over every event every viewer read, and how many it missed (skipped
  states: none, when the web process keeps up).

The goal (issue 35): one web process serves at least 1,000 viewers of one match with
bounded memory, and a slow viewer is dropped, never buffered for.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.engine import Rules
from arena.service import free_address
from arena.store.migrate import migrate
from arena.store.store import Store
from arena.usecases.matches import request as request_match
from arena.web.server import WRITE_STALL_S
from referee.live import Publisher
from tests.bench.store import server
from tests.liveclient import Events, random_match
from tests.scratch import scratch_database

GOAL_VIEWERS = 1000
ESTABLISHED = 1  # Linux's TCP state numbers (tcp_states.h)
HEAD = re.compile(r'"seq":(\d+),"at":([0-9.e+-]+)')


class Light(Events):
    """A viewer that reads of each event only its number and stamp (the web's frames put
    them first), so that a thousand of them in this one process keep up."""

    @staticmethod
    def decode(text: str) -> dict[str, Any]:  # type: ignore[override]
        found = HEAD.search(text, 0, 200)
        if found is None:
            return {"seq": None, "at": None}
        return {"seq": int(found[1]), "at": float(found[2])}


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def events(match_id: str, count: int) -> list[dict]:
    """Events of random matches told one after another (each hand whole), ``count``."""
    out: list[dict] = []
    seed = 0
    while len(out) < count:
        out += random_match(Rules(), ["alpha", "beta"], seed, match_id)[1]
        seed += 1
    return [{**e, "seq": k + 1} for k, e in enumerate(out[:count])]


async def measure(args: argparse.Namespace, url: str, port: int, pid: int) -> None:
    publisher = Publisher(url)
    told = events("live-1", int(args.rate * args.seconds) + 1)
    first = told[0]
    publisher.publish({**first, "at": time.time()})  # the web process follows the match
    probe = await Events.open(port, "/matches/live-1/live")
    await asyncio.wait_for(probe.next(), 60)
    probe.close()
    before = rss_kib(pid)

    lags: list[float] = []
    missed = [0]
    served = [0]
    ready = [0]
    all_ready = asyncio.Event()

    async def viewer(k: int) -> None:
        source = f"127.{1 + k // 15 // 250}.{k // 15 % 250}.{2 + k % 15}"  # 15 an address
        stream = await Light.open(port, "/matches/live-1/live", source=source)
        try:
            _, data, _ = await stream.next()  # the table as it stands, at once
            last = data["seq"]
            ready[0] += 1
            if ready[0] == args.viewers:
                all_ready.set()
            while last < told[-1]["seq"]:
                kind, data, arrived = await stream.next()
                if kind == "table":
                    lags.append(arrived - data["at"])
                    missed[0] += data["seq"] - last - 1
                    last = data["seq"]
            served[0] += 1
        finally:
            stream.close()

    async def slow(k: int) -> Events:
        """A viewer that never reads."""
        source = f"127.200.{k // 15}.{2 + k % 15}"
        return await Events.open(port, "/matches/live-1/live", source=source, receive_buffer=4096)

    opened = [asyncio.ensure_future(viewer(k)) for k in range(args.viewers)]
    deaf = [await slow(k) for k in range(args.slow)]
    await asyncio.wait_for(all_ready.wait(), 120)
    during = rss_kib(pid)
    start = time.monotonic()
    for k, event in enumerate(told[1:]):
        wait = start + k / args.rate - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)  # the referee's pace: RATE actions a second
        publisher.publish({**event, "at": time.time()})
    await asyncio.wait(opened, timeout=60)

    # a stream the server cut is reset under its reader, which reads nothing (so asyncio
    # has not noticed): the socket's TCP state says so. Wait until the server's stall
    # bound and some more have passed since the last event.
    def gone(stream: Events) -> bool:
        sock = stream.writer.get_extra_info("socket")
        state = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
        return state != ESTABLISHED

    deadline = time.monotonic() + WRITE_STALL_S + 15
    while not all(gone(s) for s in deaf) and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    cut = sum(gone(s) for s in deaf)
    for stream in deaf:
        stream.close()
    publisher.close()
    lags.sort()
    per_viewer = (during - before) / max(1, args.viewers + args.slow)
    print(f"viewers of one match: {args.viewers} (+{args.slow} that never read)")
    print(f"served to the end: {served[0]} of {args.viewers}; slow ones cut: {cut} of {args.slow}")
    print(f"web process memory: {before / 1024:.0f} MiB before, {during / 1024:.0f} MiB with them: "
          f"{per_viewer:.1f} KiB a viewer")  # fmt: skip
    if lags:
        p50, p99 = lags[len(lags) // 2], lags[min(len(lags) - 1, int(0.99 * len(lags)))]
        print(f"event latency, referee's action to a viewer's read: p50 {p50 * 1000:.1f} ms, "
              f"p99 {p99 * 1000:.1f} ms over {len(lags)} reads at {args.rate:g} events/s; "
              f"states skipped: {missed[0]}")  # fmt: skip
        print(f"  (mean {statistics.mean(lags) * 1000:.1f} ms, max {lags[-1] * 1000:.1f} ms)")
    verdict = "met" if served[0] >= GOAL_VIEWERS and cut == args.slow else "MISSED"
    print(f"goal: {GOAL_VIEWERS} viewers served, every slow one dropped: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description="live viewers of one match on one web process")
    parser.add_argument("--viewers", type=int, default=1000)
    parser.add_argument("--slow", type=int, default=50, help="viewers that never read")
    parser.add_argument("--rate", type=float, default=5.0, help="events a second")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long events come")
    args = parser.parse_args()
    with scratch_database(server(), "arena_bench") as url:
        migrate(url)
        store = Store(url, max_size=2)
        bots = [store.register_bot(name)[0].id for name in ("alpha", "beta")]
        request_match(store, "live-1", Rules(), bots, seed=1)
        store.set_status("live-1", "running")
        store.close()
        address = free_address()
        home = tempfile.mkdtemp(prefix="arena-bench-live-")
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {
            "ARENA_HOME": home, "ARENA_DATABASE_URL": url, "ARENA_ADMIN_TOKEN": "bench",
        }  # fmt: skip
        port = int(address.rsplit(":", 1)[1])
        web = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "web", "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            wait_up(port)
            asyncio.run(measure(args, url, port, web.pid))
        finally:
            web.terminate()
            web.wait(timeout=30)


def wait_up(port: int) -> None:
    import urllib.request

    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/live", timeout=5) as r:
                if b'"listening":true' in r.read():
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("arena web did not come up")
        time.sleep(0.1)


if __name__ == "__main__":
    main()

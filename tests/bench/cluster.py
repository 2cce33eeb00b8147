"""Referee nodes: decisions per second on one referee process and on two, with the same
bots, and what a relay adds to a decision (docs/cluster.md).

``python -m tests.bench.cluster`` (part of ``make bench``) starts a scratch database, two
nodes (``arena serve`` as n1 and n2) and six bot processes, the raw-stub clients of
tests/bench/referee.py that answer every request at once with a random legal action:
p0..p3 connected to n1, q2 and q3 to n2. It plays matches the way the workers do, by
RunMatch on the node placement picks, and counts the decisions in their records:

- **one node**: ``--lanes`` matches at once, all on n1, between p0-p1 and p2-p3;
- **two nodes**: as many, half p0-p1 on n1 and half q2-q3 on n2;
- **relay**: one match at a time, p0-p1 on n1 against p0-q2 on n1 (q2's seat carried
  from n2): the time a decision takes, and what the relay adds to it;
- **leases**: what one node's renewal of its bots' leases costs the database, with
  ``--leases`` bots connected to it (1,250: 10,000 bots over 8 nodes).

Each round measures the two sides of a comparison back to back; the figures are the
medians of the rounds, with their spread. The bots and the bench share the machine with
the nodes: on two cores, two nodes cannot have a core each.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from arena.domain.clock import TimeControl
from arena.domain.nodes import Held
from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.service import Organizer, Processes, free_address, wait_serving
from arena.store.migrate import migrate
from arena.store.store import Store
from tests.bench.workers import arena_env, cpu_s, scratch_database

CLOCK = TimeControl(decision_ms=10_000, time_bank_ms=0, reconnect_grace_ms=60_000)
CLIENT = [sys.executable, "-m", "tests.bench.referee", "client"]
BOTS = {"p0": "n1", "p1": "n1", "p2": "n1", "p3": "n1", "q2": "n2", "q3": "n2"}


@dataclass
class Nodes:
    """The two nodes: address and process id by name, and the organizer's token."""

    addresses: dict[str, str]
    pids: dict[str, int]
    admin: str


@dataclass
class Slice:
    """What one measurement saw: decisions, matches, seconds, and the nodes' CPU."""

    decisions: int
    matches: int
    seconds: float
    cpu_s: float

    @property
    def rate(self) -> float:
        return self.decisions / self.seconds

    @property
    def cpu_us(self) -> float:
        """The nodes' CPU per decision (both nodes' together)."""
        return 1e6 * self.cpu_s / self.decisions


@contextlib.contextmanager
def two_nodes(home: Path) -> Iterator[Nodes]:
    """Nodes n1 and n2 and the bots, connected."""
    with scratch_database(home) as database:
        address, admin, env = arena_env(database, home, None)
        nodes = {"n1": address, "n2": free_address()}
        with Processes(env, home / "logs") as processes:
            for name, at in nodes.items():
                processes.start(
                    name, "serve", env={"ARENA_NODE": name, "ARENA_REFEREE_ADDRESS": at}
                )
                wait_serving(at)
            organizer = Organizer(address, admin)
            try:
                for bot, node in BOTS.items():
                    bot_env = {
                        "ARENA_ADDRESS": nodes[node],
                        "ARENA_TOKEN": organizer.bot_token(bot),
                    }
                    processes.start(bot, *CLIENT[1:], env=bot_env, command=CLIENT[:1])
                organizer.wait_connected(BOTS)
                pids = {n: processes.running[n].pid for n in nodes}
                yield Nodes(nodes, pids, admin)
            finally:
                organizer.close()


async def measure(
    nodes: Nodes, stubs: dict[str, Any], games: list[tuple[str, str, str]], seconds: float, tag: str
) -> Slice:
    """A lane per game (node, seat, seat), each playing that pairing's matches back to
    back for ``seconds``, seats exchanged each time, by RunMatch as the workers do."""
    metadata = [("authorization", f"Bearer {nodes.admin}")]
    loop = asyncio.get_running_loop()
    start = loop.time()
    until = start + seconds
    cpu = cpu_s(list(nodes.pids.values()))

    async def lane(k: int, node: str, a: str, b: str) -> tuple[int, int]:
        decisions = game = 0
        while loop.time() < until:
            request = api.RunMatchRequest(
                match_id=f"{tag}-{k}-{game}", rules="paulista", seed=k * 100_000 + game,
                seats=[a, b] if game % 2 == 0 else [b, a], **CLOCK.to_json(),
            )  # fmt: skip
            reply = await stubs[node].RunMatch(request, metadata=metadata)
            record = json.loads(reply.record_json)
            decisions += sum(len(h["actions"]) for h in record["hands"])
            game += 1
        return decisions, game

    counts = await asyncio.gather(*(lane(k, *g) for k, g in enumerate(games)))
    elapsed = loop.time() - start
    used = cpu_s(list(nodes.pids.values())) - cpu
    return Slice(sum(d for d, _ in counts), sum(g for _, g in counts), elapsed, used)


def spread(values: list[float], form: str) -> str:
    """The median, and the range in brackets."""
    middle, low, high = statistics.median(values), min(values), max(values)
    return f"{form.format(middle)} ({form.format(low)}..{form.format(high)})"


async def bench(nodes: Nodes, seconds: float, rounds: int, lanes: int) -> None:
    channels = {n: grpc.aio.insecure_channel(a) for n, a in nodes.addresses.items()}
    stubs = {n: arena_pb2_grpc.ArenaStub(c) for n, c in channels.items()}
    half = lanes // 2
    one_node = [("n1", "p0", "p1")] * half + [("n1", "p2", "p3")] * half
    two = [("n1", "p0", "p1")] * half + [("n2", "q2", "q3")] * half
    await measure(nodes, stubs, one_node + two, seconds, "warm")  # both nodes, every bot
    seen: dict[str, list[Slice]] = {"one": [], "two": [], "same": [], "relay": []}
    for r in range(rounds):
        seen["one"].append(await measure(nodes, stubs, one_node, seconds, f"one{r}"))
        seen["two"].append(await measure(nodes, stubs, two, seconds, f"two{r}"))
        seen["same"].append(await measure(nodes, stubs, [("n1", "p0", "p1")], seconds, f"s{r}"))
        seen["relay"].append(await measure(nodes, stubs, [("n1", "p0", "q2")], seconds, f"r{r}"))
        print(
            "  round {}: one {:.0f}/s, two {:.0f}/s, same node {:.0f} us, relayed {:.0f} us".format(
                r + 1, *(seen[k][-1].rate for k in ("one", "two")),
                *(1e6 / seen[k][-1].rate for k in ("same", "relay")),
            ),
            file=sys.stderr,
        )  # fmt: skip
    one, two = ([s.rate for s in seen[k]] for k in ("one", "two"))
    same, relay = ([1e6 / s.rate for s in seen[k]] for k in ("same", "relay"))
    decisions = sum(s.decisions for s in seen["one"]) / sum(s.matches for s in seen["one"])
    print(f"decisions/s, {lanes} matches at once (median, range of {rounds} rounds)")
    print(f"  one referee process:   {spread(one, '{:.0f}')}")
    print(f"  two referee processes: {spread(two, '{:.0f}')}")
    gain = [t / o for o, t in zip(one, two, strict=True)]
    print(f"  two / one:             {spread(gain, '{:.2f}')}")
    print(f"  nodes' CPU a decision: {spread([s.cpu_us for s in seen['one']], '{:.0f}')} us (one)"
          f", {spread([s.cpu_us for s in seen['two']], '{:.0f}')} us (two)")  # fmt: skip
    print(f"  decisions a match:     {decisions:.1f}")
    print("one match at a time, a decision's time")
    print(f"  same node:             {spread(same, '{:.0f}')} us")
    print(f"  one seat relayed:      {spread(relay, '{:.0f}')} us")
    added = [r - s for s, r in zip(same, relay, strict=True)]
    print(f"  added by the relay:    {spread(added, '{:.0f}')} us")
    cpu = [r.cpu_us - s.cpu_us for s, r in zip(seen["same"], seen["relay"], strict=True)]
    print(f"  nodes' CPU it adds:    {spread(cpu, '{:.0f}')} us a decision (half are relayed)")
    for channel in channels.values():
        await channel.close()


def leases(database: str, bots: int, rounds: int) -> None:
    """What a node's renewal costs the database with ``bots`` connected to it."""
    store = Store(database, max_size=1)
    try:
        held = [Held(f"bot-{k}", 4, k % 3) for k in range(bots)]
        store.renew_node("bench", "here:1", [], 0, 0)
        for h in held:
            store.arrive("bench", h)
        took = []
        for _ in range(rounds):
            began = time.perf_counter()
            lost = store.renew_node("bench", "here:1", held, 0, 0)
            took.append(time.perf_counter() - began)
            assert not lost
        per_row = [1e6 * t / bots for t in took]
        print(f"a node's renewal with {bots} bots connected (median, range of {rounds})")
        print(f"  one transaction:       {spread([1e3 * t for t in took], '{:.1f}')} ms")
        print(f"  per bot's lease:       {spread(per_row, '{:.1f}')} us")
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds")
    parser.add_argument("--lanes", type=int, default=16, help="matches at once")
    parser.add_argument("--leases", type=int, default=1250, help="bots a node renews")
    args = parser.parse_args()
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        with two_nodes(Path(folder)) as nodes:
            asyncio.run(bench(nodes, args.seconds, args.rounds, args.lanes))
        with scratch_database(Path(folder)) as database:
            migrate(database)
            leases(database, args.leases, args.rounds)
    print(f"({time.monotonic() - began:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()

"""How long a hosted bot takes to play: from a match's start (the worker taking it up) to
the referee receiving the hosted bot's first action, for a process started cold and for
one from the warm pool, in alternating rounds (``--rounds``, 30 of each); then the same
bot's code three ways, side by side: hosted and forked from the zygote, hosted in an
interpreter of its own (as before the zygote), and dialing in; matches per second and
the machine's CPU per match, 1 and 8 matches at once, the three in turn in each round
(``--throughput-rounds``). Part of ``make bench``; the goals: a warm p50 under 50 ms,
and hosted against dial-in at least 0.7 of the matches per second and at most 2x the
CPU per match (issue 33). Needs a sandbox (docs/sandbox.md); says so and exits 0 where
none can be made.

Everything is real but the worker's task: an in-process referee with the Arena API on a
scratch database, the opponent a house random bot in a process of its own, the hosted bot
``examples/random_bot.py`` (willing to play 16 matches at once, as the opponent is) in
its sandbox through the relay (arena.hosted.host.Host).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from arena.cli.hosting import packed
from arena.domain.identity import is_version
from arena.domain.versions import Manifest
from arena.engine import Rules
from arena.hosted.archive import check
from arena.hosted.host import Host
from arena.hosted.sandbox import unavailable
from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.settings import Settings
from arena.store.migrate import migrate
from arena.store.store import Store, StoreTokens
from arena.usecases.matches import request as request_match
from arena.usecases.versions import judge, submit
from referee.api import ArenaApi
from referee.hub import Hub
from referee.server import create_server
from referee.sessions import MemoryTokens, Session
from tests.bench.store import server
from tests.scratch import scratch_database

GOAL_MS = 50.0
EXAMPLE = Path(__file__).parents[2] / "examples" / "random_bot.py"
ADMIN = "bench-organizer"


class TimedHub(Hub):
    """A hub that notes when each hosted bot's first action of a match arrives."""

    def __init__(self, tokens: Any) -> None:
        super().__init__(tokens)
        self.first: dict[str, float] = {}  # match -> perf_counter of the action
        self.arrived = threading.Event()

    def route(self, session: Session, reply: Any) -> None:
        if is_version(session.bot) and reply.match_id not in self.first:
            self.first[reply.match_id] = time.perf_counter()
            self.arrived.set()
        super().route(session, reply)


def serve(store: Store) -> tuple[Any, TimedHub, asyncio.AbstractEventLoop]:
    """A referee with the Arena API on a loop of its own (kept: dropped, it would stop),
    its hub and the loop."""
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    async def start() -> tuple[Any, TimedHub]:
        hub = TimedHub(MemoryTokens(fallback=StoreTokens(store)))
        referee = create_server("127.0.0.1:0", hub, ArenaApi(store, ADMIN))
        await referee.start()
        return referee, hub

    referee, hub = asyncio.run_coroutine_threadsafe(start(), loop).result(30)
    return referee, hub, loop


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--throughput-rounds", type=int, default=5)
    args = parser.parse_args()
    reason = unavailable()
    if reason is not None:
        print(f"hosting bench: skipped, no sandbox can be made here: {reason}")
        return 0
    with scratch_database(server(), "arena_bench") as url:
        migrate(url)
        store = Store(url)
        referee, hub, loop = serve(store)
        try:
            return measure(store, referee, hub, args.rounds, args.throughput_rounds)
        finally:  # the referee first: its node's leases are written until it stops
            asyncio.run_coroutine_threadsafe(referee.stop(0), loop).result(30)
            store.close()


def measure(store: Store, referee: Any, hub: TimedHub, rounds: int, throughput_rounds: int) -> int:
    address = referee.address
    store.register_bot("mine")
    _, token = store.register_bot("opponent")
    bot = the_bot()
    data, manifest = packed(bot), Manifest("python", bot.name)
    version, _ = submit(store, "mine", manifest, data, check(data, manifest))
    judge(store, version.id)
    seats = ["mine@1", "opponent"]
    ids = [version.id, store.bot("opponent").id]  # type: ignore[union-attr]
    opponent = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "bot", "run", "house:random", "--address", address,
         "--token", token, "--concurrency", "16"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    home = Path(tempfile.mkdtemp(prefix="arena-bench-home-"))
    settings = Settings.from_env({"ARENA_HOME": str(home), "ARENA_REFEREE_ADDRESS": address})
    cold_host = Host(store, settings, pool=0)
    warm_host = Host(store, settings, pool=2)
    stub = arena_pb2_grpc.ArenaStub(settings.channel(address))
    samples: dict[str, list[float]] = {"cold": [], "warm": []}
    try:
        deadline = time.monotonic() + 60
        while "opponent" not in hub.sessions:
            assert time.monotonic() < deadline, "the opponent did not connect"
            time.sleep(0.05)  # polling the hub: the bench has no other way to know
        for k in range(rounds * 2 + 1):
            kind = "warm" if k % 2 else "cold"
            host = warm_host if kind == "warm" or k == 0 else cold_host  # 0 starts the pool
            if kind == "warm":
                assert warm_host.wait_ready("mine@1", 1, 60), "no warm process came up"
            match_id = f"bench-{k}"
            request_match(store, match_id, Rules(), ids, rated=False)
            began = time.perf_counter()
            with host.seated(match_id, seats) as keys:
                request = api.RunMatchRequest(
                    match_id=match_id, seats=seats, seed=k, hosted_keys=keys
                )
                stub.RunMatch(request, metadata=[("authorization", f"Bearer {ADMIN}")])
            if k > 0:  # the first warms the machine's caches
                samples[kind].append((hub.first[match_id] - began) * 1000)
        report(samples)
        throughput(store, address, settings, stub, rounds=throughput_rounds, matches=16)
    finally:
        warm_host.close()
        opponent.kill()
        opponent.wait()
    return 0


def report(samples: dict[str, list[float]]) -> None:
    print("from a match's start to the hosted bot's first action (ms)")
    print(f"{'':6}{'p50':>8}{'p99':>8}{'max':>8}  rounds")
    for kind, values in samples.items():
        values.sort()
        p99 = values[min(len(values) - 1, int(0.99 * len(values)))]
        print(f"{kind:6}{statistics.median(values):8.1f}{p99:8.1f}{values[-1]:8.1f}  {len(values)}")
    warm = statistics.median(samples["warm"])
    verdict = "met" if warm < GOAL_MS else "MISSED"
    print(f"warm p50 {warm:.1f} ms: {verdict} (goal < {GOAL_MS:.0f} ms)")


def the_bot() -> Path:
    """The example, willing to play 16 matches at once (as the opponent is): at 8 at once
    the dial-in process must not wait for a free seat where a hosted one never does."""
    folder = Path(tempfile.gettempdir()) / f"arena-bench-bot-{os.getpid()}"
    folder.mkdir(exist_ok=True)
    folder.chmod(0o755)
    bot = folder / EXAMPLE.name
    bot.write_text(EXAMPLE.read_text().replace("concurrency = 4 ", "concurrency = 16 "))
    assert "concurrency = 16 " in bot.read_text()
    bot.chmod(0o644)
    return bot


def machine_cpu_s() -> float:
    """The whole machine's busy CPU time so far (every core, /proc/stat): a hosted bot's
    processes are spread over sandboxes, bwrap and pid namespaces, where no one
    process's usage holds them all; the referee, the opponent and PostgreSQL cost the
    same in both kinds, so the difference between the kinds is the bot's."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


KINDS = ("forked", "own interpreter", "dial-in")  # hosted from the zygote, hosted, dialing in


def throughput(
    store: Store, address: str, settings: Settings, stub: Any, rounds: int, matches: int
) -> None:
    """The same bot's code hosted (forked from the zygote, and in an interpreter of its
    own, as before the zygote) and dialing in, each against the house random bot,
    ``matches`` matches a round, 1 and 8 at once, the kinds alternating in each round:
    matches per second and the machine's CPU per match (:func:`machine_cpu_s`)."""
    _, token = store.register_bot("mine-dial")
    dial = subprocess.Popen(
        [sys.executable, str(the_bot())], env=os.environ | {"ARENA_ADDRESS": address,
                                                          "ARENA_TOKEN": token},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    ids = {b.name: b.id for b in store.bots()}
    ids["mine@1"] = store.version("mine@1").id
    hosts = {
        "forked": Host(store, settings, zygote=True),
        "own interpreter": Host(store, settings, zygote=False),
    }
    try:
        deadline = time.monotonic() + 60
        while not any(b.name == "mine-dial" and b.connected for b in stub.ListBots(
            api.ListBotsRequest()).bots):  # fmt: skip
            assert time.monotonic() < deadline, "the dial-in bot did not connect"
            time.sleep(0.05)  # polling the API: the bench has no other way to know
        for at_once in (1, 8):
            rates: dict[str, list[float]] = {k: [] for k in KINDS}
            cpus: dict[str, list[float]] = {k: [] for k in KINDS}
            for r in range(rounds):
                for kind in KINDS:
                    mine = "mine-dial" if kind == "dial-in" else "mine@1"
                    host = hosts.get(kind, hosts["forked"])
                    seats = [mine, "opponent"]

                    names = [f"through-{at_once}-{kind.split()[0]}-{r}-{m}" for m in range(matches)]
                    before = machine_cpu_s()
                    one = functools.partial(play, store, stub, host, ids, seats)
                    began = time.perf_counter()
                    with ThreadPoolExecutor(at_once) as pool:
                        list(pool.map(one, names))
                    rates[kind].append(matches / (time.perf_counter() - began))
                    cpus[kind].append((machine_cpu_s() - before) / matches * 1000)
            print(f"\nthe same bot three ways, {at_once} at once, {matches} matches a round, "
                  f"{rounds} rounds")  # fmt: skip
            spread_table(("matches/s", "machine CPU ms/match"), rates, cpus, (".2f", ".1f"))
            for kind in ("forked", "own interpreter"):
                rate = [h / d for h, d in zip(rates[kind], rates["dial-in"], strict=True)]
                cpu = [h / d for h, d in zip(cpus[kind], cpus["dial-in"], strict=True)]
                print(f"{kind}: hosted / dial-in matches/s {verdict(rate, RATE_GOAL, True)}; "
                      f"CPU per match {verdict(cpu, CPU_GOAL, False)}")  # fmt: skip
    finally:
        for host in hosts.values():
            host.close()
        dial.kill()
        dial.wait()


def play(store: Store, stub: Any, host: Host, ids: dict[str, int], seats: list[str],
         match_id: str) -> None:  # fmt: skip
    """One match, recorded as the workers record it, its hosted seats from ``host``."""
    request_match(store, match_id, Rules(), [ids[s] for s in seats], rated=False)
    with host.seated(match_id, seats) as keys:
        request = api.RunMatchRequest(match_id=match_id, seats=seats, seed=0, hosted_keys=keys)
        stub.RunMatch(request, metadata=[("authorization", f"Bearer {ADMIN}")])


RATE_GOAL, CPU_GOAL = 0.7, 2.0  # hosted / dial-in: matches/s at least, CPU at most


def verdict(ratios: list[float], goal: float, at_least: bool) -> str:
    """The median ratio of the rounds, their spread, and whether it meets ``goal``."""
    median = statistics.median(ratios)
    met = median >= goal if at_least else median <= goal
    bound = ">=" if at_least else "<="
    return (
        f"{median:.2f} ({spread(ratios, '.2f')}), goal {bound} {goal:g}: "
        f"{'met' if met else 'MISSED'}"
    )


def spread(values: list[float], form: str) -> str:
    return f"{min(values):{form}}..{max(values):{form}}"


def spread_table(
    columns: tuple[str, str],
    rates: dict[str, list[float]],
    cpus: dict[str, list[float]],
    forms: tuple[str, str],
) -> None:
    """Per kind, the median of each measure over the rounds and its spread (min..max)."""
    print(f"{'':16}{columns[0]:>10}{'(spread)':>16}{columns[1]:>22}{'(spread)':>16}")
    for kind in rates:
        rate, cpu = rates[kind], cpus[kind]
        print(
            f"{kind:16}{statistics.median(rate):10{forms[0]}}{spread(rate, forms[0]):>16}"
            f"{statistics.median(cpu):22{forms[1]}}{spread(cpu, forms[1]):>16}"
        )


if __name__ == "__main__":
    sys.exit(main())

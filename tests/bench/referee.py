"""Referee throughput next to a bare gRPC ping-pong, measured in the same run.

``python -m tests.bench.referee`` (part of ``make bench``) runs, at 1 and at 16 concurrent
matches (or lanes):

- **ping-pong**: a bare ``grpc.aio`` server that sends a real decision request (a view
  from the middle of a match, as large as a typical one) down each lane and waits for
  the reply before sending the next;
- **referee**: the real referee playing paulista matches, every decision a request;
- **referee + SDK bots**: the same, with the house ``random`` bot run through the SDK.

In the first two the clients are the same two processes (``python -m tests.bench.referee
client``): raw stubs, a random legal action per request, so the difference between the
two rates is the referee's own cost. The two are measured in pairs of short slices, one
right after the other, several rounds; the ratio is the median of the rounds' ratios,
printed with their spread (lowest to highest). The goals (issue 19): a referee rate at
least 85% of the ping-pong rate at 16 matches, 70% at 1.

Last, the live feed's cost (docs/web.md, "Live"): the referee at 16 matches with every
action told to a real PostgreSQL's channel, next to the same without, in paired rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import sys
from collections.abc import Callable
from typing import Any

import grpc

from arena.bots import house_bot
from arena.domain.clock import TimeControl
from arena.engine import ActionType, Match, Rules, view
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.proto.truco.v1 import bot_pb2_grpc
from arena.wire import view_to_pb
from referee.local import BotProcess, launch, local_arena, stop
from referee.runner import MatchRunner

GOALS = {1: 0.70, 16: 0.85}  # referee / ping-pong, by concurrent matches
CLOCK = TimeControl(decision_ms=10_000, time_bank_ms=0, reconnect_grace_ms=60_000)


# ---- the client both measurements share -------------------------------------------------


def client() -> None:
    """A bot on raw stubs: a random legal action for each request, at once."""
    rng = random.Random(os.getpid())

    async def main() -> None:
        outbox: asyncio.Queue[pb.BotMessage | None] = asyncio.Queue()
        hello = pb.Hello(token=os.environ["ARENA_TOKEN"], protocol_version=1, concurrency=64)
        await outbox.put(pb.BotMessage(hello=hello))

        async def outgoing() -> Any:
            while (message := await outbox.get()) is not None:
                yield message

        async with grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
            stream = bot_pb2_grpc.RefereeStub(channel).Play(outgoing())
            async for message in stream:
                if message.WhichOneof("kind") == "decision":
                    request = message.decision
                    action = rng.choice(request.view.legal)
                    reply = pb.ActionReply(
                        match_id=request.match_id, request_id=request.request_id, action=action
                    )
                    outbox.put_nowait(pb.BotMessage(action=reply))

    with contextlib.suppress(grpc.RpcError, KeyboardInterrupt):
        asyncio.run(main())


# ---- bare ping-pong ---------------------------------------------------------------------


class PingPong(bot_pb2_grpc.RefereeServicer):
    """Sends a fixed decision request down each lane and counts the replies."""

    def __init__(self, template: pb.DecisionRequest) -> None:
        self.template = template
        self.clients: list[asyncio.Queue[pb.RefereeMessage]] = []
        self.waiting: dict[str, asyncio.Future[None]] = {}
        self.joined = asyncio.Event()

    async def Play(self, request_iterator: Any, context: Any) -> None:
        await context.read()  # the hello
        outbox: asyncio.Queue[pb.RefereeMessage] = asyncio.Queue()
        self.clients.append(outbox)
        if len(self.clients) == 2:
            self.joined.set()

        async def read() -> None:
            while (message := await context.read()) is not grpc.aio.EOF:
                future = self.waiting.pop(message.action.match_id, None)
                if future is not None and not future.done():
                    future.set_result(None)

        reader = asyncio.create_task(read())
        try:
            while True:
                await context.write(await outbox.get())
        finally:
            reader.cancel()

    async def lane(self, name: str, until: float) -> int:
        loop = asyncio.get_running_loop()
        count = 0
        while loop.time() < until:
            request = pb.DecisionRequest()
            request.CopyFrom(self.template)
            request.match_id, request.request_id = name, count
            future = loop.create_future()
            self.waiting[name] = future
            self.clients[count % 2].put_nowait(pb.RefereeMessage(decision=request))
            await future
            count += 1
        return count


def template_request() -> pb.DecisionRequest:
    """A typical request: a view in the third hand of a seeded match, past a finished hand
    and with a round played, so both measurements carry the same kind of payload."""
    match = Match(Rules(), ["a", "b"], seed=7)
    choose = random.Random(7)
    while len(match.hands) < 3 or not match.hands[-1].rounds:
        legal = match.legal_actions()
        plays = [a for a in legal if a.type is ActionType.PLAY and not a.covered]
        match.apply(choose.choice(plays or legal))
    seat = match.to_act
    assert seat is not None
    return pb.DecisionRequest(match_id="m", request_id=1, view=view_to_pb(view(match, seat)))


async def ping_pong_rate(lanes: int, seconds: float) -> float:
    servicer = PingPong(template_request())
    server = grpc.aio.server()
    bot_pb2_grpc.add_RefereeServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    bots = [BotProcess(f"c{i}", "bench client", _client_argv()) for i in range(2)]
    try:
        await launch(bots, f"127.0.0.1:{port}")
        await asyncio.wait_for(servicer.joined.wait(), 30)
        loop = asyncio.get_running_loop()
        start = loop.time()
        counts = await asyncio.gather(
            *(servicer.lane(f"lane{k}", start + seconds) for k in range(lanes))
        )
        return sum(counts) / (loop.time() - start)
    finally:
        await stop(bots, own_exit_s=0)
        await server.stop(0)


# ---- the referee ------------------------------------------------------------------------


Live = Callable[[dict[str, Any]], None]


async def referee_rate(
    lanes: int, seconds: float, argv: list[str], live: Live | None = None
) -> float:
    bots = [BotProcess(f"b{i}", "bench bot", argv) for i in range(2)]
    async with local_arena(bots, own_exit_s=0) as hub:
        a, b = (bot.name for bot in bots)  # as their Hellos named them (the SDK's do)
        loop = asyncio.get_running_loop()
        start = loop.time()
        until = start + seconds

        async def lane(k: int) -> int:
            decisions = 0
            game = 0
            while loop.time() < until:
                seats = [a, b] if game % 2 == 0 else [b, a]
                runner = MatchRunner(
                    hub,
                    f"bench-{k}-{game}",
                    Rules(),
                    seats,
                    seed=k * 1000 + game,
                    clock=CLOCK,
                    stand_in=lambda: house_bot("random"),
                    live=live,
                )
                await runner.run()
                decisions += runner.decisions
                game += 1
            return decisions

        counts = await asyncio.gather(*(lane(k) for k in range(lanes)))
        return sum(counts) / (loop.time() - start)


def _client_argv() -> list[str]:
    return [sys.executable, "-m", "tests.bench.referee", "client"]


def _sdk_argv() -> list[str]:
    return [sys.executable, "-m", "arena.cli", "bot", "run", "house:random", "--concurrency", "64"]


def main() -> None:
    parser = argparse.ArgumentParser(description="referee throughput against ping-pong")
    parser.add_argument("mode", nargs="?", default="bench", choices=["bench", "client"])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per slice")
    parser.add_argument("--rounds", type=int, default=5, help="paired slices per concurrency")
    parser.add_argument("--live-only", action="store_true", help="only the live feed's cost")
    args = parser.parse_args()
    if args.mode == "client":
        client()
        return
    if args.live_only:
        live_feed(args)
        return
    # On a shared machine the load drifts from second to second: each round measures the
    # ping-pong and then the referee back to back, and the ratio is the median of the
    # rounds' ratios, so both sides of each ratio saw the same machine.
    print(f"{'decisions/s':<22} {'1 match':>10} {'16 matches':>11}   (medians of {args.rounds})")
    rates: dict[str, list[float]] = {"ping-pong": [], "referee": []}
    ratios: list[list[float]] = []
    for c in (1, 16):
        pairs = []
        for _ in range(args.rounds):
            bare = asyncio.run(ping_pong_rate(c, args.seconds))
            ours = asyncio.run(referee_rate(c, args.seconds, _client_argv()))
            pairs.append((bare, ours))
        rates["ping-pong"].append(statistics.median(b for b, _ in pairs))
        rates["referee"].append(statistics.median(r for _, r in pairs))
        ratios.append([r / b for b, r in pairs])
        spread = ", ".join(f"{r / b:.0%}" for b, r in pairs)
        print(f"  rounds at {c:>2}: {spread}", file=sys.stderr)
    sdk = [asyncio.run(referee_rate(c, args.seconds, _sdk_argv())) for c in (1, 16)]
    for label, row in (*rates.items(), ("referee + SDK bots", sdk)):
        print(f"{label:<22} {row[0]:10.0f} {row[1]:11.0f}")
    for c, row in zip((1, 16), ratios, strict=True):
        ratio = statistics.median(row)
        verdict = "met" if ratio >= GOALS[c] else "MISSED"
        print(
            f"referee / ping-pong at {c:>2}: {ratio:.0%}, spread {min(row):.0%}-{max(row):.0%} "
            f"over {len(row)} rounds (goal {GOALS[c]:.0%}: {verdict})"
        )
    live_feed(args)


def live_feed(args: argparse.Namespace) -> None:
    """The live feed's cost to the referee: its rate with every action told to the channel
    (a real PostgreSQL's, which nobody listens to here) next to its rate without, paired."""
    from referee.live import Publisher
    from tests.bench.store import server

    publisher = Publisher(server())
    pairs = []
    for _ in range(args.rounds):
        plain = asyncio.run(referee_rate(16, args.seconds, _client_argv()))
        told = asyncio.run(referee_rate(16, args.seconds, _client_argv(), publisher.publish))
        pairs.append((plain, told))
    publisher.close()
    row = [t / p for p, t in pairs]
    print(
        f"referee with the live feed / without, at 16: {statistics.median(row):.0%}, spread "
        f"{min(row):.0%}-{max(row):.0%} over {len(row)} rounds ({publisher.sent} events sent, "
        f"{publisher.dropped} dropped)"
    )


if __name__ == "__main__":
    main()

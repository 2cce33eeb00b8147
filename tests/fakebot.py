"""A bot written on the raw generated stubs (no SDK), with a chosen misbehaviour.

Run as ``python tests/fakebot.py KIND [--dump FILE] [--after N]`` with ARENA_ADDRESS and
ARENA_TOKEN set. It answers every request with its first legal action, after doing what
KIND says:

- ``plain``: nothing else.
- ``sleepy``: never answers (every decision times out).
- ``illegal``: first sends an action the rules refuse (accept with nothing pending, or a
  card it does not hold), then the legal one.
- ``garbage``: first sends an unreadable action (card "ZZ"), then the legal one.
- ``stray``: first sends actions for another match, a stale request id and a future one.
- ``flood``: first sends 300 actions for a match that does not exist.
- ``slow``: waits ``--delay-ms`` before each answer.
- ``crash``: exits abruptly after N decisions.
- ``flaky``: after N decisions drops the stream, then reconnects and plays on.
- ``cover``: plays a card face down whenever the rules allow one (else its first legal
  action), so that its matches hold covered cards.
- ``company``: answers nothing until it is seated in two matches at once, then answers
  what it held and plays on (so its first match is still on when a second one starts,
  however quick the bots, unless the referee never plays two of its matches at once).

``--matches N`` makes it exit after N matches have ended; ``--concurrency N`` asks for N
matches at once; ``--name TEXT`` is the name its Hello gives (default ``fake-KIND``).

``--dump FILE`` writes every message received, one JSON object a line.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import time
from pathlib import Path

import grpc
from google.protobuf import json_format

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.proto.truco.v1 import bot_pb2 as pb
from arena.proto.truco.v1 import bot_pb2_grpc


def reply(match_id: str, request_id: int, action: pb.Action) -> pb.BotMessage:
    return pb.BotMessage(
        action=pb.ActionReply(match_id=match_id, request_id=request_id, action=action)
    )


def misbehave(kind: str, request: pb.DecisionRequest) -> list[pb.BotMessage]:
    mid, rid = request.match_id, request.request_id
    if kind == "illegal":
        held = set(request.view.cards)
        if request.view.pending == 0 and request.view.phase != pb.PHASE_DECIDE:
            bad = pb.Action(type=pb.ACTION_TYPE_ACCEPT)
        else:
            absent = next(c for c in ("3C", "3H", "3S", "3D", "2C") if c not in held)
            bad = pb.Action(type=pb.ACTION_TYPE_PLAY, card=absent)
        return [reply(mid, rid, bad)]
    if kind == "garbage":
        return [reply(mid, rid, pb.Action(type=pb.ACTION_TYPE_PLAY, card="ZZ"))]
    if kind == "stray":
        legal = request.view.legal[0]
        return [
            reply("no-such-match", rid, legal),
            reply(mid, rid - 1, legal),
            reply(mid, rid + 7, legal),
        ]
    if kind == "flood":
        return [reply("flood", i, request.view.legal[0]) for i in range(300)]
    return []


def session(
    kind: str,
    dump: object,
    after: int,
    decisions: list[int],
    ended: list[int],
    matches: int,
    delay_ms: int,
    concurrency: int = 1,
    name: str | None = None,
) -> str:
    """One stream; returns why it ended."""
    outbox: queue.SimpleQueue[pb.BotMessage | None] = queue.SimpleQueue()
    token = os.environ["ARENA_TOKEN"]
    hello = pb.Hello(
        token=token, protocol_version=1, name=f"fake-{kind}" if name is None else name,
        hand_results=True, concurrency=concurrency,
    )  # fmt: skip
    outbox.put(pb.BotMessage(hello=hello))

    def outgoing():  # type: ignore[no-untyped-def]
        while (m := outbox.get()) is not None:
            yield m

    live: set[str] = set()  # the matches it is seated in now
    holding = kind == "company"
    held: list[pb.DecisionRequest] = []  # requests not answered while holding
    with grpc.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        stream = bot_pb2_grpc.RefereeStub(channel).Play(outgoing())
        for message in stream:
            if dump is not None:
                dump.write(json_format.MessageToJson(message, indent=None) + "\n")  # type: ignore[attr-defined]
                dump.flush()  # type: ignore[attr-defined]
            if message.WhichOneof("kind") == "match_started":
                live.add(message.match_started.match_id)
            if message.WhichOneof("kind") == "match_ended":
                live.discard(message.match_ended.match_id)
                ended[0] += 1
                if ended[0] == matches:
                    os._exit(0)
            if holding and len(live) > 1:
                holding = False
                for request in held:
                    outbox.put(reply(request.match_id, request.request_id, request.view.legal[0]))
            if message.WhichOneof("kind") != "decision":
                continue
            request = message.decision
            if holding:
                held.append(request)
                continue
            decisions[0] += 1
            if kind == "crash" and decisions[0] > after:
                os._exit(3)
            if kind == "flaky" and decisions[0] == after + 1:
                outbox.put(None)
                stream.cancel()
                return "dropped"
            if kind == "sleepy":
                continue
            if kind == "slow":
                time.sleep(delay_ms / 1000)
            for bad in misbehave(kind, request):
                outbox.put(bad)
            outbox.put(reply(request.match_id, request.request_id, choose(kind, request)))
    return "ended"


def choose(kind: str, request: pb.DecisionRequest) -> pb.Action:
    """Its first legal action; for ``cover``, the first covered play when there is one."""
    legal = request.view.legal
    if kind == "cover":
        return next((a for a in legal if a.covered), legal[0])
    return legal[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind")
    parser.add_argument("--dump")
    parser.add_argument("--after", type=int, default=5)
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--matches", type=int, default=0, help="exit after this many matches")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--name")
    args = parser.parse_args()
    dump = open(args.dump, "w") if args.dump else None  # noqa: SIM115 - lives as long as the bot
    decisions, ended = [0], [0]
    while True:
        try:
            why = session(
                args.kind, dump, args.after, decisions, ended, args.matches, args.delay_ms,
                args.concurrency, args.name,
            )  # fmt: skip
            if why == "dropped":
                time.sleep(0.2)  # come back within the referee's grace
                continue
        except grpc.RpcError as e:
            print(f"stream ended: {e.code()} {e.details()}", file=sys.stderr)
            if e.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.ABORTED):
                sys.exit(1)
        time.sleep(0.1)


if __name__ == "__main__":
    main()

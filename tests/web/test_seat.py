"""A person's seat as the web holds it (arena/web/seat.py), against a referee scripted on
real gRPC over loopback: it says hello with its match token, offers exactly the legal
actions of the view it was sent, sends one reply a decision, refuses what is not legal
or no longer open (its time ran out), bounds the pages waiting on it, and reconnects
after a broken stream. The whole path with the real referee is tests/web/test_play.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from arena.domain.humans import Person
from arena.engine import Match, Rules, view
from arena.errors import Exhausted, Invalid, NotReady
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.proto.truco.v1 import bot_pb2_grpc
from arena.web.seat import WAITERS, Seat
from arena.wire import view_to_pb

TOKEN = "match.test-token"
WAIT_S = 10.0  # for an event that comes at once; only a failure waits it out


class Scripted(bot_pb2_grpc.RefereeServicer):
    """A referee that starts one match and asks seat 0 one decision per stream, with the
    deadline given; the replies it gets go to ``replies``; ``break_first`` aborts the
    first stream after its request."""

    def __init__(self, deadline_ms: int, break_first: bool = False) -> None:
        self.deadline_ms, self.break_first = deadline_ms, break_first
        self.hellos: list[pb.Hello] = []
        self.replies: asyncio.Queue[pb.ActionReply] = asyncio.Queue()
        self.match = Match(Rules(), seed=3)

    async def Play(self, requests: AsyncIterator[pb.BotMessage], context: Any) -> Any:
        first = await anext(aiter(requests))
        self.hellos.append(first.hello)
        seen = view(self.match, self.match.to_act)
        yield pb.RefereeMessage(
            match_started=pb.MatchStarted(
                match_id="h-1", seats=[seen.seat], seat_names=["human", "bot"]
            )
        )
        asked = pb.DecisionRequest(
            match_id="h-1", request_id=len(self.hellos), view=view_to_pb(seen),
            deadline_ms=self.deadline_ms,
        )  # fmt: skip
        yield pb.RefereeMessage(decision=asked)
        if self.break_first and len(self.hellos) == 1:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the referee went away")
        async for message in requests:
            await self.replies.put(message.action)
            yield pb.RefereeMessage(
                match_ended=pb.MatchEnded(match_id="h-1", winner=0, score=[12, 3])
            )
            return


async def seated(referee: Scripted) -> tuple[Seat, grpc.aio.Server, asyncio.Task[None]]:
    server = grpc.aio.server()
    bot_pb2_grpc.add_RefereeServicer_to_server(referee, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")

    async def status() -> str:
        return "running"

    seat = Seat("h-1", Person(bot="alpha"), 0, "bot", TOKEN, lambda: channel, status)
    return seat, server, asyncio.create_task(seat.hold())


async def asked(seat: Seat) -> dict[str, Any]:
    """The state once the seat is asked to decide (waiting on its versions)."""
    state = seat.state()
    async with asyncio.timeout(WAIT_S):
        while not state["your_turn"]:
            state = await seat.next_state(state["version"])
    return state


def test_the_seat_offers_the_views_legal_actions_and_sends_one_reply() -> None:
    async def main() -> None:
        referee = Scripted(deadline_ms=60_000)
        seat, server, held = await seated(referee)
        state = await asked(seat)
        assert referee.hellos[0].token == TOKEN and referee.hellos[0].hand_results
        legal = [str(a) for a in view(referee.match, referee.match.to_act).legal]
        assert state["legal"] == legal and state["seats"] == ["human", "bot"]
        held_cards = {a.removeprefix("play ") for a in legal if a.startswith("play ")}
        other = next(c for c in ("4C", "5C", "6C", "7C", "QC") if c not in held_cards)
        with pytest.raises(Invalid, match="is not a legal action now"):
            await seat.act(state["request_id"], f"play {other}")
        with pytest.raises(NotReady, match="no longer open"):
            await seat.act(state["request_id"] + 1, legal[0])
        assert seat.state()["version"] == state["version"]  # nothing changed
        assert referee.replies.empty()
        await seat.act(state["request_id"], legal[-1])
        with pytest.raises(NotReady):  # one reply a decision
            await seat.act(state["request_id"], legal[0])
        async with asyncio.timeout(WAIT_S):
            reply = await referee.replies.get()
            await held
        assert (reply.request_id, reply.match_id) == (state["request_id"], "h-1")
        assert seat.over and seat.state()["result"]["score"] == [12, 3]
        assert seat.note == "you won"
        await server.stop(None)

    asyncio.run(main())


def test_a_decision_whose_time_ran_out_is_not_offered_and_waiters_are_bounded() -> None:
    async def main() -> None:
        referee = Scripted(deadline_ms=0)  # no time at all: the referee decides at once
        seat, server, held = await seated(referee)
        state = seat.state()
        async with asyncio.timeout(WAIT_S):
            while seat.asked is None:
                state = await seat.next_state(state["version"])
        request_id = seat.asked.request_id
        assert seat.state()["legal"] == [] and not seat.state()["your_turn"]
        with pytest.raises(NotReady, match="no longer open"):
            await seat.act(request_id, str(seat.asked.view.legal[0]))
        version = seat.version
        waiting = [asyncio.create_task(seat.next_state(version, WAIT_S)) for _ in range(WAITERS)]
        async with asyncio.timeout(WAIT_S):
            while seat.waiters < WAITERS:
                await asyncio.sleep(0)  # each waiter registers in its first turn
        with pytest.raises(Exhausted, match=f"{WAITERS} pages already wait"):
            await seat.next_state(version, WAIT_S)
        held.cancel()
        await seat._update(note="woken")
        woken = await asyncio.gather(*waiting)
        assert [w["note"] for w in woken] == ["woken"] * WAITERS
        await server.stop(None)

    asyncio.run(main())


def test_the_seat_reconnects_after_a_broken_stream() -> None:
    async def main() -> None:
        referee = Scripted(deadline_ms=60_000, break_first=True)
        seat, server, held = await seated(referee)
        state = await asked(seat)
        async with asyncio.timeout(WAIT_S):
            while len(referee.hellos) < 2 or seat.state()["request_id"] != 2:
                state = await seat.next_state(state["version"])
        assert seat.state()["your_turn"]
        await seat.act(2, seat.state()["legal"][0])
        async with asyncio.timeout(WAIT_S):
            await held
        assert seat.over and [h.token for h in referee.hellos] == [TOKEN, TOKEN]
        await server.stop(None)

    asyncio.run(main())

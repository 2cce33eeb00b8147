"""A person's seat in a match, held by the web over the bot protocol (proto/truco/v1/
bot.proto): the web dials the referee's Play stream with the match token of that one
seat, as a hosted bot's process does, and the person's browser reads what the referee
sent the seat and posts its answers (docs/web.md, "Playing a bot yourself").

A :class:`Seat` keeps the latest of everything the referee sent its seat (the view of the
decision asked, a refusal, the last hand, the end) as one state with a version number; a
page asks for the state after the version it has and waits, bounded, for the next. It
offers exactly the view's legal actions and sends one reply per request. Nothing else of
the match reaches it: what the page shows is the seat's view.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from arena.domain.humans import Person
from arena.engine import Action, View, quoted
from arena.errors import Exhausted, Invalid, NotReady
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.proto.truco.v1 import bot_pb2_grpc
from arena.wire import PROTOCOL_VERSION, action_to_pb, hand_from_pb, view_from_pb

log = logging.getLogger(__name__)

WAITERS = 4  # a seat's pages waiting for its next state at once; more are refused (429)
WAIT_S = 25.0  # a page waits this long for the next state, then gets the same one again
TRIES = 4  # streams a seat opens in all, after a broken one, before it gives up
BACKOFF_S = (1.0, 3.0, 10.0)  # how long it waits before each new stream


@dataclass
class Asked:
    """The decision the referee asks of the seat now."""

    request_id: int
    view: View
    deadline: float  # on the event loop's clock
    time_bank_ms: int


class Seat:
    """The seat of ``person`` in match ``match_id``, held while ``hold()`` runs (a task of
    the web's); ``status()`` reads the match's status in the store (``finished``,
    ``failed``...), asked when the referee refuses the token."""

    def __init__(
        self,
        match_id: str,
        person: Person,
        seat: int,
        opponent: str,
        token: str,
        channel: Callable[[], grpc.aio.Channel],
        status: Callable[[], Awaitable[str]],
    ) -> None:
        self.match_id, self.person, self.seat, self.opponent = match_id, person, seat, opponent
        self._token, self._channel, self._status = token, channel, status
        self.version = 0
        self.phase = "waiting"  # waiting, playing, over
        self.note = "waiting for the referee to start the match"
        self.names: list[str] = []
        self.asked: Asked | None = None
        self.view: View | None = None  # the latest view the referee sent
        self.sent = ""  # the action sent for the latest view, if one was
        self.last_hand: dict[str, Any] | None = None
        self.result: dict[str, Any] | None = None
        self.waiters = 0
        self._changed = asyncio.Condition()
        self._call: Any = None
        self._writing = asyncio.Lock()

    @property
    def over(self) -> bool:
        return self.phase == "over"

    async def hold(self) -> None:
        """Play the seat until the match ends: a new stream after a broken one (the
        referee holds the seat meanwhile), up to TRIES streams."""
        for attempt in range(TRIES):
            if attempt:
                await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S)) - 1])
            try:
                await self._stream()
            except grpc.aio.AioRpcError as e:
                if e.code() == grpc.StatusCode.UNAUTHENTICATED:  # the token opens nothing now
                    status = await self._status()
                    if status in ("finished", "failed"):
                        await self.end(f"the match is {status}; your seat was not connected")
                        return
                log.info("match %s: the seat's stream ended: %s", self.match_id, e.details())
                await self._update(note="the connection to the referee broke; reconnecting")
                continue
            if self.over:
                return
        await self.end("the referee could not be reached: the match goes on without you")

    async def _stream(self) -> None:
        hello = pb.Hello(
            token=self._token, protocol_version=PROTOCOL_VERSION, name="arena web",
            concurrency=1, hand_results=True,
        )  # fmt: skip
        call = bot_pb2_grpc.RefereeStub(self._channel()).Play()
        self._call = call
        try:
            await call.write(pb.BotMessage(hello=hello))
            while (message := await call.read()) is not grpc.aio.EOF:
                await self._heard(message)
                if self.over:
                    return
        finally:
            self._call = None
            call.cancel()

    async def _heard(self, message: pb.RefereeMessage) -> None:
        kind = message.WhichOneof("kind")
        loop = asyncio.get_running_loop()
        if kind == "match_started":
            self.names = list(message.match_started.seat_names)
            await self._update(phase="playing", note="")
        elif kind == "decision":
            asked = message.decision
            view = view_from_pb(asked.view)
            deadline = loop.time() + asked.deadline_ms / 1000
            self.asked = Asked(asked.request_id, view, deadline, asked.time_bank_ms)
            self.view, self.sent = view, ""
            await self._update(phase="playing", note="")
        elif kind == "rejected":
            rejected = message.rejected
            if self.view is not None and self.asked is None and rejected.deadline_ms:
                deadline = loop.time() + rejected.deadline_ms / 1000  # it asks again
                self.asked = Asked(rejected.request_id, self.view, deadline, 0)
            await self._update(note=f"the referee refused it: {rejected.reason}")
        elif kind == "hand_ended":
            self.last_hand = hand_from_pb(message.hand_ended).to_json()
            await self._update()
        elif kind == "match_ended":
            ended = message.match_ended
            if ended.HasField("last_hand"):
                self.last_hand = hand_from_pb(ended.last_hand).to_json()
            self.result = {
                "winner": ended.winner if ended.HasField("winner") else None,
                "score": list(ended.score), "termination": ended.termination,
            }  # fmt: skip
            won = self.result["winner"] == self.seat % 2
            await self.end("you won" if won else "you lost")

    async def act(self, request_id: int, text: str) -> None:
        """Answer the decision asked with the action ``text`` (``play 4C``, ``raise``...):
        NotReady when that decision is not open (answered, or timed out and decided for
        the seat), Invalid (or the engine's MalformedAction) for an action that is not one
        of its legal ones. Nothing changes when it is refused."""
        asked = self._open()
        if asked is None or asked.request_id != request_id or self._call is None:
            raise NotReady("that decision is no longer open: look at the table again")
        action = Action.parse(text)
        if action not in asked.view.legal:
            legal = ", ".join(map(str, asked.view.legal))
            raise Invalid(f"{quoted(text[:40])} is not a legal action now; legal: {legal}")
        reply = pb.ActionReply(
            match_id=self.match_id, request_id=request_id, action=action_to_pb(action)
        )
        self.asked, self.sent = None, str(action)
        async with self._writing:
            await self._call.write(pb.BotMessage(action=reply))
        await self._update(note="")

    async def next_state(self, after: int, wait_s: float = WAIT_S) -> dict[str, Any]:
        """The state once its version is past ``after``, or as it is after ``wait_s``."""
        if self.version <= after and not self.over:
            if self.waiters >= WAITERS:
                raise Exhausted(f"{WAITERS} pages already wait on this match")
            self.waiters += 1
            try:
                async with self._changed:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(wait_s):
                            await self._changed.wait_for(lambda: self.version > after)
            finally:
                self.waiters -= 1
        return self.state()

    def _open(self) -> Asked | None:
        """The decision asked, while its time lasts (past it, the referee decides)."""
        asked = self.asked
        if asked is None or asyncio.get_running_loop().time() < asked.deadline:
            return asked
        return None

    def state(self) -> dict[str, Any]:
        """What the page shows: the seat's latest view and what it may do now."""
        asked = self._open()
        now = asyncio.get_running_loop().time()
        return {
            "match_id": self.match_id,
            "version": self.version,
            "phase": self.phase,
            "note": self.note,
            "seat": self.seat,
            "seats": self.names,
            "opponent": self.opponent,
            "your_turn": asked is not None,
            "request_id": None if asked is None else asked.request_id,
            "left_ms": None if asked is None else max(0, int((asked.deadline - now) * 1000)),
            "time_bank_ms": None if asked is None else asked.time_bank_ms,
            "legal": [] if asked is None else [str(a) for a in asked.view.legal],
            "sent": self.sent,
            "view": None if self.view is None else self.view.to_json(),
            "last_hand": self.last_hand,
            "result": self.result,
        }

    async def _update(self, **changes: Any) -> None:
        for name, value in changes.items():
            setattr(self, name, value)
        async with self._changed:
            self.version += 1
            self._changed.notify_all()

    async def end(self, note: str) -> None:
        """The seat is done with, ``note`` saying why."""
        self.asked = None
        await self._update(phase="over", note=note)

"""One match between connected bots: one asyncio task, the engine, the clocks.

Every message a bot gets is built from ``view(match, seat)``. Each decision has the
time control's ``decision_ms`` plus what is left of the seat's time bank, measured here.
An action that the engine refuses is answered with the reason and the bot may try again
until its deadline; at the deadline the rules' default action is played, and an answer
that arrives after it is refused as late, whether or not the alarm has rung yet: the
referee's clock decides, never the order in which the event loop gets round to things.
A bot whose stream drops keeps its seats for ``reconnect_grace_ms`` (its clock still
running); then a house bot decides for it until it comes back. Every fault is counted in
the record, and each action of the record tells how long its decision took against its
deadline and what went wrong on the way (docs/rules.md, "Match records"); how late each
deadline was acted on is told to the hub. The runner meets the hub only through
:class:`Table`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from arena.bots.base import Bot
from arena.domain.clock import TimeControl
from arena.engine import Match, Rules, TrucoError, seen_hand, to_record, view
from arena.logs import about_match
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.read.live import PublicLog
from arena.wire import ViewEncoder, action_from_pb, decision_bytes, hand_to_pb, referee_bytes
from arena.wire_clock import clock_to_pb
from referee.alarm import Alarm
from referee.sessions import Outgoing

log = logging.getLogger(__name__)


class Table(Protocol):
    """What a match needs of the place its bots connect to (the hub): the whole of the
    runner's side of their meeting."""

    def opened(self, match: MatchRunner) -> None:
        """The match is under way: route its bots' actions to it."""

    def closed(self, match: MatchRunner) -> None: ...

    def address(self, bot: str, match_id: str) -> str:
        """Where ``bot``'s messages for ``match_id`` go: the bot's session, or a hosted
        version's process for that match alone. The methods below take addresses."""

    def connected(self, to: str) -> bool: ...

    def send(self, to: str, message: Outgoing, *, asks: bool = False) -> None:
        """If ``to`` is connected; ``asks`` when the message invites a reply."""

    def wants_hands(self, to: str) -> bool:
        """Whether ``to`` is connected and asked for a message at every hand's end."""

    def late(self, seconds: float) -> None:
        """A deadline was acted on ``seconds`` after it passed."""


@dataclass
class Faults:
    timeouts: int = 0
    rejected: int = 0
    disconnects: int = 0
    substituted: int = 0
    errors: int = 0  # replies saying the bot's own code failed (its fallback was played)

    def counts(self) -> dict[str, int]:
        """Every count by name (what asdict gives, without its deep copy's cost)."""
        return dict(vars(self))


@dataclass(slots=True)
class _Request:
    seat: int
    request_id: int
    deadline: float  # loop time
    opened: float  # loop time
    rejected: int = 0  # the seat's bot's actions refused while it was open


@lru_cache(maxsize=64)
def _match_terms(rules: Rules, clock: TimeControl) -> bytes:
    """The encoded part of MatchStarted that only the rules and the clock decide (the
    rules' text and parameters take tens of microseconds to write out)."""
    return pb.MatchStarted(
        rules=str(rules),
        clock=clock_to_pb(clock),
        parameters=rules.parameter_texts(),
    ).SerializeToString()


class MatchRunner:
    """Plays one match; ``await run()`` returns its record."""

    def __init__(
        self,
        hub: Table,
        match_id: str,
        rules: Rules,
        seat_bots: Sequence[str],
        *,
        seed: int,
        clock: TimeControl,
        stand_in: Callable[[], Bot],
        live: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.hub = hub
        self.match_id = match_id
        self.clock = clock
        self.match = Match(rules, seat_bots, seed=seed)
        self.seat_bots = tuple(seat_bots)
        self.bots = frozenset(seat_bots)
        self.faults = {bot: Faults() for bot in self.bots}
        # per bot: the actions applied for its seats, and of them those made while it was
        # away (the default action at a deadline, or the stand-in): arena/domain/absence.py
        self.presence = {bot: [0, 0] for bot in self.bots}
        self._to = {bot: hub.address(bot, match_id) for bot in self.bots}
        # a hosted process that is gone never comes back: the stand-in plays at once
        grace = clock.reconnect_grace_ms / 1000
        self._grace = {bot: grace if to == bot else 0.0 for bot, to in self._to.items()}
        self._stand_in = stand_in
        self._stand_ins: dict[str, Bot] = {}
        self._alarm = Alarm()  # what the match's task sleeps on
        self._loop: asyncio.AbstractEventLoop | None = None  # run()'s (asking costs a syscall)
        self._views = ViewEncoder()
        self._bank = [clock.time_bank_ms / 1000] * len(seat_bots)
        self._away: dict[str, float] = {}  # bot -> loop time it left
        self._request: _Request | None = None
        self._last_request_id = 0
        self._announced = 0  # hands whose end was sent
        # (hand, action) -> what the record adds to that action: one per action played
        self._notes: dict[tuple[int, int], dict[str, Any]] = {}
        self.decisions = 0
        # the live feed (docs/web.md, "Live"): its events go to ``live``, which never waits
        self._live = None if live is None else (PublicLog(match_id), live)

    # ---- called by the hub ---------------------------------------------------------
    #
    # An action that answers the open request is applied at once, in the stream reader's
    # turn of the event loop, and the next request goes out in the same turn: the match's
    # own task wakes only for the clocks (a deadline, a grace running out) and the end.

    def submit(self, bot: str, request_id: int, action: pb.Action, error: str = "") -> None:
        """A bot's reply; ``error``: the bot says its own code failed to decide and
        ``action`` is its fallback (played as any action, and counted as an error)."""
        if error:
            self.faults[bot].errors += 1
        request = self._request
        now = self._running().time()  # when the answer came: one reading serves it all
        if request is None:
            self._reject(bot, request_id, "no request of this match is open", None)
        elif self._is_late(request, bot, request_id, now):
            late_ms = int((now - request.deadline) * 1000)
            self._time_out(request)
            reason = (
                f"request {request_id} timed out: your answer came {late_ms} ms after its "
                "deadline, and the default action was played"
            )
            self._reject(bot, request_id, reason, None)
            self._advance()
        elif self._accept(request, bot, request_id, action, now, error=bool(error)):
            self._settle(request, now)
            self._advance()

    def _is_late(self, request: _Request, bot: str, request_id: int, now: float) -> bool:
        """The bot answers the open request, but after its deadline."""
        return (
            request_id == request.request_id
            and bot == self.seat_bots[request.seat]
            and now >= request.deadline
        )

    def bot_left(self, bot: str) -> None:
        self.faults[bot].disconnects += 1
        self._away[bot] = self._running().time()
        self._alarm.ring()  # its grace may end before the open request's deadline

    def bot_returned(self, bot: str) -> None:
        self._away.pop(bot, None)
        self._stand_ins.pop(bot, None)
        self._send_start(bot, resumed=True)
        request = self._request
        if request is not None and self.seat_bots[request.seat] == bot:
            self._send_request(request, self._running().time())

    # ---- the match -----------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        with about_match(self.match_id):  # on each line logged while it plays
            return await self._play()

    async def _play(self) -> dict[str, Any]:
        self._loop = loop = asyncio.get_running_loop()
        self.hub.opened(self)
        try:
            now = loop.time()
            for bot in self.bots:
                if self.hub.connected(self._to[bot]):
                    self._send_start(bot, resumed=False)
                else:  # absent from the start: its seats are held as after a disconnect
                    self.faults[bot].disconnects += 1
                    self._away[bot] = now
            self._advance()
            while not self.match.is_over:
                request = self._request
                assert request is not None  # _advance leaves one open until the end
                await self._alarm.sleep(loop, self._due(request))
                if self._request is request:
                    self._check_clocks(request)
            self._announce_end()
        finally:
            self.hub.closed(self)
            self._alarm.cancel()
        return self.record()

    def record(self) -> dict[str, Any]:
        record = to_record(self.match)
        record["match_id"] = self.match_id
        record["clock"] = self.clock.to_json()
        record["faults"] = {bot: f.counts() for bot, f in sorted(self.faults.items())}
        record["presence"] = {
            bot: {"decisions": made, "away": away}
            for bot, (made, away) in sorted(self.presence.items())
        }
        hands = record["hands"]
        for (h, a), note in self._notes.items():
            hands[h]["actions"][a].update(note)
        return record

    def _note(
        self, request: _Request | None, now: float, by: str = "", *, error: bool = False
    ) -> None:
        """What the record tells of the action about to be applied (docs/rules.md): how
        long its decision took (``ms``) of the ``deadline_ms`` it had, the seat's actions
        refused before it, ``by`` when the bot did not choose it, ``error`` when it was
        the bot's fallback. A refused action's note is replaced by the next one's."""
        note: dict[str, Any] = {}
        if request is not None:
            note["ms"] = round((now - request.opened) * 1000)
            note["deadline_ms"] = round((request.deadline - request.opened) * 1000)
            if request.rejected:
                note["rejected"] = request.rejected
        if by:
            note["by"] = by
        if error:
            note["error"] = True
        match = self.match
        hand = match.hand
        assert hand is not None  # a request is open: a hand is being played
        self._notes[len(match.hands) - 1, len(hand.actions)] = note

    def _advance(self) -> None:
        """After an action: the finished hands' news, then the next request (or the end).
        A seat whose bot is away past its grace is played by the stand-in at once."""
        match = self.match
        while True:
            if self._live is not None:
                told, tell = self._live
                for event in told.told(match):
                    tell(event)
            self._announce_hands()
            if match.is_over:
                self._alarm.ring()  # the match's task sends the end
                return
            seat = match.to_act
            assert seat is not None  # a seeded match deals by itself
            bot = self.seat_bots[seat]
            now = self._running().time()
            left_at = self._away.get(bot)
            if left_at is not None and now >= left_at + self._grace[bot]:
                self._substitute(seat, bot)
                continue
            self._last_request_id += 1
            request = _Request(seat, self._last_request_id, now + self._allowance(seat), now)
            self._request = request
            self.decisions += 1
            # opened from a bot's answer, the new deadline may come before the alarm the
            # match's task sleeps on (set for the previous request): it must ring in time
            self._alarm.arm(self._running(), self._due(request))
            if left_at is None:
                self._send_request(request, now)
            return

    def _due(self, request: _Request) -> float:
        """When the clocks next need looking at: the deadline, or an absent bot's grace."""
        bot = self.seat_bots[request.seat]
        left_at = self._away.get(bot)
        if left_at is None:
            return request.deadline
        return min(request.deadline, left_at + self._grace[bot])

    def _check_clocks(self, request: _Request) -> None:
        now = self._running().time()
        seat = request.seat
        bot = self.seat_bots[seat]
        left_at = self._away.get(bot)
        if left_at is not None and now >= left_at + self._grace[bot]:
            self._settle(request, now)
            self._substitute(seat, bot, request, now)
        elif now >= request.deadline:
            self._time_out(request)
        else:
            return
        self._advance()

    def _time_out(self, request: _Request) -> None:
        """The deadline has passed: the rules' default action for the seat, a timeout
        counted, and how late the referee was in acting on it."""
        now = self._running().time()
        self.hub.late(now - request.deadline)
        self._settle(request, now)
        bot = self.seat_bots[request.seat]
        self.faults[bot].timeouts += 1
        self._played(bot, away=bot in self._away)
        self._note(request, now, "timeout")
        self.match.apply(self.match.default_action(), request.seat)

    def _played(self, bot: str, *, away: bool) -> None:
        """An action is applied for one of ``bot``'s seats (``away``: made for it)."""
        counts = self.presence[bot]
        counts[0] += 1
        counts[1] += away

    def _settle(self, request: _Request, now: float) -> None:
        """The request is answered (or its time is up): charge any overrun to the bank."""
        self._request = None
        overrun = now - request.opened - self.clock.decision_ms / 1000
        if overrun > 0:
            self._bank[request.seat] = max(0.0, self._bank[request.seat] - overrun)

    def _accept(
        self,
        request: _Request,
        bot: str,
        request_id: int,
        payload: pb.Action,
        now: float,
        *,
        error: bool,
    ) -> bool:
        """Apply the bot's action if it answers the open request legally (``error``: the
        bot said it is its fallback, its own code having failed)."""
        if bot != self.seat_bots[request.seat] or request_id != request.request_id:
            reason = (
                f"request {request_id} is not open for you; the open request is "
                f"{request.request_id} for seat {request.seat}"
            )
        else:
            try:
                self._note(request, now, error=error)
                self.match.apply(action_from_pb(payload), request.seat)
                self._played(bot, away=False)
                return True
            except TrucoError as e:
                reason = str(e)
        self._reject(bot, request_id, reason, request)
        return False

    def _reject(self, bot: str, request_id: int, reason: str, request: _Request | None) -> None:
        self.faults[bot].rejected += 1
        left = 0  # a reply to no open request of this bot has no deadline to report
        if request is not None and bot == self.seat_bots[request.seat]:
            request.rejected += 1
            left = max(0, int((request.deadline - self._running().time()) * 1000))
        self.hub.send(
            self._to[bot],
            pb.RefereeMessage(
                rejected=pb.ActionRejected(
                    match_id=self.match_id, request_id=request_id, reason=reason, deadline_ms=left
                )
            ),
            asks=True,
        )

    def _substitute(
        self, seat: int, bot: str, request: _Request | None = None, now: float = 0.0
    ) -> None:
        """The house bot plays for ``bot`` (away past its grace; ``request``: the one it
        left open, if any)."""
        stand_in = self._stand_ins.get(bot)
        if stand_in is None:
            log.info("match %s: a house bot stands in for %s", self.match_id, bot)
            stand_in = self._stand_ins[bot] = self._stand_in()
        self.faults[bot].substituted += 1
        self._played(bot, away=True)
        self._note(request, now, "stand_in")
        self.match.apply(stand_in.decide(view(self.match, seat)), seat)

    def _running(self) -> asyncio.AbstractEventLoop:
        return self._loop or asyncio.get_running_loop()

    def _allowance(self, seat: int) -> float:
        return self.clock.decision_ms / 1000 + self._bank[seat]

    # ---- messages ------------------------------------------------------------------

    def _send_request(self, request: _Request, now: float) -> None:
        left = request.deadline - now
        message = decision_bytes(  # sent as encoded: never a message to parse again
            self.match_id,
            request.request_id,
            max(0, int(left * 1000)),
            int(self._bank[request.seat] * 1000),
            self._views.encoded(view(self.match, request.seat)),
        )
        self.hub.send(self._to[self.seat_bots[request.seat]], message, asks=True)

    def _send_start(self, bot: str, resumed: bool) -> None:
        started = pb.MatchStarted(
            match_id=self.match_id,
            seats=[s for s, b in enumerate(self.seat_bots) if b == bot],
            seat_names=self.seat_bots,
            resumed=resumed,
        )
        started_bytes = started.SerializeToString() + _match_terms(self.match.rules, self.clock)
        self.hub.send(self._to[bot], referee_bytes("match_started", started_bytes))

    def _announce_hands(self) -> None:
        """A HandEnded message for each finished hand, to the bots that asked for one."""
        match = self.match
        while self._announced < len(match.hands) and match.hands[self._announced].result:
            listeners = [to for to in self._to.values() if self.hub.wants_hands(to)]
            if listeners:  # the message costs more than asking
                games = (match.games[0], match.games[1])
                ended = hand_to_pb(seen_hand(match, self._announced), self.match_id, games)
                message = pb.RefereeMessage(hand_ended=ended)
                for to in listeners:
                    self.hub.send(to, message)
            self._announced += 1

    def _announce_end(self) -> None:
        outcome = self.match.outcome
        assert outcome is not None
        final = seen_hand(self.match, len(self.match.hands) - 1)
        last = hand_to_pb(final, self.match_id, (self.match.games[0], self.match.games[1]))
        shared = pb.MatchEnded(  # encoded once; each bot's faults are joined to it
            match_id=self.match_id,
            last_hand=last,
            winner=outcome.winner,
            score=self.match.score,
            games=self.match.games,
            termination=str(outcome.termination),
        ).SerializeToString()
        for bot in self.bots:
            own = pb.MatchEnded(faults=pb.Faults(**self.faults[bot].counts())).SerializeToString()
            self.hub.send(self._to[bot], referee_bytes("match_ended", shared, own))

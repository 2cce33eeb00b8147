"""The referee's shared state: who is connected, which matches run, and the tokens.

A :class:`~referee.sessions.Session` is one bot's live stream (referee/sessions.py).
The :class:`Hub` keeps at most one session
per bot (a new connection with the same token takes over), routes every action to the
match it names, and tells matches when their bots leave and come back. A session cut off
with an error status (not reading, flooding, taken over, its token revoked) leaves the
hub at once, whether or not its stream can still be written to.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Iterator, Mapping
from typing import Any

import grpc

from arena.domain.identity import HostedSeat
from arena.engine import quoted
from arena.hosted.tokens import read_match_token
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.wire import PROTOCOL_VERSION
from referee.sessions import Outgoing, Seated, Session, TokenBook

log = logging.getLogger(__name__)

LATENCY_MAX_US = 10_000
OVER_KEPT = 10_000  # keys of ended matches, whose tokens are refused at once
LATENESS_KEPT = 100_000


def percentile_us(counts: list[int], q: float) -> int:
    """The ``q`` quantile (0 to 1) of latencies counted per microsecond."""
    total = sum(counts)
    if total == 0:
        raise ValueError("no latencies counted")
    seen = 0
    for us, n in enumerate(counts):
        seen += n
        if seen >= q * total:
            return us
    return len(counts) - 1


class Hub:
    """Sessions by bot, running matches by id."""

    def __init__(
        self, tokens: TokenBook, max_concurrency: int = 64, proxies: Collection[str] = ()
    ) -> None:
        self.tokens = tokens
        self.max_concurrency = max_concurrency
        self.proxies = frozenset(proxies)  # whose x-forwarded-for names the caller
        # (arena.guard.caller_address)
        self.sessions: dict[str, Session] = {}
        self.matches: dict[str, Seated] = {}
        self._arrived = asyncio.Condition()
        self._busy: Counter[str] = Counter()  # matches each bot is seated in, by playing()
        # The referee's own latency: from a bot's action arriving to the match being done
        # with it (the next request queued, or the rejection), counted in whole
        # microseconds (the last count is 10 ms or more): constant memory however long it
        # runs.
        self.latency_us = [0] * (LATENCY_MAX_US + 1)
        # How late each deadline was acted on (seconds after it), the latest LATENESS_KEPT
        self.lateness: deque[float] = deque(maxlen=LATENESS_KEPT)
        self._waiting: list[tuple[frozenset[str], asyncio.Future[None]]] = []  # playing()
        self.finishing = False  # a clean stop is under way: no new sessions
        self.expected: dict[str, frozenset[str]] = {}  # match -> its hosted seats (expect())
        self._awaited: dict[tuple[str, str], str] = {}  # (token's key, bot) -> match
        self._expecting = asyncio.Condition()
        self._over: dict[str, None] = {}  # keys of ended matches, oldest first (a bounded set)
        self.token_key: bytes | None = None  # match tokens' (arena.hosted.tokens); None: none
        # matches other nodes play, by (match, bot connected here): where its replies go
        self.relays: dict[tuple[str, str], Callable[[pb.ActionReply], None]] = {}
        # told when a bot's session here begins (the session) or ends (None): the node's
        self.on_presence: Callable[[str, Session | None], None] | None = None
        self.on_load: Callable[[frozenset[str]], None] | None = None  # their matches changed
        self.on_late: Callable[[float], None] | None = None  # told each lateness (metrics)
        # where the matches played here tell their live events (referee/live.py); None: not
        self.live: Callable[[dict[str, Any]], None] | None = None

    async def attach(self, session: Session) -> None:
        """Make ``session`` the bot's live one: greet it, resume its matches. Once the
        hub is finishing, the session ends instead, cleanly and at once."""
        if self.finishing:
            session.close()
            return
        old = self.sessions.get(session.key)
        self.sessions[session.key] = session
        session.on_abort = self._leave
        if old is not None:  # no longer live: its end is not a disconnect
            log.info(
                "bot %s reconnected from %s; closing its old stream", session.bot, session.peer
            )
            old.close(grpc.StatusCode.ABORTED, "another connection took over this bot's session")
        mine = [m for m in self.matches.values() if session.plays(m)]
        session.send(
            pb.RefereeMessage(
                welcome=pb.Welcome(
                    bot=session.bot,
                    protocol_version=PROTOCOL_VERSION,
                    concurrency=session.concurrency,
                    resumed_matches=len(mine),
                )
            )
        )
        for match in mine:
            match.bot_returned(session.bot)
        if self.on_presence is not None and not session.match:
            self.on_presence(session.bot, session)
        async with self._arrived:
            self._arrived.notify_all()
        self._grant()  # its concurrency may seat waiting matches

    def rename(self, names: Mapping[str, str]) -> None:
        """Give connected bots other names (``names``: old to new) before any match has
        seated them: their sessions go by the new ones (the token book is the caller's)."""
        assert not self.matches and not self._busy.total(), "bots are renamed before play"
        moved = {names[bot]: self.sessions.pop(bot) for bot in names if bot in self.sessions}
        for bot, session in moved.items():
            session.bot = bot
        self.sessions.update(moved)

    def detach(self, session: Session) -> None:
        """The stream ended; if it was the bot's live one, its matches hold its seats."""
        session.close()
        session.ended.set()
        self._leave(session)

    def revoke(self, bot: str, reason: str) -> None:
        """End the bot's live session at once with UNAUTHENTICATED (its token no longer
        holds, as after a rotation); its seats are held as after a disconnect, until it
        comes back with a token that does."""
        session = self.sessions.get(bot)
        if session is not None:  # the hub's disconnect line gives the reason
            session.close(grpc.StatusCode.UNAUTHENTICATED, reason)

    def _leave(self, session: Session) -> None:
        """If ``session`` is the bot's live one, it is no more: the bot's matches hold its
        seats from now, as after any disconnect."""
        if self.sessions.get(session.key) is not session:
            return
        del self.sessions[session.key]
        why = f": {session.close_reason}" if session.close_reason else ""
        log.info("bot %s disconnected%s", session.key, why)
        for match in self.matches.values():
            if session.plays(match):
                match.bot_left(session.bot)
        if self.on_presence is not None and not session.match:
            self.on_presence(session.bot, None)

    async def finish(self, timeout_s: float = 5.0) -> None:
        """End every stream once its queued messages are written, and any that attaches
        from now on at once (for a clean stop)."""
        self.finishing = True
        sessions = list(self.sessions.values())
        for session in sessions:
            session.close()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                for session in sessions:
                    await session.ended.wait()

    # ---- the runners' side (referee.runner.Table) ---------------------------------------

    def opened(self, match: Seated) -> None:
        self.matches[match.match_id] = match

    def closed(self, match: Seated) -> None:
        del self.matches[match.match_id]

    def address(self, bot: str, match_id: str) -> str:
        return str(HostedSeat(bot, match_id)) if bot in self.expected.get(match_id, ()) else bot

    def connected(self, to: str) -> bool:
        return to in self.sessions

    def busy(self, bot: str) -> int:
        """The matches ``bot`` is seated in here (relayed ones included)."""
        return self._busy[bot]

    def bots_here(self) -> dict[str, tuple[int, int]]:
        """The bots connected here (hosted processes and relayed seats aside), each with
        its concurrency and the matches it is seated in now."""
        return {
            s.bot: (s.concurrency, self._busy[s.bot]) for s in self.sessions.values() if not s.match
        }

    @property
    def playing_now(self) -> int:
        return len(self.matches)

    def wants_hands(self, to: str) -> bool:
        session = self.sessions.get(to)
        return session is not None and session.hand_results

    def late(self, seconds: float) -> None:
        self.lateness.append(seconds)
        if self.on_late is not None:
            self.on_late(seconds)

    def send(self, to: str, message: Outgoing, *, asks: bool = False) -> None:
        session = self.sessions.get(to)
        if session is not None:
            session.send(message, asks=asks)

    def route(self, session: Session, reply: pb.ActionReply) -> None:
        match = self.matches.get(reply.match_id)
        if match is None and not session.match:
            relay = self.relays.get((reply.match_id, session.bot))
            if relay is not None:  # played by another node: the reply goes there
                relay(reply)
                return
        if match is None or not session.plays(match):
            shown = quoted(reply.match_id)  # a bot's words echoed back stay small
            session.send(
                pb.RefereeMessage(
                    rejected=pb.ActionRejected(
                        match_id=reply.match_id,
                        request_id=reply.request_id,
                        reason=f"you are not seated in a match {shown} in progress",
                    )
                )
            )
            return
        arrived = time.perf_counter()
        match.submit(session.bot, reply.request_id, reply.action, reply.error)  # in this turn
        us = int((time.perf_counter() - arrived) * 1e6)
        self.latency_us[us if us < LATENCY_MAX_US else LATENCY_MAX_US] += 1

    async def wait_for(self, bots: Iterable[str], timeout_s: float) -> None:
        """Until every bot named is connected; TimeoutError names the missing ones."""
        wanted = set(bots)
        try:
            async with asyncio.timeout(timeout_s), self._arrived:
                await self._arrived.wait_for(lambda: wanted <= self.sessions.keys())
        except TimeoutError:
            missing = ", ".join(sorted(wanted - self.sessions.keys()))
            raise TimeoutError(f"not connected after {timeout_s:.0f} s: {missing}") from None

    async def hosted_seat(self, token: str, wait_s: float) -> tuple[str, str] | str | None:
        """The (bot, match) a match token seats; None for a token the arena did not sign
        (an unknown token, as any other); else why it seats nothing: its key (a match id,
        or a warm process's ticket) names a match that is over, or that no match expects
        within ``wait_s`` (a process may say hello before its worker's RunMatch has
        reached the referee; a warm one long before)."""
        found = None if self.token_key is None else read_match_token(self.token_key, token)
        if found is None:
            return None
        seat = found
        if seat[0] not in self._over:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait_s), self._expecting:
                    await self._expecting.wait_for(
                        lambda: seat in self._awaited or seat[0] in self._over
                    )
        if seat[0] in self._over:
            return f"this token's match, {quoted(seat[0])}, is over"
        match_id = self._awaited.get(seat)
        if match_id is None:
            return f"this token's match, {quoted(seat[0])}, is not playing here"
        return seat[1], match_id

    @contextlib.asynccontextmanager
    async def expect(
        self,
        match_id: str,
        hosted: Mapping[str, str],
        timeout_s: float,
        relayed: frozenset[str] = frozenset(),
    ) -> AsyncIterator[None]:
        """While the match is about to play and plays, its ``hosted`` seats (a bot, and
        the key its process's token names: the match id, or a warm process's ticket) are
        for the processes the workers start; first waits up to ``timeout_s`` for them to
        connect (the match's clocks have not started: a process's start costs it no time;
        one that never connects is away from the start, as a dial-in bot would be). Once
        it ends, their streams end (OK) and their tokens open nothing more. ``relayed``:
        bots connected to other nodes, whose seats those nodes open with tokens of the
        match id (referee/nodes.py), as they are seated."""
        if not hosted and not relayed:
            yield
            return
        self.expected[match_id] = frozenset(hosted) | relayed
        seats = {(key, bot) for bot, key in hosted.items()} | {(match_id, b) for b in relayed}
        self._awaited.update(dict.fromkeys(seats, match_id))
        async with self._expecting:
            self._expecting.notify_all()
        try:
            try:
                await self.wait_for([str(HostedSeat(b, match_id)) for b in hosted], timeout_s)
            except TimeoutError as e:
                log.warning("match %s: a hosted bot is %s", match_id, e)
            yield
        finally:
            for seat in seats:
                del self._awaited[seat]
                self._over[seat[0]] = None
                if len(self._over) > OVER_KEPT:
                    del self._over[next(iter(self._over))]
            for bot in self.expected.pop(match_id):
                session = self.sessions.get(str(HostedSeat(bot, match_id)))
                if session is not None:
                    session.close()

    @contextlib.asynccontextmanager
    async def playing(self, bots: Iterable[str]) -> AsyncIterator[None]:
        """Seat ``bots`` in one more match once each has a free slot of the concurrency
        it declared. All are taken at once, so two matches never hold half of each
        other's bots; waiters are served first come, first served, each woken only when
        its seats are granted. A bot that is not connected is not waited for (the match
        runner holds its seats)."""
        wanted = frozenset(bots)
        granted = asyncio.get_running_loop().create_future()
        self._waiting.append((wanted, granted))
        self._grant()
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():  # granted as it was cancelled
                self._release(wanted)
            else:
                self._waiting.remove((wanted, granted))
            raise
        try:
            yield
        finally:
            self._release(wanted)

    @contextlib.contextmanager
    def holding(self, bots: Iterable[str]) -> Iterator[None]:
        """Count ``bots`` seated in one more match at once, free slot or not (a seat
        they held elsewhere, resumed here)."""
        held = frozenset(bots)
        self._busy.update(held)
        self._loaded(held)
        try:
            yield
        finally:
            self._release(held)

    def _free(self, bots: frozenset[str]) -> bool:
        return all(
            b not in self.sessions or self._busy[b] < self.sessions[b].concurrency for b in bots
        )

    def _release(self, bots: frozenset[str]) -> None:
        self._busy.subtract(bots)
        self._loaded(bots)
        self._grant()

    def _loaded(self, bots: frozenset[str]) -> None:
        if self.on_load is not None:
            self.on_load(bots)

    def _grant(self) -> None:
        """Seat the waiters whose bots are all free now, in the order they came."""
        for entry in list(self._waiting):
            bots, granted = entry
            if self._free(bots):
                self._waiting.remove(entry)
                self._busy.update(bots)
                self._loaded(bots)
                granted.set_result(None)

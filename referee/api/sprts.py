"""The Arena API's sequential tests (docs/testing.md): starting one, and one as it
stands."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from arena.domain.actors import bot_of
from arena.domain.identity import is_version, owner_bot
from arena.domain.sprt import MAX_GAMES, OWNER_ROOM, Asked, Sprt
from arena.engine import Rules, quoted
from arena.errors import Forbidden, Invalid, NotReady
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import sprts
from arena.store.store import Store
from arena.usecases.sprts import start_sprt
from arena.wire_clock import request_clock
from referee import messages
from referee.callers import Callers, Dispatch

log = logging.getLogger(__name__)

MAX_TEST_GAMES = 10_000  # a test's matches at most (migration 0012's bound)


def given_or(request: Any, **defaults: float) -> list[float]:
    """The optional fields named, each as sent or else its default, in order."""
    return [getattr(request, k) if request.HasField(k) else v for k, v in defaults.items()]


class Testing:
    """StartTest and GetTest, on ``store``; a test started goes to the workers
    (``dispatch``: without it, StartTest is refused)."""

    def __init__(self, store: Store, callers: Callers, dispatch: Dispatch | None) -> None:
        self.store, self.callers, self.dispatch = store, callers, dispatch

    async def StartTest(self, request: Any, context: Any) -> api.SprtTest:
        """A sequential test (docs/testing.md): the organizer's, or asked for with the
        own token of NEW's bot (against any bot), unrated and within its owner's room
        (arena.domain.sprt.OWNER_ROOM). Both bots must be there to play: hosted, or
        connected."""
        new = request.new_bot
        actor = await self.callers.owner(context, owner_bot(new))
        asker = bot_of(actor)  # None: an organizer
        if request.rated and asker is not None:
            raise Forbidden(
                "a bot's own token starts unrated tests only: rated matches move the "
                "leaderboard, and who plays them is the organizer's choice"
            )
        if new == request.base_bot:  # before asking who is connected (start_sprt checks too)
            raise Invalid("a test compares two different bots")
        await self._available([new, request.base_bot])
        test = Sprt(request.elo0, request.elo1, *given_or(request, alpha=0.05, beta=0.05))
        max_games = request.max_games if request.HasField("max_games") else MAX_GAMES
        if not 2 <= max_games <= MAX_TEST_GAMES:
            raise Invalid(f"max_games must be from 2 to {MAX_TEST_GAMES}, not {max_games}")
        asked = Asked(
            Rules.parse(request.rules or "paulista"), request_clock(request),
            max_games=max_games - max_games % 2, rated=request.rated,
        )  # fmt: skip
        by, room = ("organizer", None) if asker is None else (asker, OWNER_ROOM)
        row = await asyncio.to_thread(
            start_sprt, self.store, new, request.base_bot, test, asked, by, room, actor=actor
        )
        log.info("test %d: %s against %s (%s)", row.id, new, request.base_bot, actor)
        if self.dispatch is None:
            raise NotReady("this server has no workers to play tests")
        await asyncio.to_thread(self.dispatch.sprt, row.id)
        found = await asyncio.to_thread(sprts.sprt, self.store, row.id)
        return messages.message(api.SprtTest, found)

    async def _available(self, names: list[str]) -> None:
        """NotReady unless each bot named can play now: hosted (its process is started
        for each match), or dialing in and connected to a node. A bot that is not there
        would have a stand-in play every match for it."""
        seated = await asyncio.to_thread(self.store.playing_as, names)
        dial_in = [n for n in names if n in seated and not is_version(seated[n][1])]
        connected = await self.callers.presence(dial_in) if dial_in else {}
        for name in dial_in:
            if name not in connected:
                raise NotReady(
                    f"bot {quoted(name)} dials in and is not connected: a test plays bots "
                    "that are hosted or connected now, never a stand-in for one"
                )

    async def GetTest(self, request: Any, context: Any) -> api.SprtTest:
        found = await asyncio.to_thread(sprts.sprt, self.store, request.id)
        return messages.message(api.SprtTest, found)

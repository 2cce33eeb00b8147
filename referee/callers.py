"""Who calls the Arena API: an organizer's token (the first's, or a named organizer's:
docs/events.md) or a bot's own, checked once for every call that needs them (a wrong one
counted as a guess of its address, :mod:`arena.guard`), and who is connected now. One
:class:`Callers` is handed to each area of the API (referee/api/); what their refusals
become is referee/statuses.py's."""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from arena.domain.actors import FIRST, Viewer, bot_actor
from arena.engine import quoted
from arena.errors import Exhausted, Forbidden, Unauthenticated
from arena.guard import FailedTokens, caller_address
from referee.hub import Hub
from referee.nodes import Node

if TYPE_CHECKING:  # the store needs the server parts; local matches check no callers' tokens
    from arena.store.store import Store

log = logging.getLogger(__name__)

Presence = dict[str, tuple[int, int]]  # bot -> (its concurrency, its matches now)


class Dispatch(Protocol):
    """What hands work to the workers (workers/dispatch.py's Dispatcher)."""

    def start_run(self, run_id: int) -> None: ...

    def finish_run(self, run_id: int) -> None: ...

    def check(self, version: str) -> None: ...

    def play(self, match_ids: Sequence[str]) -> None: ...

    def ladder(self, pool: str) -> None: ...

    def sprt(self, test_id: int) -> None: ...

    def analyse(self, match_id: str, samples: int) -> None: ...


def bearer(context: Any) -> str:
    """The token of an ``authorization: Bearer TOKEN`` metadata entry, or ""."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value.removeprefix("Bearer ").strip()
    return ""


class Callers:
    """The checks of who calls, on ``store`` (bots' tokens and named organizers') and
    ``admin_token`` (the first organizer's); who is connected, to ``hub`` (this referee)
    and, when it is a ``node`` of several, to the others as their leases say."""

    def __init__(self, store: Store, admin_token: str, hub: Hub, node: Node | None) -> None:
        self.store = store
        self.hub = hub
        self.node = node
        self._admin = admin_token.encode()
        self.failed = FailedTokens()  # wrong organizer tokens, by address

    async def organizer_name(self, context: Any) -> str | None:
        """The organizer whose token the call carries (:data:`FIRST` for the token of
        ARENA_ADMIN_TOKEN or ARENA_HOME, else a live named organizer's, looked up at every
        call so that one removed is refused at once); None when it carries no token. A
        wrong token counts as a guess of its address: refused later and later, like a bad
        bot token, and at once with Exhausted while too many of its guesses are held."""
        token = bearer(context)
        if not token:
            return None
        if hmac.compare_digest(token.encode(), self._admin):
            return FIRST
        name = await asyncio.to_thread(self.store.organizer_for_token, token)
        if name is not None:
            return name
        await self._guess(context)
        raise Forbidden("not an organizer's token")

    async def viewer(self, context: Any) -> Viewer:
        """Who reads: the owner of a bot (the call carries the bot's own token), an
        organizer, or anyone (no token); a token that is neither refused, as
        :meth:`organizer_name` does."""
        token = bearer(context)
        if not token or hmac.compare_digest(token.encode(), self._admin):
            return Viewer(organizer=bool(token))
        row = await asyncio.to_thread(self.store.bot_for_token, token)
        if row is not None:
            return Viewer(bot=row.name)
        if await asyncio.to_thread(self.store.organizer_for_token, token) is not None:
            return Viewer(organizer=True)
        await self._guess(context)
        raise Forbidden("neither a bot's token nor an organizer's")

    async def is_organizer(self, context: Any) -> bool:
        """Whether the call carries an organizer's token (a bot's own reads as anyone's;
        a wrong one refused, as :meth:`organizer_name` does)."""
        return (await self.viewer(context)).organizer

    async def organizer(self, context: Any) -> str:
        """The name of the organizer whose token the call carries, for the action log;
        anyone else is refused."""
        name = await self.organizer_name(context)
        if name is None:
            raise Unauthenticated(
                "this call needs an organizer's token (metadata authorization: Bearer TOKEN)"
            )
        return name

    async def owner(self, context: Any, bot: str) -> str:
        """An organizer, or the bot's own token; anyone else is refused (a wrong token
        counted as a guess, as :meth:`organizer_name` does). Who it was, as the action log
        writes it: the organizer's name, or "bot NAME" (:func:`bot_actor`)."""
        token = bearer(context)
        if token and not hmac.compare_digest(token.encode(), self._admin):
            row = await asyncio.to_thread(self.store.bot_for_token, token)
            if row is not None:
                if row.name != bot:
                    raise Forbidden(f"this token is bot {quoted(row.name)}'s, not {quoted(bot)}'s")
                return bot_actor(bot)
        try:
            name = await self.organizer_name(context)
        except Forbidden:  # counted as a guess already: said for what the call takes
            raise Forbidden(f"neither bot {quoted(bot)}'s token nor an organizer's") from None
        if name is None:
            raise Unauthenticated(
                "this call needs the bot's own token or an organizer's "
                "(metadata authorization: Bearer TOKEN)"
            )
        return name

    async def _guess(self, context: Any) -> None:
        """A wrong token: held the longer, the more its address has sent (Exhausted at
        once while too many of its refusals are held)."""
        address = caller_address(context.peer(), context.invocation_metadata(), self.hub.proxies)
        if self.failed.busy(address):
            raise Exhausted("too many wrong tokens from your address")
        log.warning("a wrong organizer token from %s", address)
        await self.failed.hold(address)

    async def presence(self, bots: list[str] | None = None) -> Presence:
        """Who is connected (among ``bots``; default: anyone), with their concurrency and
        matches: to the other nodes as their leases say, to this one as it knows now."""
        seen = {}
        if self.node is not None:
            found = await asyncio.to_thread(self.store.presence, bots)
            seen = {b: (w.concurrency, w.playing) for b, w in found.items()}
        here = self.hub.bots_here()
        seen.update(here if bots is None else {b: here[b] for b in bots if b in here})
        return seen

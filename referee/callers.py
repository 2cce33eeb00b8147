"""Who calls the Arena API, and what its errors become: the organizer's token or a bot's
own, checked once for every call that needs them, and the status of each kind of
:mod:`arena.errors`. The base of the servicer (referee/api.py, referee/organizing.py)."""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import grpc

from arena.engine import quoted
from arena.errors import ArenaError, Exhausted, Exists, Invalid, NotFound, Unavailable
from arena.guard import FailedTokens, peer_address
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.store.store import Store
from referee.hub import Hub
from referee.nodes import Node
from referee.server import bearer

log = logging.getLogger(__name__)


STATUS: dict[type[Exception], grpc.StatusCode] = {
    NotFound: grpc.StatusCode.NOT_FOUND,
    Exists: grpc.StatusCode.ALREADY_EXISTS,
    Invalid: grpc.StatusCode.INVALID_ARGUMENT,
    Unavailable: grpc.StatusCode.UNAVAILABLE,
    Exhausted: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ValueError: grpc.StatusCode.INVALID_ARGUMENT,  # the engine's and the definitions' checks
}
"""The status of each kind of error (the first that matches, in this order)."""


def status_of(error: Exception) -> grpc.StatusCode | None:
    for kind, code in STATUS.items():
        if isinstance(error, kind):
            return code
    return None


def translating(method: Callable[..., Any]) -> Callable[..., Any]:
    """An RPC whose errors become statuses: a kind of :mod:`arena.errors` (or a
    ValueError) its status from STATUS with its message; anything else INTERNAL, logged
    once with its traceback, its details kept from the caller."""

    async def call(self: Any, request: Any, context: Any) -> Any:
        try:
            return await method(self, request, context)
        except (ArenaError, ValueError) as e:
            code = status_of(e)
            assert code is not None
            await context.abort(code, str(e))
        except (grpc.aio.AbortError, asyncio.CancelledError):
            raise
        except Exception:
            log.exception("%s failed", method.__name__)
            await context.abort(
                grpc.StatusCode.INTERNAL, f"{method.__name__} failed; see the server's log"
            )

    call.__name__ = method.__name__
    call.__doc__ = method.__doc__
    return call


class Dispatch(Protocol):
    """What hands work to the workers (workers/app.py's Dispatcher)."""

    def start_run(self, run_id: int) -> None: ...

    def check(self, version: str) -> None: ...

    def play(self, match_ids: Sequence[str]) -> None: ...

    def ladder(self, pool: str) -> None: ...

    def sprt(self, test_id: int) -> None: ...


class Callers(arena_pb2_grpc.ArenaServicer):
    """The servicer's state and its checks of who calls: ``hub`` is the referee that
    RunMatch plays on, ``dispatch`` what hands work to the workers."""

    def __init__(
        self,
        store: Store,
        admin_token: str,
        hub: Hub | None = None,
        dispatch: Dispatch | None = None,
    ) -> None:
        self.store = store
        self.hub = hub  # set by create_server: the referee that RunMatch plays on
        self.node: Node | None = None  # create_server's too: this referee as a node of several
        self.dispatch = dispatch
        self._admin = admin_token.encode()
        self.admin_token = admin_token
        self.failed = FailedTokens()  # wrong organizer tokens, by address

    async def _is_organizer(self, context: Any) -> bool:
        """Whether the call carries the organizer's token. A wrong token counts as a guess
        of its address (:mod:`arena.guard`): refused later and later, like a bad bot token,
        and at once with RESOURCE_EXHAUSTED while too many of its guesses are held."""
        token = bearer(context)
        if not token:
            return False
        if hmac.compare_digest(token.encode(), self._admin):
            return True
        address = peer_address(context.peer())
        if self.failed.busy(address):
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED, "too many wrong tokens from your address"
            )
        log.warning("a wrong organizer token from %s", context.peer())
        await self.failed.hold(address)
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, "not the organizer's token")
        return False  # abort raises; this is for the type checker

    async def _presence(self, bots: list[str] | None = None) -> dict[str, tuple[int, int]]:
        """Who is connected (among ``bots``; default: anyone), with their concurrency and
        matches: to the other nodes as their leases say, to this one as it knows now."""
        seen = {}
        if self.node is not None:
            found = await asyncio.to_thread(self.store.presence, bots)
            seen = {b: (w.concurrency, w.playing) for b, w in found.items()}
        if self.hub is not None:
            here = self.hub.bots_here()
            seen.update(here if bots is None else {b: here[b] for b in bots if b in here})
        return seen

    async def _organizer(self, context: Any) -> None:
        if not await self._is_organizer(context):
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "this call needs the organizer's token (metadata authorization: Bearer TOKEN)",
            )

    async def _owner(self, context: Any, bot: str) -> str:
        """The organizer, or the bot's own token; anyone else is refused (a wrong token
        counted as a guess, as :meth:`_is_organizer` does). Who it was: the bot, or
        "organizer"."""
        token = bearer(context)
        if token and not hmac.compare_digest(token.encode(), self._admin):
            row = await asyncio.to_thread(self.store.bot_for_token, token)
            if row is not None:
                if row.name != bot:
                    await context.abort(
                        grpc.StatusCode.PERMISSION_DENIED,
                        f"this token is bot {quoted(row.name)}'s, not {quoted(bot)}'s",
                    )
                return bot
        if not await self._is_organizer(context):
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "this call needs the bot's own token or the organizer's "
                "(metadata authorization: Bearer TOKEN)",
            )
        return "organizer"

"""The Arena API as the CLI's reader and organizer commands reach it."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.errors import Invalid
from arena.guard import new_token
from arena.settings import Settings

log = logging.getLogger(__name__)

STREAM_S = 3600  # the longest a streamed call (an export) may take


class Arena:
    """A client of one Arena API, with an organizer's token for the calls that need it
    (``ARENA_ORGANIZER_TOKEN``, a named organizer's, else the first organizer's when this
    machine has it: none is ever made here) and a bot's for the others (``ARENA_TOKEN``,
    if set: then GetMatch and ExportBot show that bot's owner its own cards).

    :meth:`from_env` finds the API: ``$ARENA_ADDRESS`` when set (its first address); else
    the ``arena serve`` of ``$ARENA_HOME``, on its private socket; else an Arena API that
    this process serves itself on the store (``$ARENA_DATABASE_URL`` or the embedded
    PostgreSQL, plaintext on loopback), so that reading and organizing work with no server
    running; its first organizer's token is the machine's, or, when it has none, one that
    lives and dies with the process (never written).
    Never a TCP port nobody named: whoever listened there first would be sent the
    organizer's token."""

    def __init__(self, address: str, settings: Settings) -> None:
        self.address = address
        self._settings = settings

    @staticmethod
    def from_env() -> Arena:
        settings = Settings.from_env()
        address = settings.referee_address
        if not settings.referee_named:
            own = own_referee(settings.home)
            if own is None:
                token = settings.known_admin_token() or new_token()  # the process's own
                settings = dataclasses.replace(settings, admin_token_value=token)
            address = own or _serve_here(settings)
            settings = dataclasses.replace(settings, ca_file=None, tls=False)
        return Arena(address, settings)

    def call(
        self,
        method: str,
        request: Any,
        organizer: bool = False,
        token: str | None = None,
        timeout: float = 30,
        missing_ok: bool = False,
    ) -> Any:
        """One call (``request`` an iterator of messages for a streaming one), with the
        organizer's token or ``token`` if either is asked for; a gRPC error becomes
        SystemExit saying what the server said (but NOT_FOUND: None, with ``missing_ok``)."""
        import grpc

        channel, metadata = self._open(organizer, token)
        with channel:
            try:
                return self._stub(channel, method)(request, metadata=metadata, timeout=timeout)
            except grpc.RpcError as e:
                if missing_ok and e.code() == grpc.StatusCode.NOT_FOUND:
                    return None
                raise self._failed(e) from None

    def stream(
        self, method: str, request: Any, organizer: bool = False, timeout: float = STREAM_S
    ) -> Iterator[Any]:
        """The replies of a call that streams them, each as it arrives (the call is
        cancelled when the caller stops reading); a gRPC error, before the first reply or
        after some, becomes SystemExit as :meth:`call` says."""
        import grpc

        channel, metadata = self._open(organizer, None)
        with channel:
            replies = self._stub(channel, method)(request, metadata=metadata, timeout=timeout)
            try:
                yield from replies
            except grpc.RpcError as e:
                raise self._failed(e) from None
            finally:
                replies.cancel()

    def _open(self, organizer: bool, token: str | None) -> tuple[Any, list[tuple[str, str]]]:
        """A channel to the API, and the metadata carrying the token asked for."""
        try:
            channel = self._settings.channel(self.address)
        except Invalid as e:  # an unreadable CA file
            raise SystemExit(f"arena: {e}") from None
        bearer = token or (self._organizer() if organizer else self._reader())
        return channel, [("authorization", f"Bearer {bearer}")] if bearer else []

    def reads_as_organizer(self) -> bool:
        """Whether a reading call that shows more to an organizer goes as one: the
        machine has an organizer's token, and no bot's (``ARENA_TOKEN``) is set."""
        settings = self._settings
        return settings.bot_token_value is None and settings.organizer_token() is not None

    def _organizer(self) -> str:
        token = self._settings.organizer_token()
        if token is None:
            raise SystemExit(
                f"arena: this command needs an organizer's token, and this machine has none "
                f"(no arena was started under {self._settings.home}): set "
                "ARENA_ORGANIZER_TOKEN (a named organizer's) or ARENA_ADMIN_TOKEN"
            )
        return token

    def _reader(self) -> str | None:
        """The token of the other calls: the bot's (``ARENA_TOKEN``), if set."""
        return self._settings.bot_token_value

    @staticmethod
    def _stub(channel: Any, method: str) -> Any:
        from arena.proto.truco.v1 import arena_pb2_grpc

        return getattr(arena_pb2_grpc.ArenaStub(channel), method)

    def _failed(self, error: Any) -> SystemExit:
        """What a gRPC error says, as the command's last words (with a word on TLS when
        the failure suggests one: :func:`arena.channel.tls_mismatch`)."""
        from arena.channel import tls_mismatch

        said = f"arena: {error.details()} ({error.code().name.lower()}, at {self.address})"
        settings = self._settings
        hint = tls_mismatch(error.details() or "", self.address, settings.ca_file, settings.tls)
        return SystemExit(f"{said}: {hint}" if hint else said)


def own_referee(home: Path) -> str | None:
    """``unix:PATH`` of the referee of ``home`` when one listens on its socket, made by
    this user in a folder of this user's (:func:`arena.settings.own_socket`); else None."""
    from arena.errors import Unavailable
    from arena.settings import own_socket, referee_socket

    try:
        path = referee_socket(home)
    except Unavailable as e:
        log.warning("%s; the Arena API is served in this command", e)
        return None
    return f"unix:{path}" if own_socket(path) else None


def _serve_here(settings: Settings) -> str:
    """Serve the Arena API on a free loopback port from a thread of this process, for as
    long as the process lives; its address."""
    from arena.cli.wiring import arena_server, open_store

    store = open_store("(in-process Arena API)", settings, max_size=2)
    started: list[str] = []
    ready = threading.Event()

    async def serve() -> None:
        server = arena_server(store, settings, "127.0.0.1:0")
        await server.start()
        started.append(server.address)
        ready.set()
        await asyncio.Event().wait()  # until the process exits

    threading.Thread(target=asyncio.run, args=(serve(),), daemon=True).start()
    if not ready.wait(60):
        raise SystemExit("arena: the in-process Arena API did not start")
    return started[0]

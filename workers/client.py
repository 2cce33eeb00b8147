"""A client of the Arena API for the workers: play a match on a referee node (RunMatch),
and ask a node its name.

One channel per process, made on first use (after a worker process forks), shared by
its threads, with TLS when ``ca_file`` or ``tls`` say so. An unreachable or restarting
referee is :class:`Unreachable` (a kind of :class:`~arena.errors.Unavailable`), which the
tasks retry; a refused request is :class:`~arena.errors.Invalid`."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import grpc

from arena.channel import open_channel
from arena.domain.clock import TimeControl
from arena.errors import Invalid, Unavailable
from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.wire_clock import clock_to_pb

RUN_MATCH_DEADLINE_S = 3600.0  # waiting for free bots and playing: a match never takes this
ASK_DEADLINE_S = 10.0
RETRIED = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.UNKNOWN,
}


class Unreachable(Unavailable):
    """The referee could not be reached or gave up on the call; trying again may work."""


class RefereeClient:
    def __init__(
        self, address: str, admin_token: str, ca_file: str | None = None, tls: bool = False
    ) -> None:
        self.address = address
        self._secure = (ca_file, tls)
        self._metadata = [("authorization", f"Bearer {admin_token}")]
        self._lock = threading.Lock()
        self._stub: Any = None

    def _arena(self) -> Any:
        with self._lock:
            if self._stub is None:
                channel = open_channel(self.address, *self._secure)
                self._stub = arena_pb2_grpc.ArenaStub(channel)
            return self._stub

    def node_name(self) -> str:
        """The referee's name as a node (docs/cluster.md)."""
        try:
            reply = self._arena().ListNodes(
                api.ListNodesRequest(), metadata=self._metadata, timeout=ASK_DEADLINE_S
            )
        except grpc.RpcError as e:
            raise Unreachable(
                f"referee at {self.address}: {e.details()} ({e.code().name})"
            ) from None
        return str(reply.answered_by)

    def run_match(
        self,
        match_id: str,
        rules: str,
        seats: list[str],
        seed: int,
        clock: TimeControl,
        hosted_keys: Mapping[str, str] | None = None,
    ) -> str:
        """Have the referee play the match; its record, as JSON text. ``hosted_keys``:
        the tickets of the warm processes that play hosted seats, by seat name."""
        request = api.RunMatchRequest(
            match_id=match_id, rules=rules, seats=seats, seed=seed, clock=clock_to_pb(clock),
            hosted_keys=hosted_keys or {},
        )  # fmt: skip
        try:
            reply = self._arena().RunMatch(
                request, metadata=self._metadata, timeout=RUN_MATCH_DEADLINE_S
            )
        except grpc.RpcError as e:
            where = f"referee at {self.address}"
            if e.code() in RETRIED:
                raise Unreachable(f"{where}: {e.details()} ({e.code().name})") from None
            raise Invalid(f"{where} refused match {match_id}: {e.details()}") from None
        return str(reply.record_json)

"""kombu's Redis transport with one redis-py client per channel for its bookkeeping.

The stock channel makes a new client for every message it marks unacknowledged, every
acknowledgement and every publish, and making one costs more than the Redis command it
sends (a client builds its table of reply callbacks each time); on a worker that is
about a millisecond of CPU per task. redis-py clients are thread-safe (each command takes
a connection from the channel's pool), so one is kept, and made again only when the
channel's pool is replaced after a reconnection. :func:`install` makes every ``redis://``
and ``rediss://`` broker URL of the process use it.

A channel whose connection was closed or released under it (the broker went away) cannot
make a new pool, and stock kombu then raises an AttributeError where Celery only expects
connection errors. A worker died of it when Redis restarted: its consumer, reconnecting,
released the connection before closing the channel, and the close, giving back the tasks
in hand, raised out of the consumer ("Unrecoverable error"). Here it is a connection
error: the close goes on, a late ack is logged as lost, and the tasks come back after
the visibility timeout.
"""

from __future__ import annotations

from typing import Any

import redis as redis_py
from kombu import transport
from kombu.transport import redis


class Channel(redis.Channel):
    _sync_client: Any = None

    def _get_pool(self, asynchronous: bool = False) -> Any:
        """A new pool, made from the connection's parameters, which are gone once the
        connection was closed or released."""
        if getattr(self.connection, "client", None) is None:
            raise redis_py.ConnectionError("the broker connection of this channel was closed")
        return super()._get_pool(asynchronous)

    def _create_client(self, asynchronous: bool = False) -> Any:
        if asynchronous:  # the consuming connection (BRPOP): one per channel already
            return super()._create_client(asynchronous=True)
        client = self._sync_client
        if client is None or client.connection_pool is not self.pool:
            client = self._sync_client = super()._create_client()
        return client


class Transport(redis.Transport):
    Channel = Channel


def install() -> None:
    """Make kombu resolve the Redis schemes to :class:`Transport`, also where a
    connection made earlier in the process had them resolved (and cached) already."""
    for scheme in ("redis", "rediss"):
        transport.TRANSPORT_ALIASES[scheme] = f"{__name__}:Transport"
        transport._transport_cache.pop(scheme, None)

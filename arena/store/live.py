"""The live feed's channel: PostgreSQL's NOTIFY and LISTEN (docs/web.md, "Live").

The referee sends each event as a notification on :data:`CHANNEL` from a connection of
its own; every web process listens on one connection. A notification is not a row: it
reaches the connections listening at the time, and nobody else, and PostgreSQL keeps it
only until they have read it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any

import psycopg

CHANNEL = "arena_live"
MAX_PAYLOAD = 7900
"""The longest notification sent (PostgreSQL refuses one of 8000 bytes or more)."""
CONNECT_TIMEOUT_S = 5


def sender(conninfo: str) -> psycopg.Connection[Any]:
    """A connection to send notifications on (each statement its own transaction)."""
    return psycopg.connect(conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)


def notify(conn: psycopg.Connection[Any], payloads: list[str]) -> None:
    """Send ``payloads`` on the channel, in order, in one round trip."""
    conn.execute("SELECT pg_notify(%s, p) FROM unnest(%s::text[]) AS p", (CHANNEL, payloads))


async def listen(
    conninfo: str, listening: Callable[[], None] = lambda: None
) -> AsyncGenerator[str]:
    """The payloads sent on the channel from now on, as they come (``listening()`` is
    called once the channel is listened to); ends (raising psycopg.Error) when the
    connection is lost."""
    conn = await psycopg.AsyncConnection.connect(
        conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
    )
    async with conn:
        await conn.execute(f"LISTEN {CHANNEL}")
        listening()
        async for note in conn.notifies():
            yield note.payload

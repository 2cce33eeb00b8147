"""How the arena's processes are put together: the store on the settings' database, and
the one wiring of a referee that also serves the Arena API on it (``arena serve`` runs
it, and so does a reader command that finds no server). The rest of the CLI builds on
this module, which builds on nothing of the CLI's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.settings import Settings


def open_store(command: str, settings: Settings, max_size: int = 8, migrate: bool = False) -> Any:
    """The store on the settings' database (:func:`schema_ready`); SystemExit (1) saying
    why not."""
    from arena.store.store import Store

    url = schema_ready(command, settings, migrate)
    return Store(url, max_size=max_size, fit_absent_s=settings.fit_absent_s)


def schema_ready(command: str, settings: Settings, migrate: bool = False) -> str:
    """The connection string of the settings' database once its schema is this code's:
    migrated first with ``migrate``, or on the embedded database (a configured one is
    never migrated unasked: docs/operations.md); SystemExit (1) saying why not, naming
    the versions where the database is behind or ahead of the code."""
    import psycopg

    from arena.embedded import database_url
    from arena.errors import NotReady
    from arena.store import migrate as migrations

    try:
        url = database_url(settings)
        if migrate or settings.database_url is None:
            migrations.migrate(url)
        else:
            migrations.ready(url)
        return url
    except psycopg.Error as e:
        raise SystemExit(f"arena {command}: cannot use the database: {e}".strip()) from None
    except NotReady as e:
        raise SystemExit(f"arena {command}: {e}") from None


def arena_server(
    store: Any,
    settings: Settings,
    address: str,
    *,
    tokens: Sequence[tuple[str, str]] = (),
    credentials: Any = None,
    local_socket: str | None = None,
    node: str = "",
    node_address: str = "",
) -> Any:
    """A referee serving the Referee and Arena services on ``store``, not yet started: the
    registered bots' tokens (and ``tokens``, extra (bot, token) pairs) are accepted, and
    matches asked for go to the workers. It is a node of the referees on ``store``, named
    ``node`` and reached at ``node_address`` (defaults: the settings', else its address)."""
    from arena.store.store import StoreTokens
    from referee.api import ArenaApi
    from referee.hub import Hub
    from referee.server import NodeName, create_server
    from referee.sessions import MemoryTokens
    from workers.dispatch import Dispatcher

    book = MemoryTokens(fallback=StoreTokens(store))
    for bot, token in tokens:
        book.add(bot, token)
    arena = ArenaApi(
        store,
        settings.admin_token(),
        dispatch=Dispatcher(settings),
        spool=settings.home / "uploads",
    )
    named = NodeName(
        node or settings.node,
        node_address or settings.node_address,
        (settings.ca_file, settings.tls),
    )
    hub = Hub(book, proxies=settings.trusted_proxies)
    return create_server(address, hub, arena, credentials, local_socket, named)

"""A bot's registration and its own settings, each written with its entry of the action
log in one unit of work (docs/events.md): registered (its token made), its token rotated
(the old one refused from then on), its ladders' opt-in set."""

from __future__ import annotations

from arena.domain.identity import is_version, owner_bot
from arena.errors import Invalid
from arena.store.rows import BotRow
from arena.store.store import Store


def register_bot(store: Store, name: str, owner: str = "", *, actor: str) -> tuple[BotRow, str]:
    """A new bot and its token, shown only now (:meth:`Store.register_bot` says which
    names are taken), registered by ``actor``."""
    with store.unit() as conn:
        row, token = store.register_bot(name, owner, conn)
        store.log_action(conn, actor, "register", f"bot {row.name}", {"owner": row.owner})
    return row, token


def rotate_token(store: Store, name: str, *, actor: str) -> tuple[BotRow, str]:
    """A new token for bot ``name``, shown only now; the old one is refused from the
    moment this returns (a session it opened is the referee's to end)."""
    with store.unit() as conn:
        row, token = store.rotate_token(name, conn)
        store.log_action(conn, actor, "rotate token", f"bot {row.name}")
    return row, token


def set_bot_ladder(
    store: Store, name: str, on: bool, pool: str | None = None, *, actor: str
) -> BotRow:
    """Whether ladders may schedule bot ``name`` (docs/ladder.md): ``pool``'s, or (None)
    every pool's, its choices for single pools replaced; as ``actor`` asked. A version
    (``NAME@N``) has no choice of its own: its bot's is what counts (Invalid)."""
    if is_version(name):
        bot = owner_bot(name)
        raise Invalid(
            f"{name} is a version of {bot}: the ladder seats a bot's active version, so the "
            f"choice is the bot's (arena bot ladder {bot} on|off)"
        )
    with store.unit() as conn:
        row = store.set_bot_ladder(name, on, pool, conn)
        action = "ladder opt-in" if on else "ladder opt-out"
        detail = {"pool": pool} if pool is not None else None
        store.log_action(conn, actor, action, f"bot {row.name}", detail)
    return row

"""Named organizers (docs/events.md): one added with a token of their own, shown once;
one removed, their token refused from the next call on. The first organizer (the token
of ARENA_ADMIN_TOKEN or ARENA_HOME) is no row: it is neither added nor removed. Each is
written with its entry of the action log in one unit of work."""

from __future__ import annotations

from arena.domain.actors import FIRST, check_organizer_name
from arena.engine import quoted
from arena.errors import Exists, Invalid, NotFound
from arena.guard import new_token
from arena.store.rows import OrganizerRow
from arena.store.store import Store


def add_organizer(store: Store, name: str, *, actor: str) -> tuple[OrganizerRow, str]:
    """Organizer ``name`` and their new token (only its hash is kept: this is the one
    time it is seen). A name removed before may be added again, with a new token."""
    check_organizer_name(name)
    token = new_token()
    with store.unit() as conn:
        row = store.insert_organizer(conn, name, token)
        if row is None:
            raise Exists(f"an organizer named {quoted(name)} already exists")
        store.log_action(conn, actor, "add organizer", f"organizer {name}")
    return row, token


def remove_organizer(store: Store, name: str, *, actor: str) -> OrganizerRow:
    """Organizer ``name`` removed: their token is refused from now on. An organizer may
    remove themselves; the first organizer cannot be removed (it is no row)."""
    if name == FIRST:
        raise Invalid(
            f"{quoted(FIRST)} is the first organizer, the token of ARENA_ADMIN_TOKEN or "
            "ARENA_HOME: it is changed there, not removed"
        )
    with store.unit() as conn:
        row = store.remove_organizer(conn, name)
        if row is None:
            raise NotFound(f"no organizer named {quoted(name)} (arena organizer list)")
        store.log_action(conn, actor, "remove organizer", f"organizer {name}")
    return row

"""Tournament definitions: defined, changed (for the runs to come), and deleted (their runs
and records stay). Each is the organizer's, and written to the action log with who did
it; a run of one is arena/usecases/runs.py's."""

from __future__ import annotations

from arena.domain.tournament import Definition, deal_mode
from arena.engine import quoted
from arena.errors import Exists, Invalid, NotFound, NotReady
from arena.store.base import Unit
from arena.store.rows import TournamentRow
from arena.store.store import Store


def create_tournament(
    store: Store, definition: Definition, actor: str = "organizer"
) -> TournamentRow:
    """Keep a definition; its listed bots must be registered and active, and its deals
    fair for the bots as they play now (refused at once, with the real reason)."""
    _check(store, definition)
    try:
        with store.unit() as conn:
            row = store.insert_tournament(conn, definition)
            store.log_action(conn, actor, "create", f"tournament {row.name}", _shown(definition))
    except Exists as e:
        raise Exists(f"a tournament named {quoted(definition.name)} already exists") from e
    return row


def edit_tournament(
    store: Store, key: str, definition: Definition, actor: str = "organizer"
) -> TournamentRow:
    """Change a tournament's definition: the runs made from now on play it (a run keeps
    the definition it was made with). Its name stays; a schedule changed fires from now."""
    _check(store, definition)
    with store.unit() as conn:
        old = store.lock_tournament(conn, key)
        if definition.name != old.name:
            raise Invalid(
                f"a tournament keeps its name: {quoted(old.name)}, not {quoted(definition.name)}"
            )
        row = store.update_tournament(conn, old.id, definition)
        changed = {k: v for k, v in _shown(definition).items() if old.definition.get(k) != v}
        store.log_action(conn, actor, "edit", f"tournament {row.name}", changed)
    return row


def delete_tournament(store: Store, key: str, actor: str = "organizer") -> TournamentRow:
    """Delete a tournament: it fires no more and its name is free again; its runs and
    their records stay. Refused while one of its runs is not over."""
    with store.unit() as conn:
        row = store.lock_tournament(conn, key)
        _no_open_run(store, conn, row)
        store.delete_tournament(conn, row.id)
        store.log_action(conn, actor, "delete", f"tournament {row.name}")
    return row


def _no_open_run(store: Store, conn: Unit, row: TournamentRow) -> None:
    active = store.active_runs(conn, row.id)
    if active:
        listed = ", ".join(map(str, active))
        raise NotReady(
            f"tournament {quoted(row.name)} has a run that is not over ({listed}): "
            "cancel it first (arena run cancel ID)"
        )


def _check(store: Store, definition: Definition) -> None:
    listed = [*definition.bots, *([definition.challenger] if definition.challenger else [])]
    if listed:
        seated = {name: seat for name, (_, seat) in store.playing_as(listed).items()}
        missing = [b for b in dict.fromkeys(listed) if b not in seated]
        if missing:
            raise NotFound(f"no active bot named {', '.join(map(quoted, missing))}")
        deal_mode(definition, seated)


def _shown(definition: Definition) -> dict[str, object]:
    """A definition as the action log keeps it: without its seed, which deals every card."""
    return {k: v for k, v in definition.to_json().items() if k != "seed"}

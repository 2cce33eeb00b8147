"""The read model of the action log and the organizers (docs/events.md): who did what,
newest first, and who may organize."""

from __future__ import annotations

from typing import Any, TypedDict

from arena.domain.actors import FIRST
from arena.errors import Invalid
from arena.read import stamp
from arena.store.store import Store

LIMIT = 50  # entries of the log at a time, unless asked for another number
MAX_LIMIT = 1000


class ActionLine(TypedDict):
    id: int
    at: str
    actor: str  # an organizer's name, "bot NAME", or "arena"
    action: str
    subject: str
    detail: dict[str, Any]


class OrganizerLine(TypedDict):
    name: str
    created_at: str | None  # None: the first organizer, who was never added
    removed_at: str | None  # None: their token works
    first: bool


def actions(
    store: Store,
    subject: str | None = None,
    actor: str | None = None,
    limit: int = LIMIT,
    before: int | None = None,
) -> list[ActionLine]:
    """The action log, newest first: of ``subject`` and/or by ``actor`` when given, at
    most ``limit`` entries (1 to :data:`MAX_LIMIT`), older than entry ``before`` when
    given (the id the previous page ended on)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise Invalid(f"limit must be from 1 to {MAX_LIMIT}, not {limit}")
    rows = store.actions(subject=subject, actor=actor, limit=limit, before=before)
    return [
        ActionLine(id=r.id, at=stamp(r.at), actor=r.actor, action=r.action,
                   subject=r.subject, detail=r.detail)
        for r in rows
    ]  # fmt: skip


def organizers(store: Store) -> list[OrganizerLine]:
    """The first organizer, then the named ones as they were added (removed ones too)."""
    first = OrganizerLine(name=FIRST, created_at=None, removed_at=None, first=True)
    return [first] + [
        OrganizerLine(name=r.name, created_at=stamp(r.created_at),
                      removed_at=stamp(r.removed_at), first=False)
        for r in store.organizers()
    ]  # fmt: skip


def log_page(
    store: Store, subject: str | None, actor: str | None, before: int | None
) -> dict[str, Any]:
    """The organizer's page of the action log: a page of entries (as :func:`actions`),
    what it is filtered by, and the id the next page starts before (None: no more)."""
    found = actions(store, subject, actor, LIMIT + 1, before)
    more = len(found) > LIMIT
    shown = found[:LIMIT]
    return {
        "subject": subject,
        "actor": actor,
        "actions": shown,
        "next_before": shown[-1]["id"] if more else None,
    }

"""The action log and the named organizers in the store (migration 0016): who did what,
written in the unit of work of the write it records, so that an action and its entry are
kept or lost together; and the organizers besides the first, each known by the hash of
a token of their own (only the hash is kept, as for bots' tokens)."""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from arena.store.base import Connected, Unit, token_hash
from arena.store.rows import ActionRow, OrganizerRow
from arena.store.sql import QUERIES as Q


class Actions(Connected):
    def log_action(
        self,
        conn: Unit,
        actor: str,
        action: str,
        subject: str,
        detail: dict[str, Any] | None = None,
    ) -> None:
        """An entry of the action log: ``actor`` (an organizer's name, or "bot NAME") did
        ``action`` to ``subject``."""
        params = {"actor": actor, "action": action, "subject": subject,
                  "detail": Jsonb(detail or {})}  # fmt: skip
        conn.execute(Q["log_action"], params)

    def actions(
        self,
        *,
        subject: str | None = None,
        actor: str | None = None,
        limit: int = 50,
        before: int | None = None,
    ) -> list[ActionRow]:
        """The action log newest first: of ``subject`` and/or by ``actor`` when given,
        at most ``limit`` entries, those older than entry ``before`` when given."""
        params = {"subject": subject, "actor": actor, "limit": limit, "before": before}
        with self._statement() as conn:
            return [ActionRow(**r) for r in conn.execute(Q["list_actions"], params)]

    # ---- named organizers -----------------------------------------------------------

    def insert_organizer(self, conn: Unit, name: str, token: str) -> OrganizerRow | None:
        """Organizer ``name`` with ``token`` (its hash kept); one removed before comes back
        with it. None: a live organizer has the name already."""
        params = {"name": name, "token_hash": token_hash(token)}
        row = conn.execute(Q["insert_organizer"], params).fetchone()
        return None if row is None else OrganizerRow(**row)

    def remove_organizer(self, conn: Unit, name: str) -> OrganizerRow | None:
        """Organizer ``name`` removed now (None: no live organizer has the name)."""
        row = conn.execute(Q["remove_organizer"], {"name": name}).fetchone()
        return None if row is None else OrganizerRow(**row)

    def organizer_for_token(self, token: str) -> str | None:
        """The name of the live organizer whose token this is (None: nobody's)."""
        with self._statement() as conn:
            found = conn.execute(
                Q["organizer_by_token_hash"], {"token_hash": token_hash(token)}
            ).fetchone()
        return None if found is None else str(found["name"])

    def organizers(self) -> list[OrganizerRow]:
        """Every named organizer, removed ones too, the oldest first."""
        with self._statement() as conn:
            return [OrganizerRow(**r) for r in conn.execute(Q["list_organizers"])]

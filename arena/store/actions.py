"""The action log in the store (migration 0016): who did what, written in the unit of
work of the write it records, so that an action and its entry are kept or lost together."""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from arena.store.base import Connected, Unit
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

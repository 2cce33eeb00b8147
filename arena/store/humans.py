"""People playing bots from the web pages in the store (migration 0021): which bots their
owners let people challenge, and the row every human seat is."""

from __future__ import annotations

from arena.store.base import Connected, Unit
from arena.store.rows import BotRow
from arena.store.sql import QUERIES as Q


class Humans(Connected):
    def set_bot_humans(self, conn: Unit, name: str, on: bool) -> BotRow | None:
        """Whether people may challenge the registered bot ``name``; None: no such bot."""
        row = conn.execute(Q["set_bot_humans"], {"name": name, "on": on}).fetchone()
        return None if row is None else BotRow(**row)

    def human_row(self) -> BotRow | None:
        """The bot row of every human seat, made the first time (None: a registered bot
        took its name)."""
        with self._transaction() as conn:
            row = conn.execute(Q["human_row"]).fetchone()
            if row is None:
                conn.execute(Q["make_human_row"])
                row = conn.execute(Q["human_row"]).fetchone()
        return None if row is None else BotRow(**row)

    def human_opponents(self) -> dict[str, str]:
        """The bots people may challenge, by name: who plays for each (its active
        hosted version, else itself)."""
        with self._statement() as conn:
            return {r["name"]: r["seat"] for r in conn.execute(Q["human_opponents"])}

    def human_matches_going(self, person: str) -> int:
        """How many of the person's matches are scheduled or running."""
        with self._statement() as conn:
            row = conn.execute(Q["human_matches_going"], {"human": person}).fetchone()
        assert row is not None
        return int(row["going"])

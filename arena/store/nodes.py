"""Referee nodes and where bots are connected, as leases in the store (migration 0013,
docs/cluster.md). A node renews its own lease and its bots' every
:data:`RENEW_S`; a lease not renewed within :data:`LEASE_S` has lapsed and is read as
gone, so a node that dies takes its bots with it within that time, with nothing to clean.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.domain.nodes import LEASE_S, Held, Node, Where
from arena.store.base import Connected
from arena.store.sql import QUERIES as Q

DROP_WAIT_S = 2.0  # a stopping node waits this long at most to drop its leases


class Nodes(Connected):
    def renew_node(
        self, name: str, address: str, held: Sequence[Held], matches: int, relayed: int
    ) -> set[str]:
        """Renew the node's lease, with its load (``matches`` playing, seats ``relayed``
        so far), and its bots'; the bots among ``held`` whose row is no longer the
        node's (they connected to another node since)."""
        params = {
            "name": name, "node": name, "address": address, "lease": LEASE_S,
            "bots": [h.bot for h in held], "concurrency": [h.concurrency for h in held],
            "playing": [h.playing for h in held], "matches": matches, "relayed": relayed,
        }  # fmt: skip
        with self._transaction() as conn:
            kept = {r["bot"] for r in conn.execute(Q["renew_presence"], params)}
            conn.execute(Q["renew_node"], {**params, "bots": len(kept)})
        return {h.bot for h in held} - kept

    def load(self, node: str, held: Sequence[Held]) -> None:
        """The load of some of the node's bots as it changed (their leases renewed)."""
        params = {
            "node": node, "lease": LEASE_S, "bots": [h.bot for h in held],
            "concurrency": [h.concurrency for h in held], "playing": [h.playing for h in held],
        }  # fmt: skip
        with self._statement() as conn:
            conn.execute(Q["renew_presence"], params)

    def arrive(self, node: str, held: Held) -> None:
        """The bot's session is on ``node`` from now (it takes the row of any other)."""
        params = {"node": node, "bot": held.bot, "concurrency": held.concurrency}
        with self._statement() as conn:
            conn.execute(Q["arrive"], {**params, "playing": held.playing, "lease": LEASE_S})

    def depart(self, node: str, bot: str) -> None:
        """The bot's session on ``node`` ended (a row another node has taken stays)."""
        with self._statement() as conn:
            conn.execute(Q["depart"], {"node": node, "bot": bot})

    def drop_node(self, name: str) -> None:
        """The node stops: its lease and its bots' go at once. A stop does not wait for a
        database that is gone: DROP_WAIT_S at most for a connection, then Unavailable."""
        with self._transaction(wait_s=DROP_WAIT_S) as conn:
            conn.execute(Q["drop_node"], {"name": name})

    def live_nodes(self) -> list[Node]:
        with self._statement() as conn:
            return [Node(**r) for r in conn.execute(Q["live_nodes"])]

    def presence(self, bots: Iterable[str] | None = None) -> dict[str, Where]:
        """Where the bots (default: every bot) are connected, on live nodes."""
        wanted = None if bots is None else list(bots)
        with self._statement() as conn:
            rows = conn.execute(Q["presence"], {"bots": wanted})
            return {r["bot"]: Where(**r) for r in rows}

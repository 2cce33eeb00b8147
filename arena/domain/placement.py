"""Where a match is played, when several referee nodes share the database
(docs/cluster.md): on the node that holds most of its bots, so that as few seats as
possible go through a relay; a match with hosted seats on the worker's own node, whose
address its sandboxed processes are given. Pure: the caller reads the leases."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from arena.domain.nodes import Node


def place(
    nodes: Sequence[Node], where: Mapping[str, str], home: str | None, hosted: bool
) -> Node | None:
    """The live node (among ``nodes``) to play on, given the node each connected bot of
    the match is on (``where``: bot to node name) and the worker's own node (``home``,
    None when not known). Ties go to the home node, then to the least busy one, then by
    name; None when no node is live, or the match has hosted seats and the home node is
    not (the caller asks its own referee, and tries again while it is away)."""
    live = {n.name: n for n in nodes}
    if hosted or not live:  # its processes reach the worker's own node, live or not
        return live.get(home) if home is not None else None
    held = Counter(node for node in where.values() if node in live)
    return min(
        live.values(),
        key=lambda n: (-held[n.name], n.name != home, n.matches, n.name),
    )

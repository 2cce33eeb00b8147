"""The read model of the cluster (see :mod:`arena.read`, docs/cluster.md): the live
referee nodes, with their loads at their last renewal."""

from __future__ import annotations

from typing import TypedDict

from arena.read import stamp
from arena.store.store import Store


class NodeLine(TypedDict):
    name: str
    address: str  # where other nodes and the workers reach it
    bots: int  # connected to it, at its last renewal
    matches: int  # playing on it, at its last renewal
    relayed: int  # seats it carried to matches other nodes played, since it started
    started_at: str
    renewed_at: str


def nodes(store: Store) -> list[NodeLine]:
    """The live nodes."""
    return [
        NodeLine(
            name=n.name,
            address=n.address,
            bots=n.bots,
            matches=n.matches,
            relayed=n.relayed,
            started_at=stamp(n.started_at),
            renewed_at=stamp(n.renewed_at),
        )
        for n in store.live_nodes()
    ]

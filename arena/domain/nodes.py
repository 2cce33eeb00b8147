"""Referee nodes as values: a live node and its load, where a bot is connected, and the
leases' timings (docs/cluster.md; the store keeps the leases: arena/store/nodes.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

LEASE_S = 10.0  # a node or a bot not renewed this long is gone
RENEW_S = 2.0  # how often a node renews its leases
# how soon a change of a bot's matches reaches its lease (at most this often a node): a
# ladder deciding whom to pair reads them, and two seconds' stale load kept it from
# pairing bots a tournament had just let go
LOAD_S = 0.1


@dataclass(frozen=True, slots=True)
class Node:
    """A live node: where it is reached and its load at its last renewal."""

    name: str
    address: str
    bots: int
    matches: int
    relayed: int  # seats it carried to matches other nodes played, since it started
    started_at: datetime
    renewed_at: datetime


@dataclass(frozen=True, slots=True)
class Where:
    """Where a bot is connected, and its load there."""

    bot: str
    node: str
    address: str
    concurrency: int
    playing: int


@dataclass(frozen=True, slots=True)
class Held:
    """A bot connected to this node, as its lease says."""

    bot: str
    concurrency: int
    playing: int

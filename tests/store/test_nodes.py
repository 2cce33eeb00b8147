"""Referee nodes' leases in the store (arena/store/nodes.py) and where the workers place
a match (arena/domain/placement.py). The cluster of processes is tests/system/test_cluster.py's."""

from __future__ import annotations

from datetime import UTC, datetime

import psycopg

from arena.domain.nodes import Held, Node
from arena.domain.placement import place
from arena.store.store import Store

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def node(name: str, matches: int = 0) -> Node:
    return Node(name, f"{name}:50051", 0, matches, 0, NOW, NOW)


def lapse(database: str, table: str, key: str, value: str) -> None:
    """Make a lease run out now (as 10 s without renewal would)."""
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(
            f"UPDATE {table} SET expires_at = now() - interval '1 second' WHERE {key} = %s",
            (value,),
        )


def test_a_match_goes_where_most_of_its_bots_are() -> None:
    nodes = [node("a"), node("b"), node("c")]
    assert place(nodes, {"x": "b", "y": "b"}, "a", hosted=False).name == "b"
    assert place(nodes, {"x": "b", "y": "c", "z": "c"}, "a", hosted=False).name == "c"


def test_ties_go_home_then_to_the_least_busy_then_by_name() -> None:
    nodes = [node("a", matches=5), node("b", matches=1), node("c", matches=1)]
    assert place(nodes, {"x": "a", "y": "b"}, "a", hosted=False).name == "a"
    assert place(nodes, {"x": "b", "y": "c"}, "a", hosted=False).name == "b"
    assert place(nodes, {}, None, hosted=False).name == "b"
    assert place(nodes, {"x": "gone"}, "gone", hosted=False).name == "b"  # not live


def test_hosted_seats_play_on_the_workers_own_node() -> None:
    nodes = [node("a"), node("b")]
    assert place(nodes, {"x": "b"}, "a", hosted=True).name == "a"
    assert place(nodes, {"x": "b"}, "gone", hosted=True) is None  # played when it is back
    assert place([], {"x": "b"}, "a", hosted=False) is None


def test_presence_is_read_only_while_its_leases_hold(store: Store, database: str) -> None:
    assert store.renew_node("n1", "h:1", [], 0, 0) == set()
    assert store.renew_node("n2", "h:2", [], 0, 0) == set()
    store.arrive("n1", Held("ana", 4, 0))
    store.arrive("n2", Held("bia", 2, 1))
    assert store.renew_node("n1", "h:1", [Held("ana", 4, 3)], 7, 2) == set()
    found = store.presence()
    assert {b: (w.node, w.address, w.concurrency, w.playing) for b, w in found.items()} == {
        "ana": ("n1", "h:1", 4, 3),
        "bia": ("n2", "h:2", 2, 1),
    }
    assert store.presence(["bia", "nobody"]).keys() == {"bia"}
    live = {n.name: (n.bots, n.matches, n.relayed) for n in store.live_nodes()}
    assert live == {"n1": (1, 7, 2), "n2": (0, 0, 0)}

    lapse(database, "nodes", "name", "n2")  # its node died: its bots go with it
    assert store.presence().keys() == {"ana"}
    assert [n.name for n in store.live_nodes()] == ["n1"]
    lapse(database, "presence", "bot", "ana")  # a bot whose own lease ran out
    assert store.presence() == {}


def test_a_bot_that_connects_to_another_node_is_lost_by_the_first(store: Store) -> None:
    store.renew_node("n1", "h:1", [], 0, 0)
    store.renew_node("n2", "h:2", [], 0, 0)
    store.arrive("n1", Held("ana", 1, 0))
    store.arrive("n2", Held("ana", 1, 0))  # it reconnected there
    assert store.renew_node("n1", "h:1", [Held("ana", 1, 0)], 0, 0) == {"ana"}
    assert [n.bots for n in store.live_nodes()] == [0, 0]
    assert store.renew_node("n2", "h:2", [Held("ana", 1, 0)], 0, 0) == set()
    store.depart("n1", "ana")  # the old session's end takes nothing from the new one
    assert store.presence()["ana"].node == "n2"
    store.drop_node("n2")  # a clean stop: its node and its bots at once
    assert store.presence() == {}
    assert [n.name for n in store.live_nodes()] == ["n1"]

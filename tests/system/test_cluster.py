"""Several referee nodes on one database (docs/cluster.md), each an `arena serve` process,
with workers, bots and the nodes all separate processes on loopback: a tournament whose
pairs meet on one node and across nodes is recorded exactly once; a bot seated through a
relay sees only its own seat; a node killed mid-run leaves its bots to move to another,
and the run finishes with nothing lost or counted twice."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from arena.proto.truco.v1 import arena_pb2 as api
from arena.service import ARENA, Organizer, free_address, wait_serving
from tests.arenaproc import ADMIN, Arena, audit
from tests.system.test_fairness import MEMORY, guesses, public_texts, records, right

pytestmark = pytest.mark.faults
WAIT_S = 60.0


def cluster(arena_factory: Any, *names: str) -> tuple[Arena, dict[str, str]]:
    """An arena whose referee is node n1 (its workers' own), and more nodes by name:
    every node's address by name."""
    arena = arena_factory(None, ARENA_NODE="n1")
    nodes = {"n1": arena.address}
    for name in names:
        nodes[name] = free_address()
        env = {"ARENA_NODE": name, "ARENA_ADDRESS": nodes[name]}
        arena.processes.start(name, "serve", env=env)
        wait_serving(nodes[name])
    return arena, nodes


def seat(arena: Arena, bot: str, house: str, *addresses: str, concurrency: int = 4) -> None:
    """Register a house bot and start it, connecting to the first of ``addresses``."""
    arena.tokens[bot] = arena.organizer.bot_token(bot)
    arena.houses[bot] = house
    env = {"ARENA_ADDRESS": ",".join(addresses), "ARENA_TOKEN": arena.tokens[bot]}
    arena.processes.start(bot, "bot", "run", house, "--concurrency", str(concurrency), env=env)


def wait_for(arena: Arena, what: str, ready: Any) -> Any:
    """Ask the arena every 50 ms until ``ready(nodes, bots)`` is true (the leases live in
    the database, written as bots come and go): the last answer."""
    deadline = time.monotonic() + WAIT_S
    while True:
        nodes = arena.organizer.call("ListNodes", api.ListNodesRequest()).nodes
        bots = arena.organizer.call("ListBots", api.ListBotsRequest()).bots
        if ready(nodes, bots):
            return nodes, bots
        assert time.monotonic() < deadline, f"not {what}: {nodes} {bots}"
        time.sleep(0.05)  # polling the database, where the leases live


def where(arena: Arena) -> dict[str, str]:
    """The node each connected bot is on, from the leases."""
    return {w.bot: w.node for w in arena.store.presence().values()}


def placed(arena: Arena, nodes: dict[str, str]) -> dict[str, str]:
    """Each match's node, as the workers' log says they placed it (the last time)."""
    by_address = {a: n for n, a in nodes.items()}
    text = (arena.processes.logs / "worker.log").read_text(errors="replace")
    found = re.findall(r"match (\S+): played by the referee at (\S+)", text)
    return {match: by_address[address] for match, address in found}


def test_a_tournament_across_three_nodes_is_recorded_exactly_once(
    arena_factory: Any, database: str
) -> None:
    arena, nodes = cluster(arena_factory, "n2", "n3")
    wait_for(arena, "three nodes", lambda n, b: {x.name for x in n} == set(nodes))
    home = {"a1": "n1", "a2": "n1", "b1": "n2", "b2": "n2", "c1": "n3", "c2": "n3"}
    for bot, node in home.items():
        seat(arena, bot, "house:random", nodes[node])
    wait_for(arena, "all connected", lambda n, b: sum(x.connected for x in b) == len(home))
    assert where(arena) == home
    arena.worker()
    arena.tournament("t", list(home), matches=2)
    run = arena.wait_run(arena.start("t"))
    assert run.status == "finished", run.error
    assert audit(database, run.id) == {"lost": 0, "double": 0, "drift": 0.0}

    # pairs on one node were played there; pairs across nodes on one of theirs, with the
    # other seat carried by its node's relay
    seats = {m: r["seats"] for m, (r, _) in records(database).items()}
    assert len(seats) == 15 * 2
    played = placed(arena, nodes)
    for match, bots in seats.items():
        assert played[match] in {home[b] for b in bots}, (match, bots, played[match])
    across = [m for m, bots in seats.items() if len({home[b] for b in bots}) == 2]
    assert len(across) == 12 * 2
    # every seat was there: no bot was away, timed out or stood in for
    faults = [f for r, _ in records(database).values() for f in r["faults"].values()]
    assert not [f for f in faults if any(f.values())], faults
    # the relays' count reaches the leases at the nodes' next renewal
    wait_for(arena, "relays counted", lambda n, b: sum(x.relayed for x in n) >= len(across))
    shown = subprocess.run(
        [*ARENA, "nodes"], env=arena.env, capture_output=True, text=True, check=True
    ).stdout
    assert all(name in shown for name in nodes), shown


def test_matches_in_a_ring_across_nodes_never_wait_for_each_other(arena_factory: Any) -> None:
    # x, y and z take one match at a time, each on its own node, and three matches ask for
    # them in a ring, each on a node of its own: were each to seat its own node's bot
    # first and then wait for the other's, every one would hold what the next one waits for
    arena, nodes = cluster(arena_factory, "n2", "n3")
    home = {"x": "n1", "y": "n2", "z": "n3"}
    for bot, node in home.items():
        seat(arena, bot, "house:random", nodes[node], concurrency=1)
    wait_for(arena, "all connected", lambda n, b: sum(x.connected for x in b) == len(home))
    ring = [("n1", ["x", "y"]), ("n2", ["y", "z"]), ("n3", ["z", "x"])]
    callers = [Organizer(nodes[node], ADMIN) for node, _ in ring]
    try:
        with ThreadPoolExecutor(len(ring)) as pool:
            asks = [
                api.RunMatchRequest(match_id=f"ring-{k}", seats=s, seed=k)
                for k, (_, s) in enumerate(ring)
            ]
            calls = [
                pool.submit(organizer.call, "RunMatch", ask, 120.0)
                for organizer, ask in zip(callers, asks, strict=True)
            ]
            played = [json.loads(c.result().record_json) for c in calls]
    finally:
        for organizer in callers:
            organizer.close()
    assert [r["seats"] for r in played] == [seats for _, seats in ring]
    assert not [f for r in played for f in r["faults"].values() if any(f.values())]


def test_a_bot_seated_through_a_relay_sees_only_its_own_seat(
    arena_factory: Any, database: str, tmp_path: Path
) -> None:
    arena, nodes = cluster(arena_factory, "n2")
    seat(arena, "house", "house:random", nodes["n1"])
    arena.tokens["memory"] = arena.organizer.bot_token("memory")
    out = tmp_path / "guesses.jsonl"
    env = {"ARENA_ADDRESS": nodes["n2"], "ARENA_TOKEN": arena.tokens["memory"]}
    arena.processes.start("memory", str(MEMORY), str(out), env=env, command=[sys.executable])
    wait_for(arena, "both connected", lambda n, b: sum(x.connected for x in b) == 2)
    assert where(arena) == {"house": "n1", "memory": "n2"}
    arena.worker()
    ids = arena.challenge(["memory", "house"], 6)
    arena.wait_matches(ids, len(ids))
    assert {placed(arena, nodes)[m] for m in ids} == {"n1"}  # the workers' own node

    kept = records(database)
    made = guesses(out)
    assert set(made) == set(ids)
    tally = []
    for match_id, hands in made.items():
        record = kept[match_id][0]
        mine = record["seats"].index("memory")
        for hand in hands:  # what it held is its seat's deal, carried through the relay
            assert hand["mine"] == sorted(record["hands"][hand["hand"]]["cards"][mine])
        tally.append(right(hands, record, "memory"))
    hits, tries = sum(h for h, _ in tally), sum(n for _, n in tally)
    assert hits <= tries // 10, tally  # chance (1 in 7,770), not knowledge

    public = public_texts(arena, sorted(kept), [])
    secrets = {str(seed) for _, seed in kept.values()}
    for text in public:  # every node's log included
        assert not [s for s in secrets if s in text], text[:300]


def test_a_node_killed_mid_run_leaves_its_bots_to_the_others(
    arena_factory: Any, database: str
) -> None:
    arena, nodes = cluster(arena_factory, "n2", "n3")
    home = {"a1": "n1", "b1": "n2", "b2": "n2", "c1": "n3", "c2": "n3"}
    for bot, node in home.items():  # each bot knows its node, then n1
        seat(arena, bot, "house:mc", nodes[node], nodes["n1"])
    wait_for(arena, "all connected", lambda n, b: sum(x.connected for x in b) == len(home))
    arena.worker()
    arena.tournament("t", list(home), matches=2)
    run_id = arena.start("t")
    arena.wait_progress(run_id, 2)
    arena.processes.kill("n3")  # its matches are played again elsewhere, from their seeds
    assert arena.store.run_progress(run_id)["finished"] < 20, "too late to kill"
    # c1 and c2 move to n1, their second address, and n3's lease lapses
    wait_for(arena, "moved", lambda n, b: {"c1", "c2"} <= {x.bot for x in _on(arena, "n1")})
    wait_for(arena, "n3 gone", lambda n, b: "n3" not in {x.name for x in n})
    run = arena.wait_run(run_id, timeout_s=300)
    assert run.status == "finished", run.error
    assert audit(database, run_id) == {"lost": 0, "double": 0, "drift": 0.0}


def _on(arena: Arena, node: str) -> list[Any]:
    return [w for w in arena.store.presence().values() if w.node == node]


def test_a_bot_that_connects_to_another_node_leaves_the_first(arena_factory: Any) -> None:
    # one session per bot across nodes, as on one node: the newest connection takes over,
    # and the node that held the old one ends it at its next renewal of the leases
    arena, nodes = cluster(arena_factory, "n2")
    seat(arena, "ana", "house:random", nodes["n1"])
    wait_for(arena, "ana on n1", lambda n, b: where(arena) == {"ana": "n1"})
    first = arena.processes.running["ana"]
    env = {"ARENA_ADDRESS": nodes["n2"], "ARENA_TOKEN": arena.tokens["ana"]}
    arena.processes.start("ana-again", "bot", "run", "house:random", env=env)
    assert first.wait(timeout=WAIT_S) != 0  # ended by n1 with ABORTED: the SDK stops
    assert "another connection took over" in arena.processes.log("ana")
    wait_for(arena, "ana on n2", lambda n, b: where(arena) == {"ana": "n2"})

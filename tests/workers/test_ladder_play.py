"""The ladder with real processes: `arena serve`, Celery workers and the beat on Redis,
PostgreSQL, bots as processes of their own. It orders bots of known strength, spreads
its matches evenly and within the repeat limit; a bot that disconnects or opts out stops
being scheduled and one that reconnects comes back; and killing the scheduler, a worker
and the referee in turn loses nothing, counts nothing twice and lets no Elo drift."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from arena.domain.matchmaking import Policy, pair_key, repeat_cap
from arena.hosted.sandbox import unavailable
from arena.proto.truco.v1 import arena_pb2 as api
from arena.service import wait_serving
from tests import faultlog
from tests.arenaproc import Arena, audit_matches, broker_url

POOL = "paulista/1"
LADDERBOTS = Path(__file__).resolve().parents[1] / "ladderbots.py"


def opt_in(arena: Arena, *names: str) -> None:
    """Each bot opts in with its own token, as `arena bot ladder NAME on` does."""
    for name in names:
        request = api.SetBotLadderRequest(bot=name, on=True)
        metadata = [("authorization", f"Bearer {arena.tokens[name]}")]
        arena.organizer.stub.SetBotLadder(request, metadata=metadata, timeout=30)


def ladder(arena: Arena, on: bool = True, **settings: int) -> Any:
    request = api.SetLadderRequest(pool=POOL, on=on, **settings)
    return arena.organizer.call("SetLadder", request)


def state(arena: Arena) -> Any:
    return arena.organizer.call("GetLadder", api.GetLadderRequest(pool=POOL))


def matches(arena: Arena) -> list[tuple[str, str, list[str]]]:
    """Every ladder match in the order it was made: id, status, the bots at its seats."""
    with arena.store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT m.id, m.status, ARRAY(SELECT b.name FROM match_seats s JOIN bots b"
            " ON b.id = s.bot_id WHERE s.match_id = m.id ORDER BY s.seat) AS seats"
            " FROM matches m WHERE m.ladder_id IS NOT NULL ORDER BY m.id"
        ).fetchall()
    return [(r["id"], r["status"], r["seats"]) for r in rows]


def wait_until(arena: Arena, done: Any, what: str, timeout_s: float = 240.0) -> None:
    """Until ``done()`` (asked every 200 ms: the ladder's progress lives in the database)."""
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: {state(arena)}\n{arena.worker_log()}")
        time.sleep(0.2)


def finished(arena: Arena) -> int:
    return sum(status == "finished" for _, status, _ in matches(arena))


def settled(arena: Arena) -> list[tuple[str, str, list[str]]]:
    """Switch the ladder off and wait for its matches in play to end; all its matches."""
    ladder(arena, on=False)
    wait_until(arena, lambda: state(arena).playing == 0, "the ladder's last matches")
    return matches(arena)


def looked_again(arena: Arena) -> int:
    """Wait for two of the scheduler's looks that began after now (its every look after
    that sees the referee as it is now); the number of ladder matches made by then."""
    since = time.time()
    for _ in range(2):
        wait_until(
            arena,
            lambda since=since: _at(state(arena).looked_at or "1970-01-01T00:00:00+00:00") > since,
            "a look of the scheduler",
        )
        since = time.time()
    return int(state(arena).scheduled)


def _at(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


def cli(arena: Arena, *args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` on this arena: as the organizer, or with a bot's own ``token``."""
    env = arena.env | ({"ARENA_TOKEN": token} if token else {})
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


def connected(arena: Arena) -> set[str]:
    bots = arena.organizer.call("ListBots", api.ListBotsRequest()).bots
    return {b.name for b in bots if b.connected}


def seats_after(arena: Arena, number: int) -> list[list[str]]:
    """The bots of the ladder matches made after the first ``number``."""
    return [seats for _, _, seats in matches(arena)[number:]]


def test_a_bot_that_leaves_or_opts_out_is_no_longer_scheduled(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.processes.start("beat", "beat", "--loglevel", "info")
    arena.bots(ana="house:random", bia="house:random", cid="house:random")
    opt_in(arena, "ana", "bia", "cid")
    on = cli(arena, "ladder", "on", POOL, "--concurrency", "2", "--decision-ms", "100",
             "--reconnect-grace-ms", "500")  # fmt: skip
    assert on.returncode == 0 and "ladder paulista/1: on, up to 2 matches at once" in on.stdout
    wait_until(arena, lambda: any("cid" in s for _, _, s in matches(arena)), "cid on the ladder")

    arena.processes.kill("cid")  # gone: the next looks leave it out
    wait_until(arena, lambda: "cid" not in connected(arena), "cid disconnected")
    gone = looked_again(arena)
    wait_until(arena, lambda: len(matches(arena)) >= gone + 4, "matches without cid")
    assert not any("cid" in seats for seats in seats_after(arena, gone))

    arena.bot("cid")  # back: scheduled again
    arena.organizer.wait_connected(["cid"])
    back = len(matches(arena))
    wait_until(arena, lambda: any("cid" in s for s in seats_after(arena, back)), "cid back")

    # it opts out with its own token, connected as it is (the CLI, as its author would)
    out = arena.processes.start(
        "cid-out", "bot", "ladder", "cid", "off", env={"ARENA_TOKEN": arena.tokens["cid"]}
    )
    assert out.wait(timeout=60) == 0, arena.processes.log("cid-out")
    left = looked_again(arena)
    wait_until(arena, lambda: len(matches(arena)) >= left + 4, "matches after cid opted out")
    assert not any("cid" in seats for seats in seats_after(arena, left))
    shown = cli(arena, "ladder", "show", "--json")  # the ladder's looks since leave cid out
    assert shown.returncode == 0 and json.loads(shown.stdout)["available"] == ["ana", "bia"]
    everything = settled(arena)
    assert {status for _, status, _ in everything} == {"finished"}
    shown = cli(arena, "ladder", "show", POOL)  # then the leaderboard it filled
    assert shown.returncode == 0 and "ladder paulista/1: off" in shown.stdout
    assert "0 playing now" in shown.stdout and "cid" in shown.stdout
    found = audit_matches(arena.env["ARENA_DATABASE_URL"], [m for m, _, _ in everything])
    assert found == {"lost": 0, "double": 0, "drift": 0.0}


@pytest.mark.faults
def test_killing_the_scheduler_a_worker_and_the_referee_in_turn(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"), ARENA_BROKER_VISIBILITY_S="4")
    arena.worker()
    arena.processes.start("beat", "beat", "--loglevel", "info")
    bots = {"ana": "house:random", "bia": "house:heuristic", "cid": "house:random"}
    arena.bots(**bots)
    opt_in(arena, *bots)
    ladder(arena, concurrency=3, decision_ms=100)
    for kill in ("beat", "worker", "serve"):
        wait_until(arena, lambda: state(arena).playing > 0, "ladder matches in play")
        before = finished(arena)
        arena.processes.kill(kill)
        if kill == "beat":
            arena.processes.start("beat", "beat", "--loglevel", "info")
        elif kill == "worker":
            arena.worker("worker")
        else:  # matches in play are lost with it; their tasks retry, from their seeds
            arena.processes.start("serve", "serve")
            wait_serving(arena.address)
            arena.organizer.close()
            arena.organizer = type(arena.organizer)(arena.address, arena.env["ARENA_ADMIN_TOKEN"])
            arena.organizer.wait_connected(bots)
        arena.sweep()  # as the scheduler would, had a task been lost with its worker
        wait_until(arena, lambda n=before: finished(arena) >= n + 3, f"the ladder after {kill}")
    everything = settled(arena)
    found = audit_matches(arena.env["ARENA_DATABASE_URL"], [m for m, _, _ in everything])
    ok = found == {"lost": 0, "double": 0, "drift": 0.0}
    faultlog.record(ok, int(found["lost"]), int(found["double"]), found["drift"])
    assert found == {"lost": 0, "double": 0, "drift": 0.0}


# weakest first (tests/ladderbots.py says how each was measured)
KNOWN = {
    "quitter": "quitter",
    "hesitant": "hesitant",
    "random": "house:random",
    "mc-small": "mc1",
    "heuristic": "house:heuristic",
    "mc-large": "mc128",
}
LADDER_MATCHES = 600  # about 200 for each bot


def kendall_tau(order: list[str], truth: list[str]) -> float:
    rank = {name: k for k, name in enumerate(order)}
    pairs = [(a, b) for i, a in enumerate(truth) for b in truth[i + 1 :]]
    agree = sum(1 if rank[a] < rank[b] else -1 for a, b in pairs)
    return agree / len(pairs)


@pytest.mark.long
def test_the_ladder_orders_six_bots_of_known_strength(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.processes.start("beat", "beat", "--loglevel", "info")
    for name, kind in KNOWN.items():
        arena.tokens[name] = arena.organizer.bot_token(name)
        env = {"ARENA_ADDRESS": arena.address, "ARENA_TOKEN": arena.tokens[name]}
        if kind.startswith("house:"):
            arena.processes.start(name, "bot", "run", kind, "--concurrency", "4", env=env)
        else:
            arena.processes.start(name, str(LADDERBOTS), kind, env=env, command=[sys.executable])
    arena.organizer.wait_connected(KNOWN)
    opt_in(arena, *KNOWN)
    ladder(arena, concurrency=3)
    wait_until(arena, lambda: finished(arena) >= LADDER_MATCHES, "the ladder", timeout_s=600)
    everything = settled(arena)

    board = arena.organizer.call("GetLeaderboard", api.GetLeaderboardRequest(pool=POOL))
    order = [s.bot for s in reversed(board.standings)]  # weakest first, as KNOWN
    assert kendall_tau(order, list(KNOWN)) >= 0.8, [(s.bot, round(s.elo)) for s in board.standings]
    played = Counter(name for _, _, seats in everything for name in set(seats))
    mean = sum(played.values()) / len(KNOWN)
    assert all(abs(played[name] - mean) <= 0.3 * mean for name in KNOWN), played
    policy = Policy()
    cap = repeat_cap(len(KNOWN), policy.window, policy)
    pairs = [pair_key(*sorted(set(seats))) for _, _, seats in everything]
    for end in range(len(pairs)):  # every window of the matchmaker's, as it scheduled
        met = Counter(pairs[max(0, end - policy.window + 1) : end + 1])
        assert max(met.values()) <= cap, (end, met.most_common(3))
    found = audit_matches(arena.env["ARENA_DATABASE_URL"], [m for m, _, _ in everything])
    assert found == {"lost": 0, "double": 0, "drift": 0.0}


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
def test_a_hosted_bots_new_version_enters_the_ladder_with_placement_matches(
    arena_factory: Any,
) -> None:
    from tests.system.test_hosting import RANDOM_BOT, judged, submit

    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.processes.start("beat", "beat", "--loglevel", "info")
    dial_in = {"ana": "house:random", "bia": "house:heuristic", "cid": "house:random"}
    arena.bots(**dial_in)
    opt_in(arena, *dial_in)
    arena.organizer.bot_token("hosted")  # in by default: nobody runs anything for it
    assert judged(arena, submit(arena, "hosted", {"bot.py": RANDOM_BOT}).name).status == "active"
    ladder(arena, concurrency=2, decision_ms=200)
    wait_until(arena, lambda: played(arena, "hosted@1") >= 3, "the first version on the ladder")

    second = submit(arena, "hosted", {"bot.py": RANDOM_BOT + b"# version 2\n"})
    assert judged(arena, second.name).status == "active"
    first_made = len(matches(arena))
    wait_until(arena, lambda: played(arena, "hosted@2") >= 4, "the new version's placement")
    everything = settled(arena)
    # made after it was active (a step that read the bots before may still have made as
    # many as the ladder had free slots: 2)
    later = [seats for _, _, seats in everything[first_made + 2 :]]
    assert not any("hosted@1" in seats for seats in later), "a retired version is not paired"
    opponents = [s for seats in later if "hosted@2" in seats for s in set(seats) - {"hosted@2"}]
    assert len(set(opponents[:4])) >= 2, opponents  # its first matches meet a spread
    found = audit_matches(arena.env["ARENA_DATABASE_URL"], [m for m, _, _ in everything])
    assert found == {"lost": 0, "double": 0, "drift": 0.0}


def played(arena: Arena, seat: str) -> int:
    return sum(seat in seats and status == "finished" for _, status, seats in matches(arena))

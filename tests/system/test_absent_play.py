"""An absent bot cannot gain, end to end: `arena serve`, a Celery worker and dial-in bots
as processes of their own play a round robin in which one bot never connects and another
is killed halfway through. Their seats are played on (the others' matches go on), but
every match a bot was absent from is lost by its team, in the records, the standings,
the ratings, the API and the CLI; `--absent play-on` keeps the score as played."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest

from arena.domain.absence import absent_bots, credit
from arena.proto.truco.v1 import arena_pb2 as api
from tests.arenaproc import Arena, audit, broker_url

pytestmark = pytest.mark.faults

PRESENT = {"ana": "house:heuristic", "bia": "house:random", "caio": "house:random"}
GRACE_MS = 300  # a lost bot's seats are held this long, then its stand-in plays


def quitter(arena: Arena) -> None:
    """`quitter`, a house bot playing one match at a time (so that its matches come one
    after another, and some are played before it is killed)."""
    arena.tokens["quitter"] = arena.organizer.bot_token("quitter")
    env = {"ARENA_ADDRESS": arena.address, "ARENA_TOKEN": arena.tokens["quitter"]}
    arena.processes.start("quitter", "bot", "run", "house:random", "--concurrency", "1", env=env)
    arena.organizer.wait_connected(["quitter"])


def finished_of(arena: Arena, run_id: int, bot: str) -> list[tuple[Any, list[str]]]:
    return [
        (m, seats)
        for m, seats in arena.store.run_matches(run_id, limit=1000)
        if bot in seats and m.status == "finished"
    ]


def test_bots_absent_from_a_round_robin_lose_what_they_missed(
    arena_factory: Any, database: str
) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.bots(**PRESENT)
    arena.organizer.bot_token("ghost")  # registered, never connects
    quitter(arena)
    bots = [*PRESENT, "ghost", "quitter"]
    arena.tournament("course", bots, matches=2, reconnect_grace_ms=GRACE_MS)
    run_id = arena.start("course")
    deadline = time.monotonic() + 120
    while len(finished_of(arena, run_id, "quitter")) < 2:  # it has played, and is killed
        assert time.monotonic() < deadline, arena.worker_log()
        time.sleep(0.05)  # polling the database, where progress lives
    arena.processes.kill("quitter")
    run = arena.wait_run(run_id, timeout_s=300)
    assert run.status == "finished" and audit(database, run_id) == {
        "lost": 0, "double": 0, "drift": 0.0
    }  # fmt: skip

    forfeited: dict[str, int] = {}
    for m, seats in arena.store.run_matches(run_id, limit=1000):
        assert m.record is not None
        absent = absent_bots(m.record)
        assert set(absent) <= {"ghost", "quitter"}  # the others were there throughout
        expected = credit(m.record)
        assert (m.winner, tuple(m.forfeit or ())) == (expected.winner, expected.forfeits)
        for bot in absent:
            forfeited[bot] = forfeited.get(bot, 0) + 1
        if "ghost" in seats:  # never there: every decision made for it, every match lost
            assert "ghost" in absent and m.winner != seats.index("ghost") % 2
    assert forfeited["ghost"] == 8  # it meets each of the four others twice
    # quitter played its first matches itself and lost by forfeit all it missed: the
    # ones that began after it was killed (one was under way when it was)
    quitter_matches = [m for m, seats in arena.store.run_matches(run_id) if "quitter" in seats]
    present = [m for m in quitter_matches if "quitter" not in absent_bots(m.record)]
    assert len(present) >= 2 and forfeited["quitter"] >= 8 - len(present) - 1 >= 1

    table = {s.bot: s for s in run.standings}
    assert (table["ghost"].wins, table["ghost"].forfeits) == (0, 8)
    assert table["quitter"].forfeits == forfeited["quitter"]
    for bot in PRESENT:
        assert table[bot].forfeits == 0
    assert run.standings[-1].bot == "ghost" or table["ghost"].points == 0
    board = arena.organizer.call("GetLeaderboard", api.GetLeaderboardRequest(pool="paulista/1"))
    ratings = {s.bot: s for s in board.standings}
    assert ratings["ghost"].elo < 1500 and ratings["ghost"].wins == 0
    shown = subprocess.run(
        [sys.executable, "-m", "arena.cli", "tournament", "show", str(run_id)],
        env=arena.env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "forfeits" in shown.stdout
    ghost_line = next(line for line in shown.stdout.splitlines() if " ghost " in f" {line} ")
    assert " 0-8 " in ghost_line and " 8 " in ghost_line


def test_a_casual_event_plays_on(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.bots(ana="house:heuristic")
    arena.organizer.bot_token("ghost")
    arena.tournament(
        "casual", ["ana", "ghost"], matches=4, reconnect_grace_ms=GRACE_MS, absent="play-on"
    )
    run = arena.wait_run(arena.start("casual"))
    assert run.status == "finished" and run.definition.absent == "play-on"
    matches = arena.store.run_matches(run.id)
    assert all(absent_bots(m.record) == ["ghost"] for m, _ in matches)
    assert all(m.forfeit is None for m, _ in matches)  # the score stands
    assert all(m.winner == m.record["result"]["winner"] for m, _ in matches)

"""Sequential tests on the arena: the use case's steps on a real PostgreSQL (pairs made as
room allows, each counted once when both its matches are recorded, no match made once
decided, undecided when the matches run out, deals shared only between hosted bots),
and a test played end to end by the workers, asked for with the CLI and NEW's token."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from typing import Any

from arena.domain.clock import TimeControl
from arena.domain.sprt import Asked, Sprt
from arena.engine import Rules
from arena.store.store import Store
from arena.usecases.sprts import start_sprt, step_sprt
from tests.arenaproc import broker_url
from tests.store.test_store import played


@cache
def won_by(team: int) -> dict[str, Any]:
    """A real record of a match that team ``team`` won."""
    seed = 0
    while (record := played(Rules(), seed))["result"]["winner"] != team:
        seed += 1
    return record


def record(store: Store, match_id: str, new_won: bool) -> None:
    """Record the match as won by NEW's team, or by BASE's."""
    _, seats = store.match(match_id) or (None, [])
    new_team = 0 if seats[0] == "ana" else 1
    store.finish_match(match_id, won_by(new_team if new_won else 1 - new_team))


def test_a_test_counts_each_pair_once_and_stops_when_decided(store: Store) -> None:
    for name in ("ana", "bia"):
        store.register_bot(name)
    asked = Asked(Rules(), TimeControl(), max_games=100, at_once=4)
    test = start_sprt(store, "ana", "bia", Sprt(0, 200), asked, "organizer")
    assert not test.duplicate  # both dial in: each match its own deals
    made = step_sprt(store, test.id)
    assert made == [f"sprt{test.id}-0000{k}" for k in range(1, 5)]  # two pairs at once
    assert step_sprt(store, test.id) == []  # no room
    seeds = {store.match(m)[0].seed for m in made}  # type: ignore[index]
    assert len(seeds) == 4
    while True:
        row, _, _ = store.sprt(test.id) or (None, "", "")
        assert row is not None
        if row.status != "running":
            break
        playing = [m for m in made if store.match(m)[0].status != "finished"]  # type: ignore[index]
        for match_id in playing:
            record(store, match_id, new_won=True)
            made += step_sprt(store, test.id)
            made += step_sprt(store, test.id)  # a step taken twice counts nothing twice
    assert row.status == "H1" and row.won_both == row.lost_both + row.split + row.won_both
    pairs = store.sprt_pairs(test.id)
    assert [p.number for p in pairs] == list(range(1, len(pairs) + 1))
    assert [p.llr for p in pairs] == sorted(p.llr for p in pairs) and pairs[-1].llr >= 2.944
    assert step_sprt(store, test.id) == []  # decided: nothing more is made
    assert row.scheduled == len(made) and row.finished_at is not None


def test_a_test_that_runs_out_of_matches_is_undecided(store: Store) -> None:
    for name in ("ana", "bia"):
        store.register_bot(name)
    asked = Asked(Rules(), TimeControl(), max_games=4, at_once=8)
    test = start_sprt(store, "ana", "bia", Sprt(0, 20), asked, "organizer")
    made = step_sprt(store, test.id)
    assert len(made) == 4
    for k, match_id in enumerate(made):
        record(store, match_id, new_won=k % 2 == 0)  # every pair splits
    step_sprt(store, test.id)
    row, new, base = store.sprt(test.id) or (None, "", "")
    assert row is not None and (new, base) == ("ana", "bia")
    assert row.status == "undecided" and row.split == 2 and row.scheduled == 4


def test_a_test_is_played_by_the_workers(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.bots(smart="house:heuristic", dumb="house:random")
    argv = [sys.executable, "-m", "arena.cli", "test", "smart", "dumb",
            "--sprt", "elo0=0,elo1=50", "--games", "400", "--decision-ms", "200"]  # fmt: skip
    env = arena.env | {"ARENA_TOKEN": arena.tokens["smart"]}  # NEW's owner asks
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr + arena.worker_log()
    assert done.stdout.startswith("test ") and ": NEW smart against BASE dumb, " in done.stdout
    assert "H1 accepted (elo0=0, elo1=50): NEW smart is stronger than BASE dumb" in done.stdout
    test_id = int(done.stdout.split()[1].rstrip(":"))
    shown = subprocess.run(
        [sys.executable, "-m", "arena.cli", "test", "dumb", "smart", "--sprt", "elo0=0,elo1=5"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert shown.returncode == 3 and "not 'dumb''s" in shown.stderr  # smart's token: not dumb's
    found = arena.store.sprt(test_id)
    assert found is not None and found[0].status == "H1" and not found[0].rated
    with arena.store.pool.connection() as conn:
        rated = conn.execute("SELECT count(*) AS n FROM ratings").fetchone()
    assert rated is not None and rated["n"] == 0  # unrated: no rating moved
    pairs = arena.store.sprt_pairs(test_id)
    row = found[0]
    assert len({p.pair for p in pairs}) == len(pairs) == row.won_both + row.split + row.lost_both
    assert pairs[-1].llr >= 2.944

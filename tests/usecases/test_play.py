"""Playing a match that is due and the scheduler's tick, as use cases on a real
PostgreSQL: a match is played once and recorded once whoever asks again, a ladder's slot
is freed before the match is recorded, a test's next pairs come back to be sent; a due
firing makes one run however many schedulers tick, and what was left behind is taken up
again."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from arena.domain.tournament import Definition
from arena.engine import Rules
from arena.errors import Unavailable
from arena.store.rows import MatchRow
from arena.store.store import Store
from arena.usecases import ladder, matches, runs, schedule, tournaments
from arena.usecases.ladder import set_ladder
from tests.store.test_store import played


def two_bots(store: Store) -> list[int]:
    return [store.register_bot(n)[0].id for n in ("ana", "bia")]


def test_a_match_is_played_once_and_recorded_once(store: Store) -> None:
    matches.request(store, "m1", Rules(), two_bots(store), seed=7)
    asked: list[tuple[str, list[str]]] = []

    def referee(match: MatchRow, seats: list[str]) -> dict[str, Any]:
        asked.append((match.id, seats))
        return played(Rules(), match.seed)

    first = matches.play(store, "m1", referee)
    again = matches.play(store, "m1", referee)  # a task delivered twice
    assert asked == [("m1", ["ana", "bia"])]
    assert (first.played, first.recorded, first.next) == (True, True, [])
    assert (again.played, again.recorded) == (False, False)
    row = store.match("m1")
    assert row is not None and row[0].status == "finished"


def test_a_referee_away_leaves_the_match_to_be_played_again(store: Store) -> None:
    matches.request(store, "m1", Rules(), two_bots(store), seed=7)

    def away(match: MatchRow, seats: list[str]) -> dict[str, Any]:
        raise Unavailable("the referee is away")

    with pytest.raises(Unavailable):
        matches.play(store, "m1", away)
    assert store.match("m1")[0].status == "running"  # type: ignore[index]
    done = matches.play(store, "m1", lambda match, seats: played(Rules(), match.seed))
    assert done.recorded


def test_a_ladders_slot_is_freed_before_its_match_is_recorded(store: Store) -> None:
    for bot in ("ana", "bia"):
        store.register_bot(bot)
        store.set_bot_ladder(bot, True)
    set_ladder(store, "paulista/1", True, 1)
    ids = matches_of_ladder(store)
    seen: list[str] = []

    def freed(pool: str) -> None:
        row = store.match(ids[0])
        assert row is not None
        seen.append(f"{pool} {row[0].status}")

    done = matches.play(store, ids[0], lambda m, s: played(Rules(), m.seed), freed=freed)
    assert seen == ["paulista/1 running"] and done.recorded


def matches_of_ladder(store: Store) -> list[str]:
    """The ladder's first match: both bots dial in, connected with room for one."""
    ids = ladder.fill(store, "paulista/1", {"ana": (1, 0), "bia": (1, 0)})
    assert len(ids) == 1
    return ids


def test_a_due_firing_makes_one_run_however_many_schedulers_tick(store: Store) -> None:
    for bot in ("ana", "bia"):
        store.register_bot(bot)
    definition = Definition("minutely", bots=("ana", "bia"), schedule="* * * * *")
    tournaments.create_tournament(store, definition)
    now = datetime.now(UTC) + timedelta(seconds=61)  # a firing is due, nothing stalled yet
    first = schedule.tick(store, now)
    second = schedule.tick(store, now)
    assert len(first.started) == 1 and first.start == first.started
    assert second.started == [] and len(store.runs()) == 1


def test_schedulers_ticking_at_the_same_instant_make_one_run(store: Store) -> None:
    # each tick reads the tournament's last firing before any of them writes: only the
    # runs' unique (tournament, firing) key keeps them from making one run each
    for bot in ("ana", "bia"):
        store.register_bot(bot)
    definition = Definition("minutely", bots=("ana", "bia"), schedule="* * * * *")
    tournaments.create_tournament(store, definition)
    now = datetime.now(UTC) + timedelta(seconds=61)
    ticks = 6
    together = threading.Barrier(ticks)
    real = store.scheduled_tournaments

    def read_then_wait() -> Any:
        found = real()
        together.wait(timeout=30)
        return found

    store.scheduled_tournaments = read_then_wait  # type: ignore[method-assign]
    with ThreadPoolExecutor(ticks) as pool:
        made = list(pool.map(lambda _: schedule.tick(store, now).started, range(ticks)))
    assert sorted(map(len, made)) == [0] * (ticks - 1) + [1] and len(store.runs()) == 1


def test_a_run_left_starting_is_started_again(store: Store) -> None:
    for bot in ("ana", "bia"):
        store.register_bot(bot)
    tournament = tournaments.create_tournament(store, Definition("once", bots=("ana", "bia")))
    run = runs.create_run(store, tournament)
    assert run is not None
    now = datetime.now(UTC)
    assert run.id not in schedule.tick(store, now).start  # just made: not stalled yet
    late = schedule.tick(store, now + timedelta(seconds=schedule.STALL_S + 60))
    assert late.start == [run.id] and late.started == []

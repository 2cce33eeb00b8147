"""The domain's decisions on values alone, no database: a new match checks itself, a run's
plan (who plays whom, seats, deals, twins), a sequential test's step (which pairs count,
the verdict, the pairs made next) and a ladder's round (who meets whom, in which seats).
Their use cases on a real PostgreSQL: tests/usecases/test_*.py, test_tournament.py,
tests/usecases/test_sprt_arena.py and tests/usecases/test_ladder.py."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from arena.domain.clock import TimeControl
from arena.domain.formats import plan_run
from arena.domain.matches import (
    NewMatch,
    ladder_match_id,
    match_number,
    run_match_id,
    sprt_match_id,
)
from arena.domain.matchmaking import Available, Policy, ladder_round
from arena.domain.sprt import Asked, Room, Sprt, SprtMatch, Tally, pair_matches, step
from arena.domain.tournament import Definition, deal_seed
from arena.engine import Rules
from arena.errors import Exhausted, Invalid

KEY = bytes(32)
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_a_new_match_has_a_bot_for_each_seat_and_one_maker_at_most() -> None:
    match = NewMatch("m", Rules(), (1, 2), 7, run_id=3)
    assert match.pool == "paulista/1" and match.clock == TimeControl() and match.rated
    with pytest.raises(Invalid, match="2 seats, not 3"):
        NewMatch("m", Rules(), (1, 2, 3), 7)
    with pytest.raises(Invalid, match="one run, ladder or test"):
        NewMatch("m", Rules(), (1, 2), 7, run_id=1, sprt_id=2)


def test_a_match_made_by_a_run_a_test_or_a_ladder_is_numbered_in_its_id() -> None:
    for made in (run_match_id(4, 12), sprt_match_id(4, 12), ladder_match_id(4, 12)):
        assert match_number(made) == 12
    assert (run_match_id(4, 12), sprt_match_id(4, 12)) == ("r4-0012", "sprt4-00012")
    with pytest.raises(Invalid):
        match_number("m-3f2a")


def test_a_run_plans_every_pairing_with_the_bots_as_they_play() -> None:
    definition = Definition("weekly", bots=("ana", "bia", "cid"), matches=2)
    playing = {"ana": (1, "ana"), "bia": (2, "bia"), "cid": (3, "cid")}
    plan = plan_run(9, definition, playing, 5, KEY)
    assert plan.deals == "secret" and plan.participants == ["ana", "bia", "cid"]
    assert [m.id for m in plan.matches] == [run_match_id(9, n) for n in range(1, 7)]
    assert [m.seats for m in plan.matches[:2]] == [(1, 2), (2, 1)]  # seats move on
    assert all(m.run_id == 9 and m.twin is None for m in plan.matches)
    assert len({m.seed for m in plan.matches}) == 6
    assert plan_run(9, definition, playing, 5, KEY) == plan  # planned again: the same


def test_a_run_of_hosted_versions_is_dealt_in_twins() -> None:
    definition = Definition("weekly", bots=("ana", "bia"), matches=2)
    playing = {"ana": (11, "ana@2"), "bia": (12, "bia@1")}
    plan = plan_run(1, definition, playing, 5, KEY)
    first, second = plan.matches
    assert plan.deals == "duplicate-hosted" and plan.participants == ["ana@2", "bia@1"]
    assert (first.twin, second.twin) == (second.id, first.id)
    assert first.seed == second.seed and first.seats == (11, 12) and second.seats == (12, 11)


def test_a_run_that_cannot_be_played_says_why() -> None:
    alone = Definition("weekly", bots=("ana", "bia"))
    with pytest.raises(ValueError, match="at least two"):
        plan_run(1, alone, {"ana": (1, "ana")}, 5, KEY)
    twins = Definition("weekly", bots=("ana", "bia"), matches=2, duplicate=True)
    with pytest.raises(ValueError, match="dial"):
        plan_run(1, twins, {"ana": (1, "ana"), "bia": (2, "bia@1")}, 5, KEY)


def played(number: int, new_won: bool, minutes: int, status: str = "finished") -> SprtMatch:
    """Match ``number`` of a test, NEW (bot 1) first on odd numbers, as won or lost by it
    ``minutes`` after T0."""
    first = 1 if number % 2 else 2
    new_team = 0 if first == 1 else 1
    winner = None if status != "finished" else new_team if new_won else 1 - new_team
    return SprtMatch(number, status, winner, first, T0 + timedelta(minutes=minutes))


def test_a_step_counts_ended_pairs_in_the_order_they_ended_and_makes_more() -> None:
    test = Sprt(0, 200)
    matches = [
        played(1, True, 5), played(2, True, 6),  # pair 0: NEW won both, ended at 6
        played(3, False, 1), played(4, True, 2),  # pair 1: split, ended first
        played(5, True, 0), played(6, True, 0, "running"),  # pair 2 still playing
    ]  # fmt: skip
    done = step(test, Tally((0, 0, 0), 0.0, 6), matches, set(), 1, at_once=4, max_games=100)
    assert [(c.pair, c.score, c.number) for c in done.counted] == [(1, 1, 1), (0, 2, 2)]
    assert done.tally.pairs == (0, 1, 1) and done.tally.llr == test.llr([0, 1, 1])
    assert done.verdict is None and done.make == [3] and done.tally.scheduled == 8
    again = step(test, done.tally, matches, {0, 1}, 1, at_once=4, max_games=100)
    assert again.counted == [] and again.make == [4]  # counted before: not again


def test_a_step_stops_at_the_verdict_and_when_the_matches_run_out() -> None:
    test = Sprt(0, 10)
    won = [played(n, True, n) for n in range(1, 401)]
    done = step(test, Tally((0, 0, 0), 0.0, 400), won, set(), 1, at_once=8, max_games=400)
    assert done.verdict == "H1" and done.make == []
    assert len(done.counted) == sum(done.tally.pairs) < 200  # the rest do not count
    split = [played(n, n % 2 == 1, n) for n in range(1, 5)]
    out = step(test, Tally((0, 0, 0), 0.0, 4), split, set(), 1, at_once=8, max_games=4)
    assert out.verdict == "undecided" and out.tally.pairs == (0, 2, 0)


def test_a_pair_is_dealt_alike_only_when_duplicate() -> None:
    asked = Asked(Rules(), TimeControl(decision_ms=50), rated=True)
    first, second = pair_matches(7, 3, asked, 1, 2, True, KEY)
    assert (first.id, second.id) == ("sprt7-00007", "sprt7-00008")
    assert first.seats == (1, 2) and second.seats == (2, 1)
    assert first.seed == second.seed == deal_seed(KEY, "sprt7-pair3")
    assert first.twin == second.id and first.sprt_id == 7 and first.rated
    assert first.clock == TimeControl(decision_ms=50)
    own = pair_matches(7, 3, asked, 1, 2, False, KEY)
    assert own[0].seed != own[1].seed and own[0].twin is None


def test_an_owner_past_its_room_is_refused_saying_what_is_over() -> None:
    room = Room(tests=2, games=100)
    room.refuse("", "ana", 1, 40, 60)  # fits exactly
    with pytest.raises(Exhausted, match="bot 'ana' has 2 tests running"):
        room.refuse("", "ana", 2, 0, 2)
    with pytest.raises(Exhausted, match="owner 'team' has tests of 50 matches"):
        room.refuse("team", "ana", 1, 50, 60)


def test_a_ladder_round_fills_the_free_slots_and_swaps_seats_between_matches() -> None:
    bots = [Available(name, 1) for name in ("ana", "bia", "cid", "dan")]
    chosen = ladder_round(bots, [], [], 2, 4, Rules(), Policy(), random.Random(1))
    assert len(chosen) == 2 and len({name for seats in chosen for name in seats}) == 4
    assert chosen[0][0] != chosen[0][1]  # one bot per team
    pairs = ladder_round(
        bots[:2], [], [], 2, 4, Rules(), Policy(), random.Random(1)
    ) + ladder_round(bots[:2], [], [], 1, 5, Rules(), Policy(), random.Random(1))
    assert pairs[0] == pairs[1][::-1]  # match 5 and match 6 of the ladder: seats swapped


def test_a_ladder_round_leaves_out_a_bot_busy_on_another_ladder() -> None:
    bots = [Available("ana", 1), Available("bia", 1), Available("cid", 1, elsewhere=1)]
    chosen = ladder_round(bots, [["ana", "dan"]], [], 3, 0, Rules(), Policy(), random.Random(1))
    assert chosen == []  # ana plays elsewhere, cid too: bia has nobody
    free = ladder_round(bots, [], [], 3, 0, Rules(), Policy(), random.Random(1))
    assert len(free) == 1

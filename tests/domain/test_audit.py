"""The audit's judgement alone (arena/domain/audit.py): what a difference between a kept
count and its history says, a run's total against its matches, standings compared line
by line, and ratings against a fit of the same results."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from arena.domain.audit import (
    check_fit,
    check_runs,
    check_standings,
    check_stuck,
    compare_counts,
    lineups_of,
)
from arena.domain.poolfit import fit
from arena.domain.standings import Result, standings


def test_equal_counts_find_nothing_and_a_missing_row_counts_zero() -> None:
    kept = {("paulista/1", "ana"): {"matches": 3, "timeouts": 0}}
    again = {("paulista/1", "ana"): {"matches": 3, "timeouts": 0},
             ("paulista/1", "bia"): {"matches": 0, "timeouts": 0}}  # fmt: skip
    assert compare_counts("bot_pool_stats", kept, again) == []


def test_a_difference_says_where_and_which_way() -> None:
    kept = {("paulista/1", "ana", "bia"): {"games": 5, "wins": 3, "rated_wins": 3}}
    again = {("paulista/1", "ana", "bia"): {"games": 4, "wins": 3, "rated_wins": 2},
             ("paulista/1", "bia", "ana"): {"games": 4, "wins": 1, "rated_wins": 1}}  # fmt: skip
    first, second = map(str, compare_counts("pair_stats", kept, again))
    assert first == (
        "counted: pair_stats pool paulista/1, ana against bia: games 5 kept, 4 in the history; "
        "rated_wins 3 kept, 2 in the history (1 more than the history gives: a match counted "
        "twice, or still counted though voided or gone)"
    )
    assert second.startswith("counted: pair_stats pool paulista/1, bia against ana: games 0 kept")
    assert second.endswith("(4 fewer than the history gives: a finished match not counted)")


def run(**values: object) -> dict[str, object]:
    base = {"id": 3, "tournament": "weekly", "status": "running", "total": 6, "planned": 6,
            "scheduled": 0, "running": 0, "has_standings": False}  # fmt: skip
    return base | values


def test_a_runs_total_and_what_is_left_in_it() -> None:
    assert check_runs([run(), run(status="cancelled", running=1)], []) == []
    found = [f.what for f in check_runs([
        run(planned=5), run(planned=7), run(status="finished", scheduled=1, running=1),
    ], [])]  # fmt: skip
    assert found == [
        "6 matches planned, 5 found: 1 lost",
        "7 matches found, 6 planned: 1 too many",
        "finished, with 1 match still scheduled: never played",
        "finished, with 1 match still running: not in its standings",
        "finished without standings",
    ]
    strays = [{"match_id": "m1", "run_id": 9, "no_run": True, "no_seats": True}]
    assert [str(f) for f in check_runs([], strays)] == [
        "lost: match m1: of run 9, which does not exist",
        "lost: match m1: has no seats",
    ]


def test_a_match_running_too_long_is_stuck() -> None:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    (found,) = check_stuck([{"match_id": "m1", "run_id": None,
                             "since": at - timedelta(seconds=300)}], at)  # fmt: skip
    assert str(found) == (
        "stuck: match m1: running for 300 s (more than 120 s): its worker or referee is gone"
    )


def test_standings_are_compared_with_those_their_results_give() -> None:
    results = [Result("m1", ["ana", "bia"], 0, (12, 3)), Result("m2", ["bia", "ana"], 1, (4, 12))]
    kept = standings(["ana", "bia"], results)
    assert check_standings(3, kept, standings(["ana", "bia"], results)) == []
    found = check_standings(3, kept, standings(["ana", "bia"], results[:1]))
    assert [f.where for f in found] == ["run 3 standings, bot ana", "run 3 standings, bot bia"]
    assert "played 2 kept, 1 from its results" in found[0].what


def test_ratings_are_compared_with_a_fit_of_the_recounted_lineups() -> None:
    recounted = {("paulista/1", "ana", "bia"): {"games": 4, "wins": 3, "lost_both": 0,
                                                "split": 1, "won_both": 1},
                 ("other/1", "cid", "dan"): {"games": 1, "wins": 1, "lost_both": 0,
                                             "split": 0, "won_both": 0}}  # fmt: skip
    lineups = lineups_of(recounted, "paulista/1")
    assert [(x.team_a, x.team_b, x.paired) for x in lineups] == [(("ana",), ("bia",), (0, 1, 1))]
    elos = {name: e.elo for name, e in fit(lineups).ratings.items()}
    assert check_fit("paulista/1", lineups, elos) == []
    (found,) = check_fit("paulista/1", lineups, elos | {"bia": elos["bia"] - 1})
    assert found.where == "ratings pool paulista/1, bot bia"

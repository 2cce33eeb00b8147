"""Formats played in rounds through the use cases, on a real PostgreSQL: each match
claimed and recorded through the one recording path, each round paired when the one
before it is done, as the workers do it; a stage seeded from another run's table; what
the organizer may still fix in a run in rounds; the audit clean afterwards. (The same on
real servers, workers and bots: tests/workers/test_formats.py.)"""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime

import pytest

from arena.domain.tournament import Definition
from arena.engine import Rules
from arena.errors import NotReady
from arena.read.audit import audit
from arena.read.tournaments import run_state
from arena.store.store import Store
from arena.usecases import participants, runs, schedule, tournaments
from arena.usecases.matches import claim, record
from tests.store.test_store import played


def bots(store: Store, n: int) -> tuple[str, ...]:
    names = tuple(f"bot{i:02d}" for i in range(1, n + 1))
    for name in names:
        store.register_bot(name)
    return names


def start(store: Store, definition: Definition, **given: object) -> tuple[int, list[str]]:
    tournament = store.tournament(definition.name) or tournaments.create_tournament(
        store, definition
    )
    run = runs.create_run(store, tournament, **given)  # type: ignore[arg-type]
    assert run is not None
    return run.id, runs.plan_run(store, run.id, window=1000)


def drive(store: Store, run_id: int, sent: list[str], seed: int = 0) -> int:
    """Play every match sent, as workers do: claimed, recorded once, and when the run has
    nothing left to play, moved on (its next round, or its table). The matches played."""
    queue, rng, count = list(sent), random.Random(seed), 0
    while queue:
        match_id = queue.pop(0)
        claim(store, match_id)
        done = record(store, match_id, played(Rules(), rng.randrange(10**6)))
        count += 1
        queue += runs.next_matches(store, run_id, 1000)
        if done.run_done:
            queue += runs.advance_run(store, run_id, 1000).next
    return count


def test_a_knockout_with_byes_plays_round_by_round_to_one_champion(store: Store) -> None:
    field = bots(store, 6)
    run_id, sent = start(store, Definition("ko", bots=field, format="knockout", matches=3))
    assert len(sent) == 2 * 3  # round 1: two ties; the two best seeds have byes
    played_ = drive(store, run_id, sent)
    found = store.run(run_id)
    assert found is not None
    run = found[0]
    assert run.status == "finished" and run.standings is not None
    table = run.standings["table"]
    assert table[0]["stage"] == "champion"
    assert [r["name"] for r in run.standings["rounds"]] == ["quarter-final", "semi-final", "final"]
    ties = [t for r in run.rounds or [] for t in r if t["bots"][1] is not None]
    assert len(ties) == 5  # one fewer than the field
    tiebreaks = sum(t.get("tiebreaks", 0) for t in ties)
    assert played_ == run.total == 5 * 3 + 2 * tiebreaks
    assert audit(store, run_id)["clean"]
    state = run_state(store, run_id, run.created_at, organizer=False)
    assert state["rounds"] == run.standings["rounds"] and state["standings"] == table


def test_a_swiss_of_nine_over_four_rounds_recomputed_by_hand(store: Store) -> None:
    field = bots(store, 9)
    definition = Definition("sw", bots=field, format="swiss", rounds=4, matches=1)
    run_id, sent = start(store, definition)
    assert len(sent) == 4  # 9 bots: four pairings and a bye
    found = store.run(run_id)
    assert found is not None and len(found[0].rounds or []) == 1
    drive(store, run_id, sent, seed=1)
    found = store.run(run_id)
    assert found is not None
    run = found[0]
    rounds = run.rounds or []
    assert run.status == "finished" and len(rounds) == 4 and run.standings is not None
    met = Counter(frozenset(p) for r in rounds for p in r["pairings"])
    assert max(met.values()) == 1  # no rematch
    assert len({r["bye"] for r in rounds}) == 4  # a bye a round, nobody twice
    games = store.run_games(run_id)
    assert len(games) == 4 * 4 and all(g.round in (1, 2, 3, 4) for g in games)
    # the table, from the recorded games alone
    score = Counter({b: 0 for b in field})
    for g in games:
        assert g.result is not None
        score[g.seats[g.result.winner or 0]] += 1 if g.result.winner is not None else 0
    for r in rounds:
        score[r["bye"]] += 1  # a bye: a round won
    buchholz: Counter[str] = Counter()
    sb: Counter[str] = Counter()
    for g in games:
        assert g.result is not None and g.result.winner is not None
        a, b = g.seats
        winner = g.seats[g.result.winner]
        buchholz[a] += score[b]
        buchholz[b] += score[a]
        sb[winner] += score[b if winner == a else a]
    lines = {line["bot"]: line for line in run.standings["table"]}
    for bot in field:
        assert lines[bot]["points"] == score[bot], bot
        assert (lines[bot]["buchholz"], lines[bot]["sonneborn_berger"]) == (buchholz[bot], sb[bot])
    ranked = [(x["points"], x["buchholz"], x["sonneborn_berger"]) for x in run.standings["table"]]
    assert ranked == sorted(ranked, reverse=True)
    first = Counter(g.seats[0] for g in games)
    for bot in field:  # seats balanced: never more than two apart
        assert abs(2 * first[bot] - sum(bot in g.seats for g in games)) <= 2
    assert audit(store, run_id)["clean"]


def test_groups_then_the_top_four_in_a_knockout_is_one_command(store: Store) -> None:
    field = bots(store, 8)
    groups = Definition("groups", bots=field, format="groups", groups=2, matches=2)
    first, sent = start(store, groups)
    drive(store, first, sent, seed=2)
    found = store.run(first)
    assert found is not None and found[0].standings is not None
    order = [line["bot"] for line in found[0].standings["table"]]
    assert [line["group_rank"] for line in found[0].standings["table"]][:4] == [1, 1, 2, 2]

    final = Definition("final", seed_from="groups", format="knockout", matches=2)
    second, sent = start(store, final, top=4)
    run = store.run(second)
    assert run is not None and run[0].seeds == order[:4]
    assert run[0].participants == order[:4]
    drive(store, second, sent, seed=3)
    done = store.run(second)
    assert done is not None and done[0].standings is not None
    assert done[0].standings["table"][0]["stage"] == "champion"
    semi = done[0].standings["rounds"][0]["pairings"]
    assert [p["bots"] for p in semi] == [[order[0], order[3]], [order[1], order[2]]]
    assert audit(store, second)["clean"]


def test_a_stage_needs_a_finished_run(store: Store) -> None:
    field = bots(store, 4)
    run_id, _ = start(store, Definition("groups", bots=field))
    final = tournaments.create_tournament(
        store, Definition("final", seed_from=str(run_id), format="knockout")
    )
    failed = runs.create_run(store, final)
    assert failed is not None
    found = store.run(failed.id)
    assert found is not None and found[0].status == "failed"
    assert f"run {run_id} is running: a stage is seeded from a finished run" in (
        found[0].error or ""
    )
    assert runs.plan_run(store, failed.id) == []  # nothing to plan


def test_a_round_that_is_paired_from_stands(store: Store) -> None:
    field = bots(store, 4)
    run_id, sent = start(store, Definition("ko", bots=field, format="knockout", matches=2))
    first = sent[0]
    drive(store, run_id, sent[:1])
    runs.void_match(store, run_id, first, "a bug in the referee")  # its round still plays
    drive(store, run_id, sent[1:])
    found = store.run(run_id)
    assert found is not None and found[0].status == "finished"
    with pytest.raises(NotReady, match="round 2 was paired from its result"):
        runs.replay_match(store, run_id, sent[1], "too late")


def test_a_round_that_ends_while_paused_is_paired_on_resume(store: Store) -> None:
    field = bots(store, 4)
    run_id, sent = start(store, Definition("ko", bots=field, format="knockout", matches=1))
    runs.pause_run(store, run_id)
    for match_id in sent:  # sent before the pause: they play and are recorded
        store.set_status(match_id, "running")
        assert record(store, match_id, played(Rules(), 5)).recorded
    assert runs.advance_run(store, run_id).next == []  # paused: nothing paired
    final = runs.resume_run(store, run_id)
    assert len(final) == 1 and final[0] == f"r{run_id}-0003"
    drive(store, run_id, final)
    found = store.run(run_id)
    assert found is not None and found[0].status == "finished"


def test_a_withdrawn_bot_loses_its_tie_by_walkover_and_the_run_moves_on(store: Store) -> None:
    field = bots(store, 4)
    run_id, sent = start(store, Definition("ko", bots=field, format="knockout", matches=2))
    drive(store, run_id, [m for m in sent if "bot04" not in (store.match(m) or (None, []))[1]])
    moved: list[str] = []
    participants.set_state(store, "bot04", "withdrawn", "left", send=moved.extend)
    found = store.run(run_id)
    assert found is not None
    tie = next(t for t in (found[0].rounds or [[]])[0] if "bot04" in t["bots"])
    assert (tie["winner"], tie["how"]) == ("bot01", "walkover")
    assert len(moved) == 2  # the final, sent
    drive(store, run_id, moved)
    done = store.run(run_id)
    assert done is not None and done[0].status == "finished"
    assert audit(store, run_id)["clean"]


def test_a_scheduled_swiss_fires_and_plays_round_by_round(store: Store) -> None:
    field = bots(store, 4)
    definition = Definition("nightly", bots=field, format="swiss", rounds=3, schedule="0 3 * * *")
    t = tournaments.create_tournament(store, definition)
    with store.pool.connection() as conn:  # made long before its first firing
        conn.execute("UPDATE tournaments SET fired_at = now() - interval '2 days' WHERE id = %s",
                     (t.id,))  # fmt: skip
    due = schedule.tick(store, datetime.now(UTC))
    (run_id,) = due.started
    drive(store, run_id, runs.plan_run(store, run_id, window=1000))
    found = store.run(run_id)
    assert found is not None and found[0].status == "finished"
    assert found[0].fired_for is not None and len(found[0].rounds or []) == 3


def test_a_sealed_twin_is_withheld_from_the_bracket_until_both_are_played(store: Store) -> None:
    field = bots(store, 2)
    definition = Definition("ko", bots=field, format="knockout", matches=2, duplicate=True,
                            trusted=True)  # fmt: skip
    run_id, sent = start(store, definition)
    claim(store, sent[0])
    record(store, sent[0], played(Rules(), 1))
    now = datetime.now(UTC)
    seen = {o: run_state(store, run_id, now, organizer=o)["rounds"][0]["pairings"][0]
            for o in (True, False)}  # fmt: skip
    assert seen[True]["matches"] == 1 and sum(seen[True]["wins"]) == 1
    assert seen[False]["matches"] == 0 and seen[False]["wins"] == [0, 0]  # its twin is to play
    assert seen[False]["playing"] == 1
    drive(store, run_id, sent[1:])
    after = run_state(store, run_id, now, organizer=False)["rounds"][0]["pairings"][0]
    assert after["matches"] >= 2 and after["winner"] is not None


def test_a_run_whose_definition_is_no_longer_valid_still_reads(store: Store) -> None:
    field = bots(store, 2)
    run_id, sent = start(store, Definition("old", bots=field))
    drive(store, run_id, sent)
    with store.pool.connection() as conn:  # playing still, its preset renamed since, say
        conn.execute(
            'UPDATE runs SET definition = definition || \'{"rules": "gone"}\', standings = NULL,'
            " status = 'running'"
            " WHERE id = %s",
            (run_id,),
        )
    state = run_state(store, run_id, datetime.now(UTC), organizer=False)
    assert sum(line["played"] for line in state["standings"]) == 2 * len(sent)
    assert state["progress"]["expected"] == len(sent)

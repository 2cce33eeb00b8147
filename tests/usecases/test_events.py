"""The organizer's control of an event through its use cases, on a real PostgreSQL: a
tournament edited, unscheduled and deleted; a run's window, pause, resume and cancel; a
match voided and played again; entries frozen when a run is made (and closed before it);
unrated events; bots withdrawn, disqualified, reinstated and retired, and what each does
to tables and ratings. (The same on real servers and workers: tests/workers/test_events.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from arena.domain.tournament import Definition
from arena.domain.versions import Manifest
from arena.engine import Rules
from arena.errors import Exists, Invalid, NotFound, NotReady
from arena.hosted.archive import check
from arena.store.store import Store
from arena.usecases import participants, runs, schedule, tournaments
from arena.usecases.matches import claim
from arena.usecases.versions import judge, submit
from tests.hosted.test_archive import BOT, tar
from tests.store.test_store import played

BOTS = ("ana", "bia", "cid")


def event(store: Store, bots: tuple[str, ...] = BOTS, **fields: object) -> int:
    """The bots registered, a tournament of them made and a run of it planned: its id."""
    for bot in bots:
        if store.bot(bot) is None:
            store.register_bot(bot)
    definition = Definition("cup", bots=bots, **fields)  # type: ignore[arg-type]
    run = runs.create_run(store, tournaments.create_tournament(store, definition))
    assert run is not None
    runs.plan_run(store, run.id, window=1000)
    return run.id


def play(store: Store, match_id: str, seed: int = 0) -> None:
    claim(store, match_id)
    store.finish_match(match_id, played(Rules(), seed))


def statuses(store: Store, run_id: int) -> dict[str, str]:
    return {m.id: m.status for m, _ in store.run_matches(run_id, limit=1000)}


def table(store: Store, run_id: int) -> dict[str, int]:
    found = store.run(run_id)
    assert found is not None and found[0].standings is not None
    return {row["bot"]: row["played"] for row in found[0].standings["table"]}


def games(store: Store, bot: str) -> int:
    rows = store.bot_ratings(bot)
    return sum(r.games for r in rows)


# ---- tournaments ------------------------------------------------------------------------


def test_a_tournament_is_edited_for_later_runs_and_its_name_stays(store: Store) -> None:
    run_id = event(store, matches=2)
    edited = Definition("cup", bots=BOTS, matches=4, schedule="0 3 * * *")
    row = tournaments.edit_tournament(store, "cup", edited)
    assert row.schedule == "0 3 * * *" and row.definition["matches"] == 4
    found = store.run(run_id)
    assert found is not None and found[0].definition["matches"] == 2  # the run keeps its own
    with pytest.raises(Invalid, match="keeps its name"):
        tournaments.edit_tournament(store, "cup", Definition("other", bots=BOTS))
    with pytest.raises(NotFound, match="no tournament 'nope'"):
        tournaments.edit_tournament(store, "nope", edited)


def test_an_unscheduled_tournament_does_not_fire(store: Store) -> None:
    for bot in BOTS:
        store.register_bot(bot)
    cron = Definition("nightly", bots=BOTS, schedule="* * * * *")
    made = tournaments.create_tournament(store, cron)
    due = datetime.now(UTC) + timedelta(minutes=2)
    tournaments.edit_tournament(store, "nightly", Definition("nightly", bots=BOTS))
    assert schedule.tick(store, due).started == []
    assert store.runs(made.id) == []


def test_a_deleted_tournament_frees_its_name_and_keeps_its_runs(store: Store) -> None:
    run_id = event(store)
    with pytest.raises(NotReady, match="has a run that is not over"):
        tournaments.delete_tournament(store, "cup")
    runs.cancel_run(store, run_id)
    tournaments.delete_tournament(store, "cup")
    assert store.tournament("cup") is None and store.run(run_id) is not None
    again = tournaments.create_tournament(store, Definition("cup", bots=BOTS))
    assert again.name == "cup"
    with pytest.raises(Exists, match="a tournament named 'cup' already exists"):
        tournaments.create_tournament(store, Definition("cup", bots=BOTS))


# ---- a run's window, pause, resume, cancel ----------------------------------------------


def test_a_run_keeps_its_window_in_flight_and_each_match_recorded_sends_the_next(
    store: Store,
) -> None:
    for bot in BOTS:
        store.register_bot(bot)
    t = tournaments.create_tournament(store, Definition("cup", bots=BOTS, matches=4))
    run = runs.create_run(store, t)
    assert run is not None
    first = runs.plan_run(store, run.id, window=3)
    assert first == ["r1-0001", "r1-0002", "r1-0003"]
    assert runs.next_matches(store, run.id, 3) == []  # the window is full
    play(store, "r1-0001")
    assert runs.next_matches(store, run.id, 3) == ["r1-0004"]


def test_a_paused_run_starts_nothing_until_resumed(store: Store) -> None:
    run_id = event(store, matches=2)
    ids = sorted(statuses(store, run_id))
    play(store, ids[0])
    runs.pause_run(store, run_id)
    held = claim(store, ids[1])  # a task taken while paused: not started, unsent again
    assert held.run_status == "paused" and held.match.status == "scheduled"
    match, _ = store.match(ids[1]) or (None, None)
    assert match is not None and match.status == "scheduled" and match.sent_at is None
    assert runs.next_matches(store, run_id) == []
    with pytest.raises(NotReady, match="only a running run can be paused"):
        runs.pause_run(store, run_id)
    sent = runs.resume_run(store, run_id)
    assert ids[1] in sent and ids[0] not in sent
    assert claim(store, ids[1]).match.status == "scheduled"  # claimed now: it was scheduled
    assert store.match(ids[1])[0].status == "running"  # type: ignore[index]


def test_a_cancelled_run_plays_nothing_more_and_tables_what_was_played(store: Store) -> None:
    run_id = event(store, matches=2)
    ids = sorted(statuses(store, run_id))
    play(store, ids[0])
    claim(store, ids[1])  # playing as the run is cancelled
    assert not runs.cancel_run(store, run_id, "the room is closing")
    left = statuses(store, run_id)
    assert left[ids[1]] == "running"
    assert {left[m] for m in ids[2:]} == {"cancelled"}
    assert claim(store, ids[2]).match.status == "cancelled"  # its task finds it so
    store.finish_match(ids[1], played(Rules(), 1))  # the one playing ends and is recorded
    assert runs.finish_run(store, run_id)
    found = store.run(run_id)
    assert found is not None and found[0].status == "cancelled"
    assert sum(table(store, run_id).values()) == 4  # two matches, two bots each
    with pytest.raises(NotReady, match="only a run not over can be cancelled"):
        runs.cancel_run(store, run_id)


# ---- voided and replayed matches ------------------------------------------------------


def test_a_voided_match_counts_for_no_table_and_no_rating(store: Store) -> None:
    run_id = event(store, ("ana", "bia"), matches=2)
    first, second = sorted(statuses(store, run_id))
    play(store, first, 0)
    play(store, second, 1)
    assert runs.finish_run(store, run_id)
    assert table(store, run_id) == {"ana": 2, "bia": 2} and games(store, "ana") == 2
    with pytest.raises(Invalid, match="say why"):
        runs.void_match(store, run_id, first, " ")
    runs.void_match(store, run_id, first, "played on the wrong clock")
    assert table(store, run_id) == {"ana": 1, "bia": 1}  # the finished table written again
    assert games(store, "ana") == 1 and games(store, "bia") == 1
    with pytest.raises(NotReady, match="voided before"):
        runs.void_match(store, run_id, first, "again")
    with pytest.raises(NotFound, match="no run 99"):
        runs.void_match(store, 99, first, "wrong run")


def test_a_failed_match_played_again_counts_in_its_run(store: Store) -> None:
    run_id = event(store, ("ana", "bia"), matches=2)
    first, second = sorted(statuses(store, run_id))
    play(store, first)
    claim(store, second)
    store.set_status(second, "failed")  # as a worker marks it after its last try
    assert runs.finish_run(store, run_id)
    assert table(store, run_id) == {"ana": 1, "bia": 1}
    new_id, sent = runs.replay_match(store, run_id, second, "the referee was restarted")
    assert new_id == f"{second}.2" and sent == [new_id]
    found = store.run(run_id)
    assert found is not None and found[0].status == "running"  # open until it is recorded
    replay, seats = store.match(new_id) or (None, [])
    old, old_seats = store.match(second) or (None, [])
    assert replay is not None and old is not None and replay.replay_of == second
    assert seats == old_seats and replay.seed != old.seed  # secret deals: new ones
    with pytest.raises(NotReady, match="played again before"):
        runs.replay_match(store, run_id, second, "twice")
    play(store, new_id)
    assert runs.finish_run(store, run_id)
    assert table(store, run_id) == {"ana": 2, "bia": 2}
    notes = store.run_notes(run_id)
    assert [n["match_id"] for n in notes] == [new_id] and notes[0]["replay_of"] == second


def test_a_finished_match_played_again_is_voided_first_and_keeps_trusted_deals(
    store: Store,
) -> None:
    run_id = event(store, ("ana", "bia"), matches=2, duplicate=True, trusted=True)
    first, second = sorted(statuses(store, run_id))
    play(store, first)
    play(store, second)
    new_id, _ = runs.replay_match(store, run_id, first, "a bot crashed on a known bug")
    old, _ = store.match(first) or (None, None)
    replay, _ = store.match(new_id) or (None, None)
    assert old is not None and replay is not None
    assert old.voided == f"replayed as {new_id}: a bot crashed on a known bug"
    assert replay.seed == old.seed  # trusted bots: the same deals
    assert games(store, "ana") == 1


# ---- entries and unrated events ---------------------------------------------------------


def versions_of(store: Store, bot: str, count: int) -> list[str]:
    """``count`` hosted versions of the bot, each judged active in turn: their names."""
    made = []
    for _ in range(count):
        data = tar(BOT | {"n": str(len(store.versions(bot))).encode()})
        row, _ = submit(
            store,
            bot,
            Manifest("python", "bot.py"),
            data,
            check(data, Manifest("python", "bot.py")),
        )
        judge(store, row.id)
        made.append(f"{bot}@{row.number}")
    return made


def test_a_run_plays_the_versions_active_when_it_was_made(store: Store) -> None:
    for bot in ("ana", "bia"):
        store.register_bot(bot)
    versions_of(store, "ana", 1)
    t = tournaments.create_tournament(store, Definition("cup", bots=("ana", "bia")))
    run = runs.create_run(store, t)
    assert run is not None
    versions_of(store, "ana", 1)  # ana@2, submitted once the run was made
    runs.plan_run(store, run.id)
    found = store.run(run.id)
    assert found is not None and found[0].participants == ["ana@1", "bia"]
    later = runs.create_run(store, t)
    assert later is not None
    runs.plan_run(store, later.id)
    found = store.run(later.id)
    assert found is not None and found[0].participants == ["ana@2", "bia"]


def test_entries_close_before_a_run(store: Store) -> None:
    for bot in ("ana", "bia"):
        store.register_bot(bot)
    (first,) = versions_of(store, "ana", 1)
    closing = Definition("cup", bots=("ana", "bia"), entries_close_s=3600)
    t = tournaments.create_tournament(store, closing)
    with store.pool.connection() as conn:  # the first version was active two hours ago
        conn.execute("UPDATE version_activations SET at = now() - interval '2 hours'")
    versions_of(store, "ana", 1)  # a version of a minute ago: too late for this run
    run = runs.create_run(store, t)
    assert run is not None
    runs.plan_run(store, run.id)
    found = store.run(run.id)
    assert found is not None and found[0].participants == [first, "bia"]
    assert found[0].entries == {
        "ana": [found[0].entries["ana"][0], first],
        "bia": found[0].entries["bia"],
    }


def test_an_unrated_event_moves_no_rating(store: Store) -> None:
    run_id = event(store, ("ana", "bia"), matches=2, rated=False)
    for k, match_id in enumerate(sorted(statuses(store, run_id))):
        play(store, match_id, k)
    assert runs.finish_run(store, run_id)
    assert table(store, run_id) == {"ana": 2, "bia": 2}
    assert games(store, "ana") == 0 and store.bot_ratings("ana") == []


# ---- participants -----------------------------------------------------------------------


def test_a_withdrawn_bot_plays_no_more_and_its_played_matches_stand(store: Store) -> None:
    run_id = event(store, matches=2)
    ids = statuses(store, run_id)
    cid_first = min(m.id for m, seats in store.run_matches(run_id, 1000) if "cid" in seats)
    play(store, cid_first)
    bot = participants.set_state(store, "cid", "withdrawn", "left the course")
    assert (bot.state, bot.state_reason, bot.active) == ("withdrawn", "left the course", False)
    left = statuses(store, run_id)
    with_cid = {m.id for m, seats in store.run_matches(run_id, 1000) if "cid" in seats}
    assert {left[m] for m in with_cid - {cid_first}} == {"cancelled"}
    assert {left[m] for m in set(ids) - with_cid} == {"scheduled"}
    with pytest.raises(NotReady, match="withdrawn already"):
        participants.set_state(store, "cid", "withdrawn")
    later = runs.create_run(store, store.tournament("cup"))  # type: ignore[arg-type]
    assert later is not None
    runs.plan_run(store, later.id)
    found = store.run(later.id)
    assert found is not None and found[0].participants == ["ana", "bia"]
    participants.set_state(store, "cid", "active")
    assert store.bot("cid").active  # type: ignore[union-attr]


def test_a_disqualified_bot_s_matches_count_for_nothing(store: Store) -> None:
    run_id = event(store, ("ana", "bia", "cid"), matches=2)
    for k, (match_id, _) in enumerate(sorted(statuses(store, run_id).items())):
        play(store, match_id, k)
    assert runs.finish_run(store, run_id)
    assert table(store, run_id) == {"ana": 4, "bia": 4, "cid": 4}
    assert games(store, "ana") == 4
    with pytest.raises(Invalid, match="say why"):
        participants.set_state(store, "cid", "disqualified", run_id=run_id)
    participants.set_state(store, "cid", "disqualified", "copied ana's code", run_id=run_id)
    assert table(store, run_id) == {"ana": 2, "bia": 2, "cid": 0}
    assert games(store, "ana") == 2 and games(store, "cid") == 0
    fitted = store.pool_fit("paulista/1", store.pool_version("paulista/1"))
    assert fitted is not None and "cid" not in fitted.halves
    assert store.bot("cid").state == "active"  # type: ignore[union-attr]  # one run only


def test_a_retired_bot_enters_no_run(store: Store) -> None:
    event(store)
    participants.set_state(store, "cid", "retired", "replaced by cid2")
    with pytest.raises(NotFound, match="no active bot named 'cid'"):
        tournaments.create_tournament(store, Definition("other", bots=BOTS))
    with pytest.raises(Invalid, match="only a withdrawal or a disqualification"):
        participants.set_state(store, "ana", "retired", run_id=1)
    with pytest.raises(Invalid, match="a bot's state is one of"):
        participants.set_state(store, "ana", "banned")

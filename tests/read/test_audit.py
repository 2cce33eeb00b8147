"""The audit on a real PostgreSQL (docs/events.md): an arena where real runs were
played and recorded through the use cases audits clean; a copy of its database made from
it as a template, with a fault planted by SQL, is found out, naming where, while the
original still audits clean; one run audited alone sees its own matches."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from arena.domain.absence import Credit
from arena.domain.tournament import Definition
from arena.engine import Rules
from arena.errors import NotFound
from arena.read.audit import AuditReport, audit
from arena.store.migrate import migrate
from arena.store.store import Store
from arena.usecases import matches, runs
from arena.usecases.runs import finish_run, plan_run
from arena.usecases.tournaments import create_tournament
from tests.scratch import scratch_database
from tests.store.test_store import played
from tests.usecases.test_runs import started


@dataclass(frozen=True)
class Played:
    """A database where runs were played: ``done`` finished (its pool fitted), ``open``
    planned and not played."""

    database: str
    done: int
    open: int


def play_arena(database: str) -> Played:
    """Two runs of three bots: one played whole on duplicate deals (so that lineups keep
    duplicate pairs) and finished, one planned and left to play."""
    migrate(database)
    store = Store(database, max_size=2)
    try:
        duplicate = Definition("weekly", bots=("ana", "bia", "cid"), matches=2, duplicate=True,
                               trusted=True)  # fmt: skip
        done = started(store, duplicate)
        for k, match_id in enumerate(plan_run(store, done)):
            matches.record(store, match_id, played(Rules(), k))
        assert finish_run(store, done)
        later = Definition("later", bots=("ana", "bia"), matches=2)
        run = runs.create_run(store, create_tournament(store, later))
        assert run is not None
        plan_run(store, run.id)
        return Played(database, done, run.id)
    finally:
        store.close()


@pytest.fixture
def arena(database: str) -> Played:
    return play_arena(database)


@contextlib.contextmanager
def copy_of(database: str) -> Iterator[str]:
    """A copy of ``database`` (CREATE DATABASE ... TEMPLATE: nobody may be connected to
    it meanwhile), dropped afterwards."""
    source = conninfo_to_dict(database)["dbname"]
    admin = make_conninfo(database, dbname="postgres")
    with scratch_database(admin, "arena_copy", template=str(source)) as copy:
        yield copy


def audited(database: str, run_id: int | None = None) -> AuditReport:
    store = Store(database, max_size=1)
    try:
        return audit(store, run_id)
    finally:
        store.close()


def plant(database: str, sql: str) -> None:
    with psycopg.connect(database) as conn:
        conn.execute(sql)


def lines(report: AuditReport) -> list[str]:
    return [f"{f['check']}: {f['where']}: {f['what']}" for f in report["findings"]]


def test_an_arena_played_through_its_use_cases_audits_clean(arena: Played) -> None:
    report = audited(arena.database)
    assert report["clean"], lines(report)
    assert report["matches"] == {"finished": 6, "scheduled": 2}
    assert report["runs"] == {"finished": 1, "running": 1}
    assert (report["ratings"], report["voided"], report["replays"]) == (3, 0, 0)
    assert report["events"] == 12  # two bots rated by each of the six matches
    assert report["checked"] == {"bot_pool_stats": 3, "pair_stats": 6, "lineup_stats": 3,
                                 "ratings": 3, "fitted_pools": 1}  # fmt: skip
    assert report["at"] is not None and report["run"] is None


# The counting trigger's effect on one match's bots applied twice, over and above.
TWICE = """
UPDATE bot_pool_stats SET matches = matches + 1
WHERE bot_id IN (SELECT bot_id FROM match_seats WHERE match_id = '{match}');
UPDATE ratings SET games = games + 1, wins = wins + 1
WHERE bot_id = (SELECT bot_id FROM match_seats WHERE match_id = '{match}' AND seat = 0);
"""
# A run's match gone with its seats and its rating events (its counts stay).
GONE = """
DELETE FROM rating_events WHERE match_id = '{match}';
DELETE FROM match_seats WHERE match_id = '{match}';
UPDATE matches SET twin = NULL WHERE twin = '{match}';
DELETE FROM matches WHERE id = '{match}';
"""
# A finished match's counts taken back, as if the trigger had never run for it.
UNCOUNTED = """
UPDATE bot_pool_stats SET matches = matches - 1
WHERE bot_id IN (SELECT bot_id FROM match_seats WHERE match_id = '{match}');
"""
# One bot's rating change of a match lost, and one given to a bot that did not play it.
EVENTS = """
DELETE FROM rating_events
WHERE match_id = '{match}' AND bot_id = (SELECT id FROM bots WHERE name = 'ana');
INSERT INTO rating_events (bot_id, match_id, pool, before, after)
SELECT b.id, '{other}', 'paulista/1', 1500, 1510 FROM bots b
WHERE b.name = 'ana'
  AND NOT EXISTS (SELECT 1 FROM match_seats s WHERE s.match_id = '{other}' AND s.bot_id = b.id);
"""


def run_matches(database: str, run_id: int) -> list[str]:
    with psycopg.connect(database) as conn:
        return [r[0] for r in conn.execute(
            "SELECT id FROM matches WHERE run_id = %s ORDER BY id", (run_id,))]  # fmt: skip


def seated(database: str, match_id: str) -> list[str]:
    with psycopg.connect(database) as conn:
        return [r[0] for r in conn.execute(
            "SELECT DISTINCT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id"
            " WHERE s.match_id = %s ORDER BY 1", (match_id,))]  # fmt: skip


def test_a_match_counted_twice_in_a_copy_is_found_and_the_original_stays_clean(
    arena: Played,
) -> None:
    match = run_matches(arena.database, arena.done)[0]
    first, second = seated(arena.database, match)
    with copy_of(arena.database) as copy:
        assert audited(copy)["clean"]  # the copy is the original, to start with
        plant(copy, TWICE.format(match=match))
        report = audited(copy)
        found = lines(report)
        assert not report["clean"]
        assert (
            f"counted: bot_pool_stats pool paulista/1, bot {first}: matches 5 kept, 4 in "
            "the history (1 more than the history gives: a match counted twice, or still "
            "counted though voided or gone)" in found
        )
        assert any(f"bot_pool_stats pool paulista/1, bot {second}: matches 5 kept" in f
                   for f in found)  # fmt: skip
        assert any(f.startswith("counted: ratings pool paulista/1, bot ") and "games 5 kept, 4"
                   in f for f in found), found  # fmt: skip
        assert len(found) == 3, found
    assert audited(arena.database)["clean"]


def test_a_lost_match_is_found(arena: Played) -> None:
    match = run_matches(arena.database, arena.done)[2]
    with copy_of(arena.database) as copy:
        plant(copy, GONE.format(match=match))
        found = lines(audited(copy))
    assert f"lost: run {arena.done} (weekly): 6 matches planned, 5 found: 1 lost" in found
    assert any("matches 4 kept, 3 in the history" in f for f in found), found


def test_a_finished_match_not_counted_is_found(arena: Played) -> None:
    match = run_matches(arena.database, arena.done)[1]
    first, _ = seated(arena.database, match)
    with copy_of(arena.database) as copy:
        plant(copy, UNCOUNTED.format(match=match))
        found = lines(audited(copy))
    assert (
        f"counted: bot_pool_stats pool paulista/1, bot {first}: matches 3 kept, 4 in the "
        "history (1 fewer than the history gives: a finished match not counted)" in found
    )


def test_rating_events_lost_or_given_to_a_bot_that_did_not_play_are_found(arena: Played) -> None:
    ids = run_matches(arena.database, arena.done)
    with_ana = next(m for m in ids if "ana" in seated(arena.database, m))
    without = next(m for m in ids if "ana" not in seated(arena.database, m))
    with copy_of(arena.database) as copy:
        plant(copy, EVENTS.format(match=with_ana, other=without))
        found = lines(audited(copy))
    assert sorted(found) == sorted([
        f"rated: match {with_ana}, bot ana: counted by a fit of pool paulista/1, but no "
        "rating event of this bot",
        f"rated: match {without}, bot ana: a rating event of a bot not seated in the match",
    ])  # fmt: skip


def test_a_rating_moved_by_hand_is_found_against_a_fit_of_the_history(arena: Played) -> None:
    with copy_of(arena.database) as copy:
        plant(copy, "UPDATE ratings SET elo = elo + 5"
                    " WHERE bot_id = (SELECT id FROM bots WHERE name = 'bia')")  # fmt: skip
        found = lines(audited(copy))
    assert len(found) == 1 and found[0].startswith("rated: ratings pool paulista/1, bot bia:")
    assert "by a fit of the pool's history" in found[0]


def test_a_stuck_match_and_a_closed_run_with_matches_left_are_found(arena: Played) -> None:
    left = run_matches(arena.database, arena.open)
    with copy_of(arena.database) as copy:
        plant(copy, f"UPDATE matches SET status = 'running', started_at = now() - interval"
                    f" '10 minutes' WHERE id = '{left[0]}'")  # fmt: skip
        plant(copy, f"UPDATE runs SET status = 'cancelled' WHERE id = {arena.open}")
        found = lines(audited(copy))
    assert len(found) == 2, found
    assert found[0].startswith(f"stuck: match {left[0]} of run {arena.open}: running for 6")
    assert found[0].endswith("s (more than 120 s): its worker or referee is gone")
    assert (
        found[1]
        == f"stuck: run {arena.open} (later): cancelled, with 1 match still scheduled: never played"
    )


# What migration 0016 allows: a match of a run cancelled, another failed and replayed.
CANCELLED_AND_REPLAYED = """
UPDATE matches SET status = 'cancelled' WHERE id = '{cancelled}';
UPDATE matches SET status = 'failed' WHERE id = '{failed}';
INSERT INTO matches (id, pool, rules, seed, clock, rated, run_id, absent, replay_of)
SELECT id || '-again', pool, rules, seed, clock, rated, run_id, absent, id
FROM matches WHERE id = '{failed}';
INSERT INTO match_seats (match_id, seat, bot_id, pool, created_at, ladder, listed_at)
SELECT match_id || '-again', seat, bot_id, pool, created_at, ladder, listed_at
FROM match_seats WHERE match_id = '{failed}';
"""


def test_a_cancelled_match_and_a_replay_keep_the_audit_clean(arena: Played) -> None:
    cancelled, failed = run_matches(arena.database, arena.open)
    with copy_of(arena.database) as copy:
        plant(copy, CANCELLED_AND_REPLAYED.format(cancelled=cancelled, failed=failed))
        report = audited(copy, arena.open)
    assert report["clean"], lines(report)
    assert report["matches"] == {"cancelled": 1, "failed": 1, "scheduled": 1}
    assert report["replays"] == 1


def test_a_voided_match_still_counted_is_found(arena: Played) -> None:
    """A voided match counts nowhere (migration 0016): one voided by SQL alone, its counts
    left as they were, shows in every kept count and in its pool's fit."""
    match = run_matches(arena.database, arena.done)[0]
    with copy_of(arena.database) as copy:
        plant(copy, f"UPDATE matches SET voided = 'a bot cheated' WHERE id = '{match}'")
        report = audited(copy)
    kinds = {(f["check"], f["where"].split(" ")[0]) for f in report["findings"]}
    assert kinds == {("counted", "bot_pool_stats"), ("counted", "pair_stats"),
                     ("counted", "lineup_stats"), ("counted", "ratings"),
                     ("rated", "ratings")}  # fmt: skip
    assert report["voided"] == 1
    counted = [f["what"] for f in report["findings"] if f["check"] == "counted"]
    assert all("still counted though voided" in what for what in counted), counted


def test_matches_voided_and_replayed_by_the_organizer_audit_clean(arena: Played) -> None:
    """Through the use cases of issue 30: a finished match voided, another played again
    (voided, and a replay added to the run, which opens again), the replay recorded."""
    first, second = run_matches(arena.database, arena.done)[:2]
    store = Store(arena.database, max_size=2)
    try:
        runs.void_match(store, arena.done, first, "played with the wrong clock")
        replay, _ = runs.replay_match(store, arena.done, second, "a bot crashed")
        assert audited(arena.database)["clean"]
        matches.record(store, replay, played(Rules(), 99))
        report = audited(arena.database, arena.done)
    finally:
        store.close()
    assert report["clean"], lines(report)
    assert (report["voided"], report["replays"]) == (2, 1)
    assert report["matches"] == {"finished": 7}
    assert report["events"] == 14  # the voided matches' events stay, the replay has its own


def test_a_run_audited_alone_sees_its_matches_and_its_standings(arena: Played) -> None:
    left = run_matches(arena.database, arena.open)
    with copy_of(arena.database) as copy:
        plant(copy, f"UPDATE matches SET status = 'running', started_at = now() - interval"
                    f" '10 minutes' WHERE id = '{left[0]}'")  # fmt: skip
        plant(copy, f"UPDATE runs SET standings = jsonb_set(standings, '{{table,0,wins}}',"
                    f" '99') WHERE id = {arena.done}")  # fmt: skip
        done = audited(copy, arena.done)
        later = audited(copy, arena.open)
        whole = audited(copy)
    assert done["run"] == arena.done and done["matches"] == {"finished": 6}
    assert done["runs"] == {"finished": 1} and done["events"] == 12
    assert len(done["findings"]) == 1 and "wins 99 kept" in lines(done)[0]
    assert lines(done)[0].startswith(f"lost: run {arena.done} standings, bot ")
    assert later["matches"] == {"running": 1, "scheduled": 1} and later["events"] == 0
    assert [f["check"] for f in later["findings"]] == ["stuck"]
    assert [f["check"] for f in whole["findings"]] == ["stuck"]  # standings: with --run


def test_matches_that_rate_nobody_are_counted_as_the_store_counts_them(arena: Played) -> None:
    """Challenges of two a team, recorded through the use case: one with a bot on both
    teams (it rates nobody), one both teams forfeited (nobody credited), one with faults
    and a forfeit; the tables of results count them all, the ratings only the last."""
    store = Store(arena.database, max_size=1)
    try:
        ids = {b.name: b.id for b in store.bots()}
        ana, bia, cid = ids["ana"], ids["bia"], ids["cid"]
        rules = Rules.parse("paulista:team_size=2")
        for match_id, seats, credit in [
            ("both-sides", [ana, bia, bia, ana], None),
            ("nobody", [ana, bia, cid, bia], Credit(None, (0, 1), ("ana", "bia"))),
            ("forfeit", [ana, bia, cid, bia], Credit(1, (0,), ("ana",))),
        ]:
            matches.request(store, match_id, rules, seats)
            record = played(rules, 3) | {"faults": {"ana": {"timeouts": 2}}}
            matches.record(store, match_id, record, credit)
    finally:
        store.close()
    report = audited(arena.database)
    assert report["clean"], lines(report)
    assert report["checked"]["bot_pool_stats"] == 6  # three bots in each of two pools


def test_a_run_that_does_not_exist_is_not_found(arena: Played) -> None:
    with pytest.raises(NotFound, match="no tournament run 99"):
        audited(arena.database, 99)


def test_the_audit_writes_nothing(arena: Played) -> None:
    store = Store(arena.database, max_size=1)
    try:
        with store.snapshot() as conn, pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("UPDATE ratings SET games = 0")
    finally:
        store.close()

"""The ladder's scheduler on a real PostgreSQL: it fills a ladder's free slots and no more,
two schedulers at once never fill one slot twice, only available bots are paired (hosted
ones as their active version, dial-ins while connected and opted in, each as it chose
for the pool or for every pool), a bot's concurrency holds, a switched-off ladder starts
nothing, its pace counts only what it finished while on, and it says whether a scheduler
looks at it. (The ladder with real
processes: tests/workers/test_ladder_play.py.)"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from arena.cli.hosting import packed
from arena.domain.clock import TimeControl
from arena.domain.versions import Manifest
from arena.engine import Rules
from arena.errors import Invalid
from arena.hosted.archive import check
from arena.read import ladders
from arena.read.actions import actions
from arena.store.store import Store
from arena.usecases.bots import set_bot_ladder
from arena.usecases.ladder import HOSTED_CONCURRENCY, fill, set_ladder
from arena.usecases.matches import record
from arena.usecases.versions import judge, submit
from tests.webdata import played

POOL = "paulista/1"
OTHER = "solver/1"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "highest_card_bot.py"


def bots(store: Store, *names: str, ladder: bool | None = True) -> dict[str, tuple[int, int]]:
    """Registered (and opted in, unless ``ladder`` says otherwise); connected as the
    referee would report them, concurrency 8 and idle."""
    for name in names:
        store.register_bot(name)
        if ladder is not None:
            store.set_bot_ladder(name, ladder)
    return {name: (8, 0) for name in names}


def open_matches(store: Store) -> list[list[str]]:
    with store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id"
            " WHERE s.match_id = m.id ORDER BY s.seat) AS seats FROM matches m"
            " WHERE ladder_id IS NOT NULL AND status NOT IN ('finished', 'failed')"
        ).fetchall()
    return [r["seats"] for r in rows]


def test_a_ladder_fills_its_free_slots_and_no_more(store: Store) -> None:
    connected = bots(store, "ana", "bia", "cid", "dan")
    set_ladder(store, POOL, True, concurrency=3, clock=TimeControl(decision_ms=200))
    first = fill(store, POOL, connected)
    assert first == ["ladder1-000001", "ladder1-000002", "ladder1-000003"]
    assert fill(store, POOL, connected) == []  # full
    store.set_status(first[0], "failed")  # a slot comes free when its match is done
    assert fill(store, POOL, connected) == ["ladder1-000004"]
    match, _ = store.match("ladder1-000004") or (None, None)
    assert match is not None and match.rated and match.ladder_id == 1
    assert match.clock == {"decision_ms": 200, "time_bank_ms": 10_000, "reconnect_grace_ms": 60_000}
    ladder = store.ladder(POOL)
    assert ladder is not None and ladder.scheduled == 4
    assert ladder.available == ["ana", "bia", "cid", "dan"]


def test_two_schedulers_at_once_never_fill_a_slot_twice(store: Store) -> None:
    connected = bots(store, *(f"b{k}" for k in range(8)))
    set_ladder(store, POOL, True, concurrency=4)
    made: list[str] = []
    start = threading.Barrier(6)

    def scheduler() -> None:
        start.wait()
        made.extend(fill(store, POOL, connected))

    threads = [threading.Thread(target=scheduler) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(made) == [f"ladder1-00000{k}" for k in range(1, 5)]
    assert len(open_matches(store)) == 4


def test_only_available_bots_are_paired(store: Store) -> None:
    connected = bots(store, "on1", "on2")
    bots(store, "silent", ladder=None)  # never opted in: dial-ins stay off by default
    bots(store, "left", ladder=False)  # opted out
    away = bots(store, "away")  # opted in, not connected
    del away
    set_ladder(store, POOL, True, concurrency=8)
    fill(store, POOL, {**connected, "silent": (8, 0), "left": (8, 0)})
    seen = {name for seats in open_matches(store) for name in seats}
    assert seen == {"on1", "on2"}


def test_a_hosted_bot_plays_as_its_active_version_unless_it_opted_out(store: Store) -> None:
    connected = bots(store, "dial")
    store.register_bot("host")
    data = packed(EXAMPLE)
    manifest = Manifest("python", EXAMPLE.name)
    row, _ = submit(store, "host", manifest, data, check(data, manifest))
    set_ladder(store, POOL, True, concurrency=8)
    assert fill(store, POOL, connected) == []  # still being checked: not active yet
    judge(store, row.id)
    ids = fill(store, POOL, connected)  # not connected, yet available: the arena runs it
    assert len(ids) == min(8, HOSTED_CONCURRENCY)  # as often at once as the arena allows
    assert {tuple(sorted(s)) for s in open_matches(store)} == {("dial", "host@1")}
    for match_id in ids:
        store.set_status(match_id, "failed")
    store.set_bot_ladder("host", False)
    assert fill(store, POOL, connected) == []


def test_a_bots_concurrency_and_its_other_matches_hold(store: Store) -> None:
    bots(store, "ana", "bia", "cid")
    set_ladder(store, POOL, True, concurrency=8)
    # ana may play 1 match at once and plays one elsewhere (a tournament): not paired
    ids = fill(store, POOL, {"ana": (1, 1), "bia": (2, 0), "cid": (1, 0)})
    assert [sorted(s) for s in open_matches(store)] == [["bia", "cid"]] and len(ids) == 1
    ids = fill(store, POOL, {"ana": (1, 0), "bia": (2, 0), "cid": (1, 0)})
    assert [sorted(s) for s in open_matches(store)][1:] == [["ana", "bia"]] and len(ids) == 1


def test_a_ladder_switched_off_starts_nothing_and_keeps_its_settings(store: Store) -> None:
    connected = bots(store, "ana", "bia")
    set_ladder(store, POOL, True, concurrency=5, clock=TimeControl(decision_ms=300))
    off = set_ladder(store, POOL, False)
    assert not off.running and off.concurrency == 5 and off.clock["decision_ms"] == 300
    assert fill(store, POOL, connected) == []
    assert store.running_ladders() == []
    on = set_ladder(store, POOL, True, clock=TimeControl(decision_ms=300, time_bank_ms=0))
    assert on.clock == {"decision_ms": 300, "time_bank_ms": 0, "reconnect_grace_ms": 60_000}
    assert store.running_ladders() == [POOL] and fill(store, POOL, connected)


def test_a_new_version_enters_with_placement_matches_across_the_ranks(store: Store) -> None:
    # six settled bots from 1000 to 2000 Elo; then a hosted bot's new version, which the
    # matchmaker must try against a spread of them (docs/ladder.md, "Placement")
    ranks = [f"r{k}" for k in range(6)]  # r0 the best
    connected = bots(store, *ranks)
    with store.pool.connection() as conn:
        for k, name in enumerate(ranks):
            conn.execute(
                "INSERT INTO ratings (bot_id, pool, elo, games) SELECT id, %s, %s, 50"
                " FROM bots WHERE name = %s",
                (POOL, 2000 - 200 * k, name),
            )
    set_ladder(store, POOL, True, concurrency=1)
    for _ in range(40):  # the ladder has been going a while among them
        for match_id in fill(store, POOL, connected):
            store.set_status(match_id, "failed")
    store.register_bot("host")
    data = packed(EXAMPLE)
    manifest = Manifest("python", EXAMPLE.name)
    row, _ = submit(store, "host", manifest, data, check(data, manifest))
    judge(store, row.id)
    opponents = []
    for games in range(6):
        [match_id] = fill(store, POOL, connected)
        [seats] = open_matches(store)
        assert "host@1" in seats, "a new version comes first: its rating is the least sure"
        opponents.append(next(s for s in seats if s != "host@1"))
        store.set_status(match_id, "failed")  # its slot free; its result, as if recorded:
        with store.pool.connection() as conn:
            conn.execute(
                "INSERT INTO ratings (bot_id, pool, games) VALUES (%s, %s, %s)"
                " ON CONFLICT (bot_id, pool) DO UPDATE SET games = excluded.games",
                (row.id, POOL, games + 1),
            )
    assert "r0" in opponents and {"r4", "r5"} & set(opponents), opponents
    assert len(set(opponents)) >= 4, opponents


def test_a_bot_in_for_one_pool_is_paired_only_there(store: Store) -> None:
    connected = bots(store, "ana", "bia", "cid")  # in for every pool
    bots(store, "one", ladder=None)
    store.set_bot_ladder("one", True, OTHER)  # a dial-in, in for one pool only
    store.set_bot_ladder("cid", False, OTHER)  # in for every pool but one
    connected["one"] = (8, 0)
    assert [b.seat for b in store.ladder_bots(POOL)] == ["ana", "bia", "cid"]
    assert [b.seat for b in store.ladder_bots(OTHER)] == ["ana", "bia", "one"]
    for pool in (POOL, OTHER):
        set_ladder(store, pool, True, concurrency=8)
    seen = {p: set() for p in (POOL, OTHER)}
    for _ in range(6):
        for pool in (POOL, OTHER):
            for match_id in fill(store, pool, connected):
                found = store.match(match_id)
                assert found is not None
                seen[pool] |= set(found[1])
                store.set_status(match_id, "failed")
    assert seen == {POOL: {"ana", "bia", "cid"}, OTHER: {"ana", "bia", "one"}}
    assert store.ladder_choices("cid") == {"cid": (False, {OTHER: False})}
    store.set_bot_ladder("cid", True)  # every pool's again: its single choices go
    assert store.ladder_choices("cid") == {"cid": (False, {})}
    assert "cid" in [b.seat for b in store.ladder_bots(OTHER)]


def test_the_pace_counts_only_what_finished_while_the_ladder_was_on(store: Store) -> None:
    connected = bots(store, "ana", "bia", "cid", "dan")
    set_ladder(store, POOL, True, concurrency=2)
    shown = ladders.ladder(store, POOL)
    assert shown is not None and shown["look"] == "waiting" and shown["per_hour"] == 0
    first = fill(store, POOL, connected)
    shown = ladders.ladder(store, POOL)
    assert shown is not None and (shown["look"], shown["on_since"] is not None) == ("looking", True)
    finish(store, first[0])
    set_ladder(store, POOL, False)
    shown = ladders.ladder(store, POOL)
    assert shown is not None
    assert (shown["on"], shown["per_hour"], shown["look"], shown["on_since"]) == (
        False, None, "off", None,
    )  # fmt: skip
    finish(store, first[1])  # finished while the ladder was off: not its pace
    set_ladder(store, POOL, True)
    shown = ladders.ladder(store, POOL)
    assert shown is not None and shown["per_hour"] == 1 and shown["playing"] == 0
    with store.pool.connection() as conn:  # an hour and more ago: no longer counted
        conn.execute("UPDATE ladder_pace SET minute = minute - interval '1 hour'")
    shown = ladders.ladder(store, POOL)
    assert shown is not None and shown["per_hour"] == 0
    assert shown["last_match"] in first


def test_a_ladder_no_scheduler_looks_at_says_so(store: Store) -> None:
    bots(store, "ana", "bia")
    set_ladder(store, POOL, True)
    shown = ladders.ladder(store, POOL)
    assert shown is not None and (shown["look"], shown["tick_s"]) == ("waiting", 5)
    with store.pool.connection() as conn:  # switched on a minute ago, never looked at
        conn.execute("UPDATE ladders SET on_since = on_since - interval '1 minute'")
    shown = ladders.ladder(store, POOL)
    assert shown is not None and shown["look"] == "stalled" and 60 <= shown["quiet_s"] < 120
    fill(store, POOL, {})  # a look, though nobody is connected
    shown = ladders.ladder(store, POOL)
    assert shown is not None and (shown["look"], shown["quiet_s"]) == ("looking", 0)
    with store.pool.connection() as conn:  # and none since
        conn.execute("UPDATE ladders SET looked_at = looked_at - interval '30 seconds'")
    shown = ladders.ladder(store, POOL)
    assert shown is not None and shown["look"] == "stalled" and 30 <= shown["quiet_s"] < 60


def test_the_look_of_a_ladder() -> None:
    assert ladders.look(None, 3.0) == ("off", 0)
    assert ladders.look(4.0, None) == ("waiting", 4)
    assert ladders.look(4.0, 9.0) == ("waiting", 4)  # its look was before it was switched on
    assert ladders.look(400.0, 2.5) == ("looking", 2)
    assert ladders.look(15.0, None) == ("waiting", 15)
    assert ladders.look(15.5, None) == ("stalled", 15)
    assert ladders.look(400.0, 16.0) == ("stalled", 16)


def finish(store: Store, match_id: str) -> None:
    """The match played at random and recorded."""
    found = store.match(match_id)
    assert found is not None
    row, seats = found
    store.set_status(match_id, "running")
    record(store, match_id, played(Rules.parse(row.rules), seats, 1))


def test_a_version_has_no_ladder_choice_of_its_own(store: Store) -> None:
    store.register_bot("host")
    with pytest.raises(Invalid, match=r"host@2 is a version of host: .*arena bot ladder host on"):
        set_bot_ladder(store, "host@2", True, actor="organizer")
    assert actions(store, subject="bot host@2") == []

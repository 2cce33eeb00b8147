"""The ladder's scheduler on a real PostgreSQL: it fills a ladder's free slots and no more,
two schedulers at once never fill one slot twice, only available bots are paired (hosted
ones as their active version, dial-ins while connected and opted in), a bot's
concurrency holds, and a switched-off ladder starts nothing. (The ladder with real
processes: tests/workers/test_ladder_play.py.)"""

from __future__ import annotations

import threading
from pathlib import Path

from arena.cli.hosting import packed
from arena.domain.clock import TimeControl
from arena.domain.versions import Manifest
from arena.hosted.archive import check
from arena.store.store import Store
from arena.usecases.ladder import HOSTED_CONCURRENCY, fill, set_ladder
from arena.usecases.versions import judge, submit

POOL = "paulista/1"
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

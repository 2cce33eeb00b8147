"""The sequential tests' use cases on a real PostgreSQL, beyond test_sprt_arena.py's walk
through a test: what starting one refuses (and that a refusal leaves nothing), an
owner's room counted under its lock, and steps of a test that is gone or decided."""

from __future__ import annotations

import threading

import pytest

from arena.domain.clock import TimeControl
from arena.domain.sprt import Asked, Room, Sprt
from arena.engine import Rules
from arena.errors import Exhausted, Invalid, NotFound
from arena.store.store import Store
from arena.usecases.sprts import start_sprt, step_sprt

ASKED = Asked(Rules(), TimeControl(), max_games=10, at_once=4)


def test_a_test_needs_two_active_bots(store: Store) -> None:
    store.register_bot("ana")
    with pytest.raises(Invalid, match="two different bots"):
        start_sprt(store, "ana", "ana", Sprt(), ASKED, "organizer")
    with pytest.raises(NotFound, match="no active bot named 'zeca'"):
        start_sprt(store, "ana", "zeca", Sprt(), ASKED, "organizer")
    assert store.running_sprts() == []


def test_an_owner_gets_no_more_tests_than_its_room_even_asking_at_once(store: Store) -> None:
    for name in ("ana", "bia", "cid"):
        store.register_bot(name, owner="team")
    room = Room(tests=2, games=100)
    outcomes: list[str] = []

    def ask(new: str) -> None:
        try:
            start_sprt(store, new, "cid", Sprt(), ASKED, new, room)
            outcomes.append("started")
        except Exhausted:
            outcomes.append("refused")

    threads = [threading.Thread(target=ask, args=(n,)) for n in ("ana", "bia", "ana", "bia")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["refused", "refused", "started", "started"]
    assert len(store.running_sprts()) == 2
    with pytest.raises(Exhausted, match="owner 'team' has 2 tests running"):
        start_sprt(store, "ana", "cid", Sprt(), ASKED, "ana", room)
    start_sprt(store, "ana", "cid", Sprt(), ASKED, "organizer")  # the organizer has no room


def test_a_step_of_no_test_is_not_found_and_of_a_decided_one_makes_nothing(store: Store) -> None:
    with pytest.raises(NotFound, match="no test 7"):
        step_sprt(store, 7)
    for name in ("ana", "bia"):
        store.register_bot(name)
    test = start_sprt(store, "ana", "bia", Sprt(), ASKED, "organizer")
    assert len(step_sprt(store, test.id)) == 4
    with store.pool.connection() as conn:
        conn.execute("UPDATE sprt_tests SET status = 'H0' WHERE id = %s", (test.id,))
    assert step_sprt(store, test.id) == []

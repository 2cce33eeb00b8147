"""A match asked for by hand and the one way every maker creates matches, on a real
PostgreSQL: a unit of work is one transaction, a new match goes in through one insert
(whoever makes it: a run, a challenge, a test, a ladder), and a claimed match is not
played twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.domain.clock import TimeControl
from arena.domain.matches import NewMatch
from arena.engine import Rules
from arena.errors import Invalid, NotFound, NotReady
from arena.store.store import Store
from arena.usecases.matches import challenge, claim, request
from tests.store.test_store import played

ROOT = Path(__file__).resolve().parents[2]


def test_a_requested_match_is_made_once_as_asked(store: Store) -> None:
    a, b = (store.register_bot(n)[0].id for n in ("ana", "bia"))
    made = request(store, "m1", Rules(), [a, b], clock=TimeControl(decision_ms=40), rated=False)
    again = request(store, "m1", Rules(), [b, a], seed=3)  # a retried task: nothing changes
    assert again.seed == 3 and made.seed != 3
    row, seats = store.match("m1") or (None, [])
    assert row is not None and seats == ["ana", "bia"]
    assert (row.seed, row.rated, row.clock, row.pool) == (
        made.seed, False, TimeControl(decision_ms=40).to_json(), "paulista/1"
    )  # fmt: skip
    with pytest.raises(Invalid, match="2 seats, not 3"):
        request(store, "m2", Rules(), [a, b, a])
    assert store.match("m2") is None


def test_a_unit_of_work_that_fails_leaves_nothing(store: Store) -> None:
    a, b = (store.register_bot(n)[0].id for n in ("ana", "bia"))
    matches = [NewMatch(f"m{k}", Rules(), (a, b), k) for k in range(3)]
    with pytest.raises(RuntimeError), store.unit() as conn:
        store.insert_matches(conn, matches)
        raise RuntimeError("the use case fails after its insert")
    assert [store.match(m.id) for m in matches] == [None, None, None]
    with store.unit() as conn:
        store.insert_matches(conn, matches)
    assert all(store.match(m.id) for m in matches)


def test_a_claimed_match_is_running_and_a_finished_one_is_not_played_again(
    store: Store,
) -> None:
    a, b = (store.register_bot(n)[0].id for n in ("ana", "bia"))
    request(store, "m1", Rules(), [a, b], seed=5)
    before, seats, _ = claim(store, "m1")
    assert before.status == "scheduled" and seats == ["ana", "bia"]
    assert claim(store, "m1")[0].status == "running"
    store.finish_match("m1", played(Rules(), 5))
    assert claim(store, "m1")[0].status == "finished"
    assert store.match("m1")[0].status == "finished"  # type: ignore[index]


def test_matches_are_inserted_in_one_place() -> None:
    """A new column of a match touches NewMatch and the one insert, nowhere else."""
    users = sorted(
        str(path.relative_to(ROOT))
        for top in ("arena", "referee", "workers")
        for path in (ROOT / top).rglob("*.py")
        if '"insert_match"' in path.read_text() or '"insert_seat"' in path.read_text()
    )
    assert users == ["arena/store/base.py"]


def test_a_challenge_makes_its_matches_at_once_or_none(store: Store) -> None:
    for name in ("ana", "bia"):
        store.register_bot(name)
    clock = TimeControl(decision_ms=50)
    with pytest.raises(NotReady, match="'bia' is not connected"):
        challenge(store, ["ana", "bia"], Rules(), 4, clock, connected={"ana"})
    with pytest.raises(NotFound, match="no active bot named 'zeca'"):
        challenge(store, ["ana", "zeca"], Rules(), 4, clock, connected={"ana", "zeca"})
    assert store.matches(limit=10) == []
    ids = challenge(store, ["ana", "bia"], Rules(), 4, clock, connected={"ana", "bia"})
    assert len(set(ids)) == 4
    found = [store.match(i) for i in ids]
    seats = [f[1] for f in found if f is not None]
    assert sorted(map(tuple, seats)) == [("ana", "bia")] * 2 + [("bia", "ana")] * 2
    rows = [f[0] for f in found if f is not None]
    assert len({r.seed for r in rows}) == 4 and all(r.rated for r in rows)
    assert {r.clock["decision_ms"] for r in rows} == {50}

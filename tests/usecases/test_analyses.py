"""Asking for and doing the analysis of a match (arena/usecases/analyses.py), on a real
PostgreSQL: who may ask, the sealed twin, the cap, stored once per match and budget, and
the analyses left behind that the scheduler's sweep sends again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from arena.bots.analysis import analysed
from arena.domain.analyses import LOST_S, PER_DAY
from arena.domain.tournament import Definition
from arena.engine import Rules
from arena.errors import Exhausted, Forbidden, Invalid, NotReady, Sealed
from arena.read.analyses import analyses
from arena.store.store import Store
from arena.usecases.analyses import ask_analysis, lost_analyses, run_analysis, sent_again
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from tests.webdata import played, start_run


def two_bots(store: Store) -> list[int]:
    return [store.register_bot(n, owner="ana")[0].id for n in ("alpha", "beta")]


def a_match(store: Store, match_id: str, bots: list[int], seed: int = 3) -> None:
    request_match(store, match_id, Rules(), bots, seed=seed)
    record_match(store, match_id, played(Rules(), ["alpha", "beta"], seed))


def test_an_owner_analyses_its_own_seats_once_and_the_organizer_any(store: Store) -> None:
    bots = two_bots(store)
    store.register_bot("gamma")
    a_match(store, "m-1", bots)
    assert ask_analysis(store, "m-1", 4, "alpha", actor="bot alpha") == [0]
    assert ask_analysis(store, "m-1", 4, "alpha", actor="bot alpha") == []  # stored once
    with pytest.raises(Forbidden, match="did not play in match m-1"):
        ask_analysis(store, "m-1", 4, "gamma", actor="bot gamma")
    assert ask_analysis(store, "m-1", 4, None, actor="organizer") == [1]
    assert run_analysis(store, "m-1", 4, analysed) == 2
    assert run_analysis(store, "m-1", 4, analysed) == 0  # a second run finds nothing left
    rows = store.match_analyses("m-1")
    assert [(r.seat, r.status) for r in rows] == [(0, "done"), (1, "done")]
    assert rows[0].decisions and all(d["seat"] == 0 for d in rows[0].decisions)
    # each reader sees the seats it may: alpha's owner its own, anyone none, the organizer both
    assert [a["seat"] for a in analyses(store, "m-1", organizer=False, owner="alpha")] == [0]
    assert analyses(store, "m-1", organizer=False) == []
    shown = analyses(store, "m-1", organizer=True)
    assert [a["seat"] for a in shown] == [0, 1]
    assert all(a["line"] and len(a["line"]) == len(a["decisions"]) for a in shown)


def test_an_unplayed_match_a_bad_budget_and_a_sealed_twin_are_refused(store: Store) -> None:
    bots = two_bots(store)
    request_match(store, "m-later", Rules(), bots, seed=1)
    with pytest.raises(NotReady, match="only a finished match is analysed"):
        ask_analysis(store, "m-later", 4, None)
    with pytest.raises(Invalid, match="budget must be from 1 to 1024"):
        ask_analysis(store, "m-later", 0, None)
    duplicate = Definition("dup", bots=("alpha", "beta"), duplicate=True, trusted=True)
    _, ids = start_run(store, duplicate)
    found = store.match(ids[0])
    assert found is not None and found[0].twin is not None
    row, seats = found
    record_match(store, row.id, played(Rules.parse(row.rules), seats, 1))
    with pytest.raises(Sealed, match=f"duplicate twin {row.twin} is played"):
        ask_analysis(store, row.id, 4, None)
    record_match(store, row.twin, played(Rules.parse(row.rules), seats, 2))
    assert ask_analysis(store, row.id, 4, None) == [0, 1]


def test_an_owner_asks_for_a_capped_number_a_day(store: Store) -> None:
    bots = two_bots(store)
    for k in range(PER_DAY):
        a_match(store, f"m-{k}", bots, seed=k)
        assert ask_analysis(store, f"m-{k}", 4, "beta", actor="bot beta") == [1]
    a_match(store, "m-over", bots, seed=99)
    with pytest.raises(Exhausted, match=f"owner 'ana' asked for {PER_DAY} analyses"):
        ask_analysis(store, "m-over", 4, "alpha", actor="bot alpha")  # alpha's owner is beta's
    assert ask_analysis(store, "m-0", 4, "beta", actor="bot beta") == []  # stored: no new one
    assert ask_analysis(store, "m-over", 4, None) == [0, 1]  # the organizer is not capped
    tomorrow = datetime.now(UTC) + timedelta(days=1, minutes=1)
    assert ask_analysis(store, "m-over", 8, "alpha", actor="bot alpha", now=tomorrow) == [0]


def aged(store: Store, seconds: float) -> None:
    """Every analysis as if sent and begun ``seconds`` earlier than it was."""
    with store.pool.connection() as conn:
        conn.execute(
            "UPDATE analyses SET sent_at = sent_at - make_interval(secs => %(s)s),"
            " started_at = started_at - make_interval(secs => %(s)s)",
            {"s": seconds},
        )


def test_an_analysis_left_behind_is_sent_again_once_by_the_sweep(store: Store) -> None:
    bots = two_bots(store)
    for k in (1, 2, 3):
        a_match(store, f"m-{k}", bots, seed=k)
    assert ask_analysis(store, "m-1", 4, None) == [0, 1]
    assert ask_analysis(store, "m-2", 8, "alpha", actor="bot alpha") == [0]
    assert lost_analyses(store, datetime.now(UTC)) == []  # just sent: the workers have them
    aged(store, LOST_S + 1)
    assert ask_analysis(store, "m-3", 4, None) == [0, 1]  # sent now: not lost
    now = datetime.now(UTC)
    assert lost_analyses(store, now) == [("m-1", 4), ("m-2", 8)]
    assert lost_analyses(store, now) == []  # sent again just now, once

    aged(store, LOST_S + 1)
    sent_again(store, "m-3", 4)  # a worker put it back behind the matches waiting
    store.begin_analysis("m-1", 4, 1)  # a worker is on m-1's seat 1 (seat 0 waits)
    assert run_analysis(store, "m-2", 8, analysed) == 1  # done: never sent again
    assert lost_analyses(store, datetime.now(UTC)) == []
    rows = {(r.match_id, r.seat): r for r in store.match_analyses("m-1")}
    assert rows["m-1", 1].started_at is not None and rows["m-1", 0].started_at is None
    aged(store, LOST_S + 1)  # the worker on m-1 died; m-3's task was lost too
    assert lost_analyses(store, datetime.now(UTC)) == [("m-1", 4), ("m-3", 4)]

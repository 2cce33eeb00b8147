"""A pool's fit on a real PostgreSQL (arena/usecases/ratings.py): a bot retired, or absent
from the pool for longer than the store's setting (14 days by default), leaves the bots
whose mean is 1500, the pool is fitted again for it though no match was recorded, and
the other bots' intervals narrow; its results still count, and the audit still finds
every kept rating to be the fit of the recounted history."""

from __future__ import annotations

import math

from arena.domain.clock import TimeControl
from arena.engine import Rules
from arena.read.audit import audit
from arena.store.store import Store
from arena.usecases.matches import challenge, record
from arena.usecases.participants import set_state
from arena.usecases.ratings import refit
from tests.webdata import played

POOL = "paulista/1"
PLAYING = ("ana", "bia", "cid")


def play(store: Store, pairs: list[tuple[str, str]]) -> None:
    """A rated match for each pair, played at random and recorded (its pool fitted)."""
    rules = Rules.parse("paulista")
    for k, pair in enumerate(pairs):
        [match_id] = challenge(store, pair, rules, 1, TimeControl(), pair)
        found = store.match(match_id)
        assert found is not None
        store.set_status(match_id, "running")
        record(store, match_id, played(rules, found[1], k))


def mean(store: Store, names: tuple[str, ...]) -> float:
    with store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT r.elo FROM ratings r JOIN bots b ON b.id = r.bot_id"
            " WHERE r.pool = %s AND b.name = ANY(%s)",
            (POOL, list(names)),
        ).fetchall()
    return math.fsum(r["elo"] for r in rows) / len(rows)


def test_a_retired_or_absent_bot_leaves_the_anchor(store: Store, database: str) -> None:
    for name in (*PLAYING, "old"):
        store.register_bot(name)
    play(store, [("ana", "bia"), ("bia", "cid"), ("cid", "ana")] * 15)
    play(store, [("old", "ana"), ("cid", "old")])  # two games, then never again
    before = refit(store, POOL)
    assert before.anchors == {*PLAYING, "old"}
    assert abs(mean(store, (*PLAYING, "old")) - 1500) < 1e-6

    set_state(store, "old", "retired", actor="organizer")
    after = refit(store, POOL)  # nothing recorded since, yet fitted again: old has left
    assert after.version == before.version and after.anchors == set(PLAYING)
    for name in PLAYING:
        assert after.halves[name] < 0.8 * before.halves[name], (before, after)
    assert abs(mean(store, PLAYING) - 1500) < 1e-6
    assert "old" in after.halves  # its results still count; it is rated still
    assert refit(store, POOL) == after  # and kept: the next asks cost a lookup
    assert audit(store)["findings"] == []

    set_state(store, "old", "active", actor="organizer")
    assert refit(store, POOL).anchors == {*PLAYING, "old"}
    with store.pool.connection() as conn:  # its latest rated game 15 days ago: absent
        conn.execute(
            "UPDATE ratings SET updated_at = now() - interval '15 days'"
            " WHERE bot_id = (SELECT id FROM bots WHERE name = 'old')"
        )
    assert refit(store, POOL).anchors == set(PLAYING)
    assert audit(store)["findings"] == []
    patient = Store(database, max_size=1, fit_absent_s=30 * 86400.0)  # ARENA_FIT_ABSENT_DAYS=30
    try:
        assert refit(patient, POOL).anchors == {*PLAYING, "old"}
    finally:
        patient.close()

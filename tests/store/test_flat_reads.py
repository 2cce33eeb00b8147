"""What the pages read is kept as matches are recorded (migration 0008), not summed from
the whole history on every view: here the kept counts, and every number the pages show
from them, equal a full recomputation over a random history, whatever was recorded
around them (unrated matches, unfinished ones, a bot on both teams, faults)."""

from __future__ import annotations

import random
from typing import Any

import psycopg
import pytest

from arena.domain.absence import Credit
from arena.domain.poolfit import fit, lineups
from arena.domain.rating import win_counts
from arena.engine import Rules
from arena.read import bots, ratings
from arena.store.store import Store
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from arena.usecases.ratings import refit
from tests.store.test_store import played

PAIRS = Rules.parse("paulista:team_size=2")
FAULTS = ("timeouts", "rejected", "disconnects", "substituted", "errors")


def random_history(store: Store, seed: int, matches: int = 40) -> list[str]:
    """Bots and matches in two pools, some unrated, some never finished, some lost by
    forfeit (by one team, or by both: then nobody won); their names."""
    choose = random.Random(seed)
    names = [f"bot{k}" for k in range(6)]
    ids = {n: store.register_bot(n)[0].id for n in names}
    for k in range(matches):
        rules = choose.choice([Rules(), PAIRS])
        seats = [choose.choice(names) for _ in range(rules.seats)]
        match_id = f"m{seed}-{k}"
        request_match(
            store, match_id, rules, [ids[n] for n in seats], seed=k, rated=choose.random() < 0.8
        )
        if choose.random() < 0.85:
            record = played(rules, k)
            record["faults"] = {n: {f: choose.randrange(3) for f in FAULTS} for n in set(seats)}
            forfeits = choose.choice([(), (), (), (0,), (1,), (0, 1)])
            winner = record["result"]["winner"] if not forfeits else None
            if len(forfeits) == 1:
                winner = 1 - forfeits[0]
            record_match(store, match_id, record, Credit(winner, forfeits))
    return names


def full_results(database: str, pool: str) -> list[tuple[str, str]]:
    """(winner, loser) of every rated finished match of the pool, read from the matches
    (a bot on both teams does not beat itself)."""
    with psycopg.connect(database) as conn:
        rows = conn.execute(
            "SELECT m.winner, ARRAY(SELECT b.name FROM match_seats s JOIN bots b "
            "ON b.id = s.bot_id WHERE s.match_id = m.id ORDER BY s.seat) "
            "FROM matches m WHERE m.pool = %s AND m.status = 'finished' AND m.rated",
            (pool,),
        ).fetchall()
    pairs = []
    for winner, seats in rows:
        if winner is None:  # both forfeited: nobody beat anybody
            continue
        for w in dict.fromkeys(seats[winner::2]):
            pairs += [(w, lost) for lost in dict.fromkeys(seats[1 - winner :: 2]) if lost != w]
    return pairs


def full_lineups(database: str, pool: str) -> list[Any]:
    """The pool's rated results as the fit reads them, from the matches themselves: a
    lineup per pairing of teams, leaving out a match nobody was credited with and one
    with a bot on both teams (it rates nobody)."""
    with psycopg.connect(database) as conn:
        rows = conn.execute(
            "SELECT m.winner, ARRAY(SELECT b.name FROM match_seats s JOIN bots b "
            "ON b.id = s.bot_id WHERE s.match_id = m.id ORDER BY s.seat) "
            "FROM matches m WHERE m.pool = %s AND m.status = 'finished' AND m.rated",
            (pool,),
        ).fetchall()
    return lineups(
        (seats, winner)
        for winner, seats in rows
        if winner is not None and not set(seats[0::2]) & set(seats[1::2])
    )


def full_matches(database: str, bot: str, pool: str) -> list[tuple[str, list[str], int | None]]:
    """The bot's finished matches in the pool: (id, seats, winner)."""
    with psycopg.connect(database) as conn:
        return [
            (r[0], r[1], r[2])
            for r in conn.execute(
                "SELECT m.id, ARRAY(SELECT b.name FROM match_seats s JOIN bots b "
                "ON b.id = s.bot_id WHERE s.match_id = m.id ORDER BY s.seat), m.winner "
                "FROM matches m WHERE m.pool = %s AND m.status = 'finished'",
                (pool,),
            )
            if bot in r[1]
        ]


def full_faults(database: str, bot: str, pool: str) -> dict[str, int]:
    with psycopg.connect(database) as conn:
        rows = conn.execute(
            "SELECT m.faults, m.forfeit, ARRAY(SELECT b.name FROM match_seats s JOIN bots b "
            "ON b.id = s.bot_id WHERE s.match_id = m.id ORDER BY s.seat) "
            "FROM matches m WHERE m.pool = %s AND m.status = 'finished'",
            (pool,),
        ).fetchall()
    mine = [(faults, forfeit, seats) for faults, forfeit, seats in rows if bot in seats]
    out = {"matches": len(mine)} | {f: 0 for f in FAULTS} | {"forfeits": 0}
    for faults, forfeit, seats in mine:
        for f in FAULTS:
            out[f] += faults.get(bot, {}).get(f, 0)
        out["forfeits"] += any(i % 2 in (forfeit or ()) for i, n in enumerate(seats) if n == bot)
    return out


def kept(database: str) -> list[Any]:
    with psycopg.connect(database) as conn:
        return [
            conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
            for table in ("pair_stats", "bot_pool_stats", "lineup_stats")
        ]


@pytest.mark.parametrize("seed", [1, 2])
def test_what_pages_read_equals_a_full_recomputation(
    store: Store, database: str, seed: int
) -> None:
    names = random_history(store, seed)
    running = kept(database)
    store.recount()
    assert kept(database) == running, "the running counts differ from a recount"
    for pool in ("paulista/1", "paulista/2"):  # a recount drops the kept fits: fit again
        refit(store, pool)

    for pool in ("paulista/1", "paulista/2"):
        results = full_results(database, pool)
        assert store.pool_wins(pool) == win_counts(results)
        stored = sorted(store.pool_lineups(pool), key=lambda x: (x.team_a, x.team_b))
        assert stored == sorted(full_lineups(database, pool), key=lambda x: (x.team_a, x.team_b))
        expected = {b: e.half for b, e in fit(full_lineups(database, pool)).ratings.items()}
        assert ratings.intervals(store, pool) == pytest.approx(expected)
        assert ratings.intervals(store, pool) == pytest.approx(expected)  # kept
        for bot in names:
            mine = full_matches(database, bot, pool)
            page = bots.bot(store, bot, pool)
            expected: dict[str, list[int]] = {}  # opponent -> [games, wins]
            for _, seats, winner in mine:
                met: dict[str, bool] = {}  # each bot across from one of its seats: won?
                for s, n in enumerate(seats):
                    if n != bot:
                        continue
                    for other in {o for t, o in enumerate(seats) if t % 2 != s % 2} - {bot}:
                        met[other] = met.get(other, False) or winner == s % 2
                for other, won in met.items():
                    games_wins = expected.setdefault(other, [0, 0])
                    games_wins[0] += 1
                    games_wins[1] += won
            assert {h["opponent"]: [h["games"], h["wins"]] for h in page["head_to_head"]} == (
                expected
            )
            assert store.bot_faults(bot, pool) == full_faults(database, bot, pool)
            listed = store.matches(bot=bot, pool=pool, limit=200)
            finished = [m.id for m, _ in listed if m.status == "finished"]
            assert sorted(finished) == sorted(m for m, *_ in mine)
            stamps = [(m.listed_at, m.id) for m, _ in listed]
            assert stamps == sorted(stamps, reverse=True), "newest first"


def test_a_changed_pool_is_fitted_again(store: Store) -> None:
    a, b, c = (store.register_bot(n)[0].id for n in ("ana", "bia", "caio"))
    for k, seats in enumerate([[a, b], [b, a], [a, b], [c, a], [a, c], [b, c]]):
        if k == 3:
            before = store.pool_version("paulista/1")
            first = ratings.intervals(store, "paulista/1")
            kept = store.pool_fit("paulista/1", before)
            assert kept is not None and kept.halves == first and set(first) == {"ana", "bia"}
        request_match(store, f"x{k}", Rules(), seats, seed=k)
        record_match(store, f"x{k}", played(Rules(), k))
    assert store.pool_version("paulista/1") == before + 6  # two bots in each of 3 matches
    again = ratings.intervals(store, "paulista/1")
    kept = store.pool_fit("paulista/1", before + 6)
    assert set(again) == {"ana", "bia", "caio"} and kept is not None and kept.halves == again

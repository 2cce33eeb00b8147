"""The store on a real PostgreSQL: bots and tokens, exactly-once recording, and ratings
that lose no update when matches sharing bots finish at the same time."""

from __future__ import annotations

import json
import math
import multiprocessing
import random
from typing import Any

import psycopg
import pytest

from arena.domain.poolfit import fit
from arena.domain.pools import pool_of
from arena.domain.tournament import deal_seed
from arena.engine import Match, Rules, to_record
from arena.errors import ArenaError, Exists, Invalid, NotFound
from arena.store.migrate import migrate
from arena.store.store import Store
from arena.usecases import matches
from arena.usecases.matches import request as request_match
from arena.usecases.ratings import refit


def played(rules: Rules, seed: int) -> dict[str, Any]:
    """A real finished match record (random play, seeded)."""
    match = Match(rules, seed=seed)
    choose = random.Random(seed)
    while not match.is_over:
        match.apply(choose.choice(match.legal_actions()))
    return to_record(match)


def count(database: str, sql: str) -> int:
    with psycopg.connect(database) as conn:
        row = conn.execute(sql).fetchone()
    assert row is not None
    return int(row[0])


def test_a_token_is_given_once_and_only_its_hash_is_kept(store: Store, database: str) -> None:
    bot, token = store.register_bot("alpha", owner="ana")
    assert (bot.name, bot.owner, bot.active) == ("alpha", "ana", True)
    assert store.bot_for_token(token) == bot
    assert store.bot_for_token(token + "x") is None
    with psycopg.connect(database) as conn:
        kept = conn.execute("SELECT token_hash FROM bots").fetchone()
    assert kept is not None and token.encode() not in bytes(kept[0])


@pytest.mark.parametrize(
    ("name", "message"),
    [("alpha", "a bot named 'alpha' already exists"), ("has space", "is not a bot name")],
)
def test_bad_bot_names_are_refused_clearly(store: Store, name: str, message: str) -> None:
    store.register_bot("alpha")
    with pytest.raises(ArenaError, match=message):
        store.register_bot(name)


def test_a_record_sent_as_json_text_is_kept_as_sent(store: Store) -> None:
    a, _ = store.register_bot("alpha")
    b, _ = store.register_bot("beta")
    request_match(store, "m1", Rules(), [a.id, b.id], seed=3)
    record = played(Rules(), 3)
    assert matches.record(store, "m1", json.dumps(record)).recorded
    found = store.match("m1")
    assert found is not None and found[0].record == record and found[0].status == "finished"
    assert found[0].winner == record["result"]["winner"]
    with pytest.raises(json.JSONDecodeError):
        matches.record(store, "m1", "{not json")


def test_a_connection_the_server_closed_is_replaced_unnoticed(store: Store, database: str) -> None:
    """The pool checks a connection it hands out with a round trip only when the server
    wrote to it while it sat idle; a server ending it does (then closes it)."""
    store.register_bot("alpha")
    with psycopg.connect(database, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    assert row is not None and row[0] >= 1  # the store's idle connection, at least
    found = store.bot("alpha")  # not an error: the broken connection was left out
    assert found is not None and found.name == "alpha"


def test_a_match_is_recorded_exactly_once(store: Store, database: str) -> None:
    a, _ = store.register_bot("alpha")
    b, _ = store.register_bot("beta")
    rules = Rules()
    request_match(store, "m1", rules, [a.id, b.id], seed=5)
    request_match(store, "m1", rules, [a.id, b.id], seed=5)  # a retried task: no harm
    record = played(rules, 5)
    first = store.finish_match("m1", record)
    winner, loser = (a, b) if record["result"]["winner"] == 0 else (b, a)
    assert (first.recorded, first.rated) == (True, True)
    again = store.finish_match("m1", record, text=json.dumps(record))  # as the referee sent it
    assert (again.recorded, again.run_done) == (False, False)
    fitted = refit(store, pool_of(rules))
    assert refit(store, pool_of(rules)) == fitted  # nothing new: the same fit, kept
    assert count(database, "SELECT count(*) FROM rating_events") == 2
    board = store.leaderboard(pool_of(rules))
    assert [(s.name, s.rating.games) for s in board] == [(winner.name, 1), (loser.name, 1)]
    up, down = (s.rating for s in board)
    assert up.elo - 1500 == pytest.approx(1500 - down.elo) and up.elo > 1500
    assert up.deviation is not None and up.deviation == pytest.approx(down.deviation)
    assert fitted.halves[winner.name] == pytest.approx(1.96 * up.deviation, rel=1e-3)
    events = store.rating_history(winner.name, pool_of(rules), 10)
    assert [(e["match_id"], e["before"], e["after"]) for e in events] == [("m1", 1500, up.elo)]


def test_recording_a_match_changes_ratings_in_place(store: Store, database: str) -> None:
    """No index covers a column that recording a match changes, so the rating update is
    a heap-only one: no new index entries, and a pool's few hot rows stay cheap to find
    however many matches moved them (migration 0005)."""
    a, _ = store.register_bot("alpha")
    b, _ = store.register_bot("beta")
    rules = Rules()
    for n in range(3):
        request_match(store, f"m{n}", rules, [a.id, b.id], seed=n)
        store.finish_match(f"m{n}", played(rules, n))
    with psycopg.connect(database) as conn:
        indexed = conn.execute(
            "SELECT DISTINCT a.attname FROM pg_index i JOIN pg_attribute a"
            " ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)"
            " WHERE i.indrelid = 'ratings'::regclass"
        ).fetchall()
        # an update of the columns a recorded match changes, in a transaction of ours
        with conn.transaction(force_rollback=True):
            conn.execute(
                "UPDATE ratings SET elo = elo + 1, games = games + 1, wins = wins + 1,"
                " losses = losses + 1, updated_at = now()"
            )
            (hot,) = conn.execute(
                "SELECT pg_stat_get_xact_tuples_hot_updated('ratings'::regclass)"
            ).fetchone() or (0,)
    assert {name for (name,) in indexed} == {"bot_id", "pool"}
    assert hot == 2


def rated(store: Store, rules: Rules, seats: list[int], name: str, seed: int) -> None:
    request_match(store, name, rules, seats, seed=seed)
    store.finish_match(name, played(rules, seed))


def test_team_members_are_fitted_from_their_teams_results(store: Store) -> None:
    bots = [store.register_bot(n)[0] for n in ("a1", "b1", "a2", "b2")]
    rules = Rules.parse("paulista:team_size=2")
    rated(store, rules, [b.id for b in bots], "t1", 9)
    refit(store, pool_of(rules))
    elo = {s.name: s.rating.elo for s in store.leaderboard(pool_of(rules))}
    assert elo["a1"] == pytest.approx(elo["a2"]) and elo["b1"] == pytest.approx(elo["b2"])
    assert elo["a1"] - 1500 == pytest.approx(1500 - elo["b1"])
    assert (elo["a1"] > 1500) == (played(rules, 9)["result"]["winner"] == 0)


def test_the_stored_ratings_are_the_fit_of_the_recorded_results(store: Store) -> None:
    names = ["ana", "bia", "caio", "dani"]
    ids = {n: store.register_bot(n)[0].id for n in names}
    draw = random.Random(3)
    rules = Rules()
    for k in range(30):
        a, b = draw.sample(names, 2)
        rated(store, rules, [ids[a], ids[b]], f"m{k}", k)
    refit(store, pool_of(rules))
    expected = fit(store.pool_lineups(pool_of(rules))).ratings
    board = {s.name: s.rating for s in store.leaderboard(pool_of(rules))}
    for name in names:
        assert board[name].elo == pytest.approx(expected[name].elo, abs=1e-9)
        assert board[name].deviation == pytest.approx(expected[name].sd, abs=1e-9)
    assert math.fsum(r.elo for r in board.values()) == pytest.approx(1500 * len(names))


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_every_team_size_keeps_the_pool_mean_at_1500(store: Store, size: int) -> None:
    draw = random.Random(size)
    rules = Rules.parse(f"paulista:team_size={size}")
    bots = [store.register_bot(f"s{size}-{k}")[0].id for k in range(2 * size + 2)]
    for k in range(8):
        rated(store, rules, draw.sample(bots, rules.seats), f"size{size}-{k}", k)
    refit(store, pool_of(rules))
    board = store.leaderboard(pool_of(rules))
    assert math.fsum(s.rating.elo for s in board) == pytest.approx(1500 * len(board))
    assert all(s.rating.deviation is not None for s in board)


def test_a_bot_on_both_teams_moves_no_rating_and_one_seated_twice_counts_once(
    store: Store, database: str
) -> None:
    a, b, c = (store.register_bot(n)[0].id for n in ("a", "b", "c"))
    request_match(store, "mirror", Rules(), [a, a], seed=3)
    mirror = store.finish_match("mirror", played(Rules(), 3))
    assert mirror.recorded
    refit(store, "paulista/1")
    assert count(database, "SELECT count(*) FROM ratings") == 0
    assert store.pool_lineups("paulista/1") == []
    pairs = Rules.parse("paulista:team_size=2")
    request_match(store, "twice", pairs, [a, b, a, c], seed=4)  # a holds both seats of team 0
    store.finish_match("twice", played(pairs, 4))
    refit(store, "paulista/2")
    assert count(database, "SELECT count(*) FROM rating_events") == 3
    (lineup,) = store.pool_lineups("paulista/2")
    assert {lineup.team_a, lineup.team_b} == {("a",), ("b", "c")} and lineup.games == 1


def test_an_unfinished_record_or_unknown_match_is_refused(store: Store) -> None:
    a, _ = store.register_bot("alpha")
    b, _ = store.register_bot("beta")
    request_match(store, "m2", Rules(), [a.id, b.id], seed=1)
    unfinished = to_record(Match(Rules(), seed=1))
    with pytest.raises(Invalid, match="no winner"):
        store.finish_match("m2", unfinished)
    with pytest.raises(NotFound, match="no match 'nope'"):
        store.finish_match("nope", played(Rules(), 1))


def finish_all(database: str, jobs: list[tuple[str, dict[str, Any]]]) -> None:
    """A worker process: finish these matches through its own store, fitting the pool
    after each as the workers do."""
    store = Store(database, max_size=2)
    try:
        for match_id, record in jobs:
            store.finish_match(match_id, record)
            refit(store, "paulista/1")
    finally:
        store.close()


def test_racing_processes_record_each_match_once_as_a_serial_replay_would(
    store: Store, database: str
) -> None:
    bots = [store.register_bot(f"bot{i}")[0] for i in range(4)]
    rules = Rules()
    pairs = [(a, b) for a in bots for b in bots if a.id < b.id] * 4  # 24 matches
    for k, (a, b) in enumerate(pairs):
        request_match(store, f"c{k}", rules, [a.id, b.id], seed=k)
    records = {f"c{k}": played(rules, k) for k in range(len(pairs))}
    jobs = list(records.items()) * 2  # every match finished twice, by racing processes
    random.Random(1).shuffle(jobs)
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=finish_all, args=(database, jobs[i::3])) for i in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert [w.exitcode for w in workers] == [0, 0, 0]

    board = {s.rating.bot_id: s.rating for s in store.leaderboard(pool_of(rules))}
    assert sum(r.elo for r in board.values()) == pytest.approx(1500 * len(bots))
    assert all(r.games == 12 and r.wins + r.losses == 12 for r in board.values())
    # every match counted once, by the first fit that saw it, whoever fitted
    assert count(database, "SELECT count(*) FROM rating_events") == 2 * len(pairs)
    assert count(database, "SELECT count(*) FROM matches WHERE status = 'finished'") == len(pairs)
    assert count(database, "SELECT count(*) FROM matches WHERE NOT fitted") == 0
    (lineup,) = [x for x in store.pool_lineups(pool_of(rules)) if x.team_a == ("bot0",)][:1]
    wins = sum(
        (records[f"c{k}"]["result"]["winner"] == 0) == (a.name == "bot0")
        for k, (a, b) in enumerate(pairs)
        if {a.name, b.name} == {"bot0", lineup.team_b[0]}
    )
    assert (lineup.games, lineup.wins) == (4, wins)
    expected = fit(store.pool_lineups(pool_of(rules))).ratings
    for bot in bots:
        assert board[bot.id].elo == pytest.approx(expected[bot.name].elo, abs=1e-9)


@pytest.mark.parametrize("again", ["Alpha", "ALPHA", "\uff41\uff4c\uff50\uff48\uff41"])
def test_bot_names_are_one_whatever_their_case_or_unicode_form(store: Store, again: str) -> None:
    store.register_bot("alpha")
    with pytest.raises(Exists, match="already exists"):
        store.register_bot(again)


def test_names_that_collided_before_are_told_apart_by_the_migration(database: str) -> None:
    from arena.store.migrate import migrations

    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for m in migrations()[:6]:
            conn.execute(m.sql.encode())
            conn.execute("INSERT INTO schema_migrations VALUES (%s, %s)", (m.version, m.name))
        for name, digest in (("alpha", b"1"), ("Alpha", b"2"), ("beta", b"3")):
            conn.execute("INSERT INTO bots (name, token_hash) VALUES (%s, %s)", (name, digest))
    migrate(database)
    with psycopg.connect(database) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM bots ORDER BY id")]
    assert names[0] == "alpha" and names[1] == "Alpha-2" and names[2] == "beta"


def test_every_match_is_dealt_from_the_arenas_own_secret(store: Store, postgres: str) -> None:
    a, _ = store.register_bot("alpha")
    b, _ = store.register_bot("beta")
    request_match(store, "m-1", Rules(), [a.id, b.id])
    request_match(store, "m-2", Rules(), [a.id, b.id])
    seeds = [store.match(m)[0].seed for m in ("m-1", "m-2")]  # type: ignore[index]
    key = store.deal_key()
    assert len(key) == 32
    assert seeds == [deal_seed(key, "m-1"), deal_seed(key, "m-2")]
    assert seeds[0] != seeds[1]  # a match's id tells nothing without the key

"""The ladder per pool with real processes (`arena serve`, a Celery worker and the beat on
Redis, PostgreSQL, bots as processes), driven by the CLI as an author and an organizer
would: a bot opted in for one pool plays only there; `arena bot ladder` says what it did
for a bot that dials in and for a hosted one; `arena ladder show` tells a ladder waiting
for its first look from one no beat looks at, and its pace is the matches it finished in
the last hour while it was on, none shown while it is off. And a bot retired with
`arena bot retire` leaves the pool's fit at the scheduler's next minute: the others'
intervals narrow."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Callable
from typing import Any

from arena.cli.hosting import packed
from arena.domain.versions import Manifest
from arena.hosted.archive import check
from arena.usecases.versions import judge, submit
from tests.arenaproc import Arena, broker_url
from tests.usecases.test_ladder import EXAMPLE
from tests.workers.test_ladder_play import cli, matches, wait_until

POOL = "paulista/1"  # the challenges' (the default rules')
POOLS = (POOL, "solver/1")
ONE = "solver/1"  # cid's only pool


def ok(arena: Arena, *args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` (:func:`cli`), which must succeed."""
    done = cli(arena, *args, token=token)
    assert done.returncode == 0, done.stderr
    return done


def show(arena: Arena, pool: str) -> dict[str, Any]:
    shown: dict[str, Any] = json.loads(ok(arena, "ladder", "show", pool, "--json").stdout)
    return shown


def in_pool(arena: Arena, pool: str) -> list[tuple[str, str, list[str]]]:
    """The ladder matches of ``pool``'s ladder."""
    ladder = arena.store.ladder(pool)
    assert ladder is not None
    return [m for m in matches(arena) if m[0].startswith(f"ladder{ladder.id}-")]


def test_a_bot_in_for_one_pool_plays_only_there(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"))  # no worker, no beat yet
    arena.bots(ana="house:random", bia="house:random", cid="house:random")
    for name in ("ana", "bia"):
        said = ok(arena, "bot", "ladder", name, "on", token=arena.tokens[name]).stdout
        assert said == (
            f"{name} opted in to every pool's ladder: it plays there while it is connected"
            " (arena bot run, or its own process)\n"
        )
    said = ok(arena, "bot", "ladder", "cid", "on", "--pool", ONE, token=arena.tokens["cid"])
    assert said.stdout.startswith("cid opted in to the ladder of solver/1: it plays there")

    # a hosted bot: the arena starts it, no connection needed
    arena.organizer.bot_token("host")
    data, manifest = packed(EXAMPLE), Manifest("python", EXAMPLE.name)
    version, _ = submit(arena.store, "host", manifest, data, check(data, manifest))
    judge(arena.store, version.id)
    said = ok(arena, "bot", "ladder", "host", "on", "--pool", ONE).stdout
    assert said == (
        "host opted in to the ladder of solver/1: the arena starts its active version for"
        " each match (no connection needed)\n"
    )
    host = json.loads(ok(arena, "bot", "ladder", "host", "off", "--pool", "paulista/1",
                          "--json").stdout)  # fmt: skip
    assert (host["hosted"], host["ladder"]) == (True, None)
    assert host["ladder_pools"] == {"paulista/1": False, ONE: True}
    said = ok(arena, "bot", "ladder", "host", "off").stdout  # every pool's: out of both
    assert said == "host opted out of every pool's ladder: it is scheduled there no more\n"

    for pool in POOLS:
        on = ok(arena, "ladder", "on", pool, "--concurrency", "2", "--decision-ms", "100")
        assert f"ladder {pool}: on, up to 2 matches at once" in on.stdout
        assert "waiting for the first look (every 5 s)" in on.stdout
        assert "has looked" not in on.stdout and "has not looked" not in on.stdout
    assert show(arena, ONE)["opted_in"] == ["ana", "bia", "cid"]
    assert show(arena, "paulista/1")["opted_in"] == ["ana", "bia"]
    with arena.store.pool.connection() as conn:  # on for a minute, and no beat has looked
        conn.execute("UPDATE ladders SET on_since = on_since - interval '1 minute'")
    stalled = ok(arena, "ladder", "show", ONE).stdout
    quiet = re.search(r"no beat has looked for (\d+) s \(every 5 s expected\)", stalled)
    assert quiet is not None and 60 <= int(quiet[1]) < 120, stalled
    assert show(arena, ONE)["look"] == "stalled"

    arena.worker()
    arena.processes.start("beat", "beat", "--loglevel", "info")
    for pool in POOLS:
        wait_until(arena, lambda pool=pool: show(arena, pool)["look"] == "looking", "a look")
    wait_until(
        arena,
        lambda: (
            all(sum(s == "finished" for _, s, _ in in_pool(arena, p)) >= 8 for p in POOLS)
            and any("cid" in seats for _, _, seats in in_pool(arena, ONE))
        ),
        "8 matches on each ladder, cid's among solver/1's",
    )
    assert not any("cid" in seats for _, _, seats in in_pool(arena, "paulista/1"))
    assert not any("host@1" in seats for _, _, seats in matches(arena))

    # the pace: finished in the last hour while on; nothing while off
    off = ok(arena, "ladder", "off", "paulista/1").stdout
    assert "ladder paulista/1: off" in off and "last hour" not in off and "on since" not in off
    assert show(arena, "paulista/1")["per_hour"] is None
    wait_until(arena, lambda: show(arena, "paulista/1")["playing"] == 0, "its last matches")
    ended = in_pool(arena, "paulista/1")
    ok(arena, "ladder", "on", "paulista/1")
    shown = show(arena, "paulista/1")
    with arena.store.pool.connection() as conn:  # those finished before it was switched off
        row = conn.execute(
            "SELECT count(*) AS n FROM matches m WHERE m.id = ANY(%s) AND m.finished_at <="
            " (SELECT max(a.at) FROM action_log a WHERE a.action = 'ladder off'"
            " AND a.subject = 'pool paulista/1')",
            ([m for m, _, _ in ended],),
        ).fetchone()
    assert row is not None and row["n"] >= 8
    # give or take the 2 at once that may have ended as it was switched off, and those of
    # the ladder since it is on again
    since = len(in_pool(arena, "paulista/1")) - len(ended)
    assert row["n"] - 2 <= shown["per_hour"] <= row["n"] + 2 + since
    text = ok(arena, "ladder", "show", "paulista/1").stdout
    assert re.search(r"on since \S+: \d+ finished in the last hour while on", text), text


def until(done: Callable[[], bool], what: str, timeout_s: float = 120.0) -> None:
    """Until ``done()``, asked every 200 ms (the pool's fit lives in the database)."""
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, f"waited {timeout_s} s for {what}"
        time.sleep(0.2)


def halves(arena: Arena) -> dict[str, float]:
    """Half of each rating's 95% interval, as `arena ratings --json --retired` has it."""
    shown = json.loads(ok(arena, "ratings", "--json", "--retired").stdout)
    return {s["bot"]: (s["high"] - s["low"]) / 2 for s in shown["standings"]}


def test_a_retired_bot_leaves_the_fit_and_every_interval_narrows(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.bots(ana="house:random", bia="house:random", cid="house:random", old="house:random")
    ids = [m for pair in (["ana", "bia"], ["bia", "cid"], ["cid", "ana"])
           for m in arena.challenge(pair, 10)]  # fmt: skip
    ids += arena.challenge(["old", "ana"], 1) + arena.challenge(["cid", "old"], 1)
    arena.wait_matches(ids, len(ids))
    store = arena.store
    arena.sweep(minutes_later=0)  # the last matches fitted (a worker fits twice a second)
    until(lambda: store.pool_fit(POOL, store.pool_version(POOL)) is not None, "the last fit")
    fitted = store.pool_fit(POOL)
    assert fitted is not None and fitted.anchors == {"ana", "bia", "cid", "old"}
    before = halves(arena)

    said = ok(arena, "bot", "retire", "old").stdout
    assert "retired" in said
    arena.sweep(minutes_later=0)  # the scheduler's minute: the pool's bots have changed
    until(
        lambda: getattr(store.pool_fit(POOL), "anchors", None) == {"ana", "bia", "cid"},
        "the pool fitted again without old",
    )
    after = halves(arena)
    for name in ("ana", "bia", "cid"):
        assert after[name] < 0.8 * before[name], (before, after)
    assert set(after) == set(before)  # old is still rated, its results still count
    fitted_again = store.pool_fit(POOL)
    assert fitted_again is not None and fitted_again.version == fitted.version

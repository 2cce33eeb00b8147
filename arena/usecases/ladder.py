"""The ladder's scheduler: fill a pool's free ladder slots with the matches the
matchmaker picks (:mod:`arena.domain.matchmaking`) among the bots available now
(docs/ladder.md).

Available means, as each bot chose for the pool's ladder or else for every pool's: a
hosted bot (its active version is started for each match) unless it opted out, and a
bot that dials in while it is connected to the referee and has opted in. Nobody else is
ever scheduled, so a ladder never seats a stand-in on purpose. The matches are chosen
under the ladder's lock (:func:`fill`) and then played by the workers like any other,
through the one recording path."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from arena.domain.actors import ARENA
from arena.domain.clock import TimeControl
from arena.domain.matches import NewMatch, ladder_match_id
from arena.domain.matchmaking import Available, Policy, ladder_round
from arena.domain.pools import pool_rules
from arena.domain.rating import START
from arena.domain.tournament import deal_seed
from arena.store.ladders import LadderBot
from arena.store.rows import LadderRow
from arena.store.store import Store

HOSTED_CONCURRENCY = 2  # ladder matches a hosted bot plays at once (a process for each)
RECENT = 60  # the latest pairings a ladder reads for its matchmaking


def available(
    bots: Sequence[LadderBot], connected: Mapping[str, tuple[int, int]]
) -> dict[str, tuple[LadderBot, int, int]]:
    """The bots a ladder may pair now, by seat name: each with its concurrency and the
    matches the referee sees it in. ``connected``: the bots connected to the referee,
    each one's granted concurrency and its matches now."""
    out = {}
    for bot in bots:
        if bot.hosted:
            out[bot.seat] = (bot, HOSTED_CONCURRENCY, 0)
        elif bot.name in connected:
            concurrency, playing = connected[bot.name]
            out[bot.seat] = (bot, max(1, concurrency), playing)
    return out


def fill(
    store: Store,
    pool: str,
    connected: Mapping[str, tuple[int, int]],
    policy: Policy | None = None,
    rng: random.Random | None = None,
    ended: str | None = None,
) -> list[str]:
    """Start the matches the pool's ladder has room for; their ids (to send to the
    workers). Nothing when the ladder is off or nobody can be paired. ``ended``: a match
    of the ladder that the referee has ended and that is being recorded (its slot is
    free, its bots too). The matches are made under the ladder's lock, in one unit of
    work with the counter that names them: two schedulers asking at once take turns, and
    the second sees the first's matches in the slots, so a slot is never filled twice."""
    bots = available(store.ladder_bots(pool), connected)
    ratings = {s.name: s.rating for s in store.leaderboard(pool)}
    # the intervals last fitted: a few matches behind is as good for choosing pairs (the
    # worker that records a match refits its pool anyway)
    kept = store.pool_fit(pool)
    halves = kept.halves if kept is not None else {}
    candidates = [
        Available(seat, concurrency, elsewhere, r.elo if r else START, r.games if r else 0,
                  halves.get(seat))
        for seat, (_, concurrency, elsewhere) in bots.items()
        for r in [ratings.get(seat)]
    ]  # fmt: skip
    rules = pool_rules(pool)
    key = store.deal_key()  # read now: not on a second connection while holding the lock
    with store.unit() as conn:
        ladder = store.lock_ladder(conn, pool)
        if ladder is None or not ladder.running:
            return []
        playing = [(lid, seats) for lid, mid, seats in store.ladder_open(conn) if mid != ended]
        free = max(0, ladder.concurrency - sum(lid == ladder.id for lid, _ in playing))
        chosen = ladder_round(
            candidates,
            [seats for _, seats in playing],
            store.ladder_recent(conn, ladder.id, RECENT),
            free,
            ladder.scheduled,
            rules,
            policy or Policy(),
            rng or random.Random(),
        )
        made = []
        for number, seats in enumerate(chosen, start=ladder.scheduled + 1):
            match_id = ladder_match_id(ladder.id, number)
            made.append(
                NewMatch(match_id, rules, tuple(bots[s][0].id for s in seats),
                         deal_seed(key, match_id), TimeControl.from_json(ladder.clock),
                         ladder_id=ladder.id)
            )  # fmt: skip
        store.insert_matches(conn, made)
        store.ladder_scheduled(conn, ladder.id, ladder.scheduled + len(made), list(bots))
    return [m.id for m in made]


def set_ladder(
    store: Store,
    pool: str,
    on: bool,
    concurrency: int | None = None,
    clock: TimeControl | Callable[[TimeControl], TimeControl] | None = None,
    *,
    actor: str = ARENA,
) -> LadderRow:
    """Switch the pool's ladder on or off (made the first time it is set). ``concurrency``
    and ``clock`` change when given, else stay as they were; ``clock`` may be a change of
    the clock as it stands (the Arena API's deprecated fields change their clocks alone).
    In one unit of work, under the ladder's lock, with its entry of the action log
    (``actor``: who asked)."""
    with store.unit() as conn:
        now = store.make_ladder(conn, pool)
        current = TimeControl.from_json(now.clock)
        new = clock(current) if callable(clock) else clock or current
        row = store.update_ladder(
            conn, now.id, on, now.concurrency if concurrency is None else concurrency, new
        )
        detail = {"concurrency": row.concurrency, "clock": row.clock}
        store.log_action(conn, actor, "ladder on" if on else "ladder off", f"pool {pool}", detail)
        return row

"""The ladder's scheduler: fill a pool's free ladder slots with the matches the
matchmaker picks (:mod:`arena.domain.matchmaking`) among the bots available now
(docs/ladder.md).

Available means: a hosted bot (its active version is started for each match) unless it
opted out, and a bot that dials in while it is connected to the referee and has opted
in. Nobody else is ever scheduled, so a ladder never seats a stand-in on purpose. The
matches are made by the store under the ladder's lock (:meth:`Store.fill_ladder`) and
then played by the workers like any other, through the one recording path.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

from arena.domain.matchmaking import Candidate, Policy, next_pairs
from arena.domain.pools import pool_rules
from arena.domain.rating import START
from arena.domain.tournament import seatings
from arena.store.ladders import LadderBot, Slots
from arena.store.store import Store

HOSTED_CONCURRENCY = 2  # ladder matches a hosted bot plays at once (a process for each)
TICK_S = 5.0  # how often the scheduler looks, besides whenever a ladder match ends


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
    free, its bots too)."""
    bots = available(store.ladder_bots(), connected)
    ratings = {s.name: s.rating for s in store.leaderboard(pool)}
    # the intervals last fitted: a few matches behind is as good for choosing pairs (the
    # worker that records a match refits its pool anyway)
    kept = store.pool_fit(pool)
    halves = kept.halves if kept is not None else {}
    rules = pool_rules(pool)
    rng = rng or random.Random()

    def choose(slots: Slots) -> list[list[int]]:
        # a bot's matches now: its unfinished ladder matches (on any ladder), or what the
        # referee sees it in, whichever is more (a queued match is not seated yet)
        busy = Counter(name for games in slots.open.values() for s in games for name in set(s))
        candidates = []
        for seat, (_, concurrency, elsewhere) in bots.items():
            rating = ratings.get(seat)
            candidates.append(
                Candidate(
                    seat,
                    rating.elo if rating else START,
                    rating.games if rating else 0,
                    halves.get(seat),
                    max(busy[seat], elsewhere),
                    concurrency,
                )
            )
        recent = [pair for seats in slots.recent if (pair := _pair(seats))]
        pairs = next_pairs(candidates, recent, slots.free, policy or Policy(), rng)
        number = slots.ladder.scheduled
        out = []
        for a, b in pairs:
            number += 1  # seats swap from one match of the ladder to the next
            seats = seatings(rules, [a, b], 2)[number % 2]
            out.append([bots[name][0].id for name in seats])
        return out

    return store.fill_ladder(pool, choose, list(bots), ended)


def _pair(seats: Sequence[str]) -> tuple[str, str] | None:
    """The two bots of a ladder match (one per team, in every seat of its team)."""
    bots = list(dict.fromkeys(seats))
    return (bots[0], bots[1]) if len(bots) == 2 else None

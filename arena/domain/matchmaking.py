"""Which bots the ladder pairs next: the matches that teach the ratings most, spread
evenly, never the same pair too often (docs/ladder.md gives the policy and its reasons).

Pure: it sees each available bot's rating, games and uncertainty, the matches each is
playing now against the concurrency it declared, and the pool's latest pairings; it
answers with pairs. Whoever asks (the ladder's scheduler) turns them into matches.

- **Information.** A pair's outcome teaches most when it is most uncertain: the chance
  ``p`` that one beats the other near one half (``p (1 - p)``, a Bernoulli's variance),
  and when the bots' ratings are themselves uncertain (their uncertainties add). A bot's
  uncertainty is its Bradley-Terry half interval where the pool has one, else it shrinks
  with its games: a new bot's is wide.
- **Placement.** A bot with fewer than ``placement`` games meets a spread of opponents:
  its k-th placement match targets the opponent at a rank quantile that a low-discrepancy
  sequence (the golden ratio's) takes round the pool, so a few matches cover it from top
  to bottom instead of all landing near 1500.
- **Evenness.** Each match includes the bot that has played least in the recent window
  (of those free and with someone left to meet), so nobody starves and nobody hogs; its
  opponent is the one that teaches most, a score divided by one plus the matches each
  bot played lately.
- **Repeats.** A pair met ``max_repeats`` times in the window (or twice its fair share of
  the window, in a pool too small for that) is not paired again until older meetings
  leave it.
- **Concurrency.** A bot is offered only while it plays fewer matches than it declared.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.domain.rating import START, score_from_elo
from arena.domain.tournament import seatings
from arena.engine import Rules

GOLDEN = (math.sqrt(5) - 1) / 2  # the low-discrepancy step of placements' quantiles
NEW_BOT_SPREAD = 350.0  # Elo: the uncertainty of a bot with no games
CONCURRENCY = 2  # a new ladder's matches at once, unless its organizer says otherwise
MAX_CONCURRENCY = 256  # the most a ladder may keep going (migration 0011's bound)
TICK_S = 5.0  # how often arena beat looks at each ladder, besides whenever a match ends
STALLED_TICKS = 3  # a ladder not looked at for this many ticks says so (a beat is missing)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A bot the ladder may schedule now."""

    name: str
    elo: float
    games: int  # rated games in the pool
    half: float | None = None  # its Bradley-Terry half interval, when the pool has one
    playing: int = 0  # matches it plays now
    concurrency: int = 1  # matches it may play at once

    @property
    def spread(self) -> float:
        """How unsure its rating is, in Elo points."""
        if self.half is not None:
            return self.half
        return NEW_BOT_SPREAD / math.sqrt(1 + self.games)


@dataclass(frozen=True, slots=True)
class Policy:
    window: int = 60  # the pool's latest pairings that repeats and evenness look at
    max_repeats: int = 4  # meetings of one pair in the window
    placement: int = 6  # games before a bot's opponents stop being chosen for spread


def win_chance(a: float, b: float) -> float:
    """The Elo model's chance that a bot rated ``a`` beats one rated ``b``."""
    return score_from_elo(a - b)


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def repeat_cap(bots: int, window: int, policy: Policy) -> int:
    """How often one pair may meet in the window: ``policy.max_repeats``, or twice its
    fair share of the window where the pool has too few pairs for that (three bots have
    three pairs: held to 4 meetings in 60, they would soon have nobody to play)."""
    pairs = max(1, bots * (bots - 1) // 2)
    return max(policy.max_repeats, 2 * math.ceil(window / pairs))


def next_pairs(
    bots: Sequence[Candidate],
    recent: Sequence[tuple[str, str]],
    slots: int,
    policy: Policy = Policy(),
    rng: random.Random | None = None,
) -> list[tuple[str, str]]:
    """Up to ``slots`` pairs to start now, best first; ``recent`` is the pool's latest
    pairings, oldest first (only the last ``policy.window`` count)."""
    rng = rng or random.Random(0)
    window = list(recent)[-policy.window :]
    met = Counter(pair_key(a, b) for a, b in window)
    cap = repeat_cap(len(bots), len(window), policy)
    lately = Counter(name for pair in window for name in pair)
    playing = {b.name: b.playing for b in bots}
    rank = {b.name: k for k, b in enumerate(sorted(bots, key=lambda b: -b.elo))}
    out: list[tuple[str, str]] = []
    for _ in range(slots):
        free = [b for b in bots if playing[b.name] < b.concurrency]
        best: tuple[int, float, tuple[str, str]] | None = None
        for i, a in enumerate(free):
            for b in free[i + 1 :]:
                if met[pair_key(a.name, b.name)] >= cap:
                    continue
                # the pair that includes the bot that played least lately, then the one
                # whose outcome teaches most
                least = -min(lately[a.name], lately[b.name])
                score = _score(a, b, rank, lately, policy) * (1 + 1e-9 * rng.random())
                if best is None or (least, score) > best[:2]:
                    best = (least, score, (a.name, b.name))
        if best is None:
            break
        a_name, b_name = best[2]
        out.append(best[2])
        playing[a_name] += 1
        playing[b_name] += 1
        met[pair_key(a_name, b_name)] += 1
        lately.update((a_name, b_name))
    return out


def _score(
    a: Candidate,
    b: Candidate,
    rank: Mapping[str, int],
    lately: Counter[str],
    policy: Policy,
) -> float:
    p = win_chance(a.elo, b.elo)
    information = p * (1 - p) * (a.spread + b.spread)
    for new, other in ((a, b), (b, a)):
        if new.games < policy.placement and len(rank) > 2:
            # a new bot's rating says little yet, so neither does p: any opponent teaches
            # as much as an equal one, and the one at its next quantile is preferred
            information = 0.25 * (a.spread + b.spread) * _placement_fit(new, other, rank)
    return information / ((1 + lately[a.name]) * (1 + lately[b.name]))


def _placement_fit(new: Candidate, other: Candidate, rank: Mapping[str, int]) -> float:
    """How well ``other`` serves ``new``'s next placement match: 1 for the opponent at
    the target quantile, falling off with the distance in ranks (among the others: the
    pool's ranks without ``new``'s own)."""
    target = (new.games * GOLDEN) % 1 * (len(rank) - 2)
    at = rank[other.name] - (rank[new.name] < rank[other.name])
    return 1 / (1 + abs(at - target))


@dataclass(frozen=True, slots=True)
class Available:
    """A bot a ladder may pair now, by who plays for it (``seat``): the matches it may
    play at once, those the referee sees it in, and its rating in the pool (elo, games
    and the half interval of the pool's last fit; None: unrated, or not fitted yet)."""

    seat: str
    concurrency: int
    elsewhere: int = 0
    elo: float = START
    games: int = 0
    half: float | None = None


def ladder_round(
    bots: Sequence[Available],
    playing: Sequence[Sequence[str]],
    recent: Sequence[Sequence[str]],
    free: int,
    scheduled: int,
    rules: Rules,
    policy: Policy,
    rng: random.Random,
) -> list[list[str]]:
    """The seats of the matches a ladder starts now, up to ``free`` of them; its ladder
    has made ``scheduled`` so far, and the seats swap from one of its matches to the
    next. ``playing``: the seats of every ladder's unfinished matches (bots play on more
    than one ladder); ``recent``: this ladder's latest matches' seats, oldest first."""
    # a bot's matches now: its unfinished ladder matches (on any ladder), or what the
    # referee sees it in, whichever is more (a queued match is not seated yet)
    busy = Counter(name for seats in playing for name in set(seats))
    candidates = [
        Candidate(b.seat, b.elo, b.games, b.half, max(busy[b.seat], b.elsewhere), b.concurrency)
        for b in bots
    ]
    pairs = next_pairs(candidates, [p for s in recent if (p := _two(s))], free, policy, rng)
    return [
        seatings(rules, [a, b], 2)[number % 2]
        for number, (a, b) in enumerate(pairs, start=scheduled + 1)
    ]


def _two(seats: Sequence[str]) -> tuple[str, str] | None:
    """The two bots of a ladder match (one per team, in every seat of its team)."""
    bots = list(dict.fromkeys(seats))
    return (bots[0], bots[1]) if len(bots) == 2 else None

"""The ladder's matchmaking (arena/domain/matchmaking.py), pure: what it prefers, what it never
does, and, over a long simulated ladder with outcomes drawn from known strengths, that
the ratings it feeds find the true order while every bot plays about as often."""

from __future__ import annotations

import random
from collections import Counter

from arena.domain.matchmaking import (
    Candidate,
    Policy,
    next_pairs,
    pair_key,
    repeat_cap,
    win_chance,
)

SETTLED = 200  # games: an established bot

ONLINE_K = 24.0  # the simulation's ratings move by an online Elo: quick, and enough to pair by


def test_equal_ratings_pair_first() -> None:
    bots = [Candidate("a", 1500, SETTLED), Candidate("b", 1510, SETTLED),
            Candidate("c", 1900, SETTLED)]  # fmt: skip
    assert next_pairs(bots, [], 1) == [("a", "b")]


def test_uncertain_ratings_pair_first() -> None:
    bots = [Candidate(n, 1500, SETTLED, half=h) for n, h in
            [("sure1", 20), ("sure2", 20), ("unsure1", 200), ("unsure2", 200)]]  # fmt: skip
    assert next_pairs(bots, [], 1) == [("unsure1", "unsure2")]


def test_a_new_bot_meets_a_spread_of_the_pool() -> None:
    field = [Candidate(f"r{k}", 1100 + 100 * k, SETTLED) for k in range(9)]  # r0 weakest
    met = []
    for games in range(6):
        new = Candidate("new", 1500, games)
        (pair,) = next_pairs([new, *field], [], 1)
        assert "new" in pair
        met.append(int(next(n for n in pair if n != "new")[1:]))
    assert len(set(met)) == 6  # six different opponents
    assert min(met) <= 2 and max(met) >= 6, met  # from the bottom third to the top third


def test_concurrency_and_repeats_are_never_exceeded() -> None:
    bots = [Candidate(n, 1500, SETTLED, concurrency=1) for n in "abcdef"]
    pairs = next_pairs(bots, [], 10)
    assert len(pairs) == 3 and len({n for p in pairs for n in p}) == 6
    busy = [Candidate("a", 1500, SETTLED, playing=2, concurrency=2),
            Candidate("b", 1500, SETTLED), Candidate("c", 1500, SETTLED)]  # fmt: skip
    assert next_pairs(busy, [], 5) == [("b", "c")]
    policy = Policy(max_repeats=2)
    six = [Candidate(n, 1500, SETTLED, concurrency=9) for n in "abcdef"]
    assert ("a", "b") not in next_pairs(six, [("a", "b"), ("b", "a")], 15, policy)
    assert ("a", "b") in next_pairs(six, [("a", "b")], 15, policy)
    two = six[:2]  # a pool of two must repeat: held to twice its fair share
    assert next_pairs(two, [("a", "b")] * 3, 5, Policy(window=3, max_repeats=1)) == [
        ("a", "b"), ("a", "b"), ("a", "b"),
    ]  # fmt: skip


def kendall_tau(order: list[str], truth: list[str]) -> float:
    rank = {name: i for i, name in enumerate(truth)}
    pairs = [(x, y) for i, x in enumerate(order) for y in order[i + 1 :]]
    agree = sum(rank[x] < rank[y] for x, y in pairs)
    return (2 * agree - len(pairs)) / len(pairs)


def test_a_simulated_ladder_finds_the_order_and_spreads_the_games() -> None:
    rng = random.Random(7)
    strength = {"random": 1000, "weak": 1250, "fair": 1450, "good": 1600, "strong": 1800,
                "best": 2000}  # fmt: skip
    elo = dict.fromkeys(strength, 1500.0)
    games: Counter[str] = Counter()
    recent: list[tuple[str, str]] = []
    policy = Policy()
    for _ in range(200):  # rounds of 3 matches at once (concurrency 1 each)
        bots = [Candidate(n, elo[n], games[n]) for n in strength]
        pairs = next_pairs(bots, recent, 3, policy, rng)
        assert pairs, "the ladder ran dry"
        window = recent[-policy.window :]
        met = Counter(pair_key(*p) for p in window + pairs)
        assert max(met.values()) <= repeat_cap(len(strength), len(window), policy)
        for a, b in pairs:
            a_won = rng.random() < win_chance(strength[a], strength[b])
            change = ONLINE_K * (a_won - win_chance(elo[a], elo[b]))
            elo[a] += change
            elo[b] -= change
            games.update((a, b))
            recent.append((a, b))
    truth = sorted(strength, key=lambda n: -strength[n])
    order = sorted(elo, key=lambda n: -elo[n])
    assert kendall_tau(order, truth) >= 0.8, (order, elo)
    mean = sum(games.values()) / len(games)
    assert all(abs(g - mean) <= 0.3 * mean for g in games.values()), games

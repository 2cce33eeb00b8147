"""Swiss tournaments without I/O (docs/formats.md): a set number of rounds, each paired
once the round before it is over, among bots of equal or nearest scores, with no rematch,
the seats balanced, and a bye for an odd field (one per bot at most).

A round's pairing is a maximum-weight perfect matching (networkx's
``max_weight_matching``, Edmonds' blossom algorithm) on the graph of the bots that may
meet, rather than a greedy walk down the table: the weights say what a good pairing is,
and the matching finds the best one overall. For two bots a and b the weight is
``BIG - (SCORE * d² + SEATS * clash + FOLD * f)``, where

- ``d`` is the difference of their scores (match points so far): pairs within a score
  group first, and the fewest and smallest floats between groups;
- ``clash`` is, when both have sat first more often than second (or both less), the
  smaller of their two excesses: the seats stay balanced (an excess of 3 costs as much
  as a rematch, so no bot sits first, or second, more than twice as often as the other
  way, FIDE's bound; with an even number of matches per pairing the seats alternate
  within each pairing and stay level);
- ``f``, for bots of one score group, is how far their distance in the table is from half
  the group's size: the top half meets the bottom half, as the Dutch system pairs.

Bots that met before have no edge; neither has a bot that had a bye with the bye (an
extra node, in an odd field, weighted to go to the lowest score, then the lowest placed).
When no perfect matching exists without them (a small field late in an event), the round
is paired again with every edge, a rematch or a second bye costing ``REMATCH`` each: the
fewest of them that make a round.

The state a run keeps is its list of rounds, each ``{"pairings": [[A, B], ...], "bye": C}``
(A sat first; C None without a bye).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx

SCORE, SEATS, FOLD, REMATCH = 10_000, 100, 1, 10**7
BYE = "\0bye"  # the bye's node: no bot's name (names are printable)

Round = dict[str, Any]


def rounds_for(n: int) -> int:
    """The default number of rounds for ``n`` bots: enough to tell one winner apart, as a
    knockout would (log2 n, rounded up)."""
    return max(1, math.ceil(math.log2(max(n, 2))))


def history(
    rounds: Sequence[Round], matches: int
) -> tuple[Counter[frozenset[str]], Counter[str], Counter[str]]:
    """Who met whom (and how often), each bot's byes, and each bot's seat balance (times it
    sat first minus times it sat second; with an even number of matches per pairing, the
    seats alternate within each pairing and stay balanced)."""
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    balance: Counter[str] = Counter()
    for r in rounds:
        for a, b in r["pairings"]:
            met[frozenset((a, b))] += 1
            if matches % 2:
                balance[a] += 1
                balance[b] -= 1
        if r.get("bye"):
            byes[r["bye"]] += 1
    return met, byes, balance


def pair(
    ranked: Sequence[str],
    scores: Mapping[str, float],
    rounds: Sequence[Round],
    matches: int,
) -> Round:
    """The next round's pairings of the bots ``ranked`` (best first, as the table stands)
    with their ``scores``; each pairing's first bot sits first."""
    met, byes, balance = history(rounds, matches)
    players = list(ranked)
    for strict in (True, False):
        graph = _graph(players, scores, met, byes, balance, strict=strict)
        matching = nx.max_weight_matching(graph, maxcardinality=True)
        if 2 * len(matching) == graph.number_of_nodes():
            break
    place = {bot: i for i, bot in enumerate(players)}
    pairings, bye = [], None
    for u, v in matching:
        if BYE in (u, v):
            bye = v if u == BYE else u
            continue
        pairings.append(_seated(u, v, balance, place))
    pairings.sort(key=lambda p: min(place[p[0]], place[p[1]]))
    return {"pairings": [list(p) for p in pairings], "bye": bye}


def _seated(
    a: str, b: str, balance: Mapping[str, int], place: Mapping[str, int]
) -> tuple[str, str]:
    """Who sits first: the one that sat first less often; level, the better placed."""
    first = min((a, b), key=lambda x: (balance.get(x, 0), place[x]))
    return (first, b if first == a else a)


def _graph(
    players: Sequence[str],
    scores: Mapping[str, float],
    met: Counter[frozenset[str]],
    byes: Counter[str],
    balance: Mapping[str, int],
    *,
    strict: bool,
) -> Any:
    place = {bot: i for i, bot in enumerate(players)}
    group = Counter(scores.get(p, 0) for p in players)
    within: dict[str, int] = {}
    seen: Counter[float] = Counter()
    for p in players:  # each bot's place inside its score group
        within[p] = seen[scores.get(p, 0)]
        seen[scores.get(p, 0)] += 1
    costs: dict[tuple[str, str], int] = {}
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            again = met[frozenset((a, b))]
            if again and strict:
                continue
            sa, sb = scores.get(a, 0), scores.get(b, 0)
            cost = SCORE * round((sa - sb) ** 2) + REMATCH * again
            ba, bb = balance.get(a, 0), balance.get(b, 0)
            if ba * bb > 0:  # past 2 either way costs as much as a rematch
                clash = min(abs(ba), abs(bb))
                cost += REMATCH if clash >= 2 else SEATS * clash
            if sa == sb:
                cost += FOLD * abs(abs(within[a] - within[b]) * 2 - group[sa]) // 2
            costs[a, b] = cost
    if len(players) % 2:
        low = min(scores.get(p, 0) for p in players)
        for p in players:
            if byes[p] and strict:
                continue
            gap = scores.get(p, 0) - low
            costs[p, BYE] = SCORE * round(gap**2) + (len(players) - place[p]) + REMATCH * byes[p]
    big = 1 + max(costs.values(), default=0)
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from([*players, *([BYE] if len(players) % 2 else [])])
    graph.add_weighted_edges_from((a, b, big - c) for (a, b), c in costs.items())
    return graph

"""Knockouts without I/O: single elimination from a seeded field (docs/formats.md).

The field's seeds take their places in a bracket of the next power of two, placed so that
the two best seeds can meet only in the final, the best four only from the semi-finals,
and so on; the places left over are byes, which go to the best seeds. Each **tie** is a
mini-match of the definition's ``matches`` between its two bots, every second one with the
seats exchanged (duplicate pairs where the run's deals allow). A tie the mini-match leaves
level goes to tiebreak pairs of matches (seats exchanged), up to :data:`TIEBREAK_PAIRS`;
a tie still level after them goes to the bot that won more hand points over the whole
tie, then to the better seed: never to a coin. A bot no longer active (withdrawn,
disqualified) loses its tie by walkover.

A round is closed, its winners written down, when none of its matches is left to play; the
next round is then paired from them. So a round's winners never change afterwards,
whatever is voided later (a disqualification does not rewind the bracket). The state a run
keeps is its list of rounds, each a list of ties: ``{"bots": [A, B], "winner": W, "how":
H}`` (B None for a bye; W None until decided).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from arena.domain.standings import Game, Line, Table, order, tally

TIEBREAK_PAIRS = 3
"""Tiebreak pairs of matches a level tie may play before hand points decide it."""

Tie = dict[str, Any]
Round = list[Tie]


@dataclass(frozen=True, slots=True)
class Pairing:
    """Matches to play between two bots in a round (the first sits first)."""

    round: int
    bots: tuple[str, str]
    matches: int
    tiebreak: bool = False


def bracket_order(size: int) -> list[int]:
    """The seeds (1 the best) in the bracket's places, for a power of two: consecutive
    places meet in the first round (1 v size, ...), and seeds 1 and 2 only in the final."""
    places = [1]
    while len(places) < size:
        n = 2 * len(places)
        places = [s for x in places for s in (x, n + 1 - x)]
    return places


def rounds_for(n: int) -> int:
    """How many rounds a knockout of ``n`` bots has."""
    return max(1, (n - 1).bit_length())


def round_name(number: int, rounds: int) -> str:
    """The final, the semi-finals, the quarter-finals, then 'round of N'."""
    left = rounds - number
    return {0: "final", 1: "semi-final", 2: "quarter-final"}.get(
        left, f"round of {2 ** (left + 1)}"
    )


def _tie(a: str | None, b: str | None, seeds: Sequence[str]) -> Tie:
    """A tie between ``a`` and ``b`` (either None: a bye), the better seed first."""
    both = sorted((x for x in (a, b) if x is not None), key=seeds.index)
    bots = [*both, None, None][:2]
    if bots[0] is None:
        return {"bots": bots, "winner": None, "how": "empty"}
    if bots[1] is None:
        return {"bots": bots, "winner": bots[0], "how": "bye"}
    return {"bots": bots, "winner": None, "how": ""}


def first_round(seeds: Sequence[str]) -> Round:
    size = 2 ** rounds_for(len(seeds))
    places = [seeds[s - 1] if s <= len(seeds) else None for s in bracket_order(size)]
    return [_tie(places[i], places[i + 1], seeds) for i in range(0, size, 2)]


Pairs = dict[tuple[int | None, frozenset[str]], list[Game]]


def by_pairing(games: Sequence[Game]) -> Pairs:
    """The games by round and by the bots they seat: each tie's, or pairing's, once."""
    out: Pairs = {}
    for g in games:
        out.setdefault((g.round, frozenset(g.seats)), []).append(g)
    return out


def tie_games(games: Sequence[Game] | Pairs, number: int, tie: Tie) -> list[Game]:
    """The games of round ``number`` that belong to ``tie`` (from the games, or from
    them as :func:`by_pairing` has them)."""
    pairs = games if isinstance(games, dict) else by_pairing(games)
    return pairs.get((number, frozenset(b for b in tie["bots"] if b is not None)), [])


def score(tie: Tie, games: Sequence[Game]) -> tuple[int, int]:
    """Each side's match wins in the tie's games that count."""
    wins = [0, 0]
    for g in games:
        r = g.result
        if r is not None and r.winner is not None:
            winner = g.teams[r.winner]
            wins[0 if tie["bots"][0] in winner else 1] += 1
    return wins[0], wins[1]


def _hand_points(tie: Tie, games: Sequence[Game]) -> tuple[int, int]:
    won = [0, 0]
    for g in games:
        if g.result is not None:
            side = 0 if tie["bots"][0] in g.teams[0] else 1
            won[0] += g.result.points[side]
            won[1] += g.result.points[1 - side]
    return won[0], won[1]


def _decide(number: int, tie: Tie, games: Pairs, active: Collection[str]) -> Pairing | None:
    """Decide a tie whose games are all done (writing its winner and how), or the
    tiebreak pair it must play first."""
    a, b = tie["bots"]
    if a not in active or b not in active:
        tie["winner"] = a if a in active else b if b in active else None
        tie["how"] = "walkover"
        return None
    mine = tie_games(games, number, tie)
    wins = score(tie, mine)
    extra = tie.get("tiebreaks", 0)
    if wins[0] != wins[1]:
        tie["winner"] = a if wins[0] > wins[1] else b
        tie["how"] = "tiebreak" if extra else "won"
        return None
    if extra < TIEBREAK_PAIRS:
        tie["tiebreaks"] = extra + 1
        return Pairing(number, (a, b), 2, tiebreak=True)
    points = _hand_points(tie, mine)
    if points[0] != points[1]:
        tie["winner"] = a if points[0] > points[1] else b
        tie["how"] = "hand points"
    else:
        tie["winner"], tie["how"] = a, "seed"
    return None


@dataclass(frozen=True, slots=True)
class Step:
    """What comes next: the matches to play and the rounds as they now stand (all decided
    and none to play: the knockout is over)."""

    pairings: list[Pairing]
    rounds: list[Round]


def step(
    seeds: Sequence[str],
    rounds: Sequence[Round],
    games: Sequence[Game],
    matches: int,
    active: Collection[str],
) -> Step:
    """The next matches of a knockout whose matches are all done: tiebreak pairs of the
    round being played, or the next round's ties (a round of byes and walkovers alone is
    passed through at once); none when the final is decided."""
    out = [[dict(t) for t in r] for r in rounds] or [first_round(seeds)]
    total = rounds_for(len(seeds))
    pairs = by_pairing(games)
    while True:
        number = len(out)
        current = out[-1]
        pairings = []
        for tie in current:
            if tie["winner"] is not None or tie["how"] == "empty":
                continue
            a, b = tie["bots"]
            if tie["how"] == "" and a in active and b in active:  # a new tie: its mini-match
                tie["how"] = "playing"
                pairings.append(Pairing(number, (a, b), matches))
                continue
            following = _decide(number, tie, pairs, active)
            if following is not None:
                pairings.append(following)
        if pairings or number == total:
            return Step(pairings, out)
        winners = [t["winner"] for t in current]
        out.append([_tie(winners[i], winners[i + 1], seeds) for i in range(0, len(winners), 2)])


def over(seeds: Sequence[str], rounds: Sequence[Round]) -> bool:
    """Whether the final is decided."""
    return len(rounds) == rounds_for(len(seeds)) and all(
        t["winner"] is not None or t["how"] == "empty" for t in rounds[-1]
    )


def view(
    seeds: Sequence[str], rounds: Sequence[Round], games: Sequence[Game]
) -> list[dict[str, Any]]:
    """The bracket as the pages show it: each round with its name and its ties, each tie
    with its bots, their seeds, their wins in the games counted so far, the matches
    played, playing and of tiebreaks, its winner and how it was won."""
    total = rounds_for(len(seeds))
    pairs = by_pairing(games)
    out = []
    for i, ties in enumerate(rounds):
        number = i + 1
        shown = []
        for tie in ties:
            mine = tie_games(pairs, number, tie) if tie["bots"][1] is not None else []
            shown.append(
                {
                    "bots": tie["bots"],
                    "seeds": [None if b is None else seeds.index(b) + 1 for b in tie["bots"]],
                    "wins": list(score(tie, mine)),
                    "matches": sum(g.result is not None for g in mine),
                    "playing": sum(not g.done for g in mine),
                    "tiebreak_matches": 2 * tie.get("tiebreaks", 0),
                    "winner": tie["winner"],
                    "how": tie["how"],
                }
            )
        out.append({"number": number, "name": round_name(number, total), "pairings": shown})
    return out


def table(
    participants: Sequence[str],
    seeds: Sequence[str],
    rounds: Sequence[Round],
    games: Sequence[Game],
    tiebreaks: Sequence[str],
) -> tuple[Table, list[Line]]:
    """The knockout's lines, best first: the champion, then by the round each bot went
    out in (later first), bots out in the same round by ``tiebreaks`` then seed. Each line
    says the round it reached (``reached``) and how far that is (``stage``)."""
    counted = [g.result for g in games if g.result is not None]
    t = tally(participants, counted)
    total = rounds_for(len(seeds))
    reached: dict[str, int] = {}
    for i, ties in enumerate(rounds):
        for tie in ties:
            for bot in tie["bots"]:
                if bot is not None:
                    reached[bot] = i + 1
    champion = rounds[-1][0]["winner"] if over(seeds, rounds) else None
    for bot, line in t.lines.items():
        line["reached"] = reached.get(bot, 0)
        if bot == champion:
            line["reached"] = total + 1
            line["stage"] = "champion"
        elif line["reached"]:
            line["stage"] = round_name(line["reached"], total)
        else:
            line["stage"] = ""
    lines = order(list(t.lines.values()), tiebreaks, t.cross, seeds, lambda x: -x["reached"])
    return t, lines

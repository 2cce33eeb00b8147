"""A quick estimate of a team's chance to take the hand, shared by the house bots.

Cards are compared by their *power*: the engine's strength for the hand (manilhas
above every plain card, equal plain ranks equal) and -1 for a covered card. The odds of
a card are its chance to beat one unknown card. The estimate treats the rounds still to
play as independent and ignores ties in them; finished rounds count exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from arena.engine import COVERED, Card, Deck, Manilha, strength_table

Odds = Callable[[int], float]
"""The chance that a card of this power beats one unknown card."""

WON, TIED, LOST = 1, 0, -1
"""A round's result seen from one team."""


def odds_against(powers: Iterable[int]) -> Odds:
    """Odds of a power against a card drawn from cards of the given powers (ties half)."""
    pool = sorted(powers)
    if not pool:
        return lambda power: 0.5
    size = len(pool)

    def odds(power: int) -> float:
        if power == COVERED:
            return 0.0
        below = sum(1 for p in pool if p < power)
        equal = sum(1 for p in pool if p == power)
        return (below + equal / 2) / size

    return odds


@cache
def deck_odds(deck: Deck, manilha: Manilha, vira: Card | None) -> dict[int, float]:
    """Odds of every power of the hand against any other card of the deck."""
    strength = strength_table(deck, manilha, vira)
    powers = [strength[c.index] for c in deck.cards if c != vira]
    odds = odds_against(powers)
    table = {p: odds(p) for p in set(powers)}
    table[COVERED] = 0.0
    return table


def hand_taker(results: Sequence[int]) -> int:
    """Who has taken the hand after these rounds: WON, LOST, or TIED while still open."""
    wins = losses = 0
    first = TIED
    tied = False
    for result in results:
        if result == TIED:
            tied = True
            continue
        if result == WON:
            wins += 1
        else:
            losses += 1
        if first == TIED:
            first = result
    if wins >= 2 or losses >= 2:
        return WON if wins >= 2 else LOST
    return first if tied else TIED


def ties_take(results: Sequence[int]) -> bool:
    """Whether a tie in the next round takes the hand, after these rounds."""
    return hand_taker([*results, TIED]) == WON


@lru_cache(maxsize=4096)
def chance_to_take(results: tuple[int, ...], chances: tuple[float, ...]) -> float:
    """The chance to take the hand, given finished rounds and each later round's chance.

    A hand that ends with every round tied counts as half. Search asks the same
    questions over and over, so the answers are cached.
    """
    total = 0.0
    for outcome in itertools.product((WON, LOST), repeat=len(chances)):
        weight = 1.0
        for result, chance in zip(outcome, chances, strict=True):
            weight *= chance if result == WON else 1.0 - chance
        taker = hand_taker([*results, *outcome])
        total += weight * (1.0 if taker == WON else 0.5 if taker == TIED else 0.0)
    return total


@dataclass(slots=True)
class Position:
    """One seat's situation in a hand, in powers, as the estimate needs it."""

    results: list[int]  # the finished rounds, from the seat's team
    held: list[int]  # the seat's unplayed cards
    ours: int | None = None  # our team's best card on the table
    theirs: int | None = None  # the opponents' best card on the table
    played: bool = False  # the seat has already played in this round
    opponents_to_play: bool = True  # an opponent still plays in this round after the seat


def position_of(
    seat: int,
    seats: int,
    winners: Iterable[int | None],
    held: Iterable[int],
    table: Sequence[tuple[int, int]],
) -> Position:
    """The position of ``seat`` at a table of ``seats``, given the finished rounds'
    winning teams (None for a tie), the powers of its unplayed cards and the round on the
    table as (seat, power) pairs in the order played."""
    team = seat & 1
    results = [WON if w == team else TIED if w is None else LOST for w in winners]
    position = Position(results, list(held))
    if table:
        mine = [power for s, power in table if s & 1 == team]
        theirs = [power for s, power in table if s & 1 != team]
        position.ours = max(mine) if mine else None
        position.theirs = max(theirs) if theirs else None
        position.played = any(s == seat for s, _ in table)
        rest = seats_after(seats, table, seat)
        position.opponents_to_play = any(s & 1 != team for s in rest)
    return position


def seats_after(seats: int, table: Sequence[tuple[int, int]], seat: int) -> list[int]:
    """The seats still to play in the round on the (non-empty) table after ``seat``."""
    last = table[-1][0]
    rest = [(last + 1 + k) % seats for k in range(seats - len(table))]
    return rest[rest.index(seat) + 1 :] if seat in rest else rest


def chance(position: Position, odds: Odds) -> float:
    """The estimated chance that the seat's team takes the hand.

    In the round on the table the seat is taken to play its cheapest card that beats
    the opponents' best, else a card that ties it when a tie takes the hand, else its
    weakest (its weakest too when its team already leads the round); its other cards
    go to the later rounds.
    """
    results = list(position.results)
    held = sorted(position.held)
    ours, theirs = position.ours, position.theirs
    current: float | None = None
    if position.played:
        top = COVERED - 1 if ours is None else ours
        other = COVERED - 1 if theirs is None else theirs
        if not position.opponents_to_play:
            results.append(WON if top > other else LOST if top < other else TIED)
        else:
            current = odds(top) if top > other else 0.0
    elif theirs is not None:
        if ours is not None and ours > theirs:
            held.pop(0)
            current = odds(ours) if position.opponents_to_play else 1.0
        elif beating := [p for p in held if p > theirs]:
            held.remove(beating[0])
            current = odds(beating[0]) if position.opponents_to_play else 1.0
        elif theirs in held and not position.opponents_to_play and ties_take(results):
            held.remove(theirs)
            results.append(TIED)
        else:
            held.pop(0)
            current = 0.0
    elif ours is not None:  # only partners have played: throw the weakest
        held.pop(0)
        current = odds(ours)
    chances = tuple(odds(p) for p in held)
    return chance_to_take(tuple(results), chances if current is None else (current, *chances))

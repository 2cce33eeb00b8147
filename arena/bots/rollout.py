"""Fast playouts of the rest of a hand, for search.

The rollout policy reads the engine's state directly (every seat plays its own real
cards in the determinized world) and is cheap: it plays the special hand, raises with
a very strong hand (never in the special hand), answers a request by its estimated
chance (with some noise), wins rounds with its cheapest winning card and otherwise
throws its weakest, leads its middle card in round 1 and its best later, and picks a
random slot in a blind hand. It never covers a card or folds the hand on its own turn.
"""

from __future__ import annotations

import random

from arena.bots.strength import chance, deck_odds, position_of
from arena.engine import (
    ACCEPT,
    COVERED,
    FOLD,
    RAISE,
    Action,
    Hand,
    HandKind,
    HandResult,
    Match,
    Phase,
)

ANSWER_NOISE = 0.1  # spread of the accept threshold, so that rollouts vary
EXPLORE = 0.1  # how often a card is chosen at random instead
RAISE_CHANCE = 0.8  # raise on its own turn from this chance up


def finish_hand(match: Match, rng: random.Random) -> HandResult:
    """Play the current hand of a seedless match to its end; return its result."""
    hand = match.hand
    if hand is None:
        raise ValueError("no hand to finish")
    while hand.result is None:
        match.apply(rollout_action(match, hand, rng))
    return hand.result


def rollout_action(match: Match, hand: Hand, rng: random.Random) -> Action:
    """The rollout policy's action for the seat to act."""
    phase = hand.phase
    if phase is Phase.DECIDE:
        return ACCEPT
    if phase is Phase.ANSWER:
        break_even = (1 - hand.stake / hand.pending) / 2
        noise = rng.uniform(-ANSWER_NOISE, ANSWER_NOISE)
        return ACCEPT if seat_chance(match, hand, hand.to_act) + noise >= break_even else FOLD
    seat = hand.turn
    if hand.blind:
        return Action.play_slot(rng.choice(hand.slots(seat)))
    if _may_raise(hand, seat) and seat_chance(match, hand, seat) >= RAISE_CHANCE:
        return RAISE
    held = hand.held[seat]
    if len(held) == 1 or rng.random() < EXPLORE:
        return Action.play(rng.choice(held))
    strength = hand.strength
    cards = sorted(held, key=lambda c: strength[c.index])
    if not hand.table:
        return Action.play(cards[len(cards) // 2] if not hand.rounds else cards[-1])
    team = seat & 1
    ours = theirs = COVERED - 1
    for play in hand.table:
        power = COVERED if play.covered else strength[play.card.index]
        if play.seat & 1 == team:
            ours = max(ours, power)
        else:
            theirs = max(theirs, power)
    if ours <= theirs:
        for card in cards:
            if strength[card.index] > theirs:
                return Action.play(card)
    return Action.play(cards[0])


def _may_raise(hand: Hand, seat: int) -> bool:
    """Whether the seat may raise now, outside the special hand (a raise there is never
    worth it)."""
    return hand.kind is HandKind.NORMAL and hand.stake < hand.cap and hand.last_raiser != seat & 1


def seat_chance(match: Match, hand: Hand, seat: int) -> float:
    """The rollout's estimate of the seat's team's chance to take the hand."""
    strength = hand.strength
    table = [(p.seat, COVERED if p.covered else strength[p.card.index]) for p in hand.table]
    position = position_of(
        seat,
        match.n,
        (r.winner for r in hand.rounds),
        (strength[c.index] for c in hand.held[seat]),
        table,
    )
    odds = deck_odds(match.rules.deck, match.rules.manilha, hand.vira)
    return chance(position, odds.__getitem__)

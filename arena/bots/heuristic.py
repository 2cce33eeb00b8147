"""The heuristic house bot: a sensible beginner.

It estimates its team's chance to take the hand from its cards, the vira and the table
(see :mod:`arena.bots.strength`), then:

- plays the weakest card that wins the round, and throws its weakest card when none
  does (face down when covering is allowed and the round is lost for sure);
- raises with a strong hand, and now and then when it already holds the hand;
- answers a request by weighing its chance against what folding costs, raising back
  with a very strong hand;
- plays the hand of 11 (10) with a fair chance and folds a hopeless one;
- picks a random slot in a blind hand; never folds the hand on its own turn and never
  raises in the special hand.
"""

from __future__ import annotations

import logging
import random

from arena.bots.strength import (
    Odds,
    Position,
    chance,
    odds_against,
    position_of,
    seats_after,
    ties_take,
)
from arena.engine import (
    ACCEPT,
    COVERED,
    FOLD,
    LADDER,
    RAISE,
    Action,
    ActionType,
    Card,
    HandKind,
    Phase,
    View,
    strength_table,
    unseen_cards,
)

log = logging.getLogger(__name__)

ACCEPT_MARGIN = 0.08  # a beginner wants a little more than the break-even chance
RAISE_CHANCE = 0.72  # raise on its own turn from this chance up (plus a bit per step)
RERAISE_CHANCE = 0.82  # raise back over a request from this chance up
HOLDING_RAISE = 0.3  # how often it raises when it has taken a round and looks good
BLUFF = 0.03  # how often it raises with anything
SPECIAL_PLAY_CHANCE = 0.4  # plays the hand of 11 (10) from this chance up


class HeuristicBot:
    """Rule-of-thumb play: cheap wins, strength-based raises, answers and decisions."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def decide(self, view: View) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.seat} is not asked to act")
        action = self._choose(view)
        if action not in legal:  # a safety net: the rules above only pick legal actions
            log.warning("heuristic chose %s, not legal here; playing %s", action, legal[0])
            return legal[0]
        return action

    def _choose(self, view: View) -> Action:
        if len(view.legal) == 1:
            return view.legal[0]
        if view.blind:
            plays = [a for a in view.legal if a.type is ActionType.PLAY]
            return self.rng.choice(plays)
        estimate = Estimate(view)
        if view.phase is Phase.DECIDE:
            return ACCEPT if estimate.team_chance() >= SPECIAL_PLAY_CHANCE else FOLD
        if view.phase is Phase.ANSWER:
            return self._answer(view, estimate.chance())
        may_raise = RAISE in view.legal and view.kind is not HandKind.SPECIAL
        if may_raise and self._wants_raise(view, estimate.chance()):
            return RAISE
        return estimate.card_to_play()

    def _answer(self, view: View, chance_: float) -> Action:
        if chance_ >= RERAISE_CHANCE and RAISE in view.legal:
            return RAISE
        # folding loses the stake; accepting wins or loses the pending value
        break_even = (1 - view.stake / view.pending) / 2
        return ACCEPT if chance_ >= break_even + ACCEPT_MARGIN else FOLD

    def _wants_raise(self, view: View, chance_: float) -> bool:
        step = LADDER.index(view.stake)
        if chance_ >= RAISE_CHANCE + 0.04 * step:
            return True
        holding = any(r.winner == view.team for r in view.rounds)
        if holding and chance_ >= 0.6 and self.rng.random() < HOLDING_RAISE:
            return True
        return self.rng.random() < BLUFF


class Estimate:
    """What the heuristic reads off a (non-blind) view: powers, odds and chances."""

    def __init__(self, view: View) -> None:
        self.view = view
        rules = view.rules
        self.strength = strength_table(rules.deck, rules.manilha, view.vira)
        self.odds: Odds = odds_against(self.strength[c.index] for c in unseen_cards(view))

    def power(self, card: Card | None) -> int:
        return COVERED if card is None else self.strength[card.index]

    def position(self, cards: tuple[Card, ...], seat: int) -> Position:
        """The estimate's view of the hand for ``seat`` holding ``cards``."""
        view = self.view
        return position_of(
            seat,
            view.rules.seats,
            (r.winner for r in view.rounds),
            (self.power(c) for c in cards),
            self.table(),
        )

    def table(self) -> list[tuple[int, int]]:
        return [(p.seat, self.power(p.card)) for p in self.view.table]

    def chance(self) -> float:
        """The chance the seat's team takes the hand, from the seat's own cards."""
        return chance(self.position(self.view.cards, self.view.seat), self.odds)

    def team_chance(self) -> float:
        """The best chance over the seat and the partners whose cards it sees."""
        view = self.view
        hands = [(view.seat, view.cards), *view.partners]
        return max(chance(self.position(cards, seat), self.odds) for seat, cards in hands)

    def card_to_play(self) -> Action:
        """The card for this turn: win the round cheaply, or throw the weakest."""
        view = self.view
        cards = sorted(view.cards, key=lambda c: (self.power(c), c))
        if not view.table:
            return Action.play(cards[len(cards) // 2] if not view.rounds else cards[-1])
        position = self.position(view.cards, view.seat)
        ours, theirs = position.ours, position.theirs
        if theirs is None or (ours is not None and ours > theirs):
            return Action.play(cards[0])  # the team already leads the round
        beating = [c for c in cards if self.power(c) > theirs]
        if beating:
            return Action.play(beating[0])
        tying = [c for c in cards if self.power(c) == theirs]
        if tying and ties_take(position.results):
            return Action.play(tying[0])
        weakest = cards[0]
        rest = seats_after(view.rules.seats, self.table(), view.seat)
        partners_to_play = any(s & 1 == view.team for s in rest)
        covered = Action.play(weakest, covered=True)
        sure_loss = self.power(weakest) < theirs and not partners_to_play
        if sure_loss and covered in view.legal:
            return covered
        return Action.play(weakest)

"""Determinization: one complete state that agrees with everything a seat sees.

``determinize(view, rng)`` builds a :class:`Match` whose current hand looks exactly like
the view to its seat (``view(match, view.seat) == view``) and whose hidden cards are
drawn at random from the cards that seat has not seen: the opponents' cards, partners'
cards when they are not shown, the seat's own cards in a blind hand, and the faces of
covered cards. Search bots play many such states to the end of the hand.

The match has no seed, so it does not deal again when the hand ends. The view does not
show the earlier hands or the current hand's action list: earlier hands are empty,
finished placeholders (so that hand numbers agree) and the action list starts empty.
"""

from __future__ import annotations

import random
from functools import cache

from arena.engine.cards import COVERED, Card, strength_table
from arena.engine.match import (
    Hand,
    HandKind,
    HandResult,
    Match,
    Outcome,
    Phase,
    Play,
    Round,
    Termination,
)
from arena.engine.rules import LeadAfterTie, Rules
from arena.engine.view import SeenPlay, View

__all__ = ["determinize", "unseen_cards"]


def unseen_cards(view: View) -> list[Card]:
    """The deck's cards whose faces the view does not show, in deck order."""
    seen = view.visible_cards()
    return [c for c in view.rules.deck.cards if c not in seen]


def determinize(view: View, rng: random.Random) -> Match:
    """A match in the state the view shows, its hidden cards drawn from ``rng``."""
    rules = view.rules
    n = rules.seats
    pool = unseen_cards(view)
    rng.shuffle(pool)
    table = [_play(p, pool) for p in view.table]
    rounds = [Round(tuple(_play(p, pool) for p in r.plays), r.winner) for r in view.rounds]
    played: list[list[Card]] = [[] for _ in range(n)]
    for play in [p for r in rounds for p in r.plays] + table:
        played[play.seat].append(play.card)
    shown = dict(view.partners)
    if not view.blind:
        shown[view.seat] = view.cards
    dealt: list[tuple[Card, ...]] = []
    for seat in range(n):
        known = shown.get(seat)
        held = list(known) if known is not None else _draw(pool, 3 - len(played[seat]))
        slots = view.slots if seat == view.seat else tuple(range(len(played[seat]), 3))
        dealt.append(_arrange(held, played[seat], slots))

    hand = Hand(view.dealer, view.vira, dealt, view.kind)
    hand.held = [sorted(c for c in dealt[s] if c not in played[s]) for s in range(n)]
    hand.blind = view.blind
    hand.strength = strength_table(rules.deck, rules.manilha, view.vira)
    hand.deciding = _deciding_team(view) if view.kind is HandKind.SPECIAL else None
    hand.stake = view.stake
    hand.pending = view.pending
    hand.requester = -1 if view.requester is None else view.requester
    hand.last_raiser = -1 if view.raised_by is None else view.raised_by
    hand.phase = view.phase
    hand.rounds = rounds
    hand.table = table
    hand.leader = table[0].seat if table else _next_leader(hand, rules)
    hand.turn = (table[-1].seat + 1) % n if table else hand.leader
    hand.to_act = hand.turn if view.to_act is None else view.to_act

    match = Match(rules, view.seats)
    match.score = list(view.score)
    match.games = list(view.games)
    match.hands = [*([_past_hand(n)] * view.hand_number), hand]
    match.next_dealer = (view.dealer + 1) % n
    if view.phase is Phase.OVER:
        hand.result = HandResult((0, 0))
        match.outcome = _outcome(view)
    return match


def _draw(pool: list[Card], count: int) -> list[Card]:
    """Take ``count`` cards off the (already shuffled) pool."""
    if count > len(pool):
        raise ValueError("the view hides more cards than the deck has left")
    drawn = pool[len(pool) - count :]
    del pool[len(pool) - count :]
    return drawn


def _play(seen: SeenPlay, pool: list[Card]) -> Play:
    """A play as the engine holds it: a covered card gets a face from the pool."""
    card = seen.card if seen.card is not None else _draw(pool, 1)[0]
    return Play(seen.seat, card, seen.covered)


def _arrange(held: list[Card], played: list[Card], slots: tuple[int, ...]) -> tuple[Card, ...]:
    """Three dealt cards with the unplayed ones at ``slots`` and the played ones elsewhere."""
    if len(held) != len(slots) or len(held) + len(played) != 3:
        raise ValueError("the view's cards, slots and plays do not add up to three cards")
    unplayed = iter(held)
    gone = iter(played)
    return tuple(next(unplayed) if i in slots else next(gone) for i in range(3))


def _next_leader(hand: Hand, rules: Rules) -> int:
    """Who leads the round after the finished ones (no card on the table yet)."""
    if not hand.rounds:
        return hand.first
    last = hand.rounds[-1]
    strength = hand.strength

    def power(play: Play) -> int:
        return COVERED if play.covered else strength[play.card.index]

    best = max(power(p) for p in last.plays)
    top = next(p for p in last.plays if power(p) == best)
    if last.winner is not None or rules.lead_after_tie is LeadAfterTie.TOP:
        return top.seat
    return last.plays[0].seat


def _deciding_team(view: View) -> int:
    """The team at the special score in a special hand."""
    at = [s >= view.rules.special_at for s in view.score]
    if at.count(True) == 1:
        return at.index(True)
    # only after the hand has ended can the score no longer tell; shown partners still do
    return view.team if view.partners else 1 - view.team


def _outcome(view: View) -> Outcome | None:
    """The match's outcome when the view's games show it is over (how, we cannot see)."""
    needed = view.rules.games_to_win
    for team in (0, 1):
        if view.games[team] >= needed:
            return Outcome(Termination.SCORE, team)
    return None


@cache
def _past_hand(seats: int) -> Hand:
    """A finished hand with no cards, standing in for a hand the view does not show."""
    hand = Hand(0, None, [() for _ in range(seats)], HandKind.NORMAL)
    hand.phase = Phase.OVER
    hand.result = HandResult((0, 0))
    return hand

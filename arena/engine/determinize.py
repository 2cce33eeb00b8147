"""Determinization: one complete state that agrees with everything a seat sees.

``determinize(view, rng)`` builds a :class:`Match` whose current hand looks exactly like
the view to its seat (``view(match, view.seat) == view``) and whose hidden cards are
drawn at random from the cards that seat has not seen: the opponents' cards, partners'
cards when they are not shown, the seat's own cards in a blind hand, and the faces of
covered cards. Search bots play many such states to the end of the hand; they prepare
a :class:`Determinizer` once per view and call ``draw(rng)`` for each state.

The match has no seed, so it does not deal again when the hand ends. The view does not
show the earlier hands (only how the last finished one ended) nor the current hand's
action list: earlier hands are empty, finished stand-ins (so that hand numbers and the
last hand agree) and the action list starts empty.
Once the hand is over the view no longer tells which team decided a special hand, nor
how the match ended; the drawn state then makes a plausible choice.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
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
    stake_cap,
)
from arena.engine.rules import LeadAfterTie, PartnerTieLead
from arena.engine.view import SeenHand, SeenPlay, View

__all__ = ["Determinizer", "determinize", "unseen_cards"]


def determinize(view: View, rng: random.Random) -> Match:
    """A match in the state the view shows, its hidden cards drawn from ``rng``."""
    return Determinizer(view).draw(rng)


def unseen_cards(view: View) -> list[Card]:
    """The deck's cards whose faces the view does not show in the current hand (the
    earlier hands' cards went back into the deck), in deck order."""
    seen = {c.index for c in view.cards}
    seen.update(c.index for _, cards in view.partners for c in cards)
    plays = [*view.table, *(p for r in view.rounds for p in r.plays)]
    seen.update(p.card.index for p in plays if p.card is not None)
    if view.vira is not None:
        seen.add(view.vira.index)
    return [c for c in view.rules.deck.cards if c.index not in seen]


class Determinizer:
    """Everything about one view that is the same in every drawn state."""

    def __init__(self, view: View) -> None:
        self.view = view
        rules = view.rules
        self.n = n = rules.seats
        self.pool = unseen_cards(view)
        self.strength = strength_table(rules.deck, rules.manilha, view.vira)
        shown = dict(view.partners)
        if not view.blind:
            shown[view.seat] = view.cards
        self.shown = shown
        plays = [*view.table, *(p for r in view.rounds for p in r.plays)]
        played = [0] * n
        for play in plays:
            played[play.seat] += 1
        self.hidden_held = [0 if s in shown else 3 - played[s] for s in range(n)]
        covered = sum(p.card is None for p in plays)
        self.needed = covered + sum(self.hidden_held)
        if self.needed > len(self.pool):
            raise ValueError("the view hides more cards than the deck has left")
        table = view.table
        self.leader = table[0].seat if table else self._next_leader()
        self.turn = (table[-1].seat + 1) % n if table else self.leader
        self.deciding = _deciding_team(view) if view.kind is HandKind.SPECIAL else None
        self.past = self._past_hands()

    def draw(self, rng: random.Random) -> Match:
        """One state: the hidden cards drawn uniformly from the unseen ones."""
        view = self.view
        n = self.n
        hidden = iter(rng.sample(self.pool, self.needed))
        rounds = [Round(_plays(r.plays, hidden), r.winner) for r in view.rounds]
        table = list(_plays(view.table, hidden))
        played: list[list[Card]] = [[] for _ in range(n)]
        for play in [*(p for r in rounds for p in r.plays), *table]:
            played[play.seat].append(play.card)
        dealt: list[tuple[Card, ...]] = []
        held: list[list[Card]] = []
        for seat in range(n):
            known = self.shown.get(seat)
            cards = list(known) if known is not None else _take(hidden, self.hidden_held[seat])
            slots = view.slots if seat == view.seat else range(len(played[seat]), 3)
            dealt.append(_arrange(cards, played[seat], slots))
            held.append(sorted(cards))

        hand = Hand(view.dealer, view.vira, dealt, view.kind)
        hand.held = held
        hand.blind = view.blind
        hand.strength = self.strength
        hand.deciding = self.deciding
        hand.stake = view.stake
        hand.pending = view.pending
        hand.requester = -1 if view.requester is None else view.requester
        hand.last_raiser = -1 if view.raised_by is None else view.raised_by
        hand.refused = sum(1 << s for s in view.refused)
        hand.cap = stake_cap(view.rules, view.score)
        hand.phase = view.phase
        hand.rounds = rounds
        hand.table = table
        hand.leader = self.leader
        hand.turn = self.turn
        hand.to_act = self.turn if view.to_act is None else view.to_act

        match = Match(view.rules, view.seats)
        match.score = list(view.score)
        match.games = list(view.games)
        match.hands = [*self.past, hand]
        match.next_dealer = (view.dealer + 1) % n
        if view.phase is Phase.OVER:
            _finish(hand, view.last_hand)
            match.outcome = _outcome(view)
        return match

    def _past_hands(self) -> list[Hand]:
        """Stand-ins for the earlier hands; the one before this shows the view's
        ``last_hand``."""
        view = self.view
        past = [_past_hand(self.n)] * view.hand_number
        last = view.last_hand
        if past and last is not None and last.number == len(past) - 1:
            past[-1] = Hand(0, None, [() for _ in range(self.n)], HandKind.NORMAL)
            _finish(past[-1], last)
        return past

    def _next_leader(self) -> int:
        """Who leads the round after the finished ones (no card on the table yet)."""
        view = self.view
        if not view.rounds:
            return (view.dealer + 1) % self.n
        last = view.rounds[-1]
        strength = self.strength

        def power(play: SeenPlay) -> int:
            return COVERED if play.card is None else strength[play.card.index]

        best = max(power(p) for p in last.plays)
        tops = [p.seat for p in last.plays if power(p) == best]
        rules = view.rules
        if last.winner is not None:  # several tops: partners, whose team took the round
            return min(tops) if rules.partner_tie_lead is PartnerTieLead.LOWER_SEAT else tops[0]
        if rules.lead_after_tie is LeadAfterTie.TOP:
            return tops[0]
        return last.plays[0].seat


def _take(hidden: Iterator[Card], count: int) -> list[Card]:
    return [next(hidden) for _ in range(count)]


def _plays(seen: Sequence[SeenPlay], hidden: Iterator[Card]) -> tuple[Play, ...]:
    """Plays as the engine holds them: a covered card gets a hidden face."""
    return tuple(Play(p.seat, next(hidden) if p.card is None else p.card, p.covered) for p in seen)


def _arrange(held: list[Card], played: list[Card], slots: Sequence[int]) -> tuple[Card, ...]:
    """Three dealt cards with the unplayed ones at ``slots`` and the played ones elsewhere."""
    if len(held) != len(slots) or len(held) + len(played) != 3:
        raise ValueError("the view's cards, slots and plays do not add up to three cards")
    unplayed = iter(held)
    gone = iter(played)
    return tuple(next(unplayed) if i in slots else next(gone) for i in range(3))


def _deciding_team(view: View) -> int:
    """The team at the special score in a special hand."""
    at = [s >= view.rules.special_at for s in view.score]
    if at.count(True) == 1:
        return at.index(True)
    # only once the hand has ended can the score no longer tell; shown partners still do
    return view.team if view.partners else 1 - view.team


def _outcome(view: View) -> Outcome | None:
    """The match's outcome when the view's games show it is over."""
    needed = view.rules.games_to_win
    for team in (0, 1):
        if view.games[team] >= needed:
            return Outcome(Termination.SCORE, team)
    return None


def _finish(hand: Hand, seen: SeenHand | None) -> None:
    """Mark a hand finished, as ``seen`` (when given) tells how it ended."""
    hand.phase = Phase.OVER
    if seen is None:
        hand.result = HandResult((0, 0))
        return
    hand.result = HandResult(seen.points, seen.reason, seen.score)
    hand.seen = seen


@cache
def _past_hand(seats: int) -> Hand:
    """A finished hand with no cards, standing in for a hand the view does not show."""
    hand = Hand(0, None, [() for _ in range(seats)], HandKind.NORMAL)
    _finish(hand, None)
    return hand

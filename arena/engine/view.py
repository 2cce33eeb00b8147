"""Who may see which card, and what one seat sees: the only way the state reaches a bot.

An :class:`Observer` (seats, the public, or the organizer) holds the one rule for
hidden information; the seat views here, the records as anyone or a bot's owner sees
them (``public_record``) and the web replay all ask it. ``view(match, seat)`` holds the
seat's own cards (none in a blind hand, only the slots left), its partners' cards only
when the rules show them, the vira, the cards on the table (a covered card shows as
covered, never its face, in its own player's view too: the rounds a view holds are the
same for every seat, and the bot knows what it played), the rounds so far, the stake,
any pending request, the score and whose turn it is. A view is complete: a bot needs no
memory of earlier views.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.engine.actions import Action
from arena.engine.cards import VELHA_MANILHAS, Card, Manilha, Suit, manilha_rank
from arena.engine.match import Hand, HandKind, Match, Phase
from arena.engine.rules import Rules


@dataclass(frozen=True, slots=True)
class Observer:
    """Who looks at a match: seats (``seats``: one, or the several one owner's bot plays),
    the public (no seat), or the organizer.

    A card's face reaches an observer only through :meth:`sees_play` (a card played) or
    :meth:`sees_held` (a card still in a hand, or dealt and never played): everyone sees
    a card played face up; a seat sees its own hand (not in a blind hand) and, when the
    rules show them, its partners'; a covered card's face only whoever saw it in hand
    (the seat that played it, a partner shown its hand) and the organizer.
    """

    seats: frozenset[int] = frozenset()
    organizer: bool = False

    def sees_play(
        self,
        covered: bool,
        player: int | None = None,
        hand: Hand | None = None,
        rules: Rules | None = None,
    ) -> bool:
        """Whether a card ``player`` played in ``hand`` shows (covered: to whoever saw it
        held, which takes the player and the hand)."""
        if self.organizer or not covered:
            return True
        return player is not None and self.sees_held(player, hand, rules)

    def sees_held(self, holder: int, hand: Hand | None = None, rules: Rules | None = None) -> bool:
        """Whether the cards ``holder`` holds in ``hand`` show (the public and the
        organizer need no hand: nothing held shows to the one, everything to the other)."""
        if self.organizer:
            return True
        if not self.seats or hand is None or rules is None or hand.blind:
            return False
        if holder in self.seats:
            return True
        for seat in self.seats:
            if holder & 1 == seat & 1 and partners_shown(hand, rules, seat):
                return True
        return False


PUBLIC = Observer()
ORGANIZER = Observer(organizer=True)
_SEATS = tuple(Observer(frozenset((seat,))) for seat in range(8))  # every seat of the largest table


def partners_shown(hand: Hand, rules: Rules, seat: int) -> bool:
    """Whether ``seat`` sees its partners' hands: in the special hand, by the deciding
    team, when the rules say so."""
    return (
        hand.kind is HandKind.SPECIAL
        and rules.special_partner_view
        and hand.deciding == seat & 1
        and rules.team_size > 1
    )


@dataclass(frozen=True, slots=True)
class SeenPlay:
    seat: int
    card: Card | None  # None when the card was played covered
    covered: bool = False


@dataclass(frozen=True, slots=True)
class SeenRound:
    plays: tuple[SeenPlay, ...]
    winner: int | None  # the team, or None for a tie


@dataclass(frozen=True, slots=True)
class SeenHand:
    """How a finished hand ended, as every seat saw it."""

    number: int  # 0 for the match's first hand
    points: tuple[int, int]  # per team, at the hand's full value
    score: tuple[int, int]  # just after the hand
    reason: str | None  # set when a penalty ended it
    rounds: tuple[SeenRound, ...]  # covered cards without their faces
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        key = (self.number, self.points, self.score, self.reason, self.rounds)
        object.__setattr__(self, "_hash", hash(key))

    def __hash__(self) -> int:  # computed once: finished hands key a cache on a hot path
        return self._hash

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "points": list(self.points),
            "score": list(self.score),
            "reason": self.reason,
            "rounds": [{"plays": _plays_json(r.plays), "winner": r.winner} for r in self.rounds],
        }


def _plays_json(plays: tuple[SeenPlay, ...]) -> list[dict[str, Any]]:
    """Plays as a view's JSON has them: a covered card without its face."""
    return [
        {"seat": p.seat, "covered": True}
        if p.card is None
        else {"seat": p.seat, "card": str(p.card)}
        for p in plays
    ]


@dataclass(frozen=True, slots=True)
class View:
    seat: int
    rules: Rules
    seats: tuple[str, ...]
    hand_number: int  # 0 for the first hand of the match
    dealer: int
    kind: HandKind
    blind: bool
    phase: Phase
    cards: tuple[Card, ...]  # the seat's unplayed cards, in the order dealt; none when blind
    slots: tuple[int, ...]  # dealt positions not yet played (what a blind play names)
    partners: tuple[tuple[int, tuple[Card, ...]], ...]  # (seat, cards) when shown
    vira: Card | None
    rounds: tuple[SeenRound, ...]  # the finished rounds of this hand
    table: tuple[SeenPlay, ...]  # the current round so far
    stake: int  # what the hand is worth now
    pending: int  # the value asked by an unanswered request, or 0
    requester: int | None  # the seat that made the pending request
    raised_by: int | None  # the team that made the hand's last raise (it may not raise next)
    score: tuple[int, int]
    games: tuple[int, int]
    to_act: int | None
    legal: tuple[Action, ...]  # what this seat may do now; empty when it is not asked
    last_hand: SeenHand | None = None  # the latest finished hand of the match
    refused: tuple[int, ...] = ()  # the asked team's seats that refused the pending
    # request so far (raise_answer any_accepts asks each of them in turn)

    @property
    def team(self) -> int:
        return self.seat & 1

    @property
    def manilhas(self) -> tuple[Card, ...]:
        """This hand's four manilhas, strongest first."""
        return manilhas(self.rules, self.vira)

    def visible_cards(self) -> set[Card]:
        """Every card face this view shows (the vira included)."""
        seen = set(self.cards)
        seen.update(c for _, cards in self.partners for c in cards)
        rounds = self.rounds + (self.last_hand.rounds if self.last_hand else ())
        plays = [*self.table, *(p for r in rounds for p in r.plays)]
        seen.update(p.card for p in plays if p.card is not None)
        if self.vira is not None:
            seen.add(self.vira)
        return seen

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "rules": str(self.rules),
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "kind": str(self.kind),
            "blind": self.blind,
            "phase": str(self.phase),
            "cards": [str(c) for c in self.cards],
            "slots": list(self.slots),
            "partners": {str(s): [str(c) for c in cs] for s, cs in self.partners},
            "vira": None if self.vira is None else str(self.vira),
            "rounds": [{"plays": _plays_json(r.plays), "winner": r.winner} for r in self.rounds],
            "table": _plays_json(self.table),
            "stake": self.stake,
            "pending": self.pending,
            "requester": self.requester,
            "raised_by": self.raised_by,
            "refused": list(self.refused),
            "score": list(self.score),
            "games": list(self.games),
            "to_act": self.to_act,
            "legal": [a.to_json() for a in self.legal],
            "last_hand": None if self.last_hand is None else self.last_hand.to_json(),
        }


def manilhas(rules: Rules, vira: Card | None) -> tuple[Card, ...]:
    """The manilhas for a vira under these rules, strongest first."""
    if rules.manilha is Manilha.VELHA or vira is None:
        return tuple(reversed(VELHA_MANILHAS))
    rank = manilha_rank(vira, rules.deck)
    return tuple(Card(rank, suit) for suit in reversed(Suit))


def view(match: Match, seat: int) -> View:
    """What ``seat`` may see now."""
    n = match.n
    if not 0 <= seat < n:
        raise ValueError(f"no seat {seat} in a match of {n} seats")
    hands = match.hands
    if not hands:
        raise ValueError("no hand has been dealt yet")
    hand = hands[-1]
    rules = match.rules
    looking = _SEATS[seat]
    partners = tuple(
        (s, hand.unplayed(s))
        for s in range(seat & 1, n, 2)
        if s != seat and looking.sees_held(s, hand, rules)
    )
    to_act = match.to_act
    score, games = match.score, match.games
    return View(
        seat,
        rules,
        match.seats,
        len(hands) - 1,  # hand_number
        hand.dealer,
        hand.kind,
        hand.blind,
        hand.phase,
        hand.unplayed(seat) if looking.sees_held(seat, hand, rules) else (),  # cards
        hand.slots(seat),
        partners,
        hand.vira,
        seen_rounds(hand),
        seen_table(hand),
        hand.stake,
        hand.pending,
        hand.requester if hand.pending else None,  # requester
        None if hand.last_raiser < 0 else hand.last_raiser,  # raised_by
        (score[0], score[1]),
        (games[0], games[1]),
        to_act,
        tuple(match.legal_actions()) if to_act == seat else (),  # legal
        last_hand(match),
        _refused(hand.refused, n) if hand.refused else (),
    )  # positional, in the order of View's fields: a third cheaper than by keyword


def _refused(bits: int, n: int) -> tuple[int, ...]:
    return tuple([s for s in range(n) if bits >> s & 1])


def last_hand(match: Match) -> SeenHand | None:
    """The latest finished hand, as every seat saw it."""
    hands = match.hands
    for number in range(len(hands) - 1, max(-1, len(hands) - 3), -1):
        seen = hands[number].seen
        if isinstance(seen, SeenHand):  # kept by seen_hand once the hand is over
            return seen
        if hands[number].result is not None:
            return seen_hand(match, number)
    return None


def seen_hand(match: Match, number: int) -> SeenHand:
    """A finished hand, as every seat saw it."""
    hand = match.hands[number]
    result = hand.result
    if result is None:
        raise ValueError(f"hand {number} is not finished")
    if not isinstance(hand.seen, SeenHand):  # a finished hand never changes: keep it
        hand.seen = SeenHand(number, result.points, result.score, result.reason, seen_rounds(hand))
    return hand.seen


def seen_rounds(hand: Hand) -> tuple[SeenRound, ...]:
    """A hand's finished rounds as every seat sees them (covered faces hidden)."""
    if len(hand.seen_rounds) != len(hand.rounds):  # finished rounds never change: keep them
        hand.seen_rounds = tuple(SeenRound(_seen(r.plays), r.winner) for r in hand.rounds)
    return hand.seen_rounds  # type: ignore[return-value]


def seen_table(hand: Hand) -> tuple[SeenPlay, ...]:
    """The current round's plays as every seat sees them."""
    key = (len(hand.rounds), len(hand.table))  # within a round the table only grows
    if hand.seen_table[0] != key:
        hand.seen_table = (key, _seen(hand.table))
    return hand.seen_table[1]  # type: ignore[return-value]


def _seen(plays: Any) -> tuple[SeenPlay, ...]:
    """Plays as every seat sees them (any seat: what a seat sees of a play never depends
    on which, so the finished rounds are kept once for all)."""
    return tuple(
        [
            SeenPlay(p.seat, p.card)
            if PUBLIC.sees_play(p.covered)
            else SeenPlay(p.seat, None, True)
            for p in plays
        ]
    )

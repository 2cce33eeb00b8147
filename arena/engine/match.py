"""The state machine of a whole match: deals, rounds, the stake ladder, special hands.

A :class:`Match` is mutable: ``legal_actions()`` lists what the seat ``to_act`` may do
and ``apply(action)`` does it or raises :class:`IllegalAction` saying why. A match made
with a ``seed`` deals itself from that seed; one made without deals only when
``deal(cards, vira)`` is called (that is how records replay).

It is the one module of the arena over about 400 lines, and stays whole on purpose: it
is one state machine, and splitting it would scatter each rule (a raise, a round, the
hand of 11) across files that must then be read together.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter

from arena.engine.actions import (
    ACCEPT,
    COVERED_PLAYS,
    FOLD,
    PLAYS,
    RAISE,
    SLOT_PLAYS,
    Action,
    ActionType,
)
from arena.engine.cards import COVERED, Card, Manilha, strength_table
from arena.engine.errors import IllegalAction, RecordError, quoted
from arena.engine.rules import (
    LADDER,
    AllTied,
    BothAtSpecial,
    Covered,
    CoveredAfterPartner,
    LeadAfterTie,
    PartnerTieLead,
    PartnerTopTie,
    RaiseAnswer,
    Rules,
    SpecialRaise,
    StakeCap,
)


class Phase(enum.StrEnum):
    DECIDE = "decide"  # the team at 11 (or 10) chooses to play the hand or not
    PLAY = "play"  # the seat whose turn it is plays a card (or raises, or folds)
    ANSWER = "answer"  # a request for more points waits for the other team
    OVER = "over"  # the hand is finished


class HandKind(enum.StrEnum):
    NORMAL = "normal"
    SPECIAL = "special"  # one team at special_at: the hand of 11 (10 in tradicional)
    BOTH = "both"  # both teams at special_at: 11x11, blind or open per the rules


class Termination(enum.StrEnum):
    SCORE = "score"  # a team reached 12 (in enough games)
    PENALTY = "penalty"  # a raise during the special hand ended the game


@dataclass(frozen=True, slots=True)
class Outcome:
    termination: Termination
    winner: int  # the winning team


@dataclass(frozen=True, slots=True)
class HandResult:
    points: tuple[int, int]  # per team, at the hand's full value before the cap
    reason: str | None = None  # set when a penalty ended the hand
    score: tuple[int, int] = (0, 0)  # the score just after the hand (capped), before any
    # new game of a best-of-N match starts again at 0-0


@dataclass(frozen=True, slots=True)
class Play:
    """A card on the table. The card of a covered play is known to the engine only."""

    seat: int
    card: Card
    covered: bool = False


@dataclass(frozen=True, slots=True)
class Round:
    plays: tuple[Play, ...]
    winner: int | None  # the team, or None for a tie


_HAND_FIELDS = (
    "actions", "blind", "cap", "dealer", "dealt", "deciding", "held", "kind", "last_raiser",
    "leader", "pending", "phase", "refused", "requester", "result", "rounds", "seen",
    "seen_rounds", "seen_table", "stake", "strength", "table", "to_act", "turn", "vira",
)  # fmt: skip


class Hand:
    """One deal: the cards, the rounds so far, the stake and who must act."""

    __slots__ = _HAND_FIELDS

    def __init__(
        self, dealer: int, vira: Card | None, dealt: list[tuple[Card, ...]], kind: HandKind
    ) -> None:
        self.dealer = dealer
        self.vira = vira
        self.dealt = dealt
        self.held = [sorted(cards, key=_INDEX) for cards in dealt]  # the order of Card
        self.kind = kind
        self.blind = False
        self.deciding: int | None = None  # the team at special_at in a SPECIAL hand
        self.strength: tuple[int, ...] = ()
        self.stake = 1
        self.cap = 12  # the most a raise may ask (stake_cap)
        self.pending = 0  # the value asked by an unanswered request, else 0
        self.requester = -1
        self.refused = 0  # a bit per seat that refused the pending request (any_accepts)
        self.last_raiser = -1  # the team that made the last raise, else -1
        self.phase = Phase.PLAY
        self.leader = (dealer + 1) % len(dealt)  # who leads the current round
        self.turn = self.leader  # whose card is next
        self.to_act = self.leader  # who must act now (the turn, or the asked seat)
        self.table: list[Play] = []
        self.rounds: list[Round] = []
        self.actions: list[tuple[int, Action]] = []
        self.result: HandResult | None = None
        self.seen: object = None  # view.seen_hand's summary, kept once the hand is over
        self.seen_rounds: tuple[object, ...] = ()  # view.seen_rounds, kept per round count
        self.seen_table: tuple[object, object] = ((-1, -1), ())  # view.seen_table's, by size

    def clone(self) -> Hand:
        """An independent copy (cards and results are immutable and shared)."""
        other = Hand(self.dealer, self.vira, self.dealt, self.kind)  # (compiled, no __new__)
        for name in _HAND_FIELDS:
            setattr(other, name, getattr(self, name))
        other.held = [list(cards) for cards in self.held]
        other.table = list(self.table)
        other.rounds = list(self.rounds)
        other.actions = list(self.actions)
        return other

    @property
    def first(self) -> int:
        """The seat after the dealer, who leads round 1 ("a mão")."""
        return (self.dealer + 1) % len(self.dealt)

    def slots(self, seat: int) -> tuple[int, ...]:
        """The dealt positions of the seat's cards not yet played."""
        held = self.held[seat]
        return tuple([i for i, c in enumerate(self.dealt[seat]) if c in held])

    def unplayed(self, seat: int) -> tuple[Card, ...]:
        """The seat's cards not yet played, in the order they were dealt (what a view
        shows: :attr:`held` is in the order of Card, for the legal actions)."""
        held = self.held[seat]
        return tuple([c for c in self.dealt[seat] if c in held])


class Match:
    """A match between two teams; seat i plays for team i % 2."""

    def __init__(
        self,
        rules: Rules | None = None,
        seats: Sequence[str] | None = None,
        *,
        seed: int | None = None,
        start_score: Sequence[int] = (0, 0),
        start_games: Sequence[int] = (0, 0),
    ) -> None:
        self.rules = rules = rules or Rules()
        self.n = rules.seats
        self.seats = tuple(seats) if seats is not None else tuple(f"seat{i}" for i in range(self.n))
        if len(self.seats) != self.n:
            raise RecordError(
                f"{rules.name} with team_size {rules.team_size} needs {self.n} seats, "
                f"not {len(self.seats)}"
            )
        self.start_score = _pair("start_score", start_score, rules.score_cap)
        self.start_games = _pair("start_games", start_games, rules.games_to_win)
        self.score = list(self.start_score)
        self.games = list(self.start_games)
        self.seed = seed
        self.hands: list[Hand] = []
        self.outcome: Outcome | None = None
        self._rng = random.Random(seed) if seed is not None else None
        self.next_dealer = self._rng.randrange(self.n) if self._rng else self.n - 1
        if self._rng:
            self.deal()

    def clone(self) -> Match:
        """An independent copy, for search: applying actions to it leaves this one be."""
        other = Match(  # no seed: it deals nothing (the state is copied below)
            self.rules, self.seats, start_score=self.start_score, start_games=self.start_games
        )
        other.seed = self.seed
        other.outcome = self.outcome
        other.next_dealer = self.next_dealer
        other.score = list(self.score)
        other.games = list(self.games)
        other.hands = [*self.hands[:-1], self.hands[-1].clone()] if self.hands else []
        if self._rng is not None:
            other._rng = random.Random()
            other._rng.setstate(self._rng.getstate())
        return other

    # ---- reading the state -------------------------------------------------------

    @property
    def hand(self) -> Hand | None:
        """The current (or just finished) hand."""
        return self.hands[-1] if self.hands else None

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def needs_deal(self) -> bool:
        hand = self.hand
        return self.outcome is None and (hand is None or hand.result is not None)

    @property
    def to_act(self) -> int | None:
        """The seat that must act now, or None between hands and after the match."""
        hand = self.hand
        if self.outcome is not None or hand is None or hand.result is not None:
            return None
        return hand.to_act

    def legal_actions(self) -> list[Action]:
        """Every action the seat ``to_act`` may take, in a fixed order."""
        hands = self.hands
        if self.outcome is not None or not hands or hands[-1].result is not None:
            return []
        hand = hands[-1]
        phase = hand.phase
        if phase is Phase.PLAY:
            seat = hand.turn
            if hand.blind:
                out = [SLOT_PLAYS[i] for i in hand.slots(seat)]
            else:
                held = hand.held[seat]
                out = [PLAYS[c.index] for c in held]
                if self._may_cover(hand):
                    out += [COVERED_PLAYS[c.index] for c in held]
            if self._raise_problem(hand, seat & 1) is None:
                out.append(RAISE)
            if self.rules.fold_hand and not hand.blind:  # _fold_problem's conditions
                out.append(FOLD)
            return out
        if phase is Phase.ANSWER:
            return [RAISE, ACCEPT, FOLD] if hand.pending < hand.cap else [ACCEPT, FOLD]
        return [ACCEPT, FOLD]  # Phase.DECIDE

    def default_action(self) -> Action:
        """What the referee does for a seat whose clock ran out: the weakest open card,
        fold an unanswered request, play the special hand."""
        hand = self.hand
        if self.outcome is not None or hand is None or hand.result is not None:
            raise IllegalAction("nobody is to act: " + self._idle_reason())
        if hand.phase is Phase.DECIDE:
            return ACCEPT
        if hand.phase is Phase.ANSWER:
            return FOLD
        if hand.blind:
            return Action.play_slot(hand.slots(hand.turn)[0])
        strength = hand.strength
        return Action.play(min(hand.held[hand.turn], key=lambda c: (strength[c.index], c)))

    # ---- dealing -----------------------------------------------------------------

    def deal(
        self,
        cards: Sequence[Sequence[Card]] | None = None,
        vira: Card | None = None,
        dealer: int | None = None,
    ) -> Hand:
        """Start the next hand, from the seed or from the given cards."""
        if not self.needs_deal:
            raise IllegalAction("cannot deal now: " + self._idle_reason(dealing=True))
        rules = self.rules
        if dealer is None:
            dealer = self.next_dealer
        elif self.hands and dealer != self.next_dealer:
            raise RecordError(f"the deal passes to seat {self.next_dealer}, not seat {dealer}")
        elif not 0 <= dealer < self.n:
            raise RecordError(f"dealer must be a seat from 0 to {self.n - 1}, not {dealer}")
        nova = rules.manilha is Manilha.NOVA
        if cards is None:
            if self._rng is None:
                raise IllegalAction("this match has no seed: give the cards to deal")
            drawn = _draw(self._rng, rules.deck.cards, 3 * self.n + nova)
            dealt = [tuple(drawn[3 * i : 3 * i + 3]) for i in range(self.n)]
            dealt = dealt[-dealer - 1 :] + dealt[: -dealer - 1]  # seat dealer+1 gets the first
            vira = drawn[-1] if nova else None
        else:
            dealt = [tuple(c) for c in cards]
            _check_deal(rules, self.n, dealt, vira)
        at = [s >= rules.special_at for s in self.score]
        kind = HandKind.BOTH if all(at) else HandKind.SPECIAL if any(at) else HandKind.NORMAL
        hand = Hand(dealer, vira, dealt, kind)
        hand.strength = strength_table(rules.deck, rules.manilha, vira)
        if rules.stake_cap is StakeCap.TRAILING_NEEDS:
            hand.cap = stake_cap(rules, self.score)
        if kind is HandKind.SPECIAL:
            hand.deciding = at.index(True)
            hand.phase = Phase.DECIDE
            first = hand.first
            hand.to_act = first if first & 1 == hand.deciding else (first + 1) % self.n
        elif kind is HandKind.BOTH:
            hand.stake = rules.both_at_special_value
            hand.blind = rules.both_at_special is BothAtSpecial.BLIND
        self.hands.append(hand)
        return hand

    # ---- acting ------------------------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Do ``action`` for the seat to act. ``seat``, when given, must be that seat,
        except that any seat of a team being asked (a request, the special hand) may
        answer for it."""
        hands = self.hands
        if self.outcome is not None or not hands or hands[-1].result is not None:
            raise IllegalAction("nobody may act: " + self._idle_reason())
        hand = hands[-1]
        actor = hand.to_act
        if seat is not None and seat != actor:
            answering = hand.phase is not Phase.PLAY
            if not (answering and 0 <= seat < self.n and seat & 1 == actor & 1):
                raise IllegalAction(f"it is seat {actor}'s turn to act, not seat {seat}'s")
            actor = seat
        kind = action.type
        phase = hand.phase
        if phase is Phase.PLAY:
            if kind is ActionType.PLAY:
                self._play(hand, actor, action)
            elif kind is ActionType.RAISE:
                self._raise(hand, actor)
            elif kind is ActionType.FOLD:
                problem = self._fold_problem(hand)
                if problem:
                    raise IllegalAction(problem)
                hand.actions.append((actor, action))
                self._end_hand(hand, _to(1 - (actor & 1), hand.stake))
            else:
                raise IllegalAction("there is nothing to accept: no request is pending")
        elif phase is Phase.ANSWER:
            team = actor & 1
            if hand.refused >> actor & 1:
                raise IllegalAction(f"seat {actor} has already refused this request")
            if kind is ActionType.ACCEPT:
                hand.actions.append((actor, action))
                hand.stake, hand.pending, hand.refused = hand.pending, 0, 0
                hand.phase = Phase.PLAY
                hand.to_act = hand.turn
            elif kind is ActionType.FOLD:
                hand.actions.append((actor, action))
                partner = self._next_to_answer(hand, actor)
                if partner < 0:
                    self._end_hand(hand, _to(1 - team, hand.stake))
                else:
                    hand.refused |= 1 << actor
                    hand.to_act = partner
            elif kind is ActionType.RAISE:
                if hand.pending >= hand.cap:
                    raise IllegalAction(self._cap_problem(hand, hand.pending))
                hand.actions.append((actor, action))
                hand.stake = hand.pending
                self._ask(hand, actor)
            else:
                raise IllegalAction(
                    f"seat {actor} must first answer the request for {hand.pending} points: "
                    "accept, fold or raise"
                )
        else:  # Phase.DECIDE
            if kind is ActionType.ACCEPT:
                hand.actions.append((actor, action))
                hand.stake = 3
                hand.phase = Phase.PLAY
                hand.to_act = hand.turn
            elif kind is ActionType.FOLD:
                hand.actions.append((actor, action))
                self._end_hand(hand, _to(1 - (actor & 1), 1))
            else:
                raise IllegalAction(
                    f"seat {actor} must first decide whether to play the hand of "
                    f"{self.rules.special_at}: accept or fold"
                )

    def _play(self, hand: Hand, seat: int, action: Action) -> None:
        card = action.card
        if hand.blind and card is not None:
            raise IllegalAction("the hand is blind: choose a slot (play slot N), not a card")
        if card is None:  # chosen by slot
            slot = action.slot if action.slot is not None else -1
            card = hand.dealt[seat][slot]
            if card not in hand.held[seat]:
                raise IllegalAction(f"seat {seat} already played the card in slot {slot}")
        elif card not in hand.held[seat]:
            played = card in hand.dealt[seat]
            raise IllegalAction(
                f"seat {seat} {'already played' if played else 'does not hold'} {card}"
            )
        covered = action.covered
        if covered and not self._may_cover(hand):
            raise IllegalAction(self._cover_problem(hand))
        hand.held[seat].remove(card)
        hand.actions.append((seat, (COVERED_PLAYS if covered else PLAYS)[card.index]))
        table = hand.table
        table.append(Play(seat, card, covered))
        if len(table) < self.n:
            hand.turn = hand.to_act = (seat + 1) % self.n
        else:
            self._end_round(hand)

    def _raise(self, hand: Hand, seat: int) -> None:
        team = seat & 1
        problem = self._raise_problem(hand, team)
        if problem:
            own = "its own" if hand.requester == seat else "its team's"
            raise IllegalAction(problem.format(seat=seat, own=own))
        hand.actions.append((seat, RAISE))
        if hand.kind is HandKind.SPECIAL:
            self._raise_penalty(hand, team)
        else:
            self._ask(hand, seat)

    def _ask(self, hand: Hand, seat: int) -> None:
        hand.pending = LADDER[LADDER.index(hand.stake) + 1]
        hand.requester = seat
        hand.refused = 0
        hand.last_raiser = seat & 1
        hand.phase = Phase.ANSWER
        hand.to_act = (seat + 1) % self.n

    def _next_to_answer(self, hand: Hand, seat: int) -> int:
        """Who of ``seat``'s team is asked after it refuses the pending request: with
        raise_answer any_accepts, the next of them in play order that has not refused;
        -1 when nobody is left (the request is refused)."""
        rules = self.rules
        if rules.raise_answer is RaiseAnswer.ONE_SEAT:
            return -1
        refused = hand.refused | 1 << seat
        n = self.n
        for step in range(2, n, 2):
            partner = (seat + step) % n
            if not refused >> partner & 1:
                return partner
        return -1

    def _raise_penalty(self, hand: Hand, team: int) -> None:
        rules = self.rules
        name = f"the hand of {rules.special_at}"
        if rules.special_raise is SpecialRaise.FORFEIT_SPLIT and team == hand.deciding:
            reason = f"team {team} raised during {name}: it loses the hand, the opponents score 3"
            self._end_hand(hand, _to(1 - team, 3), reason)
            return
        winner = 1 - team
        reason = f"team {team} raised during {name}: team {winner} wins the game"
        self._end_hand(hand, _to(winner, rules.score_cap - self.score[winner]), reason)

    def _end_round(self, hand: Hand) -> None:
        strength = hand.strength
        best = COVERED - 1
        tops: list[Play] = []
        for play in hand.table:
            s = COVERED if play.covered else strength[play.card.index]
            if s > best:
                best, tops = s, [play]
            elif s == best:
                tops.append(play)
        top_team = tops[0].seat & 1
        one_team = all(p.seat & 1 == top_team for p in tops)
        rules = self.rules
        if one_team and (len(tops) == 1 or rules.partner_top_tie is PartnerTopTie.TEAM):
            winner: int | None = top_team
            lowest = len(tops) > 1 and rules.partner_tie_lead is PartnerTieLead.LOWER_SEAT
            hand.leader = min(p.seat for p in tops) if lowest else tops[0].seat
        else:
            winner = None
            if rules.lead_after_tie is LeadAfterTie.TOP:
                hand.leader = tops[0].seat
        hand.rounds.append(Round(tuple(hand.table), winner))
        hand.table = []
        hand.turn = hand.to_act = hand.leader
        decided = _hand_winner(hand.rounds)
        if decided is not None:
            self._end_hand(hand, _to(decided, hand.stake))
        elif len(hand.rounds) == 3:
            self._all_tied(hand, tops)

    def _all_tied(self, hand: Hand, tops: list[Play]) -> None:
        rule = self.rules.all_tied
        team: int | None = None
        if rule in (AllTied.FIRST_LEADER, AllTied.DEALER_OPPONENT):
            team = hand.first & 1  # the seat after the dealer is always an opponent of his
        elif rule is AllTied.SUIT:
            open_tops = [p for p in tops if not p.covered]
            if open_tops:
                team = max(open_tops, key=lambda p: p.card.suit).seat & 1
        points = (0, 0) if team is None else _to(team, hand.stake)
        self._end_hand(hand, points, redeal=rule is AllTied.REPLAY)

    def _end_hand(
        self, hand: Hand, points: tuple[int, int], reason: str | None = None, redeal: bool = False
    ) -> None:
        rules = self.rules
        hand.phase = Phase.OVER
        hand.pending = hand.refused = 0
        self.next_dealer = hand.dealer if redeal else (hand.dealer + 1) % self.n
        score = self.score
        for team in (0, 1):
            score[team] = min(rules.score_cap, score[team] + points[team])
        hand.result = HandResult(points, reason, (score[0], score[1]))
        if max(score) >= rules.score_cap:
            winner = 0 if score[0] >= rules.score_cap else 1
            self.games[winner] += 1
            if self.games[winner] >= rules.games_to_win:
                how = Termination.SCORE if reason is None else Termination.PENALTY
                self.outcome = Outcome(how, winner)
                return
            score[0] = score[1] = 0
        if self._rng is not None:
            self.deal()

    # ---- why an action is not allowed (None when it is) ----------------------------

    def _raise_problem(self, hand: Hand, team: int) -> str | None:
        if hand.kind is HandKind.BOTH:
            return "nobody may raise in the hand where both teams are at the special score"
        if hand.kind is HandKind.SPECIAL:
            if self.rules.special_raise is SpecialRaise.ILLEGAL:
                return f"nobody may raise in the hand of {self.rules.special_at}"
            return None
        if hand.stake >= hand.cap:
            return self._cap_problem(hand, hand.stake)
        if hand.last_raiser == team:
            return "seat {seat} cannot raise over {own} request"
        return None

    def _cap_problem(self, hand: Hand, value: int) -> str:
        """Why nothing may be asked over ``value`` (the stake, or a pending request)."""
        if value >= 12:
            if hand.pending:
                return "the request is already for 12: accept or fold"
            return "the hand is already worth 12: there is nothing to raise to"
        what = "the request is" if hand.pending else "the hand is"
        needs = self.rules.score_cap - min(self.score)
        return (
            f"{what} already for {value}, the cap of this hand: the trailing team needs "
            f"{needs} points to win (stake_cap trailing_needs)"
        )

    def _fold_problem(self, hand: Hand) -> str | None:
        if not self.rules.fold_hand:
            return "these rules have no folding of the hand: fold only answers a request"
        if hand.blind:
            return "nobody may fold the blind hand"
        return None

    def _may_cover(self, hand: Hand) -> bool:
        rules = self.rules
        rule = rules.covered
        if rule is Covered.OFF or hand.blind:
            return False
        if not (hand.rounds if rule is Covered.FROM_ROUND2 else hand.table):
            return False
        banned = rules.covered_after_partner is CoveredAfterPartner.BANNED
        return not (banned and _partner_covered(hand))

    def _cover_problem(self, hand: Hand) -> str:
        rules = self.rules
        rule = rules.covered
        if rule is Covered.OFF:
            return "these rules have no covered cards"
        if hand.blind:
            return "no card may be covered in the blind hand"
        if rule is Covered.FROM_ROUND2 and not hand.rounds:
            return "a card may be covered only from round 2 on"
        if rule is Covered.NOT_FIRST and not hand.table:
            return "the first card of a round cannot be covered"
        return (
            f"seat {hand.turn}'s partner has already played a covered card in this round "
            "(covered_after_partner banned)"
        )

    def _idle_reason(self, dealing: bool = False) -> str:
        if self.outcome is not None:
            return "the match is over"
        if self.hand is None or self.hand.result is not None:
            return "the hand is over; the next hand must be dealt"
        return "the current hand is not finished" if dealing else "no hand is in play"


_INDEX = attrgetter("index")


def _draw(rng: random.Random, population: Sequence[Card], k: int) -> list[Card]:
    """``rng.sample(population, k)``, the same cards in the same order, in a third of the
    time: CPython's algorithm for a population of at most 21 + 4 ** ceil(log4(3k)) items
    (every deck and table here), without its general checks. A test holds the two equal."""
    getrandbits = rng.getrandbits
    pool = list(population)
    n = len(pool)
    drawn = []
    for i in range(k):
        left = n - i
        bits = left.bit_length()
        j = getrandbits(bits)  # random._randbelow_with_getrandbits(left)
        while j >= left:
            j = getrandbits(bits)
        drawn.append(pool[j])
        pool[j] = pool[left - 1]
    return drawn


def _partner_covered(hand: Hand) -> bool:
    """Whether a partner of the seat whose turn it is has played covered in this round."""
    team = hand.turn & 1
    return any(p.covered and p.seat & 1 == team for p in hand.table)


def stake_cap(rules: Rules, score: Sequence[int]) -> int:
    """The most a raise may ask in a hand dealt at ``score``: with stake_cap
    trailing_needs, what the trailing team needs to win, rounded up to a multiple of 3."""
    if rules.stake_cap is StakeCap.NONE:
        return LADDER[-1]
    needs = rules.score_cap - min(score)
    return -(-needs // 3) * 3


def _hand_winner(rounds: list[Round]) -> int | None:
    """The team that has taken the hand, or None while it is open (or all tied)."""
    wins = [0, 0]
    first = None
    tied = False
    for r in rounds:
        if r.winner is None:
            tied = True
        else:
            wins[r.winner] += 1
            if first is None:
                first = r.winner
    if wins[0] == 2 or wins[1] == 2:
        return 0 if wins[0] == 2 else 1
    return first if tied else None


def _to(team: int, points: int) -> tuple[int, int]:
    return (points, 0) if team == 0 else (0, points)


def _pair(name: str, values: Sequence[int], limit: int) -> tuple[int, int]:
    def ok(v: object) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < limit

    if not isinstance(values, Sequence) or len(values) != 2 or not all(map(ok, values)):
        raise RecordError(
            f"{name} must be two whole numbers from 0 to {limit - 1}, not {quoted(values)}"
        )
    return (values[0], values[1])


def _check_deal(rules: Rules, n: int, dealt: list[tuple[Card, ...]], vira: Card | None) -> None:
    if len(dealt) != n or any(len(cards) != 3 for cards in dealt):
        raise RecordError(f"the deal must give 3 cards to each of the {n} seats")
    everything = [c for cards in dealt for c in cards]
    if rules.manilha is Manilha.NOVA:
        if vira is None:
            raise RecordError("manilha nova needs a vira")
        everything.append(vira)
    elif vira is not None:
        raise RecordError("manilha velha has no vira: give null")
    deck = rules.deck.cards
    for card in everything:
        if card not in deck:
            raise RecordError(f"{card} is not in deck {rules.deck}")
    if len(set(everything)) != len(everything):
        twice = sorted({c for c in everything if everything.count(c) > 1})
        raise RecordError("a card is dealt twice: " + " ".join(map(str, twice)))

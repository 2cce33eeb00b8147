"""A match record as a replay: the state of the table after the deal and after each action.

The states come from the full record played through the engine, then lose what the
viewer may not see, as the engine's :class:`Observer` says (the public, the organizer,
or the owner of the bot at some seats): for the public, cards in hand are backs and a
covered card has no face, so a state never holds a card that was not played face up by
then; the owner sees also what its seats saw (their hands, their own covered cards'
faces), never an opponent's hidden card; the organizer sees everything.

A state marks what explains the play: the card that won each round, the manilhas among
the cards whose face the viewer sees, and the stake's history so far (each raise and its
answer). What the referee wrote beside each action (the time it took against its
deadline, a default played at the deadline, a stand-in's action, the actions refused
before it) is each step's ``decision`` (:func:`decisions`), apart from the table, which
the live feed draws from the public actions alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.engine import (
    ORGANIZER,
    PUBLIC,
    Action,
    ActionType,
    Card,
    Hand,
    HandKind,
    Match,
    Observer,
    Phase,
    Rank,
    Rules,
    TrucoError,
)

STAKE_NAMES = {1: "", 3: "truco", 6: "seis", 9: "nove", 10: "dez", 12: "doze"}


@dataclass(frozen=True, slots=True)
class Replay:
    hands: list[dict[str, Any]]  # every hand's summary: dealer, vira, points, score after
    steps: list[dict[str, Any]]  # the states of the chosen hand: its deal, then each action
    decisions: list[dict[str, Any] | None]  # per step, what the referee wrote of its action


def teams(seats: list[str]) -> list[str]:
    """Each team's name: its bots joined with '+' (each bot once)."""
    return ["+".join(dict.fromkeys(seats[t::2])) for t in (0, 1)]


def replay_hand(
    record: dict[str, Any], index: int, *, organizer: bool, own: tuple[int, ...] = ()
) -> Replay:
    """The summaries of every hand and the steps of hand ``index`` (from 0; a summary's
    ``number`` counts from 1, as a person does), as the organizer sees them, or the owner
    of the bot at seats ``own``, or (neither) anyone.

    Raises :class:`TrucoError` when the record does not replay, and IndexError when it
    has no hand ``index``."""
    hands = record.get("hands", [])
    if not 0 <= index < len(hands):
        raise IndexError(f"the match has no hand {index + 1}")
    looking = ORGANIZER if organizer else Observer(frozenset(own)) if own else PUBLIC
    rules = Rules.from_json(record.get("rules", "paulista"))
    seats = record["seats"]
    match = Match(
        rules,
        seats,
        start_score=record.get("start_score", (0, 0)),
        start_games=record.get("start_games", (0, 0)),
    )
    summaries: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    for i, given in enumerate(hands):
        vira = given.get("vira")
        hand = match.deal(
            [[Card.parse(c) for c in cards] for cards in given["cards"]],
            None if vira is None else Card.parse(vira),
            given.get("dealer"),
        )
        score_before = list(match.score)
        actions = given.get("actions", [])
        if i == index:
            steps = played(match, hand, actions, seats, looking, every=True)
        else:
            for data in actions:
                _apply(match, hand, data)
        result = hand.result
        summaries.append(
            {
                "number": i + 1,
                "dealer": hand.dealer,
                "vira": vira,
                "kind": str(hand.kind),
                "score_before": score_before,
                "points": None if result is None else list(result.points),
                "score": list(match.score) if result is None else list(result.score),
                "reason": None if result is None else result.reason,
                "actions": len(given.get("actions", [])),
            }
        )
    return Replay(summaries, steps, decisions(hands[index].get("actions", [])))


DECISION_FIELDS = ("ms", "deadline_ms", "by", "rejected", "error")
"""What the referee may write beside an action of its record (docs/rules.md)."""


def decisions(actions: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
    """Per step of a hand (the deal, then each action): what the referee wrote of the
    action (:data:`DECISION_FIELDS`), or None (the deal, a record without them)."""
    out: list[dict[str, Any] | None] = [None]
    for data in actions:
        told = {k: data[k] for k in DECISION_FIELDS if k in data}
        out.append(told or None)
    return out


def played(
    match: Match,
    hand: Hand,
    actions: list[dict[str, Any]],
    seats: list[str],
    looking: Observer,
    *,
    every: bool,
) -> list[dict[str, Any]]:
    """Play the record's ``actions`` in ``hand`` (just dealt): the table after the deal and
    after each action (``every``), or only the last of those states (the live feed's).
    Raises :class:`TrucoError` when an action does not apply."""
    states = [table_state(match, hand, None, seats, looking)] if every or not actions else []
    stakes: list[dict[str, Any]] = []
    for i, data in enumerate(actions):
        phase = hand.phase
        actor, action = _apply(match, hand, data)
        told = None
        if action.type is not ActionType.PLAY and (
            phase is not Phase.PLAY or action.type is ActionType.RAISE
        ):  # a raise, an answer, or the choice of the hand of 11: the stake's history
            told = told_action(match, hand, actor, action, phase, seats, looking)
            stakes = [*stakes, {**told, "step": i + 1, "stake": hand.stake}]
        if every or i == len(actions) - 1:
            done = told or told_action(match, hand, actor, action, phase, seats, looking)
            states.append(table_state(match, hand, done, seats, looking, stakes))
    return states


def _apply(match: Match, hand: Hand, data: dict[str, Any]) -> tuple[int, Action]:
    """Apply one action of a record: who took it, and what it was."""
    action = Action.from_json(data)
    seat = data.get("seat")
    actor = hand.to_act if seat is None else seat
    match.apply(_as_slot(hand, action, actor), seat)
    return actor, action


def _as_slot(hand: Hand, action: Action, seat: int) -> Action:
    """A record names the card played in a blind hand; the engine takes its slot."""
    if not hand.blind or action.card is None:
        return action
    if action.card not in hand.dealt[seat]:
        raise TrucoError(f"seat {seat} does not hold {action.card}")
    return Action.play_slot(hand.dealt[seat].index(action.card))


def _card(play: Any, hand: Hand, rules: Rules, looking: Observer) -> str | None:
    """A play's card, if the viewer may see its face."""
    return str(play.card) if looking.sees_play(play.covered, play.seat, hand, rules) else None


def _plays(plays: Any, hand: Hand, rules: Rules, looking: Observer) -> list[dict[str, Any]]:
    out = []
    for p in plays:
        card = _card(p, hand, rules, looking)
        out.append(
            {
                "seat": p.seat,
                "card": card,
                "covered": p.covered,
                "manilha": card is not None and not p.covered and _manilha(p.card, hand),
            }
        )
    return out


_TOP_PLAIN = max(Rank)  # a plain card's strength is its rank; a manilha's is above all


def _manilha(card: Card, hand: Hand) -> bool:
    """Whether ``card`` is a manilha in ``hand`` (as its strength table says: the vira
    decides, or the fixed four of manilha velha)."""
    return hand.strength[card.index] > _TOP_PLAIN


def _round(r: Any, hand: Hand, rules: Rules, looking: Observer) -> dict[str, Any]:
    """A finished round: its plays, the winning team, and ``won`` on the card (or the
    partners' equal cards) that won it."""
    strength = hand.strength
    ours = [p for p in r.plays if p.seat % 2 == r.winner and not p.covered]
    top = max((strength[p.card.index] for p in ours), default=None)
    plays = _plays(r.plays, hand, rules, looking)
    for shown, p in zip(plays, r.plays, strict=True):
        shown["won"] = p in ours and strength[p.card.index] == top
    return {"plays": plays, "winner": r.winner}


def table_state(
    match: Match,
    hand: Hand,
    action: dict[str, Any] | None,
    seats: list[str],
    looking: Observer,
    stakes: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The table as the viewer may see it now (``stakes``: the hand's raises and answers
    so far, as :func:`played` tells them)."""
    over = hand.result is not None
    rules = match.rules
    score = list(hand.result.score) if hand.result is not None else list(match.score)
    return {
        "action": action,
        "vira": None if hand.vira is None else str(hand.vira),
        "kind": str(hand.kind),
        "blind": hand.blind,
        "phase": str(hand.phase),
        "stake": hand.stake,
        "stake_name": STAKE_NAMES.get(hand.stake, ""),
        "pending": hand.pending,
        "requester": hand.requester if hand.pending else None,
        "stakes": stakes or [],
        "to_act": None if over else hand.to_act,
        "score": score,
        "games": list(match.games),
        "seats": [
            {
                "seat": s,
                "bot": name,
                "team": s % 2,
                "dealer": s == hand.dealer,
                "held": [str(c) if sees else None for c in hand.unplayed(s)],
                "manilhas": [sees and _manilha(c, hand) for c in hand.unplayed(s)],
            }
            for s, name in enumerate(seats)
            for sees in [looking.sees_held(s, hand, rules)]
        ],
        "rounds": [_round(r, hand, rules, looking) for r in hand.rounds],
        "table": _plays(hand.table, hand, rules, looking),
        "result": None
        if hand.result is None
        else {"points": list(hand.result.points), "reason": hand.result.reason},
    }


def told_action(
    match: Match,
    hand: Hand,
    seat: int,
    action: Action,
    phase: Phase,
    seats: list[str],
    looking: Observer,
) -> dict[str, Any]:
    """The action just taken, in words the viewer may read."""
    special = match.rules.special_at
    card = None
    if action.type is ActionType.PLAY:
        play = hand.table[-1] if hand.table else hand.rounds[-1].plays[-1]
        card = _card(play, hand, match.rules, looking)
        if play.covered:
            text = f"plays {card} covered" if card else "plays a card face down"
        else:
            text = f"plays {card}"
    elif action.type is ActionType.RAISE:
        if hand.result is not None and hand.kind is HandKind.SPECIAL:
            text = f"raises in the hand of {special}: a penalty"
        else:
            asked = hand.pending
            name = STAKE_NAMES.get(asked, "")
            verb = "raises to" if phase is Phase.ANSWER else "asks for"
            text = f"{verb} {name} ({asked})" if name else f"{verb} {asked}"
    elif action.type is ActionType.ACCEPT:
        if phase is Phase.DECIDE:
            text = f"plays the hand of {special}"
        else:
            text = f"accepts: the hand is worth {hand.stake}"
    elif phase is Phase.DECIDE:
        text = f"declines the hand of {special}"
    elif phase is Phase.ANSWER:
        text = "refuses"
    else:
        text = "folds the hand"
    return {
        "seat": seat,
        "bot": seats[seat],
        "type": str(action.type),
        "card": card,
        "covered": action.covered,
        "text": text,
    }

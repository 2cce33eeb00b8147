"""Match records (docs/rules.md, "Match records"): writing one from a match, and replaying one.

``to_record(match)`` is the whole story of a match as a JSON-ready dict.
``replay(record)`` plays a record through the engine, checking every action, and
returns the resulting :class:`Match`; ``disagreements(record, match)`` lists the
results the record states that the replay does not confirm.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arena.engine.actions import Action
from arena.engine.cards import Card
from arena.engine.errors import IllegalAction, RecordError, TrucoError, quoted
from arena.engine.match import Hand, Match
from arena.engine.rules import Rules
from arena.engine.view import PUBLIC, Observer

FORMAT = "truco-match/1"


def to_record(match: Match) -> dict[str, Any]:
    """The match record of ``match`` so far."""
    rules = match.rules
    out: dict[str, Any] = {
        "format": FORMAT,
        "rules": {"preset": rules.name, "team_size": rules.team_size, **rules.to_json()},
        "seats": list(match.seats),
        "start_score": list(match.start_score),
    }
    if rules.games_per_match > 1:
        out["start_games"] = list(match.start_games)
    if match.seed is not None:
        out["seed"] = match.seed
    out["hands"] = [
        {
            "dealer": hand.dealer,
            "vira": None if hand.vira is None else str(hand.vira),
            "cards": [[str(c) for c in cards] for cards in hand.dealt],
            "actions": [{"seat": seat, **action.to_json()} for seat, action in hand.actions],
            **({} if hand.result is None else {"result": _hand_result(hand.result)}),
        }
        for hand in match.hands
    ]
    outcome = match.outcome
    out["result"] = {
        "score": list(match.score),
        "winner": None if outcome is None else outcome.winner,
    }
    if rules.games_per_match > 1:
        out["result"]["games"] = list(match.games)
    return out


def _hand_result(result: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"points": list(result.points), "score": list(result.score)}
    if result.reason:
        out["reason"] = result.reason
    return out


def next_step(match: Match) -> dict[str, Any] | None:
    """Who acts next and every legal action, or that a deal comes next; None when over."""
    if match.is_over:
        return None
    if match.needs_deal:
        return {"deal": True, "dealer": match.next_dealer}
    return {"seat": match.to_act, "legal": [a.to_json() for a in match.legal_actions()]}


def replay(record: Any) -> Match:
    """Replay a record from its deals and actions. Errors name the hand and action."""
    if not isinstance(record, dict):
        raise RecordError("a match record must be a JSON object")
    fmt = record.get("format", FORMAT)
    if fmt != FORMAT:
        raise RecordError(f"unknown record format {quoted(fmt)}; this engine reads {FORMAT!r}")
    _check_result(record)
    rules = Rules.from_json(record.get("rules", "paulista"))
    seats = record.get("seats")
    if seats is not None and (
        not isinstance(seats, list) or not all(isinstance(s, str) for s in seats)
    ):
        raise RecordError("seats must be a list of names")
    match = Match(
        rules,
        seats,
        start_score=record.get("start_score", (0, 0)),
        start_games=record.get("start_games", (0, 0)),
    )
    hands = record.get("hands", [])
    if not isinstance(hands, list):
        raise RecordError("hands must be a list")
    for i, hand in enumerate(hands):
        _replay_hand(match, i, hand)
    return match


def _replay_hand(match: Match, i: int, hand: Any) -> None:
    try:
        if not isinstance(hand, dict):
            raise RecordError("a hand must be an object")
        _check_result(hand)
        if match.is_over:
            raise RecordError("the match was already over")
        if not match.needs_deal:
            raise RecordError(f"hand {i - 1} is not finished, yet another hand follows")
        cards = hand.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, list) for c in cards):
            raise RecordError("cards must be a list of each seat's cards")
        vira = hand.get("vira")
        dealer = hand.get("dealer")
        if dealer is not None and (not isinstance(dealer, int) or isinstance(dealer, bool)):
            raise RecordError(f"dealer must be a seat number, not {quoted(dealer)}")
        match.deal(
            [[Card.parse(c) for c in seat] for seat in cards],
            None if vira is None else Card.parse(vira),
            dealer,
        )
        actions = hand.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError("actions must be a list")
    except TrucoError as e:
        raise type(e)(f"hand {i}: {e}") from e
    for j, data in enumerate(actions):
        try:
            if match.is_over or match.needs_deal:
                raise RecordError("the hand is already over")
            seat = data.get("seat") if isinstance(data, dict) else None
            if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
                raise RecordError(f"seat must be a seat number, not {quoted(seat)}")
            match.apply(_as_slot(match, Action.from_json(data), seat), seat)
        except TrucoError as e:
            raise type(e)(f"hand {i}, action {j}: {e}") from e


def _check_result(part: dict[str, Any]) -> None:
    """A stated result (of the match or of a hand) is an object when there is one: a
    result of another kind would otherwise go unchecked."""
    if "result" in part and not isinstance(part["result"], dict):
        raise RecordError(f"result must be an object, not {quoted(part['result'])}")


def _as_slot(match: Match, action: Action, seat: int | None) -> Action:
    """A record names the card played in a blind hand; the engine takes its slot."""
    hand = match.hand
    if hand is None or not hand.blind or action.card is None:
        return action
    seat = hand.turn if seat is None else seat
    if action.covered:
        raise IllegalAction("no card may be covered in the blind hand")
    if action.card not in hand.dealt[seat]:
        raise IllegalAction(f"seat {seat} does not hold {action.card}")
    return Action.play_slot(hand.dealt[seat].index(action.card))


def disagreements(record: dict[str, Any], match: Match) -> list[str]:
    """Every result the record gives that differs from the replayed match."""
    found = []
    recomputed = to_record(match)
    for i, (given, ours) in enumerate(
        zip(record.get("hands", []), recomputed["hands"], strict=True)
    ):
        stated = given.get("result") if isinstance(given, dict) else None
        if isinstance(stated, dict):
            for key, value in stated.items():
                if key in ("points", "reason", "score") and value != ours.get("result", {}).get(
                    key
                ):
                    found.append(
                        f"hand {i}: the record gives {key} {quoted(value)}, "
                        f"the replay gives {ours.get('result', {}).get(key)!r}"
                    )
    stated = record.get("result")
    if isinstance(stated, dict):
        for key in ("score", "winner", "games"):
            if key in stated and stated[key] != recomputed["result"].get(key):
                found.append(
                    f"result: the record gives {key} {quoted(stated[key])}, "
                    f"the replay gives {recomputed['result'].get(key)!r}"
                )
    return found


def replayed_record(record: dict[str, Any], match: Match) -> dict[str, Any]:
    """The record as ``arena replay`` prints it: recomputed, unknown fields kept (also an
    action's, such as the referee's ``ms``), and ``next`` when the match is unfinished."""
    ours = to_record(match)
    out = {**record, **ours}
    out["hands"] = [
        {**given, **hand, "actions": _kept(given.get("actions"), hand["actions"])}
        if isinstance(given, dict)
        else hand
        for given, hand in zip(record.get("hands", []), ours["hands"], strict=True)
    ]
    step = next_step(match)
    if step is None:
        out.pop("next", None)
    else:
        out["next"] = step
    return out


def _kept(given: Any, ours: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recomputed actions, each with the fields its given action adds to the action
    notation (a ``slot`` becomes the card it chose)."""
    if not isinstance(given, list):
        return ours
    return [
        {**{k: v for k, v in g.items() if k != "slot"}, **a} if isinstance(g, dict) else a
        for g, a in zip(given, ours, strict=True)
    ]


def public_record(record: dict[str, Any], seats: Iterable[int] = ()) -> dict[str, Any]:
    """The record as anyone may see it: a covered card's face and every card that was
    never played face up become null, and the seed is left out (with the rules it deals
    every hidden card). With ``seats``, as the owner of the bots at those seats sees it:
    also what they saw, as their :class:`Observer` says (their own hands, their covered
    cards' faces, a partner's hand shown; the record is replayed to know each hand).
    The organizer sees the whole record."""
    looking = Observer(frozenset(seats)) if seats else PUBLIC
    rules, played = (None, []) if looking is PUBLIC else _hands(record)
    out = {k: v for k, v in record.items() if k != "seed"}
    out["hands"] = [
        _seen(hand, looking, played[i] if i < len(played) else None, rules)
        for i, hand in enumerate(record.get("hands", []))
    ]
    return out


def _seen(
    hand: dict[str, Any], looking: Observer, state: Hand | None, rules: Rules | None
) -> dict[str, Any]:
    """A hand of a record as ``looking`` sees it (``state``: the hand replayed)."""
    actions = hand.get("actions", [])

    def sees(a: dict[str, Any]) -> bool:
        return looking.sees_play(bool(a.get("covered")), a.get("seat"), state, rules)

    shown = {a["card"] for a in actions if a.get("type") == "play" and "card" in a and sees(a)}
    return {
        **hand,
        "cards": [
            [c if c in shown or looking.sees_held(seat, state, rules) else None for c in cards]
            for seat, cards in enumerate(hand["cards"])
        ],
        "actions": [{k: v for k, v in a.items() if k != "card" or sees(a)} for a in actions],
    }


def _hands(record: dict[str, Any]) -> tuple[Rules | None, list[Hand]]:
    """The rules and the hands of a record replayed (none when it does not replay: then
    nobody is shown more than anyone)."""
    try:
        match = replay(record)
    except (TrucoError, KeyError, TypeError, ValueError):
        return None, []
    return match.rules, list(match.hands)

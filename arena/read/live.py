"""The live feed's events: a match's public record so far, told after every action.

The referee tells a match as it plays through a :class:`PublicLog`: after each action, an
event holding the current hand's public record so far (who dealt, the vira, the score and
games before the hand, and its actions with a covered card's face left out). An event
never holds a card that was not played face up, so the channel it travels on carries no
more than the public record; and each event is whole, so a reader that missed some (a
slow channel drops them) or joins late redraws from the next one.

:func:`live_table` turns an event back into the table as the replay shows it to the
public (:func:`arena.read.replay.table_state`): the hand is dealt again with the cards
played face up where they were played and stand-in cards everywhere else (cards in hand,
covered faces), none of which the public view shows, and its actions are played through
the engine, which decides rounds, stakes and points as at the referee's table.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.engine import PUBLIC, ActionType, Card, Match, Rules
from arena.read.replay import played, teams

if TYPE_CHECKING:  # the referee's matches load this module, local ones without a store
    from arena.store.store import Store


def public_action(seat: int, data: dict[str, Any]) -> dict[str, Any]:
    """One action of a record (its notation, :meth:`Action.to_json`) as anyone may see it:
    a covered card without its face."""
    if data.get("covered"):
        return {"seat": seat, "type": data["type"], "covered": True}
    return {"seat": seat, **data}


class PublicLog:
    """What the live feed tells of one match, kept by the referee that plays it."""

    __slots__ = ("_actions", "_hand", "_header", "_seq", "match_id")

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self._hand = -1  # the hand being told
        self._header: dict[str, Any] = {}
        self._actions: list[dict[str, Any]] = []
        self._seq = 0

    def told(self, match: Match) -> list[dict[str, Any]]:
        """The events since the last call: one for the hand that moved (with its new
        actions), and one for a hand dealt since. Called after every action, and once
        before the first."""
        events: list[dict[str, Any]] = []
        hands = match.hands
        while True:
            if self._hand >= 0:
                hand = hands[self._hand]
                known = len(self._actions)
                if len(hand.actions) > known:
                    fresh = hand.actions[known:]
                    self._actions += [public_action(s, a.to_json()) for s, a in fresh]
                    events.append(self._event(match, over=hand.result is not None))
            if self._hand + 1 >= len(hands):
                return events
            self._hand += 1
            hand = hands[self._hand]
            self._header = {
                "hand": self._hand,
                "dealer": hand.dealer,
                "vira": None if hand.vira is None else str(hand.vira),
                "score": list(match.score),  # before it: it has no action yet
                "games": list(match.games),
            }
            self._actions = []
            events.append(self._event(match, over=False))

    def _event(self, match: Match, *, over: bool) -> dict[str, Any]:
        self._seq += 1
        return {
            "match": self.match_id,
            "seq": self._seq,
            "at": time.time(),  # when it happened: the feed's delay and latency count from it
            **self._header,
            "actions": tuple(self._actions),
            "ended": over and match.is_over,
        }


def live_table(event: dict[str, Any], rules: Rules, seats: list[str]) -> dict[str, Any]:
    """The public table after the event (the state the replay shows the public at that
    step: :func:`arena.read.replay.table_state`), with its ``hand`` (counted from 1), the
    match's ``teams`` and whether it has ``ended``. Raises TrucoError (or KeyError,
    TypeError, ValueError) for an event that does not play."""
    match = Match(rules, seats, start_score=event["score"], start_games=event["games"])
    vira = None if event["vira"] is None else Card.parse(event["vira"])
    actions, dealt = _with_cards(event["actions"], rules, len(seats), vira)
    hand = match.deal(dealt, vira, event["dealer"])
    state = played(match, hand, actions, seats, PUBLIC, every=False)[-1]
    state["hand"] = event["hand"] + 1  # counted from 1, as the match's JSON counts hands
    state["teams"] = teams(seats)
    state["ended"] = bool(event.get("ended"))
    return state


def _with_cards(
    actions: list[dict[str, Any]], rules: Rules, n: int, vira: Card | None
) -> tuple[list[dict[str, Any]], list[list[Card]]]:
    """The actions with a stand-in card for each covered one, and a deal that holds every
    card played: those played face up, and stand-ins from the rest of the deck."""
    plays = [a for a in actions if a.get("type") == str(ActionType.PLAY)]
    faces = {Card.parse(a["card"]) for a in plays if "card" in a}
    spare = [c for c in rules.deck.cards if c not in faces and c != vira]
    dealt: list[list[Card]] = [[] for _ in range(n)]
    filled = []
    for a in actions:
        if a.get("type") == str(ActionType.PLAY):
            if "card" in a:
                card = Card.parse(a["card"])
            else:
                card = spare.pop()
                a = {**a, "card": str(card)}
            dealt[a["seat"]].append(card)
        filled.append(a)
    for cards in dealt:
        while len(cards) < 3:
            cards.append(spare.pop())
    return filled, dealt


@dataclass(frozen=True, slots=True)
class Followed:
    """What the live pages need of a match to show its events: its rules and seats, where
    it belongs, and what fair play asks (``sealed``: its duplicate twin is not played yet,
    so it is not shown live; ``delay_s``: its run's live delay)."""

    match_id: str
    rules: Rules
    seats: list[str]
    pool: str
    run_id: int | None
    twin: str | None
    sealed: bool
    delay_s: int
    status: str  # as the match's row says when it was looked up: running, finished...


def followed(store: Store, match_id: str) -> Followed | None:
    """A match as the live pages follow it; None: no such match."""
    found = store.match(match_id)
    if found is None:
        return None
    row, names = found
    sealed = row.twin is not None and match_id in store.sealed([match_id])
    delay = 0
    if row.run_id is not None:
        run = store.run(row.run_id)
        if run is not None:
            delay = int(run[0].definition.get("live_delay_s") or 0)
    return Followed(
        match_id, Rules.parse(row.rules), names, row.pool, row.run_id, row.twin, sealed, delay,
        row.status,
    )  # fmt: skip

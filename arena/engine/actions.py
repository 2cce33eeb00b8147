"""Actions and their two notations: text (``play 5C``) and the match record's JSON."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from arena.engine.cards import ALL_CARDS, Card
from arena.engine.errors import MalformedAction, quoted


class ActionType(enum.StrEnum):
    """What a seat does. The order is the order of ``legal_actions()``."""

    PLAY = "play"  # a card (open or covered), or a slot in a blind hand
    RAISE = "raise"  # ask the next step of the stake ladder
    ACCEPT = "accept"  # accept a request, or choose to play the special hand
    FOLD = "fold"  # refuse a request, refuse the special hand, or give up the hand


_TYPE_ORDER = {t: i for i, t in enumerate(ActionType)}


@dataclass(frozen=True, slots=True)
class Action:
    """One action. Build with the class methods; they return shared instances."""

    type: ActionType
    card: Card | None = None
    covered: bool = False
    slot: int | None = None
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.type, self.card, self.covered, self.slot)))

    def __hash__(self) -> int:  # computed once: the wire keeps encodings by action
        return self._hash

    @staticmethod
    def play(card: Card, covered: bool = False) -> Action:
        return (COVERED_PLAYS if covered else PLAYS)[card.index]

    @staticmethod
    def play_slot(slot: object) -> Action:  # a record's untyped value: checked here
        if not isinstance(slot, int) or isinstance(slot, bool) or not 0 <= slot <= 2:
            raise MalformedAction(f"a slot is 0, 1 or 2, not {quoted(slot)}")
        return SLOT_PLAYS[slot]

    @property
    def sort_key(self) -> tuple[int, int, int]:
        """The order of ``legal_actions()``: plays by card, covered after open, then
        raise, accept, fold."""
        if self.card is not None:
            return (_TYPE_ORDER[self.type], int(self.covered), self.card.index)
        return (_TYPE_ORDER[self.type], 0, -1 if self.slot is None else self.slot)

    @staticmethod
    def parse(text: object) -> Action:
        """Read ``play 5C``, ``play 2D covered``, ``play slot 1``, ``raise``, ``accept``,
        ``fold``."""
        words = text.split() if isinstance(text, str) else []
        if not words:
            raise MalformedAction(f"not an action: {quoted(text)}")
        kind = _type(words[0])
        rest = words[1:]
        if kind is not ActionType.PLAY:
            if rest:
                raise MalformedAction(
                    f"{kind} takes nothing after it, got {quoted(' '.join(rest))}"
                )
            return _SIMPLE[kind]
        if len(rest) == 2 and rest[0].lower() == "slot" and rest[1].isdigit():
            return Action.play_slot(int(rest[1]))
        if len(rest) == 1:
            return Action.play(Card.parse(rest[0]))
        if len(rest) == 2 and rest[1].lower() == "covered":
            return Action.play(Card.parse(rest[0]), covered=True)
        raise MalformedAction(
            f"write 'play CARD', 'play CARD covered' or 'play slot N', not {quoted(text)}"
        )

    def __str__(self) -> str:
        if self.type is not ActionType.PLAY:
            return str(self.type)
        if self.card is None:
            return f"play slot {self.slot}"
        return f"play {self.card} covered" if self.covered else f"play {self.card}"

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        """The match record's notation, without the seat."""
        out: dict[str, Any] = {"type": str(self.type)}
        if self.card is not None:
            out["card"] = str(self.card)
            if self.covered:
                out["covered"] = True
        elif self.slot is not None:
            out["slot"] = self.slot
        return out

    @staticmethod
    def from_json(data: Any) -> Action:
        """Read one action of a match record (extra keys such as ``seat`` are ignored)."""
        if not isinstance(data, dict):
            raise MalformedAction(f"an action must be an object, not {quoted(data)}")
        kind = _type(data.get("type"))
        if kind is not ActionType.PLAY:
            return _SIMPLE[kind]
        covered = data.get("covered", False)
        if not isinstance(covered, bool):
            raise MalformedAction(f"'covered' must be true or false, not {quoted(covered)}")
        if "card" in data:
            return Action.play(Card.parse(data["card"]), covered)
        if "slot" in data:
            if covered:
                raise MalformedAction("a card chosen by slot cannot be covered")
            return Action.play_slot(data["slot"])
        raise MalformedAction("a play needs a 'card' (or a 'slot' in a blind hand)")


def _type(word: Any) -> ActionType:
    try:
        return ActionType(str(word).lower())
    except ValueError:
        raise MalformedAction(
            f"unknown action type {quoted(word)}: use play, raise, accept or fold"
        ) from None


PLAYS = tuple(Action(ActionType.PLAY, c) for c in ALL_CARDS)
"""The shared ``play CARD`` actions, by ``card.index`` (what ``Action.play`` returns)."""
COVERED_PLAYS = tuple(Action(ActionType.PLAY, c, covered=True) for c in ALL_CARDS)
SLOT_PLAYS = tuple(Action(ActionType.PLAY, slot=i) for i in range(3))
RAISE = Action(ActionType.RAISE)
ACCEPT = Action(ActionType.ACCEPT)
FOLD = Action(ActionType.FOLD)
_SIMPLE = {ActionType.RAISE: RAISE, ActionType.ACCEPT: ACCEPT, ActionType.FOLD: FOLD}

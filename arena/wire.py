"""The one place that converts between engine types and protobuf messages."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from arena.engine import (
    ALL_CARDS,
    Action,
    ActionType,
    Card,
    HandKind,
    MalformedAction,
    Phase,
    Rules,
    SeenHand,
    SeenPlay,
    SeenRound,
    View,
    manilhas,
)
from arena.proto.truco.v1 import bot_pb2 as pb

PROTOCOL_VERSION = 1
_TEXT = tuple(str(c) for c in ALL_CARDS)  # card text by card.index: views are hot

_TYPE_TO_PB = {
    ActionType.PLAY: pb.ACTION_TYPE_PLAY,
    ActionType.RAISE: pb.ACTION_TYPE_RAISE,
    ActionType.ACCEPT: pb.ACTION_TYPE_ACCEPT,
    ActionType.FOLD: pb.ACTION_TYPE_FOLD,
}
_TYPE_FROM_PB = {v: k for k, v in _TYPE_TO_PB.items()}
_KIND_TO_PB = {
    HandKind.NORMAL: pb.HAND_KIND_NORMAL,
    HandKind.SPECIAL: pb.HAND_KIND_SPECIAL,
    HandKind.BOTH: pb.HAND_KIND_BOTH,
}
_KIND_FROM_PB = {v: k for k, v in _KIND_TO_PB.items()}
_PHASE_TO_PB = {
    Phase.DECIDE: pb.PHASE_DECIDE,
    Phase.PLAY: pb.PHASE_PLAY,
    Phase.ANSWER: pb.PHASE_ANSWER,
    Phase.OVER: pb.PHASE_OVER,
}
_PHASE_FROM_PB = {v: k for k, v in _PHASE_TO_PB.items()}


@lru_cache(maxsize=512)
def action_to_pb(action: Action) -> pb.Action:
    """The wire form of an action (shared: copy before changing it)."""
    msg = pb.Action(type=_TYPE_TO_PB[action.type])
    if action.card is not None:
        msg.card = str(action.card)
        msg.covered = action.covered
    elif action.slot is not None:
        msg.slot = action.slot
    return msg


def action_from_pb(msg: pb.Action) -> Action:
    """Read a bot's action; raises MalformedAction with a reason for bad input."""
    key = (msg.type, msg.card, msg.covered, msg.slot if msg.HasField("slot") else -1)
    action = _READ.get(key)
    if action is None:
        action = _read_action(msg)
        if len(_READ) < 4096:  # only well-formed actions get here: a few hundred at most
            _READ[key] = action
    return action


_READ: dict[tuple[int, str, bool, int], Action] = {}


def _read_action(msg: pb.Action) -> Action:
    kind = _TYPE_FROM_PB.get(msg.type)
    if kind is None:
        raise MalformedAction(f"unknown action type {msg.type}: use PLAY, RAISE, ACCEPT or FOLD")
    if kind is not ActionType.PLAY:
        if msg.card or msg.covered or msg.HasField("slot"):
            raise MalformedAction(f"{kind} takes no card, cover or slot")
        return Action.parse(str(kind))
    if msg.card:
        if msg.HasField("slot"):
            raise MalformedAction("give a card or a slot, not both")
        return Action.play(Card.parse(msg.card), msg.covered)
    if msg.HasField("slot"):
        if msg.covered:
            raise MalformedAction("a card chosen by slot cannot be covered")
        return Action.play_slot(msg.slot)
    raise MalformedAction("a play needs a card (or a slot in a blind hand)")


def _plays_into(target: Any, plays: tuple[SeenPlay, ...]) -> None:
    for p in plays:  # added in place: cheaper than building messages and copying them
        if p.card is None:
            target.add(seat=p.seat, covered=True)
        else:
            target.add(seat=p.seat, card=_TEXT[p.card.index])


@lru_cache(maxsize=256)
def hand_to_pb(hand: SeenHand, match_id: str = "", games: tuple[int, int] = (0, 0)) -> pb.HandEnded:
    """The wire form of a finished hand (shared: copy before changing it)."""
    msg = pb.HandEnded()
    _hand_into(msg, hand, match_id, games)
    return msg


def _hand_into(msg: pb.HandEnded, hand: SeenHand, match_id: str, games: tuple[int, int]) -> None:
    """``hand_to_pb`` written into ``msg`` in place (no message built to be copied)."""
    msg.match_id = match_id
    msg.hand_number = hand.number
    msg.points.extend(hand.points)
    msg.score.extend(hand.score)
    msg.games.extend(games)
    msg.reason = hand.reason or ""
    for r in hand.rounds:
        _plays_into(msg.rounds.add(winner=r.winner).plays, r.plays)


def hand_from_pb(msg: pb.HandEnded) -> SeenHand:
    return SeenHand(
        number=msg.hand_number,
        points=(msg.points[0], msg.points[1]),
        score=(msg.score[0], msg.score[1]),
        reason=msg.reason or None,
        rounds=tuple(_round_from_pb(r) for r in msg.rounds),
    )


def view_to_pb(view: View, msg: pb.View | None = None) -> pb.View:
    """The wire form of a view, written into ``msg`` when given (building a message in
    place saves copying it into its parent). :class:`ViewEncoder` writes the same faster."""
    if msg is None:
        msg = pb.View()
    _hand_fields(view, msg)
    msg.seat = view.seat
    msg.phase = _PHASE_TO_PB[view.phase]
    msg.cards.extend([_TEXT[c.index] for c in view.cards])
    msg.slots.extend(view.slots)
    _partners_into(msg, view.partners)
    for r in view.rounds:
        _plays_into(msg.rounds.add(winner=r.winner).plays, r.plays)
    _plays_into(msg.table, view.table)
    msg.stake = view.stake
    msg.pending = view.pending
    msg.legal.extend([action_to_pb(a) for a in view.legal])
    _optionals_into(msg, view.requester, view.raised_by, view.to_act)
    msg.refused.extend(view.refused)
    return msg


def _hand_fields(view: View, msg: pb.View) -> None:
    """The fields that stay the same for every seat through a hand."""
    msg.rules = _rules_text(view.rules)
    msg.hand_number = view.hand_number
    msg.dealer = view.dealer
    msg.kind = _KIND_TO_PB[view.kind]
    msg.blind = view.blind
    if view.vira is not None:
        msg.vira = _TEXT[view.vira.index]
    msg.score.extend(view.score)
    msg.games.extend(view.games)
    msg.seat_names.extend(view.seats)
    msg.manilhas.extend(_manilhas_text(view.rules, view.vira))
    if view.last_hand is not None:
        _hand_into(msg.last_hand, view.last_hand, "", view.games)


def _partners_into(msg: pb.View, partners: tuple[tuple[int, tuple[Card, ...]], ...]) -> None:
    for seat, cards in partners:
        msg.partners.add(seat=seat, cards=[_TEXT[c.index] for c in cards])


def _optionals_into(
    msg: pb.View, requester: int | None, raised_by: int | None, to_act: int | None
) -> None:
    if requester is not None:
        msg.requester = requester
    if raised_by is not None:
        msg.raised_by = raised_by
    if to_act is not None:
        msg.to_act = to_act


class ViewEncoder:
    """``view_to_pb`` for the views of one match, several times faster (this runs for
    every decision). What stays the same through a hand (rules, seats, dealer, vira,
    manilhas, score, the last hand) and the finished rounds are encoded once; cards,
    plays, actions and the turn's scalars come from encodings kept per value.
    ``encoded`` joins them: protobuf reads concatenated encodings as one message, so
    those bytes parse to ``view_to_pb(view)``, and ``encode`` is that message."""

    def __init__(self) -> None:
        self._hand_key: tuple[object, ...] = ()
        self._hand = b""
        self._rounds: tuple[SeenRound, ...] = ()
        self._rounds_bytes = b""

    def encode(self, view: View, msg: pb.View | None = None) -> pb.View:
        if msg is None:
            msg = pb.View()
        msg.MergeFromString(self.encoded(view))
        return msg

    def encoded(self, view: View) -> bytes:
        """The view's encoding, ready to send (:func:`decision_bytes`)."""
        key = (
            view.hand_number,
            view.rules,
            view.seats,
            view.dealer,
            view.kind,
            view.blind,
            view.vira,
            view.score,
            view.games,
            view.last_hand,
        )
        if key != self._hand_key:
            self._hand_key = key
            part = pb.View()
            _hand_fields(view, part)
            self._hand = part.SerializeToString()
        rounds = view.rounds
        if rounds is not self._rounds and rounds != self._rounds:
            part = pb.View()
            for r in rounds:
                _plays_into(part.rounds.add(winner=r.winner).plays, r.plays)
            self._rounds, self._rounds_bytes = rounds, part.SerializeToString()
        turn = (
            view.seat,
            view.phase,
            view.stake,
            view.pending,
            view.requester,
            view.raised_by,
            view.to_act,
            view.slots,
        )
        parts = [
            self._hand,
            self._rounds_bytes,
            _TURN.get(turn) or _turn_bytes(turn),
            _CARDS.get(view.cards) or _cards_bytes(view.cards),
            _LEGAL.get(view.legal) or _legal_bytes(view.legal),
        ]
        parts += [_PLAY_BYTES.get((p.seat, p.card)) or _play_bytes(p) for p in view.table]
        if view.partners:
            part = pb.View()
            _partners_into(part, view.partners)
            parts.append(part.SerializeToString())
        if view.refused:
            parts.append(pb.View(refused=view.refused).SerializeToString())
        return b"".join(parts)


def decision_bytes(
    match_id: str, request_id: int, deadline_ms: int, time_bank_ms: int, view: bytes
) -> bytes:
    """A RefereeMessage holding a DecisionRequest, encoded, from the view's encoding
    (:meth:`ViewEncoder.encoded`): it parses to the message with the same fields set."""
    mid = match_id.encode()
    request = [b"\n", _varint(len(mid)), mid, b"\x10", _varint(request_id)]
    request += (b"\x1a", _varint(len(view)), view)
    if deadline_ms:
        request += (b"\x20", _varint(deadline_ms))
    if time_bank_ms:
        request += (b"\x28", _varint(time_bank_ms))
    return referee_bytes("decision", *request)


def referee_bytes(kind: str, *parts: bytes) -> bytes:
    """A RefereeMessage encoded: its oneof's ``kind`` is the message ``parts`` encode."""
    body = b"".join(parts)
    return b"".join((_KIND_TAGS[kind], _varint(len(body)), body))


def _varint(n: int) -> bytes:
    """Protobuf's base-128 encoding of ``n`` (kept when it is two bytes: lengths, ids)."""
    encoded = _VARINTS.get(n)
    if encoded is None:
        out, rest = bytearray(), n
        while rest >= 0x80:
            out.append(rest & 0x7F | 0x80)
            rest >>= 7
        encoded = bytes((*out, rest))
        if n < 0x4000:
            _VARINTS[n] = encoded
    return encoded


_VARINTS: dict[int, bytes] = {}
_KIND_TAGS = {f.name: _varint(f.number << 3 | 2) for f in pb.RefereeMessage.DESCRIPTOR.fields}


# Encodings of View fields, by value (each table holds at most a few thousand; the hands
# and the legal actions up to a limit, past which they are encoded each time).
_CARD_BYTES = tuple(pb.View(cards=[text]).SerializeToString() for text in _TEXT)
_TURN: dict[tuple[Any, ...], bytes] = {}
_PLAY_BYTES: dict[tuple[int, Card | None], bytes] = {}
_ACTION_BYTES: dict[Action, bytes] = {}
_CARDS: dict[tuple[Card, ...], bytes] = {}
_LEGAL: dict[tuple[Action, ...], bytes] = {}
_KEPT = 50_000


def _cards_bytes(cards: tuple[Card, ...]) -> bytes:
    encoded = b"".join([_CARD_BYTES[c.index] for c in cards])
    if len(_CARDS) < _KEPT:
        _CARDS[cards] = encoded
    return encoded


def _legal_bytes(legal: tuple[Action, ...]) -> bytes:
    encoded = b"".join([_ACTION_BYTES.get(a) or _action_bytes(a) for a in legal])
    if len(_LEGAL) < _KEPT:
        _LEGAL[legal] = encoded
    return encoded


def _turn_bytes(turn: tuple[Any, ...]) -> bytes:
    seat, phase, stake, pending, requester, raised_by, to_act, slots = turn
    msg = pb.View(seat=seat, phase=_PHASE_TO_PB[phase], stake=stake, pending=pending, slots=slots)
    _optionals_into(msg, requester, raised_by, to_act)
    _TURN[turn] = encoded = msg.SerializeToString()
    return encoded


def _play_bytes(play: SeenPlay) -> bytes:
    msg = pb.View()
    _plays_into(msg.table, (play,))
    _PLAY_BYTES[(play.seat, play.card)] = encoded = msg.SerializeToString()
    return encoded


def _action_bytes(action: Action) -> bytes:
    _ACTION_BYTES[action] = encoded = pb.View(legal=[action_to_pb(action)]).SerializeToString()
    return encoded


@lru_cache(maxsize=512)
def _manilhas_text(rules: Rules, vira: Card | None) -> tuple[str, ...]:
    return tuple(str(c) for c in manilhas(rules, vira))


@lru_cache(maxsize=64)
def _rules_text(rules: Rules) -> str:
    return str(rules)


@lru_cache(maxsize=64)
def _rules(text: str) -> Rules:
    return Rules.parse(text)


def _cards(texts: object) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in texts)  # type: ignore[attr-defined]


def _play_from_pb(msg: pb.Play) -> SeenPlay:
    return (
        SeenPlay(msg.seat, None, True) if msg.covered else SeenPlay(msg.seat, Card.parse(msg.card))
    )


def _optional(msg: pb.View | pb.Round, name: str) -> int | None:
    return getattr(msg, name) if msg.HasField(name) else None


def view_from_pb(msg: pb.View) -> View:
    """The engine's View from the wire, so bots work with cards and actions, not text."""
    return View(
        seat=msg.seat,
        rules=_rules(msg.rules),
        seats=tuple(msg.seat_names),
        hand_number=msg.hand_number,
        dealer=msg.dealer,
        kind=_KIND_FROM_PB.get(msg.kind, HandKind.NORMAL),
        blind=msg.blind,
        phase=_PHASE_FROM_PB.get(msg.phase, Phase.PLAY),
        cards=_cards(msg.cards),
        slots=tuple(msg.slots),
        partners=tuple((p.seat, _cards(p.cards)) for p in msg.partners),
        vira=Card.parse(msg.vira) if msg.vira else None,
        rounds=tuple(_round_from_pb(r) for r in msg.rounds),
        table=tuple(_play_from_pb(p) for p in msg.table),
        stake=msg.stake,
        pending=msg.pending,
        requester=_optional(msg, "requester"),
        raised_by=_optional(msg, "raised_by"),
        score=(msg.score[0], msg.score[1]),
        games=(msg.games[0], msg.games[1]),
        to_act=_optional(msg, "to_act"),
        legal=tuple(action_from_pb(a) for a in msg.legal),
        last_hand=hand_from_pb(msg.last_hand) if msg.HasField("last_hand") else None,
        refused=tuple(msg.refused),
    )


def _round_from_pb(msg: pb.Round) -> SeenRound:
    return SeenRound(tuple(_play_from_pb(p) for p in msg.plays), _optional(msg, "winner"))

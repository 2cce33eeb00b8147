"""The wire conversion (arena/wire.py) loses nothing: views and actions round-trip."""

from __future__ import annotations

import random

import pytest

from arena.engine import PRESETS, Action, Card, MalformedAction, Match, Rules, manilhas, view
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.wire import (
    ViewEncoder,
    action_from_pb,
    action_to_pb,
    decision_bytes,
    view_from_pb,
    view_to_pb,
)


@pytest.mark.parametrize("rules", [*PRESETS.values(), Rules.parse("paulista:team_size=3")])
def test_every_view_of_a_match_round_trips(rules: Rules) -> None:
    for seed in range(4):
        match = Match(rules, seed=seed)
        choose = random.Random(seed)
        while not match.is_over:
            for seat in range(match.n):
                seen = view(match, seat)
                wire = pb.View.FromString(view_to_pb(seen).SerializeToString())
                assert view_from_pb(wire) == seen
                assert list(wire.manilhas) == [str(c) for c in seen.manilhas]
            match.apply(choose.choice(match.legal_actions()))


@pytest.mark.parametrize(
    "rules",
    [rules.replace(team_size=size) for rules in PRESETS.values() for size in (1, 2, 3, 4)],
    ids=str,
)
def test_the_view_encoder_writes_what_view_to_pb_writes(rules: Rules) -> None:
    """The encoder keeps a hand's fixed part and the finished rounds between calls: after
    any sequence of views, of any seat, its message equals one built afresh."""
    for seed in range(3):
        match = Match(rules, seed=seed)
        choose = random.Random(seed)
        encoder = ViewEncoder()
        while not match.is_over:
            for seat in choose.sample(range(match.n), choose.randint(1, match.n)):
                seen = view(match, seat)
                fresh = view_to_pb(seen)
                into = pb.RefereeMessage()
                encoded = encoder.encode(seen, into.decision.view)
                assert encoded == fresh
                assert pb.View.FromString(encoded.SerializeToString()) == fresh
                assert pb.View.FromString(encoder.encoded(seen)) == fresh
            match.apply(choose.choice(match.legal_actions()))
        for seat in range(match.n):  # the same hand, now over: its score and last hand moved
            assert encoder.encode(view(match, seat)) == view_to_pb(view(match, seat))


def test_every_action_round_trips() -> None:
    actions = [
        Action.play(Card.parse(t), covered)
        for t in ("4C", "10H", "3D")
        for covered in (False, True)
    ]
    actions += [Action.play_slot(i) for i in range(3)] + [
        Action.parse(w) for w in ("raise", "accept", "fold")
    ]
    for action in actions:
        assert (
            action_from_pb(pb.Action.FromString(action_to_pb(action).SerializeToString())) == action
        )


@pytest.mark.parametrize(
    "message",
    [
        pb.Action(),
        pb.Action(type=pb.ACTION_TYPE_PLAY),
        pb.Action(type=pb.ACTION_TYPE_PLAY, card="ZZ"),
        pb.Action(type=pb.ACTION_TYPE_PLAY, card="4C", slot=1),
        pb.Action(type=pb.ACTION_TYPE_PLAY, slot=7),
        pb.Action(type=pb.ACTION_TYPE_RAISE, card="4C"),
        pb.Action(type=99),
    ],
)
def test_malformed_wire_actions_are_refused_with_a_reason(message: pb.Action) -> None:
    with pytest.raises(MalformedAction):
        action_from_pb(message)


def test_the_manilhas_follow_the_vira_the_deck_and_the_system() -> None:
    def names(rules: str, vira: str | None) -> list[str]:
        return [str(c) for c in manilhas(Rules.parse(rules), vira and Card.parse(vira))]

    assert names("paulista", "4D") == ["5C", "5H", "5S", "5D"]
    assert names("paulista", "3S") == ["4C", "4H", "4S", "4D"]
    assert names("paulista", "7S") == ["QC", "QH", "QS", "QD"]
    assert names("inteligente:deck=sujo52", "7S") == ["8C", "8H", "8S", "8D"]
    assert names("tradicional:deck=short24", "3S") == ["QC", "QH", "QS", "QD"]
    assert names("inteligente:manilha=velha", None) == ["4C", "7H", "AS", "7D"]


@pytest.mark.parametrize(
    "numbers", [(1, 0, 0), (127, 128, 0), (2**40, 10_000, 300), (5, 0, 70_000)]
)
def test_an_encoded_decision_request_parses_to_the_message(numbers: tuple[int, int, int]) -> None:
    """The runner sends decision requests as bytes it joins itself (arena/wire.py): they
    parse to the message built field by field, a view of any size included."""
    request_id, deadline_ms, bank_ms = numbers
    match = Match(Rules(), ["ana", "bia"], seed=3)
    seen = view(match, match.to_act or 0)
    for match_id in ("m", "a match id longer than one hundred and twenty-seven bytes " * 3):
        built = pb.RefereeMessage()
        built.decision.match_id = match_id
        built.decision.request_id = request_id
        built.decision.deadline_ms = deadline_ms
        built.decision.time_bank_ms = bank_ms
        view_to_pb(seen, built.decision.view)
        view_bytes = ViewEncoder().encoded(seen)
        sent = decision_bytes(match_id, request_id, deadline_ms, bank_ms, view_bytes)
        assert pb.RefereeMessage.FromString(sent) == built

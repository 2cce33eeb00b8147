"""The replay explains itself: each step marks the card that won each round and the
manilhas whose face the viewer sees, tells the stake's history so far, and carries what
the referee wrote of its action (its time against its deadline, a timeout, a stand-in,
the actions refused before it, a bot's fallback). A record without those fields replays the same."""

from __future__ import annotations

import copy
from typing import Any

from arena.engine import replay
from arena.read.replay import replay_hand

# vira 4D: the 5s are the manilhas. Seat 0 wins round 1 with its manilha 5C, loses round
# 2 with QS (the weakest card: the default action at its deadline), and wins round 3
# with 3D over seat 1's covered AS.
DECIDED = [
    {"seat": 0, "type": "raise", "ms": 40, "deadline_ms": 10000},
    {"seat": 1, "type": "accept", "ms": 900, "deadline_ms": 10000, "rejected": 2},
    {"seat": 0, "type": "play", "card": "5C", "by": "stand_in"},
    {"seat": 1, "type": "play", "card": "7H", "ms": 3, "deadline_ms": 10000, "error": True},
    {"seat": 0, "type": "play", "card": "QS", "ms": 10000, "deadline_ms": 10000, "by": "timeout"},
    {"seat": 1, "type": "play", "card": "2D"},
    {"seat": 1, "type": "play", "card": "AS", "covered": True},
    {"seat": 0, "type": "play", "card": "3D"},
]


def scripted(actions: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    """A paulista record of one hand, dealt as the docs' example is, with ``actions``."""
    hand = {"dealer": 1, "vira": "4D", "cards": [["5C", "3D", "QS"], ["7H", "AS", "2D"]]}
    return {
        "format": "truco-match/1",
        "rules": "paulista",
        "seats": ["alpha", "beta"],
        **more,
        "hands": [{**hand, "actions": actions}],
    }


RECORD = scripted(DECIDED)


def bare(record: dict[str, Any]) -> dict[str, Any]:
    """The record without what the referee writes beside each action."""
    out = copy.deepcopy(record)
    for hand in out["hands"]:
        hand["actions"] = [
            {k: v for k, v in a.items() if k in ("seat", "type", "card", "covered")}
            for a in hand["actions"]
        ]
    return out


def test_each_step_carries_what_the_referee_wrote_of_its_action() -> None:
    played = replay_hand(RECORD, 0, organizer=False)
    assert played.decisions == [
        None,  # the deal
        {"ms": 40, "deadline_ms": 10000},
        {"ms": 900, "deadline_ms": 10000, "rejected": 2},
        {"by": "stand_in"},
        {"ms": 3, "deadline_ms": 10000, "error": True},
        {"ms": 10000, "deadline_ms": 10000, "by": "timeout"},
        None,
        None,
        None,
    ]
    assert len(played.decisions) == len(played.steps)
    assert played.hands[0]["number"] == 1  # a person's count


def test_a_record_with_or_without_the_referees_fields_replays_the_same() -> None:
    without = bare(RECORD)
    assert list(replay(RECORD).score) == list(replay(without).score) == [3, 0]
    for organizer in (False, True):
        assert replay_hand(RECORD, 0, organizer=organizer).steps == (
            replay_hand(without, 0, organizer=organizer).steps
        )
    assert replay_hand(without, 0, organizer=False).decisions == [None] * 9


def test_the_round_winning_card_and_the_manilhas_are_marked() -> None:
    steps = replay_hand(RECORD, 0, organizer=False).steps
    assert steps[3]["table"] == [{"seat": 0, "card": "5C", "covered": False, "manilha": True}]
    final = steps[-1]
    first, second, third = final["rounds"]
    assert [(p["card"], p["manilha"], p["won"]) for p in first["plays"]] == [
        ("5C", True, True),
        ("7H", False, False),
    ]
    assert first["winner"] == 0
    assert [(p["card"], p["won"]) for p in second["plays"]] == [("QS", False), ("2D", True)]
    # the covered card shows no face, so no mark either; the open 3D won
    assert [(p["card"], p["covered"], p["manilha"], p["won"]) for p in third["plays"]] == [
        (None, True, False, False),
        ("3D", False, False, True),
    ]


def test_a_manilha_in_hand_is_marked_only_for_whoever_sees_its_face() -> None:
    public = replay_hand(RECORD, 0, organizer=False).steps[0]
    assert all(s["held"] == [None] * 3 and s["manilhas"] == [False] * 3 for s in public["seats"])
    whole = replay_hand(RECORD, 0, organizer=True).steps[0]
    marked = {c for s in whole["seats"] for c, m in zip(s["held"], s["manilhas"], strict=True) if m}
    assert marked == {"5C"}
    own = replay_hand(RECORD, 0, organizer=False, own=(1,)).steps[0]
    assert own["seats"][0]["manilhas"] == [False] * 3 and own["seats"][1]["held"] == [
        "7H",
        "AS",
        "2D",
    ]


def test_manilha_velha_marks_its_four_fixed_cards() -> None:
    record = {
        "rules": "paulista:manilha=velha",
        "seats": ["alpha", "beta"],
        "hands": [
            {
                "dealer": 1,
                "vira": None,
                "cards": [["4C", "5D", "6S"], ["7D", "KH", "QD"]],
                "actions": [
                    {"seat": 0, "type": "play", "card": "4C"},
                    {"seat": 1, "type": "play", "card": "7D"},
                ],
            }
        ],
    }
    (round_,) = replay_hand(record, 0, organizer=False).steps[-1]["rounds"]
    assert [(p["card"], p["manilha"], p["won"]) for p in round_["plays"]] == [
        ("4C", True, True),
        ("7D", True, False),
    ]


def test_the_stakes_history_tells_each_raise_and_its_answer() -> None:
    steps = replay_hand(RECORD, 0, organizer=False).steps
    assert steps[0]["stakes"] == []
    told = [(s["bot"], s["type"], s["text"], s["step"], s["stake"]) for s in steps[-1]["stakes"]]
    assert told == [
        ("alpha", "raise", "asks for truco (3)", 1, 1),
        ("beta", "accept", "accepts: the hand is worth 3", 2, 3),
    ]
    assert steps[1]["stakes"] == steps[-1]["stakes"][:1]  # so far, at each step
    assert all(s["stakes"] == steps[-1]["stakes"] for s in steps[2:])


def test_a_refusal_and_the_choice_of_the_hand_of_eleven_are_in_the_stakes_history() -> None:
    eleven = [
        {"seat": 0, "type": "accept"},  # team 0 at 11 plays the hand
        {"seat": 0, "type": "play", "card": "QS"},
    ]
    steps = replay_hand(scripted(eleven, start_score=[11, 4]), 0, organizer=False).steps
    assert [s["text"] for s in steps[-1]["stakes"]] == ["plays the hand of 11"]
    refused = scripted([{"seat": 0, "type": "raise"}, {"seat": 1, "type": "fold"}])
    (_, refusal) = replay_hand(refused, 0, organizer=False).steps[-1]["stakes"]
    assert (refusal["bot"], refusal["text"], refusal["stake"]) == ("beta", "refuses", 1)

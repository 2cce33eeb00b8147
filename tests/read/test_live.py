"""The live feed's events against the replay: after every action of random matches of
every preset and team size, the table rebuilt from the public event alone is the very
state the replay shows the public at that step, and no event holds a card that was not
played face up by then."""

from __future__ import annotations

import json

import pytest

from arena.engine import PRESETS, Rules, to_record
from arena.read.live import live_table
from arena.read.replay import replay_hand
from arena.store.live import MAX_PAYLOAD
from tests.liveclient import random_match

CASES = [
    pytest.param(rules.replace(team_size=size), id=f"{name}-{size}x{size}")
    for name, rules in PRESETS.items()
    for size in (1, 2, 3)
] + [
    pytest.param(
        Rules.parse(
            f"{name}:team_size={size},partner_tie_lead=lower_seat,covered_after_partner=banned,"
            "raise_answer=any_accepts,stake_cap=trailing_needs"
        ),
        id=f"{name}-{size}x{size}-variants",
    )
    for name in ("paulista", "tradicional")
    for size in (2, 3)
]


def played_with_events(rules, seed):
    """A random match, and the events its PublicLog told, in order."""
    seats = [f"bot{i % 2}" if rules.team_size == 1 else f"b{i}" for i in range(rules.seats)]
    return random_match(rules, seats, seed, f"m{seed}")


@pytest.mark.parametrize("rules", CASES)
def test_every_event_redraws_the_public_replay_of_its_step(rules):
    for seed in range(6):
        match, events = played_with_events(rules, seed)
        record = to_record(match)
        seats = record["seats"]
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert events[-1]["ended"] and not any(e["ended"] for e in events[:-1])
        replays = {}
        for event in events:
            k = event["hand"]
            if k not in replays:
                replays[k] = replay_hand(record, k, organizer=False).steps
            expected = replays[k][len(event["actions"])]
            shown = live_table(event, match.rules, seats)
            assert shown.pop("hand") == k + 1  # counted from 1
            assert shown.pop("ended") == event["ended"]
            assert shown.pop("teams")
            assert shown == expected
        # every hand's every step was told
        told = {(e["hand"], len(e["actions"])) for e in events}
        for k, hand in enumerate(record["hands"]):
            assert {(k, j) for j in range(len(hand["actions"]) + 1)} <= told


@pytest.mark.parametrize("rules", CASES)
def test_an_event_holds_no_card_that_was_not_played_face_up(rules):
    match, events = played_with_events(rules, 11)
    record = to_record(match)
    for event in events:
        hand = record["hands"][event["hand"]]
        shown = [
            a["card"]
            for a in hand["actions"][: len(event["actions"])]
            if a["type"] == "play" and not a.get("covered")
        ]
        text = json.dumps(event)
        assert len(text.encode()) < MAX_PAYLOAD
        hidden = {c for cards in hand["cards"] for c in cards} - set(shown)
        for card in hidden:
            assert f'"{card}"' not in text, (card, event)


def test_a_reader_that_joins_late_redraws_from_any_one_event():
    match, events = played_with_events(PRESETS["paulista"].replace(team_size=2), 3)
    middle = events[len(events) // 2]
    alone = json.loads(json.dumps(middle))  # as the channel carries it
    assert live_table(alone, match.rules, list(match.seats))["score"] is not None

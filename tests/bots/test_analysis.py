"""The analysis of a match (arena/bots/analysis.py): a scripted hand whose best action is
known marks the losing choice, and the analysis of a seat does not change with the cards
that seat never saw."""

from __future__ import annotations

import copy
import json
import random

import pytest

from arena.bots import HeuristicBot
from arena.bots.analysis import analyse
from arena.domain.analyses import marked
from arena.engine import Match, Rules, to_record, view
from arena.errors import Invalid

# Round 1 tied (7D against 7C); seat 1 leads round 2 with KH, so whoever takes round 2
# takes the hand: seat 0's 3D wins it, its 4S loses it. Seat 0 threw the 4S.
GOLDEN = {
    "rules": "paulista",
    "seats": ["alpha", "beta"],
    "hands": [
        {
            "dealer": 0,
            "vira": "4H",
            "cards": [["7C", "3D", "4S"], ["7D", "KH", "AS"]],
            "actions": [
                {"seat": 1, "type": "play", "card": "7D"},
                {"seat": 0, "type": "play", "card": "7C"},
                {"seat": 1, "type": "play", "card": "KH"},
                {"seat": 0, "type": "play", "card": "4S"},
            ],
        }
    ],
}


def test_the_losing_card_of_a_golden_hand_is_marked():
    decisions = analyse(GOLDEN, 0, "golden", samples=32)
    last = decisions[-1]
    assert marked([d.to_json() for d in decisions]) == [len(decisions) - 1]  # its mark
    values = dict(zip(map(str, last.actions), last.values, strict=True))
    assert (last.hand, last.step, str(last.actions[last.taken])) == (0, 3, "play 4S")
    assert values["play 3D"] == 1.0  # the hand won, whatever the rest
    assert values["play 4S"] == -1.0  # the hand lost
    assert str(last.actions[last.best]) != "play 4S"
    assert last.loss >= 2.0
    other = copy.deepcopy(GOLDEN)
    other["hands"][0]["actions"][3]["card"] = "3D"
    assert analyse(other, 0, "golden", samples=32)[-1].loss < last.loss


def test_the_opponents_unseen_cards_change_nothing():
    other = copy.deepcopy(GOLDEN)
    other["hands"][0]["cards"][1][2] = "QC"  # beta's card never played: alpha never saw it
    assert analyse(other, 0, "golden", 16) == analyse(GOLDEN, 0, "golden", 16)
    assert analyse(other, 1, "golden", 16) != analyse(GOLDEN, 1, "golden", 16)


def unseen_swapped(record: dict, seat: int, rng: random.Random) -> dict:
    """The record with the cards ``seat``'s opponents never played swapped for other
    cards nobody played or saw in that hand (a heads-up match: no partner shown)."""
    out = copy.deepcopy(record)
    deck = [str(c) for c in Rules.from_json(record["rules"]).deck.cards]
    for hand in out["hands"]:
        played = {a["card"] for a in hand["actions"] if "card" in a}
        used = {c for cards in hand["cards"] for c in cards} | {hand["vira"]}
        free = [c for c in deck if c not in used]
        rng.shuffle(free)
        other = hand["cards"][1 - seat]
        for k, card in enumerate(other):
            if card not in played:
                other[k] = free.pop()
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_a_whole_match_is_analysed_the_same_whatever_the_opponent_hid(seed):
    match = Match(Rules(), ["alpha", "beta"], seed=seed)
    bots = [HeuristicBot(seed), HeuristicBot(seed + 1)]
    while not match.is_over:
        seat = match.to_act
        match.apply(bots[seat].decide(view(match, seat)))
    record = to_record(match)
    record.pop("seed")
    mine = analyse(record, 0, f"m{seed}", samples=4)
    assert mine and all(d.loss >= 0 for d in mine)
    swapped = unseen_swapped(record, 0, random.Random(seed))
    assert swapped != record
    assert analyse(swapped, 0, f"m{seed}", samples=4) == mine


def test_actions_the_bot_did_not_choose_are_not_its_decisions():
    match = Match(Rules(), ["alpha", "beta"], seed=3)
    bots = [HeuristicBot(3), HeuristicBot(4)]
    while not match.is_over:
        seat = match.to_act
        match.apply(bots[seat].decide(view(match, seat)))
    record = to_record(match)
    mine = analyse(record, 0, "m3", samples=4)
    assert len(mine) >= 2
    marked = json.loads(json.dumps(record))
    first, second = mine[0], mine[1]
    marked["hands"][first.hand]["actions"][first.step]["by"] = "timeout"
    marked["hands"][second.hand]["actions"][second.step]["by"] = "stand_in"
    assert analyse(marked, 0, "m3", samples=4) == mine[2:]


def test_a_bad_seat_or_budget_is_refused():
    with pytest.raises(Invalid, match="no seat 2"):
        analyse(GOLDEN, 2, "golden")
    with pytest.raises(Invalid, match="budget must be from 1"):
        analyse(GOLDEN, 0, "golden", samples=0)

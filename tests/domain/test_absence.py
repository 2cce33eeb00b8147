"""Who a match is credited to when a bot was away (arena/domain/absence.py), on records."""

from __future__ import annotations

from typing import Any

import pytest

from arena.domain.absence import SHARE, Credit, absent_bots, credit, is_absent
from arena.errors import Invalid


def record(winner: int, presence: dict[str, tuple[int, int]], seats: list[str]) -> dict[str, Any]:
    return {
        "seats": seats,
        "result": {"winner": winner, "score": [12, 3] if winner == 0 else [3, 12]},
        "presence": {b: {"decisions": d, "away": a} for b, (d, a) in presence.items()},
    }


def test_more_than_half_made_for_it_is_absent_half_is_not() -> None:
    assert SHARE == 0.5
    assert not is_absent(10, 5)
    assert is_absent(10, 6)
    assert not is_absent(0, 0)  # no decision of its own: nothing to be absent from
    assert is_absent(1, 1)


def test_an_absent_winner_loses_by_forfeit_whatever_the_score() -> None:
    r = record(0, {"ana": (20, 15), "bia": (20, 0)}, ["ana", "bia"])
    assert absent_bots(r) == ["ana"]
    assert credit(r) == Credit(1, (0,), ("ana",))
    assert credit(r, "play-on") == Credit(0)


def test_both_absent_nobody_gains() -> None:
    r = record(1, {"ana": (20, 19), "bia": (20, 11)}, ["ana", "bia"])
    assert credit(r) == Credit(None, (0, 1), ("ana", "bia"))


def test_one_absent_partner_forfeits_the_team() -> None:
    seats = ["ana", "bia", "caio", "dani"]  # teams: ana and caio, bia and dani
    r = record(0, {"ana": (9, 0), "bia": (9, 0), "caio": (9, 8), "dani": (9, 1)}, seats)
    assert credit(r) == Credit(1, (0,), ("caio",))


def test_a_present_loser_keeps_its_loss_and_no_presence_means_as_played() -> None:
    assert credit(record(1, {"ana": (20, 15), "bia": (20, 0)}, ["ana", "bia"])).winner == 1
    bare = {"seats": ["ana", "bia"], "result": {"winner": 0, "score": [12, 0]}}
    assert credit(bare) == Credit(0)


def test_policies_and_records_are_checked() -> None:
    with pytest.raises(Invalid, match="forfeit, play-on"):
        credit(record(0, {}, ["a", "b"]), "stand-in")
    with pytest.raises(ValueError, match="no winner"):
        credit({"seats": ["a", "b"], "result": {"winner": None}})

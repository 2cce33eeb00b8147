"""The analysis of a finished match: every decision of a seat, valued by the house Monte
Carlo bot from what that seat saw (docs/web.md, "The analysis of a match").

The record is replayed through the engine up to each decision the seat made, and the
bot values every legal action from the seat's view alone (:func:`arena.engine.view`):
its drawn states come from that view (:class:`arena.engine.Determinizer`), never from the
record's hidden cards. A value is the hand's expected score for the seat's team, in
points (what its team gains minus what the opponents gain, each capped at what the game
still needs, as the bot scores a hand: arena/bots/mc.py). The loss of a decision is the
value of the best action minus the value of the action taken.

The budget is a number of drawn states per decision, not a time: the same match and
budget give the same values on any machine. The bot's random source is seeded from
public data only (the match id, the hand, the action's index, the seat and the budget),
so two records that differ only in cards the seat never saw give the same analysis.
A decision with one legal action, a blind play where every slot is alike, and an action
the bot did not choose (the default played at its deadline, or a stand-in's while it was
away: the record's ``by``) are skipped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from arena.bots.mc import MonteCarloBot
from arena.domain.analyses import DEFAULT_SAMPLES, check_samples
from arena.engine import Action, Match, replay, view
from arena.errors import Invalid


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a seat: every legal action with its value, and the one taken."""

    hand: int  # the hand's index in the record (0 for the first)
    step: int  # the action's index in the hand's actions
    seat: int
    actions: tuple[Action, ...]  # the legal actions, in the engine's order
    values: tuple[float, ...]  # each one's expected hand score for the seat's team
    taken: int  # the index of the action taken in ``actions``

    @property
    def best(self) -> int:
        return max(range(len(self.values)), key=self.values.__getitem__)

    @property
    def loss(self) -> float:
        """What the action taken gave up against the best one, in points (0 or more)."""
        return self.values[self.best] - self.values[self.taken]

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "step": self.step,
            "seat": self.seat,
            "actions": [str(a) for a in self.actions],
            "values": [round(v, 4) for v in self.values],
            "taken": str(self.actions[self.taken]),
            "best": str(self.actions[self.best]),
            "loss": round(self.loss, 4),
        }


def analyse(
    record: dict[str, Any], seat: int, match_id: str, samples: int = DEFAULT_SAMPLES
) -> list[Decision]:
    """Every decision ``seat`` made in the match ``record`` tells, valued with ``samples``
    drawn states each (seeded from the public ``match_id`` and the decision's place)."""
    check_samples(samples)
    decisions = []
    for hand, step, before, taken in _decisions(record, seat):
        seen = view(before, seat)
        if len(seen.legal) < 2 or (seen.blind and all(a.slot is not None for a in seen.legal)):
            continue
        bot = MonteCarloBot(
            seed=public_seed(f"analysis {match_id} {hand} {step} {seat} {samples}"),
            max_samples=samples,
            clock=lambda: 0.0,  # never out of time: the samples alone bound it
        )
        values = bot.values(seen)
        decisions.append(
            Decision(hand, step, seat, seen.legal, tuple(values), seen.legal.index(taken))
        )
    return decisions


def public_seed(text: str) -> int:
    """A seed made of ``text`` alone (Python's own hash of a str changes per process)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _decisions(record: dict[str, Any], seat: int) -> Iterator[tuple[int, int, Match, Action]]:
    """(hand, step, the match just before, the action taken) for each action of
    ``seat``, the record replayed through the engine up to it (each action checked)."""
    hands = record.get("hands", [])
    seats = replay({**record, "hands": [], "result": {}}).n
    if not 0 <= seat < seats:
        raise Invalid(f"the match has no seat {seat}: it has {seats}")
    for i, hand in enumerate(hands):
        actions = hand.get("actions", [])
        for j, data in enumerate(actions):
            if data.get("seat") != seat or data.get("by"):
                continue  # another seat's, or not the bot's own choice (a timeout's default,
                # a stand-in's: the referee writes which, docs/rules.md "Match records")
            before = replay(_prefix(record, i, j))
            after = replay(_prefix(record, i, j + 1))
            yield i, j, before, after.hands[i].actions[j][1]


def _prefix(record: dict[str, Any], hand: int, steps: int) -> dict[str, Any]:
    """The record cut before action ``steps`` of hand ``hand``: no result stated."""
    hands = [{k: v for k, v in h.items() if k != "result"} for h in record["hands"][: hand + 1]]
    hands[hand]["actions"] = hands[hand].get("actions", [])[:steps]
    return {k: v for k, v in record.items() if k != "result"} | {"hands": hands}


def analysed(
    record: dict[str, Any], seat: int, match_id: str, samples: int
) -> list[dict[str, Any]]:
    """:func:`analyse`, as the store keeps it (arena/usecases/analyses.py's Analyse)."""
    return [d.to_json() for d in analyse(record, seat, match_id, samples)]

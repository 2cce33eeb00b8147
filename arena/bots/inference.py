"""How plausible a drawn state is, given what the opponents have shown by betting.

A determinized state gives the opponents random cards, but their bets say something:
a team that raised, accepted our raise or chose to play the hand of 11 (10) tends to
hold a good hand. Search weighs each drawn state by how likely such an opponent would
have bet as it did with the cards drawn for it, judged by its chance to take the hand
now. The likelihoods are soft, so a bluff or a loose accept keeps some weight; with no
bet to read every state weighs 1.
"""

from __future__ import annotations

import math

from arena.bots.rollout import seat_chance
from arena.engine import HandKind, Match, Phase, View

FLOOR = 0.05  # the least likelihood of a bet, for bluffs and loose calls
SPREAD = 0.08  # how sharply the likelihood rises around its midpoint
RAISED = 0.6  # a team that raised is taken to have about this chance or more
ACCEPTED = 0.4  # likewise a team that accepted a raise
PLAYED_SPECIAL = 0.4  # likewise a team that chose to play the hand of 11 (10)


def bets_read(view: View) -> list[float]:
    """The chance midpoints the opponents' bets in this hand suggest (one per bet)."""
    team, other = view.team, 1 - view.team
    read = []
    if view.raised_by == other:
        read.append(RAISED)
    elif view.raised_by == team and view.stake > 1:
        read.append(ACCEPTED)
    at = [s >= view.rules.special_at for s in view.score]
    opponents_chose = view.kind is HandKind.SPECIAL and at[other] and not at[team]
    if opponents_chose and view.phase is not Phase.DECIDE:
        read.append(PLAYED_SPECIAL)
    return read


def plausibility(world: Match, view: View, read: list[float]) -> float:
    """The weight of a drawn state: how well its opponents' cards fit their bets."""
    if not read:
        return 1.0
    hand = world.hand
    if hand is None:
        raise ValueError("the drawn state has no hand")
    other = 1 - view.team
    best = max(seat_chance(world, hand, s) for s in range(other, world.n, 2))
    weight = 1.0
    for midpoint in read:
        fit = 1.0 / (1.0 + math.exp(-(best - midpoint) / SPREAD))
        weight *= FLOOR + (1.0 - FLOOR) * fit
    return weight

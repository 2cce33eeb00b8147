"""The Monte Carlo house bot: determinize, try every action, play the hand out.

For each decision it repeatedly draws a complete state that agrees with its view
(:func:`arena.engine.determinize.determinize`), applies each legal action to a copy,
finishes the hand with the fast rollout policy (:mod:`arena.bots.rollout`) and scores
the hand for its team. It plays the action with the best average. Every action is tried
on the same drawn states, so their differences are not blurred by the deal, and each
state counts as much as it fits the opponents' bets (:mod:`arena.bots.inference`).

The score of a hand is the points its team gains minus the points the opponents gain,
each capped at what the game still needs (points past 12 win nothing), so the special
hand, folds and penalties are weighed by the match situation.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable

from arena.bots.inference import bets_read, plausibility
from arena.bots.rollout import finish_hand
from arena.engine import Action, Determinizer, Match, View
from arena.errors import Invalid

log = logging.getLogger(__name__)

DEFAULT_BUDGET_MS = 30


class MonteCarloBot:
    """Determinized Monte Carlo search over the rest of the hand.

    ``budget_ms`` is the thinking time per decision: no new drawn state is started when
    the last ones suggest it would not finish in time (the first always runs).
    ``max_samples``, when set, also stops after that many drawn states. ``clock`` is
    the time it thinks by, in seconds (tests give it one that moves as they say).
    """

    name = "mc"

    def __init__(
        self,
        seed: int | None = None,
        budget_ms: int = DEFAULT_BUDGET_MS,
        max_samples: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if budget_ms <= 0:
            raise Invalid(f"budget_ms must be positive, not {budget_ms}")
        self.rng = random.Random(seed)
        self.budget_ms = budget_ms
        self.max_samples = max_samples
        self.clock = clock

    def decide(self, view: View) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.seat} is not asked to act")
        if len(legal) == 1:
            return legal[0]
        if view.blind and all(a.slot is not None for a in legal):
            return self.rng.choice(legal)  # its own cards unseen, every slot is alike
        totals = self.evaluate(view)
        return legal[max(range(len(legal)), key=totals.__getitem__)]

    def evaluate(self, view: View) -> list[float]:
        """Each legal action's hand score summed over the drawn states, each state
        weighed by how well it fits the opponents' bets."""
        return self.search(view)[0]

    def values(self, view: View) -> list[float]:
        """Each legal action's expected hand score: the weighted mean over the drawn
        states (what the analysis of a match reports, arena/bots/analysis.py)."""
        totals, weight = self.search(view)
        return [t / weight for t in totals]

    def search(self, view: View) -> tuple[list[float], float]:
        """The weighted sums of :meth:`evaluate`, and the sum of the weights."""
        start = self.clock()
        deadline = start + self.budget_ms / 1000
        totals = [0.0] * len(view.legal)
        samples = 0
        weights = 0.0
        slowest = 0.0
        read = bets_read(view)
        states = Determinizer(view)
        while True:
            began = self.clock()
            world = states.draw(self.rng)
            weight = plausibility(world, view, read)
            weights += weight
            for i, action in enumerate(view.legal):
                trial = world.clone()
                trial.apply(action)
                totals[i] += weight * self.hand_score(trial, view)
            samples += 1
            now = self.clock()
            slowest = max(slowest, now - began)
            if now + slowest > deadline:
                break
            if self.max_samples is not None and samples >= self.max_samples:
                break
        log.debug("mc: %d samples in %.1f ms", samples, (self.clock() - start) * 1000)
        return totals, weights

    def hand_score(self, match: Match, view: View) -> float:
        """Finish the hand and score it for the view's team: points gained minus points
        conceded, each capped at what the game still needs."""
        result = finish_hand(match, self.rng)
        cap = view.rules.score_cap
        gains = [min(cap, view.score[t] + result.points[t]) - view.score[t] for t in (0, 1)]
        return float(gains[view.team] - gains[1 - view.team])

"""The random house bot: every legal action equally likely."""

from __future__ import annotations

import random

from arena.engine import Action, View


class UniformBot:
    """Chooses uniformly among ``view.legal``, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def decide(self, view: View) -> Action:
        return self.rng.choice(view.legal)

"""The house bots: ``random``, ``heuristic`` and ``mc``, all plain Python on the engine.

``house_bot("mc", seed=1)`` makes one; every bot answers ``decide(view) -> Action``
with one of ``view.legal``.
"""

from __future__ import annotations

from collections.abc import Callable

from arena.bots.base import Bot
from arena.bots.heuristic import HeuristicBot
from arena.bots.mc import MonteCarloBot
from arena.bots.uniform import UniformBot
from arena.errors import Invalid

HOUSE_BOTS: dict[str, Callable[..., Bot]] = {
    "random": UniformBot,
    "heuristic": HeuristicBot,
    "mc": MonteCarloBot,
}
"""Every house bot by name; each takes ``seed`` (and ``mc`` also ``budget_ms``)."""


def house_bot(name: str, seed: int | None = None, **settings: object) -> Bot:
    """A new house bot by name, with its own seeded random generator."""
    try:
        make = HOUSE_BOTS[name]
    except KeyError:
        known = ", ".join(HOUSE_BOTS)
        raise Invalid(f"unknown house bot {name!r}: choose one of {known}") from None
    return make(seed=seed, **settings)


__all__ = ["HOUSE_BOTS", "Bot", "HeuristicBot", "MonteCarloBot", "UniformBot", "house_bot"]

"""A complete truco bot: it plays a random legal action.

Run it against a local referee with
    arena match --bot "python examples/random_bot.py" --bot house:heuristic
or point it at any arena with ARENA_ADDRESS and ARENA_TOKEN set (ARENA_ADDRESS may list
the nodes of an arena of several referees, separated by commas).
"""

import random

from arena.engine import Action, View
from arena.sdk import run


class RandomBot:
    name = "example-random"
    version = "1.0"
    concurrency = 4  # matches it is happy to play at once

    def decide(self, view: View) -> Action:
        # view.cards, view.vira, view.table, view.stake, view.score... are all there;
        # view.legal lists every action allowed now
        return random.choice(view.legal)


if __name__ == "__main__":
    run(RandomBot())

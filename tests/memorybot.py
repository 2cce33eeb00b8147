"""A bot with a memory, for tests/system/test_fairness.py: it plays at random, remembers the
cards it was dealt in every hand of every match, and guesses that in each hand its
opponent holds what it held itself in the same hand of its previous match (true of the
second match of a duplicate pair, where the seats are exchanged over the same deals).

Run as ``python tests/memorybot.py GUESSES_FILE`` with ARENA_ADDRESS and ARENA_TOKEN set.
After each match it writes one JSON line to GUESSES_FILE: the match id and, per hand, the
cards it held and its guess (None before it has a previous match).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.engine import Action, View
from arena.sdk import run


class Memory:
    name = "memory"
    concurrency = 1  # one match at a time: "the previous match" is well defined

    def __init__(self, out: Path) -> None:
        self.out = out
        self.previous: dict[int, list[str]] = {}
        self.current: dict[int, list[str]] = {}
        self.choose = random.Random()

    def decide(self, view: View) -> Action:
        # its first decision of a hand, before it has played: the three cards dealt to it
        if len(view.cards) == 3 and view.hand_number not in self.current:
            self.current[view.hand_number] = sorted(str(c) for c in view.cards)
        return self.choose.choice(view.legal)

    def on_match_end(self, match_id: str, ended: Any) -> None:
        hands = [
            {"hand": h, "mine": mine, "guess": self.previous.get(h)}
            for h, mine in sorted(self.current.items())
        ]
        with self.out.open("a") as f:
            f.write(json.dumps({"match_id": match_id, "hands": hands}) + "\n")
        self.previous, self.current = self.current, {}


if __name__ == "__main__":
    run(Memory(Path(sys.argv[1])))

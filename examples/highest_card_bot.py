"""A bot with a plan: accept every request, never raise, play its strongest card.

arena match --bot "python examples/highest_card_bot.py" --bot house:random --games 20
"""

from arena.engine import ACCEPT, Action, ActionType, View, strength_table
from arena.sdk import run


class HighestCardBot:
    name = "highest-card"

    def decide(self, view: View) -> Action:
        if ACCEPT in view.legal:
            return ACCEPT
        plays = [a for a in view.legal if a.type is ActionType.PLAY and not a.covered]
        if view.blind or not plays:
            return plays[0] if plays else view.legal[0]
        strength = strength_table(view.rules.deck, view.rules.manilha, view.vira)
        return max(plays, key=lambda a: strength[a.card.index] if a.card else -1)


if __name__ == "__main__":
    run(HighestCardBot())

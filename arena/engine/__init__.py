"""The rules of truco: pure, standard library only, deterministic given the deal.

Start with :class:`Match` (the state machine), :class:`Rules` (parameters and presets),
:func:`view` (what one seat may see) and :func:`replay` / :func:`to_record` (match
records).
"""

from arena.engine.actions import ACCEPT, FOLD, RAISE, Action, ActionType
from arena.engine.cards import ALL_CARDS, Card, Deck, Manilha, Rank, Suit, strength_table
from arena.engine.errors import IllegalAction, MalformedAction, RecordError, RulesError, TrucoError
from arena.engine.match import HandKind, HandResult, Match, Outcome, Phase, Termination
from arena.engine.record import FORMAT, disagreements, next_step, replay, to_record
from arena.engine.rules import LADDER, PRESETS, Rules
from arena.engine.view import SeenPlay, SeenRound, View, view

__all__ = [
    "ACCEPT", "ALL_CARDS", "FOLD", "FORMAT", "LADDER", "PRESETS", "RAISE", "Action",
    "ActionType", "Card", "Deck", "HandKind", "HandResult", "IllegalAction",
    "MalformedAction", "Manilha", "Match", "Outcome", "Phase", "Rank", "RecordError",
    "Rules", "RulesError", "SeenPlay", "SeenRound", "Suit", "Termination", "TrucoError",
    "View", "disagreements", "next_step", "replay", "strength_table", "to_record", "view",
]  # fmt: skip

"""The rules of truco: pure, standard library only, deterministic given the deal.

Start with :class:`Match` (the state machine), :class:`Rules` (parameters and presets),
:func:`view` (what one seat may see) and :func:`replay` / :func:`to_record` (match
records).
"""

from arena.engine.actions import ACCEPT, FOLD, RAISE, Action, ActionType
from arena.engine.cards import ALL_CARDS, Card, Deck, Manilha, Rank, Suit, strength_table
from arena.engine.errors import IllegalAction, MalformedAction, RecordError, RulesError, TrucoError
from arena.engine.match import Hand, HandKind, HandResult, Match, Outcome, Phase, Termination
from arena.engine.record import FORMAT, disagreements, next_step, public_record, replay, to_record
from arena.engine.rules import LADDER, PRESETS, Rules
from arena.engine.view import ORGANIZER, PUBLIC, Observer, SeenPlay, SeenRound, View, view

__all__ = [
    "ACCEPT", "ALL_CARDS", "FOLD", "FORMAT", "LADDER", "ORGANIZER", "PRESETS", "PUBLIC",
    "RAISE", "Action", "ActionType", "Card", "Deck", "Hand", "HandKind", "HandResult",
    "IllegalAction", "MalformedAction", "Manilha", "Match", "Observer", "Outcome", "Phase",
    "Rank", "RecordError", "Rules", "RulesError", "SeenPlay", "SeenRound", "Suit",
    "Termination", "TrucoError", "View", "disagreements", "next_step", "public_record",
    "replay", "strength_table", "to_record", "view",
]  # fmt: skip

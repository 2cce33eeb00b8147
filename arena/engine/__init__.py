"""The rules of truco: pure, standard library only, deterministic given the deal.

Start with :class:`Match` (the state machine), :class:`Rules` (parameters and presets),
:func:`view` (what one seat may see) and :func:`replay` / :func:`to_record` (match
records).
"""

from arena.engine.actions import ACCEPT, FOLD, RAISE, Action, ActionType
from arena.engine.cards import ALL_CARDS, COVERED, Card, Deck, Manilha, Rank, Suit, strength_table
from arena.engine.determinize import Determinizer, unseen_cards
from arena.engine.errors import (
    IllegalAction,
    MalformedAction,
    RecordError,
    RulesError,
    TrucoError,
    quoted,
)
from arena.engine.match import Hand, HandKind, HandResult, Match, Outcome, Phase, Termination
from arena.engine.record import (
    FORMAT,
    disagreements,
    next_step,
    public_record,
    replay,
    replayed_record,
    to_record,
)
from arena.engine.rules import LADDER, PRESET_NAMES, PRESETS, Rules
from arena.engine.sources import NOTES, SOURCES, SUMMARIES
from arena.engine.view import (
    ORGANIZER,
    PUBLIC,
    Observer,
    SeenHand,
    SeenPlay,
    SeenRound,
    View,
    manilhas,
    seen_hand,
    view,
)

__all__ = [
    "ACCEPT",
    "ALL_CARDS",
    "COVERED",
    "FOLD",
    "FORMAT",
    "LADDER",
    "NOTES",
    "ORGANIZER",
    "PRESETS",
    "PRESET_NAMES",
    "PUBLIC",
    "RAISE",
    "SOURCES",
    "SUMMARIES",
    "Action",
    "ActionType",
    "Card",
    "Deck",
    "Determinizer",
    "Hand",
    "HandKind",
    "HandResult",
    "IllegalAction",
    "MalformedAction",
    "Manilha",
    "Match",
    "Observer",
    "Outcome",
    "Phase",
    "Rank",
    "RecordError",
    "Rules",
    "RulesError",
    "SeenHand",
    "SeenPlay",
    "SeenRound",
    "Suit",
    "Termination",
    "TrucoError",
    "View",
    "disagreements",
    "manilhas",
    "next_step",
    "public_record",
    "quoted",
    "replay",
    "replayed_record",
    "seen_hand",
    "strength_table",
    "to_record",
    "unseen_cards",
    "view",
]  # fmt: skip

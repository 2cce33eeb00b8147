"""The rules of truco: pure, standard library only, deterministic given the deal.

Start with :class:`Match` (the state machine), :class:`Rules` (parameters and presets),
:func:`view` (what one seat may see) and :func:`replay` / :func:`to_record` (match
records).

The engine is plain Python. ``make native`` (``python -m arena.native``) also compiles it
with mypyc into ``build/native``; those modules are then imported instead, as long as
they were compiled from these very sources (else a warning says so and the plain ones
serve) and ``ARENA_ENGINE`` is not ``pure``. Both play the same matches: a test holds
their records equal.
"""

import hashlib
import json
import os
import sys
import warnings
from pathlib import Path

NATIVE = Path(
    os.environ.get("ARENA_ENGINE_NATIVE")
    or Path(__file__).resolve().parents[2] / "build" / "native"
)
"""Where ``make native`` puts the compiled engine (``arena/engine/*.so``, its library);
``ARENA_ENGINE_NATIVE`` names another place."""
NATIVE_SOURCES = "sources.json"  # beside the compiled modules: the digests they came from


def source_digests(names: list[str]) -> dict[str, str]:
    """The SHA-256 of each named module's source, here."""
    here = Path(__file__).parent
    return {n: hashlib.sha256((here / f"{n}.py").read_bytes()).hexdigest() for n in names}


def _prefer_native() -> bool:
    """Put the compiled modules first on this package's path when they are current."""
    folder = NATIVE / "arena" / "engine"
    if os.environ.get("ARENA_ENGINE") == "pure" or not (folder / NATIVE_SOURCES).exists():
        return False
    built = json.loads((folder / NATIVE_SOURCES).read_text())
    if built != source_digests(list(built)):
        warnings.warn(
            f"{folder} was compiled from other sources: the plain engine serves "
            "(make native compiles it again)",
            stacklevel=2,
        )
        return False
    __path__.insert(0, str(folder))
    sys.path.append(str(NATIVE))  # the compiled modules' shared library
    return True


COMPILED = _prefer_native()
"""Whether the engine's modules are the mypyc-compiled ones."""

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

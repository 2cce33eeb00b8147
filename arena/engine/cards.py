"""Cards, decks and card strength.

A card is written rank then suit (``4C``, ``10H``). Ranks go weakest to strongest in
the order of :class:`Rank`; suits only matter between manilhas, where :class:`Suit`
gives their order (diamonds weakest, clubs, the "zap", strongest).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cache

from arena.engine.errors import MalformedAction, quoted


class Rank(enum.IntEnum):
    """Plain ranks, weakest first."""

    FOUR = 0
    FIVE = 1
    SIX = 2
    SEVEN = 3
    EIGHT = 4
    NINE = 5
    TEN = 6
    QUEEN = 7
    JACK = 8
    KING = 9
    ACE = 10
    TWO = 11
    THREE = 12

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self]


class Suit(enum.IntEnum):
    """Suits in manilha order, weakest first."""

    DIAMONDS = 0  # ouros
    SPADES = 1  # espadas
    HEARTS = 2  # copas
    CLUBS = 3  # paus

    @property
    def symbol(self) -> str:
        return "DSHC"[self]


_RANK_SYMBOLS = ("4", "5", "6", "7", "8", "9", "10", "Q", "J", "K", "A", "2", "3")
_RANK_BY_SYMBOL = {s: Rank(i) for i, s in enumerate(_RANK_SYMBOLS)}
_SUIT_BY_SYMBOL = {s.symbol: s for s in Suit}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card. ``Card.parse("4C")`` and ``str(card)`` round-trip."""

    rank: Rank
    suit: Suit
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", self.rank * 4 + self.suit)

    def __hash__(self) -> int:  # equal cards have equal indexes; cheaper than the fields
        return self.index

    @staticmethod
    def parse(text: object) -> Card:
        """Read ``4C``, ``10h``, ``qs``: rank then suit, any case (MalformedAction for
        anything else, text or not)."""
        if not isinstance(text, str):
            raise MalformedAction(f"a card must be text like '4C', not {quoted(text)}")
        card = _CARD_BY_TEXT.get(text.strip().upper())
        if card is None:
            raise MalformedAction(
                f"{quoted(text)} is not a card: write the rank (4 5 6 7 8 9 10 Q J K A 2 3) "
                "then the suit (C H S D), like '4C' or '10H'"
            )
        return card

    def __str__(self) -> str:
        return _RANK_SYMBOLS[self.rank] + "DSHC"[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


ALL_CARDS: tuple[Card, ...] = tuple(Card(r, s) for r in Rank for s in Suit)
"""Every card, indexed by ``card.index``."""

_CARD_BY_TEXT = {str(c): c for c in ALL_CARDS}


class Deck(enum.StrEnum):
    """Which ranks are in play."""

    STD40 = "std40"  # no 8 9 10
    SUJO52 = "sujo52"  # with 8 9 10
    SHORT24 = "short24"  # also no 4 5 6 7

    @property
    def ranks(self) -> tuple[Rank, ...]:
        return _DECK_RANKS[self]

    @property
    def cards(self) -> tuple[Card, ...]:
        return _deck_cards(self)


_NO_8_9_10 = tuple(r for r in Rank if r not in (Rank.EIGHT, Rank.NINE, Rank.TEN))
_DECK_RANKS = {
    Deck.STD40: _NO_8_9_10,
    Deck.SUJO52: tuple(Rank),
    Deck.SHORT24: tuple(r for r in _NO_8_9_10 if r >= Rank.QUEEN),
}


@cache
def _deck_cards(deck: Deck) -> tuple[Card, ...]:
    return tuple(c for c in ALL_CARDS if c.rank in deck.ranks)


class Manilha(enum.StrEnum):
    """How the manilhas are chosen."""

    NOVA = "nova"  # the rank after the vira, wrapping from 3 to the deck's lowest
    VELHA = "velha"  # always 4C > 7H > AS > 7D, no vira


VELHA_MANILHAS: tuple[Card, ...] = tuple(Card.parse(t) for t in ("7D", "AS", "7H", "4C"))
"""The fixed manilhas of manilha velha, weakest first."""

COVERED = -1
"""The strength of a covered card: below every open card."""
_MANILHA_BASE = 100


def manilha_rank(vira: Card, deck: Deck) -> Rank:
    """The manilha rank for a vira: the next rank of the deck, 3 wrapping around."""
    ranks = deck.ranks
    return ranks[(ranks.index(vira.rank) + 1) % len(ranks)]


@cache
def strength_table(deck: Deck, manilha: Manilha, vira: Card | None) -> tuple[int, ...]:
    """Strength of every card (by ``card.index``) for one hand: higher wins.

    Plain cards score their rank, so equal ranks tie; manilhas score above every
    plain card and differ by suit.
    """
    if manilha is Manilha.VELHA:
        special = {c.index: _MANILHA_BASE + i for i, c in enumerate(VELHA_MANILHAS)}
    else:
        if vira is None:
            raise ValueError("manilha nova needs a vira")
        top = manilha_rank(vira, deck)
        special = {Card(top, s).index: _MANILHA_BASE + s for s in Suit}
    return tuple(special.get(c.index, c.rank) for c in ALL_CARDS)

"""The rule parameters, the five presets, and reading them from text.

``Rules`` holds every parameter with the default of the ``paulista`` preset.
``Rules.preset("tradicional")`` returns a named preset and
``Rules.parse("paulista:team_size=2,deck=sujo52")`` applies overrides to one.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from dataclasses import dataclass
from typing import Any

from arena.engine.cards import Deck, Manilha
from arena.engine.errors import RulesError, quoted


class LeadAfterTie(enum.StrEnum):
    LEADER = "leader"  # the seat that led the tied round leads again
    TOP = "top"  # the first seat that played one of the tied top cards


class PartnerTopTie(enum.StrEnum):
    TEAM = "team"  # top cards tied between partners: their team wins the round
    TIE = "tie"  # the round is tied as if the cards were of different teams


class PartnerTieLead(enum.StrEnum):
    FIRST_TO_PLAY = "first_to_play"  # partners' tied top cards: the first of them leads next
    LOWER_SEAT = "lower_seat"  # the lower-numbered of their seats leads next


class AllTied(enum.StrEnum):
    NOBODY = "nobody"  # nobody scores; the deal passes on
    REPLAY = "replay"  # nobody scores; the same dealer deals again
    SUIT = "suit"  # the strongest suit among the top cards of round 3 wins
    FIRST_LEADER = "first_leader"  # the team of the seat that led round 1
    DEALER_OPPONENT = "dealer_opponent"  # the team opposite the dealer


class Covered(enum.StrEnum):
    OFF = "off"
    FROM_ROUND2 = "from_round2"  # rounds 2 and 3, any position
    NOT_FIRST = "not_first"  # any round, but never as the round's first card


class CoveredAfterPartner(enum.StrEnum):
    ALLOWED = "allowed"
    BANNED = "banned"  # no covered card in a round where a partner already played covered


class SpecialRaise(enum.StrEnum):
    ILLEGAL = "illegal"  # raising is not an action in the special hand
    FORFEIT_MATCH = "forfeit_match"  # whoever raises, the opponents win the game
    FORFEIT_SPLIT = "forfeit_split"  # the special team loses the hand (+3 to the others);
    # the other team raising gives the special team the game


class BothAtSpecial(enum.StrEnum):
    BLIND = "blind"  # nobody sees their own cards: each play chooses a slot
    OPEN = "open"


class RaiseAnswer(enum.StrEnum):
    ONE_SEAT = "one_seat"  # the opponent after the requester answers for the team
    ANY_ACCEPTS = "any_accepts"  # each seat of the team is asked in turn until one accepts


class StakeCap(enum.StrEnum):
    NONE = "none"
    TRAILING_NEEDS = "trailing_needs"  # no raise past what the trailing team needs to win,
    # rounded up to a multiple of 3


LADDER = (1, 3, 6, 9, 12)
"""The stake ladder: truco, seis, nove, doze."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule parameter (see docs/rules.md); defaults are the ``paulista`` preset."""

    name: str = "paulista"
    team_size: int = 1
    deck: Deck = Deck.STD40
    manilha: Manilha = Manilha.NOVA
    lead_after_tie: LeadAfterTie = LeadAfterTie.LEADER
    partner_top_tie: PartnerTopTie = PartnerTopTie.TEAM
    partner_tie_lead: PartnerTieLead = PartnerTieLead.FIRST_TO_PLAY
    all_tied: AllTied = AllTied.NOBODY
    covered: Covered = Covered.FROM_ROUND2
    covered_after_partner: CoveredAfterPartner = CoveredAfterPartner.ALLOWED
    fold_hand: bool = True
    special_at: int = 11
    special_partner_view: bool = True
    special_raise: SpecialRaise = SpecialRaise.ILLEGAL
    both_at_special: BothAtSpecial = BothAtSpecial.BLIND
    both_at_special_value: int = 1
    raise_answer: RaiseAnswer = RaiseAnswer.ONE_SEAT
    stake_cap: StakeCap = StakeCap.NONE
    games_per_match: int = 1
    score_cap: int = 12
    _hash: int = dataclasses.field(default=0, init=False, repr=False, compare=False)

    def __hash__(self) -> int:  # computed once: rules key caches on hot paths
        return self._hash

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            if f.compare:
                object.__setattr__(self, f.name, _checked(f.name, getattr(self, f.name)))
        self._check()
        values = tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare)
        object.__setattr__(self, "_hash", hash(values))

    def _check(self) -> None:
        if self.name not in PRESET_NAMES:
            raise RulesError(f"unknown preset {quoted(self.name)}: choose one of {_names()}")
        if not 1 <= self.team_size <= 4:
            raise RulesError(
                f"team_size must be 1 to 4 (2 to 8 seats), not {quoted(self.team_size)}"
            )
        if self.special_at not in (10, 11):
            raise RulesError(f"special_at must be 10 or 11, not {quoted(self.special_at)}")
        if self.both_at_special_value not in (1, 3):
            raise RulesError(
                f"both_at_special_value must be 1 or 3, not {quoted(self.both_at_special_value)}"
            )
        if self.games_per_match not in (1, 3, 5, 7):
            raise RulesError(
                f"games_per_match must be an odd number up to 7, not {quoted(self.games_per_match)}"
            )
        if self.score_cap != 12:
            raise RulesError(f"score_cap is 12 in every rule system, not {quoted(self.score_cap)}")
        needed = 6 * self.team_size + (self.manilha is Manilha.NOVA)
        if needed > len(self.deck.cards):
            raise RulesError(
                f"deck {self.deck} has {len(self.deck.cards)} cards, too few for "
                f"{2 * self.team_size} seats of 3 cards" + (" and a vira" if needed % 3 else "")
            )
        if self.manilha is Manilha.VELHA and self.deck is Deck.SHORT24:
            raise RulesError("manilha velha needs the 4 and the 7s, which deck short24 lacks")

    @property
    def seats(self) -> int:
        return 2 * self.team_size

    @property
    def games_to_win(self) -> int:
        return self.games_per_match // 2 + 1

    @staticmethod
    def preset(name: str) -> Rules:
        """The named preset (``paulista``, ``inteligente``, ``solver``, ...)."""
        try:
            return PRESETS[name.strip().lower()]
        except KeyError:
            raise RulesError(f"unknown preset {quoted(name)}: choose one of {_names()}") from None

    @staticmethod
    def parse(text: str) -> Rules:
        """``PRESET[:param=value,...]``, e.g. ``paulista:team_size=2,deck=sujo52``. Each
        text is read once (rules are immutable): planning a run, playing and recording
        its matches all ask for the same few."""
        return _parse(text)

    def replace(self, **changes: Any) -> Rules:
        """A copy with some parameters changed; values may be given as text."""
        typed = {}
        for key, value in changes.items():
            if key not in _FIELD_TYPES or key == "name":
                raise RulesError(f"unknown rule parameter {quoted(key)}: known are {_params()}")
            typed[key] = _from_text(key, value) if isinstance(value, str) else _checked(key, value)
        return dataclasses.replace(self, **typed)  # checked first: compiled, Rules takes
        # only values of its fields' types (TypeError, where RulesError says what is wrong)

    @staticmethod
    def from_json(data: Any) -> Rules:
        """A record's ``rules``: a preset name, or an object with ``preset`` and overrides."""
        if isinstance(data, str):
            return Rules.parse(data)
        if isinstance(data, dict):
            rest = {k: v for k, v in data.items() if k != "preset"}
            return Rules.preset(str(data.get("preset", "paulista"))).replace(**rest)
        raise RulesError(f"rules must be a preset name or an object, not {quoted(data)}")

    def to_json(self) -> dict[str, Any]:
        """The preset and every parameter that differs from it."""
        base = PRESETS[self.name]
        out: dict[str, Any] = {"preset": self.name}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.compare and f.name != "name" and value != getattr(base, f.name):
                out[f.name] = str(value) if isinstance(value, enum.Enum) else value
        return out

    def __str__(self) -> str:
        extra = [f"{k}={str(v).lower()}" for k, v in self.to_json().items() if k != "preset"]
        return self.name + (":" + ",".join(extra) if extra else "")

    def parameter_texts(self) -> dict[str, str]:
        """Every parameter as the text ``Rules.parse`` reads (``true``, ``std40``, ``11``)."""
        return {
            k: str(v).lower() if isinstance(v, bool) else str(v)
            for k, v in self.parameters().items()
        }

    def parameters(self) -> dict[str, Any]:
        """Every parameter (not the preset name) as plain values."""
        return {
            f.name: str(v) if isinstance(v := getattr(self, f.name), enum.Enum) else v
            for f in dataclasses.fields(self)
            if f.name not in ("name", "_hash")
        }


_FIELD_TYPES: dict[str, type] = {
    "name": str,
    "team_size": int,
    "deck": Deck,
    "manilha": Manilha,
    "lead_after_tie": LeadAfterTie,
    "partner_top_tie": PartnerTopTie,
    "partner_tie_lead": PartnerTieLead,
    "all_tied": AllTied,
    "covered": Covered,
    "covered_after_partner": CoveredAfterPartner,
    "fold_hand": bool,
    "special_at": int,
    "special_partner_view": bool,
    "special_raise": SpecialRaise,
    "both_at_special": BothAtSpecial,
    "both_at_special_value": int,
    "raise_answer": RaiseAnswer,
    "stake_cap": StakeCap,
    "games_per_match": int,
    "score_cap": int,
}


def _checked(name: str, value: Any) -> Any:
    """A parameter's value (an enum's given by its value); RulesError for the wrong type."""
    kind = _FIELD_TYPES[name]
    if issubclass(kind, enum.Enum):
        return _coerce(name, kind, value)
    if kind is bool and not isinstance(value, bool):
        raise RulesError(f"{name} must be true or false, not {quoted(value)}")
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise RulesError(f"{name} must be a whole number, not {quoted(value)}")
    return value


def _coerce(name: str, kind: type, value: Any) -> Any:
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(str(m.value) for m in kind)  # type: ignore[attr-defined]
        raise RulesError(f"{name} must be one of {choices}; {quoted(value)} is not") from None


@functools.lru_cache(maxsize=256)
def _parse(text: str) -> Rules:
    name, _, overrides = text.partition(":")
    rules = Rules.preset(name or "paulista")
    changes: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in overrides.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise RulesError(f"write overrides as param=value, not {quoted(item)}")
        changes[key.strip()] = value.strip()
    return rules.replace(**changes)


def _from_text(name: str, text: str) -> Any:
    kind = _FIELD_TYPES[name]
    if kind is bool:
        word = text.lower()
        if word in ("yes", "true", "on", "1"):
            return True
        if word in ("no", "false", "off", "0"):
            return False
        raise RulesError(f"{name} must be true or false, not {quoted(text)}")
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise RulesError(f"{name} must be a whole number, not {quoted(text)}") from None
    return _coerce(name, kind, text.lower())


PRESET_NAMES = ("paulista", "inteligente", "solver", "tradicional", "megajogos")


def _names() -> str:
    return ", ".join(PRESET_NAMES)


def _params() -> str:
    return ", ".join(k for k in _FIELD_TYPES if k != "name")


PRESETS: dict[str, Rules] = {}
PRESETS["paulista"] = Rules()
PRESETS["inteligente"] = Rules(
    name="inteligente",
    all_tied=AllTied.REPLAY,
    covered=Covered.NOT_FIRST,
    fold_hand=False,
)
PRESETS["solver"] = Rules(
    name="solver",
    all_tied=AllTied.FIRST_LEADER,
    both_at_special=BothAtSpecial.OPEN,
    both_at_special_value=3,
)
PRESETS["tradicional"] = Rules(
    name="tradicional",
    team_size=2,
    all_tied=AllTied.DEALER_OPPONENT,
    covered=Covered.OFF,
    fold_hand=False,
    special_at=10,
    special_raise=SpecialRaise.FORFEIT_SPLIT,
    both_at_special=BothAtSpecial.OPEN,
    both_at_special_value=3,
    games_per_match=3,
)
PRESETS["megajogos"] = Rules(
    name="megajogos",
    team_size=2,
    fold_hand=False,
    special_partner_view=False,
    special_raise=SpecialRaise.FORFEIT_MATCH,
    both_at_special_value=3,
)

"""Tournaments without I/O: definitions, who plays whom with which deals, and the
standings of a set of results (their cron schedules are :mod:`arena.domain.schedule`'s).

A run's matches are planned from its definition, its participants, its seed and the
arena's secret deal key alone, so planning again gives the same matches with the same ids
and seeds (a retried task adds nothing). Each pairing plays ``matches`` matches per leg,
every second one with the seats moved on by one (which exchanges the teams' seats).

Every match's seed is a keyed hash of the arena's secret and what names its deals
(:func:`deal_seed`): knowing a run's seed, or every seed ever shown, tells nothing about
any other deal. With duplicate deals the two matches of each pair share one seed, so
every deal of the first match comes again in the second (its **twin**) with the bots'
places exchanged: each bot gets the cards its opponent had. That removes most of the luck
of the cards, but a bot that remembers its cards would know its opponent's whole hand in
the twin, so a run's deals are duplicated only where no bot can remember
(:func:`deal_mode`): every bot hosted (the arena runs each match in a fresh process), or
the organizer's word (``trusted``) that none keeps memory from one match to the next. A
fixed seed, which repeats deals from run to run, needs that word too: a new version could
be written for the deals it has seen.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, fields
from typing import Any

from arena.domain.absence import DEFAULT_POLICY, check_policy
from arena.domain.clock import DEFAULT_CLOCK, TimeControl
from arena.domain.identity import is_version
from arena.domain.pools import parse_pool
from arena.domain.schedule import check_schedule
from arena.domain.standings import DEFAULT_TIEBREAKS as STANDARD_TIEBREAKS
from arena.domain.standings import parse_tiebreaks
from arena.engine import Rules, quoted
from arena.errors import MAX_ID, Invalid, parse_id

FORMATS = ("round-robin", "double-round-robin", "gauntlet", "groups", "knockout", "swiss")
STAGED = ("knockout", "swiss")
"""The formats played a round at a time, each round paired once the one before is over."""
DEALS = {
    "secret": "secret, each match its own",
    "duplicate-hosted": "duplicate pairs, seats exchanged: every bot is hosted, a fresh "
    "process per match, so none remembers its cards",
    "duplicate-trusted": "duplicate pairs, seats exchanged: the organizer trusts the bots "
    "to keep no memory from one match to the next",
    "fixed-trusted": "the deals of a fixed seed, the same every run (bots trusted)",
}
"""What deals a run's matches get (:func:`deal_mode`), in words."""
MAX_CLOSE_S = 30 * 86400
MAX_LIVE_DELAY_S = 3600  # a live view lags at most an hour behind play
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_TIEBREAKS = {
    "swiss": ("buchholz", "sonneborn-berger", "head-to-head"),
    "knockout": ("hand-points",),
}
"""The tiebreaks of a format that declares none (the others': STANDARD_TIEBREAKS)."""
UNTRUSTED = "{what}: declare the bots trusted only if none keeps memory from one match to the next"


def deal_seed(key: bytes, *names: object) -> int:
    """The seed of a match's deals: a keyed hash (HMAC-SHA256) of the arena's secret deal
    key and what names the deals (a match id; a run's seed and the pair's place). Without
    the key nobody can compute it, whatever else they know; 62 bits, a PostgreSQL bigint."""
    message = "/".join(str(n) for n in names).encode()
    return int.from_bytes(hmac.new(key, message, hashlib.sha256).digest()[:8], "big") >> 2


def seatings(rules: Rules, bots: Sequence[str], games: int) -> list[list[str]]:
    """Who sits where in each match: one bot per team (it plays all the team's seats) or
    one per seat; every second match moves everyone one seat on, which swaps teams."""
    n = rules.seats
    if len(bots) == 2:
        first = [bots[s % 2] for s in range(n)]
    elif len(bots) == n:
        first = list(bots)
    else:
        raise Invalid(f"{rules} has {n} seats: give 2 bots (one per team) or {n} (one per seat)")
    return [first if k % 2 == 0 else first[-1:] + first[:-1] for k in range(games)]


@dataclass(frozen=True, slots=True)
class Definition:
    """What a tournament plays. ``bots`` lists the participants; with ``pool`` instead,
    every active bot rated in that pool when a run starts takes part."""

    name: str
    rules: str = "paulista"
    bots: tuple[str, ...] = ()
    pool: str | None = None
    format: str = "round-robin"
    challenger: str | None = None  # gauntlet: the bot that meets every other
    matches: int = 2  # per pairing and leg, seats swapped every second match
    duplicate: bool = False  # the two matches of a pair on the same deals (trusted only)
    clock: TimeControl = DEFAULT_CLOCK  # stored as its three fields, beside the others
    seed: int | None = None  # None: each run draws its own; set: the same deals every run
    schedule: str | None = None  # cron, five fields, UTC
    trusted: bool = False  # the organizer says no bot remembers a match in the next one
    absent: str = DEFAULT_POLICY  # what absence does to a result (arena/domain/absence.py)
    rated: bool = True  # False: an unrated event, its matches recorded and tabled only
    # entries close this many seconds before a run: it plays the versions that were active
    # then (later ones play in the next run); None: those active when it starts
    entries_close_s: int | None = None
    groups: int | None = None  # groups: how many (a round robin in each, seeded by snake)
    rounds: int | None = None  # swiss: how many; None: log2 of the field, rounded up
    tiebreaks: tuple[str, ...] = ()  # in order, after match points; (): the format's own
    # a later stage: the field is the top ``top`` of this run's final table (a run id, or
    # a tournament's name: its latest finished run), seeded in its order
    seed_from: str | None = None
    top: int | None = None  # the best ``top`` of the field by its seeding, the rest out
    live_delay_s: int = 0  # its matches' live views lag this far behind play (docs/web.md)

    def __post_init__(self) -> None:
        if not NAME.match(self.name):
            raise Invalid(
                f"{self.name!r} is not a tournament name: use 1 to 64 letters, digits, "
                "'.', '_' or '-', starting with a letter or digit"
            )
        Rules.parse(self.rules)
        if self.pool is not None:
            parse_pool(self.pool)
        if self.format not in FORMATS:
            raise Invalid(f"format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        sources = [bool(self.bots), bool(self.pool), self.seed_from is not None]
        if sum(sources) != 1:
            raise Invalid(
                "give the participants as a list of bots, as a pool, or as a stage seeded "
                "from another run (seed_from)"
            )
        self._check_format()
        if len(set(self.bots)) != len(self.bots):
            raise Invalid("a bot is listed twice")
        if self.format == "gauntlet":
            if not self.challenger:
                raise Invalid("a gauntlet needs a challenger")
            if self.bots and self.challenger not in self.bots:
                raise Invalid(f"the challenger {self.challenger!r} is not a participant")
            if not NAME.match(self.challenger):
                raise Invalid(f"the challenger {quoted(self.challenger)} is not a bot name")
        elif self.challenger:
            raise Invalid("only a gauntlet has a challenger")
        if self.bots and len(self.bots) < 2:
            raise Invalid("a tournament needs at least two bots")
        if not 1 <= self.matches <= 1000:
            raise Invalid(f"matches per pairing must be from 1 to 1000, not {self.matches}")
        if self.duplicate and self.matches % 2:
            raise Invalid("duplicate deals come in pairs of matches: give an even number")
        if self.seed is not None and not 0 <= self.seed <= MAX_ID:
            raise Invalid(f"a seed is a whole number from 0 to {MAX_ID}, not {self.seed}")
        if self.seed is not None and not self.trusted:
            what = "a fixed seed would deal every run the cards of the last (a new version "
            raise Invalid(UNTRUSTED.format(what=what + "could be written for them)"))
        if self.schedule is not None:
            check_schedule(self.schedule)
        check_policy(self.absent)
        if self.entries_close_s is not None and not 0 <= self.entries_close_s <= MAX_CLOSE_S:
            raise Invalid(
                f"entries close 0 to {MAX_CLOSE_S // 86400} days before a run, "
                f"not {self.entries_close_s} s"
            )
        if not 0 <= self.live_delay_s <= MAX_LIVE_DELAY_S:
            raise Invalid(f"a live delay is 0 to {MAX_LIVE_DELAY_S} s, not {self.live_delay_s} s")

    def _check_format(self) -> None:
        """What only some formats take, and its ranges."""
        for name, only, low, high in (("groups", "groups", 2, 64), ("rounds", "swiss", 1, 64),
                                      ("top", None, 2, 1024)):  # fmt: skip
            value = getattr(self, name)
            if value is None:
                if name == "groups" and self.format == "groups":
                    raise Invalid("a groups format needs the number of groups (groups)")
                continue
            if only is not None and self.format != only:
                raise Invalid(f"only the {only} format takes {name}")
            if not low <= value <= high:
                raise Invalid(f"{name} must be from {low} to {high}, not {value}")
        parse_tiebreaks(self.tiebreaks)
        if self.seed_from is not None and not (
            parse_id(self.seed_from) is not None or NAME.match(self.seed_from)
        ):
            raise Invalid(
                f"seed_from names a run by its id or a tournament by its name, "
                f"not {quoted(self.seed_from)}"
            )

    @property
    def order(self) -> tuple[str, ...]:
        """The tiebreaks that order its table, declared or the format's own."""
        return self.tiebreaks or DEFAULT_TIEBREAKS.get(self.format, STANDARD_TIEBREAKS)

    def to_json(self) -> dict[str, Any]:
        """The stored form: every field, the clock's three among them."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "clock"}
        out["bots"] = list(self.bots)
        out["tiebreaks"] = list(self.tiebreaks)
        return out | self.clock.to_json()

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Definition:
        clock_fields = DEFAULT_CLOCK.to_json().keys()
        unknown = set(data) - STORED_DEFAULTS.keys()
        if unknown:
            raise Invalid(f"unknown fields in a tournament definition: {sorted(unknown)}")
        rest = {k: v for k, v in data.items() if k not in clock_fields}
        clock = TimeControl.from_json(data)  # its own fields, beside the others
        return Definition(
            **{**rest, "bots": tuple(data.get("bots", ())),
               "tiebreaks": tuple(data.get("tiebreaks") or ()), "clock": clock}
        )  # fmt: skip


STORED_DEFAULTS: dict[str, Any] = {
    f.name: None if f.default is MISSING else f.default
    for f in fields(Definition)
    if f.name != "clock"
} | DEFAULT_CLOCK.to_json()
"""Every field of a definition's stored form (``to_json``), with its default."""


def deal_mode(definition: Definition, seated: Mapping[str, str]) -> str:
    """The deals (one of :data:`DEALS`) a run of ``definition`` gets, its participants
    ``seated`` as who plays for each (a hosted version, NAME@N, or the bot itself, which
    dials in). Duplicate deals come by themselves when every bot is hosted (and the
    matches per pairing are even); asked for (``duplicate``), they need that or the
    organizer's trust, and Invalid names the bots that dial in."""
    hosted = bool(seated) and all(is_version(s) for s in seated.values())
    if definition.duplicate:
        if hosted:
            return "duplicate-hosted"
        if definition.trusted:
            return "duplicate-trusted"
        dial_in = sorted(b for b, s in seated.items() if not is_version(s))
        listed = ", ".join(map(quoted, dial_in))
        raise Invalid(
            UNTRUSTED.format(
                what=f"duplicate deals need every bot hosted (a fresh process per match): "
                f"{listed} {'dials' if len(dial_in) == 1 else 'dial'} in and could remember "
                "its cards for the twin match"
            )
        )
    if definition.seed is not None:
        return "fixed-trusted"
    if hosted and definition.matches % 2 == 0:
        return "duplicate-hosted"
    return "secret"


@dataclass(frozen=True, slots=True)
class Planned:
    """One match of a run: its number in the run, the pairing, the seats, the seed, and
    its twin's number when its deals are duplicated."""

    number: int
    pairing: tuple[str, str]
    seats: list[str]
    seed: int
    twin: int | None = None


def seeded(participants: Sequence[str], seeds: Sequence[str] = ()) -> list[str]:
    """The participants in seed order: those ``seeds`` lists, as it lists them, then the
    rest by name."""
    named = set(participants)
    first = [s for s in dict.fromkeys(seeds) if s in named]
    return first + sorted(named - set(first))


def groups_of(field: Sequence[str], count: int) -> list[list[str]]:
    """The field (in seed order) split into ``count`` groups by snake seeding: seeds 1 to
    K one to each group, the next K back from the last group to the first, and so on."""
    groups: list[list[str]] = [[] for _ in range(count)]
    for i, bot in enumerate(field):
        lap, place = divmod(i, count)
        groups[place if lap % 2 == 0 else count - 1 - place].append(bot)
    return groups


def pairings(
    definition: Definition, participants: Sequence[str], seeds: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """Who meets whom in a format played all at once: all against all (in each group),
    or the challenger against each other bot."""
    players = sorted(participants)
    if definition.format == "gauntlet":
        champion = definition.challenger
        if champion not in players:
            raise Invalid(f"the challenger {champion!r} is not among the participants")
        pairs = [(champion, p) for p in players if p != champion]
    elif definition.format == "groups":
        count = definition.groups or 2
        if len(players) < 2 * count:
            raise Invalid(f"{count} groups need at least {2 * count} bots, not {len(players)}")
        field = seeded(players, seeds)
        pairs = [p for g in groups_of(field, count) for p in itertools.combinations(sorted(g), 2)]
    else:
        pairs = list(itertools.combinations(players, 2))
    if not pairs:
        raise Invalid("a tournament needs at least two participants")
    return pairs


def plan(
    definition: Definition,
    participants: Sequence[str],
    seed: int,
    key: bytes,
    deals: str | None = None,
    seeds: Sequence[str] = (),
) -> list[Planned]:
    """Every match of a run played all at once, in a fixed order, its deals keyed by the
    arena's ``key``; ``deals`` (:func:`deal_mode`; None: as the definition asks) says
    whether each pair of matches shares them; ``seeds`` order the field into groups."""
    rules = Rules.parse(definition.rules)
    legs = 2 if definition.format == "double-round-robin" else 1
    per_pair = definition.matches
    duplicate = definition.duplicate if deals is None else deals.startswith("duplicate")
    out: list[Planned] = []
    for p, (a, b) in enumerate(pairings(definition, participants, seeds)):
        for leg in range(legs):
            order = [a, b] if leg == 0 else [b, a]
            for k, seats in enumerate(seatings(rules, order, per_pair)):
                deal = k // 2 if duplicate else k
                match_seed = deal_seed(key, seed, p, leg, deal)
                number = len(out) + 1
                twin = (number + 1 if k % 2 == 0 else number - 1) if duplicate else None
                out.append(Planned(number, (a, b), seats, match_seed, twin))
    return out

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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from arena.domain.absence import DEFAULT_POLICY, check_policy
from arena.domain.clock import DEFAULT_CLOCK, TimeControl
from arena.domain.identity import is_version
from arena.domain.matches import NewMatch, run_match_id
from arena.domain.pools import parse_pool
from arena.domain.rating import bradley_terry, win_counts
from arena.domain.schedule import check_schedule
from arena.engine import Rules, quoted
from arena.errors import MAX_ID, Invalid

FORMATS = ("round-robin", "double-round-robin", "gauntlet")
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
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
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
        if bool(self.bots) == bool(self.pool):
            raise Invalid("give the participants either as a list of bots or as a pool")
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

    def to_json(self) -> dict[str, Any]:
        """The stored form: every field, the clock's three among them."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "clock"}
        out["bots"] = list(self.bots)
        return out | self.clock.to_json()

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Definition:
        clock_fields = DEFAULT_CLOCK.to_json().keys()
        unknown = set(data) - STORED_DEFAULTS.keys()
        if unknown:
            raise Invalid(f"unknown fields in a tournament definition: {sorted(unknown)}")
        rest = {k: v for k, v in data.items() if k not in clock_fields}
        clock = TimeControl.from_json(data)  # its own fields, beside the others
        return Definition(**{**rest, "bots": tuple(data.get("bots", ())), "clock": clock})


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


def pairings(definition: Definition, participants: Sequence[str]) -> list[tuple[str, str]]:
    players = sorted(participants)
    if definition.format == "gauntlet":
        champion = definition.challenger
        if champion not in players:
            raise Invalid(f"the challenger {champion!r} is not among the participants")
        pairs = [(champion, p) for p in players if p != champion]
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
) -> list[Planned]:
    """Every match of a run, in a fixed order, its deals keyed by the arena's ``key``;
    ``deals`` (:func:`deal_mode`; None: as the definition asks) says whether each pair of
    matches shares them."""
    rules = Rules.parse(definition.rules)
    legs = 2 if definition.format == "double-round-robin" else 1
    per_pair = definition.matches
    duplicate = definition.duplicate if deals is None else deals.startswith("duplicate")
    out: list[Planned] = []
    for p, (a, b) in enumerate(pairings(definition, participants)):
        for leg in range(legs):
            order = [a, b] if leg == 0 else [b, a]
            for k, seats in enumerate(seatings(rules, order, per_pair)):
                deal = k // 2 if duplicate else k
                match_seed = deal_seed(key, seed, p, leg, deal)
                number = len(out) + 1
                twin = (number + 1 if k % 2 == 0 else number - 1) if duplicate else None
                out.append(Planned(number, (a, b), seats, match_seed, twin))
    return out


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A run's matches to make, its participants as its records and table name them (who
    plays for each: a hosted version, NAME@N, or the bot), and its deals (:data:`DEALS`)."""

    matches: list[NewMatch]
    participants: list[str]
    deals: str


def plan_run(
    run_id: int,
    definition: Definition,
    playing: Mapping[str, tuple[int, str]],
    seed: int,
    key: bytes,
) -> RunPlan:
    """Every match of run ``run_id`` of ``definition`` among the bots ``playing`` (for
    each, the bot row and name of who plays for it), its deals keyed by the arena's
    ``key``. ValueError says why the run cannot be played (too few bots, unfair deals)."""
    deals = deal_mode(definition, {name: seat for name, (_, seat) in playing.items()})
    rules = Rules.parse(definition.rules)
    matches = [
        NewMatch(
            run_match_id(run_id, m.number),
            rules,
            tuple(playing[bot][0] for bot in m.seats),
            m.seed,
            definition.clock,
            rated=definition.rated,
            absent=definition.absent,
            twin=None if m.twin is None else run_match_id(run_id, m.twin),
            run_id=run_id,
        )
        for m in plan(definition, sorted(playing), seed, key, deals)
    ]
    return RunPlan(matches, sorted(seat for _, seat in playing.values()), deals)


# ---- standings ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    """A finished match as the standings see it: ``winner`` is the team credited with it
    (None: both teams forfeited), ``forfeits`` the teams that lost it by forfeit."""

    match_id: str
    seats: Sequence[str]
    winner: int | None
    points: tuple[int, int]  # hand points won by each team
    faults: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    forfeits: Sequence[int] = ()


def hand_points(record: Mapping[str, Any]) -> tuple[int, int]:
    """The points each team won in the hands of a match record."""
    won = [0, 0]
    for hand in record.get("hands", []):
        for t, p in enumerate(hand.get("result", {}).get("points", [0, 0])):
            won[t] += p
    return won[0], won[1]


def _row(bot: str) -> dict[str, Any]:
    return {"bot": bot, "played": 0, "wins": 0, "losses": 0, "forfeits": 0, "points": 0,
            "hand_points": 0, "hand_points_against": 0, "faults": {}}  # fmt: skip


def standings(participants: Iterable[str], results: Iterable[Result]) -> dict[str, Any]:
    """The table of a run: one row per bot, best first (match points: one per match won;
    then the run's performance; then hand points won minus lost), with its
    **performance**: the Bradley-Terry fit of this run's results alone, on the Elo scale,
    with its 95% interval (apart from the pool's rating, arena/domain/poolfit.py, which counts
    every rated result of the pool), the likelihood that a bot is stronger than the one below it
    (``los_next``), and the crosstable (``crosstable[a][b]`` is a's wins and losses
    against b). A match is counted as credited: a team that forfeited lost it
    (``forfeits`` counts those losses), and when both did, both lost."""
    rows = {bot: _row(bot) for bot in participants}
    cross: dict[str, dict[str, list[int]]] = {bot: {} for bot in rows}
    pairs: list[tuple[str, str]] = []
    for r in results:
        teams = [list(dict.fromkeys(r.seats[t::2])) for t in (0, 1)]
        for t, team in enumerate(teams):
            won = int(t == r.winner)
            for bot in team:
                row = rows.setdefault(bot, _row(bot))
                row["played"] += 1
                row["wins"] += won
                row["losses"] += 1 - won
                row["forfeits"] += int(t in r.forfeits)
                row["points"] += won
                row["hand_points"] += r.points[t]
                row["hand_points_against"] += r.points[1 - t]
                for other in teams[1 - t]:
                    cross.setdefault(bot, {}).setdefault(other, [0, 0])[1 - won] += 1
        if r.winner is not None:
            pairs += [(w, loser) for w in teams[r.winner] for loser in teams[1 - r.winner]]
        for bot, counts in r.faults.items():
            if bot in rows:
                mine = rows[bot]["faults"]
                for key, value in counts.items():
                    mine[key] = mine.get(key, 0) + value
    fit = None
    if pairs:
        try:
            fit = bradley_terry(win_counts(pairs))
        except ValueError:  # groups that never met: no common scale
            fit = None
    rated = {r.player: r for r in fit.ratings} if fit else {}
    for bot, row in rows.items():
        fitted = rated.get(bot)
        row["performance"] = None if fitted is None else round(fitted.elo, 1)
        row["performance_low"] = None if fitted is None else round(fitted.low, 1)
        row["performance_high"] = None if fitted is None else round(fitted.high, 1)
    table = sorted(
        rows.values(),
        key=lambda r: (
            -r["points"],
            -r["performance"] if r["performance"] is not None else 0.0,
            r["hand_points_against"] - r["hand_points"],
            r["bot"],
        ),
    )
    for i, row in enumerate(table):
        row["rank"] = i + 1
        below = table[i + 1]["bot"] if i + 1 < len(table) else None
        both = fit is not None and below in rated and row["bot"] in rated
        row["los_next"] = round(fit.los(row["bot"], below), 4) if both and fit and below else None
    return {"table": table, "crosstable": cross}

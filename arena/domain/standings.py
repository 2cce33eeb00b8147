"""A run's table without I/O: each bot's line from the run's results, and the order of
the lines, by a primary key (match points; a knockout's round reached) and then by the
tiebreaks its definition declares (docs/formats.md).

Every reader of a run (its page, the Arena API, the final table written as it ends, the
audit, the exports) makes the table through :func:`standings`, so one order is applied by
all of them. Tiebreaks are applied in turn to the bots still level; bots level on every
one are ordered by their seed, then by name: never by chance.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby
from typing import Any

from arena.domain.rating import bradley_terry, win_counts
from arena.errors import Invalid

TIEBREAKS = {
    "performance": "the run's performance: a Bradley-Terry fit of its results alone",
    "hand-points": "hand points won minus hand points lost",
    "head-to-head": "match points won in the matches among the bots still level",
    "buchholz": "the sum of the opponents' scores, once per match played",
    "sonneborn-berger": "the sum of the beaten opponents' scores, once per match won",
    "seed": "the better seed",
}
"""Every tiebreak a definition may declare, in words."""


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


@dataclass(frozen=True, slots=True)
class Game:
    """A match of a run as its formats read it: who sits where, its status, its round
    (a knockout's or a Swiss's; None in the other formats) and, once it counts (finished
    and not voided), its result; ``sealed`` while its duplicate twin is to be played."""

    match_id: str
    seats: tuple[str, ...]
    status: str  # scheduled, running, finished, failed, cancelled
    round: int | None = None
    result: Result | None = None
    sealed: bool = False

    @property
    def teams(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The bots of each team, each once."""
        return team_of(self.seats, 0), team_of(self.seats, 1)

    @property
    def done(self) -> bool:
        """Nothing of it is left to play (finished, failed or cancelled)."""
        return self.status not in ("scheduled", "running")


def team_of(seats: Sequence[str], team: int) -> tuple[str, ...]:
    return tuple(dict.fromkeys(seats[team::2]))


def public(games: Iterable[Game]) -> list[Game]:
    """The games as anyone but the organizer may see them: a sealed twin's result
    withheld (its deals say something of the cards its twin, still to play, is dealt)."""
    return [replace(g, result=None) if g.sealed else g for g in games]


def results(games: Iterable[Game]) -> list[Result]:
    """The results that count, of the games given."""
    return [g.result for g in games if g.result is not None]


def hand_points(record: Mapping[str, Any]) -> tuple[int, int]:
    """The points each team won in the hands of a match record."""
    won = [0, 0]
    for hand in record.get("hands", []):
        for t, p in enumerate(hand.get("result", {}).get("points", [0, 0])):
            won[t] += p
    return won[0], won[1]


def parse_tiebreaks(names: Iterable[str]) -> tuple[str, ...]:
    """Declared tiebreaks, checked: each one of :data:`TIEBREAKS`, none twice."""
    out = tuple(n.strip() for n in names if n.strip())
    for name in out:
        if name not in TIEBREAKS:
            raise Invalid(f"{name!r} is not a tiebreak: use {', '.join(TIEBREAKS)}")
    if len(set(out)) != len(out):
        raise Invalid("a tiebreak is declared twice")
    return out


def _row(bot: str) -> dict[str, Any]:
    return {"bot": bot, "played": 0, "wins": 0, "losses": 0, "forfeits": 0, "points": 0,
            "byes": 0, "hand_points": 0, "hand_points_against": 0, "faults": {}}  # fmt: skip


@dataclass
class _Tally:
    """What the lines and the tiebreaks are made of."""

    rows: dict[str, dict[str, Any]]
    cross: dict[str, dict[str, list[int]]]
    met: list[tuple[str, tuple[str, ...], bool]]  # (bot, its opponents, whether it won)


def _tally(
    participants: Iterable[str], results: Iterable[Result], byes: Mapping[str, int], bye_points: int
) -> _Tally:
    rows = {bot: _row(bot) for bot in participants}
    cross: dict[str, dict[str, list[int]]] = {bot: {} for bot in rows}
    met: list[tuple[str, tuple[str, ...], bool]] = []
    for r in results:
        teams = team_of(r.seats, 0), team_of(r.seats, 1)
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
                met.append((bot, teams[1 - t], bool(won)))
        for bot, counts in r.faults.items():
            if bot in rows:
                mine = rows[bot]["faults"]
                for key, value in counts.items():
                    mine[key] = mine.get(key, 0) + value
    for bot, n in byes.items():
        row = rows.setdefault(bot, _row(bot))
        row["byes"] += n
        row["points"] += n * bye_points
    return _Tally(rows, cross, met)


def _opponent_scores(tally: _Tally) -> None:
    """Each line's Buchholz and Sonneborn-Berger: per match, the mean score of the
    opponents (one bot, unless a team seats several)."""
    for row in tally.rows.values():
        row["buchholz"] = row["sonneborn_berger"] = 0.0
    for bot, opponents, won in tally.met:
        score = sum(tally.rows[o]["points"] for o in opponents) / len(opponents)
        tally.rows[bot]["buchholz"] += score
        tally.rows[bot]["sonneborn_berger"] += score if won else 0.0
    for row in tally.rows.values():
        row["buchholz"] = round(row["buchholz"], 2)
        row["sonneborn_berger"] = round(row["sonneborn_berger"], 2)


def _performance(tally: _Tally, results: Sequence[Result]) -> Any:
    pairs = []
    for r in results:
        if r.winner is not None:
            teams = team_of(r.seats, 0), team_of(r.seats, 1)
            pairs += [(w, lost) for w in teams[r.winner] for lost in teams[1 - r.winner]]
    fit = None
    if pairs:
        try:
            fit = bradley_terry(win_counts(pairs))
        except ValueError:  # groups that never met: no common scale
            fit = None
    rated = {r.player: r for r in fit.ratings} if fit else {}
    for bot, row in tally.rows.items():
        fitted = rated.get(bot)
        row["performance"] = None if fitted is None else round(fitted.elo, 1)
        row["performance_low"] = None if fitted is None else round(fitted.low, 1)
        row["performance_high"] = None if fitted is None else round(fitted.high, 1)
    return fit, rated


Line = dict[str, Any]


def order(
    lines: Sequence[Line],
    tiebreaks: Sequence[str],
    cross: Mapping[str, Mapping[str, Sequence[int]]],
    seeds: Sequence[str] = (),
    first: Callable[[Line], Any] = lambda line: -line["points"],
) -> list[Line]:
    """The lines best first: by ``first`` (lower first; default: more match points), then
    each tiebreak in turn among the lines still level, then the seed, then the name."""
    place = {bot: i for i, bot in enumerate(seeds)}

    def last(line: Line) -> tuple[int, str]:
        return place.get(line["bot"], len(place)), line["bot"]

    def value(name: str, line: Line, level: Sequence[Line]) -> float:
        if name == "performance":  # unfitted: as 0, below any fitted one
            return line["performance"] if line["performance"] is not None else 0.0
        if name == "hand-points":
            return float(line["hand_points"] - line["hand_points_against"])
        if name == "head-to-head":
            against = cross.get(line["bot"], {})
            return float(sum(against.get(o["bot"], (0, 0))[0] for o in level))
        if name == "seed":
            return -float(last(line)[0])
        return float(line[name.replace("-", "_")])

    def split(level: list[Line], breaks: Sequence[str]) -> list[Line]:
        if len(level) <= 1 or not breaks:
            return sorted(level, key=last)
        values = {line["bot"]: value(breaks[0], line, level) for line in level}
        out: list[Line] = []
        ranked = sorted(level, key=lambda line: -values[line["bot"]])
        for _, same in groupby(ranked, key=lambda line: values[line["bot"]]):
            out += split(list(same), breaks[1:])
        return out

    out: list[Line] = []
    for _, same in groupby(sorted(lines, key=first), key=first):
        out += split(list(same), tiebreaks)
    return out


@dataclass(frozen=True, slots=True)
class Table:
    """A run's lines, unordered, and what orders them."""

    lines: dict[str, Line]
    cross: dict[str, dict[str, list[int]]]
    fit: Any
    rated: dict[str, Any]


def tally(
    participants: Iterable[str],
    results: Iterable[Result],
    byes: Mapping[str, int] | None = None,
    bye_points: int = 0,
) -> Table:
    """Every bot's line of a run: match points (one per match won, and ``bye_points`` per
    round it had a bye), wins and losses (forfeits among them), hand points, faults, its
    performance with its 95% interval, Buchholz and Sonneborn-Berger; and the crosstable
    (``cross[a][b]``: a's wins and losses against b). A match counts as credited: a team
    that forfeited lost it, and when both did, both lost."""
    counted = list(results)
    t = _tally(participants, counted, byes or {}, bye_points)
    _opponent_scores(t)
    fit, rated = _performance(t, counted)
    return Table(t.rows, t.cross, fit, rated)


def ranked(table: Table, ordered_lines: Sequence[Line]) -> list[Line]:
    """The lines as ordered, each with its rank and the likelihood that it is stronger
    than the line below it (``los_next``)."""
    out = list(ordered_lines)
    for i, row in enumerate(out):
        row["rank"] = i + 1
        below = out[i + 1]["bot"] if i + 1 < len(out) else None
        both = table.fit is not None and below in table.rated and row["bot"] in table.rated
        row["los_next"] = round(table.fit.los(row["bot"], below), 4) if both and below else None
    return out


DEFAULT_TIEBREAKS = ("performance", "hand-points")


def standings(
    participants: Iterable[str],
    results: Iterable[Result],
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    seeds: Sequence[str] = (),
) -> dict[str, Any]:
    """The table of a run played all against all: one line per bot (:func:`tally`), best
    first by match points, then ``tiebreaks``, then the seed; and the crosstable."""
    table = tally(participants, results)
    lines = order(list(table.lines.values()), tiebreaks, table.cross, seeds)
    return {"table": ranked(table, lines), "crosstable": table.cross}

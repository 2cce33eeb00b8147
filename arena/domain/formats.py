"""A run of any format, without I/O: its first matches, its next round, and its table
(docs/formats.md).

Round robins, gauntlets and groups are planned whole when the run starts. Knockouts and
Swiss tournaments are played a round at a time: when none of the run's matches is left to
play, :func:`next_round` pairs the next round from the results (a knockout's tiebreak
pairs too), or says that the run is over. The rounds a run has paired are its state
(:mod:`arena.domain.knockout`, :mod:`arena.domain.swiss`), which the store keeps beside
the run. Every match, whatever round made it, is an ordinary match of the run, played
and recorded once like any other.

Every reader makes a run's table with :func:`table`, from the same things: the
definition, the seeds, the rounds and the games.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.domain import knockout, swiss
from arena.domain.identity import owner_bot
from arena.domain.knockout import Pairing
from arena.domain.matches import NewMatch, run_match_id
from arena.domain.standings import Game, order, ranked, results, standings, tally
from arena.domain.tournament import (
    STAGED,
    Definition,
    deal_mode,
    deal_seed,
    groups_of,
    plan,
    seatings,
    seeded,
)
from arena.engine import Rules
from arena.errors import Invalid


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A run's first matches to make, its participants as its records and table name
    them (who plays for each: a hosted version, NAME@N, or the bot), in seed order, its
    deals (:data:`arena.domain.tournament.DEALS`) and, for a format played in rounds, the
    rounds paired so far."""

    matches: list[NewMatch]
    participants: list[str]
    deals: str
    rounds: list[Any] | None = None


def plan_run(
    run_id: int,
    definition: Definition,
    playing: Mapping[str, tuple[int, str]],
    seed: int,
    key: bytes,
    seeds: Sequence[str] = (),
) -> RunPlan:
    """The first matches of run ``run_id`` of ``definition`` among the bots ``playing``
    (for each, the bot row and name of who plays for it), seeded in the order of
    ``seeds`` (bot names; the rest after them, by name), its deals keyed by the arena's
    ``key``: every match of a format played at once, the first round of one played in
    rounds. Invalid says why the run cannot be played (too few bots, unfair deals)."""
    deals = deal_mode(definition, {name: seat for name, (_, seat) in playing.items()})
    field = [playing[n][1] for n in seeded(list(playing), seeds)]
    ids = {seat: row for row, seat in playing.values()}
    if definition.format not in STAGED:
        made = plan(definition, sorted(playing), seed, key, deals, seeded(list(playing), seeds))
        matches = [_match(run_id, definition, [playing[b][0] for b in m.seats], m.seed,
                          m.number, m.twin, None) for m in made]  # fmt: skip
        return RunPlan(matches, field, deals)
    if len(field) < 2:
        raise Invalid("a tournament needs at least two participants")
    if definition.format == "swiss":
        most = len(field) if len(field) % 2 else len(field) - 1
        if swiss_rounds(definition, field) > most:
            raise Invalid(
                f"a Swiss of {len(field)} bots pairs at most {most} rounds without a rematch, "
                f"not {swiss_rounds(definition, field)}"
            )
    first = next_round(run_id, definition, field, [], [], set(field), ids, seed, key, deals, 1)
    assert first is not None  # a field of two or more has a first round
    return RunPlan(first.matches, field, deals, first.rounds)


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """The next matches of a run played in rounds, and its rounds as they now stand."""

    matches: list[NewMatch]
    rounds: list[Any]


def next_round(
    run_id: int,
    definition: Definition,
    seeds: Sequence[str],
    rounds: Sequence[Any],
    games: Sequence[Game],
    active: Collection[str],
    ids: Mapping[str, int],
    seed: int,
    key: bytes,
    deals: str,
    start: int,
) -> RoundPlan | None:
    """The next matches of a run in rounds whose matches are all done, numbered from
    ``start``, and the rounds with them; None when the run is over (the rounds, with
    the last decisions written, in :func:`closing_rounds`). ``seeds`` and ``active`` name
    who plays (seat names); ``ids`` their bot rows."""
    step, state = _step(definition, seeds, rounds, games, active)
    if not step:
        return None
    made = _round_matches(run_id, definition, step, ids, seed, key, deals, start)
    return RoundPlan(made, state)


def closing_rounds(
    definition: Definition,
    seeds: Sequence[str],
    rounds: Sequence[Any],
    games: Sequence[Game],
    active: Collection[str],
) -> list[Any]:
    """The rounds of a run that is over, its last decisions written (a knockout's final)."""
    return _step(definition, seeds, rounds, games, active)[1]


def pending(
    definition: Definition,
    seeds: Sequence[str],
    rounds: Sequence[Any],
    games: Sequence[Game],
    active: Collection[str],
) -> bool:
    """Whether a run whose matches are all done has more to pair (it is not over)."""
    return bool(_step(definition, seeds, rounds, games, active)[0])


def _step(
    definition: Definition,
    seeds: Sequence[str],
    rounds: Sequence[Any],
    games: Sequence[Game],
    active: Collection[str],
) -> tuple[list[Pairing], list[Any]]:
    if definition.format == "knockout":
        step = knockout.step(seeds, rounds, games, definition.matches, active)
        return step.pairings, step.rounds
    if definition.format != "swiss" or len(rounds) >= swiss_rounds(definition, seeds):
        return [], list(rounds)
    lines = swiss_lines(definition, seeds, rounds, games)
    field = [line["bot"] for line in lines if line["bot"] in active]
    if len(field) < 2:
        return [], list(rounds)
    scores = {line["bot"]: line["points"] for line in lines}
    paired = swiss.pair(field, scores, rounds, definition.matches)
    number = len(rounds) + 1
    made = [Pairing(number, (a, b), definition.matches) for a, b in paired["pairings"]]
    return made, [*rounds, paired]


def settled(
    definition: Definition, rounds: Sequence[Any] | None, number: int | None, seats: Sequence[str]
) -> str | None:
    """Why a match of round ``number`` with these seats can no longer be voided or played
    again (None: it can): a later round was paired from its result, or its knockout tie
    is decided."""
    if definition.format not in STAGED or number is None or not rounds:
        return None
    if number < len(rounds):
        return f"round {number + 1} was paired from its result"
    if definition.format == "knockout":
        bots = set(seats)
        for tie in rounds[number - 1]:
            if set(tie["bots"]) == bots and tie["winner"] is not None:
                return f"its tie is decided: {tie['winner']} went through"
    return None


def swiss_rounds(definition: Definition, seeds: Sequence[str]) -> int:
    return definition.rounds or swiss.rounds_for(len(seeds))


def _round_matches(
    run_id: int,
    definition: Definition,
    pairings: Sequence[Pairing],
    ids: Mapping[str, int],
    seed: int,
    key: bytes,
    deals: str,
    start: int,
) -> list[NewMatch]:
    """The matches of a round's pairings, numbered from ``start``: each pairing's,
    seats exchanged every second match, dealt from the run's seed and each deal's first
    match number (the two of a duplicate pair share theirs)."""
    rules = Rules.parse(definition.rules)
    duplicate = deals.startswith("duplicate")
    out: list[NewMatch] = []
    for p in pairings:
        for k, seats in enumerate(seatings(rules, list(p.bots), p.matches)):
            number = start + len(out)
            first = number - k % 2 if duplicate else number
            twin = (number + 1 if k % 2 == 0 else number - 1) if duplicate else None
            dealt = deal_seed(key, seed, "match", first)
            row = [ids[s] for s in seats]
            out.append(_match(run_id, definition, row, dealt, number, twin, p.round))
    return out


def _match(
    run_id: int,
    definition: Definition,
    seats: Sequence[int],
    seed: int,
    number: int,
    twin: int | None,
    round_number: int | None,
) -> NewMatch:
    return NewMatch(
        run_match_id(run_id, number),
        Rules.parse(definition.rules),
        tuple(seats),
        seed,
        definition.clock,
        rated=definition.rated,
        absent=definition.absent,
        twin=None if twin is None else run_match_id(run_id, twin),
        run_id=run_id,
        round=round_number,
    )


# ---- tables and views -----------------------------------------------------------------


def swiss_lines(
    definition: Definition, seeds: Sequence[str], rounds: Sequence[Any], games: Sequence[Game]
) -> list[dict[str, Any]]:
    """A Swiss's lines, best first: a bye scores as a round won outright (the matches
    per pairing, in match points)."""
    byes = Counter(r["bye"] for r in rounds if r.get("bye"))
    t = tally(seeds, results(games), byes, definition.matches)
    return ranked(t, order(list(t.lines.values()), definition.order, t.cross, seeds))


def table(
    definition: Definition,
    field: Sequence[str],
    rounds: Sequence[Any] | None,
    games: Sequence[Game],
) -> dict[str, Any]:
    """A run's table, as every reader shows it: its lines best first (``table``), its
    crosstable, and what its format adds: the rounds paired (a knockout's bracket, a
    Swiss's pairings) and the groups. ``field`` is its participants in seed order;
    ``games`` those the reader may see (a sealed twin's result withheld from all but the
    organizer)."""
    participants = field
    counted = results(games)
    out: dict[str, Any] = {"rounds": [], "groups": []}
    if definition.format == "knockout" and rounds:
        t, lines = knockout.table(participants, field, rounds, games, definition.order)
        out |= {"table": ranked(t, lines), "crosstable": t.cross}
        out["rounds"] = knockout.view(field, rounds, games)
    elif definition.format == "swiss":
        out |= {"table": swiss_lines(definition, field, rounds or [], games)}
        out["crosstable"] = tally(field, counted).cross
        out["rounds"] = _swiss_view(rounds or [], games)
    elif definition.format == "groups":
        t = tally(participants, counted)
        groups = groups_of(field, definition.groups or 2)
        for g, members in enumerate(groups):
            mine = [t.lines[b] for b in members if b in t.lines]
            for place, line in enumerate(order(mine, definition.order, t.cross, field)):
                line["group"], line["group_rank"] = group_name(g), place + 1
        # the winners by points and tiebreaks; each later place in their groups' order
        winners = [x for x in t.lines.values() if x.get("group_rank") == 1]
        rank = {
            w["group"]: i for i, w in enumerate(order(winners, definition.order, t.cross, field))
        }
        lines = sorted(
            t.lines.values(), key=lambda x: (x.get("group_rank", 0), rank.get(x.get("group"), 0))
        )
        out |= {"table": ranked(t, lines), "crosstable": t.cross}
        out["groups"] = [{"name": group_name(g), "bots": m} for g, m in enumerate(groups)]
    else:
        out |= standings(participants, counted, definition.order, field)
    return out


def group_name(index: int) -> str:
    """Groups are lettered A, B, C, ... (AA after Z)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _swiss_view(rounds: Sequence[Any], games: Sequence[Game]) -> list[dict[str, Any]]:
    pairs = knockout.by_pairing(games)
    out = []
    for i, r in enumerate(rounds):
        number = i + 1
        shown = []
        for a, b in r["pairings"]:
            tie = {"bots": [a, b]}
            mine = knockout.tie_games(pairs, number, tie)
            shown.append({
                "bots": [a, b], "wins": list(knockout.score(tie, mine)),
                "matches": sum(g.result is not None for g in mine),
                "playing": sum(not g.done for g in mine),
            })  # fmt: skip
        out.append({"number": number, "name": f"round {number}", "pairings": shown,
                    "byes": [r["bye"]] if r.get("bye") else []})  # fmt: skip
    return out


def expected_total(
    definition: Definition, seeds: Sequence[str], rounds: Sequence[Any] | None, planned: int
) -> int:
    """How many matches the whole run should play, as far as can be told now: what is
    planned for a format played at once; a Swiss's rounds of pairings; a knockout's ties
    (one fewer than its bots) and the tiebreaks paired so far."""
    n = len(seeds)
    if definition.format == "swiss":
        return max(planned, swiss_rounds(definition, seeds) * (n // 2) * definition.matches)
    if definition.format == "knockout":
        tiebreaks = sum(2 * int(t.get("tiebreaks", 0)) for r in rounds or [] for t in r)
        return max(planned, max(0, n - 1) * definition.matches + tiebreaks)
    return planned


# ---- seeding ---------------------------------------------------------------------------


def rating_order(entries: Mapping[str, tuple[int, str]], elos: Mapping[int, float]) -> list[str]:
    """The bots ``entries`` names (each with the bot row that plays for it) in seed order
    by rating: those rated in the pool, the best first, then the others by name."""
    return sorted(
        entries, key=lambda n: (entries[n][0] not in elos, -elos.get(entries[n][0], 0), n)
    )


def stage_field(source: Mapping[str, Any] | None, status: str, run_id: int) -> list[str]:
    """The bots of a finished run's final table, best first (a hosted version stands for
    its bot): the field of a stage seeded from it. Invalid for a run that has no final
    table yet."""
    if status != "finished" or not source:
        raise Invalid(
            f"run {run_id} is {status}: a stage is seeded from a finished run's final table"
        )
    return list(dict.fromkeys(owner_bot(line["bot"]) for line in source.get("table", [])))

"""Tournament formats without servers: knockout brackets, byes and tiebreaks; Swiss
pairings against their promises (no rematch, one bye at most, seats balanced); groups by
snake seeding; declared tiebreaks, recomputed here by hand."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from arena.domain import knockout
from arena.domain.formats import (
    RunPlan,
    closing_rounds,
    next_round,
    plan_run,
    rating_order,
    stage_field,
    table,
)
from arena.domain.knockout import bracket_order
from arena.domain.standings import Game, Result, order
from arena.domain.tournament import Definition, groups_of
from arena.errors import Invalid

KEY = bytes(range(32))
Decide = Callable[[int, tuple[str, ...]], Result]


def field(n: int) -> list[str]:
    return [f"b{i:02d}" for i in range(1, n + 1)]


def by_strength(rng: random.Random, strength: dict[str, float]) -> Decide:
    """Results where the stronger bot (by ``strength``) usually wins."""

    def decide(number: int, seats: tuple[str, ...]) -> Result:
        a, b = seats[0], seats[1]
        p = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
        winner = 0 if rng.random() < p else 1
        points = (12, rng.randrange(0, 12)) if winner == 0 else (rng.randrange(0, 12), 12)
        return Result(f"m{number}", seats, winner, points)

    return decide


def play(
    definition: Definition,
    bots: Sequence[str],
    decide: Decide,
    active: Callable[[int], set[str]] | None = None,
) -> tuple[RunPlan, list[Any], list[Game]]:
    """A run played to its end as the use cases play it: planned, then, each time its
    matches are all done, its next round asked for."""
    playing = {b: (i + 1, b) for i, b in enumerate(bots)}
    ids = {b: i + 1 for i, b in enumerate(bots)}
    seat_of = {i: b for b, i in ids.items()}
    plan = plan_run(1, definition, playing, 99, KEY, list(bots))
    games: list[Game] = []
    rounds: list[Any] = plan.rounds or []
    made = plan.matches
    for _ in range(200):
        for m in made:
            seats = tuple(seat_of[s] for s in m.seats)
            games.append(Game(m.id, seats, "finished", m.round, decide(len(games), seats)))
        here = active(len(rounds)) if active else set(bots)
        step = next_round(1, definition, plan.participants, rounds, games, here, ids, 99, KEY,
                          plan.deals, len(games) + 1)  # fmt: skip
        if step is None:
            return plan, closing_rounds(definition, plan.participants, rounds, games, here), games
        made, rounds = step.matches, step.rounds
    raise AssertionError("the run never ended")


# ---- knockouts ----------------------------------------------------------------------------


def test_the_bracket_keeps_the_best_seeds_apart_until_the_end() -> None:
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    for size in (2, 4, 8, 16, 32):
        places = bracket_order(size)
        assert sorted(places) == list(range(1, size + 1))
        for i in range(0, size, 2):  # the first round: s against size + 1 - s
            assert places[i] + places[i + 1] == size + 1
        half = size // 2
        assert {1, 2} <= {*places[:half][:1], *places[half:][:1]}  # 1 and 2 meet in the final
        if size >= 4:  # 1 to 4 meet from the semi-finals on
            quarters = [set(places[q : q + size // 4]) for q in range(0, size, size // 4)]
            assert all(len(q & {1, 2, 3, 4}) == 1 for q in quarters)


def test_byes_go_to_the_best_seeds_of_a_field_not_a_power_of_two() -> None:
    first = knockout.first_round(field(6))
    assert [t["bots"] for t in first] == [
        ["b01", None], ["b04", "b05"], ["b02", None], ["b03", "b06"],
    ]  # fmt: skip
    assert [t["how"] for t in first] == ["bye", "", "bye", ""]


@pytest.mark.parametrize("n", [2, 3, 5, 6, 7, 8, 11, 16])
def test_a_knockout_reaches_one_champion_through_the_bracket(n: int) -> None:
    bots = field(n)
    rng = random.Random(n)
    strength = {b: rng.uniform(1000, 2000) for b in bots}
    d = Definition("ko", bots=tuple(bots), format="knockout", matches=3)
    plan, rounds, games = play(d, bots, by_strength(rng, strength))
    shown = table(d, plan.participants, rounds, games)
    lines = shown["table"]
    champion = lines[0]
    assert champion["stage"] == "champion" and champion["rank"] == 1
    assert len(shown["rounds"]) == knockout.rounds_for(n) == len(rounds)
    final = shown["rounds"][-1]
    assert final["name"] == "final" and final["pairings"][0]["winner"] == champion["bot"]
    # every bot but the champion lost exactly one tie; the ties played are n - 1
    played = [t for r in rounds for t in r if t["bots"][1] is not None]
    assert len(played) == n - 1
    losers = Counter(b for t in played for b in t["bots"] if b != t["winner"])
    assert set(losers.values()) == {1} and set(losers) == set(bots) - {champion["bot"]}
    # each tie's winner has more wins in its games than its opponent, or won a tiebreak
    for r, ties in enumerate(rounds):
        for tie in ties:
            if tie["bots"][1] is None:
                continue
            wins = knockout.score(tie, knockout.tie_games(games, r + 1, tie))
            won = 0 if tie["winner"] == tie["bots"][0] else 1
            assert wins[won] > wins[1 - won] or tie["how"] in ("hand points", "seed")
    # a later round's losers rank above an earlier round's
    reached = [line["reached"] for line in lines]
    assert reached == sorted(reached, reverse=True)


def level(number: int, seats: tuple[str, ...]) -> Result:
    """Every pair of matches split: the bot in the first seat wins each, by 12-8."""
    return Result(f"m{number}", seats, 0, (12, 8))


def test_a_level_tie_goes_to_tiebreak_pairs_then_hand_points_never_a_coin() -> None:
    d = Definition("ko", bots=("ana", "bia"), format="knockout", matches=2)
    plan, rounds, games = play(d, ["ana", "bia"], level)
    tie = rounds[0][0]
    assert tie["tiebreaks"] == knockout.TIEBREAK_PAIRS  # bounded
    assert len(games) == 2 + 2 * knockout.TIEBREAK_PAIRS
    # every match 12-8 to whoever sat first, seats alternating: hand points level too,
    # so the better seed goes through
    assert (tie["winner"], tie["how"]) == ("ana", "seed")
    assert (
        table(d, plan.participants, rounds, games)["rounds"][0]["pairings"][0]["tiebreak_matches"]
        == 2 * knockout.TIEBREAK_PAIRS
    )

    def uneven(number: int, seats: tuple[str, ...]) -> Result:
        return Result(f"m{number}", seats, 0, (12, 2) if seats[0] == "bia" else (12, 10))

    _, rounds, _ = play(d, ["ana", "bia"], uneven)
    assert (rounds[0][0]["winner"], rounds[0][0]["how"]) == ("bia", "hand points")


def test_a_tiebreak_pair_that_is_won_decides_the_tie() -> None:
    d = Definition("ko", bots=("ana", "bia"), format="knockout", matches=2)

    def second_pair_to_bia(number: int, seats: tuple[str, ...]) -> Result:
        winner = 0 if number < 4 else seats.index("bia") % 2
        return Result(f"m{number}", seats, winner, (12, 6) if winner == 0 else (6, 12))

    _, rounds, games = play(d, ["ana", "bia"], second_pair_to_bia)
    assert (rounds[0][0]["winner"], rounds[0][0]["how"]) == ("bia", "tiebreak")
    assert rounds[0][0]["tiebreaks"] == 2 and len(games) == 6


def test_a_bot_no_longer_active_loses_its_tie_by_walkover() -> None:
    bots = field(4)
    d = Definition("ko", bots=tuple(bots), format="knockout", matches=2)
    # b04 withdraws after the first round's matches are played: its tie is a walkover
    _, rounds, games = play(d, bots, level, active=lambda r: set(bots) - {"b04"})
    first = {tuple(t["bots"]): t for t in rounds[0]}
    assert first[("b01", "b04")]["winner"] == "b01"
    assert first[("b01", "b04")]["how"] == "walkover"
    assert all("b04" not in g.seats for g in games if g.round == 2)


# ---- Swiss --------------------------------------------------------------------------------


CASES = [(9, 4, 1, 1), (9, 4, 2, 2), (10, 5, 1, 3), (7, 7, 1, 4), (12, 6, 3, 5)]


@pytest.mark.parametrize(("n", "rounds", "matches", "seed"), CASES)
def test_a_swiss_pairs_without_rematches_one_bye_each_and_balanced_seats(
    n: int, rounds: int, matches: int, seed: int
) -> None:
    bots = field(n)
    rng = random.Random(seed)
    strength = {b: rng.uniform(1000, 2000) for b in bots}
    d = Definition("sw", bots=tuple(bots), format="swiss", rounds=rounds, matches=matches)
    _, paired, games = play(d, bots, by_strength(rng, strength))
    assert len(paired) == rounds
    met = Counter(frozenset(p) for r in paired for p in r["pairings"])
    assert max(met.values()) == 1  # no rematch
    byes = Counter(r["bye"] for r in paired if r["bye"])
    assert len(byes) == (rounds if n % 2 else 0) and set(byes.values()) <= {1}
    for r in paired:  # everyone plays or has the bye, once a round
        seen = [b for p in r["pairings"] for b in p] + ([r["bye"]] if r["bye"] else [])
        assert sorted(seen) == sorted(bots)
    first = Counter(g.seats[0] for g in games)
    for b in bots:  # seats balanced: first and second at most two apart, for each bot
        mine = sum(b in g.seats for g in games)
        assert abs(2 * first[b] - mine) <= (2 if matches % 2 else 0)
    assert len(games) == rounds * (n // 2) * matches


def test_swiss_standings_and_their_tiebreaks_recomputed_by_hand() -> None:
    bots = field(9)
    rng = random.Random(11)
    strength = {b: rng.uniform(1000, 2000) for b in bots}
    d = Definition("sw", bots=tuple(bots), format="swiss", rounds=4, matches=1)
    plan, paired, games = play(d, bots, by_strength(rng, strength))
    lines = {line["bot"]: line for line in table(d, plan.participants, paired, games)["table"]}
    score = Counter({b: 0 for b in bots})
    for g in games:
        assert g.result is not None
        score[g.seats[g.result.winner or 0]] += 1
    for r in paired:
        if r["bye"]:
            score[r["bye"]] += 1  # a bye: a round won
    buchholz, sb = Counter(), Counter()
    for g in games:
        assert g.result is not None
        a, b = g.seats[0], g.seats[1]
        winner = g.seats[g.result.winner or 0]
        buchholz[a] += score[b]
        buchholz[b] += score[a]
        sb[winner] += score[b if winner == a else a]
    for b in bots:
        assert lines[b]["points"] == score[b]
        assert lines[b]["buchholz"] == buchholz[b]
        assert lines[b]["sonneborn_berger"] == sb[b]
    ranked = sorted(lines.values(), key=lambda x: x["rank"])
    for upper, lower in itertools.pairwise(ranked):  # points, then Buchholz, then SB
        key_u = (upper["points"], upper["buchholz"], upper["sonneborn_berger"])
        key_l = (lower["points"], lower["buchholz"], lower["sonneborn_berger"])
        assert key_u >= key_l


def test_a_swiss_of_too_many_rounds_is_refused() -> None:
    d = Definition("sw", bots=tuple(field(4)), format="swiss", rounds=4)
    with pytest.raises(Invalid, match="at most 3 rounds without a rematch"):
        plan_run(1, d, {b: (i, b) for i, b in enumerate(field(4))}, 1, KEY)


# ---- groups, seeding and tiebreaks --------------------------------------------------------


def test_groups_are_seeded_by_snake_and_play_only_among_themselves() -> None:
    assert groups_of(field(8), 2) == [["b01", "b04", "b05", "b08"], ["b02", "b03", "b06", "b07"]]
    assert groups_of(field(7), 3) == [["b01", "b06", "b07"], ["b02", "b05"], ["b03", "b04"]]
    bots = field(8)
    d = Definition("g", bots=tuple(bots), format="groups", groups=2, matches=2)
    plan, _, games = play(d, bots, by_strength(random.Random(3), {b: 1500.0 for b in bots}))
    groups = {b: g for g, members in enumerate(groups_of(bots, 2)) for b in members}
    assert len(games) == 2 * 6 * 2
    assert all(groups[g.seats[0]] == groups[g.seats[1]] for g in games)
    shown = table(d, plan.participants, None, games)
    assert [g["name"] for g in shown["groups"]] == ["A", "B"]
    lines = shown["table"]
    # the overall order: each group's first, then each group's second, ...
    assert [line["group_rank"] for line in lines] == [1, 1, 2, 2, 3, 3, 4, 4]
    # each later place in the order of its group's winner: seeded into a knockout from this
    # table, 1 v 4 and 2 v 3 cross the groups
    first, second = lines[0]["group"], lines[1]["group"]
    assert first != second
    assert [line["group"] for line in lines] == [first, second] * 4
    with pytest.raises(Invalid, match="3 groups need at least 6 bots"):
        plan_run(1, Definition("g", bots=tuple(field(5)), format="groups", groups=3),
                 {b: (i, b) for i, b in enumerate(field(5))}, 1, KEY)  # fmt: skip


def test_declared_tiebreaks_order_bots_level_on_points() -> None:
    def line(bot: str, points: int, hp: int, perf: float) -> dict[str, Any]:
        return {"bot": bot, "points": points, "hand_points": hp, "hand_points_against": 0,
                "performance": perf, "buchholz": 0.0, "sonneborn_berger": 0.0}  # fmt: skip

    lines = [line("ana", 3, 10, 1400.0), line("bia", 3, 20, 1300.0), line("caio", 3, 20, 1300.0)]
    cross = {"caio": {"bia": [1, 0]}, "bia": {"caio": [0, 1]}}
    names = lambda ls: [x["bot"] for x in ls]  # noqa: E731
    assert names(order(lines, ["performance", "hand-points"], cross)) == ["ana", "bia", "caio"]
    assert names(order(lines, ["hand-points", "head-to-head"], cross)) == ["caio", "bia", "ana"]
    # level on every tiebreak: the seed, never a coin
    assert names(order(lines, ["hand-points"], cross, ["caio", "bia"])) == ["caio", "bia", "ana"]
    assert names(order(lines, ["seed"], cross, ["bia", "ana", "caio"])) == ["bia", "ana", "caio"]


def test_seeds_come_from_ratings_or_from_a_finished_run() -> None:
    entries = {"ana": (1, "ana"), "bia": (2, "bia@3"), "caio": (3, "caio"), "dani": (4, "dani")}
    assert rating_order(entries, {2: 1700.0, 3: 1600.0}) == ["bia", "caio", "ana", "dani"]
    standings = {"table": [{"bot": "bia@3"}, {"bot": "ana"}, {"bot": "caio"}]}
    assert stage_field(standings, "finished", 4) == ["bia", "ana", "caio"]
    with pytest.raises(Invalid, match="run 4 is running"):
        stage_field(None, "running", 4)

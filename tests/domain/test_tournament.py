"""Tournaments without servers: definitions, plans and duplicate deals, cron schedules,
standings against a hand computation; then runs in a real PostgreSQL."""

from __future__ import annotations

import math
import random
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from arena.domain.clock import TimeControl
from arena.domain.schedule import due_firing, next_firing
from arena.domain.standings import Result, standings
from arena.domain.tournament import Definition, deal_mode, deal_seed, plan
from arena.engine import Match, Rules, RulesError
from arena.errors import Exists, Invalid, NotFound
from arena.store.store import Store
from arena.usecases.runs import create_run, finish_run, plan_run
from arena.usecases.tournaments import create_tournament
from tests.store.test_store import played

BOTS = ("ana", "bia", "caio")
KEY = bytes(range(32))  # the arena's secret deal key, for plans made without a store


def test_a_round_robin_meets_every_pair_with_seats_swapped() -> None:
    d = Definition("rr", bots=BOTS, matches=4)
    matches = plan(d, BOTS, 7, KEY)
    assert len(matches) == 3 * 4
    pairs = [("ana", "bia"), ("ana", "caio"), ("bia", "caio")]
    assert Counter(m.pairing for m in matches) == {p: 4 for p in pairs}
    for m in matches:
        a, b = m.pairing
        assert sorted(set(m.seats)) == [a, b]
    first_seats = Counter(m.seats[0] for m in matches if m.pairing == ("ana", "bia"))
    assert first_seats == {"ana": 2, "bia": 2}
    assert [m.number for m in matches] == list(range(1, 13))
    assert plan(d, BOTS, 7, KEY) == matches  # planning again gives the same matches
    assert plan(d, BOTS, 8, KEY) != matches
    assert len({m.seed for m in matches}) == len(matches)  # no two matches share deals


def test_deals_come_from_the_secret_key_not_from_anything_public() -> None:
    d = Definition("rr", bots=BOTS, matches=4)
    seeds = [m.seed for m in plan(d, BOTS, 7, KEY)]
    other = [m.seed for m in plan(d, BOTS, 7, bytes(32))]
    assert not set(seeds) & set(other)  # the same run seed with another key: other deals
    assert deal_seed(KEY, "m-1") != deal_seed(KEY, "m-2")
    assert 0 <= deal_seed(KEY, "m-1") < 2**62


def test_double_round_robin_and_gauntlet() -> None:
    definition = Definition("d", bots=BOTS, format="double-round-robin", duplicate=True,
                            trusted=True)  # fmt: skip
    double = plan(definition, BOTS, 1, KEY)
    assert len(double) == 3 * 2 * 2
    assert len({m.seed for m in double}) == 6  # one deal sequence per duplicate pair
    gauntlet = plan(Definition("g", bots=BOTS, format="gauntlet", challenger="bia"), BOTS, 1, KEY)
    assert {m.pairing for m in gauntlet} == {("bia", "ana"), ("bia", "caio")}


@pytest.mark.parametrize("rules", ["paulista", "paulista:team_size=2", "tradicional"])
def test_duplicate_pairs_deal_each_bot_the_cards_its_opponent_had(rules: str) -> None:
    d = Definition("dup", rules=rules, bots=("ana", "bia"), matches=2, duplicate=True, trusted=True)
    first, second = plan(d, ("ana", "bia"), 3, KEY)
    assert first.seed == second.seed
    r = Rules.parse(rules)
    one, two = Match(r, seed=first.seed), Match(r, seed=second.seed)
    for match, choose in ((one, random.Random(1)), (two, random.Random(2))):
        while not match.is_over:  # played differently...
            match.apply(choose.choice(match.legal_actions()))
    shared = min(len(one.hands), len(two.hands))
    assert shared >= 2
    for h1, h2 in zip(one.hands[:shared], two.hands[:shared], strict=True):
        assert h1.vira == h2.vira  # ...yet dealt the same cards hand after hand
        assert h1.dealt == h2.dealt
    for seat in range(r.seats):  # and the other team holds them the second time
        assert first.seats[seat] != second.seats[seat]


def test_without_duplicate_every_match_has_its_own_deals() -> None:
    matches = plan(Definition("x", bots=BOTS, matches=3, duplicate=False), BOTS, 5, KEY)
    assert len({m.seed for m in matches}) == len(matches)
    assert {m.twin for m in matches} == {None}


def test_duplicate_pairs_name_each_other_as_twins() -> None:
    matches = plan(Definition("x", bots=BOTS, matches=4), BOTS, 5, KEY, "duplicate-hosted")
    by_number = {m.number: m for m in matches}
    for m in matches:
        assert m.twin is not None
        twin = by_number[m.twin]
        assert twin.twin == m.number and twin.seed == m.seed and twin.pairing == m.pairing
        assert twin.seats != m.seats
    assert len({m.seed for m in matches}) == len(matches) // 2


HOSTED = {"ana": "ana@1", "bia": "bia@3"}
MIXED = {"ana": "ana@1", "bia": "bia", "caio": "caio"}


@pytest.mark.parametrize(
    ("fields", "seated", "deals"),
    [
        ({}, HOSTED, "duplicate-hosted"),  # all hosted: duplicate by themselves
        ({"matches": 3}, HOSTED, "secret"),  # but only in pairs
        ({}, MIXED, "secret"),
        ({"duplicate": True}, HOSTED, "duplicate-hosted"),  # asked, and fair without trust
        ({"duplicate": True, "trusted": True}, MIXED, "duplicate-trusted"),
        ({"duplicate": True, "trusted": True}, HOSTED, "duplicate-hosted"),
        ({"seed": 4, "trusted": True}, HOSTED, "fixed-trusted"),
        ({"trusted": True}, MIXED, "secret"),
    ],
)
def test_the_deal_mode_says_what_the_matches_get(
    fields: dict[str, object], seated: dict[str, str], deals: str
) -> None:
    definition = Definition("x", bots=tuple(seated), **fields)  # type: ignore[arg-type]
    assert deal_mode(definition, seated) == deals


def test_duplicate_deals_asked_with_dial_in_bots_are_refused_naming_them() -> None:
    definition = Definition("x", bots=tuple(MIXED), duplicate=True)
    with pytest.raises(Invalid, match="need every bot hosted") as refused:
        deal_mode(definition, MIXED)
    assert "'bia', 'caio' dial in" in str(refused.value)
    assert "trusted" in str(refused.value)


def test_forfeits_count_as_losses_and_a_double_forfeit_as_two() -> None:
    results = [
        Result("m1", ["ana", "bia"], 1, (12, 3), forfeits=(0,)),  # ana absent, bia credited
        Result("m2", ["bia", "caio"], None, (12, 9), forfeits=(0, 1)),  # both absent
        Result("m3", ["caio", "ana"], 0, (12, 6)),
    ]
    table = {r["bot"]: r for r in standings(BOTS, results)["table"]}
    assert (table["ana"]["wins"], table["ana"]["losses"], table["ana"]["forfeits"]) == (0, 2, 1)
    assert (table["bia"]["wins"], table["bia"]["losses"], table["bia"]["forfeits"]) == (1, 1, 1)
    assert (table["caio"]["wins"], table["caio"]["losses"], table["caio"]["forfeits"]) == (1, 1, 1)
    assert table["ana"]["hand_points"] == 12 + 6  # the score as played stays


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"bots": ("a",)}, "at least two bots"),
        ({"bots": ("a", "a")}, "listed twice"),
        ({"bots": ("a", "b"), "pool": "paulista/1"}, "as a list of bots, as a pool, or as a stage"),
        ({"bots": ("a", "b"), "matches": 3, "duplicate": True, "trusted": True}, "even number"),
        ({"bots": ("a", "b"), "seed": 4}, "a fixed seed would deal every run"),
        ({"bots": ("a", "b"), "seed": 2**64 - 1, "trusted": True}, "a seed is a whole number"),
        ({"pool": "nope/1"}, "no pool 'nope/1'"),
        ({"pool": "paulista/9"}, "no pool 'paulista/9'"),
        ({"bots": ("a", "b"), "absent": "stand-in"}, "absent must be one of forfeit, play-on"),
        ({"pool": "paulista/1", "format": "gauntlet", "challenger": "a b"}, "not a bot name"),
        ({"bots": ("a", "b"), "reconnect_grace_ms": 2**32 - 1}, "reconnect_grace_ms"),
        ({"bots": ("a", "b"), "decision_ms": 2**32 - 1}, "decision_ms"),
        ({"bots": ("a", "b"), "format": "pyramid"}, "format must be one of"),
        ({"bots": ("a", "b"), "format": "groups"}, "needs the number of groups"),
        ({"bots": ("a", "b"), "groups": 2}, "only the groups format takes groups"),
        ({"bots": ("a", "b"), "format": "swiss", "rounds": 0}, "rounds must be from 1 to 64"),
        ({"bots": ("a", "b"), "tiebreaks": ["coin"]}, "'coin' is not a tiebreak"),
        ({"bots": ("a", "b"), "tiebreaks": ["seed", "seed"]}, "declared twice"),
        ({"seed_from": "no such!"}, "seed_from names a run"),
        ({"bots": ("a", "b"), "seed_from": "7"}, "as a list of bots, as a pool, or as a stage"),
        ({"seed_from": "7", "top": 1}, "top must be from 2 to 1024"),
        ({"bots": ("a", "b"), "format": "gauntlet"}, "needs a challenger"),
        ({"bots": ("a", "b"), "rules": "paulista:team_size=9"}, "team_size"),
        ({"bots": ("a", "b"), "schedule": "* * *"}, "five cron fields"),
        ({"bots": ("a", "b"), "schedule": "61 * * * *"}, "bad schedule"),
        ({"bots": ("a", "b"), "decision_ms": 0}, "decision_ms"),
    ],
)
def test_bad_definitions_are_refused_clearly(fields: dict[str, object], message: str) -> None:
    with pytest.raises((Invalid, RulesError), match=message):  # the rules: the engine's
        Definition.from_json({"name": "t", **fields})


def test_definitions_round_trip_through_json() -> None:
    d = Definition(
        "t", bots=BOTS, rules="paulista:team_size=2", schedule="0 3 * * 1", seed=9, trusted=True
    )
    assert Definition.from_json(d.to_json()) == d
    with pytest.raises(Invalid, match="unknown fields"):
        Definition.from_json({**d.to_json(), "colour": "red"})


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_cron_schedules_fire_in_utc_at_the_latest_due_time() -> None:
    assert next_firing("*/15 * * * *", at("2026-11-29 10:07")) == at("2026-11-29 10:15")
    assert next_firing("0 3 * * 1", at("2026-11-29 10:00")) == at("2026-11-30 03:00")  # Monday
    assert next_firing("30 12 1 * *", at("2026-11-29 10:00")) == at("2026-12-01 12:30")
    assert due_firing("*/15 * * * *", at("2026-11-29 10:00"), at("2026-11-29 10:14")) is None
    assert due_firing("*/15 * * * *", at("2026-11-29 10:00"), at("2026-11-29 10:31")) == at(
        "2026-11-29 10:30"
    )  # two were missed: one run, for the latest
    long_ago = at("2026-11-29 10:00") - timedelta(days=30)
    assert due_firing("0 * * * *", long_ago, at("2026-11-29 10:05")) == at("2026-11-29 10:00")


def test_standings_match_a_hand_computation() -> None:
    # ana beats bia 3 times of 4; caio has not played yet.
    results = [
        Result("m1", ["ana", "bia"], 0, (12, 5)),
        Result("m2", ["bia", "ana"], 1, (7, 12)),
        Result("m3", ["ana", "bia"], 1, (10, 12), {"ana": {"timeouts": 2}}),
        Result("m4", ["bia", "ana"], 1, (3, 12), {"ana": {"timeouts": 1}}),
    ]
    out = standings(["ana", "bia", "caio"], results)
    ana, bia, caio = out["table"]
    assert (ana["bot"], ana["rank"], ana["points"], ana["wins"], ana["losses"]) == (
        "ana",
        1,
        3,
        3,
        1,
    )
    assert (ana["hand_points"], ana["hand_points_against"]) == (12 + 12 + 10 + 12, 5 + 7 + 12 + 3)
    assert ana["faults"] == {"timeouts": 3}
    assert (bia["bot"], bia["points"], bia["wins"], bia["losses"]) == ("bia", 1, 1, 3)
    assert (caio["bot"], caio["played"], caio["performance"], caio["los_next"]) == (
        "caio",
        0,
        None,
        None,
    )
    assert out["crosstable"]["ana"]["bia"] == [3, 1]
    assert out["crosstable"]["bia"]["ana"] == [1, 3]
    # Bradley-Terry with two players is the logit of the score, split around 1500:
    elo_per_nat = 400 / math.log(10)
    diff = 400 * math.log10(3)  # 3 wins in 4
    assert ana["performance"] == pytest.approx(1500 + diff / 2, abs=0.05)
    assert bia["performance"] == pytest.approx(1500 - diff / 2, abs=0.05)
    var_diff = 1 / (4 * 0.75 * 0.25)  # in natural-log units: 1 / (n p (1 - p))
    half = 1.959964 * elo_per_nat * math.sqrt(var_diff / 4)
    assert ana["performance_high"] - ana["performance"] == pytest.approx(half, abs=0.1)
    z = diff / (elo_per_nat * math.sqrt(var_diff))
    assert ana["los_next"] == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))), abs=1e-4)


def test_team_results_count_for_every_member() -> None:
    out = standings(["a", "b"], [Result("m", ["a", "b", "a", "b"], 1, (4, 12))])
    a, b = sorted(out["table"], key=lambda r: r["bot"])
    assert (a["wins"], b["wins"], a["played"], b["played"]) == (0, 1, 1, 1)


# ---- runs in the store ----------------------------------------------------------------


def test_a_run_is_planned_once_and_keeps_its_definition(store: Store) -> None:
    for bot in BOTS:
        store.register_bot(bot)
    definition = Definition("weekly", bots=BOTS, matches=2, clock=TimeControl(time_bank_ms=0))
    t = create_tournament(store, definition)
    run = create_run(store, t)
    assert run is not None and run.status == "starting"
    ids = plan_run(store, run.id)
    assert len(ids) == 6 and ids == sorted(ids)
    assert plan_run(store, run.id) == ids  # a retried start adds nothing
    found = store.run(run.id)
    assert found is not None
    row, name = found
    assert (name, row.status, row.total, row.participants) == ("weekly", "running", 6, list(BOTS))
    assert not finish_run(store, run.id)  # matches are left to play
    # a worker claims a match: it gets the row as it was, and the match is running now
    claimed, seats, _ = store.claim_match(ids[0])
    assert claimed.run_id == run.id and set(seats) == {"ana", "bia"}
    assert claimed.status == "scheduled" and claimed.started_at is None
    assert TimeControl.from_json(claimed.clock) == definition.clock  # its own clocks
    again, _, _ = store.claim_match(ids[0])  # a redelivered task
    assert again.status == "running" and again.started_at is not None
    assert not store.run_done(run.id)

    # each finish says whether the run has matches left: only the last says it has none
    done = [
        store.finish_match(m, played(Rules.preset("paulista"), seed=k)) for k, m in enumerate(ids)
    ]
    assert [f.run_done for f in done] == [False] * 5 + [True]
    assert plan_run(store, run.id) == []
    assert store.run_done(run.id)
    again = store.finish_match(ids[0], played(Rules.preset("paulista"), seed=0))
    assert (again.recorded, again.run_done) == (False, True)  # a redelivered task finds it so
    finished_before, _, _ = store.claim_match(ids[0])  # claims nothing now
    assert store.claim_match(ids[0])[0].status == finished_before.status == "finished"
    assert finish_run(store, run.id)
    assert not finish_run(store, run.id)  # once
    finished = store.run(run.id)
    assert finished is not None and finished[0].status == "finished"
    table = finished[0].standings
    assert table is not None
    assert sum(r["wins"] for r in table["table"]) == 6
    assert sum(r["played"] for r in table["table"]) == 12


def test_a_scheduled_time_makes_one_run_however_often_it_fires(store: Store) -> None:
    store.register_bot("ana")
    store.register_bot("bia")
    t = create_tournament(store, Definition("nightly", bots=("ana", "bia"), schedule="0 3 * * *"))
    when = next_firing("0 3 * * *", t.fired_at)  # a firing after the tournament was made
    assert create_run(store, t, fired_for=when) is not None
    assert create_run(store, t, fired_for=when) is None
    again = store.tournament("nightly")
    assert again is not None and again.fired_at == when
    assert len(store.runs(t.id)) == 1


def test_tournaments_refuse_unknown_bots_and_repeated_names(store: Store) -> None:
    store.register_bot("ana")
    with pytest.raises(NotFound, match="no active bot named 'zeca'"):
        create_tournament(store, Definition("t", bots=("ana", "zeca")))
    store.register_bot("bia")
    create_tournament(store, Definition("t", bots=("ana", "bia")))
    with pytest.raises(Exists, match="already exists"):
        create_tournament(store, Definition("t", bots=("ana", "bia")))


def test_a_run_that_cannot_be_planned_fails_with_its_reason(store: Store) -> None:
    t = create_tournament(store, Definition("empty", pool="paulista/1"))
    run = create_run(store, t)
    assert run is not None
    assert plan_run(store, run.id) == []
    found = store.run(run.id)
    assert found is not None
    assert found[0].status == "failed" and "two participants" in (found[0].error or "")

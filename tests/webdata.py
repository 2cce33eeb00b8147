"""An arena to look at: bots and real recorded matches in a fresh store, for the web tests."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from arena.domain.tournament import Definition
from arena.engine import Match, Rules, to_record
from arena.store.store import Store
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from arena.usecases.runs import create_run, finish_run, plan_run
from arena.usecases.tournaments import create_tournament

ORGANIZER = "organizer-secret"


def played(rules: Rules, seats: list[str], seed: int) -> dict[str, Any]:
    """A finished match record from random play (seeded)."""
    match = Match(rules, seats, seed=seed)
    choose = random.Random(seed)
    while not match.is_over:
        match.apply(choose.choice(match.legal_actions()))
    return to_record(match)


def has_covered_card(record: dict[str, Any]) -> bool:
    return any(a.get("covered") for h in record["hands"] for a in h["actions"])


@dataclass
class Arena:
    """What :func:`fill` recorded: match ids by kind."""

    ids: dict[str, str] = field(default_factory=dict)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)


def fill(store: Store) -> Arena:
    """Three bots in paulista/1 (one match with covered cards and bot faults), a 2x2 match
    in paulista/2, a match not played yet, and a retired-looking bot with no games."""
    bots = {name: store.register_bot(name, owner="ana")[0] for name in ("alpha", "beta", "gamma")}
    store.register_bot("idle")
    arena = Arena()
    rules = Rules()
    pairs = [("alpha", "beta"), ("beta", "alpha"), ("alpha", "gamma"), ("gamma", "beta")]
    seed = 0
    for k, seats in enumerate(pairs):
        match_id = f"m-{k}"
        record = played(rules, list(seats), seed)
        if k == 0:  # the first one shows covered cards: seek a seed that covers one
            while not has_covered_card(record):
                seed += 1
                record = played(rules, list(seats), seed)
            arena.ids["covered"] = match_id
            record["faults"] = {
                "alpha": {"timeouts": 2, "rejected": 1, "disconnects": 1, "substituted": 3},
                "beta": {"timeouts": 0, "rejected": 0, "disconnects": 0, "substituted": 0},
            }
        request_match(store, match_id, rules, [bots[s].id for s in seats], seed=seed)
        record_match(store, match_id, record)
        arena.records[match_id] = record
        seed += 1
    teams = Rules.parse("paulista:team_size=2")
    seats = ["alpha", "beta", "alpha", "beta"]
    request_match(store, "m-team", teams, [bots[s].id for s in seats], seed=7)
    arena.records["m-team"] = played(teams, seats, 7)
    record_match(store, "m-team", arena.records["m-team"])
    arena.ids["team"] = "m-team"
    request_match(store, "m-later", rules, [bots["alpha"].id, bots["gamma"].id], seed=99)
    arena.ids["scheduled"] = "m-later"
    return arena


def start_run(store: Store, definition: Definition) -> tuple[int, list[str]]:
    """A tournament and a planned run of it: the run's id and its match ids."""
    run = create_run(store, create_tournament(store, definition))
    assert run is not None
    return run.id, plan_run(store, run.id)


RUN_SEEDS = 7_000_000_000  # the k-th match of a run played here is played from this + k


def play_run(store: Store, run_id: int, match_ids: list[str]) -> None:
    """Play the matches by random play (real records) and finish the run. The records are
    dealt from fixed seeds, not the matches' own (those come from the database's secret
    key, new in every test database), so the pages show the same matches every time."""
    for k, match_id in enumerate(match_ids):
        found = store.match(match_id)
        assert found is not None
        row, seats = found
        store.set_status(match_id, "running")
        record_match(store, match_id, played(Rules.parse(row.rules), seats, RUN_SEEDS + k))
    assert finish_run(store, run_id)

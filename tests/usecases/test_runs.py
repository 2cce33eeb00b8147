"""The runs' use cases on a real PostgreSQL, beyond tests/domain/test_tournament.py's walk through a
run: two planners at once make a run's matches once, the matches carry what the
definition says, and finishing a run fits its pool first."""

from __future__ import annotations

import threading

import pytest

from arena.domain.tournament import Definition
from arena.engine import Rules
from arena.errors import NotFound
from arena.store.store import Store
from arena.usecases.runs import create_run, finish_run, plan_run
from arena.usecases.tournaments import create_tournament
from tests.store.test_store import played


def started(store: Store, definition: Definition) -> int:
    for bot in definition.bots:
        store.register_bot(bot)
    run = create_run(store, create_tournament(store, definition))
    assert run is not None
    return run.id


def test_two_planners_at_once_make_and_send_the_runs_matches_once(store: Store) -> None:
    run_id = started(store, Definition("weekly", bots=("ana", "bia", "cid"), matches=4))
    found: list[list[str]] = []
    threads = [
        threading.Thread(target=lambda: found.append(plan_run(store, run_id, 5))) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    window = ["r1-0001", "r1-0002", "r1-0003", "r1-0004", "r1-0005"]
    assert len(store.run_matches(run_id)) == 12
    assert all(ids == window for ids in found)  # one window; a retried start sends it again


def test_a_runs_matches_carry_its_definition(store: Store) -> None:
    definition = Definition(
        "weekly", bots=("ana", "bia"), matches=2, duplicate=True, trusted=True,
        absent="play-on", rules="paulista:team_size=2",
    )  # fmt: skip
    run_id = started(store, definition)
    first, second = plan_run(store, run_id)
    one, seats = store.match(first) or (None, [])
    assert one is not None and seats == ["ana", "bia", "ana", "bia"]
    assert (one.twin, one.absent, one.pool, one.run_id) == (second, "play-on", "paulista/2", run_id)
    two = store.match(second)
    assert two is not None and two[0].seed == one.seed and two[0].twin == first
    run = store.run(run_id)
    assert run is not None and run[0].deals == "duplicate-trusted"


def test_planning_or_finishing_no_run_is_not_found(store: Store) -> None:
    with pytest.raises(NotFound, match="no run 99"):
        plan_run(store, 99)
    with pytest.raises(NotFound, match="no run 99"):
        finish_run(store, 99)


def test_a_finished_run_has_its_pool_fitted_first(store: Store) -> None:
    run_id = started(store, Definition("weekly", bots=("ana", "bia"), matches=2))
    for k, match_id in enumerate(plan_run(store, run_id)):
        store.finish_match(match_id, played(Rules(), k))
        assert store.pool_fit("paulista/1") is None  # recorded around the workers' refit
    assert finish_run(store, run_id) and not finish_run(store, run_id)
    fitted = store.pool_fit("paulista/1", store.pool_version("paulista/1"))
    assert fitted is not None and set(fitted.halves) == {"ana", "bia"}

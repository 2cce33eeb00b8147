"""GetRun and the run's web page read one value (arena.read.tournaments.run_state): on
real runs (starting, running with a sealed twin, running, finished, failed), over real
gRPC and HTTP on one PostgreSQL, they give the same standings and crosstable, for the
organizer and for a visitor, and the page's "live" flag is the status's rule: live while
the run is starting or running."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from starlette.testclient import TestClient

from arena.domain.tournament import Definition
from arena.proto.truco.v1 import arena_pb2 as api
from arena.usecases import runs, tournaments
from arena.web import create_app
from tests.referee.test_api import ORGANIZER as BEARER
from tests.referee.test_api import arena  # noqa: F401 (the fixture)
from tests.web.test_runs import OUTCOMES, WEEKLY, finish
from tests.webdata import ORGANIZER, start_run


@pytest.fixture
def both(arena: Any) -> Iterator[tuple[Any, Any, TestClient]]:  # noqa: F811 (the fixture)
    ref, stub = arena
    for bot in ("ana", "bia", "caio"):
        ref.store.register_bot(bot)
    yield ref.store, stub, TestClient(create_app(ref.store, organizer_token=ORGANIZER))


def api_view(stub: Any, run_id: int, organizer: bool) -> dict[str, Any]:
    run = stub.GetRun(
        api.GetRunRequest(id=run_id), metadata=BEARER if organizer else (), timeout=10
    )
    lines = [
        MessageToDict(
            s, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
        )
        for s in run.standings
    ]
    cross = {(c.bot, c.opponent, c.wins, c.losses) for c in run.crosstable if c.wins + c.losses}
    return {"status": run.status, "standings": lines, "crosstable": cross}


def web_view(client: TestClient, run_id: int, organizer: bool) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {ORGANIZER}"} if organizer else {}
    data = client.get(f"/api/runs/{run_id}", headers=headers).json()
    cross = {
        (row["bot"], c["opponent"], c["wins"], c["losses"])
        for row in data["crosstable"]
        for c in row["cells"]
        if c is not None
    }
    return {"data": data, "crosstable": cross}


def assert_agree(stub: Any, client: TestClient, run_id: int) -> list[bool]:
    """The two views agree, for the organizer and a visitor; the page's live flags."""
    flags = []
    for organizer in (True, False):
        got, page = api_view(stub, run_id, organizer), web_view(client, run_id, organizer)
        data = page["data"]
        assert got["status"] == data["run"]["status"]
        assert [s["bot"] for s in got["standings"]] == [s["bot"] for s in data["standings"]]
        for line, row in zip(got["standings"], data["standings"], strict=True):
            assert line == {k: row[k] for k in line}, organizer
        assert got["crosstable"] == page["crosstable"]
        assert data["live"] is (got["status"] in ("starting", "running"))
        flags.append(data["live"])
    return flags


def test_a_run_reads_the_same_through_the_api_and_on_its_page(both: Any) -> None:
    store, stub, client = both
    later = tournaments.create_tournament(store, Definition("later", bots=("ana", "bia")))
    starting = runs.create_run(store, later)
    assert starting is not None and assert_agree(stub, client, starting.id) == [True, True]

    run_id, ids = start_run(store, WEEKLY)
    finish(store, ids, OUTCOMES[:1])  # its twin unplayed: sealed from the visitor
    assert assert_agree(stub, client, run_id) == [True, True]
    organizer, visitor = (api_view(stub, run_id, o)["standings"] for o in (True, False))
    assert sum(s["played"] for s in organizer) == 2 and sum(s["played"] for s in visitor) == 0

    finish(store, ids[1:], OUTCOMES[1:2])
    assert assert_agree(stub, client, run_id) == [True, True]
    finish(store, ids[2:], OUTCOMES[2:])
    assert runs.finish_run(store, run_id)
    assert assert_agree(stub, client, run_id) == [False, False]
    assert api_view(stub, run_id, False)["standings"][0]["bot"] == "ana"

    failed, none = start_run(store, Definition("empty", pool="paulista/2"))  # none played
    assert none == [] and assert_agree(stub, client, failed) == [False, False]
    assert api_view(stub, failed, True) == {
        "status": "failed",
        "standings": [],
        "crosstable": set(),
    }

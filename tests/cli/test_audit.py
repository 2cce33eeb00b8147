"""``arena audit`` as an organizer runs it, against a real Arena API on a database where
runs were recorded (tests/read/test_audit.py plays them): the tally and exit 0 when clean;
a match counted twice, planted by SQL, found with exit 1; --json the same as an object;
--run one run alone; the audit is the organizer's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from tests.cli.common import arena, organizer_env
from tests.read.test_audit import TWICE, Played, plant, play_arena, run_matches
from tests.referee.test_api import ArenaReferee


@pytest.fixture
def served(database: str) -> Iterator[tuple[Played, str]]:
    """An arena where runs were played, and the address of its Arena API."""
    played = play_arena(database)
    ref = ArenaReferee(database)
    try:
        yield played, ref.server.address
    finally:
        ref.close()
        ref.store.close()


def test_arena_audit_prints_the_tally_and_exits_1_on_a_match_counted_twice(
    served: tuple[Played, str], tmp_path: Path
) -> None:
    played, address = served
    env = organizer_env(played.database, tmp_path / "home") | {"ARENA_REFEREE_ADDRESS": address}
    clean = arena("audit", env=env)
    assert clean.returncode == 0, clean.stderr
    lines = clean.stdout.splitlines()
    assert lines[0].startswith("audit of the arena at ")
    assert lines[1:] == [
        "matches: finished 6, scheduled 2 (voided 0, replays 0)",
        "runs: finished 1, running 1",
        "ratings checked: 3; rating events checked: 12",
        "kept counts compared with the history (rows): bot_pool_stats 3, lineup_stats 3, "
        "pair_stats 6, ratings 3",
        "pools whose ratings were compared with a fit of their history: 1",
        "clean: every finished match counted once, no rating change twice, none lost",
    ]
    alone = arena("audit", "--run", str(played.done), env=env)
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout.splitlines()[0].startswith(f"audit of run {played.done} at ")
    assert alone.stdout.splitlines()[1:3] == [
        "matches: finished 6 (voided 0, replays 0)",
        "runs: finished 1",
    ]

    plant(played.database, TWICE.format(match=run_matches(played.database, played.done)[0]))
    found = arena("audit", env=env)
    assert found.returncode == 1, found.stderr
    assert "3 findings:" in found.stdout
    assert "  counted: bot_pool_stats pool paulista/1, bot " in found.stdout
    as_json = arena("audit", "--json", env=env)
    assert as_json.returncode == 1
    report = json.loads(as_json.stdout)
    assert report["clean"] is False and report["matches"] == {"finished": 6, "scheduled": 2}
    assert [f["check"] for f in report["findings"]] == ["counted"] * 3
    assert {"where", "what"} <= set(report["findings"][0])


def test_the_audit_is_the_organizers(served: tuple[Played, str]) -> None:
    _, address = served
    with grpc.insecure_channel(address) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        with pytest.raises(grpc.RpcError) as anyone:
            stub.Audit(api.AuditRequest(), timeout=30)
        assert anyone.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as missing:
            stub.Audit(api.AuditRequest(run=99), metadata=ORGANIZER, timeout=30)
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        reply = stub.Audit(api.AuditRequest(), metadata=ORGANIZER, timeout=30)
    assert reply.clean and not reply.HasField("run") and reply.events == 12


ORGANIZER = (("authorization", "Bearer organizer-secret"),)

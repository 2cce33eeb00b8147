"""One bot across its hosted versions through the Arena API and ``arena`` as a user runs it
(real processes), against a real API on loopback over a real PostgreSQL: a bot's matches
and rating history hold its versions' (each naming the version that played), a version's
its own alone; the lines of ``arena matches`` mark unrated and test matches; ``arena
ratings`` lists a bot once, saying the version it plays as."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.store.store import Store
from tests.cli.common import arena, organizer_env
from tests.referee.test_api import ArenaReferee
from tests.versiondata import POOL, Versions, fill


@pytest.fixture
def served(
    database: str, store: Store, tmp_path: Path
) -> Iterator[tuple[Versions, Any, dict[str, str]]]:
    hc = fill(store, tmp_path / "code")
    ref = ArenaReferee(database)
    channel = grpc.insecure_channel(ref.server.address)
    env = organizer_env(database, tmp_path / "home") | {"ARENA_REFEREE_ADDRESS": ref.server.address}
    try:
        yield hc, arena_pb2_grpc.ArenaStub(channel), env
    finally:
        channel.close()
        ref.close()
        ref.store.close()


def test_a_bots_matches_and_history_on_the_api_hold_its_versions(served: Any) -> None:
    hc, stub, _ = served
    every = {*hc.matches["hc@1"], *hc.matches["hc@2"]}
    got = stub.ListMatches(api.ListMatchesRequest(bot="hc", page_size=200), timeout=10)
    assert {m.id for m in got.matches} == every and len(got.matches) == len(every)
    for m in got.matches:  # the seats name the version that played
        assert ("hc@1" in m.seats) == (m.id in hc.matches["hc@1"])
        assert ("hc@2" in m.seats) == (m.id in hc.matches["hc@2"])
        assert m.HasField("test_id") == m.id.startswith("sprt")
        assert m.rated != m.id.startswith("sprt")
    paged = stub.ListMatches(api.ListMatchesRequest(bot="hc", page_size=4), timeout=10)
    rest = stub.ListMatches(
        api.ListMatchesRequest(bot="hc", page_size=200, page_token=paged.next_page_token),
        timeout=10,
    )
    assert [m.id for m in paged.matches] + [m.id for m in rest.matches] == [
        m.id for m in got.matches
    ]
    one = stub.ListMatches(api.ListMatchesRequest(bot="hc@1"), timeout=10)
    assert {m.id for m in one.matches} == set(hc.matches["hc@1"])
    of_pool = stub.ListMatches(
        api.ListMatchesRequest(bot="hc", pool=POOL, page_size=200), timeout=10
    )
    assert {m.id for m in of_pool.matches} == every

    history = stub.GetRatingHistory(api.GetRatingHistoryRequest(bot="hc", pool=POOL), timeout=10)
    assert [c.played_as for c in history.changes] == ["hc@1"] * 3 + ["hc@2"] * 2
    assert [c.match_id for c in history.changes] == [*hc.matches["hc@1"], *hc.matches["hc@2"][:2]]
    own = stub.GetRatingHistory(api.GetRatingHistoryRequest(bot="hc@2", pool=POOL), timeout=10)
    assert list(own.changes) == list(history.changes)[3:]
    board = stub.GetLeaderboard(api.GetLeaderboardRequest(pool=POOL), timeout=10)
    assert [(s.bot, s.played_as) for s in board.standings if s.bot == "hc"] == [("hc", "hc@2")]
    assert sorted(s.bot for s in board.standings) == ["ana", "bia", "hc"]


def test_arena_matches_and_ratings_name_the_version_and_mark_tests(served: Any) -> None:
    hc, _, env = served
    done = arena("matches", "--bot", "hc", "--limit", "50", env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    every = {*hc.matches["hc@1"], *hc.matches["hc@2"]}
    assert {line.split()[0] for line in lines} == every and len(lines) == len(every)
    for line in lines:
        match_id = line.split()[0]
        version = "hc@1" if match_id in hc.matches["hc@1"] else "hc@2"
        assert version in line.split()
        tested = match_id.startswith("sprt")
        assert (f"[unrated]  [test {hc.test}]" in line) == tested, line
        assert line.endswith(f"[test {hc.test}]") == tested
    as_json = json.loads(arena("matches", "--bot", "hc", "--limit", "50", "--json", env=env).stdout)
    tests = {m["id"]: m.get("test_id") for m in as_json["matches"]}
    assert tests == {m: hc.test if m.startswith("sprt") else None for m in every}
    one = arena("matches", "--bot", "hc@1", env=env)
    assert {line.split()[0] for line in one.stdout.splitlines()} == set(hc.matches["hc@1"])

    ratings = arena("ratings", "--pool", POOL, env=env)
    assert ratings.returncode == 0, ratings.stderr
    assert "hc (as hc@2)" in ratings.stdout and "hc@1" not in ratings.stdout
    listed = json.loads(arena("ratings", "--pool", POOL, "--json", env=env).stdout)
    assert [(s["bot"], s["played_as"]) for s in listed["standings"] if s["bot"] == "hc"] == [
        ("hc", "hc@2")
    ]

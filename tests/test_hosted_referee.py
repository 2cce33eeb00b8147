"""The referee's side of hosted bots, on real gRPC and a real PostgreSQL: a version's
process, holding a match token, plays that one match and nothing else; a process that
never connects costs its own seat only. (The sandbox and the worker that starts the
processes have tests of their own: here the process is a plain child process.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import grpc
import pytest

import referee.api
from arena.hosted.tokens import match_token, token_key
from arena.proto.truco.v1 import arena_pb2 as api
from tests.test_api import ORGANIZER, arena  # noqa: F401 (the fixture)
from tests.test_archive import BOT, tar
from tests.test_hosting_api import register, submit
from tests.test_sessions import Client


def bot_process(address: str, token: str) -> subprocess.Popen[str]:
    """A house bot as a separate process, as a hosted version's would run."""
    command = [sys.executable, "-m", "arena.cli", "bot", "run", "house:random"]
    return subprocess.Popen(
        [*command, "--address", address, "--token", token],
        env=os.environ | {"ARENA_HOME": "/nonexistent"}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def run_match(stub: Any, match_id: str, seats: list[str]) -> Future[Any]:
    request = api.RunMatchRequest(match_id=match_id, seats=seats, seed=7)
    pool = ThreadPoolExecutor(1)
    future = pool.submit(stub.RunMatch, request, metadata=ORGANIZER, timeout=120)
    pool.shutdown(wait=False)
    return future


@pytest.fixture
def versions(arena: Any) -> tuple[Any, Any, bytes]:  # noqa: F811
    """The arena with alpha@1 (a version) and beta (a dial-in bot, connected)."""
    ref, stub = arena
    register(stub, "alpha")
    assert submit(stub, "alpha", tar(BOT), ORGANIZER).version.name == "alpha@1"
    return ref, stub, token_key(ref.store.deal_key())


def test_a_hosted_process_plays_its_match_then_its_token_opens_nothing(versions: Any) -> None:
    ref, stub, key = versions
    beta = bot_process(ref.server.address, register(stub, "beta"))
    ref.call(ref.hub.wait_for(["beta"], 60))
    token = match_token(key, "m-1", "alpha@1")
    hosted = bot_process(ref.server.address, token)  # may say hello before RunMatch comes
    try:
        record = json.loads(run_match(stub, "m-1", ["alpha@1", "beta"]).result().record_json)
        assert record["seats"] == ["alpha@1", "beta"]
        assert record["faults"]["alpha@1"] == {
            "timeouts": 0, "rejected": 0, "disconnects": 0, "substituted": 0,
        }  # fmt: skip
        assert hosted.wait(timeout=30) == 0  # its one match played, it is done
        late = Client(ref.server.address)
        late.hello(token)
        refused = late.error()
        assert refused.code() == grpc.StatusCode.UNAUTHENTICATED
        assert "'m-1', is over" in refused.details()
        late.close()
    finally:
        for process in (beta, hosted):
            process.kill()
            process.wait()


def test_a_match_token_is_good_for_its_own_match_only(
    versions: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, _, key = versions
    monkeypatch.setattr(referee.server, "HOSTED_HELLO_S", 0.2)
    other = Client(ref.server.address)
    other.hello(match_token(key, "m-2", "alpha@1"))  # m-2 is not playing here
    assert "'m-2', is not playing here" in other.error().details()
    forged = Client(ref.server.address)
    forged.hello(match_token(b"not the arena's key", "m-2", "alpha@1"))
    assert forged.error().details() == "unknown token"
    for client in (other, forged):
        client.close()


def test_a_hosted_bot_that_never_connects_loses_its_own_seat_only(
    versions: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, stub, _ = versions
    monkeypatch.setattr(referee.api, "HOSTED_START_S", 0.5)
    beta = bot_process(ref.server.address, register(stub, "beta"))
    try:
        ref.call(ref.hub.wait_for(["beta"], 60))
        record = json.loads(run_match(stub, "m-3", ["alpha@1", "beta"]).result().record_json)
        alpha = record["faults"]["alpha@1"]  # away from the start, as a dial-in bot can be
        assert alpha["disconnects"] == 1 and alpha["timeouts"] + alpha["substituted"] > 0
        assert record["faults"]["beta"] == {
            "timeouts": 0, "rejected": 0, "disconnects": 0, "substituted": 0,
        }  # fmt: skip
    finally:
        beta.kill()
        beta.wait()

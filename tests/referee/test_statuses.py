"""What errors become at the edges, on real gRPC on loopback and real HTTP: each kind of
arena.errors (and the engine's typed errors) its status with its reason; an unexpected
exception, a ValueError included, INTERNAL on the Arena API and 500 on the web, logged
once with its traceback and its details kept from the caller."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import grpc
import pytest
from starlette.testclient import TestClient

from arena.engine import RulesError, TrucoError
from arena.errors import (
    Exhausted,
    Exists,
    Forbidden,
    Invalid,
    NotFound,
    NotReady,
    Sealed,
    Unauthenticated,
    Unavailable,
)
from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.read import tournaments as read_tournaments
from arena.store.store import Store
from arena.web import create_app
from referee.statuses import STATUS, Statuses
from tests.referee.test_api import ORGANIZER, arena  # noqa: F401 (the fixture)

KINDS: list[tuple[Exception, grpc.StatusCode]] = [
    (NotFound("no bot 'x'"), grpc.StatusCode.NOT_FOUND),
    (Exists("bot 'x' exists"), grpc.StatusCode.ALREADY_EXISTS),
    (Invalid("matches must be from 1"), grpc.StatusCode.INVALID_ARGUMENT),
    (RulesError("no preset 'x'"), grpc.StatusCode.INVALID_ARGUMENT),
    (Forbidden("not yours"), grpc.StatusCode.PERMISSION_DENIED),
    (Unauthenticated("give a token"), grpc.StatusCode.UNAUTHENTICATED),
    (NotReady("bot 'x' is not connected"), grpc.StatusCode.FAILED_PRECONDITION),
    (Sealed("its twin is unplayed"), grpc.StatusCode.FAILED_PRECONDITION),
    (Unavailable("no database"), grpc.StatusCode.UNAVAILABLE),
    (Exhausted("too many uploads"), grpc.StatusCode.RESOURCE_EXHAUSTED),
]
BUGS = [ValueError("a bug's words"), KeyError("a bug's key"), AssertionError("a bug")]


class Raising(arena_pb2_grpc.ArenaServicer):
    """GetTest raises the error numbered by the request's id."""

    def __init__(self, errors: list[Exception]) -> None:
        self.errors = errors

    async def GetTest(self, request: Any, context: Any) -> api.SprtTest:
        raise self.errors[request.id]


def calls(errors: list[Exception]) -> list[grpc.RpcError]:
    """What a client gets of each error, raised by an Arena service behind the
    interceptor on a real server."""

    async def go() -> list[grpc.RpcError]:
        server = grpc.aio.server(interceptors=[Statuses()])
        arena_pb2_grpc.add_ArenaServicer_to_server(Raising(errors), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        got = []
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = arena_pb2_grpc.ArenaStub(channel)
                for number in range(len(errors)):
                    with pytest.raises(grpc.RpcError) as e:
                        await stub.GetTest(api.GetTestRequest(id=number), timeout=10)
                    got.append(e.value)
        finally:
            await server.stop(None)
        return got

    return asyncio.run(go())


def test_each_kind_is_its_status_with_its_reason() -> None:
    assert {TrucoError if isinstance(e, TrucoError) else type(e) for e, _ in KINDS} == set(STATUS)
    got = calls([e for e, _ in KINDS])
    for (error, code), status in zip(KINDS, got, strict=True):
        assert (status.code(), status.details()) == (code, str(error))


def test_a_bug_is_internal_and_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    for bug in BUGS:
        caplog.clear()
        with caplog.at_level(logging.INFO):
            (got,) = calls([bug])
        assert got.code() == grpc.StatusCode.INTERNAL
        assert got.details() == "GetTest failed; see the server's log"
        assert str(bug) not in got.details()
        logged = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(logged) == 1 and logged[0].exc_info is not None
        assert logged[0].exc_info[1] is bug


def test_a_bug_in_a_real_rpc_is_internal(
    arena: Any,  # noqa: F811 (the fixture)
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    _, stub = arena

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("not the caller's mistake")

    monkeypatch.setattr(read_tournaments, "run_state", broken)
    with pytest.raises(grpc.RpcError) as e:
        stub.GetRun(api.GetRunRequest(id=1), timeout=10)
    assert e.value.code() == grpc.StatusCode.INTERNAL
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == [
        "GetRun failed"
    ]
    same = api.StartTestRequest(new_bot="ana", base_bot="ana", elo0=0, elo1=10)
    with pytest.raises(grpc.RpcError) as e:  # a mistake the store takes for a bug
        stub.StartTest(same, metadata=ORGANIZER, timeout=10)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    request = api.RequestMatchRequest(bots=["a", "b"], rules="nonsense")
    with pytest.raises(grpc.RpcError) as e:  # the engine's error: the caller's mistake
        stub.RequestMatch(request, metadata=ORGANIZER, timeout=10)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "nonsense" in e.value.details()


def test_the_web_answers_a_mistake_with_its_reason_and_a_bug_with_500(
    store: Store, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    client = TestClient(create_app(store, organizer_token="secret"), raise_server_exceptions=False)
    mistake = client.get("/api/matches/m-1?hand=x")
    assert mistake.status_code == 400
    assert mistake.json()["error"].startswith("hand must be a whole number")
    assert client.get("/matches/m-1?hand=x").status_code == 400  # the page, as the twin

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("a bug's words")

    monkeypatch.setattr(read_tournaments, "tournaments", broken)
    with caplog.at_level(logging.INFO):
        bug = client.get("/api/tournaments")
    assert bug.status_code == 500 and "a bug's words" not in bug.text
    assert "on our side" in bug.json()["error"]
    logged = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(logged) == 1 and logged[0].exc_info is not None
    page = client.get("/tournaments")
    assert page.status_code == 500 and "Internal error" in page.text

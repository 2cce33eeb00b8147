"""The Arena API's analyses (referee/api/analyses.py) on real gRPC and PostgreSQL: who
calls and what each refusal becomes, and what is handed to the workers (a dispatcher
that keeps what it is given: the workers' side is tests/cli/test_analyse.py's)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from arena.domain.analyses import PER_DAY
from arena.domain.tournament import Definition
from arena.engine import Rules
from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.store.migrate import migrate
from arena.store.store import Store, StoreTokens
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from referee.api import ArenaApi
from referee.hub import Hub
from referee.server import create_server
from referee.sessions import MemoryTokens
from tests.referee.test_api import ORGANIZER
from tests.referee.test_sessions import Referee
from tests.webdata import played, start_run


class Kept:
    """A dispatcher that keeps the analyses it is given."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []

    def analyse(self, match_id: str, samples: int) -> None:
        self.sent.append((match_id, samples))


class AnalysingReferee(Referee):
    def __init__(self, database: str) -> None:
        migrate(database)
        self.store = Store(database)
        self.kept = Kept()
        super().__init__()

    async def _start(self) -> Any:
        self.hub = Hub(MemoryTokens(fallback=StoreTokens(self.store)))
        api_ = ArenaApi(self.store, "organizer-secret", dispatch=self.kept)  # type: ignore[arg-type]
        server = create_server("127.0.0.1:0", self.hub, api_)
        await server.start()
        return server


@pytest.fixture
def analysing(database: str) -> Iterator[tuple[AnalysingReferee, Any]]:
    ref = AnalysingReferee(database)
    channel = grpc.insecure_channel(ref.server.address)
    yield ref, arena_pb2_grpc.ArenaStub(channel)
    channel.close()
    ref.close()
    ref.store.close()


def refused(call: Any, request: Any, metadata: Any = ()) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as e:
        call(request, metadata=metadata, timeout=10)
    return e.value


def test_who_may_ask_and_what_goes_to_the_workers(analysing: Any) -> None:
    ref, stub = analysing
    store = ref.store
    ids = [store.register_bot(n, owner="ana")[0].id for n in ("alpha", "beta")]
    _, gamma = store.register_bot("gamma")
    alpha = store.rotate_token("alpha")[1]
    request_match(store, "m-1", Rules(), ids, seed=1)
    record_match(store, "m-1", played(Rules(), ["alpha", "beta"], 1))
    ask = api.AnalyseMatchRequest(match_id="m-1", samples=8)

    anyone = refused(stub.AnalyseMatch, ask)
    assert anyone.code() == grpc.StatusCode.UNAUTHENTICATED
    other = refused(stub.AnalyseMatch, ask, (("authorization", f"Bearer {gamma}"),))
    assert other.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "did not play in match m-1" in other.details()
    assert ref.kept.sent == []

    own = (("authorization", f"Bearer {alpha}"),)
    reply = stub.AnalyseMatch(ask, metadata=own, timeout=10)
    assert list(reply.asked) == [0] and reply.pending
    assert [a["seat"] for a in json.loads(reply.analyses_json)] == [0]
    for _ in range(3):  # asked again while pending: nothing more is sent (the sweep's)
        again = stub.AnalyseMatch(ask, metadata=own, timeout=10)
        assert list(again.asked) == [] and again.pending
    assert ref.kept.sent == [("m-1", 8)]
    every = stub.AnalyseMatch(ask, metadata=ORGANIZER, timeout=10)
    assert list(every.asked) == [1] and ref.kept.sent == [("m-1", 8), ("m-1", 8)]
    read = stub.GetAnalysis(api.GetAnalysisRequest(match_id="m-1"), timeout=10)
    assert json.loads(read.analyses_json) == []  # anyone sees no seat's analysis

    for k in range(PER_DAY - 1):  # alpha's owner asked for one already
        request_match(store, f"m-{k + 2}", Rules(), ids, seed=k + 2)
        record_match(store, f"m-{k + 2}", played(Rules(), ["alpha", "beta"], k + 2))
        stub.AnalyseMatch(api.AnalyseMatchRequest(match_id=f"m-{k + 2}"), metadata=own)
    request_match(store, "m-over", Rules(), ids, seed=99)
    record_match(store, "m-over", played(Rules(), ["alpha", "beta"], 99))
    over = refused(stub.AnalyseMatch, api.AnalyseMatchRequest(match_id="m-over"), own)
    assert over.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert f"cap of {PER_DAY} a day" in over.details()

    duplicate = Definition("dup", bots=("alpha", "beta"), duplicate=True, trusted=True)
    _, twins = start_run(store, duplicate)
    row, seats = store.match(twins[0])  # type: ignore[misc]
    record_match(store, row.id, played(Rules.parse(row.rules), seats, 1))
    sealed = refused(stub.AnalyseMatch, api.AnalyseMatchRequest(match_id=row.id), ORGANIZER)
    assert sealed.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "duplicate twin" in sealed.details()
    budget = refused(stub.AnalyseMatch, api.AnalyseMatchRequest(match_id="m-1", samples=5000),
                     ORGANIZER)  # fmt: skip
    assert budget.code() == grpc.StatusCode.INVALID_ARGUMENT

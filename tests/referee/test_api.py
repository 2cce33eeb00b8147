"""The Arena API on real gRPC and a real PostgreSQL: the organizer registers bots, a
registered bot's token opens a Referee session, ratings read back; and the CLI does the
same against a running `arena serve`."""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2
from google.protobuf.json_format import MessageToDict
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2
from starlette.testclient import TestClient

from arena import guard
from arena.embedded import stop_embedded_postgres, stop_embedded_redis
from arena.engine import Rules
from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.store.migrate import migrate
from arena.store.store import Store, StoreTokens
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from arena.usecases.runs import create_run, plan_run
from arena.web import create_app
from referee.api import ArenaApi
from referee.hub import Hub
from referee.server import create_server
from referee.sessions import MemoryTokens
from tests.referee.test_sessions import Client, Referee
from tests.store.test_store import played

ORGANIZER = (("authorization", "Bearer organizer-secret"),)


class ArenaReferee(Referee):
    """A referee with the Arena API, on a store."""

    def __init__(self, database: str) -> None:
        migrate(database)
        self.store = Store(database)
        super().__init__()

    async def _start(self) -> Any:
        self.hub = Hub(MemoryTokens(fallback=StoreTokens(self.store)))
        server = create_server("127.0.0.1:0", self.hub, ArenaApi(self.store, "organizer-secret"))
        await server.start()
        return server


@pytest.fixture
def arena(database: str) -> Iterator[tuple[ArenaReferee, arena_pb2_grpc.ArenaStub]]:
    ref = ArenaReferee(database)
    channel = grpc.insecure_channel(ref.server.address)
    yield ref, arena_pb2_grpc.ArenaStub(channel)
    channel.close()
    ref.close()
    ref.store.close()


def test_registering_needs_the_organizer(arena: Any) -> None:
    _, stub = arena
    request = api.RegisterBotRequest(name="alpha")
    with pytest.raises(grpc.RpcError) as none:
        stub.RegisterBot(request, timeout=10)
    assert none.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as wrong:
        stub.RegisterBot(request, metadata=(("authorization", "Bearer guess"),), timeout=10)
    assert wrong.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_a_registered_bot_connects_with_its_token(arena: Any) -> None:
    ref, stub = arena
    reply = stub.RegisterBot(api.RegisterBotRequest(name="alpha", owner="ana"), metadata=ORGANIZER)
    assert (reply.bot.name, reply.bot.owner) == ("alpha", "ana") and len(reply.token) > 30
    client = Client(ref.server.address)
    client.hello(reply.token)
    assert client.next().welcome.bot == "alpha"
    client.close()
    names = [b.name for b in stub.ListBots(api.ListBotsRequest(), timeout=10).bots]
    assert names == ["alpha"]


HOSTED = {
    "truco.v1.Referee",
    "truco.v1.Arena",
    "grpc.health.v1.Health",
    "grpc.reflection.v1alpha.ServerReflection",
    "grpc.reflection.v1.ServerReflection",
}


def test_health_and_reflection_cover_every_service_hosted(arena: Any) -> None:
    ref, _ = arena
    with grpc.insecure_channel(ref.server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", *HOSTED):
            request = health_pb2.HealthCheckRequest(service=service)
            status = health.Check(request, timeout=10).status
            assert status == health_pb2.HealthCheckResponse.SERVING, service
        names = sorted(HOSTED)
        asks = [reflection_pb2.ServerReflectionRequest(list_services="")] + [
            reflection_pb2.ServerReflectionRequest(file_containing_symbol=name) for name in names
        ]
        for version in ("v1alpha", "v1"):  # the same messages on the wire
            info = channel.stream_stream(
                f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
                request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
            )
            listed, *described = info(iter(asks), timeout=10)
            assert {s.name for s in listed.list_services_response.service} == HOSTED, version
            for name, answer in zip(names, described, strict=True):
                files = [
                    descriptor_pb2.FileDescriptorProto.FromString(raw)
                    for raw in answer.file_descriptor_response.file_descriptor_proto
                ]
                declared = {f"{f.package}.{s.name}" for f in files for s in f.service}
                assert name in declared, (version, name, answer.error_response)


@pytest.mark.parametrize(
    ("name", "code"),
    [("alpha", grpc.StatusCode.ALREADY_EXISTS), ("no spaces", grpc.StatusCode.INVALID_ARGUMENT)],
)
def test_bad_registrations_get_the_right_status(arena: Any, name: str, code: Any) -> None:
    _, stub = arena
    stub.RegisterBot(api.RegisterBotRequest(name="alpha"), metadata=ORGANIZER)
    with pytest.raises(grpc.RpcError) as caught:
        stub.RegisterBot(api.RegisterBotRequest(name=name), metadata=ORGANIZER)
    assert caught.value.code() == code and caught.value.details()


def test_the_leaderboard_shows_recorded_matches(arena: Any) -> None:
    ref, stub = arena
    assert list(stub.GetLeaderboard(api.GetLeaderboardRequest(), timeout=10).standings) == []
    a, _ = ref.store.register_bot("alpha")
    b, _ = ref.store.register_bot("beta")
    request_match(ref.store, "m", Rules(), [a.id, b.id], seed=3)
    record = played(Rules(), 3)
    record_match(ref.store, "m", record)
    board = stub.GetLeaderboard(api.GetLeaderboardRequest(pool="paulista/1"), timeout=10)
    winner = ["alpha", "beta"][record["result"]["winner"]]
    top = board.standings[0]
    assert (top.rank, top.bot, top.games, top.provisional) == (1, winner, 1, True)
    assert len(board.standings) == 2


@pytest.mark.parametrize(
    ("method", "request_message"),
    [
        ("GetLeaderboard", api.GetLeaderboardRequest(pool="nonsense")),
        ("GetRatingHistory", api.GetRatingHistoryRequest(bot="alpha", pool="nonsense")),
        ("ListMatches", api.ListMatchesRequest(pool="nonsense")),
    ],
)
def test_a_pool_that_cannot_exist_is_refused(arena: Any, method: str, request_message: Any) -> None:
    _, stub = arena
    with pytest.raises(grpc.RpcError) as caught:
        getattr(stub, method)(request_message, timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "no pool 'nonsense'" in caught.value.details()


def test_a_pool_where_nothing_was_played_yet_answers_empty(arena: Any) -> None:
    _, stub = arena
    board = stub.GetLeaderboard(api.GetLeaderboardRequest(pool="tradicional/02"), timeout=10)
    assert (board.pool, list(board.standings)) == ("tradicional/2", [])  # written the usual way


@pytest.mark.usefixtures("migrated")  # its processes do not migrate
def test_the_cli_registers_lists_and_reads_ratings_through_arena_serve(database: str) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "ARENA_DATABASE_URL": database,
        "ARENA_ADMIN_TOKEN": "organizer-secret",
        "ARENA_REFEREE_ADDRESS": f"127.0.0.1:{port}",
    }
    serve = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve"], env=env, text=True)

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena.cli", *args], env=env, capture_output=True, text=True,
            timeout=60,
        )  # fmt: skip

    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
        done = arena("bot", "register", "alpha", "--owner", "ana")
        assert done.returncode == 0, done.stderr
        token = done.stdout.splitlines()[-1]
        assert len(token) > 30
        again = arena("bot", "register", "alpha")
        assert again.returncode == 1 and "already exists" in again.stderr
        assert "alpha" in arena("bot", "list").stdout
        ratings = arena("ratings", "--json")
        assert ratings.returncode == 0
        assert json.loads(ratings.stdout) == {"pool": "paulista/1", "standings": []}
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=20) == 0
    finally:
        serve.kill()
        serve.wait()


@pytest.mark.usefixtures("migrated")  # its processes do not migrate
@pytest.mark.parametrize("server", ["real", "embedded"])
def test_registered_bots_play_through_arena_serve_and_are_rated(
    server: str, database: str, open_tmp: Any
) -> None:
    tmp_path = open_tmp  # the embedded PostgreSQL's home (tests/conftest.py open_folder)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "ARENA_HOME": str(tmp_path / "home"),
        "ARENA_ADMIN_TOKEN": "organizer-secret",
        "ARENA_REFEREE_ADDRESS": f"127.0.0.1:{port}",
    }
    env.pop("ARENA_DATABASE_URL", None)
    env.pop("ARENA_BROKER_URL", None)  # the embedded Redis under the home
    env["ARENA_QUEUE"] = f"arena-test-{os.getpid()}-{server}"
    if server == "real":
        env["ARENA_DATABASE_URL"] = database
    serve = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve"], env=env, text=True)
    # the workers play what `arena challenge` asks for, as they play tournaments
    worker = [sys.executable, "-m", "arena.cli", "worker", "--concurrency", "4"]
    bots: list[subprocess.Popen[str]] = [subprocess.Popen(worker, env=env, text=True)]

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", *args], env=env, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done

    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
        for name, house in (("alpha", "house:random"), ("beta", "house:heuristic")):
            token = arena("bot", "register", name).stdout.splitlines()[-1]
            bot_env = {**env, "ARENA_ADDRESS": env["ARENA_REFEREE_ADDRESS"], "ARENA_TOKEN": token}
            bots.append(subprocess.Popen(
                [sys.executable, "-m", "arena.cli", "bot", "run", house], env=bot_env, text=True
            ))  # fmt: skip
        # the bots connect in their own time: ask until both are there (the referee says so)
        for _ in range(120):
            done = subprocess.run(
                [sys.executable, "-m", "arena.cli", "challenge", "alpha", "beta", "--games", "2",
                 "--wait"],
                env=env, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            if done.returncode == 0 or "is not connected" not in done.stderr:
                break
        assert done.returncode == 0, done.stderr
        assert done.stdout.count("won by") == 2
        ratings = json.loads(arena("ratings", "--json").stdout)
        assert {s["bot"] for s in ratings["standings"]} == {"alpha", "beta"}
        assert all(s["games"] == 2 for s in ratings["standings"])
        listed = arena("matches", "--bot", "alpha").stdout.splitlines()
        assert len(listed) == 2
        match_id = listed[0].split()[0]
        record = json.loads(arena("match", "show", match_id, "--json").stdout)
        replayed = subprocess.run(
            [sys.executable, "-m", "arena.cli", "replay", "-"], input=json.dumps(record),
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert replayed.returncode == 0, replayed.stderr
        # without the organizer's token the record keeps hidden cards hidden
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            public = arena_pb2_grpc.ArenaStub(channel).GetMatch(
                api.GetMatchRequest(id=match_id), timeout=10
            )
        hands = json.loads(public.record_json)["hands"]
        assert any(None in cards for hand in hands for cards in hand["cards"])
    finally:
        for process in [*bots, serve]:
            process.send_signal(signal.SIGTERM)
        for process in [*bots, serve]:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        stop_embedded_postgres(tmp_path / "home")  # it outlives `arena serve` on purpose
        stop_embedded_redis(tmp_path / "home")


def test_rotating_a_token_retires_the_old_one(arena: Any) -> None:
    ref, stub = arena
    old = stub.RegisterBot(api.RegisterBotRequest(name="alpha"), metadata=ORGANIZER).token
    new = stub.RotateToken(api.RotateTokenRequest(name="alpha"), metadata=ORGANIZER).token
    assert new != old
    client = Client(ref.server.address)
    client.hello(old)
    assert client.error().code() == grpc.StatusCode.UNAUTHENTICATED
    client.close()
    client = Client(ref.server.address)
    client.hello(new)
    assert client.next().welcome.bot == "alpha"
    client.close()
    with pytest.raises(grpc.RpcError) as caught:
        stub.RotateToken(api.RotateTokenRequest(name="nobody"), metadata=ORGANIZER)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_rotating_a_token_ends_the_session_opened_with_the_old_one(arena: Any) -> None:
    ref, stub = arena
    old = stub.RegisterBot(api.RegisterBotRequest(name="alpha"), metadata=ORGANIZER).token
    client = Client(ref.server.address)
    client.hello(old)
    assert client.next().welcome.bot == "alpha"
    new = stub.RotateToken(api.RotateTokenRequest(name="alpha"), metadata=ORGANIZER).token
    assert "alpha" not in ref.hub.sessions  # gone when the rotation returns: seats held
    error = client.error()
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED and "rotated" in error.details()
    client.close()
    again = Client(ref.server.address)
    again.hello(new)
    assert again.next().welcome.bot == "alpha"
    again.close()


def test_rating_history_and_intervals_follow_the_recorded_matches(arena: Any) -> None:
    ref, stub = arena
    a, _ = ref.store.register_bot("alpha")
    b, _ = ref.store.register_bot("beta")
    for k in range(6):
        seats = [a.id, b.id] if k % 2 == 0 else [b.id, a.id]
        request_match(ref.store, f"h{k}", Rules(), seats, seed=k)
        record_match(ref.store, f"h{k}", played(Rules(), k))
    history = stub.GetRatingHistory(api.GetRatingHistoryRequest(bot="alpha"), timeout=10).changes
    assert [c.match_id for c in history] == [f"h{k}" for k in range(6)]
    assert all(x.after == y.before for x, y in itertools.pairwise(history))  # one bot pair
    board = stub.GetLeaderboard(api.GetLeaderboardRequest(), timeout=10).standings
    for s in board:
        assert s.low < s.elo < s.high, "six games leave a wide interval around each rating"
        assert s.high - s.low == pytest.approx(board[0].high - board[0].low)  # two players


def test_matches_list_newest_first_a_page_at_a_time_by_bot_and_time(arena: Any) -> None:
    ref, stub = arena
    a, _ = ref.store.register_bot("alpha")
    b, _ = ref.store.register_bot("beta")
    c, _ = ref.store.register_bot("gamma")
    for k in range(5):
        request_match(ref.store, f"p{k}", Rules(), [a.id, b.id if k < 3 else c.id], seed=k)
    seen: list[str] = []
    token = ""
    while True:
        page = stub.ListMatches(api.ListMatchesRequest(page_size=2, page_token=token), timeout=10)
        seen += [m.id for m in page.matches]
        token = page.next_page_token
        if not token:
            break
    assert seen == ["p4", "p3", "p2", "p1", "p0"]
    gamma = stub.ListMatches(api.ListMatchesRequest(bot="gamma"), timeout=10).matches
    assert [m.id for m in gamma] == ["p4", "p3"] and list(gamma[0].seats) == ["alpha", "gamma"]
    later = stub.ListMatches(api.ListMatchesRequest(since="2999-01-01T00:00:00Z"), timeout=10)
    assert list(later.matches) == []
    days = [stub.ListMatches(api.ListMatchesRequest(**{edge: "yesterday"}), timeout=10).matches
            for edge in ("since", "until")]  # fmt: skip
    assert [len(day) for day in days] == [5, 0]  # midnight yesterday, UTC: every match is later


FORMS = "give an RFC 3339 time, a date, or an age such as 2h or 3d"


@pytest.mark.parametrize(
    ("request_fields", "details"),
    [
        ({"page_token": "nonsense"}, "page_token: not one this server gave; send the "
         "next_page_token of the page before, or none for the first page"),
        ({"since": "yesterdy"}, f"since: 'yesterdy' is not a time: {FORMS}"),
        ({"since": "2h", "until": "2026-11-31"}, f"until: '2026-11-31' is not a time: {FORMS}"),
    ],
)  # fmt: skip
def test_a_bad_match_list_request_names_the_field_at_fault(
    arena: Any, request_fields: dict[str, str], details: str
) -> None:
    _, stub = arena
    with pytest.raises(grpc.RpcError) as caught:
        stub.ListMatches(api.ListMatchesRequest(**request_fields), timeout=10)
    assert (caught.value.code(), caught.value.details()) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        details,
    )


@pytest.mark.parametrize(
    ("request_fields", "code"),
    [
        ({"bots": ["alpha", "beta"], "matches": 10**6}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"bots": ["alpha", "beta"], "rules": "mineiro"}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"bots": ["alpha", "beta"], "matches": 0}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"bots": ["alpha", "beta"], "decision_ms": 0}, grpc.StatusCode.INVALID_ARGUMENT),
        (
            {"bots": ["alpha", "beta"], "reconnect_grace_ms": 2**32 - 1},
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        ({"bots": ["alpha", "beta", "gamma"]}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"bots": ["alpha", "nobody"]}, grpc.StatusCode.NOT_FOUND),
        ({"bots": ["alpha", "beta"]}, grpc.StatusCode.FAILED_PRECONDITION),  # not connected
    ],
)
def test_match_requests_that_cannot_be_played_are_refused(
    arena: Any, request_fields: dict[str, Any], code: Any
) -> None:
    ref, stub = arena
    ref.store.register_bot("alpha")
    ref.store.register_bot("beta")
    with pytest.raises(grpc.RpcError) as caught:
        stub.RequestMatch(api.RequestMatchRequest(**request_fields), metadata=ORGANIZER)
    assert caught.value.code() == code and caught.value.details()


def test_the_api_and_the_pages_show_one_read_model(arena: Any) -> None:
    """The same numbers, and the same "no value", through the API and the web's JSON."""
    ref, stub = arena
    a, _ = ref.store.register_bot("alpha")
    b, _ = ref.store.register_bot("beta")
    for k in range(3):
        request_match(ref.store, f"r{k}", Rules(), [a.id, b.id], seed=k)
        record_match(ref.store, f"r{k}", played(Rules(), k))
    ref.store.register_bot("gamma")
    definition = api.TournamentDefinition(
        name="weekly", bots=["alpha", "gamma"], reconnect_grace_ms=5000, schedule="0 3 * * *"
    )
    stub.CreateTournament(api.CreateTournamentRequest(definition=definition), metadata=ORGANIZER)
    web = TestClient(create_app(ref.store, organizer_token="organizer-secret"))

    page = web.get("/api/pools/paulista/1").json()["standings"]
    board = stub.GetLeaderboard(api.GetLeaderboardRequest(), timeout=10).standings
    keys = ("rank", "bot", "elo", "games", "wins", "losses", "provisional", "low", "high")
    shown = [
        {k: getattr(s, k) if k not in ("low", "high") or s.HasField(k) else None for k in keys}
        for s in board
    ]
    assert shown == [{k: line[k] for k in keys} for line in page]

    history = stub.GetRatingHistory(api.GetRatingHistoryRequest(bot="alpha"), timeout=10)
    bot_page = web.get("/api/bots/alpha").json()
    assert [MessageToDict(c, preserving_proto_field_name=True) for c in history.changes] == (
        bot_page["history"]
    )

    listed = stub.ListTournaments(api.ListTournamentsRequest(), timeout=10).tournaments[0]
    table = web.get("/api/tournaments").json()["tournaments"][0]
    for name, value in table["definition"].items():  # every field of the definition
        got = getattr(listed.definition, name)
        repeated = name in ("bots", "tiebreaks")
        assert (list(got) if repeated else got) == (value or ([] if repeated else type(got)())), (
            name
        )
    assert listed.definition.reconnect_grace_ms == table["definition"]["reconnect_grace_ms"]
    assert listed.next_firing == table["schedule"]["next"]


def definition_of(stub: Any, name: str, metadata: Any = ()) -> Any:
    listed = stub.ListTournaments(api.ListTournamentsRequest(), metadata=metadata, timeout=10)
    return next(t.definition for t in listed.tournaments if t.definition.name == name)


def test_zero_is_a_value_and_unset_is_the_default(arena: Any) -> None:
    ref, stub = arena
    ref.store.register_bot("alpha")
    ref.store.register_bot("beta")
    zero = api.TournamentDefinition(
        name="zero", bots=["alpha", "beta"], time_bank_ms=0, reconnect_grace_ms=0
    )
    stub.CreateTournament(api.CreateTournamentRequest(definition=zero), metadata=ORGANIZER)
    made = definition_of(stub, "zero")
    assert (made.time_bank_ms, made.reconnect_grace_ms) == (0, 0)
    assert (made.decision_ms, made.matches, made.duplicate) == (1000, 2, False)
    run = create_run(ref.store, ref.store.tournament("zero"))  # type: ignore[arg-type]
    ids = plan_run(ref.store, run.id)  # type: ignore[union-attr]
    clock = ref.store.claim_match(ids[0])[0].clock
    assert clock == {"decision_ms": 1000, "time_bank_ms": 0, "reconnect_grace_ms": 0}


@pytest.mark.parametrize(
    ("fields", "code", "said"),
    [
        ({"matches": 0}, grpc.StatusCode.INVALID_ARGUMENT, "matches per pairing"),
        ({"decision_ms": 0}, grpc.StatusCode.INVALID_ARGUMENT, "decision_ms"),
        ({"decision_ms": 2**32 - 1}, grpc.StatusCode.INVALID_ARGUMENT, "decision_ms"),
        ({"reconnect_grace_ms": 2**32 - 1}, grpc.StatusCode.INVALID_ARGUMENT, "grace"),
        ({"seed": 2**64 - 1, "trusted": True}, grpc.StatusCode.INVALID_ARGUMENT, "a seed is"),
        ({"duplicate": True}, grpc.StatusCode.INVALID_ARGUMENT, "twin match"),
        ({"seed": 5}, grpc.StatusCode.INVALID_ARGUMENT, "fixed seed"),
        ({"bots": [], "pool": "nowhere/1"}, grpc.StatusCode.INVALID_ARGUMENT, "no pool"),
        ({"bots": [], "pool": "paulista/1", "format": "gauntlet", "challenger": "any text"},
         grpc.StatusCode.INVALID_ARGUMENT, "not a bot name"),
        ({"bots": [], "pool": "paulista/1", "format": "gauntlet", "challenger": "nobody"},
         grpc.StatusCode.NOT_FOUND, "nobody"),
        ({"name": "a\x00b"}, grpc.StatusCode.INVALID_ARGUMENT, "tournament name"),
    ],
)  # fmt: skip
def test_tournaments_that_cannot_be_played_are_refused_clearly(
    arena: Any, fields: dict[str, Any], code: Any, said: str
) -> None:
    ref, stub = arena
    ref.store.register_bot("alpha")
    ref.store.register_bot("beta")
    definition = api.TournamentDefinition(**{"name": "t", "bots": ["alpha", "beta"], **fields})
    with pytest.raises(grpc.RpcError) as caught:
        stub.CreateTournament(
            api.CreateTournamentRequest(definition=definition), metadata=ORGANIZER
        )
    assert caught.value.code() == code and said in caught.value.details()
    assert len(caught.value.details()) < 300


def test_seeds_are_for_the_organizers_eyes_only(arena: Any) -> None:
    ref, stub = arena
    ref.store.register_bot("alpha")
    ref.store.register_bot("beta")
    fixed = api.TournamentDefinition(
        name="fixed", bots=["alpha", "beta"], seed=4242, trusted=True, duplicate=True
    )
    stub.CreateTournament(api.CreateTournamentRequest(definition=fixed), metadata=ORGANIZER)
    run = create_run(ref.store, ref.store.tournament("fixed"))  # type: ignore[arg-type]
    assert run is not None
    anyone = stub.GetRun(api.GetRunRequest(id=run.id), timeout=10)
    assert not anyone.HasField("seed") and not anyone.definition.HasField("seed")
    assert not definition_of(stub, "fixed").HasField("seed")
    organizer = stub.GetRun(api.GetRunRequest(id=run.id), metadata=ORGANIZER, timeout=10)
    assert organizer.seed == run.seed and organizer.definition.seed == 4242
    assert definition_of(stub, "fixed", ORGANIZER).seed == 4242


@pytest.mark.parametrize("key", ["\u00b2", "-1", "9" * 5000, "a\x00b", "x" * 60_000])
def test_odd_ids_and_names_are_not_found_not_a_crash(arena: Any, key: str) -> None:
    _, stub = arena
    calls = [
        ("StartTournament", api.StartTournamentRequest(tournament=key)),
        ("GetMatch", api.GetMatchRequest(id=key)),
        ("RotateToken", api.RotateTokenRequest(name=key)),
    ]
    for method, request in calls:
        with pytest.raises(grpc.RpcError) as caught:
            getattr(stub, method)(request, metadata=ORGANIZER, timeout=10)
        assert caught.value.code() in (
            grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT,
        ), (method, caught.value.details()[:200])  # fmt: skip
        assert len(caught.value.details()) < 300  # what was sent is quoted short


def nul_everywhere(message: Any) -> Any:
    """``message`` with every string field, nested ones too, holding a NUL byte."""
    for field in message.DESCRIPTOR.fields:
        if field.type == field.TYPE_STRING:
            if field.is_repeated:
                getattr(message, field.name).append("a\x00b")
            else:
                setattr(message, field.name, "a\x00b")
        elif field.type == field.TYPE_MESSAGE and not field.is_repeated:
            nul_everywhere(getattr(message, field.name))
    return message


@pytest.mark.parametrize("who", ["anyone", "organizer"])
def test_a_nul_byte_in_any_call_gets_a_clear_status(arena: Any, who: str) -> None:
    _, stub = arena
    metadata = ORGANIZER if who == "organizer" else ()
    service = api.DESCRIPTOR.services_by_name["Arena"]
    for method in service.methods:
        request = nul_everywhere(getattr(api, method.input_type.name)())
        if method.client_streaming:  # SubmitBot: the manifest, then a chunk
            request = iter([nul_everywhere(api.SubmitBotRequest(manifest=api.BotManifest())),
                            api.SubmitBotRequest(chunk=b"\x00")])  # fmt: skip
        try:
            reply = getattr(stub, method.name)(request, metadata=metadata, timeout=10)
            if method.server_streaming:  # the exports: their status comes with the stream
                list(reply)
        except grpc.RpcError as e:
            assert e.code() not in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL), (
                method.name, e.code(), e.details(),
            )  # fmt: skip


def test_wrong_organizer_tokens_are_refused_later_and_later(
    arena: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, stub = arena
    monkeypatch.setattr(guard, "FREE_FAILURES", 1)
    monkeypatch.setattr(guard, "FIRST_DELAY_S", 0.2)
    wrong = (("authorization", "Bearer guess"),)
    held = []
    for _ in range(3):
        began = time.monotonic()
        with pytest.raises(grpc.RpcError) as caught:
            stub.RegisterBot(api.RegisterBotRequest(name="x"), metadata=wrong, timeout=30)
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
        held.append(time.monotonic() - began)
    assert held[1] >= 0.2 and held[2] >= 0.4, held  # the second and third are held
    with pytest.raises(grpc.RpcError) as read:  # a wrong token on a read is a guess too
        stub.GetRun(api.GetRunRequest(id=1), metadata=wrong, timeout=30)
    assert read.value.code() == grpc.StatusCode.PERMISSION_DENIED
    reply = stub.RegisterBot(api.RegisterBotRequest(name="alpha"), metadata=ORGANIZER)
    assert reply.bot.name == "alpha"  # the right token is never held back

"""Results an organizer can stake a course on, through the Arena API on real gRPC and a
real PostgreSQL, and the pages: rated tests are the organizer's and seat only bots that
are there; duplicate deals say what they are and are refused with the real reason;
duplicate twins stay sealed until both are played; forfeits show wherever a result does;
the nodes are the organizer's business. (End to end, with the workers and killed bots:
tests/system/test_absent_play.py.)"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from typing import Any

import grpc
import pytest
from starlette.testclient import TestClient

from arena.cli import reader
from arena.domain.absence import Credit, credit
from arena.domain.poolfit import fit
from arena.domain.versions import Manifest
from arena.engine import Rules
from arena.hosted.archive import check
from arena.hosted.house import archive
from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from arena.read import ratings
from arena.store.store import Store
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from arena.usecases.ratings import refit
from arena.usecases.runs import create_run, plan_run
from arena.usecases.versions import judge, submit
from arena.web import create_app
from referee.api import ArenaApi
from referee.hub import Hub
from referee.server import create_server
from referee.sessions import MemoryTokens
from tests.referee.test_api import ORGANIZER, ArenaReferee
from tests.referee.test_sessions import Client
from tests.store.test_store import played


class Dispatched:
    """What the servicer hands the workers, kept (no workers here: the workers' side of
    tests is tests/usecases/test_sprt_arena.py's)."""

    def __init__(self) -> None:
        self.tests: list[int] = []

    def start_run(self, run_id: int) -> None: ...

    def check(self, version: str) -> None: ...

    def play(self, match_ids: Sequence[str]) -> None: ...

    def ladder(self, pool: str) -> None: ...

    def sprt(self, test_id: int) -> None:
        self.tests.append(test_id)


class WithWorkers(ArenaReferee):
    async def _start(self) -> Any:
        self.dispatched = Dispatched()
        self.hub = Hub(MemoryTokens(fallback=_Tokens(self.store)))
        servicer = ArenaApi(self.store, "organizer-secret", dispatch=self.dispatched)
        server = create_server("127.0.0.1:0", self.hub, servicer)
        await server.start()
        return server


class _Tokens:
    def __init__(self, store: Store) -> None:
        self.store = store

    def lookup(self, token: str) -> str | None:
        bot = self.store.bot_for_token(token)
        return None if bot is None else bot.name


@pytest.fixture
def arena(database: str) -> Iterator[tuple[WithWorkers, Any]]:
    ref = WithWorkers(database)
    channel = grpc.insecure_channel(ref.server.address)
    yield ref, arena_pb2_grpc.ArenaStub(channel)
    channel.close()
    ref.close()
    ref.store.close()


def hosted(store: Store, name: str, owner: str = "") -> str:
    """A registered bot with an active hosted version (the house random bot's code);
    the version's name."""
    store.register_bot(name, owner)
    data, manifest = archive("random"), Manifest("python", "bot.py")
    version, _ = submit(store, name, manifest, data, check(data, manifest))
    judge(store, version.id)
    return f"{name}@{version.number}"


def refused(call: Any, *args: Any, **kwargs: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call(*args, timeout=10, **kwargs)
    return caught.value


def asked(new: str, base: str, max_games: int = 100, rated: bool = False) -> api.StartTestRequest:
    return api.StartTestRequest(
        new_bot=new, base_bot=base, elo0=0, elo1=50, max_games=max_games, rated=rated
    )


@pytest.mark.hostile
def test_a_bots_own_token_starts_unrated_tests_of_bots_that_are_there(arena: Any) -> None:
    ref, stub = arena
    token = stub.RegisterBot(
        api.RegisterBotRequest(name="ana", owner="student"), metadata=ORGANIZER
    ).token
    mine = (("authorization", f"Bearer {token}"),)
    stub.RegisterBot(api.RegisterBotRequest(name="cid"), metadata=ORGANIZER)  # never connects
    hosted(ref.store, "bia")
    rated = refused(stub.StartTest, asked("ana", "bia", rated=True), metadata=mine)
    assert rated.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "unrated tests only" in rated.details()
    offline = refused(stub.StartTest, asked("ana", "bia"), metadata=mine)  # ana itself is away
    assert offline.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "'ana' dials in and is not connected" in offline.details()
    client = Client(ref.server.address)
    client.hello(token)
    assert client.next().HasField("welcome")
    try:
        against_absent = refused(stub.StartTest, asked("ana", "cid"), metadata=mine)
        assert against_absent.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "'cid' dials in and is not connected" in against_absent.details()
        assert "never a stand-in" in against_absent.details()
        started = stub.StartTest(asked("ana", "bia", max_games=2000), metadata=mine, timeout=10)
        assert not started.rated and started.new_bot == "ana" and started.base_bot == "bia@1"
        assert ref.dispatched.tests == [started.id]
        # the owner's room: two tests, 4,000 matches in all
        over = refused(stub.StartTest, asked("ana", "bia", max_games=2002), metadata=mine)
        assert over.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "owner 'student' has tests of 2000 matches running" in over.details()
        assert "--max-games" in over.details()
        stub.StartTest(asked("ana", "bia", max_games=2000), metadata=mine, timeout=10)
        third = refused(stub.StartTest, asked("ana", "bia", max_games=2), metadata=mine)
        assert third.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "owner 'student' has 2 tests running, the most at once" in third.details()
        # the organizer is not held by an owner's room, and may rate
        rated_ok = stub.StartTest(asked("ana", "bia", rated=True), metadata=ORGANIZER, timeout=10)
        assert rated_ok.rated
        # nor may another bot of the same owner squeeze in beside
        hosted(ref.store, "dan", owner="student")
        sister = (("authorization", f"Bearer {ref.store.rotate_token('dan')[1]}"),)
        crowded = refused(stub.StartTest, asked("dan", "bia", max_games=2), metadata=sister)
        assert crowded.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "owner 'student' has 2 tests running" in crowded.details()
    finally:
        client.close()


def test_an_owner_with_no_name_is_its_bot(arena: Any) -> None:
    ref, stub = arena
    hosted(ref.store, "solo")
    hosted(ref.store, "bia")
    token = ref.store.rotate_token("solo")[1]
    mine = (("authorization", f"Bearer {token}"),)
    for _ in range(2):
        stub.StartTest(asked("solo", "bia", max_games=10), metadata=mine, timeout=10)
    third = refused(stub.StartTest, asked("solo", "bia", max_games=10), metadata=mine)
    assert "bot 'solo' has 2 tests running" in third.details()


@pytest.mark.hostile
def test_the_nodes_are_the_organizers_business(arena: Any) -> None:
    ref, stub = arena
    anyone = refused(stub.ListNodes, api.ListNodesRequest())
    assert anyone.code() == grpc.StatusCode.PERMISSION_DENIED
    ref.store.register_bot("ana")
    token = ref.store.rotate_token("ana")[1]
    bot = refused(stub.ListNodes, api.ListNodesRequest(), metadata=(("authorization", token),))
    assert bot.code() == grpc.StatusCode.PERMISSION_DENIED
    nodes = stub.ListNodes(api.ListNodesRequest(), metadata=ORGANIZER, timeout=10)
    assert nodes.answered_by


def run_of(ref: Any, stub: Any, name: str, bots: list[str], **fields: Any) -> api.Run:
    definition = api.TournamentDefinition(name=name, bots=bots, **fields)
    stub.CreateTournament(api.CreateTournamentRequest(definition=definition), metadata=ORGANIZER)
    tournament = ref.store.tournament(name)
    run = create_run(ref.store, tournament)
    plan_run(ref.store, run.id)
    return stub.GetRun(api.GetRunRequest(id=run.id), timeout=10)


def test_deal_modes_tell_the_truth_and_duplicate_needs_hosted_or_trusted(
    arena: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, stub = arena
    hosted(ref.store, "ana")
    hosted(ref.store, "bia")
    ref.store.register_bot("cid")  # dials in
    auto = run_of(ref, stub, "auto", ["ana", "bia"], matches=4)
    assert auto.deals == "duplicate-hosted" and not auto.definition.duplicate
    asked = run_of(ref, stub, "asked", ["ana", "bia"], matches=2, duplicate=True)
    assert asked.deals == "duplicate-hosted" and asked.definition.duplicate
    mixed = run_of(ref, stub, "mixed", ["ana", "cid"], matches=2)
    assert mixed.deals == "secret"
    trusted = run_of(ref, stub, "trusted", ["ana", "cid"], duplicate=True, trusted=True)
    assert trusted.deals == "duplicate-trusted"
    definition = api.TournamentDefinition(name="unfair", bots=["ana", "cid"], duplicate=True)
    no = refused(
        stub.CreateTournament, api.CreateTournamentRequest(definition=definition),
        metadata=ORGANIZER,
    )  # fmt: skip
    assert no.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "duplicate deals need every bot hosted" in no.details()
    assert "'cid' dials in" in no.details() and "trusted" in no.details()
    # the run's matches are twins exactly when the deals say so
    for run in (auto, asked, trusted):
        matches = ref.store.run_matches(run.id)
        assert all(m.twin is not None for m, _ in matches)
        for m, _ in matches:
            twin = ref.store.match(m.twin)[0]
            assert twin.seed == m.seed and twin.twin == m.id
    assert all(m.twin is None for m, _ in ref.store.run_matches(mixed.id))
    # the page and the CLI say the same
    client = TestClient(create_app(ref.store, organizer_token="organizer-secret"))
    page = client.get(f"/api/runs/{auto.id}").json()
    assert page["run"]["deals"] == "duplicate-hosted"
    assert "every bot is hosted" in page["run"]["deals_text"]
    html = client.get(f"/runs/{auto.id}").text
    assert "every bot is hosted" in html and "secret, each match its own" not in html
    assert "secret, each match its own" in client.get(f"/runs/{mixed.id}").text
    reader.print_run(auto)
    assert "deals: duplicate pairs, seats exchanged: every bot is hosted" in capsys.readouterr().out


@pytest.mark.hostile
def test_a_twin_is_sealed_for_everyone_but_the_organizer_until_both_are_played(
    arena: Any,
) -> None:
    ref, stub = arena
    hosted(ref.store, "ana")
    hosted(ref.store, "bia")
    run = run_of(ref, stub, "dup", ["ana", "bia"], matches=2)
    first, second = f"r{run.id}-0001", f"r{run.id}-0002"
    assert ref.store.match(first)[0].twin == second
    record_match(ref.store, first, played(Rules(), 1))
    web = TestClient(create_app(ref.store, organizer_token="organizer-secret"))
    boss = {"authorization": "Bearer organizer-secret"}

    anyone = stub.GetMatch(api.GetMatchRequest(id=first), timeout=10)
    assert anyone.match.sealed and anyone.record_json == "" and not anyone.match.score
    assert not anyone.match.HasField("winner") and anyone.match.twin == second
    organizer = stub.GetMatch(api.GetMatchRequest(id=first), metadata=ORGANIZER, timeout=10)
    assert not organizer.match.sealed and organizer.record_json and organizer.match.score
    listed = stub.ListMatches(api.ListMatchesRequest(), timeout=10).matches
    assert {m.id: m.sealed for m in listed}[first]
    assert all(not m.score for m in listed)
    page = web.get(f"/api/matches/{first}").json()
    assert page["match"]["sealed"] and page["steps"] == [] and page["faults"] is None
    assert "public once its twin" in page["sealed"]
    assert "public once its twin" in web.get(f"/matches/{first}").text
    record = web.get(f"/api/matches/{first}/record")
    assert record.status_code == 403 and "public once its twin" in record.json()["error"]
    assert web.get(f"/api/matches/{first}/record", headers=boss).status_code == 200
    standings = stub.GetRun(api.GetRunRequest(id=run.id), timeout=10).standings
    assert sum(s.played for s in standings) == 0  # nothing of the sealed match counted
    counted = stub.GetRun(api.GetRunRequest(id=run.id), metadata=ORGANIZER, timeout=10)
    assert sum(s.played for s in counted.standings) == 2
    assert ratings.rating_history(ref.store, "ana@1", "paulista/1") == []
    bot_page = web.get("/api/bots/ana@1").json()
    # newest first by the time lists show: the sealed one finished, then its twin, made before
    assert [m["id"] for m in bot_page["recent_matches"]] == [first, second]
    assert [m["sealed"] for m in bot_page["recent_matches"]] == [True, False]
    assert [m["elo_change"] for m in bot_page["recent_matches"]] == [None, None]
    assert reader.match_line(anyone.match).split()[2] == "sealed"  # after the id and time

    record_match(ref.store, second, played(Rules(), 2))  # both played: all of it public
    anyone = stub.GetMatch(api.GetMatchRequest(id=first), timeout=10)
    assert not anyone.match.sealed and anyone.record_json
    assert web.get(f"/api/matches/{first}/record").status_code == 200
    assert len(ratings.rating_history(ref.store, "ana@1", "paulista/1")) == 2
    standings = stub.GetRun(api.GetRunRequest(id=run.id), timeout=10).standings
    assert sum(s.played for s in standings) == 4


def won_by(team: int) -> dict[str, Any]:
    """A real record of a match that ``team`` won at the table, ana against bia."""
    seed = 0
    while (record := played(Rules(), seed))["result"]["winner"] != team:
        seed += 1
    return record | {"seats": ["ana", "bia"]}


def test_a_forfeit_shows_wherever_the_result_does(
    arena: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, stub = arena
    ana, bia = (ref.store.register_bot(n)[0] for n in ("ana", "bia"))
    request_match(ref.store, "m-gone", Rules(), [ana.id, bia.id])
    record = won_by(0)  # ana wins at the table, away for 15 of its 20 decisions
    record["presence"] = {"ana": {"decisions": 20, "away": 15}, "bia": {"decisions": 20, "away": 0}}
    record_match(ref.store, "m-gone", record, credit)
    elo = {s["bot"]: s["elo"] for s in ratings.standings(ref.store, "paulista/1")}
    assert elo["ana"] < 1500 < elo["bia"]  # ana won at the table, yet lost
    shown = stub.GetMatch(api.GetMatchRequest(id="m-gone"), timeout=10).match
    assert shown.winner == 1 and list(shown.forfeit) == [0] and shown.score[0] == 12
    line = reader.match_line(shown)
    assert "won by bia by forfeit (ana absent)" in line
    web = TestClient(create_app(ref.store, organizer_token="organizer-secret"))
    assert "by forfeit" in web.get("/matches/m-gone").text
    page = web.get("/api/matches/m-gone").json()
    assert page["presence"]["ana"] == {"decisions": 20, "away": 15}
    mine = web.get("/api/bots/ana").json()
    assert mine["recent_matches"][0]["result"] == "forfeit"
    assert mine["faults"]["forfeits"] == 1
    board = stub.GetLeaderboard(api.GetLeaderboardRequest(pool="paulista/1"), timeout=10)
    assert [(s.bot, s.wins, s.losses) for s in board.standings] == [("bia", 1, 0), ("ana", 0, 1)]
    # both away: nobody gains, nothing moves
    request_match(ref.store, "m-empty", Rules(), [ana.id, bia.id])
    both = won_by(1)
    both["presence"] = {"ana": {"decisions": 9, "away": 9}, "bia": {"decisions": 9, "away": 8}}
    record_match(ref.store, "m-empty", both, credit)
    standings = ratings.standings(ref.store, "paulista/1")
    assert {s["bot"]: s["elo"] for s in standings} == elo  # no change
    empty = stub.GetMatch(api.GetMatchRequest(id="m-empty"), timeout=10).match
    assert not empty.HasField("winner") and list(empty.forfeit) == [0, 1]
    assert "both forfeited: nobody won" in reader.match_line(empty)
    assert Credit(None, (0, 1), ("ana", "bia")) == credit(both)


def finish_each(database: str, jobs: list[tuple[str, dict[str, Any]]]) -> None:
    """A worker process: record these matches through its own store."""
    store = Store(database, max_size=2)
    try:
        for match_id, record in jobs:
            store.finish_match(match_id, record)
    finally:
        store.close()


def test_a_duplicate_pair_counts_once_for_the_ratings_whoever_records_its_twins(
    arena: Any, database: str
) -> None:
    """Twins recorded at once by two processes: each pair's outcome (both lost, split,
    both won) is counted exactly once, as the whole history recounted says, and the
    pool's fit reads it."""
    ref, stub = arena
    hosted(ref.store, "ana")
    hosted(ref.store, "bia")
    run = run_of(ref, stub, "pairs", ["ana", "bia"], matches=16)
    matches = sorted(ref.store.run_matches(run.id, limit=100), key=lambda x: x[0].id)
    records = {m.id: played(Rules(), k) for k, (m, _) in enumerate(matches)}
    firsts = [(m.id, records[m.id]) for m, _ in matches if m.id < (m.twin or "")]
    seconds = [(m.id, records[m.id]) for m, _ in matches if m.id > (m.twin or "")]
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=finish_each, args=(database, jobs))
               for jobs in (firsts, seconds)]  # fmt: skip
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert [w.exitcode for w in workers] == [0, 0]
    (lineup,) = ref.store.pool_lineups("paulista/1")
    assert lineup.games == 16 and sum(lineup.paired) == 8
    a_won = {}
    for m, seats in matches:
        first = seats[0] == lineup.team_a[0]
        a_won[m.id] = (records[m.id]["result"]["winner"] == 0) == first
    both = [a_won[m] + a_won[t] for m, t in ((m.id, m.twin) for m, _ in matches) if m < t]
    assert lineup.paired == tuple(both.count(k) for k in range(3))
    assert lineup.wins == sum(a_won.values())
    running = ref.store.pool_lineups("paulista/1")
    ref.store.recount()
    assert ref.store.pool_lineups("paulista/1") == running
    dispersion = refit(ref.store, "paulista/1").dispersion
    assert dispersion == pytest.approx(fit(running).dispersion)

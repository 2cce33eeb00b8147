"""The addresses a bot dials (an arena of several referees, `arena serve` nodes on one
database): how a list of them is read, which one comes next and when, gRPC's own
targets of several addresses passed through unchanged, and refusals that stay fatal
whatever other address is left. The bot that moves to another node when its own is
killed, on real processes, is tests/sdk/test_bot_failover.py."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.bots import house_bot
from arena.channel import address_from_env, addresses, open_channel
from arena.sdk import BotError, Rotation, run
from arena.service import free_address
from arena.settings import Settings
from tests.referee.test_sessions import Referee, referee  # noqa: F401 (the fixture)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("127.0.0.1:50051", ["127.0.0.1:50051"]),
        ("a:1,b:2", ["a:1", "b:2"]),
        (" a:1 , b:2 ,", ["a:1", "b:2"]),  # spaces and empty items dropped
        (["a:1,b:2", "c:3"], ["a:1", "b:2", "c:3"]),  # a list (repeated --address) of lists
        (("a:1",), ["a:1"]),
        ("dns:///arena.example.org:50051", ["dns:///arena.example.org:50051"]),
        ("dns:///a:1,dns:///b:2", ["dns:///a:1", "dns:///b:2"]),
        ("[::1]:50051,[::2]:50051", ["[::1]:50051", "[::2]:50051"]),
        ("unix:/run/arena/referee.sock", ["unix:/run/arena/referee.sock"]),
        # gRPC's list schemes take the rest of their string, commas and all
        ("ipv4:10.0.0.1:1,10.0.0.2:1", ["ipv4:10.0.0.1:1,10.0.0.2:1"]),
        ("ipv4:10.0.0.1:1, 10.0.0.2:1,", ["ipv4:10.0.0.1:1,10.0.0.2:1"]),
        ("a:1,ipv6:[::1]:1,[::2]:1", ["a:1", "ipv6:[::1]:1,[::2]:1"]),
        (["ipv4:10.0.0.1:1", "b:2"], ["ipv4:10.0.0.1:1", "b:2"]),
        ("unix:/tmp/a.sock,/tmp/b.sock", ["unix:/tmp/a.sock,/tmp/b.sock"]),
        ("", []),
        (" , ", []),
    ],
)
def test_a_list_of_addresses_is_read_in_order(value: str | list[str], expected: list[str]) -> None:
    assert addresses(value) == expected


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"ARENA_ADDRESS": "a:1"}, "a:1"),
        ({"ARENA_REFEREE_ADDRESS": "b:2"}, "b:2"),  # the older name, an alias
        ({"ARENA_ADDRESS": "a:1", "ARENA_REFEREE_ADDRESS": "b:2"}, "a:1"),  # the name wins
        ({}, ""),
    ],
)
def test_every_command_reads_one_address_variable(env: dict[str, str], expected: str) -> None:
    assert address_from_env(env) == expected
    settings = Settings.from_env(env | {"ARENA_HOME": "/nonexistent"})
    assert settings.referee_named == bool(expected)
    assert settings.referee_address == (expected or "127.0.0.1:50051")


def test_the_servers_and_the_cli_take_the_first_of_several_addresses() -> None:
    settings = Settings.from_env({"ARENA_ADDRESS": "a:1,b:2", "ARENA_HOME": "/nonexistent"})
    assert settings.referee_address == "a:1"


def test_one_address_keeps_its_backoff_before_every_retry() -> None:
    rotation = Rotation(("a:1",))
    waits = [rotation.ended(None) for _ in range(8)]
    assert waits == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]
    assert rotation.address == "a:1"
    assert rotation.ended(60.0) == 0.1  # after a steady session, the backoff starts afresh


def test_a_dropped_bot_moves_to_the_next_address_at_once() -> None:
    rotation = Rotation(("a:1", "b:2", "c:3"))
    assert rotation.address == "a:1"
    assert (rotation.ended(3600.0), rotation.address) == (0.0, "b:2")  # a's node went away
    assert (rotation.ended(None), rotation.address) == (0.0, "c:3")  # b does not answer
    assert (rotation.ended(None), rotation.address) == (0.1, "a:1")  # a whole round failed
    assert [rotation.ended(None) for _ in range(6)] == [0.0, 0.0, 0.2, 0.0, 0.0, 0.4]
    assert rotation.address == "a:1"
    assert (rotation.ended(3600.0), rotation.address) == (0.0, "b:2")  # steady: afresh
    assert [rotation.ended(None) for _ in range(3)] == [0.0, 0.1, 0.0]


def test_referees_that_welcome_and_drop_at_once_are_not_dialed_in_a_busy_loop() -> None:
    rotation = Rotation(("a:1", "b:2"))
    waits = [rotation.ended(0.01) for _ in range(8)]
    assert waits == [0.0, 0.1, 0.0, 0.2, 0.0, 0.4, 0.0, 0.8]


def test_no_address_is_refused() -> None:
    with pytest.raises(ValueError):
        Rotation(())
    with pytest.raises(ValueError, match="ARENA_ADDRESS"):
        run(house_bot("random"), " , ", "some-token")


@pytest.fixture
def health_server() -> Iterator[str]:
    """A gRPC server with the health service only, on loopback; its address."""
    server = grpc.server(futures.ThreadPoolExecutor(2))
    health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(None)


@pytest.mark.parametrize("form", ["ipv4:{dead},{live}", "dns:///localhost:{port}"])
def test_grpc_targets_of_several_addresses_reach_a_live_one(health_server: str, form: str) -> None:
    # One name in front of several nodes: gRPC itself tries the addresses of the target
    # (pick_first), and open_channel passes the target through unchanged.
    port = health_server.rpartition(":")[2]
    target = form.format(dead=free_address(), live=health_server, port=port)
    (address,) = addresses(target)
    with open_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=10, wait_for_ready=True)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_a_refused_token_is_fatal_whatever_other_address_is_left(referee: Referee) -> None:  # noqa: F811
    # UNAUTHENTICATED is the arena's answer, the same from every node of it
    live = referee.server.address
    with pytest.raises(BotError, match="refused"):
        run(house_bot("random"), [live, free_address()], "not-a-token")

"""A referee node's leases (referee/nodes.py) on a real PostgreSQL: the matches each of its
bots is in reach the store as they change, not only at the renewal every RENEW_S, so that
a ladder pairing bots sees what a tournament has just let go."""

from __future__ import annotations

import time
from typing import Any

import pytest

import referee.nodes
from arena.proto.truco.v1 import bot_pb2 as pb
from tests.referee.test_api import arena  # noqa: F401 (the fixture)
from tests.referee.test_hosted_referee import bot_process, run_match
from tests.referee.test_hosting_api import register
from tests.referee.test_sessions import Client

WAIT_S = 30.0  # for a write that comes within LOAD_S; only a failure waits it out


@pytest.fixture
def no_renewals(monkeypatch: pytest.MonkeyPatch) -> None:
    """The node's renewals an hour apart from its first: only the load path writes."""
    monkeypatch.setattr(referee.nodes, "RENEW_S", 3600.0)


def playing(ref: Any, bots: list[str], want: int) -> dict[str, int]:
    """The leases' count of each bot's matches, once each is ``want`` (polling the store:
    the node tells no one when it has written)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        found = {b: w.playing for b, w in ref.store.presence(bots).items()}
        if all(found.get(b) == want for b in bots) or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def test_a_bots_matches_reach_its_lease_as_they_change(
    no_renewals: None,
    arena: Any,  # noqa: F811
) -> None:
    ref, stub = arena
    silent = Client(ref.server.address)
    silent.hello(register(stub, "alpha"))
    assert silent.next().HasField("welcome")
    other = bot_process(ref.server.address, register(stub, "beta"))
    try:
        assert playing(ref, ["alpha", "beta"], 0) == {"alpha": 0, "beta": 0}
        match = run_match(stub, "lease-1", ["alpha", "beta"])
        request = silent.next()
        while not request.HasField("decision"):  # MatchStarted, and what else comes first
            request = silent.next()
        # alpha holds its first decision: the match waits on it
        assert playing(ref, ["alpha", "beta"], 1) == {"alpha": 1, "beta": 1}
        while True:  # then plays its first legal action to the end
            if request.HasField("decision"):
                decision = request.decision
                reply = pb.ActionReply(match_id=decision.match_id,
                                       request_id=decision.request_id,
                                       action=decision.view.legal[0])  # fmt: skip
                silent.send(pb.BotMessage(action=reply))
            elif request.HasField("match_ended"):
                break
            request = silent.next()
        assert match.result(timeout=60).record_json
        assert playing(ref, ["alpha", "beta"], 0) == {"alpha": 0, "beta": 0}
    finally:
        silent.close()
        other.kill()
        other.wait()

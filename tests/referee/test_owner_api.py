"""The Arena API reads a bot's own token as its owner's (referee/callers.py's viewer):
GetMatch gives the owner's record of its bot's match (its seat's cards too, never the
opponent's hidden ones), ExportBot its bot's records so; another bot's match or records
as anyone's; a token that is nobody's is refused, saying no more."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest

from arena.engine import Rules, public_record
from arena.proto.truco.v1 import arena_pb2 as api
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from tests.referee.test_api import arena  # noqa: F401 (the fixture)
from tests.webdata import played


def bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def test_a_bots_token_reads_its_own_matches_as_their_owner(arena: Any) -> None:  # noqa: F811
    ref, stub = arena
    bots = {name: ref.store.register_bot(name) for name in ("alpha", "beta", "gamma")}
    whole = {}
    for match_id, seats in (("m-ab", ["beta", "alpha"]), ("m-bg", ["beta", "gamma"])):
        request_match(ref.store, match_id, Rules(), [bots[s][0].id for s in seats], seed=1)
        whole[match_id] = played(Rules(), seats, 11)
        record_match(ref.store, match_id, whole[match_id])
    alpha = bearer(bots["alpha"][1])

    def record(match_id: str, metadata: Any = ()) -> Any:
        reply = stub.GetMatch(api.GetMatchRequest(id=match_id), metadata=metadata, timeout=10)
        return json.loads(reply.record_json)

    assert record("m-ab", alpha) == public_record(whole["m-ab"], [1])
    assert record("m-ab", alpha) != record("m-ab")  # more than anyone sees
    assert record("m-bg", alpha) == public_record(whole["m-bg"])  # not its own: anyone's

    def exported(bot: str, metadata: Any) -> dict[str, Any]:
        chunks = stub.ExportBot(api.ExportBotRequest(bot=bot, what="records"), metadata=metadata)
        lines = b"".join(c.data for c in chunks).decode().splitlines()
        return {x["match"]["id"]: x["record"] for x in map(json.loads, lines)}

    assert exported("alpha", alpha) == {"m-ab": public_record(whole["m-ab"], [1])}
    assert exported("beta", alpha)["m-ab"] == public_record(whole["m-ab"])  # beta's: anyone's
    with pytest.raises(grpc.RpcError) as wrong:
        stub.GetMatch(api.GetMatchRequest(id="m-ab"), metadata=bearer("guessed"), timeout=10)
    assert wrong.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert wrong.value.details() == "neither a bot's token nor an organizer's"

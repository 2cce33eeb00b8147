"""Unsettled ratings (no interval yet, or one wider than WIDE_HALF on a side) are marked
wherever a rating is shown: the leaderboard, a bot's page, the bots index and `arena
ratings`; over a real PostgreSQL."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from arena.cli.reader import print_ratings
from arena.domain.rating import WIDE_HALF, is_wide
from arena.engine import Rules
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import ratings
from arena.store.store import Store
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from arena.web import create_app
from tests.webdata import ORGANIZER, played

POOL = "paulista/1"


@pytest.fixture
def client(store: Store) -> TestClient:
    return TestClient(create_app(store, organizer_token=ORGANIZER))


def test_the_wide_rule() -> None:
    assert is_wide(None) and is_wide(WIDE_HALF + 0.1)
    assert not is_wide(WIDE_HALF) and not is_wide(12.0)


def test_arena_ratings_marks_unsettled_ratings(capsys: pytest.CaptureFixture[str]) -> None:
    def standing(rank: int, bot: str, games: int, half: float | None) -> api.Standing:
        bounds = {} if half is None else {"low": 1500 - half, "high": 1500 + half}
        return api.Standing(rank=rank, bot=bot, elo=1500, games=games, wins=games,
                            provisional=games < 20, **bounds)  # fmt: skip

    print_ratings(
        api.GetLeaderboardResponse(
            pool=POOL,
            standings=[
                standing(1, "settled", 400, 60.0),
                standing(2, "wide", 400, WIDE_HALF + 1),
                standing(3, "unfitted", 2, None),
            ],
        )
    )
    lines = {line.split()[1]: line for line in capsys.readouterr().out.splitlines()[2:]}
    assert "unsettled" not in lines["settled"]
    assert "unsettled" in lines["wide"]
    assert "unsettled" in lines["unfitted"] and " - " in lines["unfitted"]  # no interval


def test_unsettled_ratings_are_marked_until_their_intervals_narrow(
    store: Store, client: TestClient
) -> None:
    bots = {name: store.register_bot(name)[0].id for name in ("ana", "bia", "cid")}
    rules = Rules()
    pairs = [("ana", "bia"), ("bia", "cid"), ("cid", "ana")]

    def play(start: int, count: int) -> None:
        for k in range(start, start + count):
            seated = list(pairs[k % 3])
            request_match(store, f"m{k}", rules, [bots[s] for s in seated], seed=k)
            record_match(store, f"m{k}", played(rules, seated, k))

    play(0, 3)
    board = ratings.standings(store, POOL)
    assert all(s["wide"] for s in board)
    page = client.get("/pools/paulista/1").text
    assert page.count('<span class="unsettled"') == 3 + 1  # each row, and the note
    assert page.count('<span class="interval wide"') == 3

    play(3, 240)
    board = ratings.standings(store, POOL)
    for s in board:
        assert s["low"] is not None and s["high"] is not None
        assert not s["wide"] and (s["high"] - s["low"]) / 2 <= WIDE_HALF
    page = client.get("/pools/paulista/1").text
    assert page.count('<span class="unsettled"') == 1  # the note's only
    index = {b["name"]: b for b in client.get("/api/bots").json()["bots"]}
    (ana,) = index["ana"]["ratings"]
    assert ana["half"] is not None and 0 < ana["half"] <= WIDE_HALF and not ana["wide"]
    listing = client.get("/bots").text
    assert f"±{round(ana['half'])}</span>" in listing and "unsettled" not in listing
    new = store.register_bot("dan")[0].id
    request_match(store, "new", rules, [new, bots["ana"]], seed=1)
    record_match(store, "new", played(rules, ["dan", "ana"], 1))
    dan = client.get("/api/bots/dan").json()["standing"]
    assert dan["wide"] and dan["games"] == 1  # (and a newcomer unsettles the anchor: the
    # intervals are relative to the pool's mean, which now holds an unknown)
    assert '<span class="unsettled"' in client.get("/bots/dan").text

    index = {b["name"]: b for b in client.get("/api/bots").json()["bots"]}
    assert index["dan"]["ratings"][0]["wide"]
    assert '<span class="unsettled"' in client.get("/bots").text

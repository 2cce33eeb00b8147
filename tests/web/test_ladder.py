"""The ladder on the pages, over a real PostgreSQL: the leaderboard's ladder box and its
standings' last match, and a bot's ladder matches and whether it is opted in (for every
pool, or for one)."""

from __future__ import annotations

import random

import pytest
from starlette.testclient import TestClient

from arena.cli.hosting import packed
from arena.domain.versions import Manifest
from arena.engine import Rules
from arena.hosted.archive import check
from arena.store.store import Store
from arena.usecases.ladder import fill, set_ladder
from arena.usecases.matches import record as record_match
from arena.usecases.versions import judge, submit
from arena.web import create_app
from tests.usecases.test_ladder import EXAMPLE
from tests.webdata import ORGANIZER, played

POOL = "paulista/1"
DIAL_INS = ("ana", "bia", "cid")


def record(store: Store, match_id: str, seed: int) -> None:
    """Play the match (random play from ``seed``) and record it."""
    found = store.match(match_id)
    assert found is not None
    row, seats = found
    store.set_status(match_id, "running")
    record_match(store, match_id, played(Rules.parse(row.rules), seats, seed))


@pytest.fixture
def ladder(store: Store) -> dict[str, list[str]]:
    """A ladder of 2 at once in paulista/1 over three bots that dial in (opted in, and
    connected) and a hosted one (in by default), a bot that dials in left out by default:
    three ladder matches recorded, one playing. Its match ids, by state."""
    for name in DIAL_INS:
        store.register_bot(name, owner="ana")
        store.set_bot_ladder(name, True)
    store.register_bot("dan")
    store.register_bot("host")
    data = packed(EXAMPLE)
    manifest = Manifest("python", EXAMPLE.name)
    version, _ = submit(store, "host", manifest, data, check(data, manifest))
    judge(store, version.id)
    set_ladder(store, POOL, True, concurrency=2)
    connected = {name: (8, 0) for name in DIAL_INS}
    rng = random.Random(1)
    first = fill(store, POOL, connected, rng=rng)
    for k, match_id in enumerate(first):
        record(store, match_id, k)
    second = fill(store, POOL, connected, rng=rng)
    record(store, second[0], 2)
    assert len(first) == len(second) == 2
    return {"finished": [*first, second[0]], "playing": [second[1]]}


@pytest.fixture
def client(store: Store) -> TestClient:
    return TestClient(create_app(store, organizer_token=ORGANIZER))


def test_the_leaderboard_shows_its_ladder_live(
    client: TestClient, ladder: dict[str, list[str]]
) -> None:
    data = client.get("/api/pools/paulista/1").json()
    box = data["ladder"]
    assert (box["on"], box["concurrency"], box["scheduled"]) == (True, 2, 4)
    assert (box["playing"], box["per_hour"]) == (1, 3)
    assert box["last_match"] == ladder["finished"][-1]
    assert box["available"] == ["ana", "bia", "cid", "host@1"]  # dan never opted in
    assert box["looked_at"] is not None
    finished = [client.get(f"/api/matches/{m}").json()["match"] for m in ladder["finished"]]
    for s in data["standings"]:  # each row's latest rated match (a hosted bot's: its version's)
        mine = [m["finished_at"] for m in finished if s["played_as"] in m["seats"]]
        assert s["last_played"] == max(mine)

    page = client.get("/pools/paulista/1").text
    assert '<section class="ladder"' in page and "up to 2" in page
    assert "Playing now</dt><dd>1</dd>" in page
    assert "Last hour, while on</dt><dd>3 matches finished" in page
    assert '<p class="opted-in">Opted in: ' in page and "Waiting for the first look" not in page
    assert f'href="/matches/{box["last_match"]}"' in page
    assert 'href="/bots/host%401?pool=paulista%2F1"' in page  # among the available
    assert "as of <time>" + box["looked_at"][:16].replace("T", " ") in page
    assert '<th class="last">Last match</th>' in page
    assert page.count('<td class="last"><time>20') == len(data["standings"])


def test_a_pool_without_a_ladder_has_no_box(client: TestClient, ladder: object) -> None:
    assert client.get("/api/pools/paulista/2").json()["ladder"] is None
    assert '<section class="ladder"' not in client.get("/pools/paulista/2").text


def test_a_ladder_switched_off_says_so(
    store: Store, client: TestClient, ladder: dict[str, list[str]]
) -> None:
    set_ladder(store, POOL, False)
    box = client.get("/api/pools/paulista/1").json()["ladder"]
    assert (box["on"], box["per_hour"], box["look"], box["on_since"]) == (False, None, "off", None)
    page = client.get("/pools/paulista/1").text
    assert '<span class="badge ladder-off">off</span>' in page and "Last hour" not in page
    set_ladder(store, POOL, True)  # on again: no look since
    page = client.get("/pools/paulista/1").text
    assert "Waiting for the first look (every 5 s)." in page


def test_a_bots_page_lists_its_ladder_matches_and_whether_it_is_in(
    store: Store, client: TestClient, ladder: dict[str, list[str]]
) -> None:
    mine = {
        name: [m for m in [*ladder["finished"], *ladder["playing"]] if name in seats(store, m)]
        for name in (*DIAL_INS, "host@1")
    }
    for name, ids in mine.items():
        data = client.get(f"/api/bots/{name}", params={"pool": POOL}).json()
        listed = data["ladder_matches"]
        assert {m["id"] for m in listed} == set(ids)
        assert [m["created_at"] for m in listed] == sorted(
            (m["created_at"] for m in listed), reverse=True
        )
        for m in listed:  # told from the bot's side, as its latest matches are
            assert m["opponents"] and name not in m["opponents"]
            finished = m["id"] in ladder["finished"]
            assert (m["result"] in ("won", "lost")) == finished
            assert (m["elo_change"] is not None) == finished
        page = client.get(f"/bots/{name}", params={"pool": POOL}).text
        assert "<h2>Ladder" in page
        for match_id in ids:
            assert page.count(f'href="/matches/{match_id}"') == 2  # latest and ladder lists

    ana = client.get("/api/bots/ana").json()
    assert (ana["ladder_opt_in"], ana["ladder_default"]) == (True, False)
    assert "(its own choice for every pool)" in client.get("/bots/ana").text
    store.set_bot_ladder("ana", False, "paulista/2")  # out of one other pool only
    ana = client.get("/api/bots/ana", params={"pool": POOL}).json()
    assert (ana["ladder_opt_in"], ana["ladder_pools"]) == (True, {"paulista/2": False})
    out = client.get("/api/bots/ana", params={"pool": "paulista/2"}).json()
    assert (out["ladder_opt_in"], out["ladder_default"]) == (False, False)
    page = client.get("/bots/ana", params={"pool": "paulista/2"}).text
    assert "The ladder of paulista/2 may pair ana: <strong>off</strong>" in page
    assert "(its own choice for this pool)" in page and "paulista/2 off" in page
    dan = client.get("/api/bots/dan").json()
    assert (dan["ladder_opt_in"], dan["ladder_default"], dan["ladder_matches"]) == (
        False, True, [],
    )  # fmt: skip
    assert "the default for a bot that dials in" in client.get("/bots/dan").text
    host = client.get("/api/bots/host").json()
    assert (host["ladder_opt_in"], host["ladder_default"]) == (True, True)
    hosted = client.get("/bots/host").text
    assert "the default for a hosted bot" in hosted
    assert 'It plays as <a class="bot" href="/bots/host%401?pool=paulista%2F1">host@1</a>' in hosted
    store.set_bot_ladder("host", False)
    assert client.get("/api/bots/host").json()["ladder_opt_in"] is False
    version = client.get("/api/bots/host@1").json()
    assert version["ladder_opt_in"] is None  # its bot opts in, not the version
    assert 'see <a class="bot" href="/bots/host">' in client.get("/bots/host@1").text
    empty = client.get("/bots/dan", params={"pool": POOL}).text
    assert "No ladder matches in paulista/1 yet" in empty


def seats(store: Store, match_id: str) -> list[str]:
    found = store.match(match_id)
    assert found is not None
    return found[1]

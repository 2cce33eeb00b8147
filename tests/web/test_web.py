"""The web pages and their JSON twins over HTTP, on a real PostgreSQL filled through the
store: every page, empty states, 404s, and no hidden card for anyone but the organizer."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.engine import PRESET_NAMES, Rules, public_record
from arena.read.replay import replay_hand
from arena.store.store import Store
from arena.web import create_app
from arena.web.app import COOKIE
from tests.webdata import ORGANIZER, Arena, fill, played


@pytest.fixture
def client(store: Store) -> TestClient:
    return TestClient(create_app(store, organizer_token=ORGANIZER))


@pytest.fixture
def arena(store: Store) -> Arena:
    return fill(store)


def organizer_client(store: Store) -> TestClient:
    return TestClient(
        create_app(store, organizer_token=ORGANIZER),
        headers={"Authorization": f"Bearer {ORGANIZER}"},
    )


def test_the_empty_arena_says_so_on_every_page(client: TestClient) -> None:
    front = client.get("/")
    assert front.status_code == 200 and front.url.path == "/pools/paulista/1"
    assert "No rated matches in paulista/1 yet" in front.text
    assert "No matches in this pool yet" in front.text
    assert client.get("/api/pools/paulista/1").json() == {
        "pool": "paulista/1",
        "pools": ["paulista/1"],
        "ladder": None,
        "standings": [],
        "retired": False,
        "recent_matches": [],
    }
    assert "No bots are registered yet" in client.get("/bots").text
    assert client.get("/api/bots").json() == {"bots": []}


def test_the_leaderboard_ranks_with_intervals_trends_and_links(
    client: TestClient, arena: Arena
) -> None:
    data = client.get("/api/pools/paulista/1").json()
    assert data["pools"] == ["paulista/1", "paulista/2"]
    board = data["standings"]
    assert [s["rank"] for s in board] == [1, 2, 3]
    assert {s["bot"] for s in board} == {"alpha", "beta", "gamma"}
    elos = [s["elo"] for s in board]
    assert elos == sorted(elos, reverse=True)
    for s in board:
        assert s["low"] < s["elo"] < s["high"]
        assert s["provisional"] and s["games"] == s["wins"] + s["losses"]
        # its rating before its first game, after each game as first fitted, and now (a
        # rating also moves as its opponents' later games are fitted)
        assert len(s["trend"]) in (s["games"] + 1, s["games"] + 2) and s["trend"][0] == 1500
        assert s["trend"][-1] == s["elo"]
    assert sum(s["games"] for s in board) == 2 * 4
    assert data["recent_matches"][0]["id"] == arena.ids["scheduled"]

    page = client.get("/pools/paulista/1").text
    for s in board:
        assert f'href="/bots/{s["bot"]}?pool=paulista%2F1"' in page
    assert page.count('<svg class="spark') == 3
    assert 'href="/pools/paulista/2"' in page  # the pool switcher
    assert 'href="/matches/m-0"' in page
    assert 'href="/api/pools/paulista/1"' in page  # the JSON twin, linked

    team = client.get("/api/pools/paulista/2").json()["standings"]
    assert [(s["bot"], s["games"]) for s in team] in (
        [("alpha", 1), ("beta", 1)],
        [("beta", 1), ("alpha", 1)],
    )


def test_the_bots_page_lists_every_bot_with_its_ratings(client: TestClient, arena: Arena) -> None:
    bots = {b["name"]: b for b in client.get("/api/bots").json()["bots"]}
    assert list(bots) == ["alpha", "beta", "gamma", "idle"]
    assert [r["pool"] for r in bots["alpha"]["ratings"]] == ["paulista/1", "paulista/2"]
    assert bots["idle"]["ratings"] == []
    page = client.get("/bots").text
    assert 'href="/bots/idle"' in page and "not rated yet" in page


def test_a_bots_page_has_history_matches_faults_and_head_to_head(
    client: TestClient, arena: Arena
) -> None:
    data = client.get("/api/bots/alpha").json()
    assert (data["bot"], data["owner"], data["pool"]) == ("alpha", "ana", "paulista/1")
    assert data["pools"] == ["paulista/1", "paulista/2"]
    assert data["standing"]["games"] == 3 == len(data["history"])
    assert data["history"][-1]["match_id"] == "m-2"  # its last rated match of the pool
    assert all(h["before"] != h["after"] for h in data["history"])
    recent = data["recent_matches"]
    assert [m["id"] for m in recent] == ["m-later", "m-2", "m-1", "m-0"]
    assert recent[0]["result"] is None and recent[0]["elo_change"] is None
    for m in recent[1:]:
        assert m["result"] == ("won" if m["winner"] == m["team"] else "lost")
        assert (m["elo_change"] > 0) == (m["result"] == "won")
        assert m["opponents"] in (["beta"], ["gamma"])
    assert data["faults"] == {
        "matches": 3,
        "timeouts": 2,
        "rejected": 1,
        "disconnects": 1,
        "substituted": 3,
        "errors": 0,
        "forfeits": 0,
    }
    h2h = {h["opponent"]: h for h in data["head_to_head"]}
    assert (h2h["beta"]["games"], h2h["gamma"]["games"]) == (2, 1)
    for h in h2h.values():
        assert h["wins"] + h["losses"] == h["games"]
    wins = sum(h["wins"] for h in h2h.values())
    assert wins == data["standing"]["wins"]

    page = client.get("/bots/alpha").text
    assert '<svg class="chart"' in page
    assert 'href="/matches/m-2"' in page and 'href="/bots/beta?pool=paulista%2F1"' in page
    assert "Rejected actions" in page and "Head to head" in page

    team = client.get("/api/bots/alpha", params={"pool": "paulista/2"}).json()
    assert team["pool"] == "paulista/2" and [m["id"] for m in team["recent_matches"]] == ["m-team"]
    assert team["recent_matches"][0]["opponents"] == ["beta"]
    assert team["head_to_head"][0]["opponent"] == "beta"


def test_a_bot_without_games_has_empty_states(client: TestClient, arena: Arena) -> None:
    data = client.get("/api/bots/idle").json()
    assert (data["pool"], data["standing"], data["recent_matches"]) == (None, None, [])
    page = client.get("/bots/idle").text
    assert "has not played a rated match yet" in page and "No matches yet" in page
    other = client.get("/bots/idle", params={"pool": "solver/1"}).text
    assert "has no rating in solver/1 yet" in other
    assert "No finished matches against anyone in solver/1 yet" in other


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/pools/nope/1", "no pool 'nope/1'"),
        ("/pools/paulista/9", "no pool 'paulista/9'"),
        ("/bots/nobody", "no bot named 'nobody'"),
        ("/bots/alpha?pool=x/1", "no pool 'x/1'"),
        ("/matches/m-nothing", "no match 'm-nothing'"),
        ("/matches/m-0?hand=99", "match m-0 has no hand 99"),
        ("/api/matches/m-nothing/record", "no match 'm-nothing'"),
        ("/api/matches/m-later/record", "match m-later has no record yet (scheduled)"),
    ],
)
def test_unknown_things_are_404_in_both_twins(
    client: TestClient, arena: Arena, path: str, message: str
) -> None:
    api = path if path.startswith("/api") else "/api" + path
    response = client.get(api)
    assert response.status_code == 404
    assert response.json()["error"].startswith(message)
    if not path.startswith("/api"):
        page = client.get(path)
        assert page.status_code == 404 and "Not found" in page.text
        assert message.replace("'", "&#39;") in page.text


def test_a_bad_number_is_a_400(client: TestClient, arena: Arena) -> None:
    response = client.get("/api/matches/m-0", params={"hand": "two"})
    assert response.status_code == 400
    assert response.json() == {"error": "hand must be a whole number, not 'two'"}


def test_nothing_but_reading_is_allowed(client: TestClient, arena: Arena) -> None:
    for path in ("/bots", "/api/bots", "/matches/m-0", "/api/matches/m-0/record"):
        assert client.post(path).status_code == 405
        assert client.delete(path).status_code == 405
    assert client.head("/bots").status_code == 200


def steps_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    return list(data["steps"])


def test_the_match_replay_steps_through_every_action(client: TestClient, arena: Arena) -> None:
    record = arena.records["m-0"]
    data = client.get("/api/matches/m-0").json()
    assert data["match"]["seats"] == ["alpha", "beta"]
    assert len(data["hands"]) == len(record["hands"])
    assert data["hand"] == 0 and data["step"] == 0
    for h, hand in enumerate(record["hands"]):
        data = client.get("/api/matches/m-0", params={"hand": h}).json()
        steps = steps_of(data)
        assert len(steps) == len(hand["actions"]) + 1
        assert steps[0]["action"] is None
        assert all(s["vira"] == hand["vira"] for s in steps)
        for step, action in zip(steps[1:], hand["actions"], strict=True):
            assert step["action"]["seat"] == action["seat"]
            assert step["action"]["type"] == action["type"]
        assert steps[-1]["result"]["points"] == hand["result"]["points"]
        assert steps[-1]["score"] == hand["result"]["score"]
        assert data["hands"][h]["points"] == hand["result"]["points"]
    assert steps[-1]["score"] == record["result"]["score"]
    # the stake grows with an accepted raise
    stakes = {s["stake"] for h in range(len(record["hands"])) for s in steps_of(
        client.get("/api/matches/m-0", params={"hand": h}).json()
    )}  # fmt: skip
    assert 3 in stakes or not any(
        a["type"] == "accept" for hand in record["hands"] for a in hand["actions"]
    )

    page = client.get("/matches/m-0", params={"hand": 1, "step": 2}).text
    assert page.count('<section class="step"') == len(record["hands"][1]["actions"]) + 1
    assert page.count(" hidden>") == len(record["hands"][1]["actions"])  # one step shows
    assert 'href="/matches/m-0?hand=1&amp;step=3"' in page
    assert 'href="/matches/m-0?hand=0"' in page and 'href="/bots/alpha?pool=paulista%2F1"' in page
    assert '<script src="/static/replay.js"' in page
    assert client.get("/static/replay.js").status_code == 200


def test_a_team_match_shows_every_seat(client: TestClient, arena: Arena) -> None:
    data = client.get("/api/matches/m-team").json()
    assert data["match"]["teams"] == ["alpha", "beta"]
    assert [s["bot"] for s in data["steps"][0]["seats"]] == ["alpha", "beta", "alpha", "beta"]
    assert all(len(s["held"]) == 3 for s in data["steps"][0]["seats"])


def test_a_match_not_played_yet_has_an_empty_state(client: TestClient, arena: Arena) -> None:
    data = client.get("/api/matches/m-later").json()
    assert data["match"]["status"] == "scheduled"
    assert (data["steps"], data["hands"]) == ([], [])
    assert "This match has not been played yet" in client.get("/matches/m-later").text


CODE = re.compile(r"\b(?:10|[2-9AKQJ])[CHSD]\b")
PIP = re.compile(r"(10|[2-9AKQJ])([♣♥♠♦])")


def card_faces(text: str) -> set[str]:
    """Every card face a page or JSON document shows: as a code (``5C``, also in titles)
    or drawn as rank and suit symbol."""
    symbols = dict(zip("♣♥♠♦", "CHSD", strict=True))
    return set(CODE.findall(text)) | {rank + symbols[suit] for rank, suit in PIP.findall(text)}


def test_hidden_cards_never_reach_a_visitor(client: TestClient, arena: Arena) -> None:
    record = arena.records[arena.ids["covered"]]
    covered = [a for h in record["hands"] for a in h["actions"] if a.get("covered")]
    unplayed = [h for h in record["hands"] if sum(a["type"] == "play" for a in h["actions"]) < 6]
    assert covered and unplayed  # the record has both kinds of hidden cards
    viras = {hand["vira"] for hand in record["hands"]}  # turned face up: public
    for h, hand in enumerate(record["hands"]):
        dealt = {c for cards in hand["cards"] for c in cards}
        face_up = {a["card"] for a in hand["actions"] if "card" in a and not a.get("covered")}
        secret = dealt - face_up
        twin = client.get("/api/matches/m-0", params={"hand": h})
        page = client.get("/matches/m-0", params={"hand": h})
        assert card_faces(twin.text) <= face_up | viras, f"hand {h}"
        assert card_faces(page.text) <= face_up | viras, f"hand {h}"
        steps = json.dumps(twin.json()["steps"], ensure_ascii=False)
        assert card_faces(steps) <= face_up | {hand["vira"]}, f"hand {h}"
        assert not secret & card_faces(steps)
        for step in twin.json()["steps"]:
            assert all(c is None for s in step["seats"] for c in s["held"])
            for play in [*step["table"], *(p for r in step["rounds"] for p in r["plays"])]:
                assert (play["card"] is None) == play["covered"]
    assert client.get("/api/matches/m-0/record").json() == public_record(record)


def test_the_organizer_sees_every_card(store: Store, arena: Arena) -> None:
    record = arena.records[arena.ids["covered"]]
    client = organizer_client(store)
    assert client.get("/api/matches/m-0/record").json() == record
    for h, hand in enumerate(record["hands"]):
        response = client.get("/api/matches/m-0", params={"hand": h})
        assert response.headers["cache-control"] == "private, no-store"
        data = response.json()
        assert data["organizer"] is True
        first = data["steps"][0]
        assert [s["held"] for s in first["seats"]] == hand["cards"]
        for step in data["steps"]:
            for play in [*step["table"], *(p for r in step["rounds"] for p in r["plays"])]:
                assert play["card"] is not None
    page = client.get("/matches/m-0").text
    assert "Organizer view" in page


def test_the_token_in_a_link_opens_the_organizer_view_by_cookie(
    client: TestClient, arena: Arena
) -> None:
    assert client.get("/matches/m-0", params={"token": "wrong"}).status_code == 403
    assert COOKIE not in client.cookies
    response = client.get("/matches/m-0", params={"hand": 1, "token": ORGANIZER})
    assert response.url.path == "/matches/m-0" and response.url.query == b"hand=1"
    assert response.history[0].status_code == 303
    cookie = response.history[0].headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    assert ORGANIZER not in cookie  # the cookie proves the token without holding it
    assert client.get("/api/matches/m-0").json()["organizer"] is True
    client.get("/organizer/leave")
    assert client.get("/api/matches/m-0").json()["organizer"] is False
    client.cookies.set(COOKIE, "forged")
    assert client.get("/api/matches/m-0").json()["organizer"] is False
    wrong = client.get("/api/matches/m-0", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403 and wrong.json() == {"error": "not a token of this arena"}


@pytest.mark.usefixtures("migrated")  # its processes do not migrate
@pytest.mark.parametrize(("stop", "guests"), [(signal.SIGINT, False), (signal.SIGTERM, True)])
def test_arena_web_serves_the_store_and_stops_cleanly(
    database: str, tmp_path: Path, stop: signal.Signals, guests: bool
) -> None:
    """And lets guests play only with --guests (docs/web.md, "Playing a bot yourself")."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "ARENA_DATABASE_URL": database,
        "ARENA_ADMIN_TOKEN": ORGANIZER,
        "ARENA_HOME": str(tmp_path),
    }
    web = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "web", "--port", str(port)]
        + (["--guests"] if guests else []),
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # polling the port until the server answers (it migrates first)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/bots") as r:
                    assert json.load(r) == {"bots": []}
                break
            except OSError:
                if web.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/play") as r:
                status, said = r.status, json.load(r)
        except urllib.error.HTTPError as e:
            status, said = e.code, json.load(e)
        if guests:
            assert status == 200 and said["guests"] is True
        else:
            assert status == 401 and "lets no guests play" in said["error"]
        web.send_signal(stop)
        assert web.wait(timeout=30) == 0
    finally:
        web.kill()
        _, stderr = web.communicate()
    assert f"web pages on http://127.0.0.1:{port}/" in stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_replays_of_every_preset_end_each_hand_as_the_record_says(preset: str) -> None:
    rules = Rules.parse(preset)
    seats = [f"bot{i}" for i in range(rules.seats)]
    for seed in range(8):
        record = played(rules, seats, seed)
        for h, hand in enumerate(record["hands"]):
            for organizer in (False, True):
                steps = replay_hand(record, h, organizer=organizer).steps
                assert len(steps) == len(hand["actions"]) + 1
                assert steps[-1]["result"]["points"] == hand["result"]["points"]
                assert steps[-1]["score"] == hand["result"]["score"]
                if organizer:
                    assert [s["held"] for s in steps[0]["seats"]] == hand["cards"]

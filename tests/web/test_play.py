"""Playing a bot yourself, end to end: `arena serve`, a Celery worker and the house bots
as processes of their own (tests/arenaproc.py), the web pages served by uvicorn with the
seats they hold dialing that referee, and a person in headless Chromium. The person
plays a whole match against house:random by clicking the actions the page offers, and
its record, which replays on the match page, holds exactly those clicks at the person's
seat; guests, bots whose owners say no, and bad input are refused and change nothing."""

from __future__ import annotations

import contextlib
import json
import random
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.domain.humans import HUMAN_BOT
from arena.engine import Action
from arena.service import free_address
from arena.settings import Settings
from arena.store.store import Store
from arena.usecases.human import set_bot_humans
from arena.web import create_app, play
from arena.web.play import Playing
from tests.arenaproc import ADMIN, broker_url
from tests.store.test_store import count
from tests.web.test_browser import CHROMIUM, serving
from workers.dispatch import Dispatcher

pytestmark = pytest.mark.long
WAIT_MS = 60_000  # for a state that comes within a second; only a failure waits it out


@contextlib.contextmanager
def arena_with_web(arena_factory: Any, guests: bool) -> Iterator[tuple[Any, str, Store]]:
    """An arena with a worker, house:random dialed in as ``house-random`` (people may
    challenge it) and as ``beta`` (its owner says no), a registered bot ``alpha`` whose
    owner plays, and the web pages with people's seats, serving guests or not."""
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.bots(**{"house-random": "house:random", "beta": "house:random"})
    arena.tokens["alpha"] = arena.organizer.bot_token("alpha")
    set_bot_humans(arena.store, "house-random", True, actor="bot house-random")
    present(arena.store, {"house-random", "beta"})
    settings = Settings.from_env(arena.env)
    playing = Playing(arena.address, Dispatcher(settings).play, guests=guests)
    store = Store(arena.env["ARENA_DATABASE_URL"], max_size=4)
    try:
        with serving(store, create_app(store, organizer_token=ADMIN, playing=playing)) as url:
            yield arena, url, store
    finally:
        store.close()


def present(store: Store, bots: set[str], timeout_s: float = 30.0) -> None:
    """Until the nodes' leases say the bots are connected (polling the database, where
    presence lives)."""
    deadline = time.monotonic() + timeout_s
    while not bots <= store.presence().keys():
        assert time.monotonic() < deadline, f"not present: {bots - store.presence().keys()}"
        time.sleep(0.05)


def finished(store: Store, match_id: str, timeout_s: float = 60.0) -> dict[str, Any]:
    """The match's record once the worker has recorded it (polling the database)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = store.match(match_id)
        if found is not None and found[0].status == "finished" and found[0].record:
            return found[0].record
        assert time.monotonic() < deadline, f"match {match_id}: {found and found[0].status}"
        time.sleep(0.1)


@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is missing (make chromium)")
def test_a_person_plays_a_whole_match_against_house_random_and_it_replays(
    arena_factory: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    with arena_with_web(arena_factory, guests=False) as (arena, site, store):
        choose = random.Random(35)
        clicked: list[str] = []
        states: list[dict[str, Any]] = []  # every state the page was sent
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))

            def heard(response: Any) -> None:
                if re.search(r"/api/play/h-[0-9a-f]+", response.url) and response.ok:
                    with contextlib.suppress(Exception):
                        states.append(response.json())

            page.on("response", heard)
            page.goto(site + "/sign-in?next=/play")
            page.locator("#token").fill(arena.tokens["alpha"])
            page.locator("form.sign-in button").click()
            expect(page).to_have_url(re.compile(r"/play$"))
            expect(page.locator("h1")).to_have_text("Play a bot yourself")
            offered = page.locator("#opponent option").all_inner_texts()
            assert "house-random" in offered and not any("beta" in o for o in offered)
            expect(page.get_by_test_id("clock")).to_contain_text("60 s a decision")
            page.locator("#opponent").select_option("house-random")
            page.locator("form.play-start button").click()
            expect(page).to_have_url(re.compile(r"/play/h-[0-9a-f]{16}$"))
            match_id = page.url.rsplit("/", 1)[1]

            enabled = page.locator("[data-testid=actions] button:not([disabled])")
            over = page.locator("[data-testid=note].over")
            for _ in range(1000):
                expect(enabled.first.or_(over)).to_be_visible(timeout=WAIT_MS)
                if over.count():
                    break
                shown = enabled.evaluate_all("bs => bs.map(b => b.dataset.action)")
                legal = states[-1]["legal"]
                assert shown == legal and states[-1]["your_turn"]  # exactly what was sent
                if len(clicked) == 1:
                    page.screenshot(path=tmp_path / "play-turn.png", full_page=True)
                pick = choose.randrange(len(shown))
                clicked.append(shown[pick])
                enabled.nth(pick).click()
            else:
                pytest.fail(f"the match did not end in {len(clicked)} clicks")
            expect(page.get_by_test_id("note")).to_contain_text("The match is over")
            page.screenshot(path=tmp_path / "play.png", full_page=True)

            record = finished(store, match_id)
            mine = record["seats"].index(HUMAN_BOT)
            played = [
                (str(Action.from_json(a)), hand["cards"][mine])
                for hand in record["hands"]
                for a in hand["actions"]
                if a["seat"] == mine
            ]
            assert len(played) == len(clicked) > 1  # a whole match: its every decision
            assert [done for done, _ in played] == list(map(as_recorded, clicked, played))
            assert record["faults"][HUMAN_BOT]["timeouts"] == 0
            row = store.match(match_id)[0]  # type: ignore[index]
            assert (row.rated, row.human, row.sprt_id) == (False, "owner:alpha", None)

            page.goto(f"{site}/matches/{match_id}")
            expect(page.locator("h1")).to_contain_text("human")
            expect(page.locator("h1")).to_contain_text("house-random")
            expect(page.locator("p.muted").first).to_contain_text("unrated")
            shown_step = page.locator("section.step:not([hidden])")
            expect(shown_step).to_have_count(1)
            first = shown_step.get_by_test_id("action").inner_text()
            shown_step.locator("a.next").click()
            expect(shown_step.get_by_test_id("action")).not_to_have_text(first)
            page.goto(f"{site}/bots/house-random")  # its page says people may play it
            expect(page.get_by_test_id("humans")).to_contain_text("People may challenge")
            page.goto(f"{site}/bots/alpha")
            expect(page.get_by_test_id("humans")).to_contain_text("Only its owner plays")
            assert store.bot("alpha").humans is False  # type: ignore[union-attr]

            page.goto(f"{site}/play")  # the owner lets people challenge alpha
            page.get_by_test_id("humans").locator("button").click()
            expect(page.get_by_test_id("humans")).to_contain_text("People may challenge alpha")
            assert store.bot("alpha").humans is True  # type: ignore[union-attr]
            assert store.actions(subject="bot alpha")[0].actor == "bot alpha"
            browser.close()
        assert errors == []


def as_recorded(click: str, played: tuple[str, list[str]]) -> str:
    """A click as the record writes it: in a blind hand the page offers a slot (the seat
    sees none of its cards) and the record names the card dealt there."""
    words = click.split()
    return f"play {played[1][int(words[2])]}" if words[:2] == ["play", "slot"] else click


def call(
    url: str, method: str = "GET", form: dict[str, str] | None = None, cookie: str = ""
) -> tuple[int, dict[str, Any], str]:
    """A request as a script sends it: (status, its JSON, the Set-Cookie it got)."""
    data = None if form is None else urllib.parse.urlencode(form).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if cookie:
        request.add_header("Cookie", cookie)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            got = response.headers.get("Set-Cookie", "")
            return response.status, json.loads(response.read()), got
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read()), ""


def your_turn(site: str, match_id: str, cookie: str) -> dict[str, Any]:
    """The match's state once the person's seat is asked to decide (each request waits
    for the next state)."""
    after = ""
    for _ in range(200):
        status, state, _ = call(f"{site}/api/play/{match_id}{after}", cookie=cookie)
        assert status == 200, state
        if state["your_turn"]:
            return state
        after = f"?after={state['version']}"
    pytest.fail("the seat was never asked to decide")


def test_guests_bad_input_and_bots_that_say_no_are_refused_and_change_nothing(
    arena_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    with arena_with_web(arena_factory, guests=True) as (arena, site, store):
        closed_app = create_app(
            store, organizer_token=ADMIN, playing=Playing(arena.address, lambda ids: None)
        )
        with serving(store, closed_app) as closed:  # the same arena, no guests
            status, said, _ = call(f"{closed}/api/play")
            assert status == 401 and "lets no guests play" in said["error"]
            status, said, _ = call(f"{closed}/api/play", "POST", {"opponent": "house-random"})
            assert status == 401 and "sign in" in said["error"]

        status, said, guest = call(f"{site}/api/play", "POST", {"opponent": "beta"})
        assert status == 403 and said["error"] == "beta's owner does not let people challenge it"
        status, said, _ = call(f"{site}/api/play", "POST", {"opponent": "house-random",
                                                            "preset": "nope"})  # fmt: skip
        assert status == 400 and "preset must be one of" in said["error"]
        assert count_matches(arena) == 0

        status, made, guest = call(f"{site}/api/play", "POST", {"opponent": "house-random"})
        assert status == 200 and guest.startswith("arena_guest=")
        cookie = guest.split(";")[0]
        match_id = made["match_id"]
        assert store.match(match_id)[0].human.startswith("guest:")  # type: ignore[index]
        state = your_turn(site, match_id, cookie)
        url = f"{site}/api/play/{match_id}"
        request = str(state["request_id"])
        held = {a.removeprefix("play ") for a in state["legal"] if a.startswith("play ")}
        other = next(c for c in ("4C", "5C", "6C", "7C", "QC") if c not in held)
        refusals = [
            ({"request": request, "action": f"play {other}"}, 400, "is not a legal action now"),
            ({"request": request, "action": "dance"}, 400, "unknown action type"),
            (
                {"request": str(int(request) + 7), "action": state["legal"][0]},
                409,
                "no longer open",
            ),
            ({"request": "-1", "action": state["legal"][0]}, 400, "request must be"),
        ]
        for form, code, words in refusals:
            status, said, _ = call(url, "POST", form, cookie)
            assert status == code and words in said["error"], (form, said)
        status, again, _ = call(url, cookie=cookie)  # nothing changed
        assert (again["version"], again["request_id"], again["legal"]) == (
            state["version"], state["request_id"], state["legal"]
        )  # fmt: skip

        status, said, _ = call(url)  # nobody's cookie: another person
        assert status == 403 and "another person's" in said["error"]
        _, _, stranger = call(f"{site}/api/play", "POST", {"opponent": "house-random"})
        monkeypatch.setattr(play, "MAX_SEATS", 2)  # this process holds two seats now
        status, said, _ = call(f"{site}/api/play", "POST", {"opponent": "house-random"})
        assert status == 429 and "people's matches already" in said["error"]
        status, said, _ = call(url, "POST", {"request": request, "action": state["legal"][0]},
                               stranger.split(";")[0])  # fmt: skip
        assert status == 403 and "another person's" in said["error"]
        status, said, _ = call(f"{site}/api/play/h-0000000000000000", cookie=cookie)
        assert status == 404
        status, after, _ = call(url, cookie=cookie)
        assert after["request_id"] == state["request_id"] and after["your_turn"]

        status, moved, _ = call(url, "POST", {"request": request, "action": state["legal"][0]},
                                cookie)  # fmt: skip
        assert status == 200 and answered(moved, state)


def answered(moved: dict[str, Any], state: dict[str, Any]) -> bool:
    """Whether the state after an action says it was sent: the seat waits with it sent,
    or the referee has asked the seat's next decision already (a bot answers a raise at
    once)."""
    if moved["request_id"] is not None and moved["request_id"] != state["request_id"]:
        return True
    return moved["sent"] == state["legal"][0] and not moved["your_turn"]


def count_matches(arena: Any) -> int:
    return count(arena.env["ARENA_DATABASE_URL"], "SELECT count(*) FROM matches")


def test_arena_web_guests_holds_a_seat_on_the_arenas_referee(arena_factory: Any) -> None:
    """`arena web --guests` itself, as an operator starts it: its seats dial the arena's
    referee and its matches reach the workers, from the settings alone."""
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.bots(**{"house-random": "house:random", "beta": "house:random"})
    own = ["--token", arena.tokens["house-random"]]
    said = cli(arena, "bot", "humans", "house-random", "on", "--token", arena.tokens["beta"])
    assert said.returncode != 0 and "not 'house-random'" in said.stderr  # another's token
    said = cli(arena, "bot", "humans", "house-random", "on", *own)  # its owner's
    assert said.returncode == 0 and "people may challenge it" in said.stdout, said.stderr
    assert store_bot(arena, "house-random").humans
    assert arena.store.actions(subject="bot house-random")[0].actor == "bot house-random"
    present(arena.store, {"house-random"})
    port = free_address().rsplit(":", 1)[1]
    arena.processes.start("web", "web", "--guests", "--port", port)
    site = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:  # polling the port until the server answers
        try:
            status, made, guest = call(f"{site}/api/play", "POST", {"opponent": "house-random"})
            break
        except OSError:
            assert time.monotonic() < deadline, arena.processes.log("web")
            time.sleep(0.1)
    assert status == 200, made
    cookie = guest.split(";")[0]
    state = your_turn(site, made["match_id"], cookie)
    status, moved, _ = call(
        f"{site}/api/play/{made['match_id']}", "POST",
        {"request": str(state["request_id"]), "action": state["legal"][0]}, cookie,
    )  # fmt: skip
    assert status == 200 and answered(moved, state)


def cli(arena: Any, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], env=arena.env, capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip


def store_bot(arena: Any, name: str) -> Any:
    row = arena.store.bot(name)
    assert row is not None
    return row

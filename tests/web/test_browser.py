"""The pages in a real browser: headless Chromium (Debian's, at /usr/bin/chromium) driven by
Playwright against a real uvicorn server. Leaderboard -> a bot -> one of its matches ->
step through the replay -> screenshots; tournaments -> a run -> a bot of its table; a
knockout's bracket, a round a column."""

from __future__ import annotations

import contextlib
import itertools
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette

from arena.domain.tournament import Definition
from arena.store.migrate import migrate
from arena.store.store import Store
from arena.web import create_app
from tests.usecases.test_formats import drive
from tests.webdata import ORGANIZER, fill, play_run, start_run

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; "
    "make test does it when run as root)",
)


@pytest.fixture
def site(database: str) -> Iterator[str]:
    """The pages of a filled arena, served by uvicorn on a free loopback port: a round
    robin of three (run 1), and a knockout of the three played to its end (run 2)."""
    migrate(database)
    store = Store(database)
    fill(store)
    run_id, ids = start_run(store, Definition("weekly", bots=("alpha", "beta", "gamma")))
    play_run(store, run_id, ids)
    cup = Definition("cup", bots=("alpha", "beta", "gamma"), format="knockout", matches=2)
    cup_id, ids = start_run(store, cup)
    drive(store, cup_id, ids)
    with serving(store) as url:
        yield url
    store.close()


@contextlib.contextmanager
def serving(store: Store, app: Starlette | None = None) -> Iterator[str]:
    """The pages of ``store`` (or ``app``), served by uvicorn on a free loopback port."""
    app = app or create_app(store, organizer_token=ORGANIZER)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    # The socket listens before the server starts: the browser's first connection waits in
    # its backlog until uvicorn accepts it, so there is nothing to poll for.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def test_a_visitor_follows_a_bot_to_a_match_and_steps_through_it(site: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        context = browser.new_context(viewport={"width": 1000, "height": 900})
        outside: list[str] = []  # the pages must work with no internet

        def refuse(route: object) -> None:
            outside.append(route.request.url)  # type: ignore[attr-defined]
            route.abort()  # type: ignore[attr-defined]

        context.route(re.compile(rf"^(?!{re.escape(site)}/)"), refuse)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))

        page.goto(site + "/")
        expect(page.locator("h1")).to_contain_text("Leaderboard")
        expect(page.locator("table.standings tbody tr")).to_have_count(3)
        page.locator("table.standings a.bot", has_text="alpha").click()

        expect(page).to_have_url(re.compile(r"/bots/alpha\b"))
        expect(page.locator("svg.chart")).to_be_visible()
        page.locator("table.recent a.result.won, table.recent a.result.lost").first.click()

        expect(page).to_have_url(re.compile(r"/matches/[\w-]+$"))
        expect(page.locator("h1")).to_contain_text("alpha")
        shown = page.locator("section.step:not([hidden])")
        expect(shown).to_have_count(1)

        def state() -> tuple[str, str, str, str]:
            return (
                shown.get_by_test_id("action").inner_text(),
                shown.get_by_test_id("table").inner_text(),
                shown.get_by_test_id("stake").inner_text(),
                shown.get_by_test_id("score").inner_text(),
            )

        seen = [state()]
        for _ in range(300):  # a whole match, step by step, until the stake and score moved
            if len({s[2] for s in seen}) > 1 and len({s[3] for s in seen}) > 2:
                break
            link = shown.locator("a.next")
            if link.get_attribute("data-step") is None:  # the next hand: a page load
                with page.expect_navigation():
                    link.click()
            else:
                step = link.get_attribute("data-step")
                link.click()
                expect(page).to_have_url(re.compile(rf"step={step}\b"))
            expect(shown).to_have_count(1)
            seen.append(state())
        else:
            pytest.fail(f"the stake and the score never changed in {len(seen)} steps")
        actions = [s[0] for s in seen]
        assert all(a != b for a, b in itertools.pairwise(actions))
        assert len({s[1] for s in seen}) > 2  # cards came and went on the table

        page.locator("section.step:not([hidden]) a.prev").first.click()
        expect(shown.get_by_test_id("action")).to_have_text(seen[-2][0])
        page.screenshot(path=tmp_path / "replay.png", full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=tmp_path / "replay-phone.png", full_page=True)
        browser.close()
    assert errors == [] and outside == []
    assert (tmp_path / "replay.png").stat().st_size > 10_000


def test_a_visitor_opens_a_tournament_run_and_follows_a_bot(site: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))

        page.goto(site + "/")
        page.locator("header nav a", has_text="Tournaments").click()
        expect(page.locator("h1")).to_have_text("Tournaments")
        page.locator("table.runs a.run[href='/runs/1']").click()  # weekly's

        expect(page).to_have_url(re.compile(r"/runs/\d+$"))
        expect(page.locator("h1")).to_contain_text("weekly")
        expect(page.locator("table.standings tbody tr")).to_have_count(3)
        expect(page.locator("table.crosstable td.heat")).to_have_count(6)
        expect(page.get_by_test_id("progress")).to_contain_text("6 finished")
        assert page.locator("meta[http-equiv=refresh]").count() == 0  # finished: no reload
        page.screenshot(path=tmp_path / "run.png", full_page=True)
        first = page.locator("table.standings tbody tr").first.locator("a.bot")
        name = first.inner_text()
        first.click()

        expect(page).to_have_url(re.compile(rf"/bots/{name}\?pool=paulista%2F1$"))
        expect(page.locator("h1")).to_contain_text(name)
        browser.close()
    assert errors == []


def test_a_knockouts_bracket_reads_left_to_right_to_its_champion(site: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(site + "/runs/2")
        expect(page.locator("h1")).to_contain_text("cup")
        rounds = page.get_by_test_id("rounds").locator("section.round")
        expect(rounds).to_have_count(2)
        expect(rounds.nth(0).locator("h3")).to_have_text("Semi-final")
        expect(rounds.nth(1).locator("h3")).to_have_text("Final")
        expect(rounds.nth(0).get_by_test_id("pairing")).to_have_count(2)  # alpha's bye, and a tie
        expect(rounds.nth(0)).to_contain_text("a bye")
        first, final = (rounds.nth(i).bounding_box() for i in (0, 1))
        assert first is not None and final is not None and final["x"] > first["x"]  # columns
        winner = rounds.nth(1).locator(".side.winner a.bot").inner_text()
        champion = page.locator("table.standings tbody tr").first
        expect(champion).to_contain_text(winner)
        expect(champion).to_contain_text("champion")
        expect(page.get_by_test_id("tiebreaks")).to_contain_text("Ranked by the round reached")
        page.screenshot(path=tmp_path / "bracket.png", full_page=True)
        browser.close()
    assert errors == []
    assert (tmp_path / "bracket.png").stat().st_size > 10_000

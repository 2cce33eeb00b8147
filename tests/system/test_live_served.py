"""A match watched live in real Chromium, on the arena's real processes: `arena serve`,
a Celery worker, `arena web`, two house bots as processes of their own (`arena bot run
house:mc`, thinking a quarter of a second a decision, as people watching would want).
The browser finds the match on the "playing now" page, follows it there, sees its table
change with each action within a bounded time of the referee's (measured on the events'
own stamps), and sees it turn into its replay when it is recorded; the run's page, open
all along, draws its table again as the match ends, without loading again."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from arena.service import free_address
from tests.arenaproc import broker_url
from tests.system.test_proxy import wait_answering

CHROMIUM = Path("/usr/bin/chromium")
THINK_MS = 250  # each bot's time a decision: a match lasts some seconds
LAG_BOUND_S = 10.0  # an action shows within this of the referee's applying it

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is missing"),
    pytest.mark.long,
]


def test_a_match_plays_live_in_the_browser_and_ends_as_its_replay(arena_factory: Any) -> None:
    from playwright.sync_api import expect, sync_playwright

    arena = arena_factory(broker_url("redis"))
    for name in ("alpha", "beta"):
        token = arena.organizer.bot_token(name)
        env = {"ARENA_ADDRESS": arena.address, "ARENA_TOKEN": token}
        argv = ["bot", "run", "house:mc", "--budget-ms", str(THINK_MS)]
        arena.processes.start(name, *argv, env=env)
    arena.organizer.wait_connected(["alpha", "beta"])
    web = free_address()
    arena.processes.start("web", "web", "--port", web.rsplit(":", 1)[1])
    wait_answering(f"http://{web}/healthz", None)
    arena.worker()
    # best of three games: a match lasts twenty actions at least (a game of one hand
    # raised to 12 takes ten), the viewer's table time to change enough while it watches
    arena.tournament("show", ["alpha", "beta"], matches=2, rules="paulista:games_per_match=3")
    run_id = arena.start("show")

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        # the run's page, open from the start: its table is drawn again as matches end
        standings = browser.new_page()
        standings.on("pageerror", lambda e: errors.append(str(e)))
        standings.goto(f"http://{web}/runs/{run_id}")
        expect(standings.get_by_test_id("progress")).to_contain_text("0 finished")
        standings.evaluate("window.stayed = true")  # gone if the page loaded again
        page.goto(f"http://{web}/live")
        # the list is drawn again as matches start: the first one's link appears
        link = page.locator("table.playing a.match").first
        expect(link).to_be_visible(timeout=60_000)
        link.click()
        expect(page).to_have_url(re.compile(r"/matches/[\w-]+$"))
        match_url = page.url
        live = page.get_by_test_id("live")
        expect(live).to_be_visible()
        # the table is drawn at each action: five of them, each within the bound (one
        # game of a single hand is over in ten, and a viewer on a busy machine came in
        # at the eleventh)
        shown = re.compile(r"^([5-9]|[1-9][0-9]+)$")
        expect(live).to_have_attribute("data-shown", shown, timeout=60_000)
        seen = page.evaluate("window.arenaLive")
        expect(live.get_by_test_id("score")).to_be_visible()
        seqs = [s["seq"] for s in seen]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # every action, in turn
        lags = [s["lag"] for s in seen]
        assert max(lags) < LAG_BOUND_S, lags
        # when the match is recorded the page is its replay
        expect(page.locator("nav.stepper").first).to_be_attached(timeout=120_000)
        assert page.url == match_url
        expect(page.get_by_test_id("live")).to_have_count(0)
        expect(standings.get_by_test_id("progress")).not_to_contain_text("0 finished")
        assert standings.evaluate("window.stayed") is True
        assert errors == []
        browser.close()
    arena.wait_run(run_id)

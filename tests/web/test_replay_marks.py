"""The replay page explains itself, in a real browser (headless Chromium against a real
uvicorn server, as tests/web/test_browser.py serves it): the round-winning cards and the
manilhas are marked, each step tells its decision's time against its deadline and its
faults (a timeout, a stand-in, actions refused), the stake's history is under the
stake, and the page's labels count hands as its links do, from 1."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.engine import Action, Card, Match, Rules, to_record
from arena.read.replay import DECISION_FIELDS
from arena.store.migrate import migrate
from arena.store.store import Store
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from tests.read.test_replay_marks import DECIDED, RECORD
from tests.web.test_browser import CHROMIUM, serving

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is missing")


def finished(seed: int) -> dict[str, Any]:
    """A whole match whose first hand is the scripted one of tests/read (with what the
    referee wrote beside its actions), then random deals and random play to its end."""
    rules = Rules()
    match = Match(rules, RECORD["seats"])
    first = RECORD["hands"][0]
    match.deal([[Card.parse(c) for c in cs] for cs in first["cards"]], Card.parse("4D"), 1)
    for a in DECIDED:
        match.apply(Action.from_json(a), a["seat"])
    choose = random.Random(seed)
    while not match.is_over:
        if match.needs_deal:
            deck = list(rules.deck.cards)
            choose.shuffle(deck)
            match.deal([deck[0:3], deck[3:6]], deck[6])
        else:
            match.apply(choose.choice(match.legal_actions()))
    record = to_record(match)
    for action, told in zip(record["hands"][0]["actions"], DECIDED, strict=True):
        action.update({k: v for k, v in told.items() if k in DECISION_FIELDS})
    return record


@pytest.fixture
def site(database: str) -> Iterator[tuple[str, dict[str, Any]]]:
    migrate(database)
    store = Store(database)
    ids = [store.register_bot(name, owner="ana")[0].id for name in ("alpha", "beta")]
    request_match(store, "m-marks", Rules(), ids, seed=1)
    record = finished(1)
    record_match(store, "m-marks", record)
    with serving(store) as url:
        yield url, record
    store.close()


def test_the_replay_marks_winners_manilhas_decisions_and_the_stakes(
    site: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    url, record = site
    hands = len(record["hands"])
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/matches/m-marks?hand=1")
        shown = page.locator("section.step:not([hidden])")
        action = shown.get_by_test_id("action")
        expect(action).to_contain_text(f"Hand 1/{hands} · step 0/8")
        expect(page.locator("nav.hands a[aria-current]")).to_have_text(re.compile(r"^1"))
        # a visitor sees no card in hand, so no manilha there
        expect(shown.locator("ul.seats .card")).to_have_count(6)
        expect(shown.locator("ul.seats .card[data-manilha]")).to_have_count(0)

        timeline = page.locator("ol.timeline a[data-step]")
        timeline.nth(1).click()  # the stepper's script: no page load
        expect(page).to_have_url(re.compile(r"hand=1&step=1$"))
        expect(action).to_contain_text("40/10000 ms")
        expect(shown.get_by_test_id("stakes")).to_have_text("alpha asks for truco (3)")
        timeline.nth(2).click()
        expect(action.locator("[data-fault=rejected]")).to_have_text("2 rejected")
        expect(shown.get_by_test_id("stakes").locator("li")).to_have_count(2)
        expect(shown.get_by_test_id("stakes")).to_contain_text("beta accepts")
        timeline.nth(3).click()
        expect(action.locator("[data-fault=stand_in]")).to_have_text("stand-in")
        expect(shown.get_by_test_id("table").locator(".card[data-manilha]")).to_have_count(1)
        timeline.nth(4).click()
        expect(action.locator("[data-fault=error]")).to_have_text("error")
        timeline.nth(5).click()
        expect(action.locator("[data-fault=timeout]")).to_have_text("timeout")
        expect(action.locator(".time.slow")).to_have_text("10000/10000 ms")
        # round 1 won by the manilha 5C
        rounds = shown.locator(".rounds .round")
        expect(rounds.nth(0).locator(".card[data-won][data-manilha]")).to_have_attribute(
            "title", "5C"
        )
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        expect(page).to_have_url(re.compile(r"step=8$"))
        # round 2 won by the 2D; round 3: the covered AS is a back, unmarked; the 3D won it
        expect(rounds.nth(1).locator(".card[data-won]")).to_have_attribute("title", "2D")
        expect(rounds).to_have_count(3)
        expect(rounds.nth(2).locator(".card.back")).to_have_count(1)
        expect(
            rounds.nth(2).locator(".card.back[data-won], .card.back[data-manilha]")
        ).to_have_count(0)
        expect(rounds.nth(2).locator(".card[data-won]")).to_have_attribute("title", "3D")
        expect(page.locator("ol.timeline [data-testid=decision]")).to_have_count(5)
        page.screenshot(path=tmp_path / "marks.png", full_page=True)

        with page.expect_navigation():
            shown.locator("a.next").click()  # the next hand: a page load
        expect(page).to_have_url(re.compile(r"hand=2&step=0$"))
        expect(page.locator("section.step:not([hidden])").get_by_test_id("action")).to_contain_text(
            f"Hand 2/{hands} · step 0/"
        )
        expect(page.locator("nav.hands a[aria-current]")).to_have_text(re.compile(r"^2"))
        page.locator("section.step:not([hidden]) a.prev").click()
        expect(page).to_have_url(re.compile(r"hand=1&step=8$"))
        browser.close()
    assert errors == []
    assert (tmp_path / "marks.png").stat().st_size > 10_000

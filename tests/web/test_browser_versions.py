"""One bot across its versions and its tests in a real browser (headless Chromium through
Playwright, against uvicorn on loopback): the bots' page lists ``hc`` once, its page draws
a line a version in its rating chart, names the version of each match and marks the test
ones, its tests lead to the test's page and to /tests, filtered by bot."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.store.migrate import migrate
from arena.store.store import Store
from tests.versiondata import Versions, fill
from tests.web import test_browser
from tests.web.test_browser import CHROMIUM, serving

pytestmark = test_browser.pytestmark  # skipped without Chromium, as the other browser tests


@pytest.fixture
def site(database: str, tmp_path: Path) -> Iterator[tuple[str, Versions]]:
    migrate(database)
    store = Store(database)
    hc = fill(store, tmp_path / "code")
    with serving(store) as url:
        yield url, hc
    store.close()


def test_a_visitor_compares_a_bots_versions_and_follows_its_tests(
    site: tuple[str, Versions], tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    url, hc = site
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

        page.goto(url + "/bots")
        rows = page.locator("main table tbody tr")
        expect(rows).to_have_count(3)  # ana, bia, hc: no row of a version
        hc_row = rows.filter(has=page.locator("a.bot", has_text=re.compile(r"^hc$")))
        expect(hc_row.locator(".played-as")).to_have_text("as hc@2")
        expect(hc_row.locator("a.versions")).to_have_text("2 versions")
        hc_row.locator("a.bot", has_text=re.compile(r"^hc$")).click()

        expect(page).to_have_url(re.compile(r"/bots/hc$"))
        chart = page.get_by_test_id("rating-chart").locator("svg.chart")
        expect(chart.locator("g[data-bot]")).to_have_count(2)
        expect(chart.locator("g[data-bot='hc@1'] polyline")).to_be_visible()
        expect(chart.locator("g[data-bot='hc@2'] polyline")).to_be_visible()
        expect(chart.locator("text.legend")).to_have_text(["hc@1", "hc@2"])
        colours = [
            g.locator("polyline").evaluate("e => getComputedStyle(e).stroke")
            for g in chart.locator("g[data-bot]").all()
        ]
        assert len(set(colours)) == 2, colours  # told apart by colour, as the legend says
        recent = page.locator("table.recent").first.locator("tbody tr")
        expect(recent).to_have_count(len({*hc.matches["hc@1"], *hc.matches["hc@2"]}))
        expect(recent.locator("td.played-as a", has_text="hc@1")).to_have_count(3)
        expect(recent.locator("a.state.test")).to_have_count(4)
        expect(page.locator("table.tests tbody tr")).to_have_count(1)
        page.screenshot(path=tmp_path / "bot.png", full_page=True)

        recent.locator("a.state.test").first.click()
        expect(page).to_have_url(re.compile(rf"/tests/{hc.test}$"))
        expect(page.locator("h1")).to_contain_text("hc@2")

        page.locator("header nav a", has_text="Tests").click()
        expect(page).to_have_url(re.compile(r"/tests$"))
        expect(page.locator("table.tests tbody tr")).to_have_count(2)  # one running, one done
        page.get_by_test_id("filter").locator("a", has_text="hc").click()
        expect(page).to_have_url(re.compile(r"/tests\?bot=hc$"))
        expect(page.locator("table.tests tbody tr")).to_have_count(1)
        expect(page.locator(f"tr[data-test='{hc.test}'] .badge")).to_have_text("running")
        page.screenshot(path=tmp_path / "tests.png", full_page=True)
        browser.close()
    assert errors == []

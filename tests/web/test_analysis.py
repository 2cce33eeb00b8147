"""The analysis of a match on its page (docs/web.md, "The analysis of a match"): in the
match's JSON and on the page for who may see it (the owner its own seats, the organizer
every seat, anyone none), and in Chromium the line and its marks, linked to the replay."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.bots.analysis import analysed
from arena.store.store import Store
from arena.usecases.analyses import ask_analysis, run_analysis
from arena.web import create_app
from tests.web.test_browser import CHROMIUM, serving
from tests.webdata import ORGANIZER, fill


@pytest.fixture
def analysed_site(store: Store) -> tuple[Store, dict[str, str]]:
    fill(store)  # m-0: alpha (seat 0) against beta (seat 1)
    ask_analysis(store, "m-0", 16, None, actor="organizer")
    run_analysis(store, "m-0", 16, analysed)
    tokens = {name: store.rotate_token(name)[1] for name in ("alpha", "beta")}
    return store, tokens


def test_the_match_json_holds_the_analyses_its_reader_may_see(analysed_site: Any) -> None:
    store, tokens = analysed_site
    client = TestClient(create_app(store, organizer_token=ORGANIZER))
    anyone = client.get("/api/matches/m-0").json()
    assert anyone["analysis"] == []  # a seat's analysis tells what it held
    alpha = {"Authorization": f"Bearer {tokens['alpha']}"}
    mine = client.get("/api/matches/m-0", headers=alpha).json()["analysis"]
    assert [(a["seat"], a["bot"], a["samples"], a["status"]) for a in mine] == [
        (0, "alpha", 16, "done")
    ]
    every = client.get("/api/matches/m-0", headers={"Authorization": f"Bearer {ORGANIZER}"})
    seats = every.json()["analysis"]
    assert [a["seat"] for a in seats] == [0, 1]
    for a in seats:
        assert all(d["loss"] >= 0 and d["taken"] in d["actions"] for d in a["decisions"])
        assert all(a["decisions"][i]["loss"] >= 0.25 for i in a["marks"])
    page = client.get("/matches/m-0", headers=alpha).text
    assert 'data-testid="analysis"' in page and "Seat 0" in page and "Seat 1" not in page
    assert 'data-testid="analysis"' not in client.get("/matches/m-0").text
    ask = client.get("/matches/m-1", headers=alpha).text  # beta v alpha, not analysed
    assert "arena analyse m-1" in ask


def test_the_bot_page_sums_up_its_loss_for_its_owner(analysed_site: Any) -> None:
    store, tokens = analysed_site
    client = TestClient(create_app(store, organizer_token=ORGANIZER))
    alpha = {"Authorization": f"Bearer {tokens['alpha']}"}
    (loss,) = client.get("/api/bots/alpha", headers=alpha).json()["losses"]
    (seat,) = [a for a in _organizers_view(store) if a["bot"] == "alpha"]
    assert loss == {"name": "alpha", "decisions": len(seat["decisions"]),
                    "mean_loss": pytest.approx(seat["mean_loss"])}  # fmt: skip
    assert 'data-testid="losses"' in client.get("/bots/alpha", headers=alpha).text
    assert client.get("/api/bots/alpha").json()["losses"] == []
    beta = {"Authorization": f"Bearer {tokens['beta']}"}
    assert client.get("/api/bots/alpha", headers=beta).json()["losses"] == []


def test_the_button_asks_the_workers_for_the_viewers_seats(analysed_site: Any) -> None:
    store, tokens = analysed_site
    sent: list[tuple[str, int]] = []
    client = TestClient(
        create_app(store, organizer_token=ORGANIZER, analyse=lambda *a: sent.append(a))
    )
    alpha = {"Authorization": f"Bearer {tokens['alpha']}"}
    page = client.get("/matches/m-1", headers=alpha).text  # beta v alpha, not analysed
    assert 'action="/matches/m-1/analyse"' in page and "Analyse your seats" in page
    assert 'action="/matches/m-0/analyse"' not in client.get("/matches/m-0", headers=alpha).text
    other = client.post("/matches/m-1/analyse", headers=alpha | {"sec-fetch-site": "cross-site"})
    assert other.status_code == 403 and sent == []
    anyone = client.post("/matches/m-1/analyse")
    assert anyone.status_code == 401 and "sign in" in anyone.text
    asked = client.post("/matches/m-1/analyse", headers=alpha, follow_redirects=False)
    assert asked.status_code == 303 and asked.headers["location"] == "/matches/m-1#analysis"
    assert sent == [("m-1", 256)]
    assert [(r.seat, r.status) for r in store.match_analyses("m-1")] == [(1, "pending")]
    shown = client.get("/matches/m-1", headers=alpha).text
    assert "Waiting for a free worker" in shown  # no worker began it yet
    store.begin_analysis("m-1", 256, 1)
    began = client.get("/matches/m-1", headers=alpha).text
    assert "Being analysed by the workers" in began and "Waiting for a free" not in began
    (seat,) = client.get("/api/matches/m-1", headers=alpha).json()["analysis"]
    assert seat["status"] == "pending" and seat["started_at"]
    again = client.post("/matches/m-1/analyse", headers=alpha, follow_redirects=False)
    assert again.status_code == 303 and sent == [("m-1", 256)]  # pending: nothing more sent
    gamma = client.post("/matches/m-2/analyse", headers=alpha, follow_redirects=False)
    assert gamma.status_code == 303
    beta = {"Authorization": f"Bearer {tokens['beta']}"}
    refused = client.post("/matches/m-2/analyse", headers=beta)  # beta did not play m-2
    assert refused.status_code == 403 and "did not play in match m-2" in refused.text


@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is missing")
def test_the_page_shows_the_line_and_the_marks_in_chromium(
    analysed_site: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    store, _ = analysed_site
    marks = sum(len(a["marks"]) for a in _organizers_view(store))
    assert marks  # random play loses points somewhere

    def workers(match_id: str, samples: int) -> None:  # the workers' task, done at once
        run_analysis(store, match_id, samples, analysed)

    app = create_app(store, organizer_token=ORGANIZER, analyse=workers)
    with serving(store, app) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        page = browser.new_page(extra_http_headers={"Authorization": f"Bearer {ORGANIZER}"})
        page.goto(url + "/matches/m-0")
        section = page.get_by_test_id("analysis")
        expect(section.get_by_test_id("analysis-seat")).to_have_count(2)
        charts = section.locator("svg.chart.analysis")
        expect(charts).to_have_count(2)
        expect(charts.first.locator("polyline")).to_be_visible()
        expect(section.locator("circle.mark")).to_have_count(marks)
        expect(section.get_by_test_id("analysis-costly")).to_have_count(marks)
        page.screenshot(path=str(tmp_path / "analysis.png"), full_page=True)
        section.get_by_test_id("analysis-costly").first.locator("a").click()
        expect(page).to_have_url(re.compile(r"/matches/m-0\?hand=\d+&step=\d+$"))
        expect(page.locator("section.step:not([hidden])")).to_have_count(1)

        page.goto(url + "/matches/m-1")  # not analysed: its button asks
        expect(page.get_by_test_id("analysis")).to_have_count(0)
        page.get_by_role("button", name="Analyse every seat").click()
        expect(page).to_have_url(re.compile(r"/matches/m-1#analysis$"))
        expect(page.get_by_test_id("analysis").locator("svg.chart.analysis")).to_have_count(2)
        browser.close()


def _organizers_view(store: Store) -> list[dict[str, Any]]:
    from arena.read.analyses import analyses

    return [dict(a) for a in analyses(store, "m-0", organizer=True)]

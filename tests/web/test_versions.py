"""One bot across its hosted versions on the pages, over a real PostgreSQL: the bots' index
and the leaderboard list a bot once, by its active version; its page holds every
version's matches (each saying which played), rating history (a line a version in its
chart) and tests, while a version's own page stays its own; /tests lists tests running
and finished, by bot; match lists mark unrated and test matches; and a bot with 50
versions costs the reads as many statements as one with two."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.read import bots, matches, ratings, sprts
from arena.store.store import Store
from arena.web import create_app
from tests.read.test_read_plans import captured
from tests.versiondata import POOL, Versions, fill, version
from tests.web.test_sprt import play_to_verdict, start
from tests.webdata import ORGANIZER


@pytest.fixture
def hc(store: Store, tmp_path: Path) -> Versions:
    return fill(store, tmp_path)


@pytest.fixture
def client(store: Store) -> TestClient:
    return TestClient(create_app(store, organizer_token=ORGANIZER))


def rating_of(store: Store, name: str) -> float:
    (found,) = [r for r in store.bot_ratings(name) if r.pool == POOL]
    return round(found.elo, 1)


def test_the_bots_index_and_the_leaderboard_list_a_bot_once(
    client: TestClient, store: Store, hc: Versions
) -> None:
    index = {b["name"]: b for b in client.get("/api/bots").json()["bots"]}
    assert sorted(index) == ["ana", "bia", "hc"]  # no hc@1, no hc@2
    assert (index["hc"]["played_as"], index["hc"]["versions"]) == ("hc@2", 2)
    assert [(r["pool"], r["elo"]) for r in index["hc"]["ratings"]] == [
        (POOL, rating_of(store, "hc@2"))
    ]
    assert (index["ana"]["played_as"], index["ana"]["versions"]) == ("ana", 0)
    page = client.get("/bots").text
    assert 'as <a class="bot" href="/bots/hc%402">hc@2</a>' in page
    assert '<a class="versions" href="/bots/hc#versions">2 versions</a>' in page
    assert 'href="/bots/hc%401"' not in page

    table = client.get(f"/api/pools/{POOL}").json()["standings"]
    assert sorted(s["bot"] for s in table) == ["ana", "bia", "hc"]
    (line,) = [s for s in table if s["bot"] == "hc"]
    assert (line["played_as"], line["elo"]) == ("hc@2", rating_of(store, "hc@2"))
    assert all(s["played_as"] == s["bot"] for s in table if s["bot"] != "hc")
    board = client.get(f"/pools/{POOL}").text
    assert 'as <a class="bot" href="/bots/hc%402?pool=paulista%2F1">hc@2</a>' in board
    assert 'href="/bots/hc?pool=paulista%2F1#versions">its versions</a>' in board
    assert "hc@1" not in board.split("<h2>Latest matches</h2>")[0]  # the table's part


def test_a_bots_page_holds_its_versions_matches_history_and_chart(
    client: TestClient, store: Store, hc: Versions
) -> None:
    data = client.get("/api/bots/hc").json()
    assert data["pool"] == POOL and data["pools"] == [POOL]
    assert data["standing"]["played_as"] == "hc@2"
    assert data["standing"]["elo"] == rating_of(store, "hc@2")
    every = set(hc.matches["hc@1"]) | set(hc.matches["hc@2"])
    listed = data["recent_matches"]
    assert {m["id"] for m in listed} == every and len(listed) == len(every)
    for m in listed:
        assert m["played_as"] == ("hc@1" if m["id"] in hc.matches["hc@1"] else "hc@2")
        assert m["seats"][m["team"] :: 2] == [m["played_as"]]
        rated = m["id"].startswith("v") and m["status"] == "finished"
        assert (m["elo_change"] is not None) == rated  # the version's own change
    history = data["history"]
    assert [h["played_as"] for h in history] == ["hc@1"] * 3 + ["hc@2"] * 2  # oldest first
    assert [h["match_id"] for h in history] == [*hc.matches["hc@1"], *hc.matches["hc@2"][:2]]
    assert history[-1]["after"] == rating_of(store, "hc@2")
    # (hc@1's own last point is not its rating now: retired, it left the pool's anchor,
    # docs/ratings.md, and the fit moved it since)

    page = client.get("/bots/hc").text
    chart = page.split('data-testid="rating-chart">')[1].split("</figure>")[0]
    assert re.findall(r'<g class="line-(\d)" data-bot="([^"]+)"', chart) == [
        ("0", "hc@1"), ("1", "hc@2"),
    ]  # fmt: skip
    assert len(re.findall(r"<circle ", chart)) == 5  # a dot a rated game
    assert '<text class="legend line-1"' in chart
    assert '<td class="played-as"><a class="bot" href="/bots/hc%401?pool=paulista%2F1">' in page
    assert "Played as</th>" in page

    one = client.get("/api/bots/hc@1").json()  # a version's page: its own alone
    assert {m["id"] for m in one["recent_matches"]} == set(hc.matches["hc@1"])
    assert {h["played_as"] for h in one["history"]} == {"hc@1"}
    assert one["tests"] == [] and one["standing"] is None  # retired: not on the leaderboard
    lone = client.get("/bots/hc@1").text
    assert "data-bot=" in lone and 'data-bot="hc@2"' not in lone
    assert '<span class="muted">itself</span>' in lone

    ana = client.get("/api/bots/ana").json()  # a bot without versions: as before
    assert {m["played_as"] for m in ana["recent_matches"]} == {"ana"}
    assert {h["played_as"] for h in ana["history"]} == {"ana"}


def test_tests_have_a_list_by_bot_and_a_bots_page_lists_its_own(
    client: TestClient, store: Store, hc: Versions
) -> None:
    every = client.get("/api/tests").json()
    assert [t["id"] for t in every["running"]] == [hc.test]
    assert [t["id"] for t in every["finished"]] == [hc.finished_test]
    assert every["running"][0] == sprts.line(*store.sprt(hc.test))  # type: ignore[misc]
    assert every["running"][0]["new_bot"] == "hc@2"  # who plays: its active version
    assert every["finished"][0]["status"] == "H1"
    assert every["bots"] == ["ana", "bia", "hc"] and every["next_before"] is None
    mine = client.get("/api/tests", params={"bot": "hc"}).json()
    assert ([t["id"] for t in mine["running"]], mine["finished"]) == ([hc.test], [])
    ana = client.get("/api/tests", params={"bot": "ana"}).json()  # BASE of one, NEW of one
    assert [t["id"] for t in ana["running"] + ana["finished"]] == [hc.test, hc.finished_test]
    first = client.get("/api/tests", params={"bot": "hc@1"}).json()  # not the version tested
    assert first["running"] == first["finished"] == []
    missing = client.get("/api/tests", params={"bot": "nobody"})
    assert missing.status_code == 404 and "no bot named 'nobody'" in missing.json()["error"]
    assert client.get("/tests", params={"before": "x"}).status_code == 400

    page = client.get("/tests").text
    assert page.count(f'<tr data-test="{hc.test}">') == 1
    assert f'<a class="test" href="/tests/{hc.finished_test}">' in page
    assert '<a href="/tests?bot=hc">hc</a>' in page  # the filter's links
    assert '<a href="/tests">Tests</a>' in page  # in every page's header
    filtered = client.get("/tests?bot=bia").text
    assert f'data-test="{hc.test}"' not in filtered
    assert f'data-test="{hc.finished_test}"' in filtered

    bot = client.get("/api/bots/hc").json()
    assert [t["id"] for t in bot["tests"]] == [hc.test]
    assert f'<tr data-test="{hc.test}">' in client.get("/bots/hc").text
    assert 'href="/tests?bot=hc">all the tests of hc</a>' in client.get("/bots/hc").text


def test_older_finished_tests_come_a_page_at_a_time(
    client: TestClient, store: Store, hc: Versions, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sprts, "FINISHED_PAGE", 1)
    newer = start(store)
    play_to_verdict(store, newer)
    first = client.get("/api/tests").json()
    assert [t["id"] for t in first["finished"]] == [newer]
    assert first["next_before"] == newer and [t["id"] for t in first["running"]] == [hc.test]
    assert (
        f'<a rel="next" href="/tests?before={newer}">older tests</a>' in client.get("/tests").text
    )
    older = client.get("/api/tests", params={"before": newer}).json()
    assert [t["id"] for t in older["finished"]] == [hc.finished_test]
    assert older["running"] == [] and older["next_before"] is None  # running: on the first
    of_bia = client.get("/tests?bot=bia").text
    assert f'href="/tests?bot=bia&amp;before={newer}">older tests</a>' in of_bia


def test_match_lists_mark_unrated_and_test_matches(
    client: TestClient, store: Store, hc: Versions
) -> None:
    test_match = hc.test_matches[0]
    summary = client.get(f"/api/matches/{test_match}").json()["match"]
    assert (summary["test_id"], summary["rated"]) == (hc.test, False)
    assert client.get("/api/matches/v1-0").json()["match"]["test_id"] is None
    listed = client.get(f"/api/pools/{POOL}").json()["recent_matches"]
    board = client.get(f"/pools/{POOL}").text
    items = board.split("<h2>Latest matches</h2>")[1].split("<li>")[1:]
    assert len(items) == len(listed) and any(m["test_id"] for m in listed)
    for m, item in zip(listed, items, strict=True):
        assert f'href="/matches/{m["id"]}"' in item
        mark = f'<span class="state test" title="a match of sequential test {m["test_id"]}">'
        assert (mark in item) == (m["test_id"] is not None), item
        assert ('<span class="state unrated"' in item) == (not m["rated"]), item
    bot = client.get("/bots/hc").text
    assert f'<a class="state test" href="/tests/{hc.test}"' in bot
    tested = [m for m in hc.matches["hc@2"] if m.startswith("sprt")]  # played or to play
    assert bot.count('<span class="state unrated"') == len(tested) == 4
    assert bot.count(f'<a class="state test" href="/tests/{hc.test}"') == len(tested)


def test_a_bot_of_fifty_versions_reads_in_as_many_statements_as_one_of_two(
    store: Store, hc: Versions, tmp_path: Path
) -> None:
    def statements() -> int:
        with captured() as seen:
            bots.bot(store, "hc")
            bots.bots(store)
            ratings.leaderboard(store, POOL)
            ratings.rating_history(store, "hc", POOL)
            matches.page(store, size=20, organizer=False, bot="hc")
            sprts.tests(store, "hc")
        return len(seen)

    two = statements()
    for n in range(3, 51):
        version(store, "hc", tmp_path / f"v{n}", n)
    assert len(store.versions("hc")) == 50
    assert statements() == two

"""The match lists of the pages come a page at a time (docs/web.md): a run's matches and a
bot's latest, each page with a link to the next and its JSON twin with the token of it,
every match once and the latest listed first; a token that is not one is a 400. And every
JSON twin follows the one JSON convention of the command line's --json."""

from __future__ import annotations

import re
from html import unescape
from itertools import chain
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from arena.domain.tournament import Definition
from arena.read.bots import RECENT
from arena.read.tournaments import RUN_MATCHES
from arena.store.store import Store
from arena.web import create_app
from tests.cli.test_json import problems
from tests.webdata import ORGANIZER, fill, play_run, start_run

BOTS = ("ana", "bia", "caio")
NEXT = re.compile(r'<a rel="next" href="([^"]+)">older matches</a>')


@pytest.fixture
def client(store: Store) -> TestClient:
    for bot in BOTS:
        store.register_bot(bot)
    return TestClient(create_app(store, organizer_token=ORGANIZER))


def pages(client: TestClient, path: str, key: str) -> tuple[list[list[str]], list[str]]:
    """The ids of each page of ``key`` of the JSON twin at ``/api`` + ``path``, following
    its tokens; and the ids the HTML pages list, following their links."""
    seen, url = [], "/api" + path
    while url:
        data = client.get(url).json()
        seen.append([m["id"] for m in data[key]])
        token = data["next_page"]
        joint = "&" if "?" in path else "?"
        url = "" if token is None else f"/api{path}{joint}page={quote(token, safe='')}"
    shown, link = [], path
    while link:
        html = client.get(link).text
        shown += re.findall(r'href="/matches/([^"?]+)"', html)
        found = NEXT.search(html)
        link = unescape(found[1]) if found else ""
    return seen, shown


def test_a_runs_matches_come_a_page_at_a_time_the_latest_played_first(
    client: TestClient, store: Store
) -> None:
    run_id, _ = start_run(store, Definition(name="long", bots=BOTS, matches=40))
    ids = sorted(m.id for m, _ in store.run_matches(run_id, 1000))
    assert len(ids) == 120 > RUN_MATCHES
    play_run(store, run_id, ids)  # in plan order: the last played is listed first
    seen, shown = pages(client, f"/runs/{run_id}", "matches")
    assert [len(p) for p in seen] == [RUN_MATCHES, 120 - RUN_MATCHES]
    assert list(chain(*seen)) == ids[::-1]
    assert shown == ids[::-1]  # each page links each of its matches once


def test_a_bots_latest_matches_come_a_page_at_a_time(client: TestClient, store: Store) -> None:
    run_id, _ = start_run(store, Definition(name="cup", bots=BOTS, matches=16))
    ids = sorted(m.id for m, _ in store.run_matches(run_id, 1000))
    play_run(store, run_id, ids)
    anas = [m for m in ids[::-1] if "ana" in store.match(m)[1]]  # type: ignore[index]
    assert len(anas) == 32 > RECENT
    seen, shown = pages(client, "/bots/ana?pool=paulista/1", "recent_matches")
    assert [len(p) for p in seen] == [RECENT, 32 - RECENT] and list(chain(*seen)) == anas
    assert [m for m in shown if m in anas] == anas
    default_pool, _ = pages(client, "/bots/ana", "recent_matches")
    assert list(chain(*default_pool)) == anas


@pytest.mark.parametrize("path", ["/runs/1", "/bots/ana"])
def test_a_page_token_that_is_not_one_is_a_bad_request(client: TestClient, path: str) -> None:
    got = client.get("/api" + path, params={"page": "yesterday"})
    assert got.status_code == 400
    assert got.json() == {
        "error": "page: not one this server gave; follow the link to older matches, or "
        "leave it out for the latest"
    }


def test_every_json_twin_follows_the_one_convention(store: Store) -> None:
    looked = fill(store)
    run_id, ids = start_run(store, Definition(name="cup", bots=("alpha", "beta", "gamma")))
    play_run(store, run_id, ids)
    client = TestClient(create_app(store, organizer_token=ORGANIZER))
    headers = {"Authorization": f"Bearer {ORGANIZER}"}
    for path in ("/pools/paulista/1", "/bots", "/bots/alpha", f"/matches/{looked.ids['covered']}",
                 "/tournaments", f"/runs/{run_id}", "/organizer/log"):  # fmt: skip
        got = client.get("/api" + path, headers=headers)
        assert got.status_code == 200 and problems(got.json()) == [], (path, got.text[:300])

"""The downloads behind the links of a run's page, the leaderboard and a bot's page, over
HTTP on a real PostgreSQL: each link gives the read model's export (arena/read/exports.py)
for whoever asks, saved under its name; no download a visitor can fetch holds a seed,
while the organizer's records (signed in by header, or by the cookie of ?token=) are
whole; what cannot be downloaded gets its status and a page saying why."""

from __future__ import annotations

import re
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.read import exports
from arena.store.store import Store
from arena.web import create_app
from tests.web.test_seeds import seeded_arena, stored_seeds, urls
from tests.webdata import ORGANIZER

LINK = re.compile(r'href="([^"]*/export\.[^"]*)"')
BEARER = {"Authorization": f"Bearer {ORGANIZER}"}


@pytest.fixture
def client(store: Store) -> TestClient:
    seeded_arena(store)
    return TestClient(create_app(store, organizer_token=ORGANIZER))


def links(client: TestClient, page: str, **kw: Any) -> list[str]:
    html = client.get(page, **kw)
    assert html.status_code == 200
    return [link.replace("&amp;", "&") for link in LINK.findall(html.text)]


def expected(store: Store, url: str, organizer: bool) -> exports.Export:
    """The read model's export that a download link names."""
    path, _, query = url.partition("?")
    q = dict(p.split("=", 1) for p in query.split("&") if p)
    stem, fmt = path.rsplit(".", 1)
    parts = stem.split("/")
    if parts[1] == "runs":
        return exports.run_export(store, int(parts[2]), q.get("what"), fmt, organizer=organizer)
    if parts[1] == "pools":
        return exports.pool_export(store, f"{parts[2]}/{parts[3]}", fmt)
    return exports.bot_export(
        store, parts[2], q.get("what"), fmt, q.get("pool") or None, organizer=organizer
    )


def test_every_link_downloads_the_export_it_names(client: TestClient, store: Store) -> None:
    pages = ["/runs/1", "/pools/paulista/1", "/bots/alpha", "/bots/beta?pool=paulista/1"]
    for organizer in (False, True):
        headers = BEARER if organizer else {}
        found = [link for page in pages for link in links(client, page, headers=headers)]
        assert len(found) == 5 + 2 + 3 + 3
        for url in found:
            got = client.get(url, headers=headers)
            export = expected(store, url, organizer)
            assert got.status_code == 200, url
            assert got.headers["content-disposition"] == f'attachment; filename="{export.name}"'
            assert got.headers["content-type"] == export.media_type
            assert got.content == b"".join(export.chunks) and got.content, url
            assert ("private" in got.headers.get("cache-control", "")) is organizer
    retired = links(client, "/pools/paulista/1?retired=1")
    assert retired[0] == "/pools/paulista/1/export.csv?retired=1"


def test_no_download_shows_a_visitor_a_seed(client: TestClient, database: str) -> None:
    seeds = stored_seeds(database)
    pages = [u for u in urls(client) if not u.startswith("/api/")]
    found = sorted({link for page in pages for link in links(client, page)})
    assert len(found) > 15 and any("what=records" in link for link in found)
    for url in found:
        shown = {seed for seed in seeds if seed in client.get(url).text}
        assert not shown, (url, shown)
    records = [u for u in found if "what=records" in u]
    whole = "".join(client.get(u, headers=BEARER).text for u in records)
    assert {seed for seed in seeds if seed in whole}  # the organizer's hold them


def test_the_organizer_signs_in_by_token_and_gets_whole_records(client: TestClient) -> None:
    url = "/runs/1/export.ndjson?what=records"
    signed = client.get(url + f"&token={ORGANIZER}", follow_redirects=False)
    assert signed.status_code == 303 and signed.headers["location"] == url
    assert '"seed":' in client.get(url).text  # the cookie
    client.cookies.clear()
    assert '"seed":' not in client.get(url).text


@pytest.mark.parametrize(
    ("url", "status", "says"),
    [
        ("/runs/99/export.csv", 404, "no tournament run 99"),
        ("/runs/x/export.csv", 404, "no tournament run &#39;x&#39;"),
        ("/runs/1/export.xlsx", 400, "no export format &#39;xlsx&#39;"),
        ("/runs/1/export.csv?what=records", 400, "records have no CSV form"),
        ("/runs/1/export.csv?what=crosstable", 400, "cannot export &#39;crosstable&#39;"),
        ("/pools/poker/1/export.csv", 404, "no pool &#39;poker/1&#39;"),
        ("/bots/nobody/export.ndjson", 404, "no bot named &#39;nobody&#39;"),
        ("/bots/alpha/export.csv?pool=poker/1", 404, "no pool &#39;poker/1&#39;"),
    ],
)
def test_what_cannot_be_downloaded_says_why(
    client: TestClient, url: str, status: int, says: str
) -> None:
    got = client.get(url)
    assert got.status_code == status and says in got.text
    assert "content-disposition" not in got.headers


def test_a_wrong_token_is_refused(client: TestClient) -> None:
    got = client.get("/runs/1/export.csv", headers={"Authorization": "Bearer guess"})
    assert got.status_code == 403 and "not a token of this arena" in got.text

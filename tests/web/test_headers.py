"""Every response carries the security headers: no sniffing of types, no framing, no
referrer sent away, and a Content-Security-Policy that allows only the site's own
stylesheet, script and images; the pages satisfy that policy (no inline style or script,
nothing from elsewhere)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from starlette.testclient import TestClient

from arena.domain.clock import TimeControl
from arena.domain.sprt import Asked, Sprt
from arena.domain.tournament import Definition
from arena.engine import Rules
from arena.store.store import Store
from arena.usecases.runs import create_run
from arena.usecases.sprts import start_sprt
from arena.web import create_app
from tests.webdata import ORGANIZER, fill, play_run, start_run

HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


@pytest.fixture
def client(store: Store) -> TestClient:
    fill(store)
    run_id, ids = start_run(
        store, Definition("weekly", bots=("alpha", "beta", "gamma"), seed=3, trusted=True)
    )
    play_run(store, run_id, ids)
    start_run(store, Definition("empty", pool="paulista/3"))  # fails: nobody rated there
    weekly = store.tournament("weekly")
    assert weekly is not None and create_run(store, weekly) is not None  # starting
    asked = Asked(Rules(), TimeControl(), max_games=10)
    assert start_sprt(store, "alpha", "beta", Sprt(0, 20), asked, "organizer").id == 1
    return TestClient(create_app(store, organizer_token=ORGANIZER), follow_redirects=False)


def policy(header: str) -> dict[str, list[str]]:
    """A Content-Security-Policy as its directives and their sources."""
    out = {}
    for directive in header.split(";"):
        name, *sources = directive.split()
        out[name] = sources
    return out


KINDS = {
    "page": ("GET", "/bots", {}, 200),
    "json": ("GET", "/api/bots", {}, 200),
    "static": ("GET", "/static/style.css", {}, 200),
    "health": ("GET", "/healthz", {}, 200),
    "head": ("HEAD", "/bots", {}, 200),
    "not found page": ("GET", "/matches/m-nothing", {}, 404),
    "bad request json": ("GET", "/api/matches/m-0?hand=x", {}, 400),
    "wrong token": ("GET", "/bots?token=guess", {}, 403),
    "no such route": ("GET", "/nowhere", {}, 404),
    "no such static file": ("GET", "/static/nothing.css", {}, 404),
    "method not allowed": ("POST", "/bots", {}, 405),
    "redirect": ("GET", "/", {}, 307),
    "sign-in redirect": ("GET", f"/bots?token={ORGANIZER}", {}, 303),
    "organizer page": ("GET", "/runs/1", {"Authorization": f"Bearer {ORGANIZER}"}, 200),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_of_response_has_the_security_headers(client: TestClient, kind: str) -> None:
    method, url, headers, status = KINDS[kind]
    response = client.request(method, url, headers=headers)
    assert response.status_code == status
    for name, value in HEADERS.items():
        assert response.headers.get(name) == value, name
    csp = policy(response.headers["content-security-policy"])
    assert csp["default-src"] == ["'none'"] and csp["frame-ancestors"] == ["'none'"]
    for directive in ("script-src", "style-src", "img-src"):
        assert csp[directive] == ["'self'"], directive


class Resources(HTMLParser):
    """What a page asks the browser to load or run, and what a policy without
    'unsafe-inline' would block."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded: list[str] = []  # stylesheets, scripts, icons, images
        self.blocked: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "style" or "style" in values:
            self.blocked.append(f"inline style in <{tag}>")
        if tag == "script" and not values.get("src"):
            self.blocked.append("an inline script")
        self.blocked += [f"handler {name} in <{tag}>" for name in values if name.startswith("on")]
        for name in ("href", "src"):
            url = values.get(name) or ""
            if url.startswith("javascript:"):
                self.blocked.append(f"a javascript: url in <{tag}>")
        if tag in ("script", "img") and values.get("src"):
            self.loaded.append(values["src"] or "")
        if tag == "link" and values.get("rel") in ("stylesheet", "icon"):
            self.loaded.append(values.get("href") or "")


def pages(client: TestClient) -> list[str]:
    ids = [m["id"] for m in client.get("/api/pools/paulista/1").json()["recent_matches"]]
    runs = [r for t in client.get("/api/tournaments").json()["tournaments"] for r in t["runs"]]
    assert {r["status"] for r in runs} == {"finished", "failed", "starting"}
    return [
        "/pools/paulista/1",
        "/pools/paulista/2",
        "/bots",
        "/bots/alpha",
        "/bots/idle",
        "/tournaments",
        "/matches/m-nothing",
        *(f"/matches/{i}" for i in ids),
        *(f"/runs/{r['id']}" for r in runs),
        "/tests/1",
    ]


@pytest.mark.parametrize("organizer", [False, True])
def test_the_pages_satisfy_the_policy(client: TestClient, organizer: bool) -> None:
    headers = {"Authorization": f"Bearer {ORGANIZER}"} if organizer else {}
    urls = pages(client)
    assert len(urls) > 12
    loaded = set()
    for url in urls:
        page = client.get(url, headers=headers)
        resources = Resources()
        resources.feed(page.text)
        assert resources.blocked == [], url
        loaded.update(resources.loaded)
    assert loaded == {
        "/static/style.css",
        "/static/replay.js",
        "/static/live.js",
        "/static/favicon.svg",
    }
    for url in loaded:  # the site's own ('self'), and there
        assert client.get(url).status_code == 200

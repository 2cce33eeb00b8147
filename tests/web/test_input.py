"""Hostile input to the web pages: NUL bytes, digits that are not ASCII, ids of thousands
of digits, very long strings, in every path and query parameter. Each is answered 400 or
404 with a short body, on the page and on its JSON twin; never a 500, never the input
echoed back whole. A store that cannot be reached is 503."""

from __future__ import annotations

from urllib.parse import quote

import httpx2
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from arena.store.store import Store
from arena.web import create_app
from tests.webdata import ORGANIZER, fill

BAD = {
    "nul": "\x00",
    "nul inside": "a\x00b",
    "superscript two": "²",  # str.isdigit() says yes
    "arabic-indic three": "٣",  # int() reads it as 3
    "5000 digits": "9" * 5000,
    "60 KB": "x" * 60_000,
}
SHORT = 3000  # bytes: an error page with its layout, never the input back whole

# every place a visitor's text goes in: a path with {} for it, or a query parameter
PATHS = [
    "/pools/{}/1",
    "/pools/paulista/{}",
    "/bots/{}",
    "/matches/{}",
    "/api/matches/{}/record",
    "/runs/{}",
    "/tests/{}",
]
QUERIES = [("/bots/alpha", "pool"), ("/matches/m-0", "hand"), ("/matches/m-0", "step")]


@pytest.fixture
def client(store: Store) -> TestClient:
    fill(store)
    return TestClient(create_app(store, organizer_token=ORGANIZER))


def twins(path: str) -> list[str]:
    return [path] if path.startswith("/api/") else [path, "/api" + path]


def assert_refused(response: httpx2.Response, text: str) -> None:
    status, body = response.status_code, response.content
    assert status in (400, 404), (status, body[:200])
    assert len(body) < SHORT, len(body)
    assert len(text) < 100 or text.encode() not in body


@pytest.mark.parametrize("bad", list(BAD.values()), ids=list(BAD))
@pytest.mark.parametrize("path", PATHS)
def test_a_bad_path_segment_is_a_short_400_or_404(client: TestClient, path: str, bad: str) -> None:
    for url in twins(path.format(quote(bad, safe=""))):
        response = client.get(url)
        assert_refused(response, bad)
        if url.startswith("/api/"):
            assert set(response.json()) == {"error"}


@pytest.mark.parametrize("bad", list(BAD.values()), ids=list(BAD))
@pytest.mark.parametrize(("path", "name"), QUERIES)
def test_a_bad_query_parameter_is_a_short_400_or_404(
    client: TestClient, path: str, name: str, bad: str
) -> None:
    for url in twins(path):
        assert_refused(client.get(url, params={name: bad}), bad)


@pytest.mark.parametrize("bad", ["-1", "٣", "1_0", " 1", "0x1"])
def test_a_hand_or_step_is_written_in_ascii_digits(client: TestClient, bad: str) -> None:
    for name in ("hand", "step"):
        response = client.get("/api/matches/m-0", params={name: bad})
        assert response.status_code == 400
        assert response.json()["error"].startswith(f"{name} must be a whole number")


def test_a_run_id_beyond_any_id_is_not_found(client: TestClient) -> None:
    for run_id in (str(2**63), "9" * 19, "0"):
        response = client.get(f"/api/runs/{run_id}")
        assert response.status_code == 404 and "no tournament run" in response.json()["error"]
        response = client.get(f"/api/tests/{run_id}")
        assert response.status_code == 404 and "no test" in response.json()["error"]


segments = st.one_of(
    st.text(
        st.one_of(st.characters(exclude_categories=["Cs"]), st.sampled_from("\x000²٣/%.")),
        min_size=1,
        max_size=300,
    ),
    st.integers(min_value=0).map(str),
)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(segment=segments, path=st.sampled_from(PATHS), api=st.booleans())
def test_no_path_segment_makes_a_server_error(
    client: TestClient, segment: str, path: str, api: bool
) -> None:
    assume(segment not in (".", "..") and segment not in ("alpha", "beta", "gamma", "idle"))
    url = path.format(quote(segment, safe=""))
    if api and not url.startswith("/api/"):
        url = "/api" + url
    response = client.get(url)
    if response.status_code != 200:  # a segment may name a real page: "1", "paulista"
        assert_refused(response, segment)


def test_a_store_that_cannot_be_reached_is_503(database: str) -> None:
    store = Store(database)
    app = create_app(store, organizer_token=ORGANIZER)
    store.close()
    client = TestClient(app)
    api = client.get("/api/bots")
    assert api.status_code == 503 and set(api.json()) == {"error"}
    assert database not in api.text
    page = client.get("/bots")
    assert page.status_code == 503 and "try again" in page.text

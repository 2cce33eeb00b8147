"""The page of a sequential test and its JSON twin over HTTP, on a real PostgreSQL: a test
played through the store to its verdict (the LLR chart, the counts, the verdict in
words), a test that has made its first pairs, 404s; and the LLR chart itself."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from arena.domain.clock import TimeControl
from arena.domain.sprt import Asked, Sprt
from arena.engine import Rules
from arena.read.sprts import sprt
from arena.store.store import Store
from arena.usecases.sprts import start_sprt, step_sprt
from arena.web import create_app
from arena.web.charts import llr_chart
from tests.usecases.test_sprt_arena import record
from tests.webdata import ORGANIZER


@pytest.fixture
def client(store: Store) -> TestClient:
    for name in ("ana", "bia"):  # ana is NEW: tests.usecases.test_sprt_arena.record's
        store.register_bot(name)
    return TestClient(create_app(store, organizer_token=ORGANIZER))


def start(store: Store, elo1: float = 200) -> int:
    asked = Asked(Rules(), TimeControl(), max_games=100, at_once=4)
    test = start_sprt(store, "ana", "bia", Sprt(0, elo1), asked, "organizer")
    return test.id


def play_to_verdict(store: Store, test_id: int) -> None:
    """NEW wins every match until the test decides."""
    made = step_sprt(store, test_id)
    while made:
        match_id = made.pop(0)
        record(store, match_id, new_won=True)
        made += step_sprt(store, test_id)


def ys(svg: str, tag: str) -> list[float]:
    """The y of each horizontal line of ``tag`` (a class) in a chart."""
    return [float(y) for y in re.findall(rf'<line class="[^"]*{tag}[^"]*"[^>]*y1="([-\d.]+)"', svg)]


def test_a_decided_test_shows_its_verdict_counts_and_llr_chart(
    client: TestClient, store: Store
) -> None:
    test_id = start(store)
    play_to_verdict(store, test_id)
    data = client.get(f"/api/tests/{test_id}").json()
    assert data == sprt(store, test_id)
    assert data["status"] == "H1" and data["new_bot"] == "ana" and data["base_bot"] == "bia"
    assert data["pairs"] == data["won_both"] > 0 and len(data["history"]) == data["pairs"]
    assert data["history"][-1] == data["llr"] >= data["upper"]
    assert data["elo"] is None and data["finished_at"] is not None  # NEW won every pair

    page = client.get(f"/tests/{test_id}")
    assert page.status_code == 200
    text = page.text
    assert "H1 accepted:</b> ana is stronger than bia by 200 Elo or more." in text
    assert 'href="/bots/ana"' in text and 'href="/bots/bia"' in text
    assert f"<dd>{data['won_both']}</dd>" in text
    assert "+∞" in text and "NEW won every pair" in text
    assert f"{data['upper']:.2f}" in text and f"{data['lower']:.2f}" in text
    assert 'http-equiv="refresh"' not in text  # decided: nothing more to wait for
    (svg,) = re.findall(r'<svg class="chart llr".*?</svg>', text, re.S)
    (points,) = re.findall(r'<polyline points="([^"]*)"', svg)
    assert len(points.split()) == data["pairs"] + 1  # from 0, then a point per pair
    assert svg.count("<circle") == data["pairs"]
    assert "accept H1" in svg and "accept H0" in svg and len(ys(svg, "bound")) == 2
    assert f"pair {data['pairs']}" in svg
    assert f'href="/api/tests/{test_id}"' in text


def test_a_test_that_stops_on_h0_says_so(client: TestClient, store: Store) -> None:
    test_id = start(store)
    made = step_sprt(store, test_id)
    while made:
        record(store, made.pop(0), new_won=False)
        made += step_sprt(store, test_id)
    data = client.get(f"/api/tests/{test_id}").json()
    assert data["status"] == "H0" and data["history"][-1] <= data["lower"]
    text = client.get(f"/tests/{test_id}").text
    assert "H0 accepted:</b> ana is not stronger than bia by more than 0 Elo." in text
    assert "\N{MINUS SIGN}∞" in text and "NEW lost every pair" in text


def test_a_running_test_without_a_pair_counts_its_matches(client: TestClient, store: Store) -> None:
    test_id = start(store, elo1=20)
    made = step_sprt(store, test_id)
    data = client.get(f"/api/tests/{test_id}").json()
    assert data["status"] == "running" and data["games"] == len(made) == 4
    assert data["pairs"] == 0 and data["history"] == [] and data["elo"] is None
    assert data["rated"] is False and data["duplicate"] is False
    text = client.get(f"/tests/{test_id}").text
    assert "Running:</b> 4 of 100 matches made." in text
    assert 'http-equiv="refresh"' in text
    assert "no pair yet" in text and "<polyline" not in text
    assert "accept H1" in text and "accept H0" in text
    assert '<dd data-testid="elo"><span class="muted">—</span></dd>' in text
    assert "each match its own" in text and "<dd>no</dd>" in text

    record(store, made[0], new_won=True)
    record(store, made[1], new_won=False)  # the first pair splits
    step_sprt(store, test_id)
    data = client.get(f"/api/tests/{test_id}").json()
    assert data["split"] == data["pairs"] == 1 and len(data["history"]) == 1
    # a split pair decides nothing: no estimate, and no interval of no width ("0 to 0")
    assert data["elo"] is data["elo_low"] is data["elo_high"] is None
    text = client.get(f"/tests/{test_id}").text
    assert '<dd data-testid="elo"><span class="muted">—</span></dd>' in text
    assert "0 to 0" not in text


@pytest.mark.parametrize("path", ["/tests/999", "/tests/abc", "/tests/²", "/tests/-1"])
def test_an_unknown_test_is_a_404_in_both_twins(client: TestClient, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 404 and "no test" in page.text
    api = client.get("/api" + path)
    assert api.status_code == 404 and "no test" in api.json()["error"]


@pytest.mark.parametrize(
    "history",
    [[], [0.5], [0.3, 1.0, 2.0, 3.1], [-0.4, -1.5, -3.2], [5.0, 9.0], [-7.5]],
)
def test_the_llr_chart_spans_both_bounds_zero_and_the_data(history: list[float]) -> None:
    lower, upper, height = -2.944, 2.944, 220
    svg = str(llr_chart(history, lower, upper, height=height))
    top, bottom = 12.0, height - 24.0
    upper_y, lower_y = ys(svg, "h1")[0], ys(svg, "h0")[0]
    (zero_y,) = ys(svg, "grid")
    assert top <= upper_y < zero_y < lower_y <= bottom  # up is up
    if history:
        (points,) = re.findall(r'<polyline points="([^"]*)"', svg)
        pys = [float(p.split(",")[1]) for p in points.split()]
        assert len(pys) == len(history) + 1 and pys[0] == zero_y
        assert all(top <= y <= bottom for y in pys)
        assert svg.count("<circle") == len(history)
    else:
        assert "no pair yet" in svg and "<polyline" not in svg
    assert "accept H1" in svg and "accept H0" in svg

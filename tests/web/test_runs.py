"""The tournaments page and the page of a run, with their JSON twins, over HTTP on a real
PostgreSQL: a finished run against a table worked out by hand, a run being played (live
standings, progress, the page reloading itself), a failed run, empty states and 404s."""

from __future__ import annotations

import re
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.domain.tournament import Definition
from arena.store.store import Store
from arena.usecases import runs
from arena.usecases.matches import record as record_match
from arena.usecases.runs import create_run, finish_run
from arena.usecases.tournaments import create_tournament
from arena.web import create_app
from tests.webdata import ORGANIZER, play_run, start_run

BOTS = ("ana", "bia", "caio")
WEEKLY = Definition("weekly", bots=BOTS, matches=2, seed=11, duplicate=True, trusted=True)
DASH = "\N{EN DASH}"  # the pages write W-L with an en dash


@pytest.fixture
def client(store: Store) -> TestClient:
    for bot in BOTS:
        store.register_bot(bot)
    return TestClient(create_app(store, organizer_token=ORGANIZER))


def result(seats: list[str], winner: str, loser_points: int) -> dict[str, Any]:
    """A record that says only who won and the hand points: one hand of 12 to
    ``loser_points`` (enough for the standings; it does not replay)."""
    team = seats.index(winner) % 2
    points = [12, loser_points] if team == 0 else [loser_points, 12]
    return {"result": {"winner": team, "score": points}, "hands": [{"result": {"points": points}}]}


# Who wins each match of the weekly run (matches in plan order: ana-bia twice, ana-caio
# twice, bia-caio twice) and the loser's hand points.
OUTCOMES = [("ana", 6), ("ana", 6), ("ana", 6), ("ana", 6), ("bia", 10), ("caio", 3)]


def finish(store: Store, match_ids: list[str], outcomes: list[tuple[str, int]]) -> None:
    for match_id, (winner, loser_points) in zip(match_ids, outcomes, strict=False):
        found = store.match(match_id)
        assert found is not None
        store.set_status(match_id, "running")
        record_match(store, match_id, result(found[1], winner, loser_points))


def test_a_finished_run_shows_its_table_crosstable_definition_and_matches(
    client: TestClient, store: Store
) -> None:
    run_id, ids = start_run(store, WEEKLY)
    assert len(ids) == 6
    finish(store, ids, OUTCOMES)
    assert finish_run(store, run_id)

    data = client.get(f"/api/runs/{run_id}").json()
    assert data["run"]["status"] == "finished" and data["run"]["tournament"] == "weekly"
    assert data["live"] is False and data["refresh"] is None
    assert data["progress"] | {"per_minute": None, "first_started": None} == {
        "total": 6, "expected": 6, "finished": 6, "failed": 0, "running": 0, "percent": 100.0,
        "per_minute": None, "eta_s": None, "first_started": None, "cancelled": 0,
        "voided": 0, "replays": 0,
    }  # fmt: skip
    table = {
        r["bot"]: (r["rank"], r["points"], r["wins"], r["losses"], r["hand_points"],
                   r["hand_points_against"], r["faults_total"])
        for r in data["standings"]
    }  # fmt: skip
    # ana: 4 wins 12-6; bia: beat caio 12-10, lost 3-12; caio the other way round: both
    # have one point and the same rating, caio has the better hand points (34-39 > 27-46).
    assert table == {
        "ana": (1, 4, 4, 0, 48, 24, 0),
        "caio": (2, 1, 1, 3, 34, 39, 0),
        "bia": (3, 1, 1, 3, 27, 46, 0),
    }
    cross = {row["bot"]: row["cells"] for row in data["crosstable"]}
    assert [row["bot"] for row in data["crosstable"]] == ["ana", "caio", "bia"]
    assert cross["ana"][0] is None  # no bot meets itself
    assert cross["ana"][1] == {"opponent": "caio", "wins": 2, "losses": 0, "share": 1.0}
    assert cross["caio"][2] == {"opponent": "bia", "wins": 1, "losses": 1, "share": 0.5}
    assert cross["bia"][0] == {"opponent": "ana", "wins": 0, "losses": 2, "share": 0.0}
    assert data["definition"]["matches"] == 2 and data["definition"]["duplicate"] is True
    assert "seed" not in data["run"] and "seed" not in data["definition"]  # the organizer's
    assert data["schedule"] is None
    assert sorted(m["id"] for m in data["matches"]) == ids
    assert all(m["run_id"] == run_id for m in data["matches"])

    page = client.get(f"/runs/{run_id}")
    assert page.status_code == 200
    assert 'http-equiv="refresh"' not in page.text
    assert 'href="/bots/ana?pool=paulista%2F1"' in page.text
    assert f"48{DASH}24" in page.text and f"4{DASH}0" in page.text
    cell = rf'class="num heat heat-(\d+)"[^>]*>(\d+){DASH}(\d+)<'  # share of wins in tenths
    heat = re.findall(cell, page.text)
    assert ("10", "2", "0") in heat and ("0", "0", "2") in heat and ("5", "1", "1") in heat
    assert len(heat) == 6
    for match_id in ids:
        assert f'href="/matches/{match_id}"' in page.text
    match_page = client.get(f"/matches/{ids[0]}")
    assert f'href="/runs/{run_id}"' in match_page.text


def test_a_running_run_has_live_standings_progress_and_reloads_itself(
    client: TestClient, store: Store
) -> None:
    run_id, ids = start_run(store, WEEKLY)
    finish(store, ids, OUTCOMES[:2])
    store.set_status(ids[2], "running")

    data = client.get(f"/api/runs/{run_id}").json()
    assert data["run"]["status"] == "running"
    assert data["live"] is True and data["refresh"] == 5
    progress = data["progress"]
    assert (progress["total"], progress["finished"], progress["failed"]) == (6, 2, 0)
    assert progress["running"] == 1 and progress["percent"] == 33.3
    assert progress["per_minute"] > 0 and progress["eta_s"] >= 0
    table = {r["bot"]: (r["rank"], r["points"], r["played"]) for r in data["standings"]}
    assert table == {"ana": (1, 2, 2), "bia": (2, 0, 2), "caio": (3, 0, 0)}
    assert data["matches"][0]["status"] == "running"  # the latest played first
    assert {m["id"] for m in data["matches"][1:3]} == set(ids[:2])

    page = client.get(f"/runs/{run_id}").text
    assert '<meta http-equiv="refresh" content="5">' in page
    assert "so far" in page and "matches/min" in page
    assert 'aria-valuenow="2"' in page


def test_a_run_s_states_and_fixes_show_on_its_page_and_in_its_json(
    client: TestClient, store: Store
) -> None:
    unrated = Definition("practice", bots=BOTS, matches=2, rated=False)
    run_id, ids = start_run(store, unrated)
    finish(store, ids, OUTCOMES[:2])
    data = client.get(f"/api/runs/{run_id}").json()  # nobody connected to any node
    assert data["waiting"] == "4 matches to play, none playing: ana, bia, caio not connected"
    runs.pause_run(store, run_id)
    data = client.get(f"/api/runs/{run_id}").json()
    assert data["run"]["status"] == "paused" and "paused by the organizer" in data["waiting"]
    assert data["definition"]["rated"] is False
    assert data["run"]["entries"] == {"ana": "ana", "bia": "bia", "caio": "caio"}
    page = client.get(f"/runs/{run_id}").text
    assert "Waiting: paused by the organizer: 4 matches wait" in page
    assert "An unrated event" in page and "run-paused" in page
    assert "unrated</span>" in page  # its matches are marked in the list

    runs.void_match(store, run_id, ids[0], "wrong clock")
    new_id, _ = runs.replay_match(store, run_id, ids[1], "a restart")
    runs.cancel_run(store, run_id)
    data = client.get(f"/api/runs/{run_id}").json()
    progress = data["progress"]
    assert data["run"]["status"] == "cancelled"
    assert (progress["cancelled"], progress["voided"], progress["replays"]) == (5, 2, 1)
    notes = {n["match_id"]: n for n in data["notes"]}
    assert notes[ids[0]]["voided"] == "wrong clock"
    assert notes[new_id]["replay_of"] == ids[1] and notes[new_id]["status"] == "cancelled"
    page = client.get(f"/runs/{run_id}").text
    assert "This run was cancelled" in page and "Matches voided or played again" in page
    assert f"replayed as {new_id}: a restart" in page


def test_a_failed_run_says_why_and_does_not_reload(client: TestClient, store: Store) -> None:
    run_id, ids = start_run(store, Definition("empty", pool="paulista/1"))
    assert ids == []
    data = client.get(f"/api/runs/{run_id}").json()
    assert data["run"]["status"] == "failed"
    assert "two participants" in data["run"]["error"]
    assert data["refresh"] is None and data["standings"] == [] and data["matches"] == []
    page = client.get(f"/runs/{run_id}").text
    assert "This run failed" in page and "two participants" in page
    assert "http-equiv" not in page
    assert "No matches were played" in page


def test_the_tournaments_page_lists_definitions_schedules_and_runs(
    client: TestClient, store: Store
) -> None:
    assert client.get("/api/tournaments").json() == {"tournaments": []}
    assert "No tournaments yet" in client.get("/tournaments").text

    create_tournament(store, Definition("nightly", bots=("ana", "bia"), schedule="0 3 * * *"))
    first, ids = start_run(store, WEEKLY)
    play_run(store, first, ids)
    weekly = store.tournament("weekly")
    assert weekly is not None
    second = create_run(store, weekly)
    assert second is not None

    data = client.get("/api/tournaments").json()["tournaments"]
    assert [t["name"] for t in data] == ["nightly", "weekly"]
    nightly, week = data
    assert nightly["schedule"]["cron"] == "0 3 * * *"
    assert re.match(r"\d{4}-\d\d-\d\dT03:00:00\+00:00$", nightly["schedule"]["next"])
    assert (nightly["run_count"], nightly["last_run"], nightly["runs"]) == (0, None, [])
    assert week["schedule"] is None and week["definition"]["bots"] == list(BOTS)
    assert (week["run_count"], week["last_run"], week["last_status"]) == (2, second.id, "starting")
    assert [(r["id"], r["status"]) for r in week["runs"]] == [
        (second.id, "starting"),
        (first, "finished"),
    ]

    page = client.get("/tournaments").text
    assert "<code>0 3 * * *</code>" in page and "next " in page
    assert f'href="/runs/{second.id}"' in page and f'href="/runs/{first}"' in page
    assert "No runs yet" in page  # nightly
    assert 'href="/tournaments"' in page  # in the menu

    starting = client.get(f"/api/runs/{second.id}").json()
    assert starting["refresh"] == 5 and starting["standings"] == []
    assert "No match of this run has finished yet" in client.get(f"/runs/{second.id}").text


@pytest.mark.parametrize("path", ["/runs/999", "/runs/abc"])
def test_an_unknown_run_is_a_404_in_both_twins(client: TestClient, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 404 and "no tournament run" in page.text
    api = client.get("/api" + path)
    assert api.status_code == 404 and "no tournament run" in api.json()["error"]

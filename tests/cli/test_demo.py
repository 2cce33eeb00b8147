"""`arena demo` on embedded defaults only (no database, broker or referee configured): it
plays its tournament, prints the table and the ratings, runs the ladder for a few seconds
and prints the ratings it left, stops everything it started, and leaves data that the
read commands and every kind of web page then show."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.embedded import (
    database_url,
    embedded_postgres_running,
    embedded_redis_running,
    stop_embedded_postgres,
)
from arena.hosted.sandbox import unavailable
from arena.service import free_address
from arena.settings import Settings
from arena.store.store import Store
from arena.web import create_app


@pytest.mark.long
def test_the_demo_runs_on_embedded_defaults_and_leaves_its_data(
    open_tmp: Path, request: pytest.FixtureRequest
) -> None:
    home = open_tmp / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_HOME"] = str(home)
    port = free_address().rsplit(":", 1)[1]
    done = subprocess.run(
        [
            sys.executable, "-m", "arena.cli", "demo", "--matches", "2", "--web-port", port,
            "--ladder-s", "5",
        ],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    # where a sandbox can be made, one hosted bot joins the three house bots
    hosted = unavailable() is None
    bots = 4 if hosted else 3
    total = bots * (bots - 1) * 2  # a double round robin, 2 matches a pairing
    assert f"{total} of {total} matches recorded" in out, out
    assert "crosstable" in out and "paulista/1" in out
    assert f"http://127.0.0.1:{port}/pools/paulista/1" in out
    for bot in ("house-random", "house-heuristic", "house-mc"):
        assert bot in out
    assert f"http://127.0.0.1:{port}/play (as a guest" in out  # people may play them
    if hosted:
        assert "hosted-heuristic@1: checked, plays sandboxed" in out
    else:
        assert f"hosted bot                     none: {unavailable()}" in out
    # then the ladder played, with the bots opted in
    assert "analysed by the house mc bot:" in out and "points lost a decision" in out, out
    assert "(its analysis, as the organizer)" in out, out
    assert "Ladder paulista/1: on for 5 s, 4 matches at once" in out, out
    ladder = re.search(r"the ladder played (\d+) matches in 5 s", out)
    assert ladder is not None, out
    played = int(ladder[1])
    assert played >= 1, out
    # it stopped what it started, the embedded servers included
    assert not embedded_postgres_running(home) and not embedded_redis_running(home)
    leftover = subprocess.run(["pgrep", "-f", str(home)], capture_output=True, text=True)
    assert leftover.stdout == ""

    # nothing is running now: the read commands start what they need
    read = subprocess.run(
        [sys.executable, "-m", "arena.cli", "ratings", "--json"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert read.returncode == 0, read.stderr
    games = [s["games"] for s in json.loads(read.stdout)["standings"]]
    assert len(games) == bots
    # each bot: its opponents x 2 legs x 2 in the tournament, and its ladder matches
    assert min(games) >= (bots - 1) * 2 * 2
    assert sum(games) == 2 * (total + played)  # every match rated, ladder ones included
    run_id = re.search(r"run (\d+)", out)
    assert run_id is not None
    shown = subprocess.run(
        [sys.executable, "-m", "arena.cli", "tournament", "show", run_id[1]],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shown.returncode == 0 and "finished" in shown.stdout

    store = Store(database_url(Settings.from_env(env)))
    request.addfinalizer(lambda: stop_embedded_postgres(home))  # should the test fail
    try:
        web = TestClient(create_app(store, organizer_token="x"))
        match = store.matches(limit=1)[0][0]
        assert store.human_opponents().keys() == {"house-random", "house-heuristic", "house-mc"}
        for path in (
            "/pools/paulista/1", "/bots/house-mc", f"/matches/{match.id}", f"/runs/{run_id[1]}",
            "/tournaments",
        ):  # fmt: skip
            for page in (path, "/api" + path):
                assert web.get(page).status_code == 200, page
    finally:
        store.close()
    # the read commands left the embedded PostgreSQL up for the next one; this stops it
    stopped = subprocess.run(
        [sys.executable, "-m", "arena.cli", "stop-embedded"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert stopped.returncode == 0, stopped.stderr
    assert "PostgreSQL" in stopped.stdout and ": stopped" in stopped.stdout
    assert "Redis: not running" in stopped.stdout
    assert not embedded_postgres_running(home)

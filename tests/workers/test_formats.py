"""Formats end to end on real parts: `arena serve`, a Celery worker on the machine's Redis,
bots as processes, the CLI as an organizer types it, the run's page. A knockout of six
with byes and a tiebreak that can only end on seed reaches one champion, its bracket right
in the JSON and on the page; groups, then their top four in a knockout seeded from them by
one command, exported. (The same decisions without processes: tests/usecases/test_formats.py,
tests/domain/test_formats.py.)"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from arena.web import create_app
from tests.arenaproc import ADMIN, broker_url
from tests.workers.test_events import cli

FAKEBOT = Path(__file__).resolve().parents[1] / "fakebot.py"


def plain(arena: Any, name: str) -> None:
    """A bot that always plays its first legal action: given the same cards in the same
    seat it plays the same match, so two of them on duplicate deals split every pair."""
    arena.tokens[name] = arena.organizer.bot_token(name)
    env = {"ARENA_ADDRESS": arena.address, "ARENA_TOKEN": arena.tokens[name]}
    arena.processes.start(
        name, str(FAKEBOT), "plain", "--concurrency", "4", "--name", name, env=env,
        command=[sys.executable],
    )  # fmt: skip


def shown(arena: Any, run_id: int) -> dict[str, Any]:
    return dict(json.loads(cli(arena, "run", "show", str(run_id), "--json").stdout))


def test_a_knockout_with_byes_and_a_tiebreak_reaches_one_champion(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    # seeded by name (nobody is rated yet): a1 and b2 have byes; c3 meets f6, d4 meets e5
    arena.bots(a1="house:heuristic", b2="house:heuristic", d4="house:random", e5="house:random")
    plain(arena, "c3")
    plain(arena, "f6")
    arena.organizer.wait_connected(["c3", "f6"])
    cli(arena, "tournament", "create", "cup", "--bots", "a1,b2,c3,d4,e5,f6",
        "--format", "knockout", "--matches", "2", "--duplicate", "--trusted")  # fmt: skip
    started = cli(arena, "tournament", "start", "cup").stdout
    assert "6 bots seeded a1, b2, c3, d4, e5, f6" in started
    run_id = int(started.split()[2])
    assert arena.wait_run(run_id).status == "finished"

    run = shown(arena, run_id)
    assert run["status"] == "finished" and run["seeds"] == ["a1", "b2", "c3", "d4", "e5", "f6"]
    rounds = run["rounds"]
    assert [r["name"] for r in rounds] == ["quarter-final", "semi-final", "final"]
    quarter = {tuple(p["bots"]): p for p in rounds[0]["pairings"]}
    assert quarter[("a1",)]["how"] == quarter[("b2",)]["how"] == "bye"
    # the two plain bots split every pair of twins: three tiebreak pairs, hand points level,
    # and the better seed goes through
    tie = quarter[("c3", "f6")]
    assert (tie["wins"], tie["tiebreak_matches"]) == ([4, 4], 6)
    assert (tie["winner"], tie["how"]) == ("c3", "seed")
    semis = [p["bots"] for p in rounds[1]["pairings"]]
    assert semis == [["a1", quarter[("d4", "e5")]["winner"]], ["b2", "c3"]]
    final = rounds[2]["pairings"][0]
    champion = run["standings"][0]
    assert champion["stage"] == "champion" and champion["bot"] == final["winner"]
    assert [line["stage"] for line in run["standings"]].count("semi-final") == 2
    tiebreaks = sum(p["tiebreak_matches"] for r in rounds for p in r["pairings"])
    assert run["total"] == 2 * 5 + tiebreaks >= 2 * 5 + 6  # five ties and their tiebreaks
    assert run["tiebreaks"] == ["hand-points"]

    page = TestClient(create_app(arena.store, organizer_token=ADMIN)).get(f"/runs/{run_id}")
    assert page.status_code == 200
    html = page.text
    assert html.count('data-testid="pairing"') == 4 + 2 + 1
    assert "as the better seed, level after 6 tiebreak matches and on hand points" in html
    assert f">{champion['bot']}</a>" in html and "Bracket" in html
    assert cli(arena, "audit", "--run", str(run_id)).returncode == 0


def test_groups_then_their_top_four_in_a_knockout_exported(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    bots = {f"g{i}": "house:heuristic" if i % 2 else "house:random" for i in range(1, 9)}
    arena.bots(**bots)
    cli(arena, "tournament", "create", "league", "--bots", ",".join(bots),
        "--format", "groups", "--groups", "2", "--matches", "2")  # fmt: skip
    cli(arena, "tournament", "create", "final", "--seed-from", "league", "--top", "4",
        "--format", "knockout", "--matches", "2")  # fmt: skip
    league = int(cli(arena, "tournament", "start", "league").stdout.split()[2])
    assert arena.wait_run(league).status == "finished"
    table = shown(arena, league)
    assert [g["bots"] for g in table["groups"]] == [["g1", "g4", "g5", "g8"],
                                                     ["g2", "g3", "g6", "g7"]]  # fmt: skip
    order = [line["bot"] for line in table["standings"]]
    assert [line["group_rank"] for line in table["standings"]] == [1, 1, 2, 2, 3, 3, 4, 4]

    started = cli(arena, "tournament", "start", "final").stdout  # one command: the top 4
    final = int(started.split()[2])
    assert arena.wait_run(final).status == "finished"
    run = shown(arena, final)
    assert run["seeds"] == order[:4] and run["definition"]["seed_from"] == "league"
    semis = [p["bots"] for p in run["rounds"][0]["pairings"]]
    assert semis == [[order[0], order[3]], [order[1], order[2]]]  # A1 v B2, B1 v A2
    group = {line["bot"]: line["group"] for line in table["standings"]}
    assert all(group[a] != group[b] for a, b in semis)  # the groups cross

    exported = cli(arena, "export", "run", str(final), "--format", "csv").stdout
    lines = list(csv.DictReader(io.StringIO(exported)))
    assert [row["bot"] for row in lines] == [line["bot"] for line in run["standings"]]
    assert lines[0]["stage"] == "champion"
    records = cli(arena, "export", "run", str(final), "--what", "records").stdout.splitlines()
    assert len(records) == run["total"]
    assert all(set(json.loads(r)["record"]["seats"]) <= set(order[:4]) for r in records)

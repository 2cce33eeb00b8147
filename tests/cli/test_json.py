"""One JSON convention for every ``--json`` (README, "JSON"): each command that has the
option is found in the grammar and run against the Arena API on loopback (real gRPC, a
real PostgreSQL), and what it prints is checked: snake_case keys, integers as numbers,
times in RFC 3339 with an offset. Then ``arena matches`` over a run longer than one page:
``--all`` pages through every match of it, and its JSON carries the read model's fields."""

from __future__ import annotations

import argparse
import json
import re
from datetime import datetime
from typing import Any

import pytest

from arena.bots.analysis import analysed
from arena.cli.grammar import parser
from arena.domain.tournament import Definition
from arena.engine import Rules
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import matches as read_matches
from arena.usecases.analyses import ask_analysis, run_analysis
from arena.usecases.ladder import set_ladder
from arena.usecases.matches import record as record_match
from arena.usecases.versions import judge
from tests.hosted.test_archive import BOT, tar
from tests.referee.test_accounts import cli  # noqa: F401 (the fixture)
from tests.referee.test_api import ORGANIZER, arena  # noqa: F401 (the fixture)
from tests.referee.test_hosting_api import submit
from tests.webdata import fill, play_run, played, start_run

CAMEL = re.compile(r"[a-z0-9][A-Z]")
DIGITS = re.compile(r"-?\d+")
TIMELIKE = re.compile(r"\d{4}-\d\d-\d\dT")
TIME_KEYS = ("at", "fired_for", "next_firing", "first_started", "next")


def is_time_key(key: str) -> bool:
    return key in TIME_KEYS or key.endswith("_at")


def problems(value: Any, where: str = "") -> list[str]:
    """What breaks the convention in a JSON value, each with where it is."""
    out = []
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{where}.{key}"
            if CAMEL.search(key):
                out.append(f"{here}: a camelCase key")
            if not (is_time_key(key) and isinstance(item, str)):  # (special_at is a score)
                out += problems(item, here)
            elif not _is_stamp(item):
                out.append(f"{here}: {item!r} is not an RFC 3339 time with an offset")
    elif isinstance(value, list):
        for k, item in enumerate(value):
            out += problems(item, f"{where}[{k}]")
    elif isinstance(value, str):
        if DIGITS.fullmatch(value):
            out.append(f"{where}: {value!r}, an integer written as a string")
        if TIMELIKE.match(value) and not _is_stamp(value):
            out.append(f"{where}: {value!r}, a time without its offset")
    return out


def _is_stamp(text: str) -> bool:
    try:
        return datetime.fromisoformat(text).utcoffset() is not None
    except ValueError:
        return False


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ({"matchId": "m"}, "a camelCase key"),
        ({"size": "549"}, "an integer written as a string"),
        ({"runs": [{"created_at": "2026-12-02T07:00:00"}]}, "not an RFC 3339 time"),
        ({"at": ""}, "not an RFC 3339 time"),
        ({"note": "2026-12-02T07:00:00"}, "a time without its offset"),
        ({"created_at": "2026-12-02T07:00:00+00:00", "run": 3, "id": "r3-000001"}, None),
    ],
)
def test_the_check_finds_what_breaks_the_convention(value: Any, found: str | None) -> None:
    said = problems(value)
    assert (said == []) if found is None else (len(said) == 1 and found in said[0]), said


def json_commands() -> set[tuple[str, ...]]:
    """Every command of the grammar that takes --json, as the words that name it."""
    found: set[tuple[str, ...]] = set()

    def walk(p: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        if any("--json" in a.option_strings for a in p._actions):
            found.add(words)
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, (*words, name))

    walk(parser(), ())
    return found


@pytest.fixture
def arena_to_read(arena: Any) -> dict[str, Any]:  # noqa: F811
    """Bots, matches, a finished run, hosted versions (one a checked candidate), a ladder,
    an organizer's actions."""
    ref, stub = arena
    store = ref.store
    looked = fill(store)
    run_id, ids = start_run(store, Definition(name="cup", bots=("alpha", "beta", "gamma")))
    play_run(store, run_id, ids)
    submit(stub, "alpha", tar(BOT), ORGANIZER)
    candidate = submit(stub, "beta", tar(BOT), ORGANIZER, candidate=True).version
    judge(store, store.version(candidate.name).id)  # checked: beta@1 may be activated
    set_ladder(store, "paulista/1", True)
    stub.RegisterBot(api.RegisterBotRequest(name="delta"), metadata=ORGANIZER)
    ask_analysis(store, looked.ids["covered"], 8, None)  # the API has no workers: stored
    run_analysis(store, looked.ids["covered"], 8, analysed)
    return {"run": str(run_id), "match": looked.ids["covered"]}


def test_every_json_command_prints_the_one_convention(
    cli: Any,  # noqa: F811
    arena_to_read: dict[str, Any],
    arena: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run, match = arena_to_read["run"], arena_to_read["match"]
    monkeypatch.setenv("ARENA_DATABASE_URL", arena[0].store.pool.conninfo)  # arena db status
    argvs = {
        ("rules", "show"): ["rules", "show", "paulista"],
        ("match",): ["match", "--bot", "house:random", "--bot", "house:random", "--games", "2"],
        ("matches",): ["matches", "--all"],
        ("ratings",): ["ratings"],
        ("bot", "versions"): ["bot", "versions", "alpha"],
        ("bot", "activate"): ["bot", "activate", "beta@1"],
        ("tournament", "show"): ["tournament", "show", run],
        ("run", "show"): ["run", "show", run],
        ("ladder",): ["ladder", "show"],
        ("bot", "ladder"): ["bot", "ladder", "alpha", "on", "--pool", "paulista/1"],
        ("bot", "humans"): ["bot", "humans", "alpha", "on"],
        ("audit",): ["audit", "--run", run],
        ("nodes",): ["nodes"],
        ("organizer", "list"): ["organizer", "list"],
        ("log",): ["log"],
        ("db", "status"): ["db", "status"],
        ("analyse",): ["analyse", match, "--samples", "8"],
    }
    assert set(argvs) == json_commands(), "a command with --json is not checked here"
    shown = {}
    for words, argv in argvs.items():
        code, out, err = cli(*argv, "--json")
        assert code == 0, (words, err)
        shown[words] = json.loads(out)
        assert problems(shown[words]) == [], (words, problems(shown[words]))
    assert shown[("tournament", "show")]["id"] == int(run)  # a uint64, as a number
    assert shown[("audit",)]["run"] == int(run)
    (version,) = shown[("bot", "versions")]["versions"]
    assert isinstance(version["size"], int) and version["checked_at"] is None
    activated = shown[("bot", "activate")]
    assert (activated["version"]["status"], activated["retired"]) == ("active", "")
    assert shown[("bot", "humans")]["humans"] is True
    assert shown[("organizer", "list")]["organizers"][0]["created_at"] is None  # the first
    logged = shown[("log",)]["actions"]
    assert logged and all(isinstance(a["detail"], dict) and a["id"] > 0 for a in logged)
    code, out, _ = cli("match", "show", match, "--json")  # the record, in its own format
    assert code == 0 and problems(json.loads(out)) == []


def test_matches_all_pages_through_every_match_of_a_run_longer_than_a_page(
    cli: Any,  # noqa: F811
    arena: Any,  # noqa: F811
) -> None:
    ref, _ = arena
    store = ref.store
    fill(store)  # matches of no run around it
    bots = ("alpha", "beta", "gamma")
    run_id, _ = start_run(store, Definition(name="long", bots=bots, matches=70))
    ids = sorted(m.id for m, _ in store.run_matches(run_id, 1000))
    assert len(ids) == 210 > 200
    for k, match_id in enumerate(ids[:5]):  # five played, in order; the rest not yet
        rules, seats = Rules(), store.match(match_id)[1]  # type: ignore[index]
        store.set_status(match_id, "running")
        record_match(store, match_id, played(rules, seats, k))

    code, out, err = cli("matches", "--run", str(run_id), "--all", "--json")
    assert code == 0, err
    listed = json.loads(out)
    assert sorted(m["id"] for m in listed["matches"]) == sorted(ids)
    assert listed["next_page_token"] == ""
    assert {m["run_id"] for m in listed["matches"]} == {run_id}
    assert [m["id"] for m in listed["matches"]][:5] == ids[:5][::-1]  # the latest played first
    # the same fields, and values, as the read model's (the pages' JSON), but that a list
    # with no value is [] rather than null
    page = read_matches.page(store, size=300, organizer=False, run=run_id)
    read = [{k: [] if v is None and k in ("score", "forfeit") else v for k, v in m.items()}
            for m in page["matches"]]  # fmt: skip
    assert listed["matches"] == read

    code, out, _ = cli("matches", "--run", str(run_id), "--all")
    assert code == 0 and len(out.splitlines()) == 210
    assert out.splitlines()[0].startswith(f"{ids[4]}  {listed['matches'][0]['listed_at'][:19]}")
    code, out, _ = cli("matches", "--run", str(run_id))
    assert len(out.splitlines()) == 20
    code, out, _ = cli("matches", "--run", str(run_id), "--bot", "alpha", "--all", "--json")
    assert len(json.loads(out)["matches"]) == 140  # alpha meets two of the three pairings
    code, out, _ = cli("matches", "--run", str(run_id), "--json", "--limit", "3")
    three = json.loads(out)
    assert len(three["matches"]) == 3 and three["next_page_token"]


def test_a_limit_and_all_together_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        parser().parse_args(["matches", "--all", "--limit", "5"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "not allowed with argument" in err

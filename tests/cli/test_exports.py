"""``arena export run|pool|bot`` as a user runs it (a real process), against a real Arena
API on loopback over a database where a run was recorded: the files parsed back and
compared with the read model, standard output or --output FILE, the organizer's whole
records with --organizer only; a run of 20,000 matches written to a file; and what goes
wrong said in one line (exit 1 for what the arena refuses, exit 2 for a bad option)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from arena.read import ratings
from arena.read.tournaments import run_state
from arena.store.store import Store
from tests.cli.common import arena, organizer_env
from tests.read.test_export_memory import MATCHES, a_run
from tests.read.test_exports import OWNERS
from tests.read.test_exports import run as run  # the fixture
from tests.referee.test_api import ArenaReferee
from tests.web.test_runs import WEEKLY


@pytest.fixture
def env(database: str, store: Store, tmp_path: Path) -> Iterator[dict[str, str]]:
    """An organizer's environment (ARENA_ADMIN_TOKEN set) aimed at a real Arena API."""
    ref = ArenaReferee(database)
    try:
        yield organizer_env(database, tmp_path / "home") | {
            "ARENA_REFEREE_ADDRESS": ref.server.address
        }
    finally:
        ref.close()
        ref.store.close()


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_a_runs_standings_and_records_as_the_read_model_has_them(
    env: dict[str, str], store: Store, run: Any, tmp_path: Path
) -> None:
    run_id, ids = run
    for organizer in (False, True):
        flag = ["--organizer"] if organizer else []
        done = arena("export", "run", str(run_id), *flag, env=env)
        assert done.returncode == 0, done.stderr
        table = run_state(store, run_id, datetime.now(UTC), organizer=organizer)["standings"]
        got = rows(done.stdout)
        assert [r["bot"] for r in got] == [r["bot"] for r in table]
        assert [r["played"] for r in got] == [str(r["played"]) for r in table]
        assert [r["owner"] for r in got] == [OWNERS[r["bot"]] for r in table]
        assert sum(r["played"] for r in table) == (2 if organizer else 0)  # a sealed twin

        out = tmp_path / f"records-{organizer}.ndjson"
        done = arena("export", "run", str(run_id), "--what", "records", "--output", str(out),
                     *flag, env=env)  # fmt: skip
        assert done.returncode == 0 and done.stdout == "", done.stderr
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert [line["match"]["id"] for line in lines] == ids
        first = lines[0]["record"]
        assert (first is not None) is organizer and not (tmp_path / f"{out.name}.part").exists()
        if organizer:
            assert first == store.match(ids[0])[0].record and "seed" in first  # type: ignore[index]


def test_a_run_is_named_by_its_tournament_too(env: dict[str, str], run: Any) -> None:
    run_id, _ = run
    by_id = arena("export", "run", str(run_id), "--what", "matches", env=env)
    by_name = arena("export", "run", WEEKLY.name, "--what", "matches", env=env)  # its latest
    assert by_id.returncode == by_name.returncode == 0, by_name.stderr
    assert by_name.stdout == by_id.stdout and by_id.stdout.count("\n") > 1
    shown = arena("run", "show", WEEKLY.name, "--json", env=env)
    assert shown.returncode == 0 and json.loads(shown.stdout)["id"] == run_id, shown.stderr


def test_a_pool_and_a_bot_as_csv_and_ndjson(env: dict[str, str], store: Store, run: Any) -> None:
    done = arena("export", "pool", "--format", "ndjson", env=env)
    assert done.returncode == 0, done.stderr
    board = ratings.standings(store, "paulista/1", trends=False)
    got = [json.loads(line) for line in done.stdout.splitlines()]
    assert got == [
        {**{k: v for k, v in s.items() if k != "trend"}, "owner": OWNERS[s["bot"]]} for s in board
    ]
    done = arena("export", "bot", "ana", "--pool", "paulista/1", env=env)
    assert done.returncode == 0, done.stderr
    lines = rows(done.stdout)  # ana's 4 matches: one played, sealed (its twin is not)
    assert [r["status"] for r in lines] == ["finished"] + ["scheduled"] * 3
    first = lines[0]
    assert (first["result"], first["sealed"], first["score"], first["opponents"]) == (
        "", "true", "", "bia"
    )  # fmt: skip


def test_what_goes_wrong_is_one_line(env: dict[str, str], run: Any, tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    missing = arena("export", "run", "999", "--output", str(out), env=env)
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.startswith("arena: no tournament run 999 (not_found, at ")
    assert missing.stderr.count("\n") == 1 and not out.exists()
    assert not Path(f"{out}.part").exists()
    for args, says in (
        (("run", "nothing"), 'arena: no run "nothing": give a run\'s id, or the name of a tourn'),
        (("bot", "nobody"), "arena: no bot named 'nobody' (not_found"),
        (("pool", "poker/1"), "arena: no pool 'poker/1': a pool is PRESET/TEAM_SIZE"),
    ):
        done = arena("export", *args, env=env)
        assert done.returncode == 1 and done.stderr.startswith(says), done.stderr
        assert done.stderr.count("\n") == 1
    for args, says in (
        (("run", "1", "--what", "records", "--format", "csv"),
         "arena export run: error: records have no CSV form (they are nested): export them "
         "as ndjson (see arena export run --help)\n"),
        (("bot", "ana", "--what", "records", "--format", "csv"),
         "arena export bot: error: records have no CSV form"),
        (("run", "1", "--format", "xlsx"), "arena export run: error: argument --format: "),
        (("run", "1", "--what", "crosstable"), "arena export run: error: argument --what: "),
        (("run", ""), "arena export run: error: argument RUN: give a run's id or a tournament's"),
    ):  # fmt: skip
        done = arena("export", *args, env=env)
        assert done.returncode == 2 and done.stderr.startswith(says), done.stderr
        assert done.stderr.count("\n") == 1 and done.stdout == ""


def test_twenty_thousand_matches_to_a_file(
    env: dict[str, str], store: Store, database: str, tmp_path: Path
) -> None:
    run_id = a_run(store, database)
    out = tmp_path / "big.csv"
    done = arena("export", "run", str(run_id), "--what", "matches", "--output", str(out), env=env)
    assert done.returncode == 0, done.stderr
    got = rows(out.read_text())
    assert len(got) == MATCHES and got[0]["id"] == f"r{run_id}-00001"
    assert got[-1]["id"] == f"r{run_id}-{MATCHES:05d}"
    assert {r["seats"] for r in got} == {"ana bia", "bia ana"} and got[0]["twin"] == got[1]["id"]

    # to a pipe whose reader leaves after the header: the file is written as it arrives,
    # and the command ends quietly, as `arena matches | head` does (tests/cli/test_pipes.py)
    command = [sys.executable, "-m", "arena.cli", "export", "run", str(run_id), "--what",
               "matches"]  # fmt: skip
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as p:
        assert p.stdout is not None and p.stderr is not None
        assert p.stdout.readline().startswith(b"id,run_id,test_id,pool,")
        p.stdout.close()  # the reader goes away, megabytes before the end of the file
        assert p.wait(60) == 141 and p.stderr.read() == b""

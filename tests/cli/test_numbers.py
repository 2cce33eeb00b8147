"""Numbers and times at the command line: out of range is one line naming the option and
the range, clocks may be zero where zero means something, times as people type them."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

import psycopg
import pytest

from arena.usecases.matches import request as request_match
from tests.cli.common import arena, organizer_env

BIG = str(2**64)
CREATE = ("tournament", "create", "cup", "--bots", "a,b")
BAD_NUMBERS = [
    (("match", "--games", "0"), "--games", "1 to 100000"),
    (("match", "--games", "-2"), "--games", "1 to 100000"),
    (("match", "--seed", BIG), "--seed", "0 to 9223372036854775807"),
    (("match", "--decision-ms", "0"), "--decision-ms", "1 to 60000"),
    (("match", "--decision-ms", "60001"), "--decision-ms", "1 to 60000"),
    (("match", "--time-bank-ms", "-1"), "--time-bank-ms", "0 to 600000"),
    (("match", "--reconnect-grace-ms", "600001"), "--reconnect-grace-ms", "0 to 600000"),
    (("web", "--port", "0"), "--port", "1 to 65535"),
    (("web", "--port", "65536"), "--port", "1 to 65535"),
    (("challenge", "a", "b", "--games", "1001"), "--games", "1 to 1000"),
    (("matches", "--limit", "-5"), "--limit", "1 to 200"),
    (("matches", "--limit", "0"), "--limit", "1 to 200"),
    (("matches", "--limit", "201"), "--limit", "1 to 200"),
    (("bot", "run", "house:mc", "--concurrency", "0"), "--concurrency", "1 to 64"),
    (("bot", "run", "house:mc", "--seed", "-1"), "--seed", "0 to 9223372036854775807"),
    (("bot", "run", "house:mc", "--budget-ms", "0"), "--budget-ms", "1 to 60000"),
    (("worker", "--concurrency", "65"), "--concurrency", "1 to 64"),
    (("demo", "--matches", "0"), "--matches", "1 to 1000"),
    (("demo", "--web-port", "70000"), "--web-port", "1 to 65535"),
    (("play", "--seed", BIG), "--seed", "0 to 9223372036854775807"),
    ((*CREATE, "--matches", "0"), "--matches", "1 to 1000"),
    ((*CREATE, "--decision-ms", "-3"), "--decision-ms", "1 to 60000"),
    ((*CREATE, "--time-bank-ms", "600001"), "--time-bank-ms", "0 to 600000"),
    ((*CREATE, "--seed", BIG), "--seed", "0 to 9223372036854775807"),
    (("tournament", "watch", "0"), "RUN", "1 to 9223372036854775807"),
    (("tournament", "show", "-1"), "RUN", "1 to 9223372036854775807"),
    (("tournament", "show", BIG), "RUN", "1 to 9223372036854775807"),
    (("match", "--games", "two"), "--games", "1 to 100000"),
    (("match", "--games", "1e3"), "--games", "1 to 100000"),
    (("match", "--games", "\u0663"), "--games", "1 to 100000"),  # an Arabic-Indic three
    (("matches", "--limit", "9" * 5000), "--limit", "1 to 200"),
]


@pytest.mark.parametrize(
    ("argv", "option", "allowed"), BAD_NUMBERS, ids=[" ".join(a)[:40] for a, _, _ in BAD_NUMBERS]
)
def test_a_number_out_of_range_is_one_line_naming_the_option_and_the_range(
    argv: tuple[str, ...], option: str, allowed: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_HOME"] = str(tmp_path / "home")  # nothing may start, should a value get through
    done = arena(*argv, env=env)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert f"argument {option}: " in done.stderr and allowed in done.stderr
    assert len(done.stderr) < 200  # a long value is quoted cut short


def test_clocks_may_be_zero_where_zero_means_something() -> None:
    from arena.cli.grammar import parser as _parser

    args = _parser().parse_args(
        ["match", "--time-bank-ms", "0", "--reconnect-grace-ms", "0", "--seed", "0"]
    )
    assert (args.time_bank_ms, args.reconnect_grace_ms, args.seed) == (0, 0, 0)
    top = _parser().parse_args(["matches", "--limit", "200"])
    assert top.limit == 200


@pytest.mark.usefixtures("migrated")  # the CLI migrates only the embedded database
def test_a_tournament_created_with_zero_clocks_keeps_the_zeros(
    database: str, tmp_path: Path
) -> None:
    # the Arena API read a proto3 zero as "unset" and stored the default (10000, 60000)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env |= {"ARENA_HOME": str(tmp_path / "home"), "ARENA_DATABASE_URL": database}
    for bot in ("ana", "bia"):
        assert arena("bot", "register", bot, env=env).returncode == 0
    made = arena(
        "tournament", "create", "quick", "--bots", "ana,bia", "--time-bank-ms", "0",
        "--reconnect-grace-ms", "0", env=env,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    with psycopg.connect(database) as conn:
        row = conn.execute("SELECT definition FROM tournaments WHERE name = 'quick'").fetchone()
    assert row is not None
    assert (row[0]["time_bank_ms"], row[0]["reconnect_grace_ms"]) == (0, 0)
    refused = arena("tournament", "create", "none", "--bots", "ana,bia", "--matches", "0", env=env)
    assert refused.returncode == 2 and "--matches" in refused.stderr


@pytest.mark.usefixtures("migrated")  # the CLI migrates only the embedded database
def test_ratings_of_a_pool_that_cannot_exist_are_refused(database: str, tmp_path: Path) -> None:
    env = organizer_env(database, tmp_path / "home")  # the Arena API served in the command
    refused = arena("ratings", "--pool", "nonsense", env=env)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert "no pool 'nonsense'" in refused.stderr and "invalid_argument" in refused.stderr
    empty = arena("ratings", "--pool", "tradicional/2", env=env)
    assert empty.returncode == 0, empty.stderr
    assert empty.stdout == "no rated games in tradicional/2 yet\n"


def test_an_arena_error_is_one_line_and_exit_1(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env |= {"ARENA_HOME": str(tmp_path / "home"), "ARENA_BROKER_VISIBILITY_S": "soon"}
    done = arena("stop-embedded", env=env)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "arena: ARENA_BROKER_VISIBILITY_S must be a whole number of seconds, not 'soon'\n"
    )
    env["ARENA_BROKER_VISIBILITY_S"], env["ARENA_HOSTED_WARM"] = "60", "many"
    done = arena("stop-embedded", env=env)
    assert (done.returncode, done.stderr) == (
        1, "arena: ARENA_HOSTED_WARM must be a whole number of processes, not 'many'\n"
    )  # fmt: skip


# ---- times at the command line ------------------------------------------------------------------


def test_arena_matches_takes_the_times_people_type(database: str, tmp_path: Path) -> None:
    from arena.engine import Rules
    from arena.store.migrate import migrate
    from arena.store.store import Store

    migrate(database)
    with contextlib.closing(Store(database)) as store:
        seats = [store.register_bot(name)[0].id for name in ("ana", "bia")]
        request_match(store, "m-today", Rules(), seats)
    env = organizer_env(database, tmp_path / "home")
    since = arena("matches", "--since", "yesterday", env=env)
    assert since.returncode == 0, since.stderr
    assert re.fullmatch(r"m-today  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d  scheduled .*\n", since.stdout)
    until = arena("matches", "--until", "2000-01-01", env=env)
    assert (until.returncode, until.stdout) == (0, "no matches\n"), until.stderr


@pytest.mark.parametrize(
    ("option", "value"), [("--since", "foo"), ("--until", "2026-02-30"), ("--since", "")]
)
def test_a_time_that_is_not_one_is_one_line_naming_the_option(
    option: str, value: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_HOME"] = str(tmp_path / "home")  # nothing may start, should a value get through
    done = arena("matches", option, value, env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"arena matches: error: argument {option}: {value!r} is not a time: give an RFC 3339 "
        "time, a date, or an age such as 2h or 3d (see arena matches --help)\n"
    )

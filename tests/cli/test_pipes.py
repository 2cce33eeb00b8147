"""Output into a pipe whose reader goes away (`arena matches | head -2`): the command
exits quietly, whatever its buffering. And tables: into a pipe or a file never cut, on a
terminal as wide as it is."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import pty
import random
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.cli.common import organizer_env

BUFFERINGS = {"buffered": "", "unbuffered": "1"}  # the values of PYTHONUNBUFFERED


def no_reader(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` with standard output a pipe whose reader has gone before it starts:
    whatever it prints, whenever, meets a broken pipe."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "arena.cli", *args], stdout=write, stderr=subprocess.PIPE,
            text=True, timeout=60, env=env,
        )  # fmt: skip
    finally:
        os.close(write)


@pytest.mark.parametrize("buffering", BUFFERINGS.values(), ids=BUFFERINGS.keys())
@pytest.mark.parametrize(
    "argv",
    [("rules", "list"), ("rules", "show", "paulista"), ("rules", "show", "solver", "--json"),
     ("play",)],
    ids=" ".join,
)  # fmt: skip
def test_a_command_whose_reader_is_gone_exits_quietly_with_141(
    argv: tuple[str, ...], buffering: str
) -> None:
    # unbuffered, the first write fails; buffered, the flush at exit (rich's table or print)
    done = no_reader(*argv, env=os.environ | {"PYTHONUNBUFFERED": buffering})
    assert (done.returncode, done.stderr) == (141, "")


@pytest.mark.usefixtures("migrated")  # the CLI migrates only the embedded database
def test_arena_matches_whose_reader_is_gone_exits_quietly(database: str, tmp_path: Path) -> None:
    done = no_reader("matches", env=organizer_env(database, tmp_path / "home"))
    assert (done.returncode, done.stderr) == (141, "")


def test_a_reader_that_leaves_after_two_lines_ends_the_output_quietly(tmp_path: Path) -> None:
    from arena.cli.engine import replay_file
    from arena.engine import Match, Rules, to_record

    match = Match(Rules.parse("paulista:team_size=4"), seed=3)
    choices = random.Random(3)
    while not match.is_over:
        match.apply(choices.choice(match.legal_actions()))
    path = tmp_path / "record.json"
    path.write_text(json.dumps(to_record(match)))
    expected = io.StringIO()
    assert replay_file(str(path), io.StringIO(), expected, io.StringIO()) == 0
    read, write = os.pipe()
    # the pipe made as small as it gets, and the output more than twice that: the command
    # is still writing when the reader leaves, however fast either is
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)
    assert len(expected.getvalue()) > 2 * fcntl.fcntl(write, fcntl.F_GETPIPE_SZ)
    # block-buffered, as standard output into a pipe is unless PYTHONUNBUFFERED says not
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    argv = [sys.executable, "-m", "arena.cli", "replay", str(path)]
    with subprocess.Popen(
        argv, stdout=write, stderr=subprocess.PIPE, text=True, env=env
    ) as process:
        os.close(write)
        head = b""
        while head.count(b"\n") < 2:
            chunk = os.read(read, 64)
            assert chunk, "the output ended before two lines"
            head += chunk
        os.close(read)
        _, err = process.communicate(timeout=60)
    assert expected.getvalue().startswith(head.decode())
    assert (process.returncode, err) == (141, "")


# ---- tables: whole into a pipe or a file, fitting a terminal ----------------------------

LONG = "a-bot-whose-name-is-as-long-as-the-arena-lets-a-name-be-" + "x" * 8  # 64 characters
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def long_named(database: str, tmp_path: Path) -> dict[str, str]:
    """An arena (the API served in the command) whose leaderboard has a bot of the longest
    name, wider with its row than rich's 80 columns; its environment."""
    from arena.engine import Rules
    from arena.store.migrate import migrate
    from arena.store.store import Store
    from arena.usecases.matches import record as record_match
    from arena.usecases.matches import request as request_match
    from tests.store.test_store import played

    assert len(LONG) == 64
    migrate(database)
    with contextlib.closing(Store(database)) as store:
        seats = [store.register_bot(name)[0].id for name in (LONG, "short")]
        for k in range(2):
            request_match(store, f"m{k}", Rules(), seats[:: 1 if k else -1], seed=k)
            record_match(store, f"m{k}", played(Rules(), k))
    env = organizer_env(database, tmp_path / "home")
    return {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}


def test_a_table_into_a_pipe_or_a_file_is_never_cut(
    long_named: dict[str, str], tmp_path: Path
) -> None:
    argv = [sys.executable, "-m", "arena.cli", "ratings"]
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=long_named)
    assert piped.returncode == 0, piped.stderr
    path = tmp_path / "ratings.txt"
    with path.open("w") as file:
        subprocess.run(argv, stdout=file, timeout=60, env=long_named, check=True)
    for out in (piped.stdout, path.read_text()):
        (row,) = [line for line in out.splitlines() if LONG in line]  # whole, on one line
        assert len(row.rstrip()) > 80 and "…" not in out
        assert row.split()[1] == LONG


def test_a_table_on_a_terminal_fits_its_width(long_named: dict[str, str]) -> None:
    columns = 50
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = long_named | {"TERM": "xterm"}  # (a dumb one rich takes for 80 columns)
    with subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "ratings"], stdin=subprocess.DEVNULL,
        stdout=follower, stderr=subprocess.PIPE, env=env,
    ) as process:  # fmt: skip
        os.close(follower)
        out = b""
        with contextlib.suppress(OSError):  # EIO once the command has closed the terminal
            while chunk := os.read(leader, 4096):
                out += chunk
        assert process.wait(timeout=60) == 0, process.stderr and process.stderr.read()
    os.close(leader)
    lines = ANSI.sub("", out.decode()).replace("\r", "").splitlines()
    assert lines and all(len(line) <= columns for line in lines), lines
    header = next(k for k, line in enumerate(lines) if " rank " in line)
    start, end = lines[header].index(" bot ") + 1, lines[header].index(" rating ") + 1
    cells = [line[start:end].strip() for line in lines[header + 1 :]]
    assert "".join(cells[: cells.index("short")]) == LONG  # folded, not cut short
    assert "…" not in out.decode()

"""Output into a pipe whose reader goes away (`arena matches | head -2`): the command
exits quietly, whatever its buffering."""

from __future__ import annotations

import fcntl
import io
import json
import os
import random
import subprocess
import sys
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

"""What the command line's tests share: the ``arena`` command run as a user runs it (a
real process, real files, exit codes), a record to replay, an organizer's environment."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.service import free_address, wait_serving

# Dealer 1, so seat 0 leads. Vira 4D: the 5s are manilhas.
RECORD: dict[str, Any] = {
    "format": "truco-match/1",
    "rules": {"preset": "paulista", "team_size": 1},
    "seats": ["alpha", "beta"],
    "hands": [
        {
            "dealer": 1,
            "vira": "4D",
            "cards": [["5C", "3D", "QS"], ["7H", "AS", "2D"]],
            "actions": [
                {"seat": 0, "type": "raise"},
                {"seat": 1, "type": "accept"},
                {"seat": 0, "type": "play", "card": "5C"},
                {"seat": 1, "type": "play", "card": "7H"},
                {"seat": 0, "type": "play", "card": "3D"},
                {"seat": 1, "type": "play", "card": "2D", "covered": True},
            ],
            "result": {"points": [3, 0]},
        }
    ],
    "result": {"score": [3, 0], "winner": None},
}


# what a process stopping cleanly never prints (grpc's lines when a handler is cancelled)
UNCLEAN = ("Traceback", "CancelledError", "Exception not handled")


def arena(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def organizer_env(database: str, home: Path) -> dict[str, str]:
    """The environment of an organizer with no referee address configured."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return env | {
        "ARENA_HOME": str(home),
        "ARENA_DATABASE_URL": database,
        "ARENA_ADMIN_TOKEN": "organizer-secret",
    }


@contextlib.contextmanager
def serving(env: dict[str, str], *options: str, log: list[str] | None = None) -> Iterator[str]:
    """`arena serve` on a free loopback address with ``options``, once it answers; its
    address. It must stop cleanly on SIGTERM at the end: exit 0, nothing on stderr but
    log lines (which go into a file, that never fills as a pipe would; then onto ``log``)."""
    address = free_address()
    argv = [sys.executable, "-m", "arena.cli", "serve", "--address", address, *options]
    with tempfile.TemporaryFile("w+") as stderr:
        serve = subprocess.Popen(argv, env=env, text=True, stderr=stderr)
        try:
            wait_serving(address)
            yield address
            serve.send_signal(signal.SIGTERM)
            assert serve.wait(timeout=20) == 0
        finally:
            serve.kill()
            serve.wait()
        stderr.seek(0)
        text = stderr.read()
    assert not [word for word in UNCLEAN if word in text], text
    if log is not None:
        log.append(text)


def served_log(env: dict[str, str], *options: str) -> str:
    """What `arena serve` with ``options`` wrote on its standard error from its start until
    it stopped (:func:`serving`)."""
    log: list[str] = []
    with serving(env, *options, log=log):
        pass
    return log[0]

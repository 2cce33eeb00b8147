"""An arena of two referees, two `arena serve` processes on one PostgreSQL database: a
bot given both addresses connects to the first, and when that node is killed (SIGKILL,
as a crash) or hangs (SIGSTOP: its connections stay open, nothing answers; the SDK's
keepalive pings find out) it moves to the other and plays its matches there. The
reading of the addresses and the order of the rotation are tests/sdk/test_sdk_addresses.py's."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from arena.proto.truco.v1 import arena_pb2 as api
from tests.arenaproc import Arena, arenas

CLEAN = {"timeouts": 0, "rejected": 0, "disconnects": 0, "substituted": 0, "errors": 0}


def wait_for_line(log: Path, text: str, timeout_s: float = 60.0) -> str:
    """Until the log file holds a line with ``text``; that line."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = [line for line in log.read_text(errors="replace").splitlines() if text in line]
        if found:
            return found[0]
        assert time.monotonic() < deadline, f"no {text!r} in {log}:\n{log.read_text()}"
        time.sleep(0.05)  # polling the bot's log: it has no other way to tell us


@pytest.mark.usefixtures("migrated")  # its processes do not migrate
@pytest.mark.parametrize("fault", ["killed", "hung"])
def test_a_bot_moves_to_another_node_when_its_own_goes_away(
    fault: str, database: str, tmp_path: Path
) -> None:
    with arenas(database, tmp_path / "a") as make_a, arenas(database, tmp_path / "b") as make_b:
        first: Arena = make_a(None)  # two homes: two nodes, each with its own logs
        second: Arena = make_b(None)
        ana = first.organizer.bot_token("ana")  # the tokens are the database's: every
        bia = first.organizer.bot_token("bia")  # node takes them
        # ana, with both nodes (--address twice); bia with the second first ($ARENA_ADDRESS)
        both = ["--address", first.address, "--address", second.address]
        first.processes.start(
            "ana", "bot", "run", "house:random", *both, env={"ARENA_TOKEN": ana}
        )  # fmt: skip
        env = {"ARENA_ADDRESS": f"{second.address},{first.address}", "ARENA_TOKEN": bia}
        second.processes.start("bia", "bot", "run", "house:heuristic", env=env)
        first.organizer.wait_connected(["ana"])
        second.organizer.wait_connected(["bia"])

        if fault == "killed":
            first.processes.kill("serve")
        else:
            os.killpg(first.processes.running["serve"].pid, signal.SIGSTOP)
        second.organizer.wait_connected(["ana"])
        log = first.processes.logs / "ana.log"
        moved = wait_for_line(log, f"moving to {second.address}")
        assert first.address in moved and " in " not in moved, moved  # at once: no backoff
        wait_for_line(log, f"reconnected to {second.address} as ana")

        request = api.RunMatchRequest(match_id="after-failover", seats=["ana", "bia"], seed=7)
        reply = second.organizer.call("RunMatch", request, timeout_s=120)
        record = json.loads(reply.record_json)
        assert record["faults"] == {"ana": CLEAN, "bia": CLEAN}
        assert record["seats"] == ["ana", "bia"] and record["result"]["winner"] in (0, 1)
        if fault == "hung":
            first.processes.kill("serve")  # SIGKILL ends a stopped process too

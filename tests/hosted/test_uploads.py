"""Uploads as an attacker sends them, against a real `arena serve` on a real PostgreSQL:
archives near the unpacked limit, many at once from several threads. The referee takes
those its caps allow and refuses the others at once; what it holds while it checks and
stores them is a constant, not the archives' unpacked size times how many come (measured
on the code before the caps and the streaming: three such uploads at once took the
referee from 82 to 593 MiB, five to 933)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.hosted.archive import MiB
from arena.proto.truco.v1 import arena_pb2_grpc
from tests import faultlog
from tests.arenaproc import ADMIN, broker_url
from tests.hosted.test_archive import BOT, tar, zeros
from tests.referee.test_hosting_api import Held, exhausted, submit

ORGANIZER = (("authorization", f"Bearer {ADMIN}"),)
BOUND = 64 * MiB  # what the referee may grow by, at its peak, over its resting size


def memory(pid: int) -> tuple[int, int]:
    """The process's resident bytes now (VmRSS) and at its peak so far (VmHWM)."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = dict(line.split(":", 1) for line in lines)
    rss, hwm = (int(fields[k].split()[0]) * 1024 for k in ("VmRSS", "VmHWM"))
    return rss, hwm


@pytest.mark.hostile
def test_parallel_uploads_near_the_limit_are_capped_and_bounded(arena_factory: Any) -> None:
    """Two uploads taken (one of a bot, two in all) and held open; three more, each of
    120 MiB unpacked, sent at once from three threads: refused at once, saying which cap.
    The two held then arrive together and are stored. The referee's peak stays within
    BOUND of its resting size, and the places are free again after."""
    arena = arena_factory(broker_url("redis"))
    pid = arena.processes.running["serve"].pid
    for name in ("b0", "b1", "b2", "b3", "warm"):
        arena.organizer.bot_token(name)
    bombs = {name: zeros(120, bot=f"# {name}\n".encode()) for name in ("b0", "b1", "b2", "b3")}
    with grpc.insecure_channel(arena.address) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        submit(stub, "warm", tar(BOT), ORGANIZER)  # the call's code loaded: the resting size
        resting, _ = memory(pid)
        held = [Held(stub, name, bombs[name]) for name in ("b0", "b1")]
        assert [h.taken for h in held] == [True, True]
        attack = [("b0", bombs["b2"]), ("b2", bombs["b2"]), ("b3", bombs["b3"])]

        def send(bot: str, data: bytes) -> str:
            return exhausted(lambda: submit(stub, bot, data, ORGANIZER))

        with ThreadPoolExecutor(len(attack)) as pool:
            said = list(pool.map(lambda a: send(*a), attack))
        assert said == [
            "another upload of bot 'b0' is in progress; try again when it ends",
            "the arena is taking 2 uploads already; try again in a moment",
            "the arena is taking 2 uploads already; try again in a moment",
        ]
        for h in held:
            h.release.set()  # both arrive, and are checked and stored, at once
        stored = [h.result().version for h in held]
        assert [v.name for v in stored] == ["b0@1", "b1@1"]
        assert min(v.unpacked for v in stored) > 120 * MiB
        _, peak = memory(pid)
        reply = submit(stub, "b2", bombs["b2"], ORGANIZER)  # the places are free again
        assert reply.new and reply.version.name == "b2@1"
    grown = peak - resting
    faultlog.NOTES.append(
        f"uploads: 2 taken at once of 120 MiB unpacked each, 3 refused; the referee "
        f"{resting / MiB:.0f} MiB at rest, {peak / MiB:.0f} MiB at its peak (+{grown / MiB:.0f})"
    )
    assert grown < BOUND, f"the referee grew by {grown / MiB:.0f} MiB"

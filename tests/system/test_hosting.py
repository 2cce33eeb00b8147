"""Hosted bots end to end, every part a real process: `arena serve`, a Celery worker on
a real broker, each hosted bot's process in its sandbox. A submitted version is checked
against a house bot and made active, or rejected saying why; an active version plays
challenges and tournaments in its bot's name with nobody running anything for it; what
its processes printed is kept for its owner."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.hosted.sandbox import unavailable
from arena.proto.truco.v1 import arena_pb2 as api
from tests.arenaproc import broker_url
from tests.hosted.test_archive import tar
from tests.workers.test_ladder_play import ladder, matches, opt_in, settled, wait_until

pytestmark = pytest.mark.skipif(
    unavailable() is not None, reason=f"no sandbox can be made here: {unavailable()}"
)

RANDOM_BOT = b"""\
import random, sys
from arena.sdk import run

class Bot:
    name = "mine"
    def decide(self, view):
        return random.choice(view.legal)

print("hello from the sandbox", file=sys.stderr)
run(Bot())
"""
CRASHING_BOT = b"""\
import sys
print("about to fail", file=sys.stderr)
sys.exit(3)
"""


def cli(arena: Any, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], env=arena.env | env, capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip


def submit(arena: Any, bot: str, files: dict[str, bytes]) -> Any:
    first = api.SubmitBotRequest(
        manifest=api.BotManifest(bot=bot, runtime="python", entry="bot.py")
    )
    parts = iter([first, api.SubmitBotRequest(chunk=tar(files))])
    return arena.organizer.call("SubmitBot", parts).version


def judged(arena: Any, version: str, timeout_s: float = 120.0) -> Any:
    """The version once its check is over."""
    bot = version.partition("@")[0]
    deadline = time.monotonic() + timeout_s
    while True:
        found = arena.organizer.call("ListVersions", api.ListVersionsRequest(bot=bot)).versions
        v = next(v for v in found if v.name == version)
        if v.status != "checking":
            return v
        assert time.monotonic() < deadline, arena.worker_log()
        time.sleep(0.1)  # polling the API: the check's progress lives in the database


def test_a_version_is_checked_then_plays_challenges_in_its_bots_name(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    token = arena.organizer.bot_token("alpha")
    version = submit(arena, "alpha", {"bot.py": RANDOM_BOT})
    assert version.name == "alpha@1" and version.status == "checking"
    v = judged(arena, "alpha@1")
    assert (v.status, v.reason) == ("active", ""), v.reason
    logs = arena.store.bot_logs(f"check-{arena.store.version('alpha@1').id}-1", "alpha")
    assert [x["version"] for x in logs] == ["alpha@1"]
    assert "hello from the sandbox" in logs[0]["log"]
    check = f"check-{arena.store.version('alpha@1').id}-1"
    shown = cli(arena, "bot", "logs", "alpha", check, ARENA_TOKEN=token)
    assert shown.returncode == 0, shown.stderr
    assert f"--- alpha@1 in {check} (exit status " in shown.stdout
    assert "hello from the sandbox" in shown.stdout
    other = arena.organizer.bot_token("gamma")
    refused = cli(arena, "bot", "logs", "alpha", check, ARENA_TOKEN=other)
    assert refused.returncode == 1 and "not 'alpha'" in refused.stderr
    # a challenge: alpha is not connected, its active version plays
    arena.bots(beta="house:random")
    ids = arena.challenge(["alpha", "beta"], 2)
    arena.wait_matches(ids, 2)
    for match_id in ids:
        match, seats = arena.store.match(match_id)  # type: ignore[misc]
        assert sorted(seats) == ["alpha@1", "beta"]
        assert match.faults["alpha@1"] == {
            "timeouts": 0, "rejected": 0, "disconnects": 0, "substituted": 0,
            "errors": 0,
        }  # fmt: skip
    ratings = {r.bot_id for r in arena.store.bot_ratings("alpha@1")}
    assert ratings == {arena.store.version("alpha@1").id}  # the version's own rating
    # a tournament: alpha is seated as its active version
    arena.tournament("cup", ["alpha", "beta"], matches=2)
    run = arena.wait_run(arena.start("cup"))
    assert (run.status, run.finished, sorted(run.participants)) == (
        "finished", 2, ["alpha@1", "beta"],
    )  # fmt: skip


def test_a_version_that_does_not_play_cleanly_is_rejected_and_the_last_stays(
    arena_factory: Any, tmp_path: Path
) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    token = arena.organizer.bot_token("alpha")
    submit(arena, "alpha", {"bot.py": RANDOM_BOT})
    assert judged(arena, "alpha@1").status == "active"
    (tmp_path / "bot.py").write_bytes(CRASHING_BOT)  # `arena bot submit` waits for the check
    done = cli(arena, "bot", "submit", "alpha", str(tmp_path / "bot.py"), ARENA_TOKEN=token)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "alpha@2: rejected: " in done.stdout
    v = judged(arena, "alpha@2")
    assert v.status == "rejected" and "disconnects" in v.reason, v.reason
    assert "arena bot logs alpha" in v.reason
    versions = arena.organizer.call("ListVersions", api.ListVersionsRequest(bot="alpha"))
    assert [(x.name, x.status) for x in versions.versions] == [
        ("alpha@2", "rejected"), ("alpha@1", "active"),
    ]  # fmt: skip
    logs = arena.store.bot_logs(f"check-{arena.store.version('alpha@2').id}-1", "alpha@2")
    assert [x["status"] for x in logs] == [3] and "about to fail" in logs[0]["log"]


RAISING_BOT = b"""\
from arena.sdk import run

class Bot:
    name = "buggy"
    def decide(self, view):
        return view.legal[0] if view.hand_number % 2 else view.cards_of_nobody  # a typo

run(Bot())
"""


@pytest.mark.hostile
def test_a_version_whose_decide_raises_is_rejected_for_its_errors(arena_factory: Any) -> None:
    """The SDK plays its first legal action when decide() raises, so the match goes on
    and nobody else loses anything; but it tells the referee, which counts an error, and
    a version that errs in its check is not made active."""
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.organizer.bot_token("beta")
    submit(arena, "beta", {"bot.py": RAISING_BOT})
    v = judged(arena, "beta@1")
    assert v.status == "rejected" and "errors in check-" in v.reason, v.reason
    check = arena.store.match(f"check-{arena.store.version('beta@1').id}-1")
    assert check is not None
    faults = check[0].faults["beta@1"]
    assert faults["errors"] > 0 and faults["rejected"] == 0, (faults, v.reason)
    (log,) = arena.store.bot_logs(check[0].id, "beta@1")
    assert "AttributeError" in log["log"] and "cards_of_nobody" in log["log"], log["log"][-2000:]


def test_a_candidate_is_checked_tested_then_activated_through_the_cli(
    arena_factory: Any, tmp_path: Path
) -> None:
    """An author's versions end to end: a candidate checked by the workers stays one
    while its bot plays as the version before, on the ladder too; a test against that
    version names NEW and BASE; once activated, the bot plays as it, and the earlier
    files bring the earlier version back."""
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    token = arena.organizer.bot_token("alpha")
    folders = []
    for n in (1, 2):
        folder = tmp_path / f"v{n}"
        folder.mkdir()
        (folder / "bot.py").write_bytes(RANDOM_BOT + f"# version {n}\n".encode())
        folders.append(str(folder))
    first = cli(arena, "bot", "submit", "alpha", folders[0], ARENA_TOKEN=token)
    assert first.returncode == 0 and "alpha@1: active" in first.stdout, first.stdout + first.stderr
    done = cli(arena, "bot", "submit", "--candidate", "alpha", folders[1], ARENA_TOKEN=token)
    assert done.returncode == 0, done.stdout + done.stderr + arena.worker_log()
    assert done.stdout.splitlines()[-1] == (
        "alpha@2: candidate, not active (arena bot activate alpha@2 makes it active)"
    )
    assert arena.store.playing_as(["alpha"])["alpha"][1] == "alpha@1"
    # the ladder plays the bot as its active version, never the candidate
    arena.processes.start("beat", "beat", "--loglevel", "info")
    arena.bots(beta="house:random")
    opt_in(arena, "beta")
    ladder(arena, concurrency=2, decision_ms=100)
    wait_until(arena, lambda: sum(m[1] == "finished" for m in matches(arena)) >= 4, "4 played")
    assert {seat for _, _, seats in settled(arena) for seat in seats} == {"alpha@1", "beta"}
    test = subprocess.run(
        [sys.executable, "-m", "arena.cli", "test", "alpha@2", "alpha", "--sprt",
         "elo0=0,elo1=50", "--games", "4"],
        env=arena.env | {"ARENA_TOKEN": token}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert test.returncode == 2, test.stdout + test.stderr + arena.worker_log()  # undecided
    assert ": NEW alpha@2 against BASE alpha@1, played by the workers" in test.stdout
    assert "whether NEW alpha@2 is stronger than BASE alpha@1" in test.stdout
    done = cli(arena, "bot", "activate", "alpha@2", ARENA_TOKEN=token)
    assert (done.returncode, done.stdout) == (0, "alpha@2: active (alpha@1 retired)\n")
    ids = arena.challenge(["alpha", "beta"], 2)
    arena.wait_matches(ids, 2)
    assert {s for m in ids for s in arena.store.match(m)[1]} == {"alpha@2", "beta"}  # type: ignore[index]
    back = cli(arena, "bot", "submit", "alpha", folders[0], ARENA_TOKEN=token)  # a rollback
    assert back.returncode == 0 and back.stdout.splitlines() == [
        "alpha@1: these files were submitted before: they are alpha@1 (retired)",
        "alpha@1: active",
    ], back.stdout + back.stderr

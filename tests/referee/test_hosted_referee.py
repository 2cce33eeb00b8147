"""The referee's side of hosted bots, on real gRPC and a real PostgreSQL: a version's
process, holding a match token, plays that one match and nothing else; a process that
never connects costs its own seat only. (The sandbox and the worker that starts the
processes have tests of their own: here the process is a plain child process.)"""

from __future__ import annotations

import asyncio
import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest

import referee.api
from arena.cli.hosting import packed
from arena.domain.versions import Manifest
from arena.engine import Rules
from arena.hosted import confine
from arena.hosted.archive import check
from arena.hosted.host import Host
from arena.hosted.sandbox import Limits, Sandbox, unavailable
from arena.hosted.tokens import match_token, token_key
from arena.proto.truco.v1 import arena_pb2 as api
from arena.settings import Settings
from arena.usecases.matches import request as request_match
from arena.usecases.versions import judge
from arena.usecases.versions import submit as submit_version
from tests.hosted.test_archive import BOT, tar
from tests.hosted.test_sandbox import started
from tests.referee.test_api import ORGANIZER, arena  # noqa: F401 (the fixture)
from tests.referee.test_hosting_api import register, submit
from tests.referee.test_sessions import Client

EXAMPLES = Path(__file__).parents[2] / "examples"
CLEAN = {"timeouts": 0, "rejected": 0, "disconnects": 0, "substituted": 0, "errors": 0}


def bot_process(address: str, token: str) -> subprocess.Popen[str]:
    """A house bot as a separate process, as a hosted version's would run."""
    command = [sys.executable, "-m", "arena.cli", "bot", "run", "house:random"]
    return subprocess.Popen(
        [*command, "--address", address, "--token", token],
        env=os.environ | {"ARENA_HOME": "/nonexistent"}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def run_match(stub: Any, match_id: str, seats: list[str]) -> Future[Any]:
    request = api.RunMatchRequest(match_id=match_id, seats=seats, seed=7)
    pool = ThreadPoolExecutor(1)
    future = pool.submit(stub.RunMatch, request, metadata=ORGANIZER, timeout=120)
    pool.shutdown(wait=False)
    return future


@pytest.fixture
def beta(versions: Any) -> Iterator[str]:
    """beta, a registered house bot playing from a process of its own, connected."""
    ref, stub, _ = versions
    process = bot_process(ref.server.address, register(stub, "beta"))
    try:
        # the wait's own bound, not Referee.call's 10 s: a process's start is slow on a
        # busy machine (a 10 s bound here once failed a test while its machine was loaded)
        waited = asyncio.run_coroutine_threadsafe(ref.hub.wait_for(["beta"], 120), ref.loop)
        try:
            waited.result()
        except TimeoutError:
            process.kill()
            _, err = process.communicate()
            raise AssertionError(
                f"beta never connected (exit status {process.returncode}):\n{err[-3000:]}"
            ) from None
        yield "beta"
    finally:
        process.kill()
        process.wait()


@pytest.fixture
def versions(arena: Any) -> tuple[Any, Any, bytes]:  # noqa: F811
    """The arena with alpha@1 (a version) and beta (a dial-in bot, connected)."""
    ref, stub = arena
    register(stub, "alpha")
    assert submit(stub, "alpha", tar(BOT), ORGANIZER).version.name == "alpha@1"
    return ref, stub, token_key(ref.store.deal_key())


def test_a_hosted_process_plays_its_match_then_its_token_opens_nothing(
    versions: Any, beta: str
) -> None:
    ref, stub, key = versions
    token = match_token(key, "m-1", "alpha@1")
    hosted = bot_process(ref.server.address, token)  # may say hello before RunMatch comes
    try:
        record = json.loads(run_match(stub, "m-1", ["alpha@1", beta]).result().record_json)
        assert record["seats"] == ["alpha@1", beta]
        assert record["faults"]["alpha@1"] == CLEAN
        assert hosted.wait(timeout=30) == 0  # its one match played, it is done
        late = Client(ref.server.address)
        late.hello(token)
        refused = late.error()
        assert refused.code() == grpc.StatusCode.UNAUTHENTICATED
        assert "'m-1', is over" in refused.details()
        late.close()
    finally:
        hosted.kill()
        hosted.wait()


def test_a_match_token_is_good_for_its_own_match_only(
    versions: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, _, key = versions
    monkeypatch.setattr(referee.server, "HOSTED_HELLO_S", 0.2)
    other = Client(ref.server.address)
    other.hello(match_token(key, "m-2", "alpha@1"))  # m-2 is not playing here
    assert "'m-2', is not playing here" in other.error().details()
    forged = Client(ref.server.address)
    forged.hello(match_token(b"not the arena's key", "m-2", "alpha@1"))
    assert forged.error().details() == "unknown token"
    for client in (other, forged):
        client.close()
    # a forged one counts as a bad token (the arena's own do not): after 3 of them, a
    # fourth's refusal is held (0.1 s)
    for _ in range(3):
        forged = Client(ref.server.address)
        asked = time.monotonic()
        forged.hello(match_token(b"not the arena's key", "m-2", "alpha@1"))
        assert forged.error().code() == grpc.StatusCode.UNAUTHENTICATED
        forged.close()
    assert time.monotonic() - asked >= 0.1


def test_a_hosted_bot_that_never_connects_loses_its_own_seat_only(
    versions: Any, beta: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, stub, _ = versions
    monkeypatch.setattr(referee.api.playing, "HOSTED_START_S", 0.5)
    record = json.loads(run_match(stub, "m-3", ["alpha@1", beta]).result().record_json)
    alpha = record["faults"]["alpha@1"]  # away from the start, as a dial-in bot can be
    assert alpha["disconnects"] == 1 and alpha["timeouts"] + alpha["substituted"] > 0
    assert record["faults"][beta] == CLEAN


def hosted(ref: Any, bot: str, folder: Path, entry: str, runtime: str) -> str:
    """A version of ``bot`` made of ``folder`` (packed as `arena bot submit` packs it),
    active; its name."""
    data = packed(folder)
    manifest = Manifest(runtime, entry)
    row, _ = submit_version(ref.store, bot, manifest, data, check(data, manifest))
    judge(ref.store, row.id)
    return f"{bot}@{row.number}"


def stored(ref: Any, match_id: str, seats: list[str]) -> list[str]:
    """The match's row, as the workers would play it (its hosted logs refer to it)."""
    ids = [ref.store.bot(name).id for name in seats]
    request_match(ref.store, match_id, Rules(), ids, rated=False)
    return seats


def host_for(
    ref: Any,
    tmp_path: Path,
    pool: int | None = 0,
    limits: Limits | None = None,
    warm: int | None = None,
    zygote: bool = True,
) -> Host:
    settings = Settings.from_env(
        {"ARENA_HOME": str(tmp_path / "home"), "ARENA_REFEREE_ADDRESS": ref.server.address}
    )
    settings.home.mkdir(exist_ok=True)
    return Host(ref.store, settings, limits, pool=pool, warm=warm, zygote=zygote)


def example_folder(example: str, tmp_path: Path) -> Path:
    """The folder to submit of an example, built where it needs building; a skip saying
    what is missing where it cannot be."""
    folder = EXAMPLES / example
    if example == "hosted/node" and not (folder / "node_modules").is_dir():
        pytest.skip(f"npm install in {folder} first (its node_modules travel in the archive)")
    if example == "hosted/cpp":
        if shutil.which("grpc_cpp_plugin") is None or shutil.which("g++") is None:
            pytest.skip("no gRPC for C++ here (Debian: libgrpc++-dev, protobuf-compiler-grpc)")
        subprocess.run([str(folder / "build.sh"), str(tmp_path / "dist")], check=True)
        return tmp_path / "dist"
    return folder


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
@pytest.mark.parametrize(
    ("example", "entry", "runtime"),
    [("highest_card_bot.py", "highest_card_bot.py", "python"), ("hosted/node", "index.js", "node"),
     ("hosted/cpp", "./bot", "exec")],
)  # fmt: skip
def test_the_examples_play_sandboxed_through_the_relay(
    versions: Any, beta: str, tmp_path: Path, example: str, entry: str, runtime: str
) -> None:
    ref, stub, _ = versions
    folder = example_folder(example, tmp_path)
    register(stub, "mine")
    version = hosted(ref, "mine", folder, entry, runtime)
    seats = stored(ref, "m-4", [version, beta])
    with host_for(ref, tmp_path).seated("m-4", seats):
        record = json.loads(run_match(stub, "m-4", seats).result().record_json)
    assert record["faults"][version] == CLEAN
    logs = ref.store.bot_logs("m-4", version)  # its status: 0, or 137 if it was slow to end
    assert [x["version"] for x in logs] == [version], logs


RECONNECTING = """\
// Section 15's loop of docs/protocol.md, blind to match tokens: after its match, it
// reconnects until a status says to stop; each status is logged with how long it took.
const grpc = require("@grpc/grpc-js");
const loader = require("@grpc/proto-loader");
const proto = grpc.loadPackageDefinition(
  loader.loadSync(__dirname + "/bot.proto", { keepCase: false, defaults: true }),
).truco.v1;
const referee = new proto.Referee(process.env.ARENA_ADDRESS, grpc.credentials.createInsecure());
const STOP = [grpc.status.UNAUTHENTICATED, grpc.status.FAILED_PRECONDITION,
              grpc.status.INVALID_ARGUMENT, grpc.status.ABORTED];
function play() {
  const began = Date.now();
  const stream = referee.Play();
  stream.write({ hello: { token: process.env.ARENA_TOKEN, protocolVersion: 1, name: "loop" } });
  stream.on("data", (m) => {
    if (m.decision) {
      const { matchId, requestId, view } = m.decision;
      stream.write({ action: { matchId, requestId, action: view.legal[0] } });
    }
  });
  stream.on("error", () => {});
  stream.on("status", (s) => {
    console.error(`status ${s.code} after ${Date.now() - began} ms: ${s.details}`);
    if (STOP.includes(s.code)) process.exit(0);
    setTimeout(play, 100);
  });
}
play();
"""


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
@pytest.mark.parametrize("bot", ["example", "reconnecting"])
def test_node_bots_end_every_match_by_themselves(
    versions: Any, beta: str, tmp_path: Path, bot: str
) -> None:
    """Match after match on one worker, a Node.js bot's process ends by itself, status 0:
    the example, which exits after its MatchEnded, and one that reconnects after it
    instead, refused at once each time with UNAUTHENTICATED and the reason. Its worker's
    sandboxes all reach the referee from one address, which a refusal of the arena's own
    match token never holds as a guessed token's is: held, the 9th refusal would wait
    3.2 s, past the 2 s a process has to end (EXIT_GRACE_S), and it would be killed."""
    ref, stub, _ = versions
    folder = example_folder("hosted/node", tmp_path)
    if bot == "reconnecting":
        (tmp_path / "loop").mkdir()
        for name in ("bot.proto", "node_modules"):
            (tmp_path / "loop" / name).symlink_to(folder / name)  # packing follows links
        (tmp_path / "loop/index.js").write_text(RECONNECTING)
        folder = tmp_path / "loop"
    register(stub, "mine")
    version = hosted(ref, "mine", folder, "index.js", "node")
    host = host_for(ref, tmp_path)
    for number in range(10 if bot == "reconnecting" else 4):
        match_id = f"n-{number}"
        assert played(host, stub, ref, match_id, [version, beta])[version] == CLEAN
        (log,) = ref.store.bot_logs(match_id, version)
        assert log["status"] == 0, log
        if bot == "reconnecting":
            assert "status 16 after" in log["log"], log
            assert f"this token's match, '{match_id}', is over" in log["log"], log


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
def test_a_process_killed_after_its_match_has_its_log_say_why(
    versions: Any, beta: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref, stub, _ = versions
    monkeypatch.setattr(referee.api.playing, "HOSTED_START_S", 0.5)
    register(stub, "deaf")
    folder = tmp_path / "deaf"
    folder.mkdir()
    (folder / "bot.py").write_text("import time\nprint('asleep', flush=True)\ntime.sleep(600)\n")
    version = hosted(ref, "deaf", folder, "bot.py", "python")
    played(host_for(ref, tmp_path), stub, ref, "m-10", [version, beta])
    (log,) = ref.store.bot_logs("m-10", version)
    assert log["status"] == 137
    assert log["log"] == "asleep\n\n[sandbox: killed: still running 2 s after its match ended]\n"


SLEEPER = b"""\
import time
from arena.sdk import run

class Sleeper:
    name = "sleeper"
    def decide(self, view):
        time.sleep(0.3)  # past its 50 ms clock, every time
        return view.legal[0]

run(Sleeper())
"""


@pytest.mark.hostile
@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
def test_a_hosted_bot_sleeping_past_its_clock_times_out_alone(
    versions: Any, beta: str, tmp_path: Path
) -> None:
    ref, stub, _ = versions
    register(stub, "slow")
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "bot.py").write_bytes(SLEEPER)
    version = hosted(ref, "slow", folder, "bot.py", "python")
    seats = stored(ref, "m-5", [version, beta])
    request = api.RunMatchRequest(
        match_id="m-5", seats=seats, seed=7, decision_ms=50, time_bank_ms=0
    )
    with host_for(ref, tmp_path).seated("m-5", seats):
        reply = stub.RunMatch(request, metadata=ORGANIZER, timeout=300)
    faults = json.loads(reply.record_json)["faults"]
    assert faults[version]["timeouts"] > 0
    assert faults[beta] == CLEAN


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
def test_a_warm_process_waits_with_a_ticket_then_plays_the_match_it_is_given(
    versions: Any, beta: str, tmp_path: Path
) -> None:
    ref, stub, _ = versions
    register(stub, "mine")
    version = hosted(ref, "mine", EXAMPLES / "random_bot.py", "random_bot.py", "python")
    host = host_for(ref, tmp_path, pool=1)
    try:
        played = []
        for match_id in ("m-6", "m-7"):  # the first cold, the second warm
            seats = stored(ref, match_id, [version, beta])
            with host.seated(match_id, seats) as keys:
                request = api.RunMatchRequest(
                    match_id=match_id, seats=seats, seed=7, hosted_keys=keys
                )
                reply = stub.RunMatch(request, metadata=ORGANIZER, timeout=120)
            played.append((keys[version], json.loads(reply.record_json)["faults"][version]))
            assert host.wait_ready(version, 1, 60)  # started after the first match
        (cold, _), (warm, faults) = played
        assert cold == "m-6" and warm.startswith("ticket-")
        assert faults == CLEAN
        # the ticket was good for that match only
        late = Client(ref.server.address)
        late.hello(match_token(token_key(ref.store.deal_key()), warm, version))
        assert "is over" in late.error().details()
        late.close()
    finally:
        host.close()


def played(host: Host, stub: Any, ref: Any, match_id: str, seats: list[str]) -> Any:
    """The match played with the host's processes for its hosted seats; its faults."""
    with host.seated(match_id, stored(ref, match_id, seats)) as keys:
        request = api.RunMatchRequest(match_id=match_id, seats=seats, seed=7, hosted_keys=keys)
        reply = stub.RunMatch(request, metadata=ORGANIZER, timeout=120)
    return json.loads(reply.record_json)["faults"]


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
def test_a_version_keeps_as_many_ready_as_it_played_at_once(
    versions: Any, beta: str, tmp_path: Path
) -> None:
    """Sized by demand: one match at a time keeps one process ready; two matches of the
    version at once, and two are kept."""
    ref, stub, _ = versions
    register(stub, "busy")
    version = hosted(ref, "busy", EXAMPLES / "random_bot.py", "random_bot.py", "python")
    host = host_for(ref, tmp_path, pool=None)
    try:
        assert played(host, stub, ref, "m-d0", [version, beta])[version] == CLEAN
        assert host.wait_ready(version, 1, 60) and host.kept() == {version: 1}
        seats = [version, beta]
        with host.seated("m-d1", stored(ref, "m-d1", seats)) as one, \
                host.seated("m-d2", stored(ref, "m-d2", seats)) as two:  # fmt: skip
            for match_id, keys in (("m-d1", one), ("m-d2", two)):
                request = api.RunMatchRequest(
                    match_id=match_id, seats=seats, seed=7, hosted_keys=keys
                )
                reply = stub.RunMatch(request, metadata=ORGANIZER, timeout=120)
                assert json.loads(reply.record_json)["faults"][version] == CLEAN
        assert host.wait_ready(version, 2, 60) and host.kept() == {version: 2}
    finally:
        host.close()


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
def test_the_ready_processes_are_bounded_in_all_whatever_the_versions(
    versions: Any, beta: str, tmp_path: Path
) -> None:
    """Two ready processes at most in all: a third version asked for takes the place of
    the one asked for least recently, and every match still plays clean."""
    ref, stub, _ = versions
    names = []
    for bot in ("one", "two", "three"):
        register(stub, bot)
        names.append(hosted(ref, bot, EXAMPLES / "random_bot.py", "random_bot.py", "python"))
    host = host_for(ref, tmp_path, pool=1, warm=2)
    try:
        for n, name in enumerate(names):
            assert played(host, stub, ref, f"m-w{n}", [name, beta])[name] == CLEAN
            assert host.wait_ready(name, 1, 60)
        one, two, three = names
        assert host.kept() == {two: 1, three: 1}  # one's, asked for first, made room
        assert played(host, stub, ref, "m-w3", [one, beta])[one] == CLEAN  # cold again
        assert host.wait_ready(one, 1, 60) and host.kept() == {three: 1, one: 1}
    finally:
        host.close()


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
def test_a_retired_versions_folder_goes_and_comes_back_when_it_is_named(
    versions: Any, beta: str, tmp_path: Path
) -> None:
    """Once its bot's next version is active and no process of it runs, a version's
    folder is gone from the worker; named to play, it is unpacked again, kept while its
    process runs, and gone again after."""
    ref, stub, _ = versions
    register(stub, "mine")
    one = hosted(ref, "mine", EXAMPLES / "random_bot.py", "random_bot.py", "python")
    folder = tmp_path / "home/hosted" / ref.store.version(one).hash
    host = host_for(ref, tmp_path, pool=1)
    try:
        assert played(host, stub, ref, "m-8", [one, beta])[one] == CLEAN
        assert host.wait_ready(one, 1, 60) and folder.is_dir()  # a ready process holds it
        (tmp_path / "v2").mkdir()
        (tmp_path / "v2/bot.py").write_bytes((EXAMPLES / "random_bot.py").read_bytes() + b"#\n")
        two = hosted(ref, "mine", tmp_path / "v2", "bot.py", "python")  # active: one retired
        assert ref.store.version(one).status == "retired"
        assert host.prune() == [folder.name]  # its ready process stopped, its folder gone
        assert not folder.exists()
        seats = stored(ref, "m-9", [one, beta])
        with host.seated("m-9", seats) as keys:  # named, the retired version plays
            assert folder.is_dir()
            assert host.prune() == []  # its process holds it
            request = api.RunMatchRequest(match_id="m-9", seats=seats, seed=7, hosted_keys=keys)
            reply = stub.RunMatch(request, metadata=ORGANIZER, timeout=120)
        assert json.loads(reply.record_json)["faults"][one] == CLEAN
        assert not folder.exists()  # pruned as its match ended: no process of it runs
        assert two != one and not host.wait_ready(one, 1, 0)  # no ready process of it now
    finally:
        host.close()


class Taken:
    """The uids that the sandboxes a test starts take (as root, each its own), and the
    processes of them left once those sandboxes stopped. Only this test's: another arena
    on the machine runs under other uids, or under one of these once it was given back,
    which :meth:`leftovers` leaves out by the processes' start times."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.uids: dict[int, float] = {}  # the uid: when its sandbox began to stop (ticks)
        start, stop = Sandbox.start, Sandbox.stop

        def started(box: Sandbox) -> None:
            start(box)
            if box.uid is not None:
                self.uids[box.uid] = math.inf

        def stopped(box: Sandbox, *why: str) -> int | None:
            if box.uid in self.uids:
                self.uids[box.uid] = min(self.uids[box.uid], boot_ticks())
            return stop(box, *why)

        monkeypatch.setattr(Sandbox, "start", started)
        monkeypatch.setattr(Sandbox, "stop", stopped)

    def leftovers(self) -> list[int]:
        """Processes of those uids that started before their sandbox stopped."""
        found = []
        for pid in confine.pids():
            status, began = confine.status(pid), started(pid)
            if status is None or began is None:
                continue
            uid = int(status.get("Uid", "0").split()[0])
            if uid in self.uids and int(began) < self.uids[uid]:
                found.append(pid)
        return found


def boot_ticks() -> float:
    """Now, in the clock ticks since boot that /proc/PID/stat counts a start time in."""
    return time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK")


SNOOP = """\
import socket, sys
for path in ("/etc/shadow", "{home}/admin-token", "/var/lib/postgresql"):
    try:
        open(path).read()
        print("READ", path)
    except OSError as e:
        print("refused", path, type(e).__name__)
for port in (5432, 6379):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1)
        print("REACHED", port)
    except OSError as e:
        print("unreachable", port, type(e).__name__)
try:
    open("/bot/bot.py", "a").write("#")
    print("WROTE MY CODE")
except OSError as e:
    print("read-only", type(e).__name__)
sys.stdout.flush()

from arena.sdk import run

class Bot:
    name = "snoop"
    def decide(self, view):
        return view.legal[0]

run(Bot())
"""
HOSTILE = {  # what each attack runs, in place of a bot
    "fork bomb": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n"
    "        pass\n",
    "endless memory": "hoard = []\nwhile True:\n    hoard.append(bytearray(1 << 20))\n",
    "spinning": "while True:\n    pass\n",
    "printing without end": "while True:\n    print('x' * 4096, flush=True)\n",
    "filling the disk": "import os\nwith open('/tmp/fill', 'wb') as f:\n    while True:\n"
    "        f.write(os.urandom(1 << 20))\n",
    "reading host files, then playing": SNOOP,
}


@pytest.mark.hostile
@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
@pytest.mark.parametrize("attack", HOSTILE)
def test_a_hostile_hosted_bot_changes_its_own_match_only(
    versions: Any, beta: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, attack: str
) -> None:
    """The hostile version plays a match while a well-behaved hosted bot plays another
    beside it, against the same opponent: the other match is untouched, the hostile's
    match ends and is recorded, nothing of it survives, its log is kept and capped."""
    ref, stub, _ = versions
    monkeypatch.setattr(referee.api.playing, "HOSTED_START_S", 2.0)
    folder = tmp_path / "hostile"
    folder.mkdir()
    (folder / "bot.py").write_text(HOSTILE[attack].replace("{home}", str(tmp_path / "home")))
    register(stub, "villain")
    villain = hosted(ref, "villain", folder, "bot.py", "python")
    register(stub, "good")
    good = hosted(ref, "good", EXAMPLES / "random_bot.py", "random_bot.py", "python")
    limits = Limits(memory_bytes=256 << 20, processes=32, cpu_s=5, tmp_bytes=8 << 20,
                    log_bytes=16 << 10)  # fmt: skip
    host = host_for(ref, tmp_path, limits=limits)
    taken = Taken(monkeypatch)
    records: dict[str, Any] = {}

    def play(match_id: str, seats: list[str]) -> None:
        with host.seated(match_id, stored(ref, match_id, seats)) as keys:
            request = api.RunMatchRequest(match_id=match_id, seats=seats, seed=7, hosted_keys=keys)
            reply = stub.RunMatch(request, metadata=ORGANIZER, timeout=300)
        records[match_id] = json.loads(reply.record_json)

    with ThreadPoolExecutor(2) as pool:
        done = [
            pool.submit(play, "m-bad", [villain, beta]),
            pool.submit(play, "m-good", [good, beta]),
        ]
        for future in done:
            future.result()
    assert records["m-good"]["faults"] == {good: CLEAN, beta: CLEAN}
    assert records["m-bad"]["faults"][beta] == CLEAN and records["m-bad"]["result"]
    (log,) = ref.store.bot_logs("m-bad", villain)
    assert len(log["log"]) <= limits.log_bytes + 200  # the cap and its note
    assert taken.uids and taken.leftovers() == []
    if attack == "reading host files, then playing":
        text = log["log"]
        assert "READ" not in text and "REACHED" not in text and "WROTE" not in text, text
        assert text.count("refused") == 3 and text.count("unreachable") == 2, text
        assert records["m-bad"]["faults"][villain] == CLEAN


def record_of(host: Host, stub: Any, ref: Any, match_id: str, seats: list[str]) -> Any:
    """The match's record, played with the host's processes on the deals of seed 7."""
    with host.seated(match_id, stored(ref, match_id, seats)) as keys:
        request = api.RunMatchRequest(match_id=match_id, seats=seats, seed=7, hosted_keys=keys)
        reply = stub.RunMatch(request, metadata=ORGANIZER, timeout=120)
    return json.loads(reply.record_json)


def started_by(host: Host, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each sandbox the host starts from now on is forked from its zygote."""
    forked: list[bool] = []
    start = Sandbox.start

    def noted(box: Sandbox) -> None:
        forked.append(box.zygote is not None)
        start(box)

    monkeypatch.setattr(Sandbox, "start", noted)
    return forked


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
@pytest.mark.skipif(os.geteuid() != 0, reason="only root forks hosted bots from a zygote")
def test_a_hosted_bot_plays_the_same_match_forked_or_in_its_own_interpreter(
    versions: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two deterministic hosted bots on the same deals: the records are the same, but for
    the match's id and the times, whether their processes are forked from the zygote or
    start interpreters of their own."""
    ref, stub, _ = versions
    seats = []
    for bot in ("high", "low"):
        register(stub, bot)
        seats.append(hosted(ref, bot, EXAMPLES / "highest_card_bot.py", "highest_card_bot.py",
                            "python"))  # fmt: skip
    records = {}
    for way in ("forked", "own interpreter"):
        host = host_for(ref, tmp_path, zygote=way == "forked")
        forked = started_by(host, monkeypatch)
        try:
            records[way] = record_of(host, stub, ref, f"same-{way.split()[0]}", seats)
        finally:
            host.close()
        assert forked == [way == "forked"] * 2
    timeless = {"match_id", "started_at", "ended_at", "duration_ms", "times_ms", "think_ms", "ms"}

    def played(record: Any) -> Any:
        if isinstance(record, dict):
            return {k: played(v) for k, v in record.items() if k not in timeless}
        return [played(v) for v in record] if isinstance(record, list) else record

    assert records["forked"]["faults"] == {s: CLEAN for s in seats}
    assert played(records["forked"]) == played(records["own interpreter"])
    assert records["forked"]["hands"], records["forked"]


NOSY = """\
import json, os, random, signal, sys
import arena.sdk
from arena.sdk import run
# what an earlier match of this version could have left: a file, a global, a module's state
# (/tmp may hold the folders the runtime is bound under: the arena's, checked out in /tmp)
found = {"tmp": sorted(f for f in os.listdir("/tmp") if f.startswith("left-")),
         "sdk": getattr(arena.sdk, "LEFT", None), "sys": getattr(sys, "left", None)}
mine = f"/tmp/left-{random.getrandbits(64):x}"
with open(mine, "w") as f:
    f.write("from an earlier match")
arena.sdk.LEFT = sys.left = mine
try:
    os.kill(-1, signal.SIGKILL)  # every process it may signal: none but its own
except ProcessLookupError:  # none at all
    pass
print("FOUND", json.dumps(found), "FIRST", random.getrandbits(64), flush=True)

class Bot:
    name = "nosy"
    def decide(self, view):
        return view.legal[0]

run(Bot())
"""


@pytest.mark.hostile
@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
@pytest.mark.parametrize("zygote", [True, False], ids=["forked", "own interpreter"])
def test_a_hosted_bot_finds_nothing_of_its_other_matches_and_cannot_reach_them(
    versions: Any, beta: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, zygote: bool
) -> None:
    """One version plays two matches at once, then a third: each process leaves a file, a
    global and a module's attribute, and kills every process it may signal. None finds
    anything of another, none is killed by another (every match clean), and each draws
    other random numbers."""
    ref, stub, _ = versions
    folder = tmp_path / "nosy"
    folder.mkdir()
    (folder / "bot.py").write_text(NOSY)
    register(stub, "nosy")
    version = hosted(ref, "nosy", folder, "bot.py", "python")
    host = host_for(ref, tmp_path, zygote=zygote)
    forked = started_by(host, monkeypatch)
    try:
        with ThreadPoolExecutor(2) as pool:
            both = [pool.submit(played, host, stub, ref, f"nosy-{n}", [version, beta])
                    for n in (1, 2)]  # fmt: skip
            faults = [f.result() for f in both]
        faults.append(played(host, stub, ref, "nosy-3", [version, beta]))
    finally:
        host.close()
    assert forked == [zygote and os.geteuid() == 0] * 3
    assert faults == [{version: CLEAN, beta: CLEAN}] * 3
    firsts = set()
    for n in (1, 2, 3):
        (log,) = ref.store.bot_logs(f"nosy-{n}", version)
        words = log["log"].split("FOUND ", 1)[1].split("\n", 1)[0].rsplit(" FIRST ", 1)
        assert json.loads(words[0]) == {"tmp": [], "sdk": None, "sys": None}, log
        firsts.add(words[1])
    assert len(firsts) == 3  # the zygote's random state is not handed down

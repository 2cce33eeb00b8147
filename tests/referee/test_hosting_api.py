"""Submitting hosted bots over the Arena API, on real gRPC and a real PostgreSQL: who may
submit, what a version is, and that a bad archive is refused saying why with nothing
kept; then the same through ``arena bot submit`` and ``arena bot versions``."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from starlette.testclient import TestClient

import referee.api
from arena.domain.tournament import Definition
from arena.domain.versions import Caps, Manifest
from arena.engine import Rules
from arena.errors import Exhausted
from arena.hosted.archive import Limits, check
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import bots, ratings
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from arena.usecases.runs import create_run, plan_run
from arena.usecases.tournaments import create_tournament
from arena.usecases.versions import judge
from arena.usecases.versions import submit as submit_version
from arena.web import create_app
from tests.hosted.test_archive import BOT, tar
from tests.referee.test_api import ORGANIZER, arena  # noqa: F401 (the fixture)
from tests.store.test_store import played

Stub = Any


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def submit(stub: Stub, bot: str, data: bytes, metadata: Any, **manifest: Any) -> Any:
    first = api.BotManifest(bot=bot, runtime="python", entry="bot.py")
    for k, v in manifest.items():
        setattr(first, k, v)
    parts = [api.SubmitBotRequest(manifest=first)]
    parts += [api.SubmitBotRequest(chunk=data[k : k + 100]) for k in range(0, len(data), 100)]
    return stub.SubmitBot(iter(parts), metadata=metadata, timeout=30)


def register(stub: Stub, name: str) -> str:
    return str(stub.RegisterBot(api.RegisterBotRequest(name=name), metadata=ORGANIZER).token)


def kept(database: str) -> tuple[int, int, int]:
    """Archives, versions and bot rows in the store."""
    with psycopg.connect(database) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM bot_archives), (SELECT count(*) FROM bot_versions),"
            " (SELECT count(*) FROM bots)"
        ).fetchone()
    assert row is not None
    return row


def test_a_bot_submits_versions_of_itself(arena: Any) -> None:  # noqa: F811
    _, stub = arena
    token = register(stub, "alpha")
    first = submit(stub, "alpha", tar(BOT), bearer(token))
    v = first.version
    assert first.new and (v.bot, v.number, v.name, v.status) == ("alpha", 1, "alpha@1", "checking")
    assert (v.runtime, v.entry, v.files, v.unpacked) == ("python", "bot.py", 2, 18)
    again = submit(stub, "alpha", tar(BOT, mtime=1e9), bearer(token))  # packed anew
    assert not again.new and again.version.number == 1
    changed = submit(stub, "alpha", tar(BOT | {"bot.py": b"pass\n"}), ORGANIZER)
    assert changed.new and changed.version.name == "alpha@2"
    listed = stub.ListVersions(api.ListVersionsRequest(bot="alpha"), timeout=10).versions
    assert [x.name for x in listed] == ["alpha@2", "alpha@1"]
    assert [x.hash for x in listed] == [changed.version.hash, v.hash]
    # a version is a bot row of its own, without a token: no one can register or dial in as
    # it; the bots are listed once, their versions by ListVersions
    listed_bots = {b.name: b for b in stub.ListBots(api.ListBotsRequest(), timeout=10).bots}
    assert "alpha" in listed_bots and not {"alpha@1", "alpha@2"} & set(listed_bots)
    with pytest.raises(grpc.RpcError) as taken:
        stub.RegisterBot(api.RegisterBotRequest(name="beta@1"), metadata=ORGANIZER)
    assert taken.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_only_the_bot_itself_or_the_organizer_submits(arena: Any) -> None:  # noqa: F811
    ref, stub = arena
    register(stub, "alpha")
    beta = register(stub, "beta")
    for metadata, code, says in [
        ((), grpc.StatusCode.UNAUTHENTICATED, "this call needs the bot's own token or an "),
        (bearer("a guess"), grpc.StatusCode.PERMISSION_DENIED,
         "neither bot 'alpha''s token nor an organizer's"),
        (bearer(beta), grpc.StatusCode.PERMISSION_DENIED, "this token is bot 'beta''s, not "),
    ]:  # fmt: skip
        with pytest.raises(grpc.RpcError) as refused:
            submit(stub, "alpha", tar(BOT), metadata)
        assert refused.value.code() == code
        assert refused.value.details().startswith(says), refused.value.details()
    assert kept(ref.store.pool.conninfo)[:2] == (0, 0)
    with pytest.raises(grpc.RpcError) as unknown:
        submit(stub, "nobody", tar(BOT), ORGANIZER)
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND


@pytest.mark.parametrize(
    ("data", "manifest", "says"),
    [
        (b"garbage", {}, "not a tar, tar.gz or zip"),
        (tar({"x.py": b""}), {}, "no file 'bot.py'"),
        (tar(BOT), {"runtime": "cobol"}, "runtime: 'cobol' is not one of"),
        (tar(BOT), {"size": 10**9}, "over the limit"),
        (bytes(5000), {}, "over the limit of 4,096 bytes"),
    ],
)
def test_a_bad_submission_is_refused_and_nothing_is_kept(
    arena: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    data: bytes,
    manifest: dict[str, Any],
    says: str,
) -> None:
    ref, stub = arena
    monkeypatch.setattr(referee.api.hosting, "ARCHIVE_LIMITS", Limits(archive_bytes=4096))
    register(stub, "alpha")
    before = kept(ref.store.pool.conninfo)
    with pytest.raises(grpc.RpcError) as refused:
        submit(stub, "alpha", data, ORGANIZER, **manifest)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert says in refused.value.details()
    assert kept(ref.store.pool.conninfo) == before


def test_the_manifest_comes_first(arena: Any) -> None:  # noqa: F811
    _, stub = arena
    register(stub, "alpha")
    with pytest.raises(grpc.RpcError) as refused:
        stub.SubmitBot(iter([api.SubmitBotRequest(chunk=b"x")]), metadata=ORGANIZER)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "first message must be the manifest" in refused.value.details()


def cli(address: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = os.environ | {"ARENA_REFEREE_ADDRESS": address, "ARENA_ADMIN_TOKEN": "x"} | env
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], env=environ, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


def submit_cli(address: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`arena bot submit`, not waiting for a check (no workers here)."""
    return cli(address, "bot", "submit", "--no-wait", *args, **env)


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    bot = tmp_path / "mybot"
    for path, data in BOT.items():
        (bot / path).parent.mkdir(parents=True, exist_ok=True)
        (bot / path).write_bytes(data)
    yield bot


def test_the_cli_submits_a_folder_and_lists_versions(arena: Any, folder: Path) -> None:  # noqa: F811
    ref, stub = arena
    token = register(stub, "alpha")
    address = ref.server.address
    (folder / "weights.bin").write_bytes(random.Random(1).randbytes(200_000))  # many chunks
    done = submit_cli(address, "alpha", str(folder), ARENA_TOKEN=token)
    assert done.returncode == 0, done.stderr
    assert "alpha@1: submitted (python, bot.py; 3 files, 200,018 bytes)" in done.stdout
    again = submit_cli(address, "alpha", str(folder), ARENA_TOKEN=token)
    assert "alpha@1: these files were submitted before" in again.stdout
    (folder / "bot.py").write_text("print('v2')\n")
    assert submit_cli(address, "alpha", str(folder), ARENA_TOKEN=token).returncode == 0
    listed = json.loads(cli(address, "bot", "versions", "alpha", "--json").stdout)
    assert [v["name"] for v in listed["versions"]] == ["alpha@2", "alpha@1"]
    table = cli(address, "bot", "versions", "alpha").stdout
    assert "alpha@2" in table and "checking" in table
    empty = submit_cli(address, "alpha", str(folder / "lib"), ARENA_TOKEN=token)
    assert empty.returncode == 1 and "give --entry" in empty.stderr
    other = register(stub, "beta")
    refused = submit_cli(address, "alpha", str(folder), ARENA_TOKEN=other)
    assert refused.returncode == 1 and "not 'alpha'" in refused.stderr
    one = submit_cli(address, "beta", str(folder / "bot.py"), ARENA_TOKEN=other)
    assert "beta@1: submitted (python, bot.py; 1 file, 12 bytes)" in one.stdout, one.stderr


def test_each_version_has_its_own_rating_and_the_leaderboard_shows_the_active_one(
    arena: Any,  # noqa: F811
) -> None:
    ref, stub = arena
    store = ref.store
    register(stub, "alpha")
    register(stub, "beta")
    submit(stub, "alpha", tar(BOT), ORGANIZER)
    submit(stub, "alpha", tar(BOT | {"bot.py": b"pass\n"}), ORGANIZER)
    one, two = store.version("alpha@1"), store.version("alpha@2")
    judge(store, one.id)
    assert store.playing_as(["alpha", "beta"])["alpha"] == (one.id, "alpha@1")
    beta = store.bot("beta")
    assert beta is not None
    rules = Rules()
    for k, version in enumerate([one, one, two]):
        request_match(store, f"m{k}", rules, [version.id, beta.id])
        record_match(store, f"m{k}", played(rules, k))
    rows = ratings.standings(store, "paulista/1")  # a bot once, by its active version
    assert {(s["bot"], s["played_as"]) for s in rows} == {("alpha", "alpha@1"), ("beta", "beta")}
    judge(store, two.id)  # alpha@2 becomes active, alpha@1 is retired
    assert store.playing_as(["alpha"])["alpha"] == (two.id, "alpha@2")
    rows = ratings.standings(store, "paulista/1")  # a bot once, by its active version
    assert {(s["bot"], s["played_as"]) for s in rows} == {("alpha", "alpha@2"), ("beta", "beta")}
    page = bots.bot(store, "alpha")
    shown = [(v["name"], v["status"], [r["games"] for r in v["ratings"]]) for v in page["versions"]]
    assert shown == [("alpha@2", "active", [1]), ("alpha@1", "retired", [2])]
    html = TestClient(create_app(store, organizer_token="x")).get("/bots/alpha").text
    assert "Versions" in html and "alpha@2" in html and "retired" in html
    listed = stub.ListVersions(api.ListVersionsRequest(bot="alpha"), timeout=10).versions
    assert [(v.name, [r.games for r in v.ratings]) for v in listed] == [
        ("alpha@2", [1]), ("alpha@1", [2]),
    ]  # fmt: skip
    submit(stub, "alpha", tar(BOT | {"x": b""}), ORGANIZER)
    assert judge(store, store.version("alpha@3").id, "not clean").status == "rejected"
    assert store.playing_as(["alpha"])["alpha"] == (two.id, "alpha@2")  # the last stays


def test_a_tournament_of_hosted_bots_only_gets_duplicate_deals(arena: Any) -> None:  # noqa: F811
    ref, stub = arena
    store = ref.store
    for name in ("alpha", "beta", "gamma"):
        register(stub, name)
        submit(stub, name, tar(BOT | {"name.txt": name.encode()}), ORGANIZER)
        judge(store, store.version(f"{name}@1").id)

    def seeds(bots: tuple[str, ...]) -> list[int]:
        t = create_tournament(store, Definition(name="-".join(bots), bots=bots, matches=2))
        run = create_run(store, t)
        assert run is not None
        return [store.match(m)[0].seed for m in plan_run(store, run.id)]  # type: ignore[index]

    hosted = seeds(("alpha", "beta"))  # one pair: its two matches on the same deals
    assert len(hosted) == 2 and hosted[0] == hosted[1]
    register(stub, "delta")  # a dial-in bot among them: independent deals
    mixed = seeds(("alpha", "delta"))
    assert len(mixed) == 2 and mixed[0] != mixed[1]


class Held:
    """An upload of ``bot`` taken by the server (its initial metadata says so) that sends
    nothing more until released: it holds its places in the caps meanwhile."""

    def __init__(self, stub: Stub, bot: str, data: bytes = b"") -> None:
        self.release = threading.Event()
        manifest = api.BotManifest(bot=bot, runtime="python", entry="bot.py")
        chunks = [data[k : k + 32768] for k in range(0, len(data), 32768)]

        def parts() -> Iterator[api.SubmitBotRequest]:
            yield api.SubmitBotRequest(manifest=manifest)
            self.release.wait(60)
            for chunk in chunks:
                yield api.SubmitBotRequest(chunk=chunk)

        self.call = stub.SubmitBot.future(parts(), metadata=ORGANIZER, timeout=120)
        self.taken = ("arena-upload", "admitted") in (self.call.initial_metadata() or ())

    def result(self) -> Any:
        self.release.set()
        return self.call.result()


def exhausted(call: Callable[[], Any]) -> str:
    """What a call refused with RESOURCE_EXHAUSTED said."""
    with pytest.raises(grpc.RpcError) as refused:
        call()
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, refused.value.details()
    return str(refused.value.details())


def test_uploads_past_the_caps_are_refused_at_once_and_the_cli_says_why(
    arena: Any,  # noqa: F811
    folder: Path,
) -> None:
    """One upload of a bot at a time, two in all: a third is refused at once saying which
    cap, by the API and by `arena bot submit`; once they end, their places are free."""
    ref, stub = arena
    token = register(stub, "alpha")
    for name in ("beta", "gamma"):
        register(stub, name)
    first = Held(stub, "alpha", tar(BOT))
    assert first.taken
    said = exhausted(lambda: submit(stub, "alpha", tar(BOT), ORGANIZER))
    assert said == "another upload of bot 'alpha' is in progress; try again when it ends"
    done = submit_cli(ref.server.address, "alpha", str(folder), ARENA_TOKEN=token)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "another upload of bot 'alpha' is in progress" in done.stderr
    assert "resource_exhausted" in done.stderr
    second = Held(stub, "beta", tar(BOT | {"b": b""}))
    assert second.taken
    said = exhausted(lambda: submit(stub, "gamma", tar(BOT), ORGANIZER))
    assert said == "the arena is taking 2 uploads already; try again in a moment"
    assert (first.result().version.name, second.result().version.name) == ("alpha@1", "beta@1")
    assert submit(stub, "gamma", tar(BOT), ORGANIZER).version.name == "gamma@1"  # places freed
    assert kept(ref.store.pool.conninfo)[1] == 3


def test_an_upload_that_takes_too_long_gives_its_place_up(
    arena: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, stub = arena
    monkeypatch.setattr(referee.api.hosting, "UPLOAD_S", 0.5)
    register(stub, "alpha")
    slow = Held(stub, "alpha")  # sends its manifest, then nothing
    assert slow.taken
    said = exhausted(slow.call.result)
    assert said.startswith("archive: not all sent within 0.5 s, the time an upload may hold")
    slow.release.set()
    assert submit(stub, "alpha", tar(BOT), ORGANIZER).version.name == "alpha@1"


def test_what_a_bot_keeps_is_capped_in_versions_and_bytes(
    arena: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past either cap a new version is refused with RESOURCE_EXHAUSTED saying the cap,
    the count and what to do, and nothing is kept; the same files again are still the
    version they were."""
    ref, stub = arena
    register(stub, "alpha")
    register(stub, "beta")
    monkeypatch.setattr(referee.api.hosting, "STORE_CAPS", Caps(versions=2, archive_bytes=10**9))
    v1, v2 = tar(BOT), tar(BOT | {"two": b"2"})
    for data in (v1, v2):
        assert submit(stub, "alpha", data, ORGANIZER).new
    before = kept(ref.store.pool.conninfo)
    said = exhausted(lambda: submit(stub, "alpha", tar(BOT | {"three": b"3"}), ORGANIZER))
    assert said.startswith("bot 'alpha' has 2 versions, the most the arena keeps of a bot (2);")
    assert "submit this one as a new bot" in said
    assert kept(ref.store.pool.conninfo) == before
    assert not submit(stub, "alpha", v1, ORGANIZER).new  # not a new version: no cap
    weights = random.Random(2).randbytes(30_000)  # incompressible: the archive is as large
    heavy = [tar(BOT | {"w": weights, "n": bytes([k])}) for k in range(2)]
    cap = len(heavy[0]) + len(heavy[1]) // 2
    monkeypatch.setattr(referee.api.hosting, "STORE_CAPS", Caps(versions=50, archive_bytes=cap))
    assert submit(stub, "beta", heavy[0], ORGANIZER).new
    assert submit(stub, "beta", heavy[0], ORGANIZER, entry="bot.py --again").new  # same archive
    said = exhausted(lambda: submit(stub, "beta", heavy[1], ORGANIZER))
    assert said.startswith(
        f"bot 'beta' keeps {len(heavy[0]):,} bytes of archives and this one has "
        f"{len(heavy[1]):,}: over the {cap:,} the arena keeps of a bot; leave out"
    )
    assert [v.number for v in ref.store.versions("beta")] == [2, 1]


def test_the_caps_hold_when_versions_come_at_once(store: Any) -> None:
    """Two versions of a bot with one place left, added at once: one is kept, the other
    refused (the count is read under the bot's lock, in the transaction that adds)."""
    store.register_bot("alpha", "")
    manifest = Manifest("python", "bot.py")
    first = tar(BOT)
    submit_version(store, "alpha", manifest, first, check(first, manifest))
    racing = [tar(BOT | {"n": bytes([k])}) for k in range(2)]
    start = threading.Barrier(2)

    def add(data: bytes) -> str:
        start.wait()
        try:
            submit_version(store, "alpha", manifest, data, check(data, manifest), Caps(versions=2))
            return "kept"
        except Exhausted:
            return "refused"

    with ThreadPoolExecutor(2) as pool:
        assert sorted(pool.map(add, racing)) == ["kept", "refused"]
    assert len(store.versions("alpha")) == 2


def test_a_candidate_is_activated_over_the_api(arena: Any) -> None:  # noqa: F811
    """The manifest's candidate flag, ActivateVersion and what it refuses, each with its
    status code; the same files again answer what they found."""
    ref, stub = arena
    token = register(stub, "alpha")
    beta = register(stub, "beta")
    submit(stub, "alpha", tar(BOT), bearer(token))
    judge(ref.store, ref.store.version("alpha@1").id)
    two = submit(stub, "alpha", tar(BOT | {"n": b"2"}), bearer(token), candidate=True)
    assert (two.version.status, two.version.candidate) == ("checking", True)
    judge(ref.store, ref.store.version("alpha@2").id)
    again = submit(stub, "alpha", tar(BOT | {"n": b"2"}), bearer(token), candidate=True)
    assert (again.new, again.found, again.version.status) == (False, "candidate", "candidate")
    done = stub.ActivateVersion(api.ActivateVersionRequest(version="alpha@2"),
                                metadata=bearer(token), timeout=10)  # fmt: skip
    assert (done.version.name, done.version.status, done.retired) == (
        "alpha@2",
        "active",
        "alpha@1",
    )
    back = submit(stub, "alpha", tar(BOT), ORGANIZER)  # alpha@1's files: active again
    assert (back.new, back.found, back.version.status) == (False, "retired", "active")
    submit(stub, "alpha", tar(BOT | {"n": b"3"}), ORGANIZER)
    judge(ref.store, ref.store.version("alpha@3").id, "1 timeouts in check-9-1")
    submit(stub, "alpha", tar(BOT | {"n": b"4"}), ORGANIZER)  # still checking
    for version, metadata, code, says in [
        ("alpha@3", ORGANIZER, grpc.StatusCode.FAILED_PRECONDITION, "alpha@3 was rejected"),
        ("alpha@4", ORGANIZER, grpc.StatusCode.FAILED_PRECONDITION, "still being checked"),
        ("alpha@9", ORGANIZER, grpc.StatusCode.NOT_FOUND, "no version 'alpha@9'"),
        ("alpha", ORGANIZER, grpc.StatusCode.INVALID_ARGUMENT, "give the version"),
        ("alpha@2", bearer(beta), grpc.StatusCode.PERMISSION_DENIED, "not 'alpha'"),
        ("alpha@2", (), grpc.StatusCode.UNAUTHENTICATED, "needs the bot's own token"),
    ]:
        with pytest.raises(grpc.RpcError) as refused:
            stub.ActivateVersion(api.ActivateVersionRequest(version=version),
                                 metadata=metadata, timeout=10)  # fmt: skip
        assert (refused.value.code(), says in refused.value.details()) == (code, True), version
    assert ref.store.playing_as(["alpha"])["alpha"][1] == "alpha@1"


def test_the_cli_submits_candidates_activates_and_exits_as_documented(
    arena: Any,  # noqa: F811
    folder: Path,
) -> None:
    """`arena bot submit --candidate`, `arena bot activate`, and the same files again
    (each branch), with the exit statuses docs/hosting.md gives: 0 when what was asked
    holds, 1 when rejected or not made active, 3 while the check goes on."""
    ref, stub = arena
    address = ref.server.address
    token = register(stub, "alpha")
    beta = register(stub, "beta")

    def files(n: int) -> str:
        (folder / "bot.py").write_text(f"print({n})\n")
        return str(folder)

    def run(*args: str, token: str = token) -> subprocess.CompletedProcess[str]:
        return cli(address, "bot", *args, ARENA_TOKEN=token)

    def judged(version: str, reason: str = "") -> None:
        judge(ref.store, ref.store.version(version).id, reason)

    done = run("submit", "--no-wait", "alpha", files(1))
    assert (done.returncode, done.stdout.splitlines()[-1]) == (0, "alpha@1: checking")
    judged("alpha@1")
    done = run("submit", "--no-wait", "--candidate", "alpha", files(2))
    assert done.returncode == 0, done.stderr
    assert "alpha@2: checking, as a candidate (not to be active once checked)" in done.stdout
    listed = json.loads(cli(address, "bot", "versions", "alpha", "--json").stdout)["versions"]
    assert [(v["name"], v["status"], v["candidate"]) for v in listed] == [
        ("alpha@2", "checking", True), ("alpha@1", "active", False),
    ]  # fmt: skip
    judged("alpha@2")
    assert "candidate" in cli(address, "bot", "versions", "alpha").stdout
    # the candidate's files again, as a candidate: nothing changes, nothing was asked
    done = run("submit", "--candidate", "alpha", files(2))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "alpha@2: these files were submitted before: they are alpha@2 (candidate)",
        "alpha@2: candidate, not active (arena bot activate alpha@2 makes it active)",
    ]
    done = run("activate", "alpha@2")
    assert (done.returncode, done.stdout) == (0, "alpha@2: active (alpha@1 retired)\n")
    # the files of alpha@1 again, without --candidate: it is made active again
    done = run("submit", "alpha", files(1))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "alpha@1: these files were submitted before: they are alpha@1 (retired)",
        "alpha@1: active",
    ]
    shown = json.loads(run("activate", "alpha@2", "--json").stdout)
    assert (shown["version"]["status"], shown["retired"]) == ("active", "alpha@1")
    done = run("activate", "alpha@2")
    assert (done.returncode, done.stdout) == (0, "alpha@2: active\n")  # active already
    # a rejected version's files again: never made active, exit 1
    run("submit", "--no-wait", "alpha", files(3))
    judged("alpha@3", "2 timeouts in check-7-1")
    done = run("submit", "alpha", files(3))
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "alpha@3: rejected: 2 timeouts in check-7-1"
    done = run("submit", "--candidate", "alpha", files(3))
    assert done.returncode == 1 and "they are alpha@3 (rejected)" in done.stdout
    # a check that does not end within --wait-s (no workers here): exit 3, nothing active
    done = run("submit", "--wait-s", "1", "alpha", files(4))
    assert done.returncode == 3, done.stdout + done.stderr
    assert "alpha@4: still checking after 1 s" in done.stderr
    for version, says in [
        ("alpha@3", "alpha@3 was rejected (2 timeouts in check-7-1)"),
        ("alpha@4", "alpha@4 is still being checked"),
        ("alpha@9", "no version 'alpha@9'"),
        ("alpha", "give the version to make active, NAME@N"),
    ]:
        done = run("activate", version)
        assert done.returncode == 1 and says in done.stderr, (version, done.stderr)
    done = run("activate", "alpha@1", token=beta)
    assert done.returncode == 1 and "not 'alpha'" in done.stderr
    assert ref.store.playing_as(["alpha"])["alpha"][1] == "alpha@2"

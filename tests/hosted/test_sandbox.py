"""The hosted bots' sandbox (arena/hosted/sandbox.py), with real sandboxed processes: each
hostile bot attacks from inside and each attack must be held. Every test runs both ways a
python bot starts: its own interpreter, and (as root) forked from the zygote
(arena/hosted/zygote.py) into the sandbox.

Bots report what they saw on stdout (read once they have ended) or, when they never end
by themselves, on the referee's unix socket that the sandbox hands in: the tests wait on
events (a process's exit, a line on the socket), never on a sleep.
"""

from __future__ import annotations

import errno
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Mapping
from concurrent import futures
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest

import arena
from arena.errors import Invalid, Unavailable
from arena.hosted import confine
from arena.hosted import sandbox as sandboxes
from arena.hosted.bwrap import NODE, RUNTIMES
from arena.hosted.sandbox import Limits, Sandbox, unavailable
from arena.hosted.zygote import Spawn, Zygote

WHY_NOT = unavailable()
needs_sandbox = pytest.mark.skipif(WHY_NOT is not None, reason=f"no sandbox here: {WHY_NOT}")
WAIT_S = 30.0  # for an event that comes in well under a second; only a failure waits it out
MiB = 1 << 20
REPORT = """\
import json, socket

def report(**fields):
    '''Tell the test on the referee's socket; the connection stays open.'''
    link = socket.socket(socket.AF_UNIX)
    link.connect("/run/arena/referee.sock")
    link.sendall((json.dumps(fields) + "\\n").encode())
    return link
"""


class Referee:
    """The arena's end of the unix socket handed into the sandbox, in a folder only the
    arena may enter; the socket itself is open to the bot's uid."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(mode=0o700)
        self.path = folder / "referee.sock"
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(self.path))
        self.path.chmod(0o666)
        self.server.listen()
        self.server.settimeout(WAIT_S)

    def accept(self) -> socket.socket:
        connection, _ = self.server.accept()
        connection.settimeout(WAIT_S)
        return connection

    def report(self) -> dict[str, Any]:
        """The next bot's first report."""
        with self.accept() as connection:
            return dict(json.loads(connection.makefile().readline()))


ZYGOTE: list[Zygote | None] = [None]  # the zygote of the test that runs, if it has one


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    if WHY_NOT is not None or os.geteuid() != 0:
        pytest.skip("only root forks hosted bots from a zygote")
    started = Zygote()
    yield started
    started.close()


@pytest.fixture(autouse=True, params=["own interpreter", "zygote"])
def start(request: pytest.FixtureRequest) -> Iterator[str]:
    """How the test's python bots start (arena/hosted/zygote.py)."""
    ZYGOTE[0] = request.getfixturevalue("zygote") if request.param == "zygote" else None
    yield request.param
    ZYGOTE[0] = None


def extra() -> int:
    """The sandbox's processes that are not the bot's, bwrap's pid 1 aside: the zygote's
    child and the holder, when a zygote forks the bot."""
    return 2 if ZYGOTE[0] is not None else 0


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    referee = Referee(tmp_path / "run")
    yield referee
    referee.server.close()


def bot(folder: Path, files: Mapping[str, str]) -> Path:
    """A bot's folder as the arena keeps one: open to all to read, scripts runnable."""
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text))
        (folder / name).chmod(0o755 if text.startswith("#!") else 0o644)
    return folder


def python_bot(tmp_path: Path, source: str, *, name: str = "bot") -> Path:
    return bot(tmp_path / name, {"bot.py": REPORT + textwrap.dedent(source)})


def sandbox(
    code: Path,
    runtime: str = "python",
    entry: str = "bot.py",
    *,
    limits: Limits = sandboxes.DEFAULT_LIMITS,
    env: Mapping[str, str] | None = None,
    socket: Path | None = None,
) -> Sandbox:
    log = code.parent / f"{code.name}.log"
    return Sandbox(
        code, runtime, entry, env=env or {}, socket=socket, log=log, limits=limits,
        zygote=ZYGOTE[0],
    )  # fmt: skip


def finish(box: Sandbox) -> tuple[int, str]:
    """Run the bot to its end: its status and its log."""
    with box:
        status = box.wait(WAIT_S)
    assert status is not None, f"the bot did not end: {box.log_text()}"
    return status, box.log_text()


def last_json(log: str) -> Any:
    return json.loads(log.strip().splitlines()[-1])


def started(pid: int) -> str | None:
    """A process's start time (stable for its life, another for the pid's next owner)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def without_cgroups(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The sandboxes of this test get no cgroup: the rlimits alone must hold."""
    monkeypatch.setattr(confine, "CGROUPS", tmp_path / "no-cgroups")


CGROUPS_WRITABLE = all(os.access(confine.CGROUPS / c, os.W_OK) for c in ("pids", "memory"))
needs_cgroups = pytest.mark.skipif(
    not CGROUPS_WRITABLE, reason="the cgroup v1 pids and memory hierarchies are not writable"
)


@needs_sandbox
@pytest.mark.hostile
def test_the_bot_reads_nothing_of_the_host(tmp_path: Path) -> None:
    home = tmp_path / "home"  # ARENA_HOME
    home.mkdir()
    (home / "admin-token").write_text("the organizer's token\n")
    (tmp_path / "pgdata").mkdir()
    (tmp_path / "pgdata" / "PG_VERSION").write_text("16\n")
    other = python_bot(tmp_path, "print('the other bot')", name="other")
    repository = Path(arena.__file__).resolve().parent.parent
    secrets = [
        "/etc/shadow", "/etc/passwd", "/root/.bash_history", home / "admin-token",
        tmp_path / "pgdata" / "PG_VERSION", other / "bot.py", repository / "README.md",
        Path(__file__), f"/proc/{os.getpid()}/environ",
    ]  # fmt: skip
    code = python_bot(
        tmp_path,
        """
        import os, sys
        seen = {}
        for path in sys.argv[1:]:
            try:
                seen[path] = open(path).read()
            except OSError as e:
                seen[path] = type(e).__name__
        print(json.dumps({"seen": seen, "root": os.listdir("/"), "etc": os.listdir("/etc"),
                          "processes": [p for p in os.listdir("/proc") if p.isdigit()]}))
        """,
    )
    status, log = finish(sandbox(code, entry=f"bot.py {' '.join(map(str, secrets))}"))
    assert status == 0, log
    report = last_json(log)
    for path, outcome in report["seen"].items():
        assert outcome in {"FileNotFoundError", "PermissionError"}, f"{path} was read"
    runtime = {Path(p).parts[1] for p in (sys.prefix, sys.base_prefix, repository)}
    system = {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "proc", "dev"}
    assert set(report["root"]) <= system | runtime | {"tmp", "bot"}
    assert report["etc"] == ["ld.so.cache"]
    # bwrap's pid 1 and the bot (and the holder, with a zygote): nothing of the host's
    assert len(report["processes"]) == 2 + (ZYGOTE[0] is not None)


@needs_sandbox
@pytest.mark.hostile
def test_no_network_but_the_referee_socket(tmp_path: Path, referee: Referee) -> None:
    port = socket.socket()  # the referee's TCP port, say
    port.bind(("127.0.0.1", 0))
    port.listen()
    port.setblocking(False)
    abstract = socket.socket(socket.AF_UNIX)  # bound to the host's network namespace
    abstract_name = f"\0truco-arena-test-{os.getpid()}"
    abstract.bind(abstract_name)
    abstract.listen()
    abstract.setblocking(False)
    targets = [
        ("127.0.0.1", 5432), ("127.0.0.1", 6379), ("127.0.0.1", port.getsockname()[1]),
        ("::1", 5432), ("1.1.1.1", 53), ("10.0.0.1", 80), ("192.168.1.1", 443),
        abstract_name,
    ]  # fmt: skip
    code = python_bot(
        tmp_path,
        """
        import socket, sys
        outcomes = {}
        for target in json.loads(sys.argv[1]):
            if isinstance(target, str):
                family, target = socket.AF_UNIX, target
            else:
                family = socket.AF_INET6 if ":" in target[0] else socket.AF_INET
                target = tuple(target)
            try:
                socket.socket(family).connect(target)
                outcomes[str(target)] = "connected"
            except OSError as e:
                outcomes[str(target)] = e.errno
        link = report(hello="from the sandbox")
        answer = link.makefile().readline().strip()
        print(json.dumps({"outcomes": outcomes, "answer": answer,
                          "interfaces": [name for _, name in socket.if_nameindex()]}))
        """,
    )
    with sandbox(code, entry=f"bot.py '{json.dumps(targets)}'", socket=referee.path) as box:
        with referee.accept() as connection:
            assert json.loads(connection.makefile().readline()) == {"hello": "from the sandbox"}
            connection.sendall(b"welcome\n")
        status = box.wait(WAIT_S)
    assert status == 0, box.log_text()
    report = last_json(box.log_text())
    assert report["answer"] == "welcome"
    refused = {errno.ECONNREFUSED, errno.ENETUNREACH, errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT}
    assert set(report["outcomes"].values()) <= refused, report["outcomes"]
    assert report["interfaces"] == ["lo"]
    for listener in (port, abstract):
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody came
        listener.close()


@needs_sandbox
@pytest.mark.hostile
@pytest.mark.parametrize("held_by", ["rlimits", pytest.param("cgroups", marks=needs_cgroups)])
def test_a_fork_bomb_is_held_and_stop_leaves_nothing(
    tmp_path: Path, referee: Referee, monkeypatch: pytest.MonkeyPatch, held_by: str
) -> None:
    if held_by == "rlimits":
        without_cgroups(monkeypatch, tmp_path)
    code = python_bot(
        tmp_path,
        """
        import os, signal
        first = os.getpid()
        while True:
            try:
                os.fork()  # parent and child both fork on
            except OSError as e:
                if os.getpid() == first:
                    link = report(errno=e.errno)
                break
        signal.pause()
        """,
    )
    limits = Limits(processes=16)
    with sandbox(code, limits=limits, socket=referee.path) as box:
        assert referee.report() == {"errno": errno.EAGAIN}
        bomb = {pid: started(pid) for pid in box.pids()}
        assert limits.processes // 2 < len(bomb) - extra() <= limits.processes
        placed = Path(f"/proc/{next(iter(bomb))}/cgroup").read_text()
        assert ("truco-arena" in placed) == (held_by == "cgroups")
        neighbour = python_bot(
            tmp_path, "import os\nif os.fork() == 0: os._exit(0)\nos.wait()", name="neighbour"
        )
        assert finish(sandbox(neighbour, limits=limits)) == (0, "")  # its own count
        stopped_at = time.monotonic()
    assert box.stop() == 128 + signal.SIGKILL
    assert time.monotonic() - stopped_at < sandboxes.KILL_WAIT_S
    assert box.pids() == []
    assert [pid for pid, start in bomb.items() if started(pid) == start] == []


@needs_sandbox
@pytest.mark.hostile
def test_endless_allocation_meets_memory_error(tmp_path: Path) -> None:
    code = python_bot(
        tmp_path,
        """
        chunks = []
        try:
            while True:
                chunks.append(bytearray(8 << 20))
        except MemoryError:
            print(json.dumps({"allocated": 8 * len(chunks)}))
        """,
    )
    status, log = finish(sandbox(code, limits=Limits(memory_bytes=256 * MiB)))
    assert status == 0, log
    assert 64 < last_json(log)["allocated"] < 256


@needs_sandbox
@needs_cgroups
@pytest.mark.hostile
def test_the_memory_cgroup_holds_the_whole_sandbox(tmp_path: Path) -> None:
    """RLIMIT_AS holds each process only: four children of 150 MiB each pass it, but not
    the cgroup of the whole sandbox (256 MiB plus its /tmp): no two hold theirs at once."""
    code = python_bot(
        tmp_path,
        """
        import os, signal
        children = {}
        for _ in range(4):
            done, tell = os.pipe()
            pid = os.fork()
            if pid == 0:
                held = bytearray(b"x") * (150 << 20)  # written: resident, not only mapped
                os.write(tell, b"held")
                signal.pause()
            os.close(tell)
            children[pid] = done
        # each child says it holds its memory or dies (its pipe then ends), though one
        # that held may meet the OOM killer later: SIGTERM tells the survivors at the end
        held = [pid for pid, done in children.items() if os.read(done, 4) == b"held"]
        for pid in held:
            os.kill(pid, signal.SIGTERM)
        ends = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
        print(json.dumps(ends))
        """,
    )
    status, log = finish(sandbox(code, limits=Limits(memory_bytes=256 * MiB)))
    assert status == 0, log
    ends = last_json(log)
    assert ends.count(-signal.SIGTERM) <= 1  # never two at once: the others met the OOM killer
    assert ends.count(-signal.SIGKILL) == 4 - ends.count(-signal.SIGTERM)


@needs_sandbox
@needs_cgroups
@pytest.mark.hostile
def test_a_bot_the_memory_cgroup_kills_has_its_log_say_so(tmp_path: Path) -> None:
    """The bot's own process holds 200 MiB, its child then takes 120: together past the
    cgroup's 288 MiB (256 and its /tmp), and the kernel kills the larger, the bot."""
    code = python_bot(
        tmp_path,
        """
        import os, signal
        held = bytearray(b"x") * (200 << 20)
        if os.fork() == 0:
            del held  # its copy, under its own RLIMIT_AS
            more = bytearray(b"x") * (120 << 20)
            signal.pause()
        os.wait()
        """,
    )
    status, log = finish(sandbox(code, limits=Limits(memory_bytes=256 * MiB)))
    assert status == 128 + signal.SIGKILL, log
    assert log.endswith(
        "\n[sandbox: killed by the kernel (SIGKILL): out of memory, past the sandbox's 288 MiB]\n"
    ), log


@needs_sandbox
@pytest.mark.hostile
def test_the_disk_holds_tmp_full_and_the_code_read_only(tmp_path: Path) -> None:
    marker = f"sandbox-fill-{os.getpid()}"
    code = python_bot(
        tmp_path,
        """
        import os, sys
        def fill(path):
            written = 0
            with open(path, "wb", buffering=0) as f:
                try:
                    while True:
                        written += f.write(b"x" * 65536)
                except OSError as e:
                    return written, e.errno
        files = [fill(f"/tmp/{sys.argv[1]}-{i}") for i in range(8)]
        refused = {}
        attempts = {
            "append own code": lambda: open("/bot/bot.py", "a"),
            "new file in code": lambda: open("/bot/new.py", "w"),
            "remove own code": lambda: os.unlink("/bot/bot.py"),
            "chmod own code": lambda: os.chmod("/bot/bot.py", 0o777),
            "root": lambda: open("/x", "w"),
            "usr": lambda: open("/usr/x", "w"),
            "dev": lambda: open("/dev/x", "w"),
            "dev/shm": lambda: open("/dev/shm/x", "w"),
            "run": lambda: open("/run/arena/x", "w"),
        }
        for name, attempt in attempts.items():
            try:
                attempt()
                refused[name] = None
            except OSError as e:
                refused[name] = e.errno
        print(json.dumps({"files": files, "refused": refused}))
        """,
    )
    before = {p.name: p.read_bytes() for p in code.iterdir()}
    limits = Limits(tmp_bytes=4 * MiB, file_bytes=1 * MiB)
    status, log = finish(sandbox(code, entry=f"bot.py {marker}", limits=limits))
    assert status == 0, log
    report = last_json(log)
    sizes = [size for size, _ in report["files"]]
    assert report["files"][0] == [MiB, errno.EFBIG]  # RLIMIT_FSIZE
    assert report["files"][-1][1] == errno.ENOSPC  # the tmpfs is full
    assert sum(sizes) <= limits.tmp_bytes
    assert None not in report["refused"].values(), report["refused"]
    assert {p.name: p.read_bytes() for p in code.iterdir()} == before
    assert not any(p.name.startswith(marker) for p in Path("/tmp").iterdir())


@needs_sandbox
@pytest.mark.hostile
def test_cpu_time_runs_out(tmp_path: Path) -> None:
    spin = python_bot(tmp_path, "while True: pass", name="spin")
    status, log = finish(sandbox(spin, limits=Limits(cpu_s=1)))
    assert status == 128 + signal.SIGXCPU
    assert log.endswith("\n[sandbox: ended by SIGXCPU: its CPU time passed 1 s]\n"), log
    stubborn = python_bot(
        tmp_path,
        """
        import signal
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        while True: pass
        """,
        name="stubborn",
    )
    status, log = finish(sandbox(stubborn, limits=Limits(cpu_s=1)))
    assert status == 128 + signal.SIGKILL  # the hard limit, a second later
    assert log.endswith("\n[sandbox: ended by SIGKILL]\n"), log


@needs_sandbox
@pytest.mark.hostile
def test_stop_ends_a_spinning_bot_at_once(tmp_path: Path, referee: Referee) -> None:
    code = python_bot(tmp_path, "link = report(spinning=True)\nwhile True: pass")
    box = sandbox(code, socket=referee.path)
    with box:
        assert referee.report() == {"spinning": True}
        assert box.wait(0) is None
        stopped_at = time.monotonic()
    assert time.monotonic() - stopped_at < sandboxes.KILL_WAIT_S
    assert box.stop() == box.stop() == 128 + signal.SIGKILL
    assert box.pids() == []
    assert box.log_text().endswith("\n[sandbox: killed: stopped by its host]\n")


@needs_sandbox
@pytest.mark.hostile
def test_a_bots_orphans_end_with_it(tmp_path: Path, referee: Referee) -> None:
    code = python_bot(
        tmp_path,
        """
        import os, signal
        if os.fork() == 0:
            os.setsid()  # a daemon: a session of its own, its parent gone
            if os.fork() == 0:
                link = report(role="orphan")
                signal.pause()
            os._exit(0)
        link = report(role="main")
        link.makefile().readline()  # until the test lets it end
        """,
    )
    with sandbox(code, socket=referee.path) as box:
        links = {}
        for _ in range(2):
            connection = referee.accept()
            links[json.loads(connection.makefile().readline())["role"]] = connection
        links["main"].sendall(b"end\n")
        assert box.wait(WAIT_S) == 0
        assert links["orphan"].recv(1) == b""  # its only holder is gone
    for connection in links.values():
        connection.close()


@needs_sandbox
@pytest.mark.hostile
def test_a_flood_of_output_is_capped_and_never_blocks(tmp_path: Path) -> None:
    code = python_bot(
        tmp_path,
        """
        import sys
        chunk = b"x" * (1 << 20)
        for _ in range(1024):
            sys.stdout.buffer.write(chunk)
        """,
    )
    box = sandbox(code, limits=Limits(log_bytes=64 * 1024))
    status, log = finish(box)
    assert status == 0, log[-500:]
    assert box.log.stat().st_size <= 64 * 1024 + 200
    assert log.startswith("x" * 1000)
    assert log.rstrip().endswith(
        f"[sandbox: {1024 * MiB - 64 * 1024} more bytes dropped; the log keeps 65536 bytes]"
    )


@needs_sandbox
def test_the_environment_holds_only_what_was_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", "postgresql://organizer:secret@db/arena")
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", "the organizer's token")
    passed = {"ARENA_ADDRESS": "unix:/run/arena/referee.sock", "ARENA_TOKEN": "bot-token"}
    code = python_bot(tmp_path, "import os\nprint(json.dumps(dict(os.environ)))")
    status, log = finish(sandbox(code, env=passed))
    assert status == 0, log
    neutral = {"PATH", "HOME", "LANG", "MALLOC_ARENA_MAX", "PWD", "PYTHONPATH"}  # PWD: bwrap's
    assert last_json(log) == passed | {k: v for k, v in last_json(log).items() if k in neutral}
    assert set(last_json(log)) == set(passed) | neutral
    assert last_json(log)["HOME"] == "/tmp"
    shell = bot(tmp_path / "shell", {"env.sh": "#!/bin/sh\nexec /usr/bin/env\n"})
    status, log = finish(sandbox(shell, "exec", "env.sh", env=passed))
    assert status == 0, log
    assert {line.split("=", 1)[0] for line in log.split()} == set(passed) | neutral - {"PYTHONPATH"}


@needs_sandbox
def test_python_bots_speak_grpc_to_the_referee_with_the_sdk(tmp_path: Path) -> None:
    """Under the default limits: a gRPC client's threads reserve much address space."""
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    path = folder / "referee.sock"
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    server.add_insecure_port(f"unix:{path}")
    server.start()
    path.chmod(0o666)
    code = python_bot(
        tmp_path,
        """
        import grpc
        import arena.sdk
        channel = grpc.insecure_channel("unix:/run/arena/referee.sock")
        grpc.channel_ready_future(channel).result(timeout=20)
        print(json.dumps(arena.sdk.__file__))
        """,
    )
    try:
        status, log = finish(sandbox(code, socket=path))
    finally:
        server.stop(None)
    assert status == 0, log
    assert last_json(log) == str(Path(arena.__file__).resolve().parent / "sdk.py")


@needs_sandbox
@pytest.mark.skipif(not os.access(NODE, os.X_OK), reason="no /usr/bin/node")
def test_a_node_bot_runs_and_reaches_the_referee(tmp_path: Path, referee: Referee) -> None:
    code = bot(
        tmp_path / "bot",
        {
            "index.js": """
            const net = require("net");
            const link = net.createConnection("/run/arena/referee.sock", () => {
                link.write(JSON.stringify({node: process.version}) + "\\n");
            });
            link.on("data", (answer) => { console.log("got " + answer); link.end(); });
            """
        },
    )
    with sandbox(code, "node", "index.js", socket=referee.path) as box:
        with referee.accept() as connection:
            assert "node" in json.loads(connection.makefile().readline())
            connection.sendall(b"welcome\n")
        status = box.wait(WAIT_S)
    assert status == 0, box.log_text()
    assert "got welcome" in box.log_text()


@needs_sandbox
def test_an_exec_bot_runs_its_own_program(tmp_path: Path) -> None:
    code = bot(tmp_path / "bot", {"bot.sh": '#!/bin/sh\necho "sh $1 $(pwd)"\nexit 3\n'})
    status, log = finish(sandbox(code, "exec", "./bot.sh hello"))
    assert (status, log) == (3, "sh hello /bot\n")


@needs_sandbox
@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc to compile a bot")
def test_an_exec_bot_may_be_compiled(tmp_path: Path) -> None:
    code = bot(tmp_path / "bot", {"bot.c": '#include <stdio.h>\nint main(void) { puts("c"); }'})
    subprocess.run(["gcc", "-o", str(code / "bot"), str(code / "bot.c")], check=True)
    status, log = finish(sandbox(code, "exec", "./bot"))
    assert (status, log) == (0, "c\n")


@needs_sandbox
def test_the_sandbox_dies_with_the_arena(tmp_path: Path, referee: Referee, start: str) -> None:
    code = python_bot(tmp_path, "import signal\nlink = report(up=True)\nsignal.pause()")
    arena_process = textwrap.dedent(
        f"""
        import json, signal, sys
        from pathlib import Path
        from arena.hosted.sandbox import Sandbox
        from arena.hosted.zygote import Spawn, Zygote
        zygote = Zygote() if {start == "zygote"} else None
        box = Sandbox(Path({str(code)!r}), "python", "bot.py", env={{}},
                      socket=Path({str(referee.path)!r}), log=Path({str(tmp_path / "log")!r}),
                      zygote=zygote)
        box.start()
        sys.stdin.readline()  # the bot is up
        print(json.dumps(box.pids()), flush=True)
        signal.pause()
        """
    )
    where = [str(Path(arena.__file__).resolve().parent.parent), os.environ.get("PYTHONPATH", "")]
    env = os.environ | {"PYTHONPATH": os.pathsep.join(where)}
    with subprocess.Popen(
        [sys.executable, "-c", arena_process],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        assert referee.report() == {"up": True}
        process.stdin.write("\n")
        process.stdin.flush()
        pidfds = [os.pidfd_open(pid) for pid in json.loads(process.stdout.readline())]
        process.kill()
    try:
        assert pidfds
        for fd in pidfds:  # readable once the process has ended
            assert select.select([fd], [], [], WAIT_S)[0] == [fd]
    finally:
        for fd in pidfds:
            os.close(fd)


@needs_sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="only root gives each sandbox a uid of its own")
def test_the_socket_must_be_open_to_the_bot(tmp_path: Path, referee: Referee) -> None:
    referee.path.chmod(0o600)
    code = python_bot(tmp_path, "link = report()")
    with pytest.raises(Invalid, match="0666"):
        sandbox(code, socket=referee.path).start()


def test_entries_runtimes_and_limits_are_checked(tmp_path: Path) -> None:
    code = bot(tmp_path / "bot", {"bot.py": ""})
    for entry in ["", "/etc/passwd", "../bot/bot.py", "missing.py", "bot.py 'open", "."]:
        with pytest.raises(Invalid):
            sandbox(code, entry=entry)
    with pytest.raises(Invalid, match="ruby"):
        sandbox(code, "ruby")
    assert RUNTIMES == ("python", "node", "exec")
    with pytest.raises(Invalid, match="processes"):
        Limits(processes=0)


def test_without_bwrap_hosted_bots_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = bot(tmp_path / "bot", {"bot.py": "print('ran')"})
    missing = tmp_path / "no-bwrap"
    monkeypatch.setattr(sandboxes, "BWRAP", str(missing))
    assert unavailable() == f"{missing} is missing (install the bubblewrap package)"
    box = sandbox(code)
    with pytest.raises(Unavailable, match="bubblewrap"):
        box.start()
    assert box.stop() is None
    assert not box.log.exists()
    failing = bot(tmp_path / "fake", {"bwrap": "#!/bin/sh\necho 'no namespaces here' >&2\n"})
    monkeypatch.setattr(sandboxes, "BWRAP", str(failing / "bwrap"))
    reason = unavailable()
    assert reason is not None and "no namespaces here" in reason
    with pytest.raises(Unavailable, match="no namespaces here"):
        sandbox(code).start()


@needs_sandbox
def test_a_zygote_child_enters_only_the_sandbox_bwrap_made(tmp_path: Path, start: str) -> None:
    """A child told to enter namespaces other than those bwrap said it made (the sandbox's
    pid 1 gone and its pid another process's) refuses, and the bot never runs."""
    if start != "zygote":
        pytest.skip("the zygote's own check")

    class Elsewhere(Zygote):
        def spawn(self, spawn: Spawn, **fds: int) -> int:
            return super().spawn(replace(spawn, namespaces=spawn.namespaces | {"pid": 1}), **fds)

    zygote = Elsewhere()
    try:
        code = python_bot(tmp_path, "print('ran')")
        box = Sandbox(code, "python", "bot.py", env={}, socket=None, log=tmp_path / "log",
                      zygote=zygote)  # fmt: skip
        status, log = finish(box)
    finally:
        zygote.close()
    assert status == 127, log
    assert "is no longer the sandbox's" in log and "ran" not in log, log

"""The unpacked versions' folders a machine's workers share (arena/hosted/folders.py): a
folder someone holds is never removed, by a thread or another process; the others go
when they are not wanted, and past the bound the least recently used go first."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from arena.hosted.folders import Folders

FILES = {f"f{k}": bytes([k]) * 1000 for k in range(20)}


def name(k: int) -> str:
    return f"{k:064x}"


def fill(into: Path) -> None:
    """A folder of FILES, written slowly enough for a removal to fall in the middle."""
    into.mkdir()
    for path, data in FILES.items():
        (into / path).write_bytes(data)


def whole(folder: Path) -> bool:
    return all((folder / p).read_bytes() == d for p, d in FILES.items())


HOLDER = """
import sys
from pathlib import Path
from arena.hosted.folders import Folders
from tests.hosted.test_folders import fill
lease = Folders(Path(sys.argv[1])).lease(sys.argv[2], fill)
print("held", flush=True)
sys.stdin.read()  # until the test closes it
lease.release()
print("released", flush=True)
"""


def test_a_folder_another_process_holds_is_never_removed(tmp_path: Path) -> None:
    folders = Folders(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path), name(1)], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2],
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline() == "held\n"
        assert folders.prune(lambda names: [], 0) == []  # wanted by no one, but held
        assert whole(tmp_path / name(1))
        holder.stdin.close()
        assert holder.stdout.readline() == "released\n"
    finally:
        holder.kill()
        holder.wait()
    assert folders.prune(lambda names: [], 0) == [name(1)]
    assert os.listdir(tmp_path) == []  # the folder, its lock file, nothing left


PRUNER = """
import select, sys
from pathlib import Path
from arena.hosted.folders import Folders
folders = Folders(Path(sys.argv[1]))
print("ready", flush=True)
removed = 0
while not select.select([sys.stdin], [], [], 0)[0]:  # until the test closes its stdin
    removed += len(folders.prune(lambda names: [], 0))
print(removed)
"""


def test_folders_held_stay_whole_while_threads_and_a_process_remove_them(tmp_path: Path) -> None:
    """Threads take and give back leases on three folders, checking each is whole while
    they hold it, while another process removes every folder it can, over and over."""
    folders = Folders(tmp_path)
    broken: list[str] = []
    fills = [0]

    def counted(into: Path) -> None:
        fills[0] += 1
        fill(into)

    def use(k: int) -> None:
        for _ in range(150):
            lease = folders.lease(name(k % 3), counted)
            try:
                if not whole(lease.path) or not whole(lease.path):
                    broken.append(lease.path.name)
            finally:
                lease.release()

    pruner = subprocess.Popen(
        [sys.executable, "-c", PRUNER, str(tmp_path)], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2],
    )  # fmt: skip
    try:
        assert pruner.stdout is not None and pruner.stdin is not None
        assert pruner.stdout.readline() == "ready\n"
        threads = [threading.Thread(target=use, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        pruner.stdin.close()
        removals = int(pruner.stdout.read())
        assert pruner.wait(timeout=60) == 0
    finally:
        pruner.kill()
        pruner.wait()
    assert broken == []
    assert fills[0] >= 3  # each folder unpacked at least once (again after each removal)
    assert removals > 0  # the removals fell among the leases
    print(f"unpacked {fills[0]} times, removed {removals} times")


def test_past_the_bound_the_least_recently_used_go_and_the_unwanted_at_once(
    tmp_path: Path,
) -> None:
    folders = Folders(tmp_path)
    for k in range(5):
        folders.lease(name(k), fill).release()
        os.utime(tmp_path / name(k), (1000 + k, 1000 + k))  # name(0) the least recently used
    (tmp_path / f".unpacking-{name(9)}-x").mkdir()  # what a crash left
    wanted = [name(k) for k in range(4)]  # name(4) is not: it goes whatever its use
    removed = folders.prune(lambda names: [n for n in names if n in wanted], 2)
    assert removed == [name(4), name(0), name(1)]
    assert sorted(os.listdir(tmp_path)) == sorted(
        [name(2), name(3), f"{name(2)}.lock", f"{name(3)}.lock"]
    )
    lease = folders.lease(name(0), fill)  # asked for again: unpacked again
    assert whole(lease.path)
    lease.release()

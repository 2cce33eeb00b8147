"""Hosted bots from the command line: ``bot submit``, ``bot versions`` and ``bot
activate`` (docs/hosting.md)."""

from __future__ import annotations

import argparse
import io
import os
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from arena.cli.client import Arena
from arena.cli.common import console, print_json, table_of
from arena.proto.truco.v1 import arena_pb2 as api

CHUNK = 32 * 1024  # bytes a message: under the server's limit on any message (64 KiB)
RUNTIME_OF = {".py": "python", ".js": "node", ".mjs": "node", ".cjs": "node"}
ENTRIES = ("bot.py", "index.js")  # what --entry defaults to, the first found
SUBMIT_TIMEOUT_S = 600


ARCHIVES = (".tar.gz", ".tgz", ".tar", ".zip")


def packed(path: Path) -> bytes:
    """A folder, or one file of code, as a tar.gz (owners and times dropped: they are not
    part of a version; links followed, so a link to a file outside the folder brings the
    file); an archive as it is."""
    if path.is_file() and path.name.endswith(ARCHIVES):
        return path.read_bytes()

    def plain(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        return info

    out = io.BytesIO()
    try:
        with tarfile.open(fileobj=out, mode="w:gz", dereference=True) as t:
            for child in sorted(path.iterdir()) if path.is_dir() else [path]:
                t.add(child, arcname=child.name, filter=plain)
    except OSError as e:
        raise SystemExit(f"arena: cannot pack {path.resolve()}: {unreadable(e)}") from None
    return out.getvalue()


def unreadable(e: OSError) -> str:
    """Why a file could not be packed, and what to do: a link that leads nowhere (a
    folder copied away from the files its links name) says where it leads."""
    name = os.fsdecode(e.filename) if e.filename is not None else "a file"
    if os.path.islink(name) and not os.path.exists(name):
        return (
            f"{name} is a link to {os.readlink(name)}, which does not exist from here: "
            "copy the file itself in place of the link, or remove the link"
        )
    return f"{name}: {e.strerror}"


def manifest(args: argparse.Namespace, path: Path) -> tuple[str, str]:
    """The runtime and entry: as given, else guessed from the folder and the entry's
    extension (SystemExit saying what to give when there is no guessing)."""
    entry = args.entry
    if entry is None and path.is_file() and not path.name.endswith(ARCHIVES):
        entry = path.name  # one file of code: it is the entry
    if entry is None:
        found = [e for e in ENTRIES if path.is_dir() and (path / e).is_file()]
        if not found:
            raise SystemExit(
                f"arena: give --entry: {path} has none of {', '.join(ENTRIES)} to start"
            )
        entry = found[0]
    runtime = args.runtime or RUNTIME_OF.get(Path(entry.split()[0]).suffix, "exec")
    return runtime, entry


def cmd_bot_submit(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    path = Path(args.path)
    if not path.exists():
        raise SystemExit(f"arena: no file or folder {path}")
    runtime, entry = manifest(args, path)
    data = packed(path)
    first = api.BotManifest(
        bot=args.name, runtime=runtime, entry=entry, size=len(data), candidate=args.candidate
    )
    token = args.token or os.environ.get("ARENA_TOKEN") or None
    out = console()
    progress = Progress(
        TextColumn("uploading"), BarColumn(), DownloadColumn(), console=out, transient=True,
        disable=not out.is_terminal,
    )  # fmt: skip

    def parts() -> Iterator[api.SubmitBotRequest]:
        yield api.SubmitBotRequest(manifest=first)
        for at in range(0, len(data), CHUNK):
            yield api.SubmitBotRequest(chunk=data[at : at + CHUNK])
            progress.update(task, completed=min(at + CHUNK, len(data)))

    arena = Arena.from_env()
    with progress:
        task = progress.add_task("upload", total=len(data))
        reply = arena.call(
            "SubmitBot", parts(), organizer=token is None, token=token, timeout=SUBMIT_TIMEOUT_S
        )
    v = reply.version
    if reply.new:
        files = f"{v.files} file{'s' if v.files != 1 else ''}"
        print(f"{v.name}: submitted ({runtime}, {entry}; {files}, {v.unpacked:,} bytes)")
    else:
        print(f"{v.name}: these files were submitted before: they are {v.name} ({reply.found})")
    if v.status == "checking" and not args.no_wait:
        v = checked(arena, v, args.wait_s)
    print(status_line(v))
    return submit_exit(v.status, args.candidate, args.no_wait)


SUBMIT_EXIT = {"done": 0, "not done": 1, "still checking": 3}  # docs/hosting.md, "Versions"


def submit_exit(status: str, candidate: bool, no_wait: bool) -> int:
    """``arena bot submit``'s exit status from the version's status at the end: 0 when
    what was asked holds (active; with ``candidate``, checked and not rejected; with
    ``no_wait``, stored), 3 while its check has not ended, else 1 (rejected; or not
    made active where that was asked)."""
    if status == "checking":
        return SUBMIT_EXIT["done" if no_wait else "still checking"]
    done = status != "rejected" if candidate else status == "active"
    return SUBMIT_EXIT["done" if done else "not done"]


def status_line(v: api.BotVersion) -> str:
    """A version's status as the CLI ends on it, saying what to do where there is one."""
    if v.status == "rejected":
        return f"{v.name}: rejected: {v.reason}"
    if v.status in ("candidate", "retired"):
        return f"{v.name}: {v.status}, not active (arena bot activate {v.name} makes it active)"
    if v.status == "checking" and v.candidate:
        return f"{v.name}: checking, as a candidate (not to be active once checked)"
    return f"{v.name}: {v.status}"


def cmd_bot_activate(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("ARENA_TOKEN") or None
    request = api.ActivateVersionRequest(version=args.version)
    reply = Arena.from_env().call("ActivateVersion", request, organizer=token is None, token=token)
    if args.json:
        print_json(reply)
    else:
        retired = f" ({reply.retired} retired)" if reply.retired else ""
        print(f"{reply.version.name}: active{retired}")
    return 0


class Calls(Protocol):
    """A client of the Arena API: the CLI's, or the demo's organizer."""

    def call(self, method: str, request: Any) -> Any: ...


def checked(arena: Calls, version: api.BotVersion, wait_s: float) -> api.BotVersion:
    """The version once the workers' check is over (asked every half second), or as it
    is after ``wait_s``, saying so."""
    request = api.ListVersionsRequest(bot=version.bot)
    deadline = time.monotonic() + wait_s
    with console().status(f"{version.name}: checking (two matches against a house bot)"):
        while version.status == "checking" and time.monotonic() < deadline:
            time.sleep(0.5)  # polling the API: the check's progress lives in the database
            found = arena.call("ListVersions", request).versions
            version = next((v for v in found if v.name == version.name), version)
    if version.status == "checking":
        print(
            f"{version.name}: still checking after {wait_s:.0f} s (is `arena worker` running?)"
            f"; arena bot versions {version.bot} tells how it ends",
            file=sys.stderr,
        )
    return version


def cmd_bot_versions(args: argparse.Namespace) -> int:
    reply = Arena.from_env().call("ListVersions", api.ListVersionsRequest(bot=args.name))
    if args.json:
        print_json(reply)
        return 0
    if not reply.versions:
        print(f"{args.name} has no hosted versions (arena bot submit {args.name} PATH)")
        return 0
    table = table_of("version", "status", "runtime", "entry", "files", "bytes", "submitted", "hash")
    for v in reply.versions:
        status = v.status + (" (candidate)" if v.candidate and v.status == "checking" else "")
        status += f": {v.reason}" if v.reason else ""
        table.add_row(
            v.name, status, v.runtime, v.entry, str(v.files), f"{v.unpacked:,}",
            v.created_at[:19].replace("T", " "), v.hash[:12],
        )  # fmt: skip
    console().print(table)
    for v in reply.versions:  # each version's ratings, with their intervals
        for r in v.ratings:
            half = f" ± {r.half:.0f}" if r.HasField("half") else ""
            unsettled = " (unsettled)" if r.wide else ""
            print(f"{v.name} in {r.pool}: rating {r.elo:.0f}{half}{unsettled}, {r.games} games")
    return 0


def cmd_bot_logs(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("ARENA_TOKEN") or None
    request = api.GetBotLogsRequest(bot=args.name, match_id=args.match_id)
    reply = Arena.from_env().call("GetBotLogs", request, organizer=token is None, token=token)
    for entry in reply.logs:
        print(f"--- {entry.version} in {args.match_id} (exit status {entry.status})")
        print(entry.log, end="" if entry.log.endswith("\n") or not entry.log else "\n")
    return 0

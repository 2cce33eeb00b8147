"""``arena audit [--run ID] [--json]`` (organizer): whether anything was lost or counted
twice, as the Arena API's Audit finds from the database alone (docs/events.md, "The
audit"); the tally of what was looked at, each finding on a line, exit 1 on any."""

from __future__ import annotations

import argparse
from typing import Any

from arena.cli.client import Arena
from arena.cli.common import print_json
from arena.cli.reader import run_of
from arena.proto.truco.v1 import arena_pb2 as api


def cmd_audit(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    request = api.AuditRequest()
    if args.run_id is not None:
        request.run = run_of(arena, args.run_id)
    reply = arena.call("Audit", request, organizer=True, timeout=600)
    if args.json:
        print_json(reply)
    else:
        print_audit(reply)
    return 0 if reply.clean else 1


def _counts(counts: Any) -> str:
    return ", ".join(f"{k} {counts[k]}" for k in sorted(counts)) or "none"


def print_audit(reply: Any) -> None:
    """The tally, then the findings (or that there are none)."""
    what = f"run {reply.run}" if reply.HasField("run") else "the arena"
    print(f"audit of {what} at {reply.at}")
    print(f"matches: {_counts(reply.matches)} (voided {reply.voided}, replays {reply.replays})")
    print(f"runs: {_counts(reply.runs)}")
    print(f"ratings checked: {reply.ratings}; rating events checked: {reply.events}")
    checked = dict(reply.checked)
    fitted = checked.pop("fitted_pools", 0)
    print(f"kept counts compared with the history (rows): {_counts(checked)}")
    print(f"pools whose ratings were compared with a fit of their history: {fitted}")
    if reply.clean:
        print("clean: every finished match counted once, no rating change twice, none lost")
        return
    print(f"{len(reply.findings)} finding{'s' if len(reply.findings) != 1 else ''}:")
    for f in reply.findings:
        print(f"  {f.check}: {f.where}: {f.what}")

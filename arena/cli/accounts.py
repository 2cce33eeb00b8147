"""The organizers' own commands and the action log (docs/events.md): ``organizer
add|remove|list``, ``log``, and ``bot token`` (a bot's token rotated). Each carries an
organizer's token: ``ARENA_ORGANIZER_TOKEN`` (a named organizer's), else the first
organizer's."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.cli.client import Arena
from arena.cli.common import as_json, print_json
from arena.guard import new_token
from arena.proto.truco.v1 import arena_pb2 as api


def cmd_organizer_add(args: argparse.Namespace) -> int:
    request = api.AddOrganizerRequest(name=args.name)
    reply = Arena.from_env().call("AddOrganizer", request, organizer=True)
    print(
        f"added organizer {reply.organizer.name}; their token (shown only now, keep it; "
        "they set ARENA_ORGANIZER_TOKEN to it):"
    )
    print(reply.token)
    return 0


def cmd_new_token(args: argparse.Namespace) -> int:
    print(new_token())
    return 0


def cmd_organizer_remove(args: argparse.Namespace) -> int:
    request = api.RemoveOrganizerRequest(name=args.name)
    reply = Arena.from_env().call("RemoveOrganizer", request, organizer=True)
    print(f"removed organizer {reply.name}: their token is refused from now on")
    return 0


def cmd_organizer_list(args: argparse.Namespace) -> int:
    reply = Arena.from_env().call("ListOrganizers", api.ListOrganizersRequest(), organizer=True)
    if args.json:
        print_json(reply)
        return 0
    for o in as_json(reply)["organizers"]:
        if o["first"]:
            print(f"{o['name']}  the first (ARENA_ADMIN_TOKEN or ARENA_HOME's admin-token)")
        elif o["removed_at"]:
            print(f"{o['name']}  added {o['created_at'][:19]}, removed {o['removed_at'][:19]}")
        else:
            print(f"{o['name']}  added {o['created_at'][:19]}")
    return 0


def cmd_log(args: argparse.Namespace) -> int:
    request = api.ListActionsRequest(
        subject=args.subject or "", actor=args.actor or "", limit=args.limit
    )
    reply = Arena.from_env().call("ListActions", request, organizer=True)
    rows = [action_dict(a) for a in reply.actions]
    if args.json:  # the reply, each entry's detail (JSON text in the message) unfolded
        print_json({"actions": rows})
        return 0
    for a in reversed(rows):  # oldest first, as a log reads
        print(action_line(a))
    if not rows:
        print("no actions logged")
    return 0


def action_dict(a: Any) -> dict[str, Any]:
    """An entry of the log as plain values (:func:`as_json`), its detail a dict."""
    return as_json(a) | {"detail": json.loads(a.detail or "{}")}


def action_line(a: dict[str, Any]) -> str:
    """``2026-12-01 23:50:01  ana  register  alpha  owner=ze``."""
    detail = "  ".join(f"{k}={_value(v)}" for k, v in sorted(a["detail"].items()))
    at = a["at"][:19].replace("T", " ")
    return f"{at}  {a['actor']}  {a['action']}  {a['subject']}" + (f"  {detail}" if detail else "")


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))


def cmd_bot_token(args: argparse.Namespace) -> int:
    reply = Arena.from_env().call(
        "RotateToken", api.RotateTokenRequest(name=args.name), organizer=True
    )
    print(
        f"a new token for {reply.bot.name} (shown only now, keep it); the old one is refused "
        "from now on, and a session it opened has ended:"
    )
    print(reply.token)
    return 0

"""The organizer's commands (the organizer's token goes with each call): ``bot
register``, ``challenge``, ``tournament create|start``."""

from __future__ import annotations

import argparse
import sys
import time

from arena.cli.client import Arena
from arena.cli.common import clock_of
from arena.cli.events import definition_of
from arena.cli.reader import match_line, watch
from arena.proto.truco.v1 import arena_pb2 as api
from arena.wire_clock import clock_to_pb

NO_WORKER_S = 15  # `arena challenge --wait` says it is waiting for a worker after this


def cmd_bot_register(args: argparse.Namespace) -> int:
    request = api.RegisterBotRequest(name=args.name, owner=args.owner)
    reply = Arena.from_env().call("RegisterBot", request, organizer=True)
    print(f"registered {reply.bot.name}; its token (shown only now, keep it):")
    print(reply.token)
    return 0


def cmd_challenge(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    request = api.RequestMatchRequest(
        bots=args.bots, rules=args.rules, matches=args.games, clock=clock_to_pb(clock_of(args))
    )
    ids = list(arena.call("RequestMatch", request, organizer=True).match_ids)
    print("requested: " + " ".join(ids))
    if not args.wait:
        return 0
    pending, began, hinted = set(ids), time.monotonic(), False
    while pending:
        time.sleep(0.5)  # polling the server: nothing here to wait on but its answers
        statuses = set()
        for match_id in sorted(pending):
            summary = arena.call("GetMatch", api.GetMatchRequest(id=match_id)).match
            statuses.add(summary.status)
            if summary.status in ("finished", "failed"):
                pending.discard(match_id)
                print(match_line(summary))
        if statuses == {"scheduled"} and time.monotonic() - began > NO_WORKER_S and not hinted:
            hinted = True
            print(
                f"none of the matches has started after {NO_WORKER_S} s: the workers play "
                "them (is `arena worker` running on this arena's broker?)",
                file=sys.stderr,
            )
    return 0


def cmd_tournament_create(args: argparse.Namespace) -> int:
    request = api.CreateTournamentRequest(definition=definition_of(args))
    t = Arena.from_env().call("CreateTournament", request, organizer=True)
    when = f"; next run {t.next_firing}" if t.next_firing else ""
    unrated = "; unrated: its matches move no rating" if not t.definition.rated else ""
    print(f"created tournament {t.definition.name} (id {t.id}){when}{unrated}")
    return 0


def cmd_tournament_start(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    request = api.StartTournamentRequest(tournament=args.tournament, seed_from=args.seed_from or "")
    if args.top is not None:
        request.top = args.top
    run = arena.call("StartTournament", request, organizer=True)
    if run.status == "failed":
        print(f"run {run.id} of {run.tournament} cannot start: {run.error}", file=sys.stderr)
        return 1
    field = f": {len(run.seeds)} bots seeded {', '.join(run.seeds)}" if run.seeds else ""
    print(f"started run {run.id} of {run.tournament}{field}")
    if args.watch:
        return watch(arena, run.id)
    return 0

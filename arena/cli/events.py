"""The organizer's control of an event (docs/events.md): a tournament changed, unscheduled
or deleted; a run paused, resumed or cancelled, a match of it voided or played again; a
bot withdrawn, disqualified, reinstated or retired. Each is one call of the Arena API with
the organizer's token."""

from __future__ import annotations

import argparse
from typing import Any

from arena.cli.client import Arena
from arena.cli.common import clock_of
from arena.cli.reader import print_run, run_of
from arena.proto.truco.v1 import arena_pb2 as api
from arena.wire_clock import clock_from_pb, clock_to_pb


def definition_of(args: argparse.Namespace, base: Any = None) -> api.TournamentDefinition:
    """The definition the options give: all of them (``tournament create``), or those
    given on top of ``base`` (``tournament edit``, where the rest are absent)."""
    given = vars(args)
    d = api.TournamentDefinition()
    if base is not None:
        d.CopyFrom(base)
    else:
        d.name = args.name
    if given.get("bots") is not None:
        del d.bots[:]
        d.bots.extend(b for b in given["bots"].split(",") if b)
        d.pool = d.seed_from = ""
    if given.get("pool") is not None:
        del d.bots[:]
        d.pool, d.seed_from = given["pool"], ""
    if given.get("seed_from") is not None:
        del d.bots[:]
        d.pool, d.seed_from = "", given["seed_from"]
    if given.get("tiebreaks") is not None:
        d.tiebreaks[:] = given["tiebreaks"]
    for name in ("groups", "rounds", "top"):
        if given.get(name) is not None:
            setattr(d, name, given[name])
    if "rules" in given:
        d.rules = str(given["rules"])
    for name in ("format", "challenger", "absent", "schedule"):
        if name in given:
            setattr(d, name, given[name] or "")
    for name in ("matches", "duplicate", "trusted", "rated"):
        if name in given:
            setattr(d, name, given[name])
    if given.get("seed") is not None:
        d.seed = given["seed"]
    if given.get("entries_close_s") is not None:
        d.entries_close_s = given["entries_close_s"]
    if given.get("live_delay_s") is not None:
        d.live_delay_s = given["live_delay_s"]
    clock = clock_of(args, clock_from_pb(base.clock)) if base is not None else clock_of(args)
    d.clock.CopyFrom(clock_to_pb(clock))
    return d


def _tournament(arena: Arena, key: str) -> Any:
    """A tournament's current definition (as the organizer sees it), by name or id."""
    found = arena.call("ListTournaments", api.ListTournamentsRequest(), organizer=True)
    for t in found.tournaments:
        if key in (t.definition.name, str(t.id)):
            return t
    raise SystemExit(f"arena: no tournament {key!r}")


def cmd_tournament_edit(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    old = _tournament(arena, args.name)
    definition = definition_of(args, old.definition)
    request = api.EditTournamentRequest(tournament=str(old.id), definition=definition)
    t = arena.call("EditTournament", request, organizer=True)
    when = f"; next run {t.next_firing}" if t.next_firing else "; no schedule"
    print(f"changed tournament {t.definition.name} for its runs to come{when}")
    return 0


def cmd_tournament_unschedule(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    old = _tournament(arena, args.name)
    if not old.definition.schedule:
        print(f"tournament {old.definition.name} has no schedule")
        return 0
    definition = api.TournamentDefinition()
    definition.CopyFrom(old.definition)
    definition.schedule = ""
    request = api.EditTournamentRequest(tournament=str(old.id), definition=definition)
    arena.call("EditTournament", request, organizer=True)
    print(
        f"tournament {old.definition.name} unscheduled (it was '{old.definition.schedule}'): "
        "it runs when started by hand only"
    )
    return 0


def cmd_tournament_delete(args: argparse.Namespace) -> int:
    request = api.DeleteTournamentRequest(tournament=args.name)
    Arena.from_env().call("DeleteTournament", request, organizer=True)
    print(f"deleted tournament {args.name}; its runs and their records stay")
    return 0


def cmd_run_control(args: argparse.Namespace) -> int:
    method = {"pause": "PauseRun", "resume": "ResumeRun", "cancel": "CancelRun"}[args.action]
    arena = Arena.from_env()
    request = api.RunControlRequest(
        id=run_of(arena, args.run_id), reason=getattr(args, "reason", "")
    )
    run = arena.call(method, request, organizer=True)
    print_run(run)
    return 0


def cmd_run_void(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    request = api.RunMatchControlRequest(
        run=run_of(arena, args.run_id), match_id=args.match_id, reason=args.reason
    )
    run = arena.call("VoidMatch", request, organizer=True)
    print(f"voided match {args.match_id}: it counts for no table and no rating")
    print_run(run)
    return 0


def cmd_run_replay(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    request = api.RunMatchControlRequest(
        run=run_of(arena, args.run_id), match_id=args.match_id, reason=args.reason
    )
    reply = arena.call("ReplayMatch", request, organizer=True)
    print(f"match {args.match_id} is played again as {reply.match_id}")
    print_run(reply.run)
    return 0


STATED = {"withdrawn": "withdrawn", "disqualified": "disqualified", "active": "reinstated",
          "retired": "retired"}  # fmt: skip


def cmd_bot_state(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    run = run_of(arena, getattr(args, "from_run", None) or getattr(args, "in_run", None))
    request = api.SetBotStateRequest(
        bot=args.name, state=args.state, reason=getattr(args, "reason", ""), run=run
    )
    bot = arena.call("SetBotState", request, organizer=True)
    where = f" from run {run}" if run else ""
    print(f"bot {bot.name} {STATED[args.state]}{where}; now {bot.state}")
    return 0

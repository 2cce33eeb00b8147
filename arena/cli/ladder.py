"""The ladder's commands: ``ladder on|off|show POOL`` (the organizer switches and sets a
pool's ladder; anyone may look) and ``bot ladder NAME on|off`` (a bot opts in or out with
its own token). docs/ladder.md explains what a ladder does."""

from __future__ import annotations

import argparse
import os
from typing import Any

from arena.cli.client import Arena
from arena.cli.common import clock_given, clock_of, console, print_json
from arena.cli.reader import print_ratings
from arena.domain.clock import DEFAULT_CLOCK, TimeControl
from arena.proto.truco.v1 import arena_pb2 as api
from arena.wire_clock import clock_from_pb, clock_to_pb


def cmd_ladder(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    if args.switch == "show":
        reply = arena.call("GetLadder", api.GetLadderRequest(pool=args.pool))
    else:
        request = api.SetLadderRequest(pool=args.pool, on=args.switch == "on")
        if clock_given(args):  # a clock is set whole: those left out stay as they were
            request.clock.CopyFrom(clock_to_pb(clock_of(args, _clock_now(arena, args.pool))))
        if args.concurrency is not None:
            request.concurrency = args.concurrency
        reply = arena.call("SetLadder", request, organizer=True)
    if args.json:
        print_json(reply)
        return 0
    print_ladder(reply)
    if args.switch == "show":
        print_ratings(arena.call("GetLeaderboard", api.GetLeaderboardRequest(pool=reply.pool)))
    return 0


def _clock_now(arena: Arena, pool: str) -> TimeControl:
    """The clock of the pool's ladder; the defaults when it has none yet."""
    ladder = arena.call("GetLadder", api.GetLadderRequest(pool=pool), missing_ok=True)
    return DEFAULT_CLOCK if ladder is None else clock_from_pb(ladder.clock)


def print_ladder(ladder: Any) -> None:
    state = "on" if ladder.on else "off"
    clock = ladder.clock
    console().print(
        f"ladder {ladder.pool}: {state}, up to {ladder.concurrency} matches at once "
        f"({clock.decision_ms} ms a decision, bank {clock.time_bank_ms} ms, "
        f"grace {clock.reconnect_grace_ms} ms)"
    )
    last = f", the last {ladder.last_match}" if ladder.last_match else ""
    console().print(f"  {ladder.playing} playing now, {ladder.scheduled} started in all{last}")
    if ladder.on:  # its pace means one thing: nothing is counted while it is off
        console().print(
            f"  on since {ladder.on_since}: {ladder.per_hour} finished in the last hour while on"
        )
    console().print(f"  opted in: {', '.join(ladder.opted_in) or 'nobody'}")
    if ladder.looked_at:
        available = ", ".join(ladder.available) or "nobody"
        console().print(f"  available when it last looked ({ladder.looked_at}): {available}")
    if ladder.look == "waiting":
        console().print(f"  waiting for the first look (every {ladder.tick_s} s)")
    elif ladder.look == "stalled":
        console().print(
            f"  no beat has looked for {ladder.quiet_s} s (every {ladder.tick_s} s expected):"
            " is `arena beat` running, with a worker?"
        )


def cmd_bot_ladder(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("ARENA_TOKEN") or None
    request = api.SetBotLadderRequest(bot=args.name, on=args.switch == "on", pool=args.pool or "")
    bot = Arena.from_env().call("SetBotLadder", request, organizer=token is None, token=token)
    if args.json:
        print_json(bot)
        return 0
    print(opted(bot, args.switch == "on", args.pool))
    return 0


def opted(bot: Any, on: bool, pool: str | None) -> str:
    """What ``arena bot ladder`` says it did, for the kind of bot it did it to."""
    where = f"the ladder of {pool}" if pool else "every pool's ladder"
    if not on:
        return f"{bot.name} opted out of {where}: it is scheduled there no more"
    if bot.hosted:
        how = "the arena starts its active version for each match (no connection needed)"
    else:
        how = "it plays there while it is connected (arena bot run, or its own process)"
    return f"{bot.name} opted in to {where}: {how}"

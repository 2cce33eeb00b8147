"""``arena test NEW BASE --sprt ...``: a sequential test played by the arena's workers
(docs/testing.md), followed until it decides; exit 0 for H1, 1 for H0, 2 undecided, 3
when the arena refused it."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from arena.cli.client import Arena
from arena.cli.common import clock_of, console
from arena.cli.match import EXIT, PLAY_FAILED, sprt_line, verdict_line
from arena.domain.sprt import Sequential, Sprt, parse_test
from arena.errors import Invalid
from arena.proto.truco.v1 import arena_pb2 as api
from arena.wire_clock import clock_to_pb


def cmd_test(args: argparse.Namespace) -> int:
    try:
        test = parse_test(args.sprt, args.alpha, args.beta)
    except Invalid as e:
        print(f"arena test: {e}", file=sys.stderr)
        return 2
    token = args.token or os.environ.get("ARENA_TOKEN") or None
    request = api.StartTestRequest(
        new_bot=args.new, base_bot=args.base, elo0=test.elo0, elo1=test.elo1,
        alpha=test.alpha, beta=test.beta, rules=str(args.rules), rated=args.rated,
        clock=clock_to_pb(clock_of(args)),
    )  # fmt: skip
    if args.games is not None:
        request.max_games = args.games
    arena = Arena.from_env()
    try:  # a refused call exits 3, not 1: that would read as H0
        found = arena.call("StartTest", request, organizer=token is None, token=token)
        print(
            f"test {found.id}: NEW {found.new_bot} against BASE {found.base_bot}, played by the "
            f"workers (arena web: /tests/{found.id})"
        )
        if args.no_wait:
            return 0
        with console().status(state(found)[0]) as shown:
            while found.status == "running":
                time.sleep(1.0)  # polling the API: the test's progress lives in the database
                found = arena.call("GetTest", api.GetTestRequest(id=found.id))
                shown.update(state(found)[0])
    except SystemExit as e:
        print(e, file=sys.stderr)
        return PLAY_FAILED
    line, verdict = state(found)
    console().print(line)
    console().print(verdict)
    for said in losses(arena, [found.new_bot, found.base_bot], token):
        console().print(said, highlight=False)
    return EXIT[found.status if found.status in ("H1", "H0") else None]


def losses(arena: Arena, names: list[str], token: str | None) -> list[str]:
    """What the analyses say of each bot's play against the reference bot (docs/web.md,
    "The analysis of a match"), for those the caller may read."""
    request = api.GetLossesRequest(names=names)
    try:
        found = arena.call("GetLosses", request, organizer=token is None, token=token)
    except SystemExit:  # the verdict stands without it (an older server)
        return []
    return [
        f"{v['name']}: {v['mean_loss']:.2f} points lost a decision against the reference bot, "
        f"over {v['decisions']} analysed decisions (arena analyse MATCH)"
        for v in json.loads(found.losses_json)
    ]


def state(found: Any) -> tuple[str, str]:
    """The test's line (as `arena match --sprt` prints it) and its verdict's."""
    seen = Sequential(Sprt(found.elo0, found.elo1, found.alpha, found.beta))
    seen.pairs, seen.llr = [found.lost_both, found.split, found.won_both], found.llr
    seen.verdict = found.status if found.status in ("H1", "H0") else None
    return sprt_line(seen), verdict_line(seen, [[found.new_bot], [found.base_bot]])

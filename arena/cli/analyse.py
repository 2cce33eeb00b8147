"""``arena analyse MATCH [--samples N] [--json]``: the analysis of a finished match's
decisions by the house Monte Carlo bot (docs/web.md, "The analysis of a match"), done by
the arena's workers and followed until it is; with a bot's token its own seats, with the
organizer's every seat. Exit 0 when done, 1 when a seat's analysis failed, 3 when the
arena refused it."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from arena.cli.client import Arena
from arena.cli.common import console
from arena.proto.truco.v1 import arena_pb2 as api

REFUSED = 3
WAIT_S = 600.0  # how long it follows an analysis before it gives up waiting


def cmd_analyse(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("ARENA_TOKEN") or None
    request = api.AnalyseMatchRequest(match_id=args.match)
    if args.samples is not None:
        request.samples = args.samples
    arena = Arena.from_env()
    try:
        found = arena.call("AnalyseMatch", request, organizer=token is None, token=token)
        deadline = time.monotonic() + WAIT_S
        with console().status(f"match {args.match}: analysed by the workers") as shown:
            while found.pending and not args.no_wait and time.monotonic() < deadline:
                time.sleep(1.0)  # polling the API: the analysis lives in the database
                found = arena.call(
                    "GetAnalysis", api.GetAnalysisRequest(match_id=args.match),
                    organizer=token is None, token=token,
                )  # fmt: skip
                shown.update(f"match {args.match}: analysed by the workers")
    except SystemExit as e:
        print(e, file=sys.stderr)
        return REFUSED
    seats = json.loads(found.analyses_json)
    if args.json:
        print(json.dumps({"match": args.match, "analyses": seats}, indent=2))
    else:
        for line in lines(args.match, seats):
            console().print(line, highlight=False)
    return 1 if any(s["status"] == "failed" for s in seats) else 0


def lines(match_id: str, seats: list[dict[str, Any]]) -> list[str]:
    """What the analyses say, a seat and its costliest decisions at a time."""
    if not seats:
        return [f"match {match_id}: no analysis of a seat you may see"]
    out = []
    for s in seats:
        head = f"seat {s['seat']} ({s['bot']}), {s['samples']} samples a decision: "
        if s["status"] == "pending":
            began = "being analysed" if s["started_at"] else "waiting for a free worker"
            out.append(head + f"pending ({began}; the same command later shows it)")
            continue
        if s["status"] != "done":
            out.append(head + s["status"] + (f": {s['error']}" if s["error"] else ""))
            continue
        loss = s["mean_loss"]
        mean = "no decision to weigh" if loss is None else f"{loss:.2f} points lost a decision"
        out.append(head + f"{len(s['decisions'])} decisions, {mean}")
        for i in s["marks"]:
            d = s["decisions"][i]
            value = dict(zip(d["actions"], d["values"], strict=True))
            out.append(
                f"  hand {d['hand']}, action {d['step'] + 1}: {d['taken']} "
                f"({value[d['taken']]:+.2f}); best {d['best']} ({value[d['best']]:+.2f}), "
                f"lost {d['loss']:.2f}"
            )
    return out

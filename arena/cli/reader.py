"""The commands that read the arena (anyone may): ``matches``, ``match show``, ``bot
list``, ``ratings``, ``nodes``, ``tournament show|watch|list``, and how each prints what
the Arena API answers. The demo prints through the same presenters."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from arena.cli.client import Arena
from arena.cli.common import console, print_json, table_of
from arena.domain.rating import is_wide
from arena.domain.tournament import DEALS
from arena.proto.truco.v1 import arena_pb2 as api

PAGE = 200  # matches in one page of ListMatches, the most it gives


def match_line(m: Any) -> str:
    """One match: the time it is listed by (finished, else started, else made), then its
    result as credited (a forfeit said so), or why it shows none; then what it is besides
    (:func:`marks`)."""
    seats = " / ".join(m.seats)
    head = f"{m.id}  {m.listed_at[:19]}"
    if m.sealed:
        tail = f"public once its twin, {m.twin}, is played"
        return f"{head}  sealed    {m.rules}  {seats}  {tail}{marks(m)}"
    if m.status != "finished":
        return f"{head}  {m.status:8}  {m.rules}  {seats}{marks(m)}"
    team = ["+".join(sorted(set(m.seats[t::2]))) for t in (0, 1)]
    score = "-".join(str(x) for x in m.score)
    if not m.HasField("winner"):
        result = "both forfeited: nobody won"
    elif m.forfeit:
        result = f"won by {team[m.winner]} by forfeit ({team[m.forfeit[0]]} absent)"
    else:
        result = f"won by {team[m.winner]}"
    return f"{head}  {m.rules}  {seats}  {score}  {result}{marks(m)}"


def marks(m: Any) -> str:
    """What a match is besides its result, as the pages mark it: voided or unrated, and
    the test it is a match of ("" for a rated match of no test)."""
    said = []
    if m.HasField("voided"):
        said.append(f"voided: {m.voided}")
    elif not m.rated and m.status != "cancelled":
        said.append("unrated")
    if m.HasField("test_id"):
        said.append(f"test {m.test_id}")
    return "".join(f"  [{s}]" for s in said)


def run_of(arena: Arena, run: int | str | None) -> int:
    """The id of the run that ``run`` names (:func:`arena.cli.common.run_ref`): itself,
    or the latest run of the tournament so named; 0 for none; SystemExit when the
    tournament is unknown or never ran."""
    if run is None or isinstance(run, int):
        return run or 0
    for t in arena.call("ListTournaments", api.ListTournamentsRequest()).tournaments:
        if t.definition.name == run:
            if not t.last_run:
                raise SystemExit(f"arena: tournament {run} has not run yet")
            return int(t.last_run)
    raise SystemExit(
        f"arena: no run {json.dumps(run)}: give a run's id, or the name of a tournament "
        "(arena tournament list)"
    )


def cmd_matches(args: argparse.Namespace) -> int:
    """A page of matches, or with ``--all`` every page ListMatches gives, each printed as
    it comes (a reader that stops early stops the paging); with ``--json``, one
    ListMatchesResponse holding them all."""
    arena = Arena.from_env()
    request = api.ListMatchesRequest(
        bot=args.bot or "",
        pool=args.pool or "",
        run_id=run_of(arena, args.run_id),
        page_size=PAGE if args.all else args.limit,
        since=args.since or "",
        until=args.until or "",
    )
    pages = _pages(arena, request, every=args.all)
    if args.json:
        together = api.ListMatchesResponse()
        for reply in pages:
            together.matches.extend(reply.matches)
            together.next_page_token = reply.next_page_token
        print_json(together)
        return 0
    shown = 0
    for reply in pages:
        for m in reply.matches:
            print(match_line(m))
        shown += len(reply.matches)
    if not shown:
        print("no matches")
    return 0


def _pages(arena: Arena, request: Any, *, every: bool) -> Iterator[Any]:
    """ListMatches' replies: the first page, or ``every`` page (each asked for once the
    one before is used: a reader gone stops the asking)."""
    while True:
        reply = arena.call("ListMatches", request)
        yield reply
        if not (every and reply.next_page_token):
            return
        request.page_token = reply.next_page_token


def show_match(args: argparse.Namespace) -> int:
    if not args.id:
        print("arena match show: give the match id", file=sys.stderr)
        return 2
    arena = Arena.from_env()  # as ARENA_TOKEN's bot's owner, else the organizer if known
    reply = arena.call(
        "GetMatch", api.GetMatchRequest(id=args.id), organizer=arena.reads_as_organizer()
    )
    if args.json:
        print(reply.record_json or "null")
        return 0
    print(match_line(reply.match))
    if reply.record_json:
        record = json.loads(reply.record_json)
        for i, hand in enumerate(record["hands"]):
            acts = " ".join(
                f"{a['seat']}:{a.get('card', a['type'])}{'*' if a.get('covered') else ''}"
                for a in hand["actions"]
            )
            points = hand.get("result", {}).get("points", [0, 0])
            print(f"hand {i:2} vira {hand['vira'] or '-':3} {acts}  -> {points[0]}-{points[1]}")
    return 0


def cmd_bot_list(args: argparse.Namespace) -> int:
    for bot in Arena.from_env().call("ListBots", api.ListBotsRequest()).bots:
        state = ("" if bot.active else " (inactive)") + (" connected" if bot.connected else "")
        state += " hosted" if bot.hosted else ""
        print(f"{bot.name}{state}  owner={bot.owner or '-'}  since {bot.created_at[:10]}")
    return 0


def cmd_nodes(args: argparse.Namespace) -> int:
    """The live referee nodes (docs/cluster.md), the one that answered marked."""
    reply = Arena.from_env().call("ListNodes", api.ListNodesRequest(), organizer=True)
    if args.json:
        print_json(reply)
        return 0
    table = table_of("node", "address", "bots", "matches", "relayed", "since", "", box=None)
    for n in reply.nodes:
        here = "answered" if n.name == reply.answered_by else ""
        row = (n.name, n.address, str(n.bots), str(n.matches), str(n.relayed), n.started_at[:19])
        table.add_row(*row, here)
    console().print(table if reply.nodes else "no live referee node")
    return 0


def cmd_ratings(args: argparse.Namespace) -> int:
    request = api.GetLeaderboardRequest(pool=args.pool, retired=args.retired)
    reply = Arena.from_env().call("GetLeaderboard", request)
    if args.json:
        print_json(reply)
    else:
        print_ratings(reply)
    return 0


def print_ratings(reply: Any) -> None:
    """The leaderboard as a table; a rating is marked unsettled, as the pages mark it, when
    its interval is missing or wide (:func:`arena.domain.rating.is_wide`)."""
    table = table_of("rank", "bot", "rating", "95%", "games", "W-L", "", title=reply.pool, box=None)
    for s in reply.standings:
        half = (s.high - s.low) / 2 if s.HasField("low") else None
        marks = ["unsettled"] * is_wide(half) + [s.state] * (s.state not in ("", "active"))
        interval = f"{s.low:.0f}-{s.high:.0f}" if half is not None else "-"
        who = s.bot if s.played_as in ("", s.bot) else f"{s.bot} (as {s.played_as})"
        row = (str(s.rank), who, f"{s.elo:.0f}", interval, str(s.games), f"{s.wins}-{s.losses}")
        table.add_row(*row, ", ".join(marks))
    console().print(table if reply.standings else f"no rated games in {reply.pool} yet")


def cmd_tournament_watch(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    return watch(arena, run_of(arena, args.run_id))


def watch(arena: Arena, run_id: int) -> int:
    """Follow a run with a progress bar until it ends, then print it; 0 when it finished."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    request = api.GetRunRequest(id=run_id)
    run = arena.call("GetRun", request)
    columns = (
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"),
        TimeRemainingColumn(),
    )  # fmt: skip
    with Progress(*columns, transient=True, console=console()) as progress:
        name = f"run {run.id} {run.tournament}"
        task = progress.add_task(name, total=None, rate="")
        while run.status in ("starting", "running", "paused") or (
            run.status == "cancelled" and run.running
        ):
            done = run.finished + run.failed + run.cancelled
            waits = f" ({run.waiting})" if run.waiting else ""
            progress.update(
                task, total=max(run.total, run.expected_total) or None, completed=done,
                rate=_rate(run),
                description=f"{name}: {run.status}{waits}",
            )  # fmt: skip
            time.sleep(0.5)  # polling the API: the progress lives in the database
            run = arena.call("GetRun", request)
    print_run(run)
    return 0 if run.status == "finished" else 1


def _rate(run: Any) -> str:
    if not run.first_started or not run.finished:
        return ""
    began = datetime.fromisoformat(run.first_started)
    seconds = (datetime.now(UTC) - began).total_seconds()
    return f"{run.finished / max(seconds, 1e-3):.1f} matches/s"


def cmd_tournament_show(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    run = arena.call("GetRun", api.GetRunRequest(id=run_of(arena, args.run_id)))
    if args.json:
        print_json(run)
    else:
        print_run(run)
    return 0


def print_run(run: Any) -> None:
    out = console()
    d = run.definition
    trust = ", bots declared trusted by the organizer" if d.trusted else ""
    absent = ", absent bots play on" if d.absent == "play-on" else ""
    unrated = ", unrated (moves no rating)" if not d.rated else ""
    kind = f"{d.format}, {d.matches} per pairing{trust}{absent}{unrated}"
    out.print(f"run {run.id} of {run.tournament}: {run.status}, {d.rules}, {kind}")
    asked = " (duplicate asked)" if d.duplicate and run.deals == "secret" else ""
    out.print(f"deals: {DEALS.get(run.deals, 'decided when the run is planned')}{asked}")
    if run.seeds:
        stage = f" (from {d.seed_from}'s table)" if d.seed_from else ""
        out.print(f"seeds{stage}: " + ", ".join(f"{i + 1} {b}" for i, b in enumerate(run.seeds)))
    first = "the round reached" if d.format == "knockout" else "match points"
    out.print(f"ranked by {first}, then " + ", ".join([*run.tiebreaks, "seed"]))
    whole = f" (of about {run.expected_total})" if run.expected_total > run.total else ""
    out.print(
        f"{run.finished} of {run.total}{whole} matches recorded"
        + (f", {run.failed} failed" if run.failed else "")
        + (f", {run.cancelled} cancelled" if run.cancelled else "")
        + (f", {run.voided} voided" if run.voided else "")
        + (f", {run.replays} played again" if run.replays else "")
        + (f" ({run.error})" if run.error else "")
    )
    if run.waiting:
        out.print(f"waiting: {run.waiting}")
    for note in run.notes:
        again = f"plays {note.replay_of} again, " if note.replay_of else ""
        voided = f"voided: {note.voided}" if note.voided else note.status
        out.print(f"  {note.match_id}: {again}{voided}")
    print_rounds(run)
    if not run.standings:
        return
    extra = {"swiss": ("byes", "Buchholz", "S-B"), "groups": ("group",), "knockout": ("stage",)}
    more = extra.get(d.format, ())
    table = table_of(
        "rank", "bot", *more, "pts", "W-L", "forfeits", "hand pts", "perf", "95%", "LOS",
        "faults", box=None,
    )  # fmt: skip
    for s in run.standings:
        shown = {"byes": str(s.byes), "Buchholz": f"{s.buchholz:g}",
                 "S-B": f"{s.sonneborn_berger:g}", "group": f"{s.group} {s.group_rank}",
                 "stage": s.stage}  # fmt: skip
        perf = f"{s.performance:.0f}" if s.HasField("performance") else "-"
        interval = (
            f"{s.performance_low:.0f}-{s.performance_high:.0f}"
            if s.HasField("performance_low") else "-"
        )  # fmt: skip
        los = f"{s.los_next:.0%}" if s.HasField("los_next") else ""
        faults = " ".join(f"{k} {v}" for k, v in sorted(s.faults.items()) if v) or "-"
        table.add_row(
            str(s.rank), s.bot, *(shown[k] for k in more), str(s.points), f"{s.wins}-{s.losses}",
            str(s.forfeits or ""),
            f"{s.hand_points}-{s.hand_points_against}", perf, interval, los, faults,
        )  # fmt: skip
    out.print(table)
    names = [s.bot for s in run.standings]
    cells = {(c.bot, c.opponent): f"{c.wins}-{c.losses}" for c in run.crosstable}
    cross = table_of("", *names, title="crosstable (row's wins-losses)", box=None)
    for a in names:
        cross.add_row(a, *(cells.get((a, b), "") for b in names))
    out.print(cross)


def print_rounds(run: Any) -> None:
    """A knockout's bracket or a Swiss's pairings, round by round; a groups format's
    groups."""
    out = console()
    for g in run.groups:
        out.print(f"group {g.name}: {', '.join(g.bots)}")
    for r in run.rounds:
        out.print(f"{r.name}:")
        for p in r.pairings:
            if len(p.bots) == 1:
                out.print(f"  {p.bots[0]}: a bye")
                continue
            seeds = [f" ({s})" for s in p.seeds] if p.seeds else ["", ""]
            a, b = (f"{bot}{seed}" for bot, seed in zip(p.bots, seeds, strict=True))
            wins = "-".join(map(str, p.wins)) if p.matches else "v"
            left = f", {p.playing} to play" if p.playing else ""
            tb = f", {p.tiebreak_matches} in tiebreaks" if p.tiebreak_matches else ""
            won = f": {p.winner} ({p.how})" if p.winner else ""
            out.print(f"  {a} {wins} {b}{left}{tb}{won}")
        for bye in r.byes:
            out.print(f"  {bye}: a bye")


def cmd_tournament_list(args: argparse.Namespace) -> int:
    tournaments = Arena.from_env().call("ListTournaments", api.ListTournamentsRequest())
    for t in tournaments.tournaments:
        d = t.definition
        who = ",".join(d.bots) or f"pool {d.pool}"
        last = f"last run {t.last_run} {t.last_status}" if t.last_run else "never run"
        when = f"  schedule '{d.schedule}' next {t.next_firing[:16]}" if d.schedule else ""
        print(f"{t.id:4}  {d.name}  {d.rules}  {d.format}  {who}  {t.runs} runs, {last}{when}")
    if not tournaments.tournaments:
        print("no tournaments")
    return 0

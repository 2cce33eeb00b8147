"""``arena demo``: the whole service on this machine, on embedded defaults.

It starts the embedded PostgreSQL and Redis (unless they run already), ``arena serve``,
a Celery worker, the scheduler and the web pages as child processes, launches the house
bots as processes that connect over gRPC, registers them, plays a duplicate double round
robin under ``paulista`` with a progress bar (duplicate deals, declared trusted: the house
bots keep no memory from one match to the next), with one hosted bot among them where a
sandbox can be made (submitted as code, checked, then run by the workers in a sandbox, a
fresh process per match), prints the standings and the ratings and the analysis of one of
its matches (docs/web.md, "The analysis of a match"); then opts the bots in to
the ladder of paulista/1, switches it on for a while (``--ladder-s``) with a progress line,
switches it off, lets its last matches end and prints the ratings it left; and
stops everything it started. Meanwhile anyone may play the house bots at ``/play`` (the
web pages let guests play; docs/web.md). The data stay in ``ARENA_HOME`` for ``arena ratings``,
``arena tournament show`` and ``arena web``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import grpc

from arena.domain.clock import DEFAULT_CLOCK
from arena.embedded import (
    broker_url,
    embedded_postgres_running,
    embedded_redis_running,
    stop_embedded_postgres,
    stop_embedded_redis,
)
from arena.proto.truco.v1 import arena_pb2 as api
from arena.service import Organizer, Processes, free_address, wait_serving
from arena.settings import Settings
from arena.wire_clock import clock_to_pb

BOTS = {
    "house-random": "house:random",
    "house-heuristic": "house:heuristic",
    "house-mc": "house:mc",
}
HOSTED = "hosted-heuristic"  # submitted as code: the arena runs it, a process per match
POOL = "paulista/1"  # the tournament's pool, where the ladder plays next
LADDER_CONCURRENCY = 4  # ladder matches at once
LADDER_DRAIN_S = 120.0  # the most the demo waits for the ladder's last matches to end


def run_demo(
    matches: int,
    web_port: int,
    ladder_s: int,
    logs: Mapping[str, str] = {},
    migrate: bool = False,
) -> int:
    """The demo (its parameters' defaults and help: the ``demo`` command's grammar); its
    processes' environment has ``logs`` too (their ``ARENA_LOG_LEVEL`` and
    ``ARENA_LOG_FORMAT``), and ``migrate`` migrates a configured database first."""
    from arena.cli.client import Arena
    from arena.cli.reader import print_ratings, watch  # the tournament commands' presenters
    from arena.cli.wiring import schema_ready

    settings = Settings.from_env()
    home = settings.home
    began = time.monotonic()
    ours_pg = settings.database_url is None and not embedded_postgres_running(home)
    ours_redis = settings.broker_url is None and not embedded_redis_running(home)
    print(f"Truco Arena demo; data in {home}")
    _step("PostgreSQL", "embedded" if settings.database_url is None else "configured")
    url = schema_ready("demo", settings, migrate)
    _step("broker", "embedded Redis" if settings.broker_url is None else settings.broker_url)
    broker = broker_url(settings)
    address = free_address()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {
        "ARENA_HOME": str(home),
        "ARENA_DATABASE_URL": url,
        "ARENA_BROKER_URL": broker,
        "ARENA_ADDRESS": address,
        "ARENA_ADMIN_TOKEN": settings.admin_token(),
        "ARENA_QUEUE": settings.queue,
        **logs,
    }
    web = f"http://127.0.0.1:{web_port}"
    try:
        with Processes(env, home / "logs") as processes:
            _step("referee", address)
            processes.start("serve", "serve")
            wait_serving(address)
            processes.start("worker", "worker")
            processes.start("beat", "beat")
            processes.start("web", "web", "--port", str(web_port), "--guests")
            _step("worker, scheduler, web pages", f"{web}/ (live while the demo runs)")
            organizer = Organizer(address, settings.admin_token())
            for name, house in BOTS.items():
                token = organizer.bot_token(name)
                bot_env = {"ARENA_ADDRESS": address, "ARENA_TOKEN": token}
                processes.start(name, "bot", "run", house, "--concurrency", "8", env=bot_env)
            organizer.wait_connected(BOTS)
            _step("bots connected", ", ".join(BOTS))
            _take_people_on(url, BOTS)
            _step("play one yourself", f"{web}/play (as a guest, while the demo runs)")
            bots = list(BOTS) + _hosted(organizer)
            if len(bots) > len(BOTS):  # about as many matches in all as without it, in pairs
                pairs = matches * len(BOTS) * (len(BOTS) - 1) // len(bots) // (len(bots) - 1) // 2
                matches = 2 * max(1, pairs)
            name = f"demo-{datetime.now(UTC):%Y%m%d-%H%M%S}"
            definition = api.TournamentDefinition(
                name=name, rules="paulista", bots=bots, format="double-round-robin",
                matches=matches, duplicate=True, trusted=True,
            )  # fmt: skip
            organizer.call("CreateTournament", api.CreateTournamentRequest(definition=definition))
            run = organizer.call("StartTournament", api.StartTournamentRequest(tournament=name))
            print(f"\nTournament {name}, run {run.id}: duplicate double round robin, paulista")
            print(f"Follow it at {web}/runs/{run.id}")
            print(f"Watch its matches as they play at {web}/live", end="")
            playing = _playing(organizer, run.id)
            print(f", this one now: {web}/matches/{playing}\n" if playing else "\n")
            plain = dataclasses.replace(settings, ca_file=None, tls=False)  # its own referee
            arena = Arena(address, plain)
            code = watch(arena, run.id)
            print()
            print_ratings(arena.call("GetLeaderboard", api.GetLeaderboardRequest()))
            analysed = _analysed(organizer, run.id)
            played = _ladder(organizer, BOTS, ladder_s)
            print()
            print_ratings(arena.call("GetLeaderboard", api.GetLeaderboardRequest(pool=POOL)))
            print(f"the ladder played {played} matches in {ladder_s} s")
            organizer.close()
    finally:
        if ours_redis:
            stop_embedded_redis(home)
        if ours_pg:
            stop_embedded_postgres(home)
    print(f"\nDone in {time.monotonic() - began:.0f} s; every process it started is stopped.")
    print("Look again at any time (nothing needs to be running):")
    print(f"  arena tournament show {run.id}    arena ratings    arena matches")
    print(f"  arena ladder show {POOL}")
    print(f"  arena web   then open {web}/pools/paulista/1  (the leaderboard)")
    print(f"              and {web}/runs/{run.id}  (this tournament's table)")
    if analysed:
        print(f"              and {web}/matches/{analysed}  (its analysis, as the organizer)")
    return code


def _take_people_on(url: str, bots: Iterable[str]) -> None:
    """Let people challenge the house bots from the web pages (docs/web.md), as the
    organizer."""
    from arena.domain.actors import FIRST
    from arena.store.store import Store
    from arena.usecases.human import set_bot_humans

    store = Store(url, max_size=1)
    try:
        for name in bots:
            set_bot_humans(store, name, True, actor=FIRST)
    finally:
        store.close()


def _ladder(organizer: Organizer, dial_ins: Iterable[str], seconds: int) -> int:
    """Opt the bots that dial in to ladders (a hosted bot is in unless it opted out),
    switch the pool's ladder on for ``seconds`` under the tournament's clocks, showing
    its progress, then off; wait for its last matches (LADDER_DRAIN_S at most). The
    matches it played."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from arena.cli.common import console

    for name in dial_ins:
        organizer.call("SetBotLadder", api.SetBotLadderRequest(bot=name, on=True))
    get = api.GetLadderRequest(pool=POOL)
    try:
        before = organizer.call("GetLadder", get).scheduled
    except grpc.RpcError as e:  # the pool's first ladder
        if e.code() != grpc.StatusCode.NOT_FOUND:
            raise
        before = 0
    on = api.SetLadderRequest(
        pool=POOL, on=True, concurrency=LADDER_CONCURRENCY, clock=clock_to_pb(DEFAULT_CLOCK)
    )
    organizer.call("SetLadder", on)
    print(f"\nLadder {POOL}: on for {seconds} s, {LADDER_CONCURRENCY} matches at once")

    def played(ladder: Any) -> int:  # started since it was switched on, less those playing
        return int(ladder.scheduled - before - ladder.playing)

    columns = (
        TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[played]}"),
        TimeElapsedColumn(),
    )  # fmt: skip
    began = time.monotonic()
    with Progress(*columns, transient=True, console=console()) as progress:
        task = progress.add_task(f"ladder {POOL}", total=seconds, played="")
        while (elapsed := time.monotonic() - began) < seconds:
            ladder = organizer.call("GetLadder", get)
            shown = f"{played(ladder)} played, {ladder.playing} playing"
            progress.update(task, completed=elapsed, played=shown)
            time.sleep(1.0)  # polling the API: the ladder's progress lives in the database
    ladder = organizer.call("SetLadder", api.SetLadderRequest(pool=POOL, on=False))
    print(f"Ladder {POOL}: off, {played(ladder)} matches played, {ladder.playing} finishing")
    deadline = time.monotonic() + LADDER_DRAIN_S
    while ladder.playing and time.monotonic() < deadline:
        time.sleep(0.5)  # polling the API, as above
        ladder = organizer.call("GetLadder", get)
    if ladder.playing:
        print(f"  {ladder.playing} still playing after {LADDER_DRAIN_S:.0f} s: left unfinished")
    return played(ladder)


def _hosted(organizer: Organizer, timeout_s: float = 120.0) -> list[str]:
    """Submit HOSTED as a hosted bot and wait for its check: [its name] once active, or
    [] saying why not (no sandbox on this machine, a failed check)."""
    from arena.cli.hosting import checked
    from arena.hosted import house
    from arena.hosted.sandbox import unavailable

    reason = unavailable()
    if reason is not None:
        _step("hosted bot", f"none: {reason}")
        return []
    organizer.bot_token(HOSTED)
    manifest = api.BotManifest(bot=HOSTED, runtime="python", entry="bot.py")
    parts = [api.SubmitBotRequest(manifest=manifest)]
    parts.append(api.SubmitBotRequest(chunk=house.archive("heuristic")))
    version = checked(organizer, organizer.call("SubmitBot", iter(parts)).version, timeout_s)
    if version.status != "active":
        _step("hosted bot", f"{version.name} {version.status}: {version.reason or 'too slow'}")
        return []
    _step("hosted bot", f"{version.name}: checked, plays sandboxed (docs/hosting.md)")
    return [HOSTED]


def _playing(organizer: Organizer, run_id: int, timeout_s: float = 10.0) -> str | None:
    """A match of the run that is playing now and may be shown live (its duplicate twin
    played), if one starts within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        listed = organizer.call("ListMatches", api.ListMatchesRequest(pool=POOL, page_size=50))
        done = {m.id for m in listed.matches if m.status == "finished"}
        for m in listed.matches:  # the organizer sees no seal: a twin must be done
            if m.run_id == run_id and m.status == "running" and (not m.twin or m.twin in done):
                return str(m.id)
        time.sleep(0.2)  # asking the referee: it tells nobody when a match starts
    return None


def _analysed(organizer: Organizer, run_id: int, timeout_s: float = 60.0) -> str | None:
    """One finished match of the run where the mc bot played, analysed by the workers
    (docs/web.md, "The analysis of a match"), what the analysis says printed; its id."""
    from arena.cli.analyse import lines

    listed = organizer.call("ListMatches", api.ListMatchesRequest(pool=POOL, page_size=50))
    found = [
        m.id for m in listed.matches
        if m.run_id == run_id and m.status == "finished" and "house-mc" in m.seats
    ]  # fmt: skip
    if not found:
        return None
    match_id = str(found[0])
    request = api.AnalyseMatchRequest(match_id=match_id)
    shown = organizer.call("AnalyseMatch", request)
    deadline = time.monotonic() + timeout_s
    while shown.pending and time.monotonic() < deadline:
        time.sleep(0.2)  # asking the API: the analysis lives in the database
        shown = organizer.call("GetAnalysis", api.GetAnalysisRequest(match_id=match_id))
    print(f"\nMatch {match_id}, analysed by the house mc bot:")
    for line in lines(match_id, json.loads(shown.analyses_json)):
        print(f"  {line}")
    return match_id


def _step(what: str, detail: str) -> None:
    print(f"  {what:<30} {detail}")

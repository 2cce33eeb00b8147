"""The metrics (arena/metrics.py) on real processes: `arena serve`, a worker of eight
threads and `arena web`, each serving its own on --metrics-address, play a known number
of matches and answer a few pages; each process's metrics, scraped over HTTP and parsed
as Prometheus parses them, count exactly what happened. And what keeps them counted
once: nothing a hosted bot's process loads carries them."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from prometheus_client import Counter, Histogram
from prometheus_client.parser import text_string_to_metric_families

from arena import metrics
from arena.metrics import RefereeState
from arena.service import free_address
from tests.arenaproc import broker_url
from tests.test_layers import modules, third_party
from tests.workers.test_ladder_play import POOL, finished, ladder, opt_in, settled, wait_until

MATCHES = 6
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(url: str) -> Samples:
    """Every sample at ``url``, by name and labels."""
    with urllib.request.urlopen(url, timeout=10) as r:
        text = r.read().decode()
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def until(what: Callable[[], Samples], done: Callable[[Samples], bool], log: str) -> Samples:
    """Scrape until ``done`` holds (a count is made as a task ends, just after its match
    is recorded), for 60 s at most."""
    deadline = time.monotonic() + 60
    while True:
        try:
            samples = what()
            if done(samples):
                return samples
        except OSError:  # not listening yet
            samples = {}
        assert time.monotonic() < deadline, f"{sorted(samples)[:40]}\n{log}"
        time.sleep(0.1)  # polling the process's metrics, where its counts live


def addresses(n: int) -> list[str]:
    found: set[str] = set()
    while len(found) < n:
        found.add(free_address())
    return sorted(found)


def test_each_process_counts_what_it_did(arena_factory: Any, database: str) -> None:
    referee_at, worker_at, beat_at, web_at, web_metrics_at = addresses(5)
    arena = arena_factory(broker_url("redis"), serve=("--metrics-address", referee_at))
    arena.worker("worker", "--metrics-address", worker_at)  # eight threads, one process
    arena.processes.start("beat", "beat", "--metrics-address", beat_at)
    arena.bots(ana="house:random", bia="house:random")
    ids = arena.challenge(["ana", "bia"], MATCHES)
    arena.wait_matches(ids, MATCHES)

    records = [arena.store.match(i)[0].record for i in ids]
    decisions = sum(p["decisions"] for r in records for p in r["presence"].values())
    referee = until(
        lambda: scrape(f"http://{referee_at}/metrics"),
        lambda s: value(s, "arena_referee_matches_ended_total") >= MATCHES,
        arena.processes.log("serve"),
    )
    assert value(referee, "arena_referee_matches_ended_total") == MATCHES
    assert decisions > 0
    assert value(referee, "arena_referee_decisions_total") == decisions
    for kind in ("timeouts", "rejected", "disconnects", "substituted", "errors"):
        counted = sum(f[kind] for r in records for f in r["faults"].values())
        assert value(referee, "arena_referee_faults_total", kind=kind) == counted, kind
    assert value(referee, "arena_referee_sessions", kind="dial_in") == 2
    assert value(referee, "arena_referee_sessions", kind="hosted") == 0
    assert value(referee, "arena_referee_matches_playing") == 0
    assert value(referee, "arena_referee_relayed_seats") == 0
    answered = value(referee, "arena_referee_decision_latency_seconds_count")
    assert 0 < answered <= decisions  # the bots' answers; defaults and stand-ins aside
    assert value(referee, "arena_referee_decision_latency_seconds_bucket", le="+Inf") == answered

    play = {"task": "arena.play_match"}
    worker = until(
        lambda: scrape(f"http://{worker_at}/metrics"),
        lambda s: value(s, "arena_worker_tasks_total", **play, outcome="success") >= MATCHES,
        arena.worker_log(),
    )
    assert value(worker, "arena_worker_tasks_total", **play, outcome="success") == MATCHES
    assert value(worker, "arena_worker_tasks_total", **play, outcome="failure") == 0
    assert value(worker, "arena_worker_match_duration_seconds_count") == MATCHES
    assert value(worker, "arena_referee_matches_ended_total") == 0  # the referee's, not here

    ladder = {"task": "arena.ladder"}  # the beat's look at the ladders, every few seconds
    until(
        lambda: scrape(f"http://{beat_at}/metrics"),
        lambda s: value(s, "arena_tasks_sent_total", **ladder) >= 1,
        arena.processes.log("beat"),
    )

    host, port = web_at.rsplit(":", 1)
    arena.processes.start(
        "web", "web", "--host", host, "--port", port, "--metrics-address", web_metrics_at
    )
    until(lambda: scrape(f"http://{web_at}/metrics"), bool, arena.processes.log("web"))
    for path in ("/bots", f"/matches/{ids[0]}", "/no/such/page"):
        try:
            urllib.request.urlopen(f"http://{web_at}{path}", timeout=10).close()
        except urllib.error.HTTPError as e:
            assert e.code == 404 and path == "/no/such/page"
    for url in (f"http://{web_at}/metrics", f"http://{web_metrics_at}/metrics"):
        web = scrape(url)
        assert value(web, "arena_web_requests_total", route="/bots", status="200") == 1
        assert value(web, "arena_web_requests_total", route="/matches/{id}", status="200") == 1
        assert value(web, "arena_web_requests_total", route="none", status="404") == 1
        assert value(web, "arena_web_request_duration_seconds_count", route="/bots") == 1
        assert not [k for k in web if ("route", "/no/such/page") in k[1]]  # never a raw path


def test_the_ladders_matches_are_counted_as_made(arena_factory: Any) -> None:
    worker_at, beat_at = addresses(2)
    arena = arena_factory(broker_url("redis"))
    arena.worker("worker", "--metrics-address", worker_at)
    arena.processes.start("beat", "beat", "--metrics-address", beat_at)
    arena.bots(ana="house:random", bia="house:random")
    opt_in(arena, "ana", "bia")
    ladder(arena, concurrency=2, decision_ms=100)
    wait_until(arena, lambda: finished(arena) >= 4, "four ladder matches")
    made = len(settled(arena))
    pool = {"pool": POOL}
    worker = until(
        lambda: scrape(f"http://{worker_at}/metrics"),
        lambda s: value(s, "arena_ladder_matches_total", **pool) >= made,
        arena.worker_log(),
    )
    assert value(worker, "arena_ladder_matches_total", **pool) == made
    looks = value(worker, "arena_worker_tasks_total", task="arena.ladder", outcome="success")
    assert looks > 0  # the beat's, and SetLadder's own
    until(  # its look every few seconds, once it has started
        lambda: scrape(f"http://{beat_at}/metrics"),
        lambda s: value(s, "arena_tasks_sent_total", task="arena.ladder") > 0,
        arena.processes.log("beat"),
    )


@pytest.mark.parametrize("command", ["serve", "worker", "beat", "web"])
def test_a_metrics_address_that_cannot_be_listened_on_stops_the_process(
    command: str, tmp_path: Any
) -> None:
    taken = free_address()
    host, port = taken.rsplit(":", 1)
    with socket.socket() as held:
        held.bind((host, int(port)))
        held.listen()
        ran = subprocess.run(
            [sys.executable, "-m", "arena.cli", command, "--metrics-address", taken],
            env={"ARENA_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert ran.returncode == 1, ran.stderr
    assert f"arena {command}: cannot serve metrics on {taken}:" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_no_hosted_process_loads_the_metrics() -> None:
    # a python bot is forked from the zygote, which preloads only these: were a copy of
    # the counts in it, nothing would serve them, but nothing may count twice either
    from arena.hosted.zygote import PRELOAD

    found = modules()
    for start in ("arena.hosted.zygote", *PRELOAD):
        assert "prometheus_client" not in third_party(start, found), start


def test_every_metric_is_in_the_operators_table() -> None:
    hub = SimpleNamespace(sessions={}, relays={}, latency_us=[0] * 10_001, playing_now=0)
    families = [*RefereeState(hub).collect()]
    for declared in vars(metrics).values():
        if isinstance(declared, Counter | Histogram):
            families += declared.describe()
    names = [f.name + ("_total" if f.type == "counter" else "") for f in families]
    assert len(names) >= 15
    text = (Path(__file__).resolve().parent.parent / "docs/operations.md").read_text()
    table = text.split("## Metrics", 1)[1].split("\n## ", 1)[0]
    assert [n for n in names if f"| `{n}` |" not in table] == []

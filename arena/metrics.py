"""Every metric the arena exports, in Prometheus's form (docs/operations.md, "Metrics"),
and the one way a process serves them: :func:`serve_metrics`, on an address of its own.

Each metric lives in the process that does what it counts: the referee's in ``arena
serve``, the tasks' and hosted processes' in ``arena worker``, the requests' in ``arena
web``, the tasks sent wherever tasks are sent (``arena beat`` above all). Labels take a
few known values only (a task's name, a fault's kind, a route's template, a pool): never
a match, a bot or a token, which would make a series of each.

A worker's tasks run in threads of its one process, so every count is made once, where
it happens. Nothing that imports this module forks: the hosted bots' zygote is an
interpreter of its own that never imports it (tests/test_metrics.py holds that), so
no child carries a copy of the counts.

The referee's live state (sessions, matches playing, relayed seats, its own latency) is
read from its hub when scraped (:class:`RefereeState`), so the hot path counts nothing
twice: the hub keeps its latency counts, as before, for its benchmarks too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import accumulate
from typing import Protocol

from prometheus_client import REGISTRY, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

# ---- the referee (arena serve) -----------------------------------------------------

MATCHES_ENDED = Counter(
    "arena_referee_matches_ended", "Matches played to their end here for the workers (RunMatch)"
)
DECISIONS = Counter(
    "arena_referee_decisions",
    "Actions applied in the matches ended here: the bots', the default ones at deadlines "
    "and the stand-ins' (the sum of the records' presence decisions)",
)
FAULTS = Counter(
    "arena_referee_faults",
    "Faults in the matches ended here, by kind (a match record's faults)",
    ["kind"],
)
FAULT_KINDS = ("timeouts", "rejected", "disconnects", "substituted", "errors")
LATENESS = Histogram(
    "arena_referee_deadline_lateness_seconds",
    "How long after a deadline passed the referee played the default action",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
LIVE_DROPPED = Counter(
    "arena_referee_live_dropped",
    "Live-feed events dropped: the channel was slow or gone (docs/web.md, Live)",
)
LATENCY_BOUNDS_US = (25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000)

# ---- the workers (arena worker) ------------------------------------------------------

TASKS = Counter(
    "arena_worker_tasks", "Tasks ended by this worker, by name and outcome", ["task", "outcome"]
)
MATCH_SECONDS = Histogram(
    "arena_worker_match_duration_seconds",
    "How long a match took at the referee, from RunMatch sent to its record back",
    buckets=(1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1800),
)
HOSTED_STARTS = Counter(
    "arena_hosted_process_starts",
    "Hosted bots' processes started, by runtime and whether for a match (cold) or ready "
    "ahead of one (warm)",
    ["runtime", "kind"],
)
LADDER_MATCHES = Counter("arena_ladder_matches", "Ladder matches made, by pool", ["pool"])

# ---- whatever sends tasks (arena beat, serve, worker) --------------------------------

TASKS_SENT = Counter("arena_tasks_sent", "Tasks handed to the broker, by name", ["task"])

# ---- the web pages (arena web) -------------------------------------------------------

REQUESTS = Counter(
    "arena_web_requests",
    "Requests answered, by route template (none: no route) and status",
    ["route", "status"],
)
REQUEST_SECONDS = Histogram(
    "arena_web_request_duration_seconds",
    "How long a request took to answer, by route template",
    ["route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)


class Hub(Protocol):
    """What :class:`RefereeState` reads of the referee's hub (referee/hub.py)."""

    sessions: Mapping[str, Session]
    relays: Mapping[tuple[str, str], object]
    latency_us: Sequence[int]

    @property
    def playing_now(self) -> int: ...


class Session(Protocol):
    match: str  # a hosted process's match; empty for a bot that dialed in


class RefereeState(Collector):
    """The referee's live state, read from its hub at each scrape."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def collect(self) -> Iterator[GaugeMetricFamily | HistogramMetricFamily]:
        hub = self.hub
        sessions = list(hub.sessions.values())
        hosted = sum(1 for s in sessions if s.match)
        open_ = GaugeMetricFamily(
            "arena_referee_sessions",
            "Bots' streams open here, by kind (dial_in: a bot's own; hosted: a process the "
            "workers started for one match)",
            labels=["kind"],
        )
        open_.add_metric(["dial_in"], len(sessions) - hosted)
        open_.add_metric(["hosted"], hosted)
        yield open_
        yield GaugeMetricFamily(
            "arena_referee_matches_playing", "Matches playing here now", value=hub.playing_now
        )
        yield GaugeMetricFamily(
            "arena_referee_relayed_seats",
            "Seats of bots connected here, carried now to matches other nodes play",
            value=len(hub.relays),
        )
        yield latency(hub.latency_us)


def latency(counts_us: Sequence[int]) -> HistogramMetricFamily:
    """The referee's own time per bot action (the hub's counts per whole microsecond,
    the last one of 10 ms and more) as a histogram; its sum is approximate (each count
    taken at the middle of its microsecond)."""
    below = list(accumulate(counts_us))  # below[us]: the counts under us + 1 microseconds
    buckets = [(str(us / 1e6), below[us - 1]) for us in LATENCY_BOUNDS_US]
    buckets.append(("+Inf", below[-1]))
    total_us = sum((us + 0.5) * n for us, n in enumerate(counts_us) if n)
    return HistogramMetricFamily(
        "arena_referee_decision_latency_seconds",
        "The referee's own time per bot action: from the action arriving to the match "
        "being done with it (the next request sent, or the rejection)",
        buckets=buckets,
        sum_value=total_us / 1e6,
    )


def serve_metrics(address: tuple[str, int]) -> None:
    """Serve this process's metrics over HTTP at ``address`` (any path answers), from a
    thread of prometheus_client's own; OSError when the address cannot be listened on."""
    host, port = address
    start_http_server(port, host)


def watch_referee(hub: Hub) -> None:
    """The referee's live state in this process's metrics (:class:`RefereeState`)."""
    REGISTRY.register(RefereeState(hub))

"""The tasks: thin, each takes ids and hands the work to a use case and the referee.

- ``arena.start_run``: plan the run's matches (once) and send the first of them to be
  played: a run keeps a window of them in flight (arena/usecases/runs.py).
- ``arena.play_match``: ask the referee to play the match (RunMatch, over gRPC) and record
  it through the store's exactly-once path, then send its run's next match; the run's
  last match sends ``finish_run``.
  Matches requested outside runs (``RequestMatch``, ``arena challenge``) come here too.
- ``arena.finish_run``: a run with no match left to play moves on: the next round of a
  knockout or a Swiss paired and sent, else the final standings written, once.
- ``arena.sprt``: start a sequential test; every match of it recorded steps it on (its
  next pairs, or its verdict).
- ``arena.analyse``: the pending analyses of a finished match at a budget
  (arena/usecases/analyses.py), on a queue asked after the matches' (workers/app.py),
  put back behind any match or control task that waits in the broker.
- ``arena.ladder`` (every few seconds, from ``arena beat``; and in ``play_match`` as a
  ladder match is recorded): fill the ladders' free slots (arena/usecases/ladder.py).
- ``arena.dispatch_due`` (every minute, from ``arena beat``): start the runs whose
  schedule is due, pick up runs, requested matches and analyses whose tasks were lost,
  and refit the leaderboard intervals of the pools that changed.

Every task may run twice (acks_late: a worker killed mid-task has it delivered again) and
none waits for another. A match already recorded is never played again; one playing in
the referee is joined, not restarted.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, datetime
from typing import Any, TypeVar

from celery import signals
from kombu.entity import Queue

from arena.bots.analysis import analysed
from arena.domain.clock import TimeControl
from arena.domain.humans import HUMAN_BOT
from arena.domain.identity import is_version
from arena.domain.nodes import Node
from arena.domain.placement import place
from arena.embedded import database_url
from arena.errors import ArenaError, Invalid, NotFound, Unavailable
from arena.hosted.host import Host
from arena.logs import about_match
from arena.metrics import LADDER_MATCHES, MATCH_SECONDS, TASKS
from arena.settings import Settings
from arena.store.rows import MatchRow
from arena.store.store import Store
from arena.usecases import analyses, checks, ladder, matches, runs, schedule, sprts
from workers.app import app
from workers.client import RefereeClient

log = logging.getLogger(__name__)

STALL_S = schedule.STALL_S
MAX_RETRIES = 12  # about 10 minutes of backoff, then the match is marked failed
BACKOFF_MAX_S = 60
NODES_S = 1.0  # how long a worker's view of the live nodes serves it
REFIT_S = 0.5  # a worker fits a pool's ratings at most this often as it records matches


T = TypeVar("T")


def once(make: Callable[[], T]) -> Callable[[], T]:
    """``make()`` the first time, under a lock: a worker's threads share one of each
    (the first tasks of a fresh worker all ask at once, and starting the embedded
    PostgreSQL twice in one process breaks it)."""
    lock = threading.Lock()
    made: list[T] = []

    @functools.wraps(make)
    def get() -> T:
        with lock:
            if not made:
                made.append(make())
            return made[0]

    return get


@once
def settings() -> Settings:
    return Settings.from_env()


@once
def store() -> Store:
    return Store(database_url(settings()), max_size=4, fit_absent_s=settings().fit_absent_s)


@once
def host() -> Host:
    return Host(store(), settings())


def referee() -> RefereeClient:
    """The worker's own referee: the address it was given (or its home's)."""
    return referee_at(settings().organizer_referee())


_clients: dict[str, RefereeClient] = {}
_clients_lock = threading.Lock()


def referee_at(address: str) -> RefereeClient:
    """A client of the node at ``address`` (one per node, kept)."""
    with _clients_lock:
        client = _clients.get(address)
        if client is None:
            s = settings()
            client = _clients[address] = RefereeClient(address, s.admin_token(), s.ca_file, s.tls)
        return client


_home: list[str] = []


def home_node() -> str | None:
    """The name of the worker's own referee as a node, asked until it answers (None: not
    known yet)."""
    if not _home:
        try:
            _home[:] = [referee().node_name()]
        except Unavailable as e:
            log.warning("could not ask the referee its node's name: %s", e)
            return None
    return _home[0]


_nodes: list[tuple[float, list[Node]]] = []
_nodes_lock = threading.Lock()


def live_nodes() -> list[Node]:
    """The live referee nodes, read at most every NODES_S by a worker (matches start many
    times a second; a node's coming or going matters within seconds)."""
    with _nodes_lock:
        if _nodes and time.monotonic() - _nodes[0][0] < NODES_S:
            return _nodes[0][1]
    nodes = store().live_nodes()
    with _nodes_lock:
        _nodes[:] = [(time.monotonic(), nodes)]
    return nodes


def presence() -> dict[str, tuple[int, int]]:
    """The bots connected to any node: each one's concurrency and the matches it is in.
    Read afresh for every look of the ladder (one indexed read): a look must see who is
    connected as it begins, and a worker's copy would hold bots that left."""
    found = store().presence()
    return {bot: (w.concurrency, w.playing) for bot, w in found.items()}


def referee_for(seats: list[str]) -> RefereeClient:
    """The node to play a match with these seats on (arena/domain/placement.py); the worker's
    own referee when no node's lease holds (a referee of an older version)."""
    found = store().presence(seats)
    where = {b: w.node for b, w in found.items()}
    home = home_node()
    node = place(live_nodes(), where, home, any(map(is_version, seats)))
    if node is None or node.name == home:
        return referee()
    return referee_at(node.address)


def _backoff(retries: int) -> int:
    return int(min(2**retries, BACKOFF_MAX_S))


# Planning and finishing are idempotent: a database that is down, or anything unexpected,
# is tried again with backoff rather than leaving a run "starting" until the scheduler's
# sweep comes by; only what no retry can mend (no such run, an invalid one) is not.
AGAIN = {
    "autoretry_for": (Exception,),
    "dont_autoretry_for": (NotFound, Invalid),
    "retry_backoff": 2,
    "retry_backoff_max": BACKOFF_MAX_S,
}


@app.task(name="arena.start_run", bind=True, max_retries=None, **AGAIN)
def start_run(self: Any, run_id: int) -> int:
    try:
        ids = runs.plan_run(store(), run_id, settings().run_window)
    except NotFound as e:
        log.error("run %d: %s", run_id, e)
        return 0
    log.info("run %d: its first %d matches sent", run_id, len(ids))
    if ids:
        send_matches(ids)
    else:
        finish_run.delay(run_id)
    return len(ids)


_task = threading.local()  # what the task this thread runs is about


@signals.task_prerun.connect
def _task_begins(task: Any, args: Any = (), kwargs: Any = None, **_: Any) -> None:
    """The lines logged while a match's task runs carry its id (arena/logs.py): the
    task's, and Celery's own of its retry, success or failure."""
    if task.name == play_match.name:
        _task.about = contextlib.ExitStack()
        _task.about.enter_context(about_match((kwargs or {}).get("match_id") or args[0]))


@signals.task_postrun.connect
def _task_ends(**_: Any) -> None:
    about = getattr(_task, "about", None)
    if about is not None:
        _task.about = None
        about.close()


@app.task(name="arena.play_match", bind=True, max_retries=MAX_RETRIES)
def play_match(self: Any, match_id: str) -> str:
    run_id = None
    run_done: bool | None = None  # None: ask the store
    try:
        run_id, run_done = play(match_id)
    except Unavailable as e:
        if self.request.retries >= MAX_RETRIES:
            log.error("match %s failed after %d tries: %s", match_id, self.request.retries + 1, e)
            store().set_status(match_id, "failed")
        else:
            log.warning("match %s: %s; trying again", match_id, e)
            raise self.retry(exc=e, countdown=_backoff(self.request.retries)) from None
    except ArenaError as e:  # refused (no such match, a bad one): trying again would not help
        log.error("match %s: %s", match_id, e)
        store().set_status(match_id, "failed")
    if run_id is not None and (store().run_done(run_id) if run_done is None else run_done):
        finish_run.delay(run_id)
    return match_id


def play(match_id: str) -> tuple[int | None, bool | None]:
    """Play the match and record it (:func:`arena.usecases.matches.play`): on the node
    that holds its bots, with a process for each hosted version seated; a ladder's freed
    slot filled at once, a test's next pairs sent. Its run, and whether that run is done
    (None: not known)."""

    def on_referee(match: MatchRow, seats: list[str]) -> str:
        # a person's seat is held by the web, which dials the arena's first address:
        # the worker's own referee (docs/web.md, "Playing a bot yourself")
        node = referee() if match.human is not None else referee_for(seats)
        log.info("match %s: played by the referee at %s", match_id, node.address)
        clock = TimeControl.from_json(match.clock)
        with host().seated(match_id, seats) as hosted:
            keys = hosted | ({HUMAN_BOT: match_id} if match.human is not None else {})
            sent = time.monotonic()
            record = node.run_match(match_id, match.rules, seats, match.seed, clock, keys)
            MATCH_SECONDS.observe(time.monotonic() - sent)
            return record

    def freed(pool: str) -> None:
        ladder_step([pool], ended=match_id)

    window = settings().run_window
    played = matches.play(store(), match_id, on_referee, freed=freed, fit=fit_due, window=window)
    if not played.played:
        log.info("match %s was done before, or its run is paused: not playing it", match_id)
    else:
        log.info("match %s %s", match_id, "recorded" if played.recorded else "was recorded before")
    send_matches(played.next)
    return played.run_id, played.run_done


@app.task(name="arena.ladder", bind=True, max_retries=0)
def fill_ladder(self: Any, pool: str | None = None) -> list[str]:
    """Fill the free slots of the pool's ladder (default: of every ladder switched on)
    with the matches the matchmaker picks, and send them to be played. Sent by the beat
    every few seconds; the worker that records a ladder match fills its slot at once
    (:func:`ladder_step`). Two at once take turns (the store makes a ladder's matches
    under its lock)."""
    return ladder_step([pool] if pool else store().running_ladders())


def ladder_step(pools: list[str], ended: str | None = None) -> list[str]:
    """Fill the ladders' free slots and send their new matches; their ids. ``ended``: a
    ladder match the referee has ended, about to be recorded (its slot counts as free:
    the next match is on its way while this one is recorded)."""
    if not pools:
        return []
    try:
        connected = presence()
        made = {p: ladder.fill(store(), p, connected, ended=ended) for p in pools}
    except ArenaError as e:  # the next look will do (pairing dial-ins blind would not)
        log.warning("ladder: %s", e)
        return []
    for pool, some in made.items():
        LADDER_MATCHES.labels(pool).inc(len(some))
    ids = [m for some in made.values() for m in some]
    if ids:
        log.info("ladder: %d matches started (%s)", len(ids), ", ".join(ids))
        send_matches(ids)
    return ids


@app.task(name="arena.sprt", bind=True, max_retries=None, **AGAIN)
def step_sprt(self: Any, test_id: int) -> list[str]:
    """Start a sequential test, or push one on: its next pairs, sent to be played
    (docs/testing.md). Every match of the test that is recorded steps it too."""
    ids = sprts.step_sprt(store(), test_id)
    send_matches(ids)
    return ids


ANALYSIS_NICE = 10  # the analyses' process yields the CPU to the matches' processes
YIELD_S = 5  # an analysis put back behind the matches waiting comes again after this long

_analyser: list[ProcessPoolExecutor] = []
_analyser_lock = threading.Lock()


def analyser() -> ProcessPoolExecutor:
    """The worker's one process for analyses: its CPU-bound search holds neither this
    process's lock on Python (the matches' tasks run in its threads) nor the CPU while a
    match's processes want it (it runs at nice ANALYSIS_NICE). Made again when it died."""
    with _analyser_lock:
        if not _analyser:
            spawn = multiprocessing.get_context("spawn")  # a fork of a threaded process may hang
            pool = ProcessPoolExecutor(
                1, mp_context=spawn, initializer=os.nice, initargs=(ANALYSIS_NICE,)
            )
            _analyser.append(pool)
        return _analyser[0]


def analysed_aside(record: dict[str, Any], seat: int, match_id: str, samples: int) -> Any:
    """:func:`arena.bots.analysis.analysed`, in the worker's process for analyses. That
    process killed (out of memory, say), the next try has a new one."""
    pool = analyser()
    try:
        return pool.submit(analysed, record, seat, match_id, samples).result()
    except BrokenProcessPool:
        with _analyser_lock:
            if _analyser and _analyser[0] is pool:
                _analyser.clear()
        pool.shutdown(wait=False)
        raise Unavailable("the worker's process for analyses died; trying again") from None


def waiting(*queues: str) -> int:
    """How many tasks wait in the broker's ``queues``, taken by no worker yet (the
    broker's own count; a queue not made yet, or empty on Redis, has none)."""
    total = 0
    with app.connection_for_write() as conn:
        for name in queues:
            # a channel of its own: on RabbitMQ a failed look closes it
            with conn.channel() as channel, contextlib.suppress(*conn.channel_errors):
                total += Queue(name, channel=channel).queue_declare(passive=True).message_count
    return total


@app.task(name="arena.analyse", bind=True, max_retries=MAX_RETRIES, **AGAIN)
def analyse_match(self: Any, match_id: str, samples: int) -> int:
    """Analyse the match's pending seats at ``samples`` drawn states per decision. Never
    ahead of play: while a match or a control task waits in the broker, the analysis is
    put back behind them (sent again, YIELD_S later) and its slot goes to them."""
    if waiting(settings().control_queue, settings().queue):
        analyses.sent_again(store(), match_id, samples)
        analyse_match.apply_async((match_id, samples), countdown=YIELD_S)
        log.info("match %s: its analysis put back behind the tasks waiting", match_id)
        return 0
    done = analyses.run_analysis(store(), match_id, samples, analysed_aside)
    log.info("match %s: %d seats analysed at %d samples", match_id, done, samples)
    return done


@app.task(name="arena.check_version", bind=True, max_retries=MAX_RETRIES)
def check_version(self: Any, version: str) -> str:
    """Check the new version and judge it (:func:`arena.usecases.checks.check`); then
    this machine's unpacked folders pruned. Tried again while no sandbox or referee can be
    had, up to MAX_RETRIES; played again after a crash, the matches already recorded are
    not played twice."""
    last = self.request.retries >= MAX_RETRIES
    try:
        judged = checks.check(store(), version, play, last_try=last)
    except Unavailable as e:
        log.warning("version %s: %s; trying again", version, e)
        raise self.retry(exc=e, countdown=_backoff(self.request.retries)) from None
    reason = f" ({judged.reason})" if judged.reason else ""
    log.info("version %s: %s%s", version, judged.status, reason)
    host().prune()  # the version retired or rejected here: its folder goes, once unused
    return judged.status


def send_matches(ids: list[str]) -> None:
    """A play_match for each match, handed to the broker in batches (on Redis, one
    round trip per thousand) rather than one at a time."""
    if not ids:
        return
    with app.producer_or_acquire() as producer, producer.batch():
        for match_id in ids:
            play_match.apply_async((match_id,), producer=producer)


_fitted: dict[str, float] = {}  # pool: when this worker last fitted it (monotonic)
_fitted_lock = threading.Lock()


def fit_due(pool: str) -> bool:
    """Whether to fit the pool's ratings again as a rated match of it is recorded: unless
    this worker did so less than REFIT_S ago. A busy pool is fitted a few times a second,
    not after each of its dozens of matches a second; the matches recorded in between are
    counted together by the next fit (the run's end, or the minute's sweep, fits what is
    left)."""
    now = time.monotonic()
    with _fitted_lock:
        if now - _fitted.get(pool, -REFIT_S) < REFIT_S:
            return False
        _fitted[pool] = now
        return True


@app.task(name="arena.finish_run", bind=True, max_retries=None, **AGAIN)
def finish_run(self: Any, run_id: int) -> bool:
    """A run with no match left to play moved on: its next round paired and sent (a
    knockout, a Swiss), or its final table written."""
    moved = runs.advance_run(store(), run_id, settings().run_window)
    if moved.finished:
        log.info("run %d finished", run_id)
    send_matches(moved.next)
    return moved.finished


@app.task(name="arena.dispatch_due", bind=True, max_retries=0)
def dispatch_due(self: Any, now: str | None = None) -> list[int]:
    """Start every scheduled run that is due at ``now`` (ISO time; default: the clock)."""
    at = datetime.fromisoformat(now) if now else datetime.now(UTC)
    return dispatch(store(), at, settings().analysis_queue)


def dispatch(s: Store, now: datetime, analysis_queue: str) -> list[int]:
    """The scheduler's tick (:func:`arena.usecases.schedule.tick`), its work sent; the
    runs it made. Then the analyses whose task was lost are sent again, when none waits
    in their queue (one waiting there may be any of them: it was not lost)."""
    due = schedule.tick(s, now, STALL_S)
    for run_id in due.start:
        start_run.delay(run_id)
    for run_id in due.finish:
        finish_run.delay(run_id)
    send_matches(due.matches)
    if not waiting(analysis_queue):
        for match_id, samples in analyses.lost_analyses(s, now):
            analyse_match.delay(match_id, samples)
    return due.started


def _counter(outcome: str) -> Callable[..., None]:
    def count(sender: Any = None, **kwargs: Any) -> None:
        TASKS.labels(sender.name, outcome).inc()

    return count


# Every task's end, counted once where it ran (arena/metrics.py): a worker's threads share
# its one process, and these counts.
for _signal, _outcome in (
    (signals.task_success, "success"),
    (signals.task_failure, "failure"),
    (signals.task_retry, "retry"),
):
    _signal.connect(_counter(_outcome), weak=False, dispatch_uid=f"arena-tasks-{_outcome}")

"""The tasks: thin, each takes ids and hands the work to a use case and the referee.

- ``arena.start_run``: plan the run's matches (once) and send a ``play_match`` for each
  one not yet recorded.
- ``arena.play_match``: ask the referee to play the match (RunMatch, over gRPC) and record
  it through the store's exactly-once path; the run's last match sends ``finish_run``.
  Matches requested outside runs (``RequestMatch``, ``arena challenge``) come here too.
- ``arena.finish_run``: the final standings, once.
- ``arena.sprt``: start a sequential test; every match of it recorded steps it on (its
  next pairs, or its verdict).
- ``arena.ladder`` (every few seconds, from ``arena beat``; and in ``play_match`` as a
  ladder match is recorded): fill the ladders' free slots (arena/usecases/ladder.py).
- ``arena.dispatch_due`` (every minute, from ``arena beat``): start the runs whose
  schedule is due, pick up runs and requested matches whose tasks were lost, and refit
  the leaderboard intervals of the pools that changed.

Every task may run twice (acks_late: a worker killed mid-task has it delivered again) and
none waits for another. A match already recorded is never played again; one playing in
the referee is joined, not restarted.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from arena.domain.absence import credit
from arena.domain.clock import TimeControl
from arena.domain.identity import is_version, owner_bot
from arena.domain.nodes import Node
from arena.domain.placement import place
from arena.domain.schedule import due_firing
from arena.embedded import database_url
from arena.engine import Rules
from arena.errors import ArenaError, Invalid, NotFound, Unavailable
from arena.hosted.host import Host
from arena.settings import Settings
from arena.store.store import Store
from arena.usecases import ladder, matches, runs, sprts, versions
from arena.usecases.house import house_version
from arena.usecases.ratings import refit
from workers.app import app
from workers.client import RefereeClient

log = logging.getLogger(__name__)

STALL_S = 120  # a run with matches to play and no progress this long gets them sent again
MAX_RETRIES = 12  # about 10 minutes of backoff, then the match is marked failed
BACKOFF_MAX_S = 60
CHECK_MATCHES = 2  # unrated matches a new version plays against a house bot
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
    return Store(database_url(settings()), max_size=4)


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
        ids = runs.plan_run(store(), run_id)
    except NotFound as e:
        log.error("run %d: %s", run_id, e)
        return 0
    log.info("run %d: %d matches to play", run_id, len(ids))
    if ids:
        send_matches(ids)
    else:
        finish_run.delay(run_id)
    return len(ids)


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
    """Play the match and record it, unless it was recorded (or failed) before: marked
    running as it is read, played by the referee with a process for each hosted version
    seated, recorded through the exactly-once path. Its run, and whether that run is done
    (None: not known)."""
    match, seats = matches.claim(store(), match_id)
    if match.status in ("finished", "failed"):
        log.info("match %s was %s before; not playing it again", match_id, match.status)
        return match.run_id, None
    clock = TimeControl.from_json(match.clock)
    node = referee_for(seats)
    log.info("match %s: played by the referee at %s", match_id, node.address)
    with host().seated(match_id, seats) as keys:
        record = node.run_match(match_id, match.rules, seats, match.seed, clock, keys)
    if match.ladder_id is not None:  # its slot is free: the ladder fills it now, here
        ladder_step([match.pool], ended=match_id)
    # credited as the match's policy says (an absent bot's team loses), the pool's ratings
    # fitted again unless this worker fitted them a moment ago
    credited = functools.partial(credit, policy=match.absent)
    done = matches.record(store(), match_id, record, credited, fit=fit_due(match.pool))
    log.info("match %s %s", match_id, "recorded" if done.recorded else "was recorded before")
    if match.sprt_id is not None:  # its test counts it, and goes on or stops
        send_matches(sprts.step_sprt(store(), match.sprt_id))
    return match.run_id, done.run_done


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
        ids = [m for p in pools for m in ladder.fill(store(), p, connected, ended=ended)]
    except ArenaError as e:  # the next look will do (pairing dial-ins blind would not)
        log.warning("ladder: %s", e)
        return []
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


@app.task(name="arena.check_version", bind=True, max_retries=MAX_RETRIES)
def check_version(self: Any, version: str) -> str:
    """Play the new version CHECK_MATCHES unrated matches against a house bot, each side
    in turn, and judge it: active if it played them cleanly (the one active before it
    retired), else rejected saying why; then this machine's unpacked folders pruned.
    Played again after a crash, the matches already recorded are not played twice."""
    s = store()
    row = s.version(version)
    if row.status != "checking":
        return row.status
    try:
        house = house_version(s)
        ids = {b.name: b.id for b in s.bots() if b.name in (version, house)}
        faults = []
        for k in range(CHECK_MATCHES):
            match_id = f"check-{row.id}-{k + 1}"
            seats = [version, house][:: 1 if k % 2 == 0 else -1]
            matches.request(s, match_id, Rules(), [ids[b] for b in seats], rated=False)
            play(match_id)
            found = s.match(match_id)
            assert found is not None
            counts = found[0].faults.get(version, {})
            faults += [f"{n} {kind} in {match_id}" for kind, n in counts.items() if n]
    except Unavailable as e:  # no sandbox here, the referee away: another try, or give up
        if self.request.retries < MAX_RETRIES:
            log.warning("version %s: %s; trying again", version, e)
            raise self.retry(exc=e, countdown=_backoff(self.request.retries)) from None
        faults = [f"could not be checked after {MAX_RETRIES + 1} tries: {e}"]
    except ArenaError as e:
        faults = [str(e)]
    reason = ""
    if faults:
        reason = f"{', '.join(faults)} (arena bot logs {owner_bot(version)} MATCH_ID)"
    judged = versions.judge(s, row.id, reason)
    log.info("version %s: %s%s", version, judged.status, f" ({reason})" if reason else "")
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
    finished = runs.finish_run(store(), run_id)
    if finished:
        log.info("run %d finished", run_id)
    return finished


@app.task(name="arena.dispatch_due", bind=True, max_retries=0)
def dispatch_due(self: Any, now: str | None = None) -> list[int]:
    """Start every scheduled run that is due at ``now`` (ISO time; default: the clock)."""
    at = datetime.fromisoformat(now) if now else datetime.now(UTC)
    return dispatch(store(), at)


def dispatch(s: Store, now: datetime) -> list[int]:
    started = []
    for t in s.scheduled_tournaments():
        assert t.schedule is not None
        firing = due_firing(t.schedule, t.fired_at, now)
        if firing is None:
            continue
        run = runs.create_run(s, t, fired_for=firing)
        if run is not None:  # None: another scheduler started this firing
            log.info("tournament %s: run %d for %s", t.name, run.id, firing.isoformat())
            start_run.delay(run.id)
            started.append(run.id)
    for run_id, status, unfinished in s.stalled_runs(now, STALL_S):
        log.warning("run %d was left %s; picking it up", run_id, status)
        if status == "starting":
            start_run.delay(run_id)
        elif unfinished:  # sent again: a copy still queued finds its match recorded
            send_matches(unfinished)
        else:
            finish_run.delay(run_id)
    stalled = s.stalled_matches(now, STALL_S)
    if stalled:  # a copy still queued finds its match recorded; one playing is joined
        log.warning("%d requested matches were left behind; sending them again", len(stalled))
        send_matches(stalled)
    for test_id in s.running_sprts():  # a step lost with its worker is taken again
        send_matches(sprts.step_sprt(s, test_id))
    for pool in s.pools():  # refit what changed, so that pages seldom have to
        refit(s, pool)
    return started

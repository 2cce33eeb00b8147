"""The referee's live events: every action of a match played between bot processes is
told, each event whole; and a channel that is stalled or gone never holds a decision up:
the matches play to their end while its events are dropped and counted, the queue kept
within its limit."""

from __future__ import annotations

import asyncio
import json
import threading

from arena.domain.clock import TimeControl
from arena.engine import Rules
from arena.read.live import live_table
from referee.live import QUEUE_LIMIT, Publisher
from referee.local import play_local

CLOCK = TimeControl(decision_ms=5000, time_bank_ms=0, reconnect_grace_ms=5000)
BOTS = ["house:random", "house:heuristic"]
GAMES = 100  # more events than the queue holds


class Channel:
    """A connection that keeps what is sent on it (the real one: tests/store)."""

    def __init__(self) -> None:
        self.sent: list[dict] = []
        self.closed = False

    def execute(self, sql: str, params: tuple) -> None:
        self.sent += [json.loads(p) for p in params[1]]

    def close(self) -> None:
        self.closed = True


def play(games: int, publisher: Publisher, tmp_path) -> list[dict]:
    records = tmp_path / "records"
    asyncio.run(
        play_local(Rules(), BOTS, games=games, seed=5, clock=CLOCK, records=records,
                   live=publisher.publish)
    )  # fmt: skip
    return [json.loads(p.read_text()) for p in sorted(records.glob("*.json"))]


def test_a_matchs_events_reach_the_channel_in_order_its_last_whole(tmp_path):
    channel = Channel()
    publisher = Publisher("unused", connect=lambda conninfo: channel)
    try:
        (record,) = play(1, publisher, tmp_path)
    finally:
        publisher.close()
    assert channel.closed and publisher.dropped == 0
    events = channel.sent
    last = events[-1]
    assert last["ended"] and last["match"] == record["match_id"]
    assert last["hand"] == len(record["hands"]) - 1
    assert len(last["actions"]) == len(record["hands"][-1]["actions"])
    final = live_table(last, Rules(), record["seats"])
    assert final["score"] == record["result"]["score"]
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs)


def test_a_stalled_channel_drops_events_and_never_holds_the_match_up(tmp_path):
    release = threading.Event()

    def stalled(conninfo: str):
        release.wait()  # the channel never answers while the matches play
        raise OSError("the channel is gone")

    publisher = Publisher("unused", connect=stalled)
    try:
        records = play(GAMES, publisher, tmp_path)
        assert len(records) == GAMES and all(r["result"]["winner"] in (0, 1) for r in records)
        told = sum(len(h["actions"]) + 1 for r in records for h in r["hands"])
        # the thread took one batch (at most the queue's worth) and stalls on it: the rest
        # filled the queue to its limit, and what came after was dropped
        assert told > 2 * QUEUE_LIMIT
        assert publisher._queue.qsize() == QUEUE_LIMIT
        assert publisher.dropped > 0 and publisher.sent == 0
    finally:
        release.set()
        publisher.close()


def test_a_channel_that_cannot_be_reached_drops_its_batches(tmp_path):
    def absent(conninfo: str):
        raise OSError("connection refused")

    publisher = Publisher("unused", connect=absent)
    try:
        records = play(1, publisher, tmp_path)
    finally:
        publisher.close()
    assert records[0]["result"]["winner"] in (0, 1)
    assert publisher.sent == 0

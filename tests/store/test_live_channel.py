"""The live feed's channel on a real PostgreSQL: the referee's publisher sends, a
listener reads each event whole and in order, and a match recorded tells the channel
at its commit, once."""

from __future__ import annotations

import asyncio
import json

import psycopg

from arena.engine import Rules
from arena.store.live import listen
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from referee.live import Publisher
from tests.webdata import played

PING = {"ping": True}
END = {"match": "end", "seq": 0}


async def until(conninfo: str, last: dict, started: asyncio.Event) -> list[dict]:
    """The payloads sent on the channel after ``started`` is set, up to ``last``."""
    got = []
    stream = listen(conninfo)
    first_read = asyncio.ensure_future(anext(stream))
    # LISTEN is in place once the generator has run to its first wait: a notification of
    # our own, sent and read back, says so without guessing
    while not first_read.done():
        await asyncio.to_thread(_ping, conninfo)
        await asyncio.wait({first_read}, timeout=0.2)
    assert json.loads(first_read.result()) == PING
    started.set()
    async for text in stream:
        event = json.loads(text)
        if event != PING:
            got.append(event)
        if event == last:
            await stream.aclose()
            return got
    raise AssertionError("the channel ended")


def _ping(conninfo: str, payload: dict = PING) -> None:
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("SELECT pg_notify('arena_live', %s)", (json.dumps(payload),))


def test_the_publishers_events_reach_a_listener_whole_and_in_order(store):
    publisher = Publisher(store.conninfo)
    events = [
        {
            "match": f"m{k % 3}",
            "seq": k,
            "hand": k // 9,
            "actions": [{"seat": 0, "type": "raise"}] * k,
        }
        for k in range(1, 40)
    ]

    async def main():
        started = asyncio.Event()
        reading = asyncio.create_task(until(store.conninfo, END, started))
        await started.wait()
        for event in events:
            publisher.publish(event)
        publisher.publish(END)
        return await asyncio.wait_for(reading, 60)

    try:
        got = asyncio.run(main())
    finally:
        publisher.close()
    # a batch keeps each match's latest event: what is read comes in order of seq within
    # each match, equal to what was published, and each match's last event is read
    by_seq = {e["seq"]: e for e in events} | {0: END}
    for event in got:
        assert event == json.loads(json.dumps(by_seq[event["seq"]]))
    for m in ("m0", "m1", "m2"):
        seqs = [e["seq"] for e in got if e["match"] == m]
        assert seqs == sorted(seqs) and seqs[-1] == max(e["seq"] for e in events if e["match"] == m)
    assert publisher.dropped == 0


def test_a_match_recorded_tells_the_channel_at_its_commit_and_once(store):
    rules = Rules()
    bots = [store.register_bot(name)[0].id for name in ("alpha", "beta")]
    request_match(store, "m-live", rules, bots, seed=3)
    record = played(rules, ["alpha", "beta"], 3)

    async def main():
        started = asyncio.Event()
        reading = asyncio.create_task(until(store.conninfo, END, started))
        await started.wait()
        await asyncio.to_thread(record_match, store, "m-live", record)
        await asyncio.to_thread(record_match, store, "m-live", record)  # again: no news
        await asyncio.to_thread(_ping, store.conninfo, END)
        return await asyncio.wait_for(reading, 60)

    told = {"recorded": "m-live", "pool": "paulista/1", "run": None}
    assert asyncio.run(main()) == [told, END]

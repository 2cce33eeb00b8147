"""The live feed end to end on real parts: events sent by the referee's publisher through
PostgreSQL's channel to a web process served by uvicorn, read as server-sent events by
clients on real sockets. Fair play (a sealed twin refused, a run's delay honoured), the
limits, and hostile clients (one that never reads, one reconnecting in a loop, one asking
for a thousand matches) that change nothing for the other viewers nor for the referee."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from arena.domain.tournament import Definition
from arena.engine import Match, Rules
from arena.read.live import live_table
from arena.store.migrate import migrate
from arena.store.store import Store
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from arena.web import create_app, live, server
from referee.live import Publisher
from tests.liveclient import Events, Refused, random_match
from tests.webdata import ORGANIZER, played, start_run

RULES = Rules()


@dataclass
class Site:
    store: Store
    port: int
    feed: Any
    publisher: Publisher
    bots: list[int]


@contextlib.contextmanager
def serving(store: Store) -> Iterator[tuple[int, Any]]:
    """The pages of ``store`` served as ``arena web`` serves them (arena/web/server.py),
    on a free loopback port, once its feed listens on the channel."""
    app = create_app(store, organizer_token=ORGANIZER)
    web = server.web_server(app)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    thread = threading.Thread(target=web.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        assert app.state.feed.listening.wait(60), "the feed never listened"
        yield sock.getsockname()[1], app.state.feed
    finally:
        web.should_exit = True
        thread.join(timeout=30)
        sock.close()


@pytest.fixture
def site(database: str) -> Iterator[Site]:
    migrate(database)
    store = Store(database)
    bots = [store.register_bot(name)[0].id for name in ("alpha", "beta")]
    publisher = Publisher(store.conninfo)
    with serving(store) as (port, feed):
        yield Site(store, port, feed, publisher, bots)
    publisher.close()
    store.close()


def running(site: Site, match_id: str, seed: int = 4) -> None:
    request_match(site.store, match_id, RULES, site.bots, seed=seed)
    site.store.set_status(match_id, "running")


def events_of(match_id: str, seed: int = 4) -> tuple[Match, list[dict[str, Any]]]:
    """A random match as the referee would tell it, and its events."""
    return random_match(RULES, ["alpha", "beta"], seed, match_id)


async def table(viewer: Events) -> tuple[dict[str, Any], float]:
    kind, data, arrived = await asyncio.wait_for(viewer.next(), 60)
    assert kind == "table", (kind, data)
    return data, arrived


def test_a_viewer_sees_every_event_of_a_match_then_its_record(site: Site) -> None:
    running(site, "m-1")
    _, events = events_of("m-1")

    async def main() -> None:
        viewer = await Events.open(site.port, "/matches/m-1/live")
        for event in events:  # one at a time: each is read before the next is sent
            site.publisher.publish(event)
            data, _ = await table(viewer)
            assert data["seq"] == event["seq"] and data["hand"] == event["hand"] + 1
            assert data["state"] == json_like(live_table(event, RULES, ["alpha", "beta"]))
            assert "Score" in data["html"] and "live" in data["html"]
        record = played(RULES, ["alpha", "beta"], 4)
        await asyncio.to_thread(record_match, site.store, "m-1", record)
        kind, data, _ = await asyncio.wait_for(viewer.next(), 60)
        assert (kind, data) == ("recorded", {"match": "m-1"})
        with pytest.raises(EOFError):  # and its stream ends
            await asyncio.wait_for(viewer.next(), 60)
        viewer.close()
        # a finished match's stream says so at once, and ends
        after = await Events.open(site.port, "/matches/m-1/live")
        assert (await after.next())[:2] == ("recorded", {"match": "m-1"})
        with pytest.raises(EOFError):
            await after.next()

    asyncio.run(main())
    assert site.publisher.dropped == 0


def json_like(value: Any) -> Any:
    import json

    return json.loads(json.dumps(value))


def test_a_viewer_that_joins_late_gets_the_table_as_it_stands(site: Site) -> None:
    running(site, "m-2")
    _, events = events_of("m-2")
    half = events[: len(events) // 2]

    async def main() -> None:
        first = await Events.open(site.port, "/matches/m-2/live")
        for event in half:
            site.publisher.publish(event)
        while (await table(first))[0]["seq"] != half[-1]["seq"]:
            pass  # a viewer may skip states, never the latest
        late = await Events.open(site.port, "/matches/m-2/live")
        data, _ = await table(late)
        assert data["seq"] == half[-1]["seq"]
        playing = await Events.open(site.port, "/live/events")
        kind, data, _ = await asyncio.wait_for(playing.next(), 60)
        assert kind == "playing" and [m["id"] for m in data["matches"]] == ["m-2"]
        assert data["matches"][0]["score"] == half[-1]["score"]

    asyncio.run(main())


def test_a_sealed_twin_is_not_shown_live_until_its_twin_is_played(site: Site) -> None:
    duplicate = Definition("dup", bots=("alpha", "beta"), duplicate=True, trusted=True)
    _, ids = start_run(site.store, duplicate)
    found = site.store.match(ids[0])
    assert found is not None
    row, seats = found
    assert row.twin is not None
    site.store.set_status(row.id, "running")

    async def refused() -> Refused:
        with pytest.raises(Refused) as e:
            await Events.open(site.port, f"/matches/{row.id}/live")
        return e.value

    no = asyncio.run(refused())
    assert no.status == 403 and "twin" in no.body
    site.store.set_status(row.twin, "running")
    record_match(site.store, row.twin, played(Rules.parse(row.rules), seats, 1))

    async def shown() -> None:
        viewer = await Events.open(site.port, f"/matches/{row.id}/live")
        _, events = events_of(row.id)
        site.publisher.publish(events[0])
        data, _ = await table(viewer)
        assert data["seq"] == 1

    asyncio.run(shown())


def test_a_delayed_runs_feed_lags_by_its_delay(site: Site) -> None:
    delay = 2
    _, ids = start_run(site.store, Definition("slow", bots=("alpha", "beta"), live_delay_s=delay))
    match_id = ids[0]
    site.store.set_status(match_id, "running")
    _, events = events_of(match_id)

    async def main() -> list[float]:
        viewer = await Events.open(site.port, f"/matches/{match_id}/live")
        lags = []
        for event in events[:3]:
            event = {**event, "at": time.time()}  # stamped now, as the referee does
            site.publisher.publish(event)
            data, arrived = await table(viewer)
            assert data["seq"] == event["seq"]
            lags.append(arrived - event["at"])
        # and the match's end is told as late
        recorded_at = time.time()
        record = played(RULES, ["alpha", "beta"], 5)
        await asyncio.to_thread(record_match, site.store, match_id, record)
        kind, _, arrived = await asyncio.wait_for(viewer.next(), 60)
        assert kind == "recorded"
        lags.append(arrived - recorded_at)
        return lags

    lags = asyncio.run(main())
    assert min(lags) >= delay, lags


def test_limits_refuse_clearly(site: Site) -> None:
    running(site, "m-3")

    async def main() -> None:
        with pytest.raises(Refused) as e:
            await Events.open(site.port, "/matches/no-such-match/live")
        assert e.value.status == 404
        open_ = [
            await Events.open(site.port, "/matches/m-3/live") for _ in range(live.MAX_PER_ADDRESS)
        ]
        with pytest.raises(Refused) as e:
            await Events.open(site.port, "/matches/m-3/live")
        assert e.value.status == 429 and "one address" in e.value.body
        other = await Events.open(site.port, "/matches/m-3/live", source="127.0.0.2")
        other.close()
        for viewer in open_:
            viewer.close()

    asyncio.run(main())


class Cut(logging.Handler):
    """Set once the server cuts a connection that does not read."""

    def __init__(self) -> None:
        super().__init__()
        self.happened = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("cut a connection"):
            self.happened.set()


def test_hostile_clients_change_nothing_for_other_viewers(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server, "WRITE_STALL_S", 1.0)
    cut = Cut()
    logging.getLogger("arena.web.server").addHandler(cut)
    logging.getLogger("arena.web.server").setLevel(logging.INFO)
    running(site, "m-4")
    _, events = events_of("m-4", seed=9)
    events = events * 40  # more than a stuck reader's buffers take (seq restarts: fine)

    async def main() -> None:
        deaf = await Events.open(site.port, "/matches/m-4/live", receive_buffer=4096,
                                 source="127.0.0.3")  # fmt: skip
        viewer = await Events.open(site.port, "/matches/m-4/live", source="127.0.0.2")

        async def reconnecting() -> int:
            for _ in range(200):
                again = await Events.open(site.port, "/matches/m-4/live", source="127.0.0.4")
                again.close()
            return 200

        async def asking() -> int:
            refused = 0
            for k in range(1000):
                try:
                    await Events.open(site.port, f"/matches/m-{k}-x/live", source="127.0.0.5")
                except Refused as e:
                    refused += e.status == 404
            return refused

        loops = asyncio.gather(reconnecting(), asking())
        for k, event in enumerate(events):
            event = {**event, "seq": k + 1}
            site.publisher.publish(event)
            data, _ = await table(viewer)  # the other viewer gets every one, in turn
            assert data["seq"] == k + 1
        assert await loops == [200, 1000]
        assert await asyncio.to_thread(cut.happened.wait, 60), "the deaf client was never cut"
        with pytest.raises((EOFError, ConnectionResetError)):  # its stream is gone
            while True:
                await asyncio.wait_for(deaf.next(), 60)
        deaf.close()

    try:
        asyncio.run(main())
    finally:
        logging.getLogger("arena.web.server").removeHandler(cut)
    assert site.publisher.dropped == 0  # nor did the referee's side notice

"""The feed's viewers, in memory (the real channel and server: test_live_feed.py): a new
viewer is sent the table as it stands once, whatever it was given while its request was
looked at; a viewer that falls behind keeps its latest messages only."""

from __future__ import annotations

import asyncio
import re

from arena.engine import Rules
from arena.read.live import Followed
from arena.web.live import VIEWER_QUEUE, Feed, Watched
from tests.liveclient import random_match


def told(match_id: str) -> list[dict]:
    return random_match(Rules(), ["a", "b"], 2, match_id)[1]


def seqs(data: bytes) -> list[int]:
    return [int(n) for n in re.findall(rb"^id: (\d+)$", data, re.M)]


def feed_of(match_id: str) -> Feed:
    feed = Feed(None, render=lambda info, state: "<p>table</p>", playing=lambda rows: "")  # type: ignore[arg-type]
    watched = feed.matches[match_id] = Watched(match_id)
    watched.info = Followed(match_id, Rules(), ["a", "b"], "paulista/1", None, None, False, 0,
                            "running")  # fmt: skip
    return feed


def test_a_new_viewer_gets_the_table_as_it_stands_once() -> None:
    async def main() -> None:
        feed = feed_of("m")
        events = told("m")
        viewer = feed.watch("match:m", "10.0.0.1")
        for event in events[:3]:  # they come while its request is looked at
            feed.heard_event(event)
        first = feed.greet(viewer)
        assert [seqs(m) for m in first] == [[3]]
        feed.heard_event(events[3])
        assert seqs(await viewer.take(1)) == [4]  # 1 to 3 are not sent after 3

    asyncio.run(main())


def test_a_viewer_that_falls_behind_keeps_its_latest_messages() -> None:
    async def main() -> None:
        feed = feed_of("m")
        events = told("m")
        assert len(events) > VIEWER_QUEUE + 2
        viewer = feed.watch("match:m", "10.0.0.1")
        for event in events:
            feed.heard_event(event)
        taken = seqs(await viewer.take(1))
        assert taken == [e["seq"] for e in events][-VIEWER_QUEUE:]

    asyncio.run(main())

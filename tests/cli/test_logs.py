"""The processes' logs: a level and a format for each (``--log-level``, ``--log-format``,
``ARENA_LOG_LEVEL``, ``ARENA_LOG_FORMAT``), start-up at INFO, one JSON object a line for
log shippers, and the match a line is about on every such line (arena/logs.py)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena import logs
from arena.errors import Invalid
from tests.cli.common import arena, organizer_env, served_log


@pytest.fixture
def captured() -> Iterator[Any]:
    """Sets up the logging into a buffer: ``captured(form)`` gives the buffer; the
    logging as it was comes back after."""
    root = logging.getLogger()
    before = root.handlers[:], root.level

    def setup(form: str) -> io.StringIO:
        buffer = io.StringIO()
        logs.configure("debug", form, buffer)
        return buffer

    yield setup
    root.handlers[:], _ = before
    root.setLevel(before[1])


def test_a_line_logged_about_a_match_carries_its_id_in_its_tasks_too(captured: Any) -> None:
    buffer = captured("json")
    log = logging.getLogger("arena.test")

    async def started() -> None:
        log.info("in a task it started")

    async def match() -> None:
        with logs.about_match("m-42"):
            log.info("dealt")
            await asyncio.create_task(started())
        log.info("after")

    asyncio.run(match())
    try:
        raise ValueError("bad")
    except ValueError:
        log.exception("failed")
    every = [json.loads(line) for line in buffer.getvalue().splitlines()]
    lines = [x for x in every if x["logger"] == "arena.test"]  # not asyncio's
    assert [(x["message"], x.get("match_id")) for x in lines] == [
        ("dealt", "m-42"), ("in a task it started", "m-42"), ("after", None), ("failed", None),
    ]  # fmt: skip
    assert {x["level"] for x in lines} == {"INFO", "ERROR"}
    assert lines[0]["time"].endswith("Z") and lines[0]["time"][10] == "T"
    assert "ValueError: bad" in lines[-1]["exception"]


def test_the_text_format_shows_the_match(captured: Any) -> None:
    buffer = captured("text")
    with logs.about_match("m-7"):
        logging.getLogger("arena.test").warning("late by %d ms", 3)
    logging.getLogger("arena.test").info("no match")
    assert buffer.getvalue().splitlines() == [
        "WARNING arena.test match=m-7: late by 3 ms", "INFO arena.test: no match",
    ]  # fmt: skip


def test_a_level_or_format_that_is_neither_is_refused() -> None:
    with pytest.raises(Invalid, match="log level 'loud' is not one of debug, info"):
        logs.configure("loud")
    with pytest.raises(Invalid, match="log format 'xml' is not one of text, json"):
        logs.configure("info", "xml")


@pytest.mark.usefixtures("migrated")
def test_arena_serve_logs_json_lines_and_starts_at_info(database: str, tmp_path: Path) -> None:
    env = organizer_env(database, tmp_path / "home")
    text = served_log(env, "--log-format", "json", "--log-level", "debug")
    lines = [json.loads(line) for line in text.splitlines()]  # every line, or it fails here
    assert {x["level"] for x in lines} >= {"DEBUG", "INFO"}
    started = [x for x in lines if x["message"].startswith("referee listening on ")]
    assert [(x["level"], x["logger"]) for x in started] == [("INFO", "arena.cli.servers")]


@pytest.mark.usefixtures("migrated")
def test_arena_log_level_warning_silences_the_start_up_line(database: str, tmp_path: Path) -> None:
    env = organizer_env(database, tmp_path / "home")
    assert "INFO arena.cli.servers: referee listening on " in served_log(env)  # by default
    quiet = served_log(env | {"ARENA_LOG_LEVEL": "warning"})
    assert "referee listening" not in quiet and "INFO" not in quiet, quiet
    bad = arena("serve", env=env | {"ARENA_LOG_LEVEL": "chatty"})
    assert bad.returncode == 1, bad.stderr
    assert bad.stderr.startswith("arena: ARENA_LOG_LEVEL 'chatty' is not one of debug, ")


def test_every_line_of_a_worker_about_a_match_carries_its_id(arena_factory: Any) -> None:
    played = arena_factory(None, ARENA_LOG_FORMAT="json")
    played.bots(alpha="house:random", beta="house:random")
    played.worker()
    ids = played.challenge(["alpha", "beta"], 2)
    played.wait_matches(ids, finished=2)
    played.processes.stop(["worker", "serve"])
    parsed = {}
    for name in ("worker", "serve"):  # Celery's lines too: one JSON object each
        lines = (played.processes.logs / f"{name}.log").read_text().splitlines()
        # but for what Celery prints on standard output as it stops, whatever the logging
        said = [x for x in lines if x and x != "worker: Warm shutdown (MainProcess)"]
        parsed[name] = [json.loads(line) for line in said]
    for match_id in ids:
        about = [x for x in parsed["worker"] if match_id in x["message"]]
        assert any("recorded" in x["message"] for x in about), parsed["worker"]
        assert {x.get("match_id") for x in about} == {match_id}, about

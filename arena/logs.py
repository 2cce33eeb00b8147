"""The arena's logs: one set-up for every process of the command line (:func:`configure`),
in text or as one JSON object a line, and the match a line is about (:func:`about_match`).

The code that plays or records a match runs inside ``about_match(match_id)``; every line
logged meanwhile in that thread or asyncio task carries the id: ``match=ID`` in text,
``"match_id"`` in JSON (docs/operations.md, Logs). An asyncio task copies the context when
it is created, so the id is set in the task that runs the match, and a task it starts
inherits it; a thread does not.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import IO

from arena.engine import quoted
from arena.errors import Invalid

LEVELS = ("debug", "info", "warning", "error", "critical")
FORMATS = ("text", "json")
TEXT = "%(levelname)s %(name)s%(about)s: %(message)s"

_match: ContextVar[str | None] = ContextVar("arena_match", default=None)


@contextlib.contextmanager
def about_match(match_id: str) -> Iterator[None]:
    """The lines logged inside carry ``match_id`` (in this thread or task, and the tasks
    it starts)."""
    token = _match.set(match_id)
    try:
        yield
    finally:
        _match.reset(token)


class MatchFilter(logging.Filter):
    """Puts the match the line is about on each record: ``match_id`` (None: none)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "match_id", None) is None:
            record.match_id = _match.get()
        return True


class TextFormatter(logging.Formatter):
    """``LEVEL logger match=ID: message``, the traceback after it when there is one."""

    def __init__(self) -> None:
        super().__init__(TEXT)

    def format(self, record: logging.LogRecord) -> str:
        match_id = getattr(record, "match_id", None)
        record.about = f" match={match_id}" if match_id else ""
        return super().format(record)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time`` (ISO 8601, UTC), ``level``, ``logger``,
    ``message``; ``match_id`` when the line is about a match, ``exception`` when one was
    logged (its traceback, newlines escaped like any other)."""

    def format(self, record: logging.LogRecord) -> str:
        at = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        line: dict[str, object] = {
            "time": at.replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        match_id = getattr(record, "match_id", None)
        if match_id:
            line["match_id"] = match_id
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False)


def configure(level: str, form: str = "text", stream: IO[str] | None = None) -> None:
    """The process's logging: every line at ``level`` or above (a name of :data:`LEVELS`,
    any case) to ``stream`` (standard error) in the format ``form`` (of :data:`FORMATS`),
    with its match; Python's warnings too. Replaces what was set before. :class:`Invalid`
    names a level or format that is neither."""
    level, form = choice("log level", level, LEVELS), choice("log format", form, FORMATS)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if form == "json" else TextFormatter())
    handler.addFilter(MatchFilter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.captureWarnings(True)


def choice(what: str, text: str, names: tuple[str, ...]) -> str:
    """``text`` as one of ``names`` (any case); :class:`Invalid` listing them."""
    if text.lower() in names:
        return text.lower()
    raise Invalid(f"{what} {quoted(text)} is not one of {', '.join(names)}")

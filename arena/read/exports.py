"""Exports (docs/exports.md): a run's standings, matches or records, a pool's leaderboard,
a bot's matches or records, as files (CSV or NDJSON: :mod:`arena.domain.exports`) that the
Arena API, the CLI and the web stream.

An export is checked when it is asked for (no such run or bot: NotFound; a format there is
none of: Invalid; too many exports at once: Exhausted), its first chunk read at once, so
that whatever fails, fails before anything is written. Then it is read as it is written:
a run's or a bot's matches come from the store a batch at a time
(:mod:`arena.store.exports`), each batch shown as the pages and GetMatch show matches
(:mod:`arena.read.matches`: sealed ones withheld, hidden cards and seeds for the
organizer alone), and the lines are cut into chunks of at most ``CHUNK_BYTES``: memory
holds a batch and a chunk, whatever the length of the file. The standings and a
leaderboard, a line a bot, are read whole, as their pages read them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Generator, Iterable, Iterator, Mapping
from contextlib import closing
from datetime import UTC, datetime
from typing import Any, NamedTuple

from arena.domain.exports import (
    BOT_EXPORTS,
    MEDIA_TYPES,
    RECORDS,
    RUN_EXPORTS,
    chunks,
    export_kind,
    file_format,
    file_name,
    lines,
)
from arena.domain.identity import owner_bot
from arena.engine import quoted
from arena.errors import NotFound
from arena.read import check_pool
from arena.read.matches import Shown, summaries, told, with_record
from arena.read.ratings import standings as leaderboard_standings
from arena.read.tournaments import run_state
from arena.store.exports import Batches
from arena.store.store import Store

FAULTS = ("timeouts", "rejected", "disconnects", "substituted", "errors")  # a run's table's
STANDINGS = (
    "rank", "bot", "owner", "played", "wins", "losses", "forfeits", "points", "hand_points",
    "hand_points_against", "performance", "performance_low", "performance_high", "los_next",
    "byes", "buchholz", "sonneborn_berger", *(f"faults_{k}" for k in FAULTS),
)  # fmt: skip
MATCHES = (
    "id", "run_id", "test_id", "pool", "rules", "status", "rated", "seats", "teams", "winner",
    "score", "forfeit", "twin", "sealed", "voided", "replay_of", "created_at", "finished_at",
    "listed_at",
)  # fmt: skip
BOT_MATCHES = (*MATCHES, "played_as", "team", "partners", "opponents", "result", "elo_change")
LEADERBOARD = (
    "rank", "bot", "owner", "played_as", "elo", "low", "high", "sd", "wide", "games", "wins",
    "losses", "provisional", "last_played", "state",
)  # fmt: skip
MATCH_BATCH = 500  # matches read from the store at a time, without their records
RECORD_BATCH = 50  # with their records (a few kB to tens of kB each)

Chunks = Generator[bytes, None, None]


class Export(NamedTuple):
    """A file to write: its name, its media type, and its bytes a chunk at a time (close
    the generator to end it early: that frees its connection)."""

    name: str
    media_type: str
    chunks: Chunks


def run_export(
    store: Store,
    run_id: int,
    what: str | None = None,
    fmt: str | None = None,
    *,
    organizer: bool,
    now: datetime | None = None,
) -> Export:
    """A run's standings (the default), matches or records (NDJSON only)."""
    kind = export_kind(what, RUN_EXPORTS)
    fmt = file_format(kind, fmt)
    name = file_name(f"run-{run_id}", kind, fmt)
    if kind == "standings":
        state = run_state(store, run_id, now or datetime.now(UTC), organizer=organizer)
        return _export(name, fmt, STANDINGS, _owned(store, _table(state["standings"])))
    if store.run(run_id) is None:
        raise NotFound(f"no tournament run {run_id}")
    if kind == RECORDS:
        batches = store.run_match_batches(run_id, records=True, batch=RECORD_BATCH)
        return _export(name, fmt, (), _recorded(store, batches, organizer=organizer))
    batches = store.run_match_batches(run_id, records=False, batch=MATCH_BATCH)
    return _export(name, fmt, MATCHES, _listed(store, batches, organizer=organizer))


def pool_export(
    store: Store, pool: str, fmt: str | None = None, *, retired: bool = False
) -> Export:
    """A pool's leaderboard with each rating's interval (retired bots with ``retired``)."""
    fmt = file_format("leaderboard", fmt)
    pool = check_pool(pool)
    rows = leaderboard_standings(store, pool, trends=False, retired=retired)
    lines_ = [{k: v for k, v in r.items() if k != "trend"} for r in rows]  # a chart's
    return _export(file_name(f"pool-{pool}", "leaderboard", fmt), fmt, LEADERBOARD,
                   _owned(store, lines_))  # fmt: skip


def bot_export(
    store: Store,
    bot: str,
    what: str | None = None,
    fmt: str | None = None,
    pool: str | None = None,
    *,
    organizer: bool,
    owner: bool = False,
) -> Export:
    """A bot's matches (the default: each told from its side, as its page lists them) or
    records (NDJSON only), in ``pool`` or in every pool, oldest first; the records as its
    ``owner`` sees them (its own seats' cards too) when the bot's owner asks."""
    kind = export_kind(what, BOT_EXPORTS)
    fmt = file_format(kind, fmt)
    if store.bot(bot) is None:
        raise NotFound(f"no bot named {quoted(bot)}")
    pool = None if pool is None else check_pool(pool)
    name = file_name(f"bot-{bot}" + (f"-{pool}" if pool else ""), kind, fmt)
    if kind == RECORDS:
        batches = store.bot_match_batches(bot, pool, records=True, batch=RECORD_BATCH)
        seen = owner_bot(bot) if owner else None
        return _export(name, fmt, (), _recorded(store, batches, organizer=organizer, owner=seen))
    batches = store.bot_match_batches(bot, pool, records=False, batch=MATCH_BATCH)
    return _export(name, fmt, BOT_MATCHES, _told(store, bot, batches))


def _table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A run's table as the read model gives it, each fault counted (0 when none was)."""
    return [{**r, "faults": dict.fromkeys(FAULTS, 0) | dict(r.get("faults") or {})} for r in rows]


def _owned(store: Store, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Lines naming a bot, each with the bot's owner after its name (as anyone sees it on
    the bots' page)."""
    owners = store.owners([r["bot"] for r in rows])
    out = []
    for row in rows:
        line: dict[str, Any] = {}
        for key, value in row.items():
            line[key] = value
            if key == "bot":
                line["owner"] = owners.get(value, "")
        out.append(line)
    return out


def _listed(store: Store, batches: Batches, *, organizer: bool) -> Iterator[Any]:
    """Each match as lists show it."""
    with closing(batches):
        for batch in batches:
            yield from summaries(store, batch, organizer=organizer)


def _told(store: Store, bot: str, batches: Batches) -> Iterator[Any]:
    """Each match told from the bot's side, as its page lists them."""
    with closing(batches):
        for batch in batches:
            yield from told(store, bot, batch)


def _recorded(
    store: Store, batches: Batches, *, organizer: bool, owner: str | None = None
) -> Iterator[Shown]:
    """Each match with its record as the caller may see it (GetMatch's answer)."""
    with closing(batches):
        for batch in batches:
            shown = summaries(store, batch, organizer=organizer)
            for (row, _), summed in zip(batch, shown, strict=True):
                yield with_record(row, summed, organizer=organizer, owner=owner)


def _export(
    name: str, fmt: str, columns: tuple[str, ...], rows: Iterable[Mapping[str, Any]]
) -> Export:
    """The export, its first chunk read now (what fails, fails before anything is sent)."""
    pieces = chunks(lines(fmt, columns, rows))
    first = next(pieces, None)

    def rest() -> Chunks:
        with closing(pieces):
            if first is not None:
                yield first
            yield from pieces

    return Export(name, MEDIA_TYPES[fmt], rest())


async def streamed(pieces: Chunks) -> AsyncIterator[bytes]:
    """An export's chunks for an edge on an event loop: each read in a thread, the export
    closed (its connection freed) when the reader goes away or the file ends."""
    reading: asyncio.Future[bytes | None] | None = None
    try:
        while True:
            reading = asyncio.ensure_future(asyncio.to_thread(next, pieces, None))
            chunk = await asyncio.shield(reading)  # a cancelled reader lets the read end
            if chunk is None:
                return
            yield chunk
    finally:
        if reading is not None and not reading.done():
            await asyncio.wait([reading])
        await asyncio.to_thread(pieces.close)

"""Exports (arena/read/exports.py) of a real recorded run on PostgreSQL, parsed back (the
csv module, json a line) and compared with the read model: the run's standings
(run_state), its matches (the summaries lists show), their records (GetMatch's: a
visitor's without seed or hidden card, the organizer's whole), a sealed duplicate twin
withheld from visitors until its twin is played; a pool's leaderboard; a bot's matches
told from its side; what is refused, and the store's cap on exports at once."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from arena.domain.exports import CSV, NDJSON
from arena.engine import Rules, public_record
from arena.errors import Exhausted, Invalid, NotFound
from arena.read import exports, ratings
from arena.read.matches import summaries, told
from arena.read.tournaments import run_state
from arena.store.exports import EXPORTS_AT_ONCE
from arena.store.store import Store
from arena.usecases.matches import record as record_match
from arena.usecases.runs import finish_run
from tests.web.test_runs import WEEKLY
from tests.webdata import RUN_SEEDS, played, start_run

OWNERS = {"ana": "zé", "bia": "lia", "caio": ""}


def read(export: exports.Export) -> list[dict[str, Any]]:
    """An export's rows as a reader gets them back: csv.DictReader, or json a line."""
    text = b"".join(export.chunks).decode()
    if export.name.endswith(".csv"):
        assert export.media_type.startswith("text/csv")
        return list(csv.DictReader(io.StringIO(text, newline="")))
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def cell(value: Any) -> str:
    """A value as docs/exports.md says a CSV cell writes it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return " ".join(cell(v) for v in value)
    return str(value)


def as_cells(row: dict[str, Any]) -> dict[str, str]:
    """A read model's row as its CSV line: its mappings flattened into key_subkey."""
    out = {}
    for key, value in row.items():
        if isinstance(value, dict):
            out.update({f"{key}_{k}": cell(v) for k, v in value.items()})
        else:
            out[key] = cell(value)
    return out


@pytest.fixture
def run(store: Store) -> tuple[int, list[str]]:
    """The weekly run (duplicate deals: its matches come in twins) with one match played:
    its twin is not, so it is sealed for everyone but the organizer."""
    for bot, owner in OWNERS.items():
        store.register_bot(bot, owner=owner)
    run_id, ids = start_run(store, WEEKLY)
    play(store, ids[:1])
    return run_id, ids


def play(store: Store, match_ids: list[str]) -> None:
    for match_id in match_ids:
        found = store.match(match_id)
        assert found is not None
        store.set_status(match_id, "running")
        seed = RUN_SEEDS + int(match_id.rpartition("-")[2])
        record_match(store, match_id, played(Rules.parse(found[0].rules), found[1], seed))


def test_standings_read_back_as_run_state_gives_them(store: Store, run: Any) -> None:
    run_id, ids = run
    for organizer in (True, False):
        table = run_state(store, run_id, datetime.now(UTC), organizer=organizer)["standings"]
        for fmt in (CSV, NDJSON):
            export = exports.run_export(store, run_id, "standings", fmt, organizer=organizer)
            assert export.name == f"run-{run_id}-standings.{fmt}"
            back = read(export)
            assert [r["bot"] for r in back] == [r["bot"] for r in table]
            for got, line in zip(back, table, strict=True):
                line = {**line, "owner": OWNERS[line["bot"]]}
                line["faults"] = dict.fromkeys(exports.FAULTS, 0) | line["faults"]
                assert got == (as_cells(line) if fmt == CSV else line)
        assert sum(r["played"] for r in table) == (2 if organizer else 0)  # the sealed twin
    assert list(read(exports.run_export(store, run_id, organizer=False))[0]) == list(
        exports.STANDINGS
    )

    play(store, ids[1:])
    assert finish_run(store, run_id)
    seen = [read(exports.run_export(store, run_id, fmt=NDJSON, organizer=o)) for o in (1, 0)]
    assert seen[0] == seen[1] and sum(r["played"] for r in seen[0]) == 2 * len(ids)


def test_matches_read_back_as_lists_show_them(store: Store, run: Any) -> None:
    run_id, ids = run
    first = ids[0]
    for organizer in (True, False):
        shown = summaries(store, store.run_matches(run_id, limit=100), organizer=organizer)
        by_id = {m["id"]: dict(m) for m in shown}
        as_csv = read(exports.run_export(store, run_id, "matches", CSV, organizer=organizer))
        as_json = read(exports.run_export(store, run_id, "matches", NDJSON, organizer=organizer))
        assert [m["id"] for m in as_json] == ids  # in the order they were planned
        assert [m["id"] for m in as_csv] == ids
        assert {m["id"]: m for m in as_json} == by_id
        assert list(as_csv[0]) == list(exports.MATCHES)
        for got in as_csv:
            assert got == {k: cell(v) for k, v in by_id[got["id"]].items()}
        sealed = by_id[first]
        assert sealed["sealed"] is not organizer and (sealed["score"] is None) is not organizer
        assert datetime.fromisoformat(as_json[0]["created_at"]).utcoffset() is not None


def test_records_are_the_public_ones_but_for_the_organizer(store: Store, run: Any) -> None:
    run_id, ids = run
    play(store, ids[1:4])  # ids[4]'s twin is ids[5]: neither played
    stored = {i: store.match(i)[0].record for i in ids}  # type: ignore[index]
    lines = {
        who: read(exports.run_export(store, run_id, "records", organizer=who == "organizer"))
        for who in ("organizer", "visitor")
    }
    for who, shown in lines.items():
        assert [line["match"]["id"] for line in shown] == ids
        listed = summaries(store, store.run_matches(run_id), organizer=who == "organizer")
        by_id = {line["match"]["id"]: line for line in shown}
        assert {m["id"]: m for m in listed} == {i: line["match"] for i, line in by_id.items()}
        for match_id, record in stored.items():
            got = by_id[match_id]["record"]
            if record is None:
                assert got is None
            elif who == "organizer":
                assert got == record and "seed" in got
            else:
                assert got == public_record(record) and "seed" not in got
    hidden = 0
    for line in lines["visitor"]:
        record = line["record"]
        if record is None:
            continue
        for hand in record["hands"]:
            face_up = {a["card"] for a in hand["actions"] if "card" in a and not a.get("covered")}
            shown_cards = {c for cards in hand["cards"] for c in cards if c is not None}
            assert shown_cards <= face_up  # only cards played face up
            assert all(a.get("card") is None or not a.get("covered") for a in hand["actions"])
            hidden += sum(c is None for cards in hand["cards"] for c in cards)
    assert hidden  # cards never played face up are hidden from the visitor
    assert stored[ids[3]] is not None  # played, and its twin ids[2] too: not sealed


def test_a_sealed_twin_has_no_record_but_for_the_organizer(store: Store, run: Any) -> None:
    run_id, ids = run
    for organizer in (True, False):
        shown = read(exports.run_export(store, run_id, "records", organizer=organizer))
        first = shown[0]
        assert first["match"]["id"] == ids[0] and first["match"]["sealed"] is not organizer
        assert (first["record"] is None) is not organizer
        assert (first["match"]["score"] is None) is not organizer
        assert all(line["record"] is None for line in shown[1:])  # not played


def test_the_leaderboard_reads_back_with_intervals_and_owners(store: Store, run: Any) -> None:
    _, ids = run
    play(store, ids[1:])
    table = ratings.standings(store, "paulista/1", trends=False)
    assert len(table) == 3 and all(s["low"] is not None for s in table)
    for fmt in (CSV, NDJSON):
        export = exports.pool_export(store, "paulista/1", fmt)
        assert export.name == f"pool-paulista-1-leaderboard.{fmt}"
        back = read(export)
        for got, line in zip(back, table, strict=True):
            line = {k: v for k, v in line.items() if k != "trend"}
            line["owner"] = OWNERS[line["bot"]]
            assert got == (as_cells(line) if fmt == CSV else line)
        assert list(back[0])[:3] == ["rank", "bot", "owner"]
    assert read(exports.pool_export(store, "tradicional/2")) == []  # nothing played there
    with pytest.raises(NotFound, match="no pool"):
        exports.pool_export(store, "poker/1")


def test_a_bots_matches_read_back_as_its_page_tells_them(store: Store, run: Any) -> None:
    _, ids = run
    play(store, ids[1:3])
    page = {m["id"]: m for m in told(store, "ana", store.matches(bot="ana", limit=100))}
    assert len(page) == 4
    as_json = read(exports.bot_export(store, "ana", fmt=NDJSON, organizer=False))
    assert {m["id"]: m for m in as_json} == page
    assert [m["id"] for m in as_json] == sorted(page)  # oldest first (planned together)
    as_csv = read(exports.bot_export(store, "ana", fmt=CSV, pool="paulista/1", organizer=False))
    assert list(as_csv[0]) == list(exports.BOT_MATCHES)
    for got in as_csv:
        assert got == {k: cell(v) for k, v in page[got["id"]].items()}
    sealed = [m for m in as_json if m["sealed"]]
    assert [m["result"] for m in sealed] == [None] and sealed[0]["elo_change"] is None
    records = read(exports.bot_export(store, "ana", "records", organizer=True))
    assert [r["match"]["id"] for r in records] == sorted(page)
    assert read(exports.bot_export(store, "ana", pool="tradicional/1", organizer=False)) == []


def test_what_cannot_be_exported_is_refused_at_once(store: Store, run: Any) -> None:
    run_id, _ = run
    with pytest.raises(NotFound, match="no tournament run 999"):
        exports.run_export(store, 999, "matches", organizer=False)
    with pytest.raises(NotFound, match="no tournament run 999"):
        exports.run_export(store, 999, organizer=True)
    with pytest.raises(NotFound, match="no bot named 'nobody'"):
        exports.bot_export(store, "nobody", organizer=False)
    with pytest.raises(Invalid, match="records have no CSV form"):
        exports.run_export(store, run_id, "records", CSV, organizer=True)
    with pytest.raises(Invalid, match="cannot export 'standings': choose matches, records"):
        exports.bot_export(store, "ana", "standings", organizer=False)


def test_the_store_streams_a_few_exports_at_once_and_frees_each(store: Store, run: Any) -> None:
    run_id, ids = run
    reading = [store.run_match_batches(run_id, records=False, batch=1) for _ in range(4)]
    assert [len(next(r)) for r in reading] == [1] * EXPORTS_AT_ONCE
    with pytest.raises(Exhausted, match="exports are being read already"):
        next(store.run_match_batches(run_id, records=False, batch=1))
    reading.pop().close()  # a reader gone away frees its place
    again = store.run_match_batches(run_id, records=True, batch=2)
    assert [m.id for batch in again for m, _ in batch] == ids
    assert sum(len(b) for b in reading[0]) == len(ids) - 1  # the rest of the first


def test_a_reader_gone_away_closes_the_export_once_its_read_ends() -> None:
    """streamed() (the edges' loop over an export): a reader cancelled while a chunk is
    being read lets that read end, then closes the export (its connection freed), and
    never touches the generator while a thread runs it."""
    reading, go_on = threading.Event(), threading.Event()
    ended: list[str] = []

    def pieces() -> exports.Chunks:
        try:
            yield b"first"
            reading.set()
            go_on.wait(30)
            yield b"second"
            yield b"never read"
        finally:
            ended.append("closed")

    async def reader() -> None:
        chunks = exports.streamed(pieces())
        assert await anext(chunks) == b"first"
        waiting = asyncio.ensure_future(anext(chunks))
        await asyncio.to_thread(reading.wait, 30)
        waiting.cancel()  # while the thread reads the second chunk
        assert ended == []
        go_on.set()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert ended == ["closed"]

    asyncio.run(reader())

"""The exports over the Arena API, on real gRPC and PostgreSQL: ExportRun, ExportPool and
ExportBot stream the very bytes of the read model's exports (arena/read/exports.py), for
a visitor and for the organizer, in chunks of at most 32 KiB, the first naming the file;
what cannot be exported gets its status; and the records of a run of 20,000 matches
stream through the RPC with the peak of Python's memory (client and server, one
process) under the bound docs/exports.md states."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from arena.domain.exports import CHUNK_BYTES
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import exports
from arena.store.store import Store
from tests.read.test_export_memory import BOUND, MATCHES, a_run, peak
from tests.read.test_exports import play
from tests.read.test_exports import run as run  # the fixture
from tests.referee.test_api import ORGANIZER
from tests.referee.test_api import arena as arena  # the fixture

WRONG = (("authorization", "Bearer guess"),)


def streamed(replies: Iterator[api.ExportChunk]) -> tuple[str, str, bytes, list[int]]:
    """The file's name, media type and bytes, and each chunk's size."""
    chunks = list(replies)
    assert chunks and chunks[0].name and all(not c.name for c in chunks[1:])
    sizes = [len(c.data) for c in chunks]
    assert all(0 < s <= CHUNK_BYTES for s in sizes) or sizes == [0]
    return chunks[0].name, chunks[0].media_type, b"".join(c.data for c in chunks), sizes


def whole(export: exports.Export) -> tuple[str, str, bytes]:
    return export.name, export.media_type, b"".join(export.chunks)


def test_each_rpc_streams_the_read_models_file(arena: Any, store: Store, run: Any) -> None:
    _, stub = arena
    run_id, ids = run
    play(store, ids[1:4])
    for organizer in (True, False):
        metadata = ORGANIZER if organizer else ()
        for what, fmt in (("", ""), ("matches", "ndjson"), ("records", ""), ("standings", "csv")):
            request = api.ExportRunRequest(id=run_id, what=what, format=fmt)
            name, media, data, _ = streamed(stub.ExportRun(request, metadata=metadata))
            expected = exports.run_export(store, run_id, what, fmt, organizer=organizer)
            assert (name, media, data) == whole(expected), (what, fmt, organizer)
        request_bot = api.ExportBotRequest(bot="ana", what="records", pool="paulista/1")
        got = streamed(stub.ExportBot(request_bot, metadata=metadata))[:3]
        bot = exports.bot_export(store, "ana", "records", pool="paulista/1", organizer=organizer)
        assert got == whole(bot)
    visitor = streamed(stub.ExportRun(api.ExportRunRequest(id=run_id, what="records")))[2]
    organizer = streamed(
        stub.ExportRun(api.ExportRunRequest(id=run_id, what="records"), metadata=ORGANIZER)
    )[2]
    assert b'"seed"' in organizer and b'"seed"' not in visitor
    pool = streamed(stub.ExportPool(api.ExportPoolRequest(format="ndjson")))
    assert pool[0] == "pool-paulista-1-leaderboard.ndjson"
    assert pool[2] == whole(exports.pool_export(store, "paulista/1", "ndjson"))[2]
    assert pool[2].count(b"\n") == 3


def test_an_empty_file_is_one_chunk_naming_it(arena: Any, store: Store, run: Any) -> None:
    _, stub = arena
    request = api.ExportBotRequest(bot="caio", what="records", pool="tradicional/1")
    assert streamed(stub.ExportBot(request)) == (
        "bot-caio-tradicional-1-records.ndjson", "application/x-ndjson; charset=utf-8", b"", [0]
    )  # fmt: skip


@pytest.mark.parametrize(
    ("call", "code", "says"),
    [
        (("ExportRun", api.ExportRunRequest(id=999)), "NOT_FOUND", "no tournament run 999"),
        (("ExportRun", api.ExportRunRequest(id=1, what="records", format="csv")),
         "INVALID_ARGUMENT", "records have no CSV form"),
        (("ExportRun", api.ExportRunRequest(id=1, format="xlsx")), "INVALID_ARGUMENT",
         "no export format 'xlsx'"),
        (("ExportRun", api.ExportRunRequest(id=1, what="crosstable")), "INVALID_ARGUMENT",
         "cannot export 'crosstable'"),
        (("ExportPool", api.ExportPoolRequest(pool="nonsense")), "INVALID_ARGUMENT",
         "no pool 'nonsense'"),
        (("ExportBot", api.ExportBotRequest(bot="nobody")), "NOT_FOUND", "no bot named 'nobody'"),
        (("ExportBot", api.ExportBotRequest(bot="ana", what="standings")), "INVALID_ARGUMENT",
         "cannot export 'standings'"),
    ],
)  # fmt: skip
def test_what_cannot_be_exported_gets_its_status(
    arena: Any, run: Any, call: tuple[str, Any], code: str, says: str
) -> None:
    _, stub = arena
    method, request = call
    with pytest.raises(grpc.RpcError) as caught:
        list(getattr(stub, method)(request, timeout=10))
    assert caught.value.code() == getattr(grpc.StatusCode, code)
    assert says in caught.value.details()


def test_a_wrong_organizer_token_is_refused(arena: Any, run: Any) -> None:
    _, stub = arena
    with pytest.raises(grpc.RpcError) as caught:
        list(stub.ExportRun(api.ExportRunRequest(id=run[0]), metadata=WRONG, timeout=30))
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED


@pytest.mark.long
def test_twenty_thousand_matches_stream_through_the_rpc_in_bounded_memory(
    arena: Any, store: Store, database: str
) -> None:
    _, stub = arena
    run_id = a_run(store, database)

    def drain() -> tuple[int, int, int]:
        replies = stub.ExportRun(api.ExportRunRequest(id=run_id, what="records"), timeout=600)
        size = lines = most = 0
        for chunk in replies:
            size, lines = size + len(chunk.data), lines + chunk.data.count(b"\n")
            most = max(most, len(chunk.data))
        return size, lines, most

    (size, lines, most), used = peak(drain)
    print(f"ExportRun of {MATCHES} records: {size / 2**20:.1f} MiB, peak {used / 2**20:.2f} MiB")
    assert lines == MATCHES and most == CHUNK_BYTES and size > 2 * BOUND  # more than fits
    assert used < BOUND

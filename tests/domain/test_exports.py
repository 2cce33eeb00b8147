"""What an export file is (arena/domain/exports.py), without a database: CSV read back by
the csv module and NDJSON by json, a line each, nested values flattened as stated, extra
fields kept, the chunks bounded whatever the lines, and bad requests refused in words."""

from __future__ import annotations

import csv
import io
import json

import pytest

from arena.domain.exports import (
    CHUNK_BYTES,
    RUN_EXPORTS,
    chunks,
    csv_lines,
    export_kind,
    file_format,
    file_name,
    lines,
)
from arena.errors import Invalid

ROWS = [
    {"rank": 1, "bot": "ana", "faults": {"timeouts": 2, "errors": 0}, "score": [12, 9],
     "sealed": False, "winner": None, "performance": 1531.5, "note": 'says "hi", twice'},
    {"rank": 2, "bot": "bia@3", "faults": {"timeouts": 0, "errors": 1}, "score": [9, 12],
     "sealed": True, "winner": 1, "performance": None, "note": "line\nbreak"},
]  # fmt: skip
COLUMNS = ("rank", "bot", "faults_timeouts", "faults_errors", "score", "winner")


def read_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_csv_has_the_declared_columns_first_then_the_rows_others_flattened() -> None:
    text = "".join(csv_lines(COLUMNS, ROWS))
    back = read_csv(text)
    assert list(back[0]) == [*COLUMNS, "sealed", "performance", "note"]
    assert back[0] == {
        "rank": "1", "bot": "ana", "faults_timeouts": "2", "faults_errors": "0",
        "score": "12 9", "winner": "", "sealed": "false", "performance": "1531.5",
        "note": 'says "hi", twice',
    }  # fmt: skip
    assert back[1]["note"] == "line\nbreak" and back[1]["sealed"] == "true"
    assert back[1]["winner"] == "1" and back[1]["bot"] == "bia@3"


def test_csv_of_no_rows_is_its_header() -> None:
    assert read_csv("".join(csv_lines(COLUMNS, []))) == []
    assert "".join(csv_lines(COLUMNS, [])).splitlines() == [",".join(COLUMNS)]


def test_ndjson_is_each_row_as_it_is_in_the_declared_order() -> None:
    text = "".join(lines("ndjson", COLUMNS, ROWS))
    back = [json.loads(line) for line in text.splitlines()]
    assert back == ROWS
    assert list(back[0]) == ["rank", "bot", "faults", "score", "winner", "sealed",
                             "performance", "note"]  # fmt: skip
    assert text.count("\n") == len(ROWS)  # a newline in a value is escaped


def test_chunks_are_bounded_and_make_the_text_again() -> None:
    pieces = ["é" * 10, "x" * (3 * CHUNK_BYTES + 5), "", "end\n"] * 3
    out = list(chunks(pieces))
    assert all(len(c) <= CHUNK_BYTES for c in out)
    assert all(len(c) == CHUNK_BYTES for c in out[:-1])
    assert b"".join(out).decode() == "".join(pieces)
    assert list(chunks([])) == [] and list(chunks(["ab"], size=1)) == [b"a", b"b"]


def test_formats_and_kinds_default_and_refuse_in_words() -> None:
    assert export_kind(None, RUN_EXPORTS) == "standings"
    assert export_kind("records", RUN_EXPORTS) == "records"
    assert file_format("standings", None) == "csv"
    assert file_format("records", "") == "ndjson"
    assert file_format("matches", "ndjson") == "ndjson"
    with pytest.raises(Invalid, match="records have no CSV form"):
        file_format("records", "csv")
    with pytest.raises(Invalid, match="no export format 'xlsx': choose csv or ndjson"):
        file_format("matches", "xlsx")
    with pytest.raises(Invalid, match="cannot export 'crosstable': choose standings, matches"):
        export_kind("crosstable", RUN_EXPORTS)


def test_file_names_are_safe() -> None:
    assert file_name("run-12", "standings", "csv") == "run-12-standings.csv"
    assert file_name("pool-paulista/1", "leaderboard", "csv") == "pool-paulista-1-leaderboard.csv"
    assert file_name("bot-zé@2", "matches", "ndjson") == "bot-z-@2-matches.ndjson"
    assert file_name("bot-../x", "records", "ndjson") == "bot-..-x-records.ndjson"

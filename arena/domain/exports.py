"""What an export file is (docs/exports.md): the two formats, what each subject exports,
the file's name, and how rows become its text.

- CSV (RFC 4180, the standard library's ``csv``): a header line, then one line a row.
  Nested values are flattened: a mapping ``faults`` becomes the columns
  ``faults_timeouts``, ``faults_rejected``...; a list is its items separated by single
  spaces (no bot name holds a space); no value is an empty cell; booleans are ``true``
  and ``false``.
- NDJSON: one JSON object a line, the row as it is (snake_case keys, numbers as numbers,
  no value as null).

Pure: rows in, text out. :func:`chunks` cuts the lines into pieces of at most
:data:`CHUNK_BYTES`, so that a file of any length is written in bounded memory."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from itertools import chain
from typing import Any

from arena.engine import quoted
from arena.errors import Invalid

CSV, NDJSON = "csv", "ndjson"
FORMATS = (CSV, NDJSON)
MEDIA_TYPES = {CSV: "text/csv; charset=utf-8", NDJSON: "application/x-ndjson; charset=utf-8"}
RUN_EXPORTS = ("standings", "matches", "records")  # what a run exports (the first by default)
BOT_EXPORTS = ("matches", "records")  # what a bot exports
RECORDS = "records"  # nested through and through: NDJSON only
CHUNK_BYTES = 32 * 1024  # the most bytes of one chunk (half the Arena API's message limit)

_UNSAFE = re.compile(r"[^A-Za-z0-9._@-]+")


def export_kind(what: str | None, kinds: Sequence[str]) -> str:
    """What to export of a subject that exports ``kinds``: ``what``, or the first of them
    when it is empty; Invalid for anything else."""
    if not what:
        return kinds[0]
    if what not in kinds:
        raise Invalid(f"cannot export {quoted(what)}: choose {', '.join(kinds)}")
    return what


def file_format(what: str, fmt: str | None) -> str:
    """The format of an export of ``what``: ``fmt``, or when it is empty CSV, but NDJSON
    for records; Invalid for a format there is none of, and for CSV of records (a record
    is nested through and through: it has no columns)."""
    if not fmt:
        return NDJSON if what == RECORDS else CSV
    if fmt not in FORMATS:
        raise Invalid(f"no export format {quoted(fmt)}: choose csv or ndjson")
    if fmt == CSV and what == RECORDS:
        raise Invalid("records have no CSV form (they are nested): export them as ndjson")
    return fmt


def file_name(subject: str, what: str, fmt: str) -> str:
    """The file's name: ``run-12-standings.csv``, ``pool-paulista-1-leaderboard.csv``,
    ``bot-alpha-matches.ndjson``; what is not a letter, a digit, ``.``, ``_``, ``@`` or
    ``-`` becomes ``-``."""
    return _UNSAFE.sub("-", f"{subject}-{what}").strip("-.") + f".{fmt}"


def flat(row: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A row with its mappings flattened into ``key_subkey`` columns, recursively."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flat(value, name + "_"))
        else:
            out[name] = value
    return out


def cell(value: Any) -> str:
    """A value as a CSV cell writes it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return " ".join(cell(v) if not isinstance(v, Mapping) else _json(v) for v in value)
    if isinstance(value, Mapping):
        return _json(value)
    return str(value)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def csv_lines(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """The CSV file's lines: the header (``columns``, then any other column of the first
    row, in its order: a field the read model gains is not lost), then each row."""
    flats = (flat(r) for r in rows)
    first = next(flats, None)
    header = list(columns)
    if first is not None:
        header += [k for k in first if k not in set(columns)]
    buffer = io.StringIO()
    writer = csv.writer(buffer)

    def line(values: Iterable[str]) -> str:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(values)
        return buffer.getvalue()

    yield line(header)
    for row in chain([] if first is None else [first], flats):
        yield line(cell(row.get(k)) for k in header)


def ndjson_lines(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """One JSON object a line, its keys in the order of ``columns`` (a mapping where its
    flattened columns first stand), then any others in their order."""
    orders: dict[tuple[str, ...], list[str]] = {}  # rows of the same keys, ordered once
    for row in rows:
        keys = tuple(row)
        order = orders.get(keys)
        if order is None:
            order = orders[keys] = _order(row, columns)
        yield _json({k: row[k] for k in order}) + "\n"


def _order(row: Mapping[str, Any], columns: Sequence[str]) -> list[str]:
    def place(key: str) -> int:
        nested = isinstance(row[key], Mapping)
        for i, column in enumerate(columns):
            if column == key or (nested and column.startswith(key + "_")):
                return i
        return len(columns)

    return sorted(row, key=place)  # stable: the others keep their order


def lines(fmt: str, columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """The file's lines in ``fmt``, ``columns`` first."""
    return (csv_lines if fmt == CSV else ndjson_lines)(columns, rows)


def chunks(text: Iterable[str], size: int = CHUNK_BYTES) -> Generator[bytes, None, None]:
    """The text as UTF-8, in chunks of ``size`` bytes (the last one shorter), whatever the
    lengths of its pieces: at most ``size`` bytes and one piece are held at a time."""
    pending = bytearray()
    for piece in text:
        pending += piece.encode()
        while len(pending) >= size:
            yield bytes(pending[:size])
            del pending[:size]
    if pending:
        yield bytes(pending)

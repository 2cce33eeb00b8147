"""The exports (``arena export run|pool|bot``: docs/exports.md): the file the Arena API
streams, written to standard output or to a file as its chunks arrive."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from arena.cli.client import Arena
from arena.cli.reader import run_of
from arena.domain.exports import file_format
from arena.errors import Invalid
from arena.proto.truco.v1 import arena_pb2 as api


def cmd_export_run(args: argparse.Namespace) -> int:
    arena = Arena.from_env()
    run = run_of(arena, args.run_id)
    request = api.ExportRunRequest(id=run, what=args.what, format=args.format or "")
    return _export(args, "ExportRun", request, arena)


def cmd_export_pool(args: argparse.Namespace) -> int:
    request = api.ExportPoolRequest(pool=args.pool, format=args.format or "", retired=args.retired)
    return _export(args, "ExportPool", request, Arena.from_env())


def cmd_export_bot(args: argparse.Namespace) -> int:
    request = api.ExportBotRequest(
        bot=args.name, what=args.what, format=args.format or "", pool=args.pool or ""
    )
    return _export(args, "ExportBot", request, Arena.from_env())


def _export(args: argparse.Namespace, method: str, request: Any, arena: Arena) -> int:
    """Ask for the file and write its chunks as they come: to standard output, or to
    ``--output`` (through FILE.part, renamed once whole, so that a failed export leaves
    no half file behind)."""
    try:
        file_format(args.what, args.format)
    except Invalid as e:  # the usage's: said as argparse says its own (exit 2)
        command = f"arena export {args.subject}"
        print(f"{command}: error: {e} (see {command} --help)", file=sys.stderr)
        return 2
    data = (c.data for c in arena.stream(method, request, organizer=args.organizer))
    if not args.output:
        _write(data, sys.stdout.buffer)
        return 0
    part = args.output + ".part"
    try:
        with open(part, "wb") as out:
            _write(data, out)
        os.replace(part, args.output)
    finally:
        if os.path.exists(part):
            os.remove(part)
    return 0


def _write(data: Iterator[bytes], out: BinaryIO) -> None:
    for chunk in data:
        out.write(chunk)
        out.flush()  # a reader of a pipe gets each chunk as it arrives

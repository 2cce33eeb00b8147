"""The house bots' code as a hosted bot's folder: one file of the SDK playing a house
bot, packed the same way every time (so the same version each time it is submitted)."""

from __future__ import annotations

import io
import tarfile

SOURCE = """\
from arena.bots import house_bot
from arena.sdk import run

run(house_bot({name!r}))
"""
OWNER = "arena"


def archive(name: str) -> bytes:
    """A one-file SDK bot playing house bot ``name``, packed the same way every time."""
    data = SOURCE.format(name=name).encode()
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as t:
        info = tarfile.TarInfo("bot.py")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return out.getvalue()

"""The house bots as hosted versions, named ``sparring-NAME``: what a new version is
checked against, each in a sandbox and a fresh process per match like any hosted bot
(apart from the house bots an organizer registers and runs as dial-in bots)."""

from __future__ import annotations

import contextlib
import io
import tarfile

from arena.errors import Exists
from arena.hosted.archive import Manifest, check
from arena.hosted.tokens import version_name
from arena.store.store import Store

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


def house_version(store: Store, name: str = "random") -> str:
    """The hosted version of house bot ``name`` (``sparring-NAME@N``), made active at
    once (the arena's own code needs no check) the first time it is asked for."""
    bot = f"sparring-{name}"
    with contextlib.suppress(Exists):  # registered before
        store.register_bot(bot, OWNER)
        store.set_bot_ladder(bot, False)  # a sparring partner for checks, not a contender
    data, manifest = archive(name), Manifest("python", "bot.py")
    version, _ = store.add_version(bot, manifest, data, check(data, manifest))
    if version.status == "checking":
        store.judge_version(version.id)
    return version_name(bot, version.number)

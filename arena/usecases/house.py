"""The house bots as hosted versions, named ``sparring-NAME``: what a new version is
checked against, each in a sandbox and a fresh process per match like any hosted bot
(apart from the house bots an organizer registers and runs as dial-in bots); made the
first time one is asked for (their code: arena/hosted/house.py), by the arena itself as
the action log says."""

from __future__ import annotations

import contextlib

from arena.domain.actors import ARENA
from arena.domain.identity import BotRef
from arena.domain.versions import Manifest
from arena.errors import Exists
from arena.hosted.archive import check
from arena.hosted.house import OWNER, archive
from arena.store.store import Store
from arena.usecases.bots import register_bot, set_bot_ladder
from arena.usecases.versions import judge, submit


def house_version(store: Store, name: str = "random") -> str:
    """The hosted version of house bot ``name`` (``sparring-NAME@N``), made active at
    once (the arena's own code needs no check) the first time it is asked for."""
    bot = f"sparring-{name}"
    with contextlib.suppress(Exists):  # registered before
        register_bot(store, bot, OWNER, actor=ARENA)
        # a sparring partner for checks, not a contender
        set_bot_ladder(store, bot, False, actor=ARENA)
    data, manifest = archive(name), Manifest("python", "bot.py")
    version = submit(store, bot, manifest, data, check(data, manifest)).version
    if version.status == "checking":
        judge(store, version.id)
    return str(BotRef(bot, version.number))

"""A hosted bot's version as values: what it is and how it starts (its manifest), what
checking its archive found (its identity and size), and how much of a bot the arena keeps
(its caps, applied in the transaction that adds a version). The archive itself is read,
checked and unpacked by arena/hosted/archive.py; docs/hosting.md explains it all."""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass

from arena.domain.identity import BotRef
from arena.engine import quoted
from arena.errors import Exhausted, Invalid, NotReady

RUNTIMES = ("python", "node", "exec")
MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Manifest:
    """What the bot is and how it starts: ``entry`` is a command line run in the bot's
    folder, whose first word is the file to run (``bot.py`` for python, ``index.js`` for
    node, ``./bot`` or ``bin/bot`` for exec)."""

    runtime: str
    entry: str

    def __post_init__(self) -> None:
        if self.runtime not in RUNTIMES:
            raise Invalid(f"runtime: {quoted(self.runtime)} is not one of {', '.join(RUNTIMES)}")
        if not self.program:
            raise Invalid("entry: give the file to run, e.g. bot.py")

    @property
    def words(self) -> list[str]:
        try:
            return shlex.split(self.entry)
        except ValueError as e:
            raise Invalid(f"entry: {quoted(self.entry)} is not a command line ({e})") from None

    @property
    def program(self) -> str:
        """The entry's file, as a path inside the folder."""
        words = self.words
        return posixpath.normpath(words[0]) if words else ""


@dataclass(frozen=True, slots=True)
class Checked:
    """What :func:`check` found: the version's identity and its size."""

    hash: str
    size: int  # the archive's bytes
    unpacked: int  # the files' bytes
    files: int  # regular files (folders and links aside)
    archive: str  # the sha256 of the archive's bytes, as sent: the store keeps it by this


CHECK_MATCHES = 2  # unrated matches a new version plays against a house bot, a side each


def check_seats(version: str, house: str, number: int) -> list[str]:
    """Who sits where in check match ``number`` (from 1): the version first, then the
    house bot first, in turn."""
    return [version, house] if number % 2 == 1 else [house, version]


def check_faults(match_id: str, counts: dict[str, int]) -> list[str]:
    """What a version did wrong in one check match, from its fault counts (none: clean)."""
    return [f"{n} {kind} in {match_id}" for kind, n in counts.items() if n]


CHECKED = ("candidate", "retired")  # checked and not active: what may be made active


def refuse_activation(version: BotRef, status: str, reason: str) -> None:
    """NotReady, saying why, unless a version of ``status`` may be made active: one
    checked and not rejected (active already: nothing to do)."""
    if status == "checking":
        raise NotReady(
            f"{version} is still being checked: it can be made active once its check is "
            f"over (arena bot versions {version.bot} tells how it ended)"
        )
    if status == "rejected":
        raise NotReady(
            f"{version} was rejected ({reason}): a rejected version is never made active; "
            "submit a fixed one"
        )


VERSIONS_PER_BOT = 50  # versions the store keeps of a bot, whatever their status
ARCHIVE_BYTES_PER_BOT = 256 * MiB  # archives' bytes the store keeps of a bot, each once


@dataclass(frozen=True, slots=True)
class Caps:
    """What the store keeps of one bot."""

    versions: int = VERSIONS_PER_BOT
    archive_bytes: int = ARCHIVE_BYTES_PER_BOT

    def refuse(self, bot: str, versions: int, kept: int, adding: int) -> None:
        """:class:`Exhausted` when a new version of ``bot`` would pass a cap: the bot has
        ``versions`` versions whose archives are ``kept`` bytes, and the new one adds
        ``adding`` (none when its archive is one of them already)."""
        if versions >= self.versions:
            raise Exhausted(
                f"bot {quoted(bot)} has {versions:,} versions, the most the arena keeps of a "
                f"bot ({self.versions:,}); versions are kept for their ratings and records, "
                "so submit this one as a new bot (the organizer registers it)"
            )
        if kept + adding > self.archive_bytes:
            raise Exhausted(
                f"bot {quoted(bot)} keeps {kept:,} bytes of archives and this one has "
                f"{adding:,}: over the {self.archive_bytes:,} the arena keeps of a bot; leave "
                "out of the archive what the bot does not need to run, or submit it as a "
                "new bot (the organizer registers it)"
            )


KEPT = Caps()  # the caps, as the constants above set them

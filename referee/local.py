"""Local matches (``arena match``): a referee in this process, bots as child processes.

Each ``--bot`` is ``house:NAME`` or any shell command. Every bot is started with
``ARENA_ADDRESS`` and ``ARENA_TOKEN`` in its environment, connects over gRPC like any
remote bot, and plays every match it is seated in. Matches come in pairs that share a
seed (the same deals) with the seats swapped, so the cards favour neither side.

A bot is known by the name it gives in its Hello, or else by its command's name. Its
token must stand for a name before the Hello arrives, so each token is issued under the
command's name, and once every bot has connected (all do before play starts) the bots
are renamed as their Hellos say: the match records, the seats' names and the summary all
use those names.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import re
import shlex
import signal
import sys
import tempfile
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots import house_bot
from arena.domain.clock import TimeControl
from arena.domain.rating import EloDifference, elo_difference
from arena.domain.tournament import seatings
from arena.engine import Rules, quoted
from arena.errors import Invalid
from referee.hub import Hub
from referee.runner import MatchRunner
from referee.server import create_server
from referee.sessions import MemoryTokens

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 30.0
# A Hello's name is taken when it is a name the arena could register (README, "Running
# an arena"): it goes into tables, records and logs, where free text does not belong.
BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass
class BotProcess:
    name: str  # unique; after its command until it connects, then as its Hello says
    spec: str
    argv: list[str]
    token: str = ""
    process: asyncio.subprocess.Process | None = None
    stderr: Any = None  # a temporary file with what the bot printed on stderr

    def stderr_tail(self, lines: int = 15) -> str:
        if self.stderr is None:
            return ""
        self.stderr.seek(0)
        return "".join(self.stderr.read().decode(errors="replace").splitlines(True)[-lines:])


@dataclass
class Summary:
    rules: str
    games: int
    bots: list[str]
    sides: list[list[str]]  # the bots of each team in the first match
    wins: dict[str, int] = field(default_factory=dict)
    points: dict[str, int] = field(default_factory=dict)
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    # bots whose process ended before their matches did: command, status, last output
    exited: dict[str, dict[str, Any]] = field(default_factory=dict)

    def elo(self) -> EloDifference:
        """How much stronger the first side played than the second."""
        return elo_difference(self.wins[self.sides[0][0]], self.games)

    def to_json(self) -> dict[str, Any]:
        diff = self.elo()
        return {
            "rules": self.rules,
            "games": self.games,
            "bots": self.bots,
            "sides": self.sides,
            "wins": self.wins,
            "points": self.points,
            "elo_diff": _elo_json(diff.elo),
            "elo_ci95": [_elo_json(diff.low), _elo_json(diff.high)],
            "faults": self.faults,
            "exited": self.exited,
        }


def _elo_json(x: float) -> float | None:
    """An Elo figure for JSON, which has no infinity: null where a clean sweep leaves it
    unbounded."""
    return round(x, 1) + 0.0 if math.isfinite(x) else None  # + 0.0 turns -0.0 into 0.0


def bot_processes(specs: Sequence[str]) -> list[BotProcess]:
    """Name each bot (``random``, ``my_bot.py``...) and build its command line."""
    out: list[BotProcess] = []
    for spec in specs:
        if spec.startswith("house:"):
            house_bot(spec.removeprefix("house:"))  # fail now on an unknown name
            argv = [sys.executable, "-m", "arena.cli", "bot", "run", spec]
            base = spec.removeprefix("house:")
        else:
            argv = ["/bin/sh", "-c", spec]
            base = _command_name(spec)
        out.append(BotProcess(base, spec, argv))
    for bot, name in zip(out, unique([b.name for b in out]), strict=True):
        bot.name = name
    return out


def unique(names: Sequence[str]) -> list[str]:
    """``names`` with each one given more than once numbered ``-1``, ``-2``... in order
    (skipping a number that makes a name given once: ``a``, ``a``, ``a-1`` are ``a-2``,
    ``a-3``, ``a-1``)."""
    counts = Counter(names)
    taken = {name for name in names if counts[name] == 1}
    numbered: Counter[str] = Counter()
    out = []
    for name in names:
        if counts[name] > 1:
            numbered[name] += 1
            while f"{name}-{numbered[name]}" in taken:
                numbered[name] += 1
            name = f"{name}-{numbered[name]}"
            taken.add(name)
        out.append(name)
    return out


def _command_name(command: str) -> str:
    """A short name for a bot command: the script or module an interpreter runs."""
    try:
        words = shlex.split(command) or ["bot"]
    except ValueError as e:  # an unclosed quote
        raise Invalid(f"bot {quoted(command)} is not a command line ({e})") from None
    house = [w.removeprefix("house:") for w in words if w.startswith("house:")]
    if house:  # arena bot run house:NAME ...
        return house[0]
    if Path(words[0]).name.startswith("python") and len(words) > 1:
        if words[1] == "-m" and len(words) > 2:
            return words[2]
        return Path(words[1]).name
    return Path(words[0]).name


@contextlib.asynccontextmanager
async def local_arena(
    bots: list[BotProcess],
    tokens: MemoryTokens | None = None,
    own_exit_s: float = 1.0,
    on_exit: Callable[[BotProcess], None] = lambda bot: None,
) -> AsyncIterator[Hub]:
    """A referee on a free loopback port, with ``bots`` launched, connected and named
    after their Hellos; ``on_exit`` hears of a bot whose process ends while the block
    runs. On exit the server stops cleanly (every stream, a bot's that was not launched
    here too, ends with OK), then the processes."""
    tokens = tokens or MemoryTokens()
    for bot in bots:
        bot.token = tokens.issue(bot.name)
    hub = Hub(tokens)
    server = create_server("127.0.0.1:0", hub)
    await server.start()
    try:
        await launch(bots, server.address)
        await wait_connected(hub, bots)
        name_after_hellos(hub, tokens, bots)
        watches = [asyncio.ensure_future(_watch(b, on_exit)) for b in bots if b.process]
        try:
            yield hub
        finally:
            for watch in watches:
                watch.cancel()
    finally:
        await server.stop()
        await stop(bots, own_exit_s)


def name_after_hellos(hub: Hub, tokens: MemoryTokens, bots: list[BotProcess]) -> None:
    """Name each connected bot as its Hello does, when that is a bot name (BOT_NAME); the
    others keep their commands' names. A name several bots share is numbered by
    :func:`unique`, in the order of ``bots``."""
    wanted = []
    for bot in bots:
        session = hub.sessions.get(bot.name)  # gone already: its Hello is not known
        said = session.hello_name if session else ""
        wanted.append(said if BOT_NAME.fullmatch(said) else bot.name)
    names = {b.name: new for b, new in zip(bots, unique(wanted), strict=True) if new != b.name}
    hub.rename(names)
    tokens.rename(names)
    for bot in bots:
        bot.name = names.get(bot.name, bot.name)


async def _watch(bot: BotProcess, on_exit: Callable[[BotProcess], None]) -> None:
    assert bot.process is not None
    await bot.process.wait()
    on_exit(bot)


async def play_local(
    rules: Rules,
    specs: Sequence[str],
    *,
    games: int,
    seed: int,
    clock: TimeControl,
    records: Path | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
    enough: Callable[[int, int], bool] = lambda k, winner: False,
    live: Callable[[dict[str, Any]], None] | None = None,
) -> Summary:
    """Play ``games`` matches between the bots (the k-th's deals are its pair's: k // 2),
    as many at once as the bots allow. ``enough(k, winning team)`` hears of each match as
    it ends: once it says True, no match starts any more (those playing end, and count).
    ``live`` is told the matches' live events (arena/read/live.py)."""
    bots = bot_processes(specs)
    left: Counter[str] = Counter()  # matches each bot has yet to finish
    exited: dict[str, dict[str, Any]] = {}

    def died(bot: BotProcess) -> None:
        assert bot.process is not None
        if left[bot.name]:  # not a bot leaving after its last match (--matches N, say)
            status, output = bot.process.returncode, bot.stderr_tail()
            exited[bot.name] = {"command": bot.spec, "status": status, "output": output}

    async with local_arena(bots, on_exit=died) as hub:
        names = [b.name for b in bots]  # as the bots' Hellos named them
        plan = seatings(rules, names, games)
        for seats in plan:  # counted before the first await, so before any exit is heard
            left.update(set(seats))
        # a bot gone already plays no match itself: a house bot takes its seats
        concurrency = min(
            (hub.sessions[b].concurrency for b in names if b in hub.sessions), default=1
        )
        summary = Summary(
            str(rules),
            games,
            names,
            [sorted(set(plan[0][t::2])) for t in (0, 1)],
            {b: 0 for b in names},
            {b: 0 for b in names},
            exited=exited,
        )
        if records is not None:
            records.mkdir(parents=True, exist_ok=True)
        gate = asyncio.Semaphore(concurrency)
        done = 0
        stopped = False

        async def one(k: int) -> None:
            nonlocal done, stopped
            async with gate:
                if stopped:
                    return
                runner = MatchRunner(
                    hub,
                    f"local-{seed}-{k + 1}",
                    rules,
                    plan[k],
                    seed=seed + k // 2,
                    clock=clock,
                    stand_in=lambda: house_bot("heuristic"),
                    live=live,
                )
                record = await runner.run()
            left.subtract(set(plan[k]))
            _tally(summary, plan[k], record)
            if records is not None:
                path = records / f"match-{k + 1:04d}.json"
                path.write_text(json.dumps(record, indent=1))
            done += 1
            progress(done, games)
            stopped = stopped or enough(k, record["result"]["winner"])

        await asyncio.gather(*(one(k) for k in range(games)))
        summary.games = done
    return summary


def _tally(summary: Summary, seats: list[str], record: dict[str, Any]) -> None:
    winner = record["result"]["winner"]
    team_points = [0, 0]
    for hand in record["hands"]:
        for t in (0, 1):
            team_points[t] += hand.get("result", {}).get("points", [0, 0])[t]
    for bot in set(seats):
        team = seats.index(bot) % 2
        summary.wins[bot] += int(winner == team)
        summary.points[bot] += team_points[team]
    for bot, faults in record["faults"].items():
        mine = summary.faults.setdefault(bot, {k: 0 for k in faults})
        for key, value in faults.items():
            mine[key] += value


async def launch(bots: list[BotProcess], address: str) -> None:
    for bot in bots:
        env = {**os.environ, "ARENA_ADDRESS": address, "ARENA_TOKEN": bot.token}
        bot.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _stop
        bot.process = await asyncio.create_subprocess_exec(
            *bot.argv,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=bot.stderr,
            stderr=bot.stderr,
            start_new_session=True,
        )


async def wait_connected(hub: Hub, bots: list[BotProcess]) -> None:
    """Wait for every bot's hello; fail early, with its output, when one exits first."""
    waiting = asyncio.ensure_future(hub.wait_for([b.name for b in bots], CONNECT_TIMEOUT_S))
    exits = {asyncio.ensure_future(p.wait()): (b, p) for b in bots if (p := b.process)}
    try:
        finished, _ = await asyncio.wait([waiting, *exits], return_when=asyncio.FIRST_COMPLETED)
        if waiting in finished:
            waiting.result()
            return
        bot, process = exits[finished.pop()]  # type: ignore[index]
        raise RuntimeError(
            f"bot {bot.name} ({bot.spec}) {exit_words(process.returncode)} "
            f"before connecting:\n{bot.stderr_tail()}"
        )
    except TimeoutError as e:
        tails = "\n".join(f"--- {b.name}:\n{b.stderr_tail()}" for b in bots)
        raise RuntimeError(f"{e}\n{tails}") from None
    finally:
        for task in [waiting, *exits]:
            task.cancel()


def exit_words(status: int | None) -> str:
    """How a process ended, from its return code (negative: the signal that killed it)."""
    if status is not None and status < 0:
        return f"was killed by signal {-status}"
    return f"exited with status {status}"


async def stop(bots: list[BotProcess], own_exit_s: float = 1.0) -> None:
    """Give the bots a moment to exit by themselves, then SIGTERM, then SIGKILL."""
    running = [b.process.wait() for b in bots if b.process and b.process.returncode is None]
    if running:
        waits = [asyncio.ensure_future(w) for w in running]
        _, pending = await asyncio.wait(waits, timeout=own_exit_s)
        for waiting in pending:  # not left for the loop's end to cancel, and tell of
            waiting.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
    for bot in bots:
        if bot.process and bot.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(bot.process.pid, signal.SIGTERM)
    for bot in bots:
        if bot.process is None:
            continue
        try:
            await asyncio.wait_for(bot.process.wait(), 5)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(bot.process.pid, signal.SIGKILL)
            await bot.process.wait()
        if bot.stderr is not None:
            bot.stderr.close()

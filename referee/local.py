"""Local matches (``arena match``): a referee in this process, bots as child processes.

Each ``--bot`` is ``house:NAME`` or any shell command. Every bot is started with
``ARENA_ADDRESS`` and ``ARENA_TOKEN`` in its environment, connects over gRPC like any
remote bot, and plays every match it is seated in. Matches come in pairs that share a
seed (the same deals) with the seats swapped, so the cards favour neither side.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shlex
import signal
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots import house_bot
from arena.clock import TimeControl
from arena.engine import Rules
from arena.rating import elo_difference
from arena.tournament import seatings
from referee.hub import Hub, MemoryTokens
from referee.runner import MatchRunner
from referee.server import create_server

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 30.0


@dataclass
class BotProcess:
    name: str
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

    def to_json(self) -> dict[str, Any]:
        side_wins = self.wins[self.sides[0][0]]
        diff = elo_difference(side_wins, self.games)
        return {
            "rules": self.rules,
            "games": self.games,
            "bots": self.bots,
            "sides": self.sides,
            "wins": self.wins,
            "points": self.points,
            "elo_diff": round(diff.elo, 1) + 0.0,  # + 0.0 turns -0.0 into 0.0
            "elo_ci95": [round(diff.low, 1) + 0.0, round(diff.high, 1) + 0.0],
            "faults": self.faults,
        }


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
    seen: dict[str, int] = {}
    for bot in out:
        if sum(b.name == bot.name for b in out) > 1:
            seen[bot.name] = seen.get(bot.name, 0) + 1
            bot.name = f"{bot.name}-{seen[bot.name]}"
    return out


def _command_name(command: str) -> str:
    """A short name for a bot command: the script or module an interpreter runs."""
    words = shlex.split(command) or ["bot"]
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
    bots: list[BotProcess], tokens: MemoryTokens | None = None, own_exit_s: float = 1.0
) -> AsyncIterator[Hub]:
    """A referee on a free loopback port, with ``bots`` launched and connected; on exit
    the server stops cleanly (every stream, a bot's that was not launched here too, ends
    with OK), then the processes."""
    tokens = tokens or MemoryTokens()
    for bot in bots:
        bot.token = tokens.issue(bot.name)
    hub = Hub(tokens)
    server = create_server("127.0.0.1:0", hub)
    await server.start()
    try:
        await launch(bots, server.address)
        await wait_connected(hub, bots)
        yield hub
    finally:
        await server.stop()
        await stop(bots, own_exit_s)


async def play_local(
    rules: Rules,
    specs: Sequence[str],
    *,
    games: int,
    seed: int,
    clock: TimeControl,
    records: Path | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> Summary:
    bots = bot_processes(specs)
    names = [b.name for b in bots]
    plan = seatings(rules, names, games)
    async with local_arena(bots) as hub:
        concurrency = min(hub.sessions[b].concurrency for b in names)
        summary = Summary(
            str(rules),
            games,
            names,
            [sorted(set(plan[0][t::2])) for t in (0, 1)],
            {b: 0 for b in names},
            {b: 0 for b in names},
        )
        if records is not None:
            records.mkdir(parents=True, exist_ok=True)
        gate = asyncio.Semaphore(concurrency)
        done = 0

        async def one(k: int) -> None:
            nonlocal done
            async with gate:
                runner = MatchRunner(
                    hub,
                    f"local-{seed}-{k + 1}",
                    rules,
                    plan[k],
                    seed=seed + k // 2,
                    clock=clock,
                    stand_in=lambda: house_bot("heuristic"),
                )
                record = await runner.run()
            _tally(summary, plan[k], record)
            if records is not None:
                path = records / f"match-{k + 1:04d}.json"
                path.write_text(json.dumps(record, indent=1))
            done += 1
            progress(done, games)

        await asyncio.gather(*(one(k) for k in range(games)))
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
    exits = {asyncio.ensure_future(b.process.wait()): b for b in bots if b.process}
    try:
        finished, _ = await asyncio.wait([waiting, *exits], return_when=asyncio.FIRST_COMPLETED)
        if waiting in finished:
            waiting.result()
            return
        bot = exits[finished.pop()]
        raise RuntimeError(
            f"bot {bot.name} ({bot.spec}) exited with status {bot.process.returncode} "
            f"before connecting:\n{bot.stderr_tail()}"
        )
    except TimeoutError as e:
        tails = "\n".join(f"--- {b.name}:\n{b.stderr_tail()}" for b in bots)
        raise RuntimeError(f"{e}\n{tails}") from None
    finally:
        for task in [waiting, *exits]:
            task.cancel()


async def stop(bots: list[BotProcess], own_exit_s: float = 1.0) -> None:
    """Give the bots a moment to exit by themselves, then SIGTERM, then SIGKILL."""
    running = [b.process.wait() for b in bots if b.process and b.process.returncode is None]
    if running:
        await asyncio.wait([asyncio.ensure_future(w) for w in running], timeout=own_exit_s)
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

"""Hostile bots, each a process of its own (``tests/hostile.py``, ``tests/fakebot.py``),
against a referee on real loopback gRPC while a well-behaved pair plays beside them.

Every case checks the three promises: the hostile client gets a clear status or a closed
connection within a bound; only its own result changes; and the other matches are not
slowed past their clock (their records show no fault at all, timeouts included).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena import guard
from arena.bots import house_bot
from arena.domain.clock import TimeControl
from arena.engine import Rules
from arena.guard import FailedTokens, peer_address
from referee import server
from referee.hub import Hub
from referee.local import BotProcess, launch, stop, wait_connected
from referee.runner import MatchRunner
from referee.sessions import MemoryTokens

pytestmark = pytest.mark.hostile

HERE = Path(__file__).resolve().parents[1]
# the well-behaved matches: half a second a decision and no bank, so any slowdown shows
GOOD = TimeControl(decision_ms=500, time_bank_ms=0, reconnect_grace_ms=5000)
# the hostile bot's own match: a short grace, so a house bot soon takes over its seats
HOSTILE = TimeControl(decision_ms=500, time_bank_ms=0, reconnect_grace_ms=300)
CLEAN = {"timeouts": 0, "rejected": 0, "disconnects": 0, "substituted": 0, "errors": 0}
ATTACK_TIMEOUT_S = 90.0


def hostile(name: str, kind: str, *extra: str) -> BotProcess:
    argv = [sys.executable, str(HERE / "hostile.py"), kind, *extra]
    return BotProcess(name, f"hostile {kind}", argv)


def fakebot(name: str, kind: str = "plain", *extra: str) -> BotProcess:
    return BotProcess(
        name, f"fakebot {kind}", [sys.executable, str(HERE / "fakebot.py"), kind, *extra]
    )


def house(name: str) -> BotProcess:
    argv = [sys.executable, "-m", "arena.cli", "bot", "run", "house:random"]
    return BotProcess(name, "house:random", argv)


@dataclass
class Scene:
    hub: Hub
    tokens: MemoryTokens
    address: str
    bots: list[BotProcess]

    def runner(self, match_id: str, seats: Sequence[str], clock: TimeControl) -> MatchRunner:
        return MatchRunner(
            self.hub, match_id, Rules(), seats, seed=7, clock=clock,
            stand_in=lambda: house_bot("random"),
        )  # fmt: skip

    async def launch(self, *bots: BotProcess) -> None:
        """Start more processes (a bot's ``token`` set beforehand is kept)."""
        for bot in bots:
            bot.token = bot.token or self.tokens.issue(bot.name)
        self.bots.extend(bots)
        await launch(list(bots), self.address)

    async def good_matches_while(self, attackers: Sequence[BotProcess]) -> list[dict[str, Any]]:
        """Matches of the well-behaved pair, one after another, until every attacker has
        exited (at least one match)."""
        records: list[dict[str, Any]] = []
        deadline = asyncio.get_running_loop().time() + ATTACK_TIMEOUT_S
        while not records or any(a.process and a.process.returncode is None for a in attackers):
            assert asyncio.get_running_loop().time() < deadline, [
                a.stderr_tail() for a in attackers
            ]
            match_id = f"good-{len(records) + 1}"
            records.append(await self.runner(match_id, ["good-a", "good-b"], GOOD).run())
        return records

    async def outcome(self, bot: BotProcess) -> tuple[int, list[dict[str, Any]]]:
        """The process's exit status and the JSON lines it printed."""
        assert bot.process is not None
        status = await asyncio.wait_for(bot.process.wait(), ATTACK_TIMEOUT_S)
        bot.stderr.seek(0)
        lines = bot.stderr.read().decode(errors="replace").splitlines()
        return status, [json.loads(line) for line in lines if line.startswith("{")]


@contextlib.asynccontextmanager
async def scene(*extra: BotProcess) -> AsyncIterator[Scene]:
    """A referee with the well-behaved pair (``good-a`` on raw stubs, ``good-b`` the house
    random bot) and ``extra`` bots connected."""
    tokens = MemoryTokens()
    hub = Hub(tokens)
    referee = server.create_server("127.0.0.1:0", hub)
    await referee.start()
    found = Scene(hub, tokens, referee.address, [])
    try:
        await found.launch(fakebot("good-a"), house("good-b"), *extra)
        await wait_connected(hub, list(found.bots))
        yield found
        await hub.finish()
    finally:
        await stop(found.bots)
        await referee.stop(0)


def assert_clean(records: list[dict[str, Any]], *bots: str) -> None:
    for record in records:
        assert record["result"]["winner"] in (0, 1)
        for bot in bots or record["faults"]:
            assert record["faults"][bot] == CLEAN, (record["match_id"], bot)


def test_garbage_bytes_mute_connections_and_streams_without_hello_are_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(server, "HANDSHAKE_TIMEOUT_MS", 1000)
    monkeypatch.setattr(server, "HELLO_TIMEOUT_S", 1.0)

    async def scenario() -> tuple[list[dict[str, Any]], list[tuple[int, list[Any]]]]:
        async with scene() as s:
            attackers = [
                hostile("garbage", "garbage", "--count", "30", "--within-s", "5"),
                hostile("mute", "mute-tcp", "--within-s", "5"),
                hostile("silent", "silent"),
            ]
            await s.launch(*attackers)
            records = await s.good_matches_while(attackers)
            return records, [await s.outcome(a) for a in attackers]

    records, ((garbage, closed), (mute, [muted]), (silent, [ended])) = asyncio.run(scenario())
    assert garbage == 0 and len(closed) == 30, closed  # each closed within 5 s
    assert mute == 0 and muted["closed_after_s"] < 5
    assert silent == 0 and ended["code"] == "DEADLINE_EXCEEDED"
    assert_clean(records)


def test_an_oversized_message_ends_the_stream_and_only_its_match_notices() -> None:
    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
        # after one answer: a bot playing the first legal action may see as few as 2
        # requests in a whole match (2.6% of matches with 4 or fewer, none with fewer than 2)
        async with scene(hostile("big", "oversized", "--after", "1")) as s:
            own = asyncio.ensure_future(s.runner("own", ["big", "good-b"], HOSTILE).run())
            good = await s.good_matches_while([s.bots[-1]])
            outcome = await s.outcome(s.bots[-1])
            return await own, good, outcome

    own, good, (status, [seen]) = asyncio.run(scenario())
    assert status == 0 and seen["code"] == "RESOURCE_EXHAUSTED", seen
    assert seen["decisions"] == 2  # one answered, the second never
    faults = own["faults"]["big"]
    assert faults["disconnects"] == 1 and faults["substituted"] > 0
    assert own["faults"]["good-b"] == CLEAN
    assert_clean(good)
    assert server.MAX_MESSAGE_BYTES == 64 * 1024  # what hostile.py exceeds twice over


def test_actions_for_another_seat_or_another_match_are_rejected() -> None:
    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
        meddler = hostile("meddler", "hijack", "--target", "good-1", "--matches", "1")
        async with scene(meddler) as s:
            own = asyncio.ensure_future(s.runner("own", ["meddler", "good-b"], GOOD).run())
            good = await s.good_matches_while([meddler])
            return await own, good, await s.outcome(meddler)

    own, good, (status, [seen]) = asyncio.run(scenario())
    assert status == 0 and seen["rejected"] > 0
    # its replies to the opponent's requests count against it alone; the opponent's own
    # answers all went through (none rejected, none late)
    assert own["faults"]["meddler"]["rejected"] > 0
    assert own["faults"]["meddler"]["timeouts"] == 0
    assert own["faults"]["good-b"] == CLEAN
    assert_clean(good)


def test_a_reconnect_flood_slows_no_other_match() -> None:
    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
        async with scene(hostile("flood", "reconnect", "--count", "300")) as s:
            own = asyncio.ensure_future(s.runner("own", ["flood", "good-b"], HOSTILE).run())
            good = await s.good_matches_while([s.bots[-1]])
            outcome = await s.outcome(s.bots[-1])
            return await own, good, outcome

    own, good, (status, [seen]) = asyncio.run(scenario())
    assert status == 0 and seen["welcomed"] > 0
    assert own["faults"]["flood"]["disconnects"] > 0
    assert own["faults"]["good-b"] == CLEAN
    assert_clean(good)


def test_guessed_tokens_are_refused_more_and_more_slowly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "FREE_FAILURES", 3)
    monkeypatch.setattr(guard, "FIRST_DELAY_S", 0.2)
    monkeypatch.setattr(guard, "MAX_DELAY_S", 0.4)

    async def scenario() -> tuple[list[dict[str, Any]], Any]:
        async with scene() as s:
            guesser = hostile("guesser", "guess", "--count", "8")
            await s.launch(guesser)
            good = await s.good_matches_while([guesser])
            return good, await s.outcome(guesser)

    good, (status, attempts) = asyncio.run(scenario())
    assert status == 0 and len(attempts) == 8
    assert {a["code"] for a in attempts} == {"UNAUTHENTICATED"}
    held = [0, 0, 0, 0.2, 0.4, 0.4, 0.4, 0.4]
    assert all(a["seconds"] >= h for a, h in zip(attempts, held, strict=True)), attempts
    # the good bots, from the same address, were never held up: their token is good
    assert_clean(good)


def test_a_stolen_token_takes_the_session_over_until_the_token_is_rotated() -> None:
    async def scenario() -> dict[str, Any]:
        victim = fakebot("victim")
        async with scene(victim) as s:
            match = asyncio.ensure_future(s.runner("victims", ["victim", "good-b"], GOOD).run())
            thief = hostile("thief", "thief")
            thief.token = victim.token
            await s.launch(thief)
            status, _ = await s.outcome(victim)
            victim.stderr.seek(0)
            said = victim.stderr.read().decode()
            assert status == 1 and "ABORTED" in said and "took over" in said, said
            # the remedy: a new token; the owner comes back with it and takes over again
            owner = fakebot("victim")
            owner.token = s.tokens.issue("victim")
            await s.launch(owner)
            good = await s.good_matches_while([thief])
            thief_status, seen = await s.outcome(thief)
            assert thief_status == 0, seen
            assert seen[1]["code"] == "ABORTED" and seen[2]["again"] == "UNAUTHENTICATED"
            assert_clean(good)
            return await match

    record = asyncio.run(scenario())
    assert record["result"]["winner"] in (0, 1)
    assert record["faults"]["good-b"] == CLEAN


def test_a_bot_whose_writes_stall_is_cut_off_and_its_seats_are_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(server, "WRITE_STALL_S", 1.0)

    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], Any, bool]:
        async with scene(hostile("deaf", "deaf", "--count", "300")) as s:
            deaf = s.bots[-1]
            own = asyncio.ensure_future(s.runner("own", ["deaf", "good-b"], HOSTILE).run())
            good = await s.good_matches_while([deaf])
            outcome = await s.outcome(deaf)
            return await own, good, outcome, "deaf" in s.hub.sessions

    own, good, (status, [seen]), still_there = asyncio.run(scenario())
    assert status == 0 and seen["code"] == "RESOURCE_EXHAUSTED", seen
    assert "not reading" in seen["details"] and not still_there
    faults = own["faults"]["deaf"]
    assert faults["disconnects"] == 1 and faults["substituted"] > 0
    assert own["faults"]["good-b"] == CLEAN
    assert_clean(good)


def test_a_bot_that_never_reads_is_cut_off_and_its_seats_are_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # its rejections fill the 1000-message outbox while its writes are stalled: it leaves
    # the hub at once, and its handler, stuck in a write, ends after WRITE_STALL_S; all
    # of this while it still reads nothing (it reads only when told, at the end)
    monkeypatch.setattr(server, "WRITE_STALL_S", 1.0)

    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], Any, bool]:
        async with scene(hostile("deaf", "deaf-flood", "--count", "1100")) as s:
            deaf = s.bots[-1]
            session = s.hub.sessions["deaf"]
            own = asyncio.ensure_future(s.runner("own", ["deaf", "good-b"], HOSTILE).run())
            good = asyncio.ensure_future(s.good_matches_while([deaf]))
            record = await own  # played to the end by a house bot in its seat
            still_there = "deaf" in s.hub.sessions
            await asyncio.wait_for(session.ended.wait(), ATTACK_TIMEOUT_S)  # the handler
            assert deaf.process is not None
            deaf.process.send_signal(signal.SIGUSR1)  # now it reads
            return record, await good, await s.outcome(deaf), still_there

    own, good, (status, [sent, seen]), still_there = asyncio.run(scenario())
    assert sent["sent"] > 1000 and not still_there
    assert status == 0 and seen["code"] == "RESOURCE_EXHAUSTED", seen
    assert "not reading" in seen["details"]
    faults = own["faults"]["deaf"]
    assert faults["disconnects"] == 1 and faults["substituted"] > 0
    assert own["faults"]["good-b"] == CLEAN
    assert_clean(good)


def test_a_long_card_comes_back_cut_short_in_its_rejection() -> None:
    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
        async with scene(hostile("long", "long-card", "--matches", "1")) as s:
            own = asyncio.ensure_future(s.runner("own", ["long", "good-b"], GOOD).run())
            good = await s.good_matches_while([s.bots[-1]])
            outcome = await s.outcome(s.bots[-1])
            return await own, good, outcome

    own, good, (status, [seen]) = asyncio.run(scenario())
    [reason] = seen["reasons"]
    # the 50 KB card is quoted by its first characters: the reason still says what is wrong
    assert status == 0 and len(reason.encode()) < 300, reason[:300]
    assert "'ZZZZ" in reason and "is not a card" in reason
    assert own["faults"]["long"] == {**CLEAN, "rejected": 1}
    assert own["faults"]["good-b"] == CLEAN
    assert_clean(good)


def test_bytes_that_are_not_a_bot_message_get_invalid_argument_and_one_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # as the first message of a stream (anonymous) and after a hello (a known bot)
    caplog.set_level(logging.INFO)

    async def scenario() -> tuple[list[dict[str, Any]], Any, Any, bool]:
        async with scene() as s:
            first = hostile("anonymous", "not-protobuf", "--count", "40")
            later = hostile("later", "not-protobuf", "--count", "5", "--after-hello")
            await s.launch(first, later)
            good = await s.good_matches_while([first, later])
            outcomes = await s.outcome(first), await s.outcome(later)
            return good, *outcomes, "later" in s.hub.sessions

    good, (status, firsts), (later_status, laters), still_there = asyncio.run(scenario())
    attempts = firsts + laters
    assert status == 0 and later_status == 0 and len(attempts) == 45, attempts
    assert all("not a BotMessage" in a["details"] for a in attempts), attempts
    assert not still_there
    assert_clean(good)
    lines = [line for r in caplog.records for line in caplog.handler.format(r).splitlines()]
    assert "Traceback" not in caplog.text and len(lines) <= 2 * len(attempts), lines[:40]


def test_bad_tokens_are_held_longer_and_longer_then_forgotten() -> None:
    now = [0.0]
    failed = FailedTokens(clock=lambda: now[0])
    delays = [failed.delay_s("1.2.3.4") for _ in range(12)]
    assert delays[:3] == [0, 0, 0]
    assert delays[3:9] == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2]
    assert delays[9:] == [guard.MAX_DELAY_S] * 3
    assert failed.delay_s("5.6.7.8") == 0  # another address starts afresh
    now[0] += guard.FORGET_AFTER_S
    assert failed.delay_s("9.9.9.9") == 0
    assert len(failed) == 1  # the quiet ones are forgotten
    assert failed.delay_s("1.2.3.4") == 0


def test_the_table_of_bad_addresses_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "MAX_ADDRESSES", 100)
    failed = FailedTokens()
    for i in range(1000):
        failed.delay_s(f"10.0.{i // 256}.{i % 256}")
    assert len(failed) == 100


def test_too_many_held_refusals_from_one_address_are_refused_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(guard, "FREE_FAILURES", 0)

    async def scenario() -> bool:
        failed = FailedTokens()
        held = [asyncio.ensure_future(failed.hold("1.2.3.4")) for _ in range(guard.MAX_WAITING)]
        await asyncio.sleep(0)  # one turn of the loop: each task starts, and waits
        busy = failed.busy("1.2.3.4") and not failed.busy("5.6.7.8")
        for task in held:
            task.cancel()
        return busy

    assert asyncio.run(scenario())


@pytest.mark.parametrize(
    ("peer", "address"),
    [
        ("ipv4:127.0.0.1:5000", "127.0.0.1"),
        ("ipv6:[::1]:5000", "::1"),
        ("unix:/tmp/x.sock", "unix:/tmp/x.sock"),
    ],
)
def test_peers_are_counted_by_address_not_port(peer: str, address: str) -> None:
    assert peer_address(peer) == address

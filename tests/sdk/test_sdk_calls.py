"""How the SDK calls a bot and what it keeps: ``decide(view)`` as ever, or
``decide(view, request)`` with the match, the seat and the deadline; ``on_match_end``
with or without the seat; Stats that count everything and keep the latest few, on a real
referee; what `arena bot run` says of its connection. The real referee's test of the
request's values and the cards' order is tests/referee/test_referee.py's."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from arena import sdk
from arena.bots import house_bot
from arena.domain.clock import TimeControl
from arena.engine import Action, Match, Rules, View, view
from arena.engine.cards import ALL_CARDS
from arena.sdk import Request, run
from referee.runner import MatchRunner
from tests.referee.test_sessions import Referee, referee  # noqa: F401 (the fixture)


def a_view() -> View:
    """The view of the seat to act at a match's start."""
    match = Match(Rules(), seed=1)
    return view(match, match.to_act)


REQUEST = Request("m-1", 7, 0, 1500, 500, time.monotonic())


class Old:
    name = "old"

    def decide(self, view: View) -> Action:
        return view.legal[0]


class WithDepth:  # a second parameter with a default is not the request's
    name = "depth"

    def decide(self, view: View, depth: int = 3) -> Action:
        assert depth == 3
        return view.legal[-1]


class New:
    name = "new"

    def __init__(self) -> None:
        self.asked: list[Request] = []
        self.ended: list[tuple[Any, ...]] = []

    def decide(self, view: View, request: Request) -> Action:
        self.asked.append(request)
        return view.legal[0]

    def on_match_end(self, match_id: str, ended: Any, seat: int | None) -> None:
        self.ended.append((match_id, seat))


def test_decide_gets_the_request_only_when_it_has_a_second_parameter() -> None:
    seen, new = a_view(), New()
    assert sdk._decider(Old())(seen, REQUEST) == seen.legal[0]
    assert sdk._decider(WithDepth())(seen, REQUEST) == seen.legal[-1]
    assert sdk._decider(new)(seen, REQUEST) == seen.legal[0]
    assert new.asked == [REQUEST]


def test_on_match_end_gets_the_seat_when_it_has_a_third_parameter() -> None:
    class Two:
        def on_match_end(self, match_id: str, ended: Any) -> None: ...

    assert sdk._ender(Two())("m", "ended", 1) == ("m", "ended")  # type: ignore[arg-type]
    assert sdk._ender(New())("m", "ended", 1) == ("m", "ended", 1)  # type: ignore[arg-type]


def test_a_requests_deadline_counts_from_its_arrival() -> None:
    arrived = time.monotonic()
    request = Request("m", 1, 1, 2000, 0, arrived)
    assert request.deadline == arrived + 2.0
    assert 1000 < request.left_ms() <= 2000
    assert Request("m", 1, 1, 0, 0, arrived - 1).left_ms() == 0


def test_stats_count_every_match_and_keep_the_latest_only(
    referee: Referee,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sdk, "KEPT", 2)
    beta = referee.tokens.issue("beta")
    address, new = referee.server.address, New()
    clock = TimeControl(decision_ms=2000, time_bank_ms=0, reconnect_grace_ms=5000)
    with ThreadPoolExecutor(2) as pool:
        alpha_run = pool.submit(run, new, address, referee.token, max_matches=5)  # type: ignore[arg-type]
        beta_run = pool.submit(run, house_bot("random"), address, beta, max_matches=5)
        referee.call(referee.hub.wait_for(["alpha", "beta"], 10))
        for number in range(5):
            seats = ["alpha", "beta"] if number % 2 == 0 else ["beta", "alpha"]
            runner = MatchRunner(
                referee.hub, f"m-{number}", Rules(), seats, seed=number, clock=clock,
                stand_in=lambda: house_bot("random"),
            )  # fmt: skip
            referee.call(runner.run())
        stats = alpha_run.result(30)
        beta_run.result(30)
    assert stats.matches == stats.ended == 5 and stats.welcomes == 1
    assert [r.match_id for r in stats.results] == ["m-3", "m-4"]  # the latest KEPT
    assert list(stats.nodes) == [address]
    assert stats.decisions == len(new.asked) > 5
    assert new.ended == [(f"m-{n}", n % 2) for n in range(5)]  # its seat in each
    assert {r.match_id for r in new.asked} == {f"m-{n}" for n in range(5)}
    assert all(r.seat == int(r.match_id[-1]) % 2 for r in new.asked)


class Liar:
    """Plays a card it does not hold, whatever is asked: every action is refused."""

    name = "liar"

    def decide(self, view: View) -> Action:
        held = set(view.cards) | {c for _, cards in view.partners for c in cards}
        for card in sorted(ALL_CARDS, key=lambda c: c.index):
            if card not in held and Action.play(card) not in view.legal:
                return Action.play(card)
        raise AssertionError("every card is held")


def test_a_rejected_action_is_retried_once_with_the_first_legal_one(
    referee: Referee,  # noqa: F811
) -> None:
    beta = referee.tokens.issue("beta")
    address = referee.server.address
    clock = TimeControl(decision_ms=2000, time_bank_ms=0, reconnect_grace_ms=5000)
    with ThreadPoolExecutor(2) as pool:
        alpha_run = pool.submit(run, Liar(), address, referee.token, max_matches=1)
        beta_run = pool.submit(run, house_bot("random"), address, beta, max_matches=1)
        referee.call(referee.hub.wait_for(["alpha", "beta"], 10))
        runner = MatchRunner(
            referee.hub, "m-liar", Rules(), ["alpha", "beta"], seed=3, clock=clock,
            stand_in=lambda: house_bot("random"),
        )  # fmt: skip
        record = referee.call(runner.run())
        stats = alpha_run.result(30)
        beta_run.result(30)
    assert stats.rejections == stats.decisions > 0 and stats.rejected[-1]
    assert record["faults"]["alpha"]["rejected"] == stats.decisions
    assert record["faults"]["alpha"]["timeouts"] == 0  # each retry came in time


def test_arena_bot_run_says_when_it_connects_and_when_it_tries_again(
    referee: Referee,  # noqa: F811
) -> None:
    address = referee.server.address
    command = [sys.executable, "-m", "arena.cli", "bot", "run", "house:random"]
    bot = subprocess.Popen(
        [*command, "--address", address, "--token", referee.token],
        env=os.environ | {"ARENA_HOME": "/nonexistent"}, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert bot.stderr is not None
        said: list[str] = []

        def says(text: str) -> str:
            """The next line of what it prints that holds ``text`` (other lines, gRPC's
            own say, are passed over); blocks until it prints one."""
            for line in bot.stderr:  # type: ignore[union-attr]
                said.append(line)
                if text in line:
                    return line
            raise AssertionError(f"it ended without saying {text!r}: {said}")

        says(f"arena bot run: connected to {address} as alpha")
        referee.call(referee.server.stop(0))  # its stream ends: it says so, and retries
        ended = says(f"arena bot run: connection to {address} ")
        assert "retrying in 0.1 s" in ended, said
    finally:
        bot.kill()
        bot.wait()

"""The referee on real gRPC over loopback, with bots as separate processes.

Each misbehaving bot is ``tests/fakebot.py`` (raw generated stubs, no SDK) playing a
whole match against the house ``random`` bot through the same path as ``arena match``.
Each gets the outcome its fault deserves, and the other bot's record stays clean.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.bots import house_bot
from arena.domain.absence import Credit, credit
from arena.domain.clock import TimeControl
from arena.engine import ActionType, Card, Match, Rules, replay
from referee.local import Summary, bot_processes, local_arena, play_local, unique
from referee.runner import MatchRunner
from referee.sessions import MemoryTokens

FAKEBOT = Path(__file__).resolve().parents[1] / "fakebot.py"
FAST = TimeControl(decision_ms=2000, time_bank_ms=0, reconnect_grace_ms=5000)
CLEAN = {"timeouts": 0, "rejected": 0, "disconnects": 0, "substituted": 0, "errors": 0}


def fake(kind: str, *extra: str) -> str:
    return shlex.join([sys.executable, str(FAKEBOT), kind, *extra])


def play(
    tmp_path: Path,
    bots: list[str],
    *,
    rules: str = "paulista",
    clock: TimeControl = FAST,
    games: int = 1,
    seed: int = 3,
) -> tuple[Summary, list[dict[str, Any]]]:
    records = tmp_path / "records"
    summary = asyncio.run(
        play_local(Rules.parse(rules), bots, games=games, seed=seed, clock=clock, records=records)
    )
    found = [json.loads(p.read_text()) for p in sorted(records.glob("*.json"))]
    assert len(found) == games
    for record in found:
        assert record["result"]["winner"] in (0, 1)
        replayed = replay(record)  # every record the referee writes replays
        assert replayed.outcome is not None
    return summary, found


def decisions_of(record: dict[str, Any], bot: str) -> int:
    seats = {i for i, name in enumerate(record["seats"]) if name == bot}
    return sum(a["seat"] in seats for h in record["hands"] for a in h["actions"])


def test_a_raw_stub_bot_plays_a_whole_match(tmp_path: Path) -> None:
    summary, (record,) = play(tmp_path, [fake("plain"), "house:random"])
    assert summary.faults == {"fake-plain": CLEAN, "random": CLEAN}
    assert decisions_of(record, "fake-plain") > 0
    assert summary.exited == {}


def test_bots_are_named_as_their_hellos_say_each_name_its_own(tmp_path: Path) -> None:
    # one bot a seat: two give the same name, one gives none, one a name no bot may have
    dump = tmp_path / "messages.jsonl"
    bots = [
        fake("plain", "--dump", str(dump)),
        fake("plain"),
        fake("plain", "--name", ""),
        fake("plain", "--name", "not a name"),
    ]
    summary, (record,) = play(tmp_path, bots, rules="paulista:team_size=2")
    names = ["fake-plain-1", "fake-plain-2", "fakebot.py-3", "fakebot.py-4"]
    assert summary.bots == record["seats"] == names
    assert set(summary.faults) == set(names) and all(f == CLEAN for f in summary.faults.values())
    messages = [json.loads(line) for line in dump.read_text().splitlines()]
    assert messages[0]["welcome"]["bot"] == "fakebot.py-1"  # sent before the names settle
    started = next(m["matchStarted"] for m in messages if "matchStarted" in m)
    assert started["seatNames"] == names


def test_bots_named_alike_are_numbered_in_order() -> None:
    # "node" twice was once named node-1 and node
    named = bot_processes(["node a.js", "node b.js", "house:random", "./run.sh"])
    assert [b.name for b in named] == ["node-1", "node-2", "random", "run.sh"]
    assert unique(["a", "a", "a-1", "b"]) == ["a-2", "a-3", "a-1", "b"]


@pytest.mark.parametrize("rules", ["paulista:team_size=2", "tradicional", "megajogos"])
def test_one_bot_plays_all_its_teams_seats(tmp_path: Path, rules: str) -> None:
    summary, (record,) = play(tmp_path, [fake("plain"), "house:random"], rules=rules)
    assert record["seats"] == ["fake-plain", "random"] * 2
    assert all(f == CLEAN for f in summary.faults.values())


def test_no_message_a_bot_receives_shows_a_hidden_card(tmp_path: Path) -> None:
    dump = tmp_path / "messages.jsonl"
    _, (record,) = play(
        tmp_path,
        [fake("plain", "--dump", str(dump), "--matches", "1"), "house:random"],
        rules="paulista:team_size=2",
        seed=11,
    )
    messages = [json.loads(line) for line in dump.read_text().splitlines()]
    requests = {int(m["decision"]["requestId"]): m for m in messages if "decision" in m}
    assert requests, "the bot was asked to decide"
    checked = 0
    for request_id, hidden, seat in hidden_cards_at_each_decision(record):
        message = requests.get(request_id)
        if message is None:
            continue  # a decision of the other bot
        assert int(message["decision"]["view"].get("seat", 0)) == seat
        manilhas = message["decision"]["view"].pop("manilhas")  # names, not whereabouts
        assert len(manilhas) == 4 and manilhas[0].endswith("C")
        last = message["decision"]["view"].pop("lastHand", None)  # checked with handEnded
        if last is not None:
            ended = [m["handEnded"] for m in messages if "handEnded" in m]
            assert last in [{k: v for k, v in e.items() if k != "matchId"} for e in ended]
        shown = set(re.findall(r'"(10[CHSD]|[2-9QJKA][CHSD])"', json.dumps(message)))
        assert not shown & hidden, f"request {request_id} shows {shown & hidden}"
        checked += 1
    assert checked == len(requests)
    ends = [m for m in messages if "handEnded" in m]
    assert len(ends) == len(record["hands"])
    for message, hand in zip(ends, record["hands"], strict=True):
        covered = {a["card"] for a in hand["actions"] if a.get("covered")}
        played = {a["card"] for a in hand["actions"] if a["type"] == "play"}
        unplayed = {c for cards in hand["cards"] for c in cards} - played
        shown = set(re.findall(r'"(10[CHSD]|[2-9QJKA][CHSD])"', json.dumps(message)))
        assert not shown & (covered | unplayed)


def hidden_cards_at_each_decision(record: dict[str, Any]) -> list[tuple[int, set[str], int]]:
    """Replay the record; before each decision, the cards its seat must not see."""
    from arena.engine import Action

    match = Match(Rules.from_json(record["rules"]), record["seats"])
    out = []
    request_id = 0
    for hand in record["hands"]:
        from arena.engine import Card

        match.deal(
            [[Card.parse(c) for c in s] for s in hand["cards"]],
            Card.parse(hand["vira"]),
            hand["dealer"],
        )
        for action in hand["actions"]:
            request_id += 1
            seat = match.to_act
            assert seat is not None
            h = match.hand
            assert h is not None
            shown_partners = h.deciding == seat % 2 and match.rules.special_partner_view
            hidden = {
                str(c)
                for s in range(match.n)
                for c in h.held[s]
                if s != seat
                and not (shown_partners and s % 2 == seat % 2 and h.kind.value == "special")
            }
            hidden |= {str(p.card) for r in h.rounds for p in r.plays if p.covered}
            hidden |= {str(p.card) for p in h.table if p.covered}
            out.append((request_id, hidden, seat))
            match.apply(Action.from_json(action), action["seat"])
    return out


def test_a_silent_bot_times_out_and_the_rules_act_for_it(tmp_path: Path) -> None:
    # the bank lets the house bot, a process of its own, be late on a loaded machine and
    # still answer (it failed once so, at 150 ms with none); the sleepy one spends it on
    # its first decision, then times out at every one
    clock = TimeControl(decision_ms=150, time_bank_ms=1000, reconnect_grace_ms=5000)
    summary, (record,) = play(tmp_path, [fake("sleepy"), "house:random"], clock=clock)
    assert summary.faults["fake-sleepy"]["timeouts"] == decisions_of(record, "fake-sleepy") > 0
    assert summary.faults["random"] == CLEAN


def test_the_time_bank_absorbs_overruns_until_it_runs_dry(tmp_path: Path) -> None:
    # each answer takes 150 ms against 50 ms a decision: the 300 ms bank pays the first
    # overruns, then the slow bot starts to time out
    dump = tmp_path / "messages.jsonl"
    clock = TimeControl(decision_ms=50, time_bank_ms=300, reconnect_grace_ms=5000)
    slow = fake("slow", "--delay-ms", "150", "--dump", str(dump), "--matches", "1")
    summary, (record,) = play(tmp_path, [slow, "house:random"], clock=clock)
    banks = [
        int(json.loads(line)["decision"].get("timeBankMs", 0))
        for line in dump.read_text().splitlines()
        if '"decision"' in line
    ]
    assert banks[0] == 300 and banks[-1] == 0
    assert banks == sorted(banks, reverse=True), "the bank only goes down"
    faults = summary.faults["fake-slow"]
    assert 0 < faults["timeouts"] < decisions_of(record, "fake-slow")
    assert summary.faults["random"] == CLEAN


@pytest.mark.parametrize("kind", ["illegal", "garbage"])
def test_refused_actions_are_rejected_and_the_bot_tries_again(tmp_path: Path, kind: str) -> None:
    summary, (record,) = play(tmp_path, [fake(kind), "house:random"])
    faults = summary.faults[f"fake-{kind}"]
    assert faults["rejected"] == decisions_of(record, f"fake-{kind}") > 0
    assert faults["timeouts"] == 0
    assert summary.faults["random"] == CLEAN


def test_replies_to_other_matches_and_other_requests_are_rejected(tmp_path: Path) -> None:
    summary, (record,) = play(tmp_path, [fake("stray"), "house:random"])
    # a stale and a future request id per decision count in the match; the reply for a
    # match the bot is not in is refused by the session and cannot touch any match
    assert summary.faults["fake-stray"]["rejected"] == 2 * decisions_of(record, "fake-stray")
    assert summary.faults["fake-stray"]["timeouts"] == 0
    assert summary.faults["random"] == CLEAN


def test_a_flooding_bot_does_not_disturb_the_match(tmp_path: Path) -> None:
    # 300 stray messages before each answer: past the rate limit its own answers are
    # dropped, so it times out; the other bot sees nothing of it
    clock = TimeControl(decision_ms=300, time_bank_ms=0, reconnect_grace_ms=5000)
    summary, _ = play(tmp_path, [fake("flood"), "house:random"], clock=clock)
    assert summary.faults["fake-flood"]["timeouts"] > 0
    assert summary.faults["random"] == CLEAN


def test_a_crashed_bot_keeps_its_seat_for_the_grace_then_a_house_bot_plays(tmp_path: Path) -> None:
    # it crashes at its second request: no match ends sooner, whatever the random bot does
    # (a bot that always sends legal[0] raises every request it is asked to answer, and a
    # match needs two of its decisions at least); with three, the random bot could fold
    # its way to a match over before the crash (seen once in a few hundred runs)
    clock = TimeControl(decision_ms=2000, time_bank_ms=0, reconnect_grace_ms=300)
    summary, (record,) = play(
        tmp_path, [fake("crash", "--after", "1"), "house:random"], clock=clock
    )
    faults = summary.faults["fake-crash"]
    assert faults["disconnects"] == 1
    assert faults["substituted"] == decisions_of(record, "fake-crash") - 1 > 0
    assert summary.faults["random"] == CLEAN
    assert summary.exited["fake-crash"]["status"] == 3 and "random" not in summary.exited


def test_a_bot_that_reconnects_within_the_grace_takes_its_seat_back(tmp_path: Path) -> None:
    # it drops at its second request: a match can end before a bot that always takes the
    # first legal action (folding, often) has been asked five times
    summary, (record,) = play(tmp_path, [fake("flaky", "--after", "1"), "house:random"])
    faults = summary.faults["fake-flaky"]
    assert faults["disconnects"] == 1
    assert faults["substituted"] == 0 and faults["timeouts"] == 0
    assert decisions_of(record, "fake-flaky") > 1
    assert summary.faults["random"] == CLEAN
    assert summary.exited == {}  # its process never ended


def test_seats_swap_every_second_match_over_shared_deals(tmp_path: Path) -> None:
    summary, records = play(tmp_path, [fake("plain"), "house:random"], games=2)
    assert [r["seats"] for r in records] == [["fake-plain", "random"], ["random", "fake-plain"]]
    assert records[0]["hands"][0]["cards"] == records[1]["hands"][0]["cards"]
    assert sum(summary.wins.values()) == 2


def test_the_first_play_is_never_a_referee_default(tmp_path: Path) -> None:
    _, (record,) = play(tmp_path, [fake("plain"), "house:random"])
    first = record["hands"][0]["actions"][0]
    assert first["type"] in {t.value for t in ActionType}


def test_a_slow_match_does_not_hold_up_another(tmp_path: Path) -> None:
    async def scenario() -> tuple[bool, dict[str, Any]]:
        bots = bot_processes([fake("plain"), fake("sleepy"), "house:random", "house:random"])
        clock = TimeControl(decision_ms=300, time_bank_ms=0, reconnect_grace_ms=5000)
        async with local_arena(bots) as hub:
            names = [b.name for b in bots]

            def runner(match_id: str, seats: list[str]) -> MatchRunner:
                return MatchRunner(
                    hub, match_id, Rules(), seats, seed=5, clock=clock,
                    stand_in=lambda: house_bot("random"),
                )  # fmt: skip

            slow = asyncio.ensure_future(runner("slow", [names[1], names[3]]).run())
            quick = await runner("quick", [names[0], names[2]]).run()
            still_running = not slow.done()
            await slow
            return still_running, quick

    still_running, quick = asyncio.run(scenario())
    assert still_running, "the quick match waited for the slow one"
    assert all(f == CLEAN for f in quick["faults"].values())


def test_the_sdk_reconnects_when_the_referee_comes_back(tmp_path: Path) -> None:
    import os
    import subprocess

    from arena.service import free_address
    from referee.hub import Hub
    from referee.server import create_server

    tokens = MemoryTokens()
    token = tokens.issue("comeback")
    address = free_address()  # a port to come back to
    env = {**os.environ, "ARENA_ADDRESS": address, "ARENA_TOKEN": token}
    log = tmp_path / "bot.log"

    async def scenario() -> list[str]:
        first = create_server(address, Hub(tokens))
        await first.start()
        with open(log, "wb") as out:
            bot = subprocess.Popen(
                [sys.executable, "-m", "arena.cli", "bot", "run", "house:random"],
                env=env, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        try:
            await first.hub.wait_for(["comeback"], 30)
            await first.server.stop(0)  # gone at once, as in a crash: the stream breaks
            second = create_server(address, Hub(tokens))
            await second.start()
            await second.hub.wait_for(["comeback"], 30)  # back, after its backoff
            seen = list(second.hub.sessions)
            await second.stop(0)
            return seen
        finally:
            bot.terminate()
            bot.wait(timeout=30)

    assert asyncio.run(scenario()) == ["comeback"], log.read_text()
    assert "connection to" in log.read_text()  # it said it lost the referee and retried


def test_a_bot_absent_when_its_match_starts_is_held_then_replaced() -> None:
    async def scenario() -> dict[str, Any]:
        bots = bot_processes([fake("plain")])
        tokens = MemoryTokens()
        tokens.issue("absent")
        clock = TimeControl(decision_ms=2000, time_bank_ms=0, reconnect_grace_ms=200)
        async with local_arena(bots, tokens) as hub:
            runner = MatchRunner(
                hub, "m", Rules(), [bots[0].name, "absent"], seed=2, clock=clock,
                stand_in=lambda: house_bot("random"),
            )  # fmt: skip
            return await runner.run()

    record = asyncio.run(scenario())
    absent = record["faults"]["absent"]
    assert absent["disconnects"] == 1 and absent["timeouts"] == 0
    assert absent["substituted"] == decisions_of(record, "absent") > 0
    assert record["faults"]["fake-plain"] == CLEAN
    # every one of its decisions was made for it: it was absent, and whatever the score
    # its team is credited with a loss by forfeit
    made = decisions_of(record, "absent")
    assert record["presence"]["absent"] == {"decisions": made, "away": made}
    playing = decisions_of(record, "fake-plain")
    assert record["presence"]["fake-plain"] == {"decisions": playing, "away": 0}
    team = record["seats"].index("absent") % 2
    assert credit(record) == Credit(1 - team, (team,), ("absent",))
    assert credit(record, "play-on") == Credit(record["result"]["winner"])


def test_a_bot_that_times_out_while_connected_is_present(tmp_path: Path) -> None:
    clock = TimeControl(decision_ms=150, time_bank_ms=0, reconnect_grace_ms=5000)
    _, (record,) = play(tmp_path, [fake("sleepy"), "house:random"], clock=clock)
    made = decisions_of(record, "fake-sleepy")
    assert record["presence"]["fake-sleepy"] == {"decisions": made, "away": 0}
    assert credit(record).forfeits == ()  # a bad bot loses at the table, not by forfeit


def test_a_bot_whose_own_code_fails_is_counted_errors_not_silence(tmp_path: Path) -> None:
    script = tmp_path / "broken.py"
    script.write_text(
        "from arena.sdk import run\n"
        "class Broken:\n"
        "    name = 'broken'\n"
        "    def __init__(self):\n"
        "        self.asked = 0\n"
        "    def decide(self, view):\n"
        "        self.asked += 1\n"
        "        if self.asked % 2:\n"
        "            raise KeyError('my bug')\n"
        "        return view.legal[-1]\n"
        "run(Broken(), max_matches=1)\n"
    )
    summary, (record,) = play(tmp_path, [f"{sys.executable} {script}", "house:random"])
    made = decisions_of(record, "broken")
    assert summary.faults["broken"]["errors"] == (made + 1) // 2 > 0  # the odd ones
    assert summary.faults["broken"] == CLEAN | {"errors": (made + 1) // 2}
    assert record["presence"]["broken"] == {"decisions": made, "away": 0}
    assert summary.faults["random"] == CLEAN
    # and the record says which actions were its fallbacks (docs/rules.md)
    seat = record["seats"].index("broken")
    own = [a for h in record["hands"] for a in h["actions"] if a["seat"] == seat]
    assert [a.get("error", False) for a in own] == [k % 2 == 0 for k in range(made)]


PORTED = """\
import json, sys
from arena.sdk import run

class Ported:
    name = "ported"
    def decide(self, view, request):
        line = {"match": request.match_id, "seat": request.seat, "view_seat": view.seat,
                "deadline_ms": request.deadline_ms, "bank_ms": request.time_bank_ms,
                "left_ms": request.left_ms(), "hand": view.hand_number,
                "cards": [str(c) for c in view.cards]}
        open(sys.argv[1], "a").write(json.dumps(line) + "\\n")
        return view.legal[0]
    def on_match_end(self, match_id, ended, seat):
        open(sys.argv[1], "a").write(json.dumps({"ended": match_id, "seat": seat}) + "\\n")

run(Ported())
"""


def test_the_sdk_tells_decide_its_match_seat_and_deadline_and_shows_cards_as_dealt(
    tmp_path: Path,
) -> None:
    """A bot written as a ported engine wants it: ``decide(view, request)`` and
    ``on_match_end(match_id, ended, seat)``, on both seats of a pair; every view's cards
    are the seat's unplayed cards in the order of the record's deal (never sorted), so
    its "first card" is the first dealt."""
    script, out = tmp_path / "ported.py", tmp_path / "calls.jsonl"
    script.write_text(PORTED)
    clock = TimeControl(decision_ms=2000, time_bank_ms=3000, reconnect_grace_ms=5000)
    _, records = play(tmp_path, [f"{sys.executable} {script} {out}", "house:random"],
                      clock=clock, games=2)  # fmt: skip
    calls = [json.loads(line) for line in out.read_text().splitlines()]
    unsorted = 0
    for record in records:
        seat = record["seats"].index("ported")
        mine = [c for c in calls if c.get("match") == record["match_id"]]
        assert mine and {c["seat"] for c in mine} == {c["view_seat"] for c in mine} == {seat}
        for c in mine:
            assert 0 < c["left_ms"] <= c["deadline_ms"] <= 5000 and c["bank_ms"] <= 3000, c
            dealt = record["hands"][c["hand"]]["cards"][seat]
            assert c["cards"] == [card for card in dealt if card in c["cards"]], (c, dealt)
            ranked = sorted(c["cards"], key=lambda t: Card.parse(t).index)
            unsorted += c["cards"] != ranked
        assert {"ended": record["match_id"], "seat": seat} in calls
    assert unsorted > 0  # a sorted view would fail here: some deal was not in Card's order


def test_the_sdk_hands_results_to_a_bot_that_wants_them(tmp_path: Path) -> None:
    script = tmp_path / "listener.py"
    log = tmp_path / "hands.txt"
    script.write_text(
        "import random\n"
        "from arena.sdk import run\n"
        "class Listener:\n"
        "    name = 'listener'\n"
        "    def decide(self, view):\n"
        "        return random.choice(view.legal)\n"
        "    def on_hand_end(self, match_id, hand):\n"
        f"        open({str(log)!r}, 'a').write(f'{{hand.number}} {{list(hand.points)}}\\n')\n"
        "    def on_match_end(self, match_id, ended):\n"
        f"        open({str(log)!r}, 'a').write('end\\n')\n"
        "run(Listener(), max_matches=1)\n"
    )
    _, (record,) = play(tmp_path, [f"{sys.executable} {script}", "house:random"])
    lines = log.read_text().splitlines()
    expected = [f"{i} {h['result']['points']}" for i, h in enumerate(record["hands"])]
    assert lines == [*expected, "end"]

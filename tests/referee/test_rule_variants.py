"""The rule parameters of issue 36 through the referee: real bots as processes, over gRPC.

Four SDK bots, one a seat, raise now and then from round 2 on (each choice drawn from
the position, so every run plays the same match), cover a card whenever they may, and
answer a request by refusing it unless a partner has refused it already. With
``raise_answer=any_accepts`` every refusal asks the partner, who accepts; with
``one_seat`` a refusal ends the hand. Each bot writes down every view it is sent, so the
test sees what the referee offered: whom it asked, what it said was refused, the raises
and covered cards it listed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from arena.domain.clock import TimeControl
from arena.engine import Rules, replay
from referee.local import play_local

FAST = TimeControl(decision_ms=3000, time_bank_ms=0, reconnect_grace_ms=5000)
VARIANTS = (
    "games_per_match=3,covered_after_partner=banned,partner_tie_lead=lower_seat,"
    "stake_cap=trailing_needs"
)

EAGER = """\
import json, random, sys
from arena.sdk import run

class Eager:
    name = "eager"
    def decide(self, view):
        legal = [str(a) for a in view.legal]
        key = (view.seat, view.hand_number, len(view.rounds), view.stake, view.score)
        seen = {"seat": view.seat, "phase": str(view.phase), "to_act": view.to_act,
                "requester": view.requester, "refused": list(view.refused),
                "score": list(view.score), "stake": view.stake, "pending": view.pending,
                "table": [[p.seat, p.covered] for p in view.table], "legal": legal}
        with open(sys.argv[1], "a") as out:
            out.write(json.dumps(seen) + "\\n")
        if str(view.phase) == "answer":
            choice = "accept" if view.refused else "fold"
        elif "raise" in legal and view.rounds and random.Random(repr(key)).random() < 0.4:
            choice = "raise"
        else:
            choice = next((a for a in legal if a.endswith("covered")), legal[0])
        return view.legal[legal.index(choice)]

run(Eager(), max_matches=1)
"""


def play(tmp_path: Path, rules: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    script, views = tmp_path / "eager.py", tmp_path / "views.jsonl"
    script.write_text(EAGER)
    bots = [f"{sys.executable} {script} {views}"] * 4
    records = tmp_path / "records"
    summary = asyncio.run(
        play_local(Rules.parse(rules), bots, games=1, seed=5, clock=FAST, records=records)
    )
    (record,) = [json.loads(p.read_text()) for p in records.glob("*.json")]
    assert all(f["timeouts"] == f["rejected"] == 0 for f in summary.faults.values())
    assert replay(record).outcome is not None  # the record replays to its end
    return record, [json.loads(line) for line in views.read_text().splitlines()]


def answers(record: dict[str, Any]) -> list[list[tuple[int, str]]]:
    """Each request's answers in order, (seat, action), up to the one that settled it."""
    out: list[list[tuple[int, str]]] = []
    for hand in record["hands"]:
        asked: list[tuple[int, str]] | None = None
        for action in hand["actions"]:
            if asked is not None:
                asked.append((action["seat"], action["type"]))
                if action["type"] != "fold":
                    out.append(asked)
                    asked = None
            if action["type"] == "raise":
                asked = []
        if asked:
            out.append(asked)
    return out


def cap(view: dict[str, Any]) -> int:
    return -(-(12 - min(view["score"])) // 3) * 3


def check_offers(views: list[dict[str, Any]]) -> None:
    """No raise past the stake cap, and no covered card after a partner's, was offered."""
    for v in views:
        if "raise" in v["legal"] and v["phase"] != "decide":
            assert (v["pending"] or v["stake"]) < cap(v), v
        partner_covered = any(s % 2 == v["seat"] % 2 and c for s, c in v["table"])
        assert not (partner_covered and any(a.endswith("covered") for a in v["legal"])), v


def test_any_accepts_asks_the_partner_after_a_refusal(tmp_path: Path) -> None:
    record, views = play(tmp_path, f"paulista:team_size=2,raise_answer=any_accepts,{VARIANTS}")
    seen = answers(record)
    assert len(seen) > 5, "requests were made"
    for (first, refusal), (second, answer) in seen:  # each request: two answers
        assert (refusal, answer) == ("fold", "accept") and second == (first + 2) % 4
    second_asked = [v for v in views if v["phase"] == "answer" and v["refused"]]
    assert len(second_asked) == len(seen), "the partner's request said who refused"
    for v in second_asked:
        (refused,) = v["refused"]
        assert v["to_act"] == v["seat"] == (refused + 2) % 4
        assert v["requester"] % 2 != v["seat"] % 2 and "accept" in v["legal"]
    check_offers(views)
    assert any(
        v["phase"] == "answer" and v["pending"] == cap(v) < 12 and "raise" not in v["legal"]
        for v in views
    ), "the stake cap held a raise back"
    assert any(
        any(s % 2 == v["seat"] % 2 and c for s, c in v["table"])
        for v in views
        if v["phase"] == "play"
    ), "a seat was asked to play after its partner covered"


def test_one_seat_a_refusal_ends_the_hand(tmp_path: Path) -> None:
    record, views = play(tmp_path, f"paulista:team_size=2,{VARIANTS}")
    seen = answers(record)
    assert len(seen) > 5 and all(kinds == [kinds[0]] for kinds in seen), seen
    assert all(a[0][1] == "fold" for a in seen)
    assert len(seen) == sum(
        1 for h in record["hands"] if any(a["type"] == "raise" for a in h["actions"])
    )
    assert all(v["refused"] == [] for v in views)
    check_offers(views)

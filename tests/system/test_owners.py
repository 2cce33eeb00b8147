"""A bot's owner sees its own (issue 32, point 3), on real servers: `arena serve`, a Celery
worker and two bots that cover a card whenever the rules allow (tests/fakebot.py
``cover``), each a process of its own, play two rated matches; the pages are served by
uvicorn and read in Chromium.

Signed in with its bot's token, the owner's replay shows at every step of every hand its
own seat's cards, its own covered cards' faces included, and no card of the opponent's
that was not played face up: each step checked against what the organizer's whole
record says the owner's seat saw. The Authorization header does the same for scripts,
the bot's page offers every record in the owner's view as NDJSON, and `arena match show`
with ARENA_TOKEN prints the owner's record from a fresh ARENA_HOME, where no reading
command writes an organizer's token."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.engine import replay
from tests.arenaproc import ADMIN, broker_url
from tests.web.test_browser import CHROMIUM, serving

HERE = Path(__file__).resolve().parents[1]
OWNER, OTHER = "ana", "bia"
CARD = re.compile(r"\b(10[CHSD]|[2-9QJKA][CHSD])\b")
STEPS_JS = """sections => sections.map(s => ({
  held: [...s.querySelectorAll("ul.seats li")].map(
    li => [...li.querySelectorAll(".held .card")].map(c => c.title)),
  plays: [...s.querySelectorAll(".rounds .card, [data-testid=table] .card")].map(c => c.title),
}))"""


@pytest.fixture
def played(arena_factory: Any) -> Iterator[tuple[Any, dict[str, str], list[str]]]:
    """The arena, the bots' tokens, and two matches of theirs, recorded."""
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    tokens = {name: arena.organizer.bot_token(name) for name in (OWNER, OTHER)}
    for name, token in tokens.items():
        env = {"ARENA_ADDRESS": arena.address, "ARENA_TOKEN": token}
        argv = [str(HERE / "fakebot.py"), "cover", "--concurrency", "2"]
        arena.processes.start(name, *argv, env=env, command=[sys.executable])
    arena.organizer.wait_connected(tokens)
    ids = arena.challenge([OWNER, OTHER], 2)
    arena.wait_matches(ids, 2)
    yield arena, tokens, ids


def seen_steps(record: dict[str, Any], number: int, own: int) -> list[dict[str, Any]]:
    """What seat ``own``'s owner may see at each step of hand ``number`` (the deal, then
    each action), from the whole record: its own held cards (none in a blind hand), the
    opponents' as backs, every play face up but a covered one of another seat's. The
    cards' titles as the page draws them."""
    hand = record["hands"][number]
    blind = replay(record).hands[number].blind
    dealt, actions = hand["cards"], hand["actions"]
    steps = []
    for k in range(len(actions) + 1):
        plays = [a for a in actions[:k] if a["type"] == "play"]
        held = []
        for seat, cards in enumerate(dealt):
            left = [c for c in cards if c not in {a["card"] for a in plays if a["seat"] == seat}]
            held.append(left if seat == own and not blind else ["a card"] * len(left))
        shown = [
            (f"{a['card']} (covered)" if a["seat"] == own else "a covered card")
            if a.get("covered")
            else a["card"]
            for a in plays
        ]
        steps.append({"held": held, "plays": shown})
    return steps


def hidden_from(record: dict[str, Any], number: int, own: int) -> set[str]:
    """The cards of hand ``number`` that seat ``own``'s owner may never see: the other
    seats' cards not played face up."""
    hand = record["hands"][number]
    open_ = {a["card"] for a in hand["actions"] if a["type"] == "play" and not a.get("covered")}
    return {c for s, cards in enumerate(hand["cards"]) if s != own for c in cards} - open_


def test_a_signed_in_owner_sees_its_own_cards_and_no_opponents_hidden_one(
    played: tuple[Any, dict[str, str], list[str]], tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium")
    arena, tokens, ids = played
    covered = {"own": 0, "other": 0}
    with serving(arena.store) as site, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))

        page.goto(site + "/sign-in")
        page.locator("#token").fill("not-a-token")
        page.locator("form.sign-in button").click()
        expect(page.locator("main")).to_contain_text("not a token of this arena")
        page.goto(site + "/sign-in")
        page.locator("#token").fill(tokens[OWNER])
        page.locator("form.sign-in button").click()
        expect(page.get_by_test_id("signed-in")).to_have_text(f"{OWNER}'s owner ✕")
        cookie = next(c for c in page.context.cookies() if c["name"] == "arena_owner")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert tokens[OWNER] not in cookie["value"]  # it proves the token, not holds it

        for match_id in ids:
            record = arena.store.match(match_id)[0].record  # the organizer's, whole
            own = record["seats"].index(OWNER)
            for number in range(len(record["hands"])):
                page.goto(f"{site}/matches/{match_id}?hand={number + 1}")
                expect(page.get_by_test_id("owner-view")).to_contain_text(f"seat {own}")
                drawn = page.eval_on_selector_all("section.step", STEPS_JS)
                assert drawn == seen_steps(record, number, own), (match_id, number)
                words = set(CARD.findall(page.locator("main").inner_html()))
                assert not words & hidden_from(record, number, own), (match_id, number)
                last = drawn[-1]["plays"]
                covered["own"] += sum(t.endswith("(covered)") for t in last)
                covered["other"] += last.count("a covered card")
        assert covered["own"] and covered["other"], covered  # both covered: the test can fail

        page.goto(f"{site}/bots/{OWNER}")
        link = page.get_by_test_id("owner-download").locator("a")
        with page.expect_download() as download:
            link.click()
        lines = Path(download.value.path()).read_text().splitlines()
        page.goto(f"{site}/bots/{OTHER}")
        expect(page.get_by_test_id("owner-download")).to_have_count(0)  # not its own

        page.get_by_test_id("signed-in").click()  # signing out
        expect(page.locator("header a.sign-in")).to_have_text("Sign in")
        page.goto(f"{site}/matches/{ids[0]}")
        expect(page.get_by_test_id("owner-view")).to_have_count(0)
        assert all(t == "a card" for s in page.eval_on_selector_all("section.step", STEPS_JS)
                   for held in s["held"] for t in held)  # fmt: skip

        api = p.request.new_context(
            base_url=site, extra_http_headers={"Authorization": f"Bearer {tokens[OWNER]}"}
        )
        by_header = {i: api.get(f"/api/matches/{i}/record").json() for i in ids}
        assert api.get(f"/api/matches/{ids[0]}").json()["seats"] == [
            arena.store.match(ids[0])[0].record["seats"].index(OWNER)
        ]
        wrong = p.request.new_context(
            base_url=site, extra_http_headers={"Authorization": "Bearer guessed"}
        ).get(f"/api/matches/{ids[0]}")
        assert wrong.status == 403 and wrong.json() == {"error": "not a token of this arena"}
        browser.close()
    assert errors == []

    for match_id, got in by_header.items():
        whole = arena.store.match(match_id)[0].record
        owner_record_holds(whole, got)
    exported = {json.loads(line)["match"]["id"]: json.loads(line)["record"] for line in lines}
    assert exported == by_header  # the download: one record a line, the owner's view

    # the CLI from a fresh ARENA_HOME on the author's machine, with the bot's token only
    home = tmp_path / "author"
    kept = {k: v for k, v in arena.env.items() if k not in ("ARENA_ADMIN_TOKEN", "ARENA_HOME")}
    env = kept | {"ARENA_HOME": str(home), "ARENA_TOKEN": tokens[OWNER]}
    del env["ARENA_DATABASE_URL"]  # nothing of the arena's but its address

    def cli(*args: str, **more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena.cli", *args], env=env | more, capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip

    shown = cli("match", "show", ids[0], "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == by_header[ids[0]]
    text = cli("match", "show", ids[0])
    assert text.returncode == 0 and "hand  0" in text.stdout, text.stderr
    for command in (["matches", "--bot", OWNER], ["ratings"], ["bot", "list"]):
        done = cli(*command)
        assert done.returncode == 0, (command, done.stderr)
    organizing = cli("nodes")  # the organizer's: refused here, saying why; no token made
    assert organizing.returncode != 0 and "needs an organizer's token" in organizing.stderr
    public = cli("match", "show", ids[0], "--json", ARENA_TOKEN="")
    assert json.loads(public.stdout) != by_header[ids[0]]  # no token: the public record
    assert not (home / "admin-token").exists()
    assert ADMIN not in shown.stdout + shown.stderr


def owner_record_holds(whole: dict[str, Any], got: dict[str, Any]) -> None:
    """``got`` is the owner's record of ``whole``: its seat's cards and covered plays
    whole, the others' cards null but those played face up, no covered face of theirs."""
    own = whole["seats"].index(OWNER)
    assert "seed" not in got
    hands = replay(whole).hands
    for number, (hand, mine) in enumerate(zip(whole["hands"], got["hands"], strict=True)):
        plays = [a for a in hand["actions"] if a["type"] == "play"]
        seen = {a["card"] for a in plays if not a.get("covered") or a["seat"] == own}
        for seat, (cards, shown) in enumerate(zip(hand["cards"], mine["cards"], strict=True)):
            if seat == own and not hands[number].blind:
                assert shown == cards
            else:
                assert shown == [c if c in seen else None for c in cards]
        for action, seen in zip(hand["actions"], mine["actions"], strict=True):
            if action.get("covered") and action["seat"] != own:
                assert "card" not in seen
            else:
                assert seen == action

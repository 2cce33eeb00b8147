"""The action log written by the use cases, on a real PostgreSQL (docs/events.md): each
action and its entry are kept or lost together, the entry naming who did it. (Over the
Arena API, with the callers' names: tests/referee/test_accounts.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from arena.domain.clock import TimeControl
from arena.domain.sprt import Asked, Room, Sprt
from arena.domain.versions import Caps, Manifest
from arena.engine import Rules
from arena.errors import Exhausted, Exists
from arena.hosted.archive import check
from arena.read.actions import actions, log_page, organizers
from arena.store.store import Store
from arena.usecases.bots import register_bot, rotate_token, set_bot_ladder
from arena.usecases.house import house_version
from arena.usecases.ladder import set_ladder
from arena.usecases.organizers import add_organizer, remove_organizer
from arena.usecases.sprts import start_sprt
from arena.usecases.versions import submit
from tests.hosted.test_archive import BOT, tar

MANIFEST = Manifest("python", "bot.py")


def entries(store: Store) -> list[tuple[str, str, str, dict[str, Any]]]:
    """The log oldest first, as (actor, action, subject, detail)."""
    return [(a["actor"], a["action"], a["subject"], a["detail"]) for a in actions(store)][::-1]


def test_each_use_case_logs_its_action_with_who_did_it(store: Store) -> None:
    register_bot(store, "ana", "team", actor="organizer")
    register_bot(store, "bia", actor="zeca")
    rotate_token(store, "ana", actor="zeca")
    set_bot_ladder(store, "ana", True, actor="bot ana")
    data = tar(BOT)
    version, _ = submit(store, "ana", MANIFEST, data, check(data, MANIFEST), actor="bot ana")
    set_ladder(store, "paulista/1", True, 2, TimeControl(decision_ms=300), actor="zeca")
    asked = Asked(Rules(), TimeControl(), max_games=10, at_once=2)
    test = start_sprt(store, "ana", "bia", Sprt(), asked, "ana", Room(2, 100), actor="bot ana")
    assert entries(store) == [
        ("organizer", "register", "bot ana", {"owner": "team"}),
        ("zeca", "register", "bot bia", {"owner": ""}),
        ("zeca", "rotate token", "bot ana", {}),
        ("bot ana", "ladder opt-in", "bot ana", {}),
        ("bot ana", "submit", "bot ana",
         {"version": version.number, "hash": version.hash, "runtime": "python"}),
        ("zeca", "ladder on", "pool paulista/1",
         {"concurrency": 2,
          "clock": {"decision_ms": 300, "time_bank_ms": 10000, "reconnect_grace_ms": 60000}}),
        ("bot ana", "start test", f"test {test.id}",
         {"new": "ana", "base": "bia", "rated": False, "max_games": 10}),
    ]  # fmt: skip


def test_an_action_refused_logs_nothing_and_a_log_that_fails_undoes_the_action(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_bot(store, "ana", actor="organizer")
    with pytest.raises(Exists):
        register_bot(store, "ana", actor="zeca")
    data, other = tar(BOT), tar(BOT | {"x.txt": b"x"})
    submit(store, "ana", MANIFEST, data, check(data, MANIFEST), actor="bot ana")
    submit(store, "ana", MANIFEST, data, check(data, MANIFEST), actor="bot ana")  # not new
    with pytest.raises(Exhausted):
        submit(store, "ana", MANIFEST, other, check(other, MANIFEST), Caps(versions=1), actor="x")
    assert [(a, b) for a, b, _, _ in entries(store)] == [
        ("organizer", "register"), ("bot ana", "submit"),
    ]  # fmt: skip

    def broken(*args: Any) -> None:
        raise RuntimeError("the log is broken")

    before = store.bot("ana")
    monkeypatch.setattr(store, "log_action", broken)
    with pytest.raises(RuntimeError):
        register_bot(store, "bia", actor="organizer")
    with pytest.raises(RuntimeError):
        rotate_token(store, "ana", actor="organizer")
    with pytest.raises(RuntimeError):
        add_organizer(store, "zeca", actor="organizer")
    assert store.bot("bia") is None  # the bot went with its entry
    assert store.bot("ana") == before  # its token as it was
    assert [o["name"] for o in organizers(store)] == ["organizer"]


def test_organizers_come_and_go_with_the_log_saying_who(store: Store) -> None:
    ana, token = add_organizer(store, "ana", actor="organizer")
    assert store.organizer_for_token(token) == "ana"
    add_organizer(store, "bia", actor="ana")
    with pytest.raises(Exists):
        add_organizer(store, "ana", actor="bia")
    remove_organizer(store, "ana", actor="bia")
    assert store.organizer_for_token(token) is None
    back, again = add_organizer(store, "ana", actor="bia")
    assert (back.id, back.removed_at) == (ana.id, None) and again != token
    assert store.organizer_for_token(token) is None and store.organizer_for_token(again) == "ana"
    assert [(a, b, c) for a, b, c, _ in entries(store)] == [
        ("organizer", "add organizer", "organizer ana"),
        ("ana", "add organizer", "organizer bia"),
        ("bia", "remove organizer", "organizer ana"),
        ("bia", "add organizer", "organizer ana"),
    ]


def test_the_house_bots_are_the_arenas_doing_and_the_log_reads_a_page_at_a_time(
    store: Store,
) -> None:
    house_version(store)
    assert [(a, b, c) for a, b, c, _ in entries(store)] == [
        ("arena", "register", "bot sparring-random"),
        ("arena", "ladder opt-out", "bot sparring-random"),
        ("arena", "submit", "bot sparring-random"),
    ]
    for n in range(60):
        register_bot(store, f"b{n}", actor="organizer")
    page = log_page(store, None, None, None)
    assert len(page["actions"]) == 50 and page["actions"][0]["subject"] == "bot b59"
    rest = log_page(store, None, None, page["next_before"])
    assert len(rest["actions"]) == 13 and rest["next_before"] is None
    assert rest["actions"][-1]["action"] == "register"  # the house bot's, the oldest
    only = log_page(store, "bot b7", "organizer", None)
    assert [a["subject"] for a in only["actions"]] == ["bot b7"] and only["next_before"] is None

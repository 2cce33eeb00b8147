"""A hosted bot's versions through their use cases, on a real PostgreSQL: a submission is
kept once by its hash, one past the bot's caps is refused and leaves nothing behind, a
judged version becomes the bot's active one, retiring the one before, unless it was
submitted as a candidate: then it plays only what names it until it is activated; any
checked version may be activated, and the same files again do what the flags say. (Two
submissions at once against the last place, and all this through the API and the CLI:
tests/referee/test_hosting_api.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from arena.domain.clock import TimeControl
from arena.domain.sprt import Asked, Sprt
from arena.domain.tournament import Definition
from arena.domain.versions import Caps, Manifest
from arena.engine import Rules
from arena.errors import Exhausted, Invalid, NotFound, NotReady
from arena.hosted.archive import check
from arena.read.actions import actions
from arena.store.rows import BotVersionRow
from arena.store.store import Store
from arena.usecases.ladder import fill, set_ladder
from arena.usecases.matches import challenge
from arena.usecases.runs import create_run
from arena.usecases.sprts import start_sprt
from arena.usecases.tournaments import create_tournament
from arena.usecases.versions import activate, judge, submit
from tests.hosted.test_archive import BOT, tar

MANIFEST = Manifest("python", "bot.py")


def kept_archives(store: Store) -> int:
    with store.pool.connection() as conn:
        row = conn.execute("SELECT count(*) AS n FROM bot_archives").fetchone()
    assert row is not None
    return int(row["n"])


def test_a_submission_is_kept_once_and_numbered(store: Store) -> None:
    store.register_bot("alpha")
    data = tar(BOT)
    first = submit(store, "alpha", MANIFEST, data, check(data, MANIFEST))
    assert first.new and first.version.number == 1 and first.version.status == "checking"
    again = submit(store, "alpha", MANIFEST, data, check(data, MANIFEST))
    assert not again.new and again.version == first.version and again.found == "checking"
    other = tar(BOT | {"n": b"2"})
    second = submit(store, "alpha", MANIFEST, other, check(other, MANIFEST))
    assert second.new and second.version.number == 2 and kept_archives(store) == 2
    with pytest.raises(NotFound, match="no bot named 'zeca'"):
        submit(store, "zeca", MANIFEST, data, check(data, MANIFEST))


def test_a_submission_past_the_caps_is_refused_and_keeps_nothing(store: Store) -> None:
    store.register_bot("alpha")
    data = tar(BOT)
    submit(store, "alpha", MANIFEST, data, check(data, MANIFEST))
    other = tar(BOT | {"n": b"2"})
    with pytest.raises(Exhausted, match="1 versions"):
        submit(store, "alpha", MANIFEST, other, check(other, MANIFEST), Caps(versions=1))
    small = check(other, MANIFEST)
    with pytest.raises(Exhausted, match="bytes of archives"):
        submit(store, "alpha", MANIFEST, other, small, Caps(archive_bytes=small.size))
    assert len(store.versions("alpha")) == 1 and kept_archives(store) == 1


def test_a_judged_version_is_active_and_retires_the_one_before(store: Store) -> None:
    store.register_bot("alpha")
    rows = []
    for k in range(2):
        data = tar(BOT | {"n": bytes([k])})
        rows.append(submit(store, "alpha", MANIFEST, data, check(data, MANIFEST))[0])
    assert judge(store, rows[0].id).status == "active"
    assert judge(store, rows[1].id, "2 timeouts in check-2-1").status == "rejected"
    assert judge(store, rows[1].id).status == "active"
    assert [v.status for v in store.versions("alpha")] == ["active", "retired"]


def version(store: Store, bot: str, n: int, *, candidate: bool = False, reason: str = "") -> Any:
    """Version ``n`` of ``bot`` (its own files), submitted and judged."""
    data = tar(BOT | {"n": bytes([n])})
    row = submit(store, bot, MANIFEST, data, check(data, MANIFEST), candidate=candidate).version
    return judge(store, row.id, reason)


def statuses(store: Store, bot: str) -> list[tuple[int, str]]:
    return [(v.number, v.status) for v in store.versions(bot)]


def test_a_candidate_is_checked_but_plays_only_what_names_it(store: Store) -> None:
    store.register_bot("alpha")
    store.register_bot("dial")
    store.set_bot_ladder("dial", True)
    version(store, "alpha", 1)
    data = tar(BOT | {"n": bytes([2])})
    two = submit(store, "alpha", MANIFEST, data, check(data, MANIFEST), candidate=True).version
    assert (two.status, two.candidate) == ("checking", True)
    assert judge(store, two.id).status == "candidate"  # checked clean, and not active
    assert statuses(store, "alpha") == [(2, "candidate"), (1, "active")]
    assert store.playing_as(["alpha"])["alpha"][1] == "alpha@1"
    # the ladder and tournaments by the bot's name: its active version, never the candidate
    set_ladder(store, "paulista/1", True, concurrency=8)
    made = fill(store, "paulista/1", {"dial": (8, 0)})
    assert made and {s for m in made for s in store.match(m)[1]} == {"alpha@1", "dial"}  # type: ignore[index]
    cup = create_tournament(store, Definition(name="cup", bots=("alpha", "dial"), matches=2))
    run = create_run(store, cup)
    assert run is not None
    entries = (store.run(run.id) or (run, ""))[0].entries or {}
    assert {name: seat for name, (_, seat) in entries.items()} == {
        "alpha": "alpha@1", "dial": "dial",
    }  # fmt: skip
    # a challenge or a test that names it plays it
    [match_id] = challenge(store, ["alpha@2", "dial"], Rules(), 1, TimeControl(), {"dial"})
    assert sorted(store.match(match_id)[1]) == ["alpha@2", "dial"]  # type: ignore[index]
    asked = Asked(Rules(), TimeControl(), max_games=10, at_once=2)
    test = start_sprt(store, "alpha@2", "alpha", Sprt(), asked, "organizer")
    assert store.sprt(test.id)[1:] == ("alpha@2", "alpha@1")  # type: ignore[index]


def test_any_checked_version_is_activated_and_the_rest_refused(store: Store) -> None:
    store.register_bot("alpha")
    version(store, "alpha", 1)
    version(store, "alpha", 2, candidate=True)
    made, retired = activate(store, "alpha@2", actor="bot alpha")
    assert (made.status, retired.number if retired else None) == ("active", 1)
    made, retired = activate(store, "alpha@1", actor="bot alpha")  # back to the one before
    assert (made.status, retired.number if retired else None) == ("active", 2)
    assert statuses(store, "alpha") == [(2, "retired"), (1, "active")]
    made, retired = activate(store, "alpha@1", actor="bot alpha")  # active already: no change
    assert made.status == "active" and retired is None
    logged = [(a["action"], a["subject"], a["detail"]) for a in actions(store)][::-1]
    assert [x for x in logged if x[0] == "activate"] == [
        ("activate", "bot alpha", {"version": 2, "was": "candidate", "retired": 1}),
        ("activate", "bot alpha", {"version": 1, "was": "retired", "retired": 2}),
    ]
    version(store, "alpha", 3, reason="2 timeouts in check-3-1")
    with pytest.raises(NotReady, match=r"alpha@3 was rejected \(2 timeouts in check-3-1\)"):
        activate(store, "alpha@3")
    data = tar(BOT | {"n": b"4"})
    submit(store, "alpha", MANIFEST, data, check(data, MANIFEST))
    with pytest.raises(NotReady, match="alpha@4 is still being checked"):
        activate(store, "alpha@4")
    with pytest.raises(NotFound, match="no version 'alpha@9'"):
        activate(store, "alpha@9")
    with pytest.raises(Invalid, match="give the version to make active, NAME@N"):
        activate(store, "alpha")
    assert store.playing_as(["alpha"])["alpha"][1] == "alpha@1"  # the refusals changed nothing


def test_the_same_files_again_do_what_the_flags_say(store: Store) -> None:
    store.register_bot("alpha")

    def again(n: int, candidate: bool = False) -> tuple[str, str]:
        """Version n's files again: its status as found, and after."""
        data = tar(BOT | {"n": bytes([n])})
        done = submit(store, "alpha", MANIFEST, data, check(data, MANIFEST), candidate=candidate)
        assert not done.new
        return done.found, done.version.status

    for n in (1, 2):
        version(store, "alpha", n)  # alpha@2 active, alpha@1 retired
    assert again(1, candidate=True) == ("retired", "retired")  # a candidate: nothing changes
    assert again(1) == ("retired", "active")  # activated
    assert statuses(store, "alpha") == [(2, "retired"), (1, "active")]
    assert again(1) == ("active", "active")
    version(store, "alpha", 3, reason="not clean")
    assert again(3) == ("rejected", "rejected")  # never activated
    data = tar(BOT | {"n": bytes([4])})
    four = submit(store, "alpha", MANIFEST, data, check(data, MANIFEST), candidate=True)
    assert again(4) == ("checking", "checking")  # to be active once checked, after all
    assert judge(store, four.version.id).status == "active"
    assert statuses(store, "alpha") == [(4, "active"), (3, "rejected"), (2, "retired"),
                                        (1, "retired")]  # fmt: skip


def test_the_version_active_at_a_time_follows_activations_in_any_order(store: Store) -> None:
    """A run whose entries closed at T seats the version active at T: after a rollback
    that is not the highest number checked by then (migration 0019)."""
    store.register_bot("alpha")
    one: BotVersionRow = version(store, "alpha", 1)
    version(store, "alpha", 2)
    activate(store, "alpha@1")
    with store.pool.connection() as conn:
        at = [r["at"] for r in conn.execute("SELECT at FROM version_activations ORDER BY id")]
    assert len(at) == 3 and one.checked_at is not None

    def seated(as_of: Any) -> str:
        with store.unit() as conn:
            return store.run_bots(conn, names=["alpha"], as_of=as_of)["alpha"][1]

    assert [seated(t) for t in at] == ["alpha@1", "alpha@2", "alpha@1"]
    assert seated(at[1] - (at[1] - at[0]) / 2) == "alpha@1"
    assert seated(at[0] - (at[1] - at[0])) == "alpha"  # before any: the bot itself


def test_a_test_of_a_version_against_itself_is_refused(store: Store) -> None:
    store.register_bot("alpha")
    data = tar(BOT)
    one, _ = submit(store, "alpha", MANIFEST, data, check(data, MANIFEST))
    judge(store, one.id)  # alpha plays as alpha@1
    asked = Asked(Rules(), TimeControl(), max_games=10, at_once=4)
    with pytest.raises(Invalid, match="'alpha@1' and 'alpha' play as one version, alpha@1"):
        start_sprt(store, "alpha@1", "alpha", Sprt(), asked, "organizer")
    assert store.running_sprts() == []

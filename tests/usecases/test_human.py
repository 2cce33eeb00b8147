"""A person's match against a bot (arena/usecases/human.py), on a real PostgreSQL: who may
be challenged, what the match is made as (unrated, nobody's test, the person's seat
named and let in by a token of that one match), and that playing it records it and moves
no rating. The browser's side is tests/web/test_play.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from arena.domain.clock import DEFAULT_CLOCK
from arena.domain.humans import HUMAN_BOT, HUMAN_CLOCK, HUMAN_STALL_S, Person
from arena.domain.schedule import STALL_S
from arena.engine import Rules
from arena.errors import Exhausted, Forbidden, Invalid, NotFound, NotReady
from arena.hosted.tokens import read_match_token, token_key
from arena.store.store import Store
from arena.usecases.human import PER_PERSON, set_bot_humans, start_human_match
from arena.usecases.matches import challenge, claim, play, request
from tests.store.test_store import count, played

ANA = Person(bot="alpha")
GUEST = Person(guest="0123456789abcdef")


def test_an_owner_plays_its_own_bot_unrated_with_a_token_of_that_match(store: Store) -> None:
    store.register_bot("alpha", owner="ana")
    made = start_human_match(store, ANA, "alpha", Rules(), {"alpha"})
    row, seats = store.match(made.match.id) or (None, [])
    assert row is not None and sorted(seats) == ["alpha", HUMAN_BOT]
    assert seats[made.seat] == HUMAN_BOT and made.opponent == "alpha"
    assert (row.rated, row.human, row.sprt_id, row.run_id, row.ladder_id) == (
        False, "owner:alpha", None, None, None
    )  # fmt: skip
    assert row.clock == HUMAN_CLOCK.to_json() and row.status == "scheduled"
    key = token_key(store.deal_key())
    assert read_match_token(key, made.token) == (made.match.id, HUMAN_BOT)


def test_another_owners_bot_is_played_only_once_its_owner_allows_it(
    store: Store, database: str
) -> None:
    store.register_bot("alpha", owner="ana")
    store.register_bot("beta", owner="bia")
    with pytest.raises(Forbidden, match="beta's owner does not let people challenge it"):
        start_human_match(store, ANA, "beta", Rules(), {"beta"})
    with pytest.raises(Forbidden, match="does not let people"):
        start_human_match(store, GUEST, "alpha", Rules(), {"alpha"})
    assert count(database, "SELECT count(*) FROM matches") == 0
    assert set_bot_humans(store, "beta", True, actor="bot beta").humans
    made = start_human_match(store, GUEST, "beta", Rules(), {"beta"})
    assert store.match(made.match.id)[0].human == str(GUEST)  # type: ignore[index]
    assert [a.action for a in store.actions(subject="bot beta")] == ["humans on"]
    set_bot_humans(store, "beta", False, actor="bot beta")
    with pytest.raises(Forbidden):
        start_human_match(store, ANA, "beta", Rules(), {"beta"})


def test_what_cannot_be_played_is_refused_and_makes_nothing(store: Store, database: str) -> None:
    store.register_bot("alpha", owner="ana")
    set_bot_humans(store, "alpha", True, actor="bot alpha")
    refusals = [
        (Invalid, "one a side", "alpha", Rules.parse("paulista:team_size=2")),
        (NotFound, "no bot named 'nobody'", "nobody", Rules()),
        (NotFound, "no bot named 'human'", HUMAN_BOT, Rules()),
        (NotReady, "not connected", "alpha", Rules()),
        (Forbidden, "as it plays", "alpha@1", Rules()),
    ]
    for kind, words, opponent, rules in refusals:
        connected = set() if kind is NotReady else {"alpha"}
        with pytest.raises(kind, match=words):
            start_human_match(store, GUEST, opponent, rules, connected)
    with pytest.raises(Invalid, match="is a version"):
        set_bot_humans(store, "alpha@1", True, actor="bot alpha")
    with pytest.raises(NotFound):
        set_bot_humans(store, "nobody", True, actor="organizer")
    for _ in range(PER_PERSON):
        start_human_match(store, GUEST, "alpha", Rules(), {"alpha"})
    with pytest.raises(Exhausted, match="finish one first"):
        start_human_match(store, GUEST, "alpha", Rules(), {"alpha"})
    assert count(database, "SELECT count(*) FROM matches") == PER_PERSON
    start_human_match(store, ANA, "alpha", Rules(), {"alpha"})  # another person's count


def test_a_played_human_match_is_recorded_and_moves_no_rating(store: Store, database: str) -> None:
    store.register_bot("alpha", owner="ana")
    made = start_human_match(store, ANA, "alpha", Rules(), {"alpha"})
    done = play(store, made.match.id, lambda row, seats: played(Rules(), row.seed))
    assert done.played and done.recorded
    row = store.match(made.match.id)[0]  # type: ignore[index]
    assert row.status == "finished" and row.record is not None and row.winner is not None
    url = database
    assert count(url, "SELECT count(*) FROM rating_events") == 0
    assert count(url, "SELECT count(*) FROM ratings") == 0
    assert store.human_matches_going(str(ANA)) == 0
    assert HUMAN_BOT not in [b["name"] for b in store.bot_index()]


def test_the_human_seat_is_never_scheduled(store: Store) -> None:
    """Its row is retired: no run, challenge or ladder seats it as a bot."""
    store.register_bot("alpha")
    assert store.playing_as([HUMAN_BOT, "alpha"]).keys() == {"alpha"}
    with pytest.raises(NotFound, match="no active bot named 'human'"):
        challenge(store, ["alpha", HUMAN_BOT], Rules(), 1, DEFAULT_CLOCK, {"alpha", HUMAN_BOT})


def test_a_persons_match_playing_for_minutes_is_not_taken_for_stalled(store: Store) -> None:
    """The scheduler's sweep sends a match outside runs again after STALL_S without
    progress; a person's, while it plays, only after HUMAN_STALL_S (a copy would hold a
    worker until the person is done)."""
    alpha = store.register_bot("alpha")[0]
    made = start_human_match(store, ANA, "alpha", Rules(), {"alpha"})
    request(store, "m-bots", Rules(), [alpha.id, alpha.id])
    soon = datetime.now(UTC) + timedelta(seconds=STALL_S + 60)
    assert set(store.stalled_matches(soon, STALL_S)) == {made.match.id, "m-bots"}  # unsent
    claim(store, made.match.id)
    claim(store, "m-bots")
    assert store.stalled_matches(soon, STALL_S) == ["m-bots"]
    later = datetime.now(UTC) + timedelta(seconds=HUMAN_STALL_S + 60)
    assert set(store.stalled_matches(later, STALL_S)) == {made.match.id, "m-bots"}

"""People playing bots from the web pages (docs/web.md, "Playing a bot yourself"): a bot's
owner lets people challenge it or not, and a person starts a match against a bot, with
the seat they play held by the web over the bot protocol.

A person's match is unrated, nobody's test, run or ladder, and recorded like any other:
the workers play it through RunMatch, its human seat let in with a match token of its
one match (arena/hosted/tokens.py), as a hosted bot's process is.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection
from dataclasses import dataclass

from arena.domain.humans import HUMAN_BOT, HUMAN_CLOCK, Person
from arena.domain.identity import BotRef, is_version
from arena.domain.matches import NewMatch, human_match_id
from arena.domain.tournament import deal_seed
from arena.engine import Rules, quoted
from arena.errors import Exhausted, Forbidden, Invalid, NotFound, NotReady
from arena.hosted.tokens import match_token, token_key
from arena.store.rows import BotRow
from arena.store.store import Store

PER_PERSON = 2  # a person's matches not yet over, at most, whatever web process they use
PLAYABLE = ("active", "retired")  # the statuses of an owner's own versions they may play


def set_bot_humans(store: Store, name: str, on: bool, *, actor: str) -> BotRow:
    """Whether people may challenge bot ``name`` from the web, as ``actor`` (its owner,
    or an organizer) asked. A version has no choice of its own: its bot's counts."""
    if is_version(name):
        raise Invalid(f"{name} is a version: the choice is its bot's, {BotRef.parse(name).bot}")
    with store.unit() as conn:
        row = store.set_bot_humans(conn, name, on)
        if row is None:
            raise NotFound(f"no bot named {quoted(name)}")
        store.log_action(conn, actor, "humans on" if on else "humans off", f"bot {row.name}")
    return row


@dataclass(frozen=True, slots=True)
class HumanMatch:
    """A person's match, made: the match, the person's seat in it, the name of the bot
    they play, and the token that lets the web hold their seat (its one match only)."""

    match: NewMatch
    seat: int
    opponent: str
    token: str


def start_human_match(
    store: Store,
    person: Person,
    opponent: str,
    rules: Rules,
    connected: Collection[str],
) -> HumanMatch:
    """A match of ``person`` against ``opponent`` (a bot as it plays, or, of the person's
    own bot, any version of it), one a side, the person's seat drawn at random, on the
    clock for people (HUMAN_CLOCK), unrated. ``connected``: the bots dialed in now (one
    that dials in must be). Refused: Invalid for a team game, Forbidden for a bot whose
    owner does not let people challenge it, NotFound for no such bot, NotReady for one
    not connected or an arena without human seats, Exhausted past PER_PERSON matches of
    the person's not over yet."""
    if rules.seats != 2:
        raise Invalid(f"people play one a side; {rules} has {rules.seats} seats")
    playing = store.human_matches_going(str(person))
    if playing >= PER_PERSON:
        raise Exhausted(f"you have {playing} matches going: finish one first")
    human = store.human_row()
    if human is None:
        raise NotReady(f"this arena has no seats for people: a bot is named {HUMAN_BOT}")
    seat_id, seat_name = _opponent(store, person, BotRef.parse(opponent))
    if not is_version(seat_name) and seat_name not in connected:
        raise NotReady(f"bot {quoted(seat_name)} is not connected now: try another, or later")
    match_id = human_match_id()
    mine = secrets.randbelow(2)
    seats = (human.id, seat_id) if mine == 0 else (seat_id, human.id)
    seed = deal_seed(store.deal_key(), match_id)
    match = NewMatch(match_id, rules, seats, seed, HUMAN_CLOCK, rated=False, human=str(person))
    with store.unit() as conn:
        store.insert_matches(conn, [match])
    token = match_token(token_key(store.deal_key()), match_id, HUMAN_BOT)
    return HumanMatch(match, mine, seat_name, token)


def _opponent(store: Store, person: Person, ref: BotRef) -> tuple[int, str]:
    """The bot row and name that play for ``ref`` against ``person``."""
    if ref.bot == person.bot:  # the person's own bot: as it plays, or any version of it
        if ref.is_version:
            version = store.version(str(ref))
            if version.status not in PLAYABLE:
                raise NotReady(f"{ref} is {version.status}: play an active or retired version")
            return version.id, str(ref)
        own = store.playing_as([ref.bot]).get(ref.bot)
        if own is None:
            raise NotFound(f"your bot {quoted(ref.bot)} is not active")
        return own
    if store.bot(ref.bot) is None or ref.bot == HUMAN_BOT:
        raise NotFound(f"no bot named {quoted(ref.bot)}")
    if ref.bot not in store.human_opponents():
        raise Forbidden(f"{ref.bot}'s owner does not let people challenge it")
    if ref.is_version:
        raise Forbidden(f"another owner's bot is played as it plays: ask for {ref.bot}")
    found = store.playing_as([ref.bot]).get(ref.bot)
    if found is None:
        raise NotFound(f"{quoted(ref.bot)} is not active")
    return found

"""Sequential tests: start one, and step it on (docs/testing.md). Each step counts the
pairs whose matches are recorded, decides whether the evidence is enough and makes the
next pairs, all from what the store holds, under the test row's lock: a step may run
twice, or after a crash, or from the minute's sweep; it finds what is left to do and does
only that (the step's decisions: :func:`arena.domain.sprt.step`)."""

from __future__ import annotations

from arena.domain.actors import ARENA
from arena.domain.clock import TimeControl
from arena.domain.identity import is_version
from arena.domain.sprt import Asked, Room, Sprt, Tally, pair_matches, step
from arena.engine import Rules, quoted
from arena.errors import Invalid, NotFound
from arena.store.rows import SprtRow
from arena.store.store import Store


def start_sprt(
    store: Store,
    new: str,
    base: str,
    test: Sprt,
    asked: Asked,
    by: str,
    room: Room | None = None,
    *,
    actor: str = ARENA,
) -> SprtRow:
    """A new test of ``new`` against ``base``, each seated as who plays for it (its
    active hosted version, else itself). The pairs share their deals when both are
    hosted: each match is a fresh process then, with nothing to remember. ``by`` is the
    organizer or the bot whose token asked; with ``room``, the tests its owner (the bot's
    owner, or the bot when it has none) has running, this one included, must fit in it:
    Exhausted says what is over, counted under a lock per owner so that two asked at once
    cannot both squeeze in. Its first step is the caller's to send. Logged as started by
    ``actor`` (an organizer's name, or "bot NAME": docs/events.md)."""
    if new == base:
        raise Invalid("a test compares two different bots")
    seated = store.playing_as([new, base])
    missing = [name for name in (new, base) if name not in seated]
    if missing:
        raise NotFound(f"no active bot named {', '.join(map(quoted, missing))}")
    if seated[new][0] == seated[base][0]:
        raise Invalid(
            f"{quoted(new)} and {quoted(base)} play as one version, {seated[new][1]}: a test "
            "compares two different ones (name a version, NAME@N)"
        )
    duplicate = is_version(seated[new][1]) and is_version(seated[base][1])
    with store.unit() as conn:
        if room is not None:
            owner, tests, running = store.owner_tests(conn, by)
            room.refuse(owner, by, tests, running, asked.max_games)
        row = store.insert_sprt(conn, seated[new][0], seated[base][0], test, asked, duplicate, by)
        detail = {"new": new, "base": base, "rated": asked.rated, "max_games": asked.max_games}
        store.log_action(conn, actor, "start test", f"test {row.id}", detail)
        return row


def step_sprt(store: Store, test_id: int) -> list[str]:
    """Count the pairs whose matches are both recorded, decide if the evidence is enough,
    and make the next pairs while the test runs and has room; the new matches' ids (to
    send to the workers)."""
    key = store.deal_key()  # read now: not on a second connection while holding the lock
    with store.unit() as conn:
        row = store.lock_sprt(conn, test_id)
        if row.status != "running":
            return []
        tally = Tally((row.lost_both, row.split, row.won_both), row.llr, row.scheduled)
        done = step(
            Sprt(row.elo0, row.elo1, row.alpha, row.beta),
            tally,
            store.sprt_matches(conn, test_id),
            store.sprt_counted(conn, test_id),
            row.new_id,
            row.at_once,
            row.max_games,
        )
        asked = Asked(Rules.parse(row.rules), TimeControl.from_json(row.clock), rated=row.rated)
        made = [
            m
            for pair in done.make
            for m in pair_matches(test_id, pair, asked, row.new_id, row.base_id, row.duplicate, key)
        ]
        store.insert_matches(conn, made)
        store.stepped_sprt(conn, test_id, done)
    return [m.id for m in made]

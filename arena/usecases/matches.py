"""A match's life outside the planners: asked for by hand (a challenge, a version's
check), claimed by the worker that plays it, and recorded once played: the exactly-once
write of its record and of the result it is credited with (arena/domain/absence.py), then
its pool's ratings fitted again (arena/usecases/ratings.py) when it is rated."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from arena.domain.absence import Credit, credit
from arena.domain.clock import DEFAULT_CLOCK, TimeControl
from arena.domain.identity import is_version
from arena.domain.matches import NewMatch, challenge_match_id
from arena.domain.tournament import deal_seed, seatings
from arena.engine import Rules, quoted
from arena.errors import NotFound, NotReady
from arena.store.rows import MatchRow
from arena.store.store import Claimed, Finish, Store
from arena.usecases import runs
from arena.usecases.ratings import refit
from arena.usecases.sprts import step_sprt


def request(
    store: Store,
    match_id: str,
    rules: Rules,
    seats: Sequence[int],
    *,
    clock: TimeControl = DEFAULT_CLOCK,
    seed: int | None = None,
    rated: bool = True,
) -> NewMatch:
    """A match to be played with the bot row at each seat (asked again with the same
    id: nothing happens). Its deals come from the arena's secret and its id unless a
    ``seed`` is given."""
    if seed is None:
        seed = deal_seed(store.deal_key(), match_id)
    match = NewMatch(match_id, rules, tuple(seats), seed, clock, rated)
    with store.unit() as conn:
        store.insert_matches(conn, [match])
    return match


def challenge(
    store: Store,
    bots: Sequence[str],
    rules: Rules,
    count: int,
    clock: TimeControl,
    connected: Collection[str],
    *,
    played: bool = True,
) -> list[str]:
    """``count`` rated matches between ``bots`` (their active versions where they have
    one), seated as the domain's seatings turn them, each with its own secret deals (the
    bots may dial in, so no two share deals), made in one unit of work; their ids.
    NotFound names a bot that is not active, NotReady one that dials in and is not among
    ``connected`` (a hosted version's process is started for its match), and then, when
    nothing can play them (``played`` False: no workers), NotReady makes none."""
    plan = seatings(rules, list(bots), count)
    names = list(dict.fromkeys(bots))
    playing = store.playing_as(names)
    for name in names:
        if name not in playing:
            raise NotFound(f"no active bot named {quoted(name)}")
    for name in names:
        if not is_version(playing[name][1]) and name not in connected:
            raise NotReady(f"bot {quoted(name)} is not connected")
    if not played:
        raise NotReady("this server has no workers to play matches")
    key = store.deal_key()
    made = []
    for seats in plan:
        match_id = challenge_match_id()
        ids = tuple(playing[name][0] for name in seats)
        made.append(NewMatch(match_id, rules, ids, deal_seed(key, match_id), clock))
    with store.unit() as conn:
        store.insert_matches(conn, made)
    return [m.id for m in made]


def claim(store: Store, match_id: str) -> Claimed:
    """A match to play and the bot at each seat, marked running (started now) unless it
    was finished, failed or cancelled, or its run is paused; the row as it was before (a
    finished one is not played again) and its run's status."""
    return store.claim_match(match_id)


def record(
    store: Store,
    match_id: str,
    played: dict[str, Any] | str,
    credited: Credit | Callable[[dict[str, Any]], Credit] | None = None,
    *,
    fit: bool = True,
) -> Finish:
    """Record the match (once, whoever asks again) as ``credited`` says, or what makes it
    from the record (:func:`arena.domain.absence.credit` under the match's policy; None:
    the result as played), and fit its pool's ratings again unless ``fit`` is False (a
    worker that has just fitted the pool leaves it to the next). The record may come as
    JSON text, as the referee sends it: it is then kept as it is."""
    record = json.loads(played) if isinstance(played, str) else played
    if callable(credited):
        credited = credited(record)
    text = played if isinstance(played, str) else None
    done = store.finish_match(match_id, record, credited, text)
    if done.rated and fit:
        refit(store, done.pool)
    return done


@dataclass(frozen=True, slots=True)
class Played:
    """What playing a match came to: whether it was played (False: it was finished or
    failed before), whether this call recorded it (False: another had), its run and
    whether that run is done (None: not known), and the matches to send next (a test's
    next pairs, the run's next window)."""

    played: bool
    recorded: bool
    run_id: int | None
    run_done: bool | None
    next: list[str]


def play(
    store: Store,
    match_id: str,
    referee: Callable[[MatchRow, list[str]], dict[str, Any] | str],
    *,
    freed: Callable[[str], object] = lambda pool: None,
    fit: Callable[[str], bool] = lambda pool: True,
    window: int = runs.WINDOW,
) -> Played:
    """Play the match and record it, unless it was finished or failed before: claimed
    (marked running), played by ``referee`` (the edge's way of having a referee play the
    row with these seats: its record), recorded once as the match's absence policy
    credits it, and its test stepped. ``freed(pool)`` is called as soon as a ladder
    match is played, before it is recorded, so that its slot is filled at once;
    ``fit(pool)`` says whether to fit the pool again now (a worker that has just fitted it
    leaves it to the next). A match of a paused run is not played (it goes back to be
    sent when the run resumes); one of a run sends the run's next matches, up to
    ``window`` in flight."""
    match, seats, run_status = claim(store, match_id)
    if match.status in ("finished", "failed", "cancelled"):
        return Played(False, False, match.run_id, None, [])
    if match.status == "scheduled" and run_status not in (None, "running"):
        return Played(False, False, match.run_id, False, [])
    played = referee(match, seats)
    if match.ladder_id is not None:
        freed(match.pool)
    credited = functools.partial(credit, policy=match.absent)
    done = record(store, match_id, played, credited, fit=fit(match.pool))
    following = step_sprt(store, match.sprt_id) if match.sprt_id is not None else []
    if match.run_id is not None:
        following += runs.next_matches(store, match.run_id, window)
    return Played(True, done.recorded, match.run_id, done.run_done, following)

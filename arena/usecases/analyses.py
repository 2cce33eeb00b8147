"""Analyses of finished matches (docs/web.md, "The analysis of a match"): asking for one,
and doing one (the workers' ``arena.analyse``). An owner may ask for its own seats, the
organizer for any; a sealed duplicate twin waits until both are played; a bot owner asks
for ``PER_DAY`` seats' analyses in 24 hours at most. Each match, seat and budget is
analysed once: asked again, it is the stored one. An analysis whose task was lost (no
worker was sent it or began it for ``LOST_S``) is sent again by the scheduler's sweep."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from arena.domain.actors import ARENA
from arena.domain.analyses import LOST_PER_SWEEP, LOST_S, PER_DAY, check_samples
from arena.domain.identity import seats_of
from arena.engine import quoted
from arena.errors import ArenaError, Exhausted, Forbidden, NotFound, NotReady, Sealed
from arena.store.store import Store

log = logging.getLogger(__name__)

Analyse = Callable[[dict[str, Any], int, str, int], list[dict[str, Any]]]
"""(record, seat, match id, samples) -> the seat's decisions valued, as stored."""


def ask_analysis(
    store: Store,
    match_id: str,
    samples: int,
    bot: str | None,
    *,
    actor: str = ARENA,
    now: datetime | None = None,
) -> list[int]:
    """Ask for the analysis of match ``match_id`` at ``samples`` drawn states per
    decision: of every seat for the organizer (``bot`` None), of the seats of ``bot`` (or
    its versions) for that bot's token. The seats newly asked (the caller sends the
    workers' task when there are any; none: all were asked before). Logged as asked by
    ``actor``."""
    check_samples(samples)
    found = store.match(match_id)
    if found is None:
        raise NotFound(f"no match {quoted(match_id)}")
    row, names = found
    if row.status != "finished" or row.record is None:
        raise NotReady(f"match {match_id} is {row.status}: only a finished match is analysed")
    if store.sealed([match_id]):
        raise Sealed(
            f"match {match_id} is not analysed before its duplicate twin {row.twin} is played"
        )
    seats = list(range(len(names))) if bot is None else list(seats_of(bot, names))
    if not seats:
        raise Forbidden(f"bot {quoted(bot)} did not play in match {match_id}: it may "
                        "analyse its own seats only (the organizer, any)")  # fmt: skip
    owner = ""
    if bot is not None:
        known = store.bot(bot)
        owner = (known.owner if known is not None else "") or bot
    with store.unit() as conn:
        since = (now or datetime.now(UTC)) - timedelta(days=1)
        asked = store.owner_analyses(conn, owner, since) if owner else 0  # the owner locked
        new = store.insert_analyses(conn, match_id, seats, samples, actor, owner)
        if owner and asked + len(new) > PER_DAY:  # raised: the inserts are rolled back
            raise Exhausted(
                f"owner {quoted(owner)} asked for {asked} analyses in the last 24 hours; "
                f"{len(new)} more would pass the cap of {PER_DAY} a day"
            )
        if new:
            detail = {"samples": samples, "seats": new}
            store.log_action(conn, actor, "analyse match", f"match {match_id}", detail)
    return new


def run_analysis(store: Store, match_id: str, samples: int, analyse: Analyse) -> int:
    """Do the match's pending analyses at ``samples`` (each seat's written as it is
    done: a second run finds only what is left); how many were done."""
    found = store.match(match_id)
    if found is None or found[0].record is None:
        raise NotFound(f"no recorded match {quoted(match_id)}")
    record = found[0].record
    done = 0
    for seat in store.pending_analyses(match_id, samples):
        store.begin_analysis(match_id, samples, seat)
        try:
            decisions = analyse(record, seat, match_id, samples)
        except (ArenaError, KeyError, TypeError, ValueError) as e:  # a record that does not replay
            log.warning("match %s, seat %d: not analysed: %s", match_id, seat, e)
            store.finish_analysis(match_id, samples, seat, None, str(e))
            continue
        store.finish_analysis(match_id, samples, seat, decisions)
        done += 1
    return done


def sent_again(store: Store, match_id: str, samples: int) -> None:
    """The match's pending analyses at ``samples`` handed to the workers once more (a
    worker put one back behind the matches waiting)."""
    store.sent_analysis(match_id, samples)


def lost_analyses(store: Store, now: datetime, stall_s: float = LOST_S) -> list[tuple[str, int]]:
    """The (match, budget) of the pending analyses that no worker was sent or began for
    ``stall_s`` before ``now`` (their task was lost: the broker restarted, the send
    failed, the worker gave up), marked sent: the caller sends them again."""
    lost = store.lost_analyses(now, stall_s, LOST_PER_SWEEP)
    if lost:
        log.warning("%d analyses were left behind; sending them again", len(lost))
    return lost

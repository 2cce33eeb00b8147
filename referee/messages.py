"""The Arena API's messages: from the read model and the store's rows, and the fields of
requests read once (times, pools, definitions; clocks by arena/wire_clock.py; page tokens
by arena/read/matches.py)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeVar

from google.protobuf.message import Message

from arena.domain.absence import DEFAULT_POLICY
from arena.domain.clock import TimeControl
from arena.domain.pools import DEFAULT_POOL, parse_pool
from arena.domain.times import parse_time
from arena.domain.tournament import Definition
from arena.errors import Invalid
from arena.proto.truco.v1 import arena_pb2 as api
from arena.read import ladders, tournaments
from arena.read.bots import BotLine
from arena.read.matches import MatchSummary
from arena.wire_clock import put_clock, request_clock

M = TypeVar("M", bound=Message)


def message(kind: type[M], values: Mapping[str, Any]) -> M:
    """A message of ``kind`` from a read-model value: its fields by name, None left unset
    (the one conversion from the read model to the Arena API's messages)."""
    known = kind.DESCRIPTOR.fields_by_name
    return kind(**{k: v for k, v in values.items() if k in known and v is not None})


def summary_message(summary: MatchSummary) -> api.MatchSummary:
    return message(api.MatchSummary, summary)


def time_field(name: str, text: str, now: datetime) -> datetime | None:
    """An optional time of a request (:func:`arena.domain.times.parse_time`, ages reckoned from
    ``now``); Invalid naming the field when it is not a time."""
    if not text:
        return None
    try:
        return parse_time(text, now)
    except Invalid as e:
        raise Invalid(f"{name}: {e}") from None


def pool_of_request(text: str) -> str:
    """The pool a request names, or the default; Invalid for one that cannot exist (an
    empty table would read as a pool where nobody has played yet)."""
    return parse_pool(text) if text else DEFAULT_POOL


def given(msg: Any, *names: str) -> dict[str, Any]:
    """The optional fields of ``msg`` among ``names`` that the caller set (0 included):
    the rest take their defaults where those are declared."""
    return {name: getattr(msg, name) for name in names if msg.HasField(name)}


def definition_of(msg: Any) -> Definition:
    """A definition from its message; Invalid names what is wrong."""
    return Definition(
        name=msg.name,
        rules=msg.rules or "paulista",
        bots=tuple(msg.bots),
        pool=msg.pool or None,
        format=msg.format or "round-robin",
        challenger=msg.challenger or None,
        schedule=msg.schedule or None,
        trusted=msg.trusted,
        absent=msg.absent or DEFAULT_POLICY,
        clock=request_clock(msg),
        tiebreaks=tuple(msg.tiebreaks),
        seed_from=msg.seed_from or None,
        **given(msg, "matches", "duplicate", "seed", "rated", "entries_close_s", "groups",
                "rounds", "top", "live_delay_s"),
    )  # fmt: skip


def definition_message(stored: dict[str, Any], organizer: bool) -> api.TournamentDefinition:
    return _definition(tournaments.definition(stored, organizer=organizer))


def _definition(shown: dict[str, Any]) -> api.TournamentDefinition:
    """A definition of the read model, which holds its clock's fields beside the others."""
    return put_clock(message(api.TournamentDefinition, shown), TimeControl.from_json(shown))


def ladder_message(ladder: ladders.Ladder) -> api.Ladder:
    return put_clock(message(api.Ladder, ladder), TimeControl.from_json(ladder))


def tournament_message(t: dict[str, Any]) -> api.Tournament:
    """A tournament of the read model (:func:`arena.read.tournaments`) as a message."""
    return api.Tournament(
        id=t["id"],
        definition=_definition(t["definition"]),
        created_at=t["created_at"],
        runs=t["run_count"],
        last_run=t["last_run"] or 0,
        last_status=t["last_status"] or "",
        next_firing=(t["schedule"] or {}).get("next"),  # None: unset
    )


def run_message(state: tournaments.RunState) -> api.Run:
    """A run of the read model (:func:`arena.read.tournaments.run_state`) as a message."""
    progress = state["progress"]
    run = message(api.Run, state["run"])
    run.definition.CopyFrom(_definition(state["definition"]))
    run.finished, run.failed = progress["finished"], progress["failed"]
    run.running = progress["running"]
    if progress["first_started"] is not None:
        run.first_started = progress["first_started"]
    run.cancelled, run.voided = progress["cancelled"], progress["voided"]
    run.replays, run.waiting = progress["replays"], state["waiting"] or ""
    for note in state["notes"]:
        run.notes.add(**{k: v for k, v in note.items() if v is not None})
    for line in state["standings"]:
        run.standings.add(**{k: v for k, v in line.items() if v is not None})
    for r in state["rounds"]:
        shown = run.rounds.add(number=r["number"], name=r["name"], byes=r.get("byes", []))
        for p in r["pairings"]:
            shown.pairings.add(
                **{k: v for k, v in p.items() if v is not None and k not in ("bots", "seeds")},
                bots=[b for b in p["bots"] if b is not None],
                seeds=[s for s in p.get("seeds", []) if s is not None],
            )
    for g in state["groups"]:
        run.groups.add(name=g["name"], bots=g["bots"])
    run.tiebreaks[:] = state["tiebreaks"]
    run.expected_total = progress["expected"]
    for bot, against in state["crosstable"].items():
        for opponent, (wins, losses) in sorted(against.items()):
            run.crosstable.add(bot=bot, opponent=opponent, wins=wins, losses=losses)
    return run


def bot_message(line: BotLine, presence: tuple[int, int] | None = None) -> api.Bot:
    """A bot; ``presence``, while it is connected: its concurrency and matches now."""
    concurrency, playing = presence or (0, 0)
    return message(
        api.Bot,
        {**line, "connected": presence is not None, "concurrency": concurrency, "playing": playing},
    )

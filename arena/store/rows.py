"""Rows of the store's tables as frozen dataclasses: the schema the code expects.

A test migrates an empty database and checks that every table has exactly these
columns, so code and migrations cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class BotRow:
    id: int
    name: str
    owner: str
    token_hash: bytes | None  # None: a hosted version's row, which never dials in
    created_at: datetime
    ladder: bool | None  # opted in to ladders; None: the default (hosted in, dial-in out)
    state: str  # active, withdrawn, disqualified or retired (migration 0016)
    state_reason: str
    active: bool  # its state is active: it connects, is scheduled, enters runs
    humans: bool  # its owner lets people challenge it from the web (migration 0021)


@dataclass(frozen=True, slots=True)
class MatchRow:
    id: str
    pool: str
    rules: str
    status: str
    rated: bool
    seed: int
    record: dict[str, Any] | None
    winner: int | None
    score: list[int] | None
    faults: dict[str, Any]
    run_id: int | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    points: list[int] | None  # hand points won by each team, once finished
    clock: dict[str, Any] | None  # its TimeControl as JSON (None: the defaults)
    ladder_id: int | None  # the ladder that started it, if one did
    sprt_id: int | None  # the sequential test it is a match of, if any
    twin: str | None  # its duplicate twin, dealt the same cards (migration 0014)
    absent: str  # what absence does to its result: forfeit or play-on (arena/domain/absence.py)
    forfeit: list[int] | None  # the teams that lost it by forfeit; None: none did
    fitted: bool  # a fit of its pool's ratings has counted it (migration 0015)
    voided: str | None  # why its result no longer counts (migration 0016); None: it counts
    replay_of: str | None  # the failed or voided match of its run it plays again
    sent_at: datetime | None  # when its task was last handed to the broker
    round: int | None  # its round in a run played in rounds (migration 0017)
    listed_at: datetime  # the time lists show and go by: finished, else started, else made
    human: str | None  # who holds its human seat (migration 0021); None: bots alone


@dataclass(frozen=True, slots=True)
class MatchSeatRow:
    match_id: str
    seat: int
    bot_id: int
    pool: str  # its match's, for a bot's matches by pool and time
    created_at: datetime  # its match's
    ladder: bool  # its match is a ladder's (migration 0011)
    listed_at: datetime  # its match's, kept as the match starts and finishes (migration 0018)


@dataclass(frozen=True, slots=True)
class RatingRow:
    bot_id: int
    pool: str
    elo: float
    games: int
    wins: int
    losses: int
    updated_at: datetime
    deviation: float | None  # the fit's standard deviation of elo; None until fitted


@dataclass(frozen=True, slots=True)
class RatingEventRow:
    id: int
    bot_id: int
    match_id: str
    pool: str
    before: float
    after: float
    created_at: datetime


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: int
    name: str
    definition: dict[str, Any]
    schedule: str | None
    fired_at: datetime
    created_at: datetime
    deleted_at: datetime | None


@dataclass(frozen=True, slots=True)
class RunRow:
    id: int
    tournament_id: int
    definition: dict[str, Any]
    seed: int
    status: str
    error: str | None
    participants: list[str]
    total: int
    fired_for: datetime | None
    standings: dict[str, Any] | None
    created_at: datetime
    finished_at: datetime | None
    deals: (
        str | None
    )  # the deals its matches got (arena.domain.tournament.DEALS); None: not planned
    entries: dict[str, list[Any]] | None  # frozen as it was made: {name: [bot id, seat]}
    seeds: list[str] | None  # its field in seed order, bot names, frozen with its entries
    rounds: list[Any] | None  # a knockout's or a Swiss's rounds paired so far (migration 0017)


@dataclass(frozen=True, slots=True)
class ArenaSecretRow:
    only_row: bool
    deal_key: bytes


@dataclass(frozen=True, slots=True)
class PairStatsRow:
    """Two bots on opposite teams in a pool's finished matches (migration 0008)."""

    pool: str
    bot_id: int
    opponent_id: int
    games: int
    wins: int
    rated_wins: int


@dataclass(frozen=True, slots=True)
class BotPoolStatsRow:
    """A bot's finished matches in a pool and its faults in them (migration 0008)."""

    bot_id: int
    pool: str
    matches: int
    timeouts: int
    rejected: int
    disconnects: int
    substituted: int
    errors: int
    forfeits: int


@dataclass(frozen=True, slots=True)
class PoolFitRow:
    pool: str
    version: int
    halves: dict[str, float]
    dispersion: float
    fitted_at: datetime
    anchors: list[str] | None  # the bots its mean is of (migration 0020); None: all


@dataclass(frozen=True, slots=True)
class LineupStatsRow:
    """The rated results of one pairing of teams in a pool (migration 0015)."""

    pool: str
    team_a: list[int]
    team_b: list[int]
    games: int
    wins: int
    lost_both: int
    split: int
    won_both: int


@dataclass(frozen=True, slots=True)
class BotArchiveRow:
    hash: str
    data: bytes
    created_at: datetime


@dataclass(frozen=True, slots=True)
class BotVersionRow:
    id: int  # the version's own bot row (NAME@N)
    bot_id: int
    number: int
    hash: str
    archive: str
    runtime: str
    entry: str
    size: int
    unpacked: int
    files: int
    status: str  # checking, candidate, active, retired or rejected
    reason: str
    created_at: datetime
    checked_at: datetime | None
    candidate: bool  # submitted as a candidate: a clean check does not make it active


@dataclass(frozen=True, slots=True)
class VersionActivationRow:
    """A version made its bot's active one, when (migration 0019)."""

    id: int
    bot_id: int
    version_id: int
    at: datetime


@dataclass(frozen=True, slots=True)
class BotLogRow:
    match_id: str
    bot_id: int
    log: str
    status: int | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class LadderRow:
    id: int
    pool: str
    running: bool
    concurrency: int
    clock: dict[str, int]
    scheduled: int
    available: list[str]
    looked_at: datetime | None
    created_at: datetime
    updated_at: datetime
    on_since: datetime | None  # switched on then; None while off (migration 0020)


@dataclass(frozen=True, slots=True)
class BotLadderRow:
    """A bot's choice for one pool's ladder (migration 0020)."""

    bot_id: int
    pool: str
    ladder: bool


@dataclass(frozen=True, slots=True)
class LadderPaceRow:
    """The matches a ladder finished while on in one minute (migration 0020)."""

    ladder_id: int
    minute: datetime
    finished: int


@dataclass(frozen=True, slots=True)
class SprtRow:
    id: int
    new_id: int
    base_id: int
    rules: str
    clock: dict[str, int]
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    at_once: int
    rated: bool
    duplicate: bool
    status: str
    scheduled: int
    lost_both: int
    split: int
    won_both: int
    llr: float
    asked_by: str
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class SprtPairRow:
    test_id: int
    pair: int
    score: int
    number: int
    llr: float


@dataclass(frozen=True, slots=True)
class NodeRow:
    name: str
    address: str
    started_at: datetime
    renewed_at: datetime
    expires_at: datetime
    bots: int
    matches: int
    relayed: int


@dataclass(frozen=True, slots=True)
class PresenceRow:
    bot: str
    node: str
    concurrency: int
    playing: int
    since: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class ActionRow:
    id: int
    at: datetime
    actor: str  # an organizer's name, or "bot NAME"
    action: str
    subject: str
    detail: dict[str, Any]


@dataclass(frozen=True, slots=True)
class OrganizerRow:
    id: int
    name: str
    token_hash: bytes
    created_at: datetime
    removed_at: datetime | None


@dataclass(frozen=True, slots=True)
class AnalysisRow:
    match_id: str
    seat: int
    samples: int  # the budget: drawn states per decision
    status: str  # pending, done or failed
    decisions: list[dict[str, Any]] | None  # once done (arena/bots/analysis.py's to_json)
    error: str
    asked_by: str
    owner: str  # whose cap it counts in; empty for an organizer
    created_at: datetime
    finished_at: datetime | None
    sent_at: datetime  # last handed to the workers (asked, swept, put back behind play)
    started_at: datetime | None  # when a worker last began one of its seats


TABLES: dict[str, type] = {
    "arena_secret": ArenaSecretRow,
    "bots": BotRow,
    "matches": MatchRow,
    "match_seats": MatchSeatRow,
    "ratings": RatingRow,
    "rating_events": RatingEventRow,
    "tournaments": TournamentRow,
    "runs": RunRow,
    "pair_stats": PairStatsRow,
    "bot_pool_stats": BotPoolStatsRow,
    "pool_fits": PoolFitRow,
    "lineup_stats": LineupStatsRow,
    "bot_archives": BotArchiveRow,
    "bot_versions": BotVersionRow,
    "version_activations": VersionActivationRow,
    "bot_logs": BotLogRow,
    "ladders": LadderRow,
    "bot_ladders": BotLadderRow,
    "ladder_pace": LadderPaceRow,
    "sprt_tests": SprtRow,
    "sprt_pairs": SprtPairRow,
    "nodes": NodeRow,
    "presence": PresenceRow,
    "action_log": ActionRow,
    "organizers": OrganizerRow,
    "analyses": AnalysisRow,
}
"""Every table and the dataclass of its rows."""

from arena.proto.truco.v1 import bot_pb2 as _bot_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListNodesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListNodesResponse(_message.Message):
    __slots__ = ("nodes", "answered_by")
    NODES_FIELD_NUMBER: _ClassVar[int]
    ANSWERED_BY_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[Node]
    answered_by: str
    def __init__(self, nodes: _Optional[_Iterable[_Union[Node, _Mapping]]] = ..., answered_by: _Optional[str] = ...) -> None: ...

class Node(_message.Message):
    __slots__ = ("name", "address", "bots", "matches", "started_at", "renewed_at", "relayed")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    RENEWED_AT_FIELD_NUMBER: _ClassVar[int]
    RELAYED_FIELD_NUMBER: _ClassVar[int]
    name: str
    address: str
    bots: int
    matches: int
    started_at: str
    renewed_at: str
    relayed: int
    def __init__(self, name: _Optional[str] = ..., address: _Optional[str] = ..., bots: _Optional[int] = ..., matches: _Optional[int] = ..., started_at: _Optional[str] = ..., renewed_at: _Optional[str] = ..., relayed: _Optional[int] = ...) -> None: ...

class OpenRelayRequest(_message.Message):
    __slots__ = ("match_id", "bot", "referee", "token", "resume")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    REFEREE_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    RESUME_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    bot: str
    referee: str
    token: str
    resume: bool
    def __init__(self, match_id: _Optional[str] = ..., bot: _Optional[str] = ..., referee: _Optional[str] = ..., token: _Optional[str] = ..., resume: _Optional[bool] = ...) -> None: ...

class OpenRelayResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StartTestRequest(_message.Message):
    __slots__ = ("new_bot", "base_bot", "elo0", "elo1", "alpha", "beta", "max_games", "rules", "rated", "clock", "decision_ms", "time_bank_ms", "reconnect_grace_ms")
    NEW_BOT_FIELD_NUMBER: _ClassVar[int]
    BASE_BOT_FIELD_NUMBER: _ClassVar[int]
    ELO0_FIELD_NUMBER: _ClassVar[int]
    ELO1_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    MAX_GAMES_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    new_bot: str
    base_bot: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    rules: str
    rated: bool
    clock: _bot_pb2.Clock
    decision_ms: int
    time_bank_ms: int
    reconnect_grace_ms: int
    def __init__(self, new_bot: _Optional[str] = ..., base_bot: _Optional[str] = ..., elo0: _Optional[float] = ..., elo1: _Optional[float] = ..., alpha: _Optional[float] = ..., beta: _Optional[float] = ..., max_games: _Optional[int] = ..., rules: _Optional[str] = ..., rated: _Optional[bool] = ..., clock: _Optional[_Union[_bot_pb2.Clock, _Mapping]] = ..., decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., reconnect_grace_ms: _Optional[int] = ...) -> None: ...

class AnalyseMatchRequest(_message.Message):
    __slots__ = ("match_id", "samples")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    samples: int
    def __init__(self, match_id: _Optional[str] = ..., samples: _Optional[int] = ...) -> None: ...

class GetAnalysisRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class Analysis(_message.Message):
    __slots__ = ("match_id", "asked", "analyses_json", "pending")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ASKED_FIELD_NUMBER: _ClassVar[int]
    ANALYSES_JSON_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    asked: _containers.RepeatedScalarFieldContainer[int]
    analyses_json: str
    pending: bool
    def __init__(self, match_id: _Optional[str] = ..., asked: _Optional[_Iterable[int]] = ..., analyses_json: _Optional[str] = ..., pending: _Optional[bool] = ...) -> None: ...

class GetLossesRequest(_message.Message):
    __slots__ = ("names",)
    NAMES_FIELD_NUMBER: _ClassVar[int]
    names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, names: _Optional[_Iterable[str]] = ...) -> None: ...

class GetLossesResponse(_message.Message):
    __slots__ = ("losses_json",)
    LOSSES_JSON_FIELD_NUMBER: _ClassVar[int]
    losses_json: str
    def __init__(self, losses_json: _Optional[str] = ...) -> None: ...

class GetTestRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class SprtTest(_message.Message):
    __slots__ = ("id", "new_bot", "base_bot", "rules", "elo0", "elo1", "alpha", "beta", "max_games", "rated", "duplicate", "status", "pairs", "lost_both", "split", "won_both", "llr", "lower", "upper", "elo", "elo_low", "elo_high", "games", "created_at", "finished_at", "history")
    ID_FIELD_NUMBER: _ClassVar[int]
    NEW_BOT_FIELD_NUMBER: _ClassVar[int]
    BASE_BOT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    ELO0_FIELD_NUMBER: _ClassVar[int]
    ELO1_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    MAX_GAMES_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    LOST_BOTH_FIELD_NUMBER: _ClassVar[int]
    SPLIT_FIELD_NUMBER: _ClassVar[int]
    WON_BOTH_FIELD_NUMBER: _ClassVar[int]
    LLR_FIELD_NUMBER: _ClassVar[int]
    LOWER_FIELD_NUMBER: _ClassVar[int]
    UPPER_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    ELO_LOW_FIELD_NUMBER: _ClassVar[int]
    ELO_HIGH_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    id: int
    new_bot: str
    base_bot: str
    rules: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    rated: bool
    duplicate: bool
    status: str
    pairs: int
    lost_both: int
    split: int
    won_both: int
    llr: float
    lower: float
    upper: float
    elo: float
    elo_low: float
    elo_high: float
    games: int
    created_at: str
    finished_at: str
    history: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, id: _Optional[int] = ..., new_bot: _Optional[str] = ..., base_bot: _Optional[str] = ..., rules: _Optional[str] = ..., elo0: _Optional[float] = ..., elo1: _Optional[float] = ..., alpha: _Optional[float] = ..., beta: _Optional[float] = ..., max_games: _Optional[int] = ..., rated: _Optional[bool] = ..., duplicate: _Optional[bool] = ..., status: _Optional[str] = ..., pairs: _Optional[int] = ..., lost_both: _Optional[int] = ..., split: _Optional[int] = ..., won_both: _Optional[int] = ..., llr: _Optional[float] = ..., lower: _Optional[float] = ..., upper: _Optional[float] = ..., elo: _Optional[float] = ..., elo_low: _Optional[float] = ..., elo_high: _Optional[float] = ..., games: _Optional[int] = ..., created_at: _Optional[str] = ..., finished_at: _Optional[str] = ..., history: _Optional[_Iterable[float]] = ...) -> None: ...

class SetLadderRequest(_message.Message):
    __slots__ = ("pool", "on", "concurrency", "clock", "decision_ms", "time_bank_ms", "reconnect_grace_ms")
    POOL_FIELD_NUMBER: _ClassVar[int]
    ON_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    pool: str
    on: bool
    concurrency: int
    clock: _bot_pb2.Clock
    decision_ms: int
    time_bank_ms: int
    reconnect_grace_ms: int
    def __init__(self, pool: _Optional[str] = ..., on: _Optional[bool] = ..., concurrency: _Optional[int] = ..., clock: _Optional[_Union[_bot_pb2.Clock, _Mapping]] = ..., decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., reconnect_grace_ms: _Optional[int] = ...) -> None: ...

class GetLadderRequest(_message.Message):
    __slots__ = ("pool",)
    POOL_FIELD_NUMBER: _ClassVar[int]
    pool: str
    def __init__(self, pool: _Optional[str] = ...) -> None: ...

class Ladder(_message.Message):
    __slots__ = ("pool", "on", "concurrency", "clock", "decision_ms", "time_bank_ms", "reconnect_grace_ms", "scheduled", "playing", "per_hour", "last_match", "available", "looked_at", "on_since", "look", "quiet_s", "tick_s", "opted_in")
    POOL_FIELD_NUMBER: _ClassVar[int]
    ON_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_FIELD_NUMBER: _ClassVar[int]
    PLAYING_FIELD_NUMBER: _ClassVar[int]
    PER_HOUR_FIELD_NUMBER: _ClassVar[int]
    LAST_MATCH_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    LOOKED_AT_FIELD_NUMBER: _ClassVar[int]
    ON_SINCE_FIELD_NUMBER: _ClassVar[int]
    LOOK_FIELD_NUMBER: _ClassVar[int]
    QUIET_S_FIELD_NUMBER: _ClassVar[int]
    TICK_S_FIELD_NUMBER: _ClassVar[int]
    OPTED_IN_FIELD_NUMBER: _ClassVar[int]
    pool: str
    on: bool
    concurrency: int
    clock: _bot_pb2.Clock
    decision_ms: int
    time_bank_ms: int
    reconnect_grace_ms: int
    scheduled: int
    playing: int
    per_hour: int
    last_match: str
    available: _containers.RepeatedScalarFieldContainer[str]
    looked_at: str
    on_since: str
    look: str
    quiet_s: int
    tick_s: int
    opted_in: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, pool: _Optional[str] = ..., on: _Optional[bool] = ..., concurrency: _Optional[int] = ..., clock: _Optional[_Union[_bot_pb2.Clock, _Mapping]] = ..., decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., reconnect_grace_ms: _Optional[int] = ..., scheduled: _Optional[int] = ..., playing: _Optional[int] = ..., per_hour: _Optional[int] = ..., last_match: _Optional[str] = ..., available: _Optional[_Iterable[str]] = ..., looked_at: _Optional[str] = ..., on_since: _Optional[str] = ..., look: _Optional[str] = ..., quiet_s: _Optional[int] = ..., tick_s: _Optional[int] = ..., opted_in: _Optional[_Iterable[str]] = ...) -> None: ...

class SetBotLadderRequest(_message.Message):
    __slots__ = ("bot", "on", "pool")
    BOT_FIELD_NUMBER: _ClassVar[int]
    ON_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    bot: str
    on: bool
    pool: str
    def __init__(self, bot: _Optional[str] = ..., on: _Optional[bool] = ..., pool: _Optional[str] = ...) -> None: ...

class SetBotHumansRequest(_message.Message):
    __slots__ = ("bot", "on")
    BOT_FIELD_NUMBER: _ClassVar[int]
    ON_FIELD_NUMBER: _ClassVar[int]
    bot: str
    on: bool
    def __init__(self, bot: _Optional[str] = ..., on: _Optional[bool] = ...) -> None: ...

class GetBotLogsRequest(_message.Message):
    __slots__ = ("bot", "match_id")
    BOT_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    bot: str
    match_id: str
    def __init__(self, bot: _Optional[str] = ..., match_id: _Optional[str] = ...) -> None: ...

class BotLog(_message.Message):
    __slots__ = ("version", "status", "log")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LOG_FIELD_NUMBER: _ClassVar[int]
    version: str
    status: int
    log: str
    def __init__(self, version: _Optional[str] = ..., status: _Optional[int] = ..., log: _Optional[str] = ...) -> None: ...

class GetBotLogsResponse(_message.Message):
    __slots__ = ("logs",)
    LOGS_FIELD_NUMBER: _ClassVar[int]
    logs: _containers.RepeatedCompositeFieldContainer[BotLog]
    def __init__(self, logs: _Optional[_Iterable[_Union[BotLog, _Mapping]]] = ...) -> None: ...

class SubmitBotRequest(_message.Message):
    __slots__ = ("manifest", "chunk")
    MANIFEST_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    manifest: BotManifest
    chunk: bytes
    def __init__(self, manifest: _Optional[_Union[BotManifest, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class BotManifest(_message.Message):
    __slots__ = ("bot", "runtime", "entry", "size", "candidate")
    BOT_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_FIELD_NUMBER: _ClassVar[int]
    bot: str
    runtime: str
    entry: str
    size: int
    candidate: bool
    def __init__(self, bot: _Optional[str] = ..., runtime: _Optional[str] = ..., entry: _Optional[str] = ..., size: _Optional[int] = ..., candidate: _Optional[bool] = ...) -> None: ...

class BotVersion(_message.Message):
    __slots__ = ("bot", "number", "name", "hash", "runtime", "entry", "size", "unpacked", "files", "status", "reason", "created_at", "checked_at", "ratings", "candidate")
    BOT_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    HASH_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    UNPACKED_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CHECKED_AT_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_FIELD_NUMBER: _ClassVar[int]
    bot: str
    number: int
    name: str
    hash: str
    runtime: str
    entry: str
    size: int
    unpacked: int
    files: int
    status: str
    reason: str
    created_at: str
    checked_at: str
    ratings: _containers.RepeatedCompositeFieldContainer[VersionRating]
    candidate: bool
    def __init__(self, bot: _Optional[str] = ..., number: _Optional[int] = ..., name: _Optional[str] = ..., hash: _Optional[str] = ..., runtime: _Optional[str] = ..., entry: _Optional[str] = ..., size: _Optional[int] = ..., unpacked: _Optional[int] = ..., files: _Optional[int] = ..., status: _Optional[str] = ..., reason: _Optional[str] = ..., created_at: _Optional[str] = ..., checked_at: _Optional[str] = ..., ratings: _Optional[_Iterable[_Union[VersionRating, _Mapping]]] = ..., candidate: _Optional[bool] = ...) -> None: ...

class VersionRating(_message.Message):
    __slots__ = ("pool", "elo", "games", "half", "wide")
    POOL_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    HALF_FIELD_NUMBER: _ClassVar[int]
    WIDE_FIELD_NUMBER: _ClassVar[int]
    pool: str
    elo: float
    games: int
    half: float
    wide: bool
    def __init__(self, pool: _Optional[str] = ..., elo: _Optional[float] = ..., games: _Optional[int] = ..., half: _Optional[float] = ..., wide: _Optional[bool] = ...) -> None: ...

class SubmitBotResponse(_message.Message):
    __slots__ = ("version", "new", "found")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    NEW_FIELD_NUMBER: _ClassVar[int]
    FOUND_FIELD_NUMBER: _ClassVar[int]
    version: BotVersion
    new: bool
    found: str
    def __init__(self, version: _Optional[_Union[BotVersion, _Mapping]] = ..., new: _Optional[bool] = ..., found: _Optional[str] = ...) -> None: ...

class ActivateVersionRequest(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: str
    def __init__(self, version: _Optional[str] = ...) -> None: ...

class ActivateVersionResponse(_message.Message):
    __slots__ = ("version", "retired")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    version: BotVersion
    retired: str
    def __init__(self, version: _Optional[_Union[BotVersion, _Mapping]] = ..., retired: _Optional[str] = ...) -> None: ...

class ListVersionsRequest(_message.Message):
    __slots__ = ("bot",)
    BOT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    def __init__(self, bot: _Optional[str] = ...) -> None: ...

class ListVersionsResponse(_message.Message):
    __slots__ = ("versions",)
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    versions: _containers.RepeatedCompositeFieldContainer[BotVersion]
    def __init__(self, versions: _Optional[_Iterable[_Union[BotVersion, _Mapping]]] = ...) -> None: ...

class Bot(_message.Message):
    __slots__ = ("name", "owner", "active", "created_at", "connected", "ladder", "concurrency", "playing", "state", "state_reason", "hosted", "ladder_pools", "humans")
    class LadderPoolsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bool
        def __init__(self, key: _Optional[str] = ..., value: _Optional[bool] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    LADDER_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    PLAYING_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STATE_REASON_FIELD_NUMBER: _ClassVar[int]
    HOSTED_FIELD_NUMBER: _ClassVar[int]
    LADDER_POOLS_FIELD_NUMBER: _ClassVar[int]
    HUMANS_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    active: bool
    created_at: str
    connected: bool
    ladder: bool
    concurrency: int
    playing: int
    state: str
    state_reason: str
    hosted: bool
    ladder_pools: _containers.ScalarMap[str, bool]
    humans: bool
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ..., active: _Optional[bool] = ..., created_at: _Optional[str] = ..., connected: _Optional[bool] = ..., ladder: _Optional[bool] = ..., concurrency: _Optional[int] = ..., playing: _Optional[int] = ..., state: _Optional[str] = ..., state_reason: _Optional[str] = ..., hosted: _Optional[bool] = ..., ladder_pools: _Optional[_Mapping[str, bool]] = ..., humans: _Optional[bool] = ...) -> None: ...

class SetBotStateRequest(_message.Message):
    __slots__ = ("bot", "state", "reason", "run")
    BOT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    bot: str
    state: str
    reason: str
    run: int
    def __init__(self, bot: _Optional[str] = ..., state: _Optional[str] = ..., reason: _Optional[str] = ..., run: _Optional[int] = ...) -> None: ...

class RegisterBotRequest(_message.Message):
    __slots__ = ("name", "owner")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ...) -> None: ...

class RegisterBotResponse(_message.Message):
    __slots__ = ("bot", "token")
    BOT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    bot: Bot
    token: str
    def __init__(self, bot: _Optional[_Union[Bot, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[Bot]
    def __init__(self, bots: _Optional[_Iterable[_Union[Bot, _Mapping]]] = ...) -> None: ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ("pool", "retired")
    POOL_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    pool: str
    retired: bool
    def __init__(self, pool: _Optional[str] = ..., retired: _Optional[bool] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("rank", "bot", "elo", "games", "wins", "losses", "provisional", "low", "high", "sd", "state", "played_as")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    SD_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PLAYED_AS_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    elo: float
    games: int
    wins: int
    losses: int
    provisional: bool
    low: float
    high: float
    sd: float
    state: str
    played_as: str
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., elo: _Optional[float] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ..., losses: _Optional[int] = ..., provisional: _Optional[bool] = ..., low: _Optional[float] = ..., high: _Optional[float] = ..., sd: _Optional[float] = ..., state: _Optional[str] = ..., played_as: _Optional[str] = ...) -> None: ...

class GetLeaderboardResponse(_message.Message):
    __slots__ = ("pool", "standings")
    POOL_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    pool: str
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    def __init__(self, pool: _Optional[str] = ..., standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ...) -> None: ...

class RequestMatchRequest(_message.Message):
    __slots__ = ("bots", "rules", "matches", "clock", "decision_ms", "time_bank_ms", "reconnect_grace_ms")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedScalarFieldContainer[str]
    rules: str
    matches: int
    clock: _bot_pb2.Clock
    decision_ms: int
    time_bank_ms: int
    reconnect_grace_ms: int
    def __init__(self, bots: _Optional[_Iterable[str]] = ..., rules: _Optional[str] = ..., matches: _Optional[int] = ..., clock: _Optional[_Union[_bot_pb2.Clock, _Mapping]] = ..., decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., reconnect_grace_ms: _Optional[int] = ...) -> None: ...

class RequestMatchResponse(_message.Message):
    __slots__ = ("match_ids",)
    MATCH_IDS_FIELD_NUMBER: _ClassVar[int]
    match_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("id", "pool", "rules", "status", "seats", "winner", "score", "finished_at", "forfeit", "twin", "sealed", "rated", "voided", "replay_of", "run_id", "teams", "created_at", "listed_at", "test_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_FIELD_NUMBER: _ClassVar[int]
    TWIN_FIELD_NUMBER: _ClassVar[int]
    SEALED_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    VOIDED_FIELD_NUMBER: _ClassVar[int]
    REPLAY_OF_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LISTED_AT_FIELD_NUMBER: _ClassVar[int]
    TEST_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    pool: str
    rules: str
    status: str
    seats: _containers.RepeatedScalarFieldContainer[str]
    winner: int
    score: _containers.RepeatedScalarFieldContainer[int]
    finished_at: str
    forfeit: _containers.RepeatedScalarFieldContainer[int]
    twin: str
    sealed: bool
    rated: bool
    voided: str
    replay_of: str
    run_id: int
    teams: _containers.RepeatedScalarFieldContainer[str]
    created_at: str
    listed_at: str
    test_id: int
    def __init__(self, id: _Optional[str] = ..., pool: _Optional[str] = ..., rules: _Optional[str] = ..., status: _Optional[str] = ..., seats: _Optional[_Iterable[str]] = ..., winner: _Optional[int] = ..., score: _Optional[_Iterable[int]] = ..., finished_at: _Optional[str] = ..., forfeit: _Optional[_Iterable[int]] = ..., twin: _Optional[str] = ..., sealed: _Optional[bool] = ..., rated: _Optional[bool] = ..., voided: _Optional[str] = ..., replay_of: _Optional[str] = ..., run_id: _Optional[int] = ..., teams: _Optional[_Iterable[str]] = ..., created_at: _Optional[str] = ..., listed_at: _Optional[str] = ..., test_id: _Optional[int] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetMatchResponse(_message.Message):
    __slots__ = ("match", "record_json")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    match: MatchSummary
    record_json: str
    def __init__(self, match: _Optional[_Union[MatchSummary, _Mapping]] = ..., record_json: _Optional[str] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("bot", "pool", "page_size", "page_token", "since", "until", "run_id")
    BOT_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    bot: str
    pool: str
    page_size: int
    page_token: str
    since: str
    until: str
    run_id: int
    def __init__(self, bot: _Optional[str] = ..., pool: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., since: _Optional[str] = ..., until: _Optional[str] = ..., run_id: _Optional[int] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class RotateTokenRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetRatingHistoryRequest(_message.Message):
    __slots__ = ("bot", "pool")
    BOT_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    bot: str
    pool: str
    def __init__(self, bot: _Optional[str] = ..., pool: _Optional[str] = ...) -> None: ...

class RatingChange(_message.Message):
    __slots__ = ("match_id", "before", "after", "at", "played_as")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    PLAYED_AS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    before: float
    after: float
    at: str
    played_as: str
    def __init__(self, match_id: _Optional[str] = ..., before: _Optional[float] = ..., after: _Optional[float] = ..., at: _Optional[str] = ..., played_as: _Optional[str] = ...) -> None: ...

class GetRatingHistoryResponse(_message.Message):
    __slots__ = ("changes",)
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    changes: _containers.RepeatedCompositeFieldContainer[RatingChange]
    def __init__(self, changes: _Optional[_Iterable[_Union[RatingChange, _Mapping]]] = ...) -> None: ...

class RunMatchRequest(_message.Message):
    __slots__ = ("match_id", "rules", "seats", "seed", "clock", "decision_ms", "time_bank_ms", "reconnect_grace_ms", "hosted_keys")
    class HostedKeysEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    HOSTED_KEYS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    rules: str
    seats: _containers.RepeatedScalarFieldContainer[str]
    seed: int
    clock: _bot_pb2.Clock
    decision_ms: int
    time_bank_ms: int
    reconnect_grace_ms: int
    hosted_keys: _containers.ScalarMap[str, str]
    def __init__(self, match_id: _Optional[str] = ..., rules: _Optional[str] = ..., seats: _Optional[_Iterable[str]] = ..., seed: _Optional[int] = ..., clock: _Optional[_Union[_bot_pb2.Clock, _Mapping]] = ..., decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., reconnect_grace_ms: _Optional[int] = ..., hosted_keys: _Optional[_Mapping[str, str]] = ...) -> None: ...

class RunMatchResponse(_message.Message):
    __slots__ = ("record_json",)
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    def __init__(self, record_json: _Optional[str] = ...) -> None: ...

class TournamentDefinition(_message.Message):
    __slots__ = ("name", "rules", "bots", "pool", "format", "challenger", "matches", "duplicate", "clock", "decision_ms", "time_bank_ms", "seed", "schedule", "reconnect_grace_ms", "trusted", "absent", "rated", "entries_close_s", "groups", "rounds", "tiebreaks", "seed_from", "top", "live_delay_s")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    CHALLENGER_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    TRUSTED_FIELD_NUMBER: _ClassVar[int]
    ABSENT_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_CLOSE_S_FIELD_NUMBER: _ClassVar[int]
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    TIEBREAKS_FIELD_NUMBER: _ClassVar[int]
    SEED_FROM_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    LIVE_DELAY_S_FIELD_NUMBER: _ClassVar[int]
    name: str
    rules: str
    bots: _containers.RepeatedScalarFieldContainer[str]
    pool: str
    format: str
    challenger: str
    matches: int
    duplicate: bool
    clock: _bot_pb2.Clock
    decision_ms: int
    time_bank_ms: int
    seed: int
    schedule: str
    reconnect_grace_ms: int
    trusted: bool
    absent: str
    rated: bool
    entries_close_s: int
    groups: int
    rounds: int
    tiebreaks: _containers.RepeatedScalarFieldContainer[str]
    seed_from: str
    top: int
    live_delay_s: int
    def __init__(self, name: _Optional[str] = ..., rules: _Optional[str] = ..., bots: _Optional[_Iterable[str]] = ..., pool: _Optional[str] = ..., format: _Optional[str] = ..., challenger: _Optional[str] = ..., matches: _Optional[int] = ..., duplicate: _Optional[bool] = ..., clock: _Optional[_Union[_bot_pb2.Clock, _Mapping]] = ..., decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., seed: _Optional[int] = ..., schedule: _Optional[str] = ..., reconnect_grace_ms: _Optional[int] = ..., trusted: _Optional[bool] = ..., absent: _Optional[str] = ..., rated: _Optional[bool] = ..., entries_close_s: _Optional[int] = ..., groups: _Optional[int] = ..., rounds: _Optional[int] = ..., tiebreaks: _Optional[_Iterable[str]] = ..., seed_from: _Optional[str] = ..., top: _Optional[int] = ..., live_delay_s: _Optional[int] = ...) -> None: ...

class Tournament(_message.Message):
    __slots__ = ("id", "definition", "created_at", "runs", "last_run", "last_status", "next_firing")
    ID_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    LAST_RUN_FIELD_NUMBER: _ClassVar[int]
    LAST_STATUS_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIRING_FIELD_NUMBER: _ClassVar[int]
    id: int
    definition: TournamentDefinition
    created_at: str
    runs: int
    last_run: int
    last_status: str
    next_firing: str
    def __init__(self, id: _Optional[int] = ..., definition: _Optional[_Union[TournamentDefinition, _Mapping]] = ..., created_at: _Optional[str] = ..., runs: _Optional[int] = ..., last_run: _Optional[int] = ..., last_status: _Optional[str] = ..., next_firing: _Optional[str] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("definition",)
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    definition: TournamentDefinition
    def __init__(self, definition: _Optional[_Union[TournamentDefinition, _Mapping]] = ...) -> None: ...

class StartTournamentRequest(_message.Message):
    __slots__ = ("tournament", "seed_from", "top")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FROM_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    seed_from: str
    top: int
    def __init__(self, tournament: _Optional[str] = ..., seed_from: _Optional[str] = ..., top: _Optional[int] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments",)
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[Tournament]
    def __init__(self, tournaments: _Optional[_Iterable[_Union[Tournament, _Mapping]]] = ...) -> None: ...

class GetRunRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class RunStanding(_message.Message):
    __slots__ = ("rank", "bot", "points", "played", "wins", "losses", "hand_points", "hand_points_against", "performance", "performance_low", "performance_high", "los_next", "faults", "forfeits", "byes", "buchholz", "sonneborn_berger", "group", "group_rank", "reached", "stage")
    class FaultsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    HAND_POINTS_FIELD_NUMBER: _ClassVar[int]
    HAND_POINTS_AGAINST_FIELD_NUMBER: _ClassVar[int]
    PERFORMANCE_FIELD_NUMBER: _ClassVar[int]
    PERFORMANCE_LOW_FIELD_NUMBER: _ClassVar[int]
    PERFORMANCE_HIGH_FIELD_NUMBER: _ClassVar[int]
    LOS_NEXT_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    FORFEITS_FIELD_NUMBER: _ClassVar[int]
    BYES_FIELD_NUMBER: _ClassVar[int]
    BUCHHOLZ_FIELD_NUMBER: _ClassVar[int]
    SONNEBORN_BERGER_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    GROUP_RANK_FIELD_NUMBER: _ClassVar[int]
    REACHED_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    points: int
    played: int
    wins: int
    losses: int
    hand_points: int
    hand_points_against: int
    performance: float
    performance_low: float
    performance_high: float
    los_next: float
    faults: _containers.ScalarMap[str, int]
    forfeits: int
    byes: int
    buchholz: float
    sonneborn_berger: float
    group: str
    group_rank: int
    reached: int
    stage: str
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., points: _Optional[int] = ..., played: _Optional[int] = ..., wins: _Optional[int] = ..., losses: _Optional[int] = ..., hand_points: _Optional[int] = ..., hand_points_against: _Optional[int] = ..., performance: _Optional[float] = ..., performance_low: _Optional[float] = ..., performance_high: _Optional[float] = ..., los_next: _Optional[float] = ..., faults: _Optional[_Mapping[str, int]] = ..., forfeits: _Optional[int] = ..., byes: _Optional[int] = ..., buchholz: _Optional[float] = ..., sonneborn_berger: _Optional[float] = ..., group: _Optional[str] = ..., group_rank: _Optional[int] = ..., reached: _Optional[int] = ..., stage: _Optional[str] = ...) -> None: ...

class RunRound(_message.Message):
    __slots__ = ("number", "name", "pairings", "byes")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PAIRINGS_FIELD_NUMBER: _ClassVar[int]
    BYES_FIELD_NUMBER: _ClassVar[int]
    number: int
    name: str
    pairings: _containers.RepeatedCompositeFieldContainer[RunPairing]
    byes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, number: _Optional[int] = ..., name: _Optional[str] = ..., pairings: _Optional[_Iterable[_Union[RunPairing, _Mapping]]] = ..., byes: _Optional[_Iterable[str]] = ...) -> None: ...

class RunPairing(_message.Message):
    __slots__ = ("bots", "wins", "matches", "playing", "seeds", "winner", "how", "tiebreak_matches")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    PLAYING_FIELD_NUMBER: _ClassVar[int]
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    HOW_FIELD_NUMBER: _ClassVar[int]
    TIEBREAK_MATCHES_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedScalarFieldContainer[str]
    wins: _containers.RepeatedScalarFieldContainer[int]
    matches: int
    playing: int
    seeds: _containers.RepeatedScalarFieldContainer[int]
    winner: str
    how: str
    tiebreak_matches: int
    def __init__(self, bots: _Optional[_Iterable[str]] = ..., wins: _Optional[_Iterable[int]] = ..., matches: _Optional[int] = ..., playing: _Optional[int] = ..., seeds: _Optional[_Iterable[int]] = ..., winner: _Optional[str] = ..., how: _Optional[str] = ..., tiebreak_matches: _Optional[int] = ...) -> None: ...

class RunGroup(_message.Message):
    __slots__ = ("name", "bots")
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    bots: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., bots: _Optional[_Iterable[str]] = ...) -> None: ...

class CrossCell(_message.Message):
    __slots__ = ("bot", "opponent", "wins", "losses")
    BOT_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    bot: str
    opponent: str
    wins: int
    losses: int
    def __init__(self, bot: _Optional[str] = ..., opponent: _Optional[str] = ..., wins: _Optional[int] = ..., losses: _Optional[int] = ...) -> None: ...

class Run(_message.Message):
    __slots__ = ("id", "tournament_id", "tournament", "status", "error", "total", "finished", "failed", "running", "created_at", "finished_at", "fired_for", "seed", "definition", "participants", "standings", "crosstable", "first_started", "deals", "cancelled", "voided", "replays", "waiting", "entries", "notes", "rounds", "groups", "tiebreaks", "expected_total", "seeds")
    class EntriesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    FIRED_FOR_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    PARTICIPANTS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    CROSSTABLE_FIELD_NUMBER: _ClassVar[int]
    FIRST_STARTED_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    VOIDED_FIELD_NUMBER: _ClassVar[int]
    REPLAYS_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    TIEBREAKS_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_TOTAL_FIELD_NUMBER: _ClassVar[int]
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    id: int
    tournament_id: int
    tournament: str
    status: str
    error: str
    total: int
    finished: int
    failed: int
    running: int
    created_at: str
    finished_at: str
    fired_for: str
    seed: int
    definition: TournamentDefinition
    participants: _containers.RepeatedScalarFieldContainer[str]
    standings: _containers.RepeatedCompositeFieldContainer[RunStanding]
    crosstable: _containers.RepeatedCompositeFieldContainer[CrossCell]
    first_started: str
    deals: str
    cancelled: int
    voided: int
    replays: int
    waiting: str
    entries: _containers.ScalarMap[str, str]
    notes: _containers.RepeatedCompositeFieldContainer[RunNote]
    rounds: _containers.RepeatedCompositeFieldContainer[RunRound]
    groups: _containers.RepeatedCompositeFieldContainer[RunGroup]
    tiebreaks: _containers.RepeatedScalarFieldContainer[str]
    expected_total: int
    seeds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[int] = ..., tournament_id: _Optional[int] = ..., tournament: _Optional[str] = ..., status: _Optional[str] = ..., error: _Optional[str] = ..., total: _Optional[int] = ..., finished: _Optional[int] = ..., failed: _Optional[int] = ..., running: _Optional[int] = ..., created_at: _Optional[str] = ..., finished_at: _Optional[str] = ..., fired_for: _Optional[str] = ..., seed: _Optional[int] = ..., definition: _Optional[_Union[TournamentDefinition, _Mapping]] = ..., participants: _Optional[_Iterable[str]] = ..., standings: _Optional[_Iterable[_Union[RunStanding, _Mapping]]] = ..., crosstable: _Optional[_Iterable[_Union[CrossCell, _Mapping]]] = ..., first_started: _Optional[str] = ..., deals: _Optional[str] = ..., cancelled: _Optional[int] = ..., voided: _Optional[int] = ..., replays: _Optional[int] = ..., waiting: _Optional[str] = ..., entries: _Optional[_Mapping[str, str]] = ..., notes: _Optional[_Iterable[_Union[RunNote, _Mapping]]] = ..., rounds: _Optional[_Iterable[_Union[RunRound, _Mapping]]] = ..., groups: _Optional[_Iterable[_Union[RunGroup, _Mapping]]] = ..., tiebreaks: _Optional[_Iterable[str]] = ..., expected_total: _Optional[int] = ..., seeds: _Optional[_Iterable[str]] = ...) -> None: ...

class RunNote(_message.Message):
    __slots__ = ("match_id", "status", "voided", "replay_of")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VOIDED_FIELD_NUMBER: _ClassVar[int]
    REPLAY_OF_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    status: str
    voided: str
    replay_of: str
    def __init__(self, match_id: _Optional[str] = ..., status: _Optional[str] = ..., voided: _Optional[str] = ..., replay_of: _Optional[str] = ...) -> None: ...

class EditTournamentRequest(_message.Message):
    __slots__ = ("tournament", "definition")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    definition: TournamentDefinition
    def __init__(self, tournament: _Optional[str] = ..., definition: _Optional[_Union[TournamentDefinition, _Mapping]] = ...) -> None: ...

class DeleteTournamentRequest(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    def __init__(self, tournament: _Optional[str] = ...) -> None: ...

class DeleteTournamentResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RunControlRequest(_message.Message):
    __slots__ = ("id", "reason")
    ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    id: int
    reason: str
    def __init__(self, id: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class RunMatchControlRequest(_message.Message):
    __slots__ = ("run", "match_id", "reason")
    RUN_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    run: int
    match_id: str
    reason: str
    def __init__(self, run: _Optional[int] = ..., match_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ReplayMatchResponse(_message.Message):
    __slots__ = ("match_id", "run")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    run: Run
    def __init__(self, match_id: _Optional[str] = ..., run: _Optional[_Union[Run, _Mapping]] = ...) -> None: ...

class Organizer(_message.Message):
    __slots__ = ("name", "created_at", "removed_at", "first")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    REMOVED_AT_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    name: str
    created_at: str
    removed_at: str
    first: bool
    def __init__(self, name: _Optional[str] = ..., created_at: _Optional[str] = ..., removed_at: _Optional[str] = ..., first: _Optional[bool] = ...) -> None: ...

class AddOrganizerRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class AddOrganizerResponse(_message.Message):
    __slots__ = ("organizer", "token")
    ORGANIZER_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    organizer: Organizer
    token: str
    def __init__(self, organizer: _Optional[_Union[Organizer, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class RemoveOrganizerRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ListOrganizersRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListOrganizersResponse(_message.Message):
    __slots__ = ("organizers",)
    ORGANIZERS_FIELD_NUMBER: _ClassVar[int]
    organizers: _containers.RepeatedCompositeFieldContainer[Organizer]
    def __init__(self, organizers: _Optional[_Iterable[_Union[Organizer, _Mapping]]] = ...) -> None: ...

class LoggedAction(_message.Message):
    __slots__ = ("id", "at", "actor", "action", "subject", "detail")
    ID_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    id: int
    at: str
    actor: str
    action: str
    subject: str
    detail: str
    def __init__(self, id: _Optional[int] = ..., at: _Optional[str] = ..., actor: _Optional[str] = ..., action: _Optional[str] = ..., subject: _Optional[str] = ..., detail: _Optional[str] = ...) -> None: ...

class ListActionsRequest(_message.Message):
    __slots__ = ("subject", "actor", "limit", "before_id")
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    BEFORE_ID_FIELD_NUMBER: _ClassVar[int]
    subject: str
    actor: str
    limit: int
    before_id: int
    def __init__(self, subject: _Optional[str] = ..., actor: _Optional[str] = ..., limit: _Optional[int] = ..., before_id: _Optional[int] = ...) -> None: ...

class ListActionsResponse(_message.Message):
    __slots__ = ("actions",)
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedCompositeFieldContainer[LoggedAction]
    def __init__(self, actions: _Optional[_Iterable[_Union[LoggedAction, _Mapping]]] = ...) -> None: ...

class AuditRequest(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: int
    def __init__(self, run: _Optional[int] = ...) -> None: ...

class AuditFinding(_message.Message):
    __slots__ = ("check", "where", "what")
    CHECK_FIELD_NUMBER: _ClassVar[int]
    WHERE_FIELD_NUMBER: _ClassVar[int]
    WHAT_FIELD_NUMBER: _ClassVar[int]
    check: str
    where: str
    what: str
    def __init__(self, check: _Optional[str] = ..., where: _Optional[str] = ..., what: _Optional[str] = ...) -> None: ...

class AuditResponse(_message.Message):
    __slots__ = ("run", "at", "clean", "matches", "runs", "voided", "replays", "ratings", "events", "checked", "findings")
    class MatchesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class RunsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class CheckedEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    RUN_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    CLEAN_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    VOIDED_FIELD_NUMBER: _ClassVar[int]
    REPLAYS_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    CHECKED_FIELD_NUMBER: _ClassVar[int]
    FINDINGS_FIELD_NUMBER: _ClassVar[int]
    run: int
    at: str
    clean: bool
    matches: _containers.ScalarMap[str, int]
    runs: _containers.ScalarMap[str, int]
    voided: int
    replays: int
    ratings: int
    events: int
    checked: _containers.ScalarMap[str, int]
    findings: _containers.RepeatedCompositeFieldContainer[AuditFinding]
    def __init__(self, run: _Optional[int] = ..., at: _Optional[str] = ..., clean: _Optional[bool] = ..., matches: _Optional[_Mapping[str, int]] = ..., runs: _Optional[_Mapping[str, int]] = ..., voided: _Optional[int] = ..., replays: _Optional[int] = ..., ratings: _Optional[int] = ..., events: _Optional[int] = ..., checked: _Optional[_Mapping[str, int]] = ..., findings: _Optional[_Iterable[_Union[AuditFinding, _Mapping]]] = ...) -> None: ...

class ExportRunRequest(_message.Message):
    __slots__ = ("id", "what", "format")
    ID_FIELD_NUMBER: _ClassVar[int]
    WHAT_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    id: int
    what: str
    format: str
    def __init__(self, id: _Optional[int] = ..., what: _Optional[str] = ..., format: _Optional[str] = ...) -> None: ...

class ExportPoolRequest(_message.Message):
    __slots__ = ("pool", "format", "retired")
    POOL_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    pool: str
    format: str
    retired: bool
    def __init__(self, pool: _Optional[str] = ..., format: _Optional[str] = ..., retired: _Optional[bool] = ...) -> None: ...

class ExportBotRequest(_message.Message):
    __slots__ = ("bot", "what", "format", "pool")
    BOT_FIELD_NUMBER: _ClassVar[int]
    WHAT_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    bot: str
    what: str
    format: str
    pool: str
    def __init__(self, bot: _Optional[str] = ..., what: _Optional[str] = ..., format: _Optional[str] = ..., pool: _Optional[str] = ...) -> None: ...

class ExportChunk(_message.Message):
    __slots__ = ("data", "name", "media_type")
    DATA_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    name: str
    media_type: str
    def __init__(self, data: _Optional[bytes] = ..., name: _Optional[str] = ..., media_type: _Optional[str] = ...) -> None: ...

from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Bot(_message.Message):
    __slots__ = ("name", "owner", "active", "created_at")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    active: bool
    created_at: str
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ..., active: _Optional[bool] = ..., created_at: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("pool",)
    POOL_FIELD_NUMBER: _ClassVar[int]
    pool: str
    def __init__(self, pool: _Optional[str] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("rank", "bot", "elo", "games", "wins", "losses", "provisional", "low", "high")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    elo: float
    games: int
    wins: int
    losses: int
    provisional: bool
    low: float
    high: float
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., elo: _Optional[float] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ..., losses: _Optional[int] = ..., provisional: _Optional[bool] = ..., low: _Optional[float] = ..., high: _Optional[float] = ...) -> None: ...

class GetLeaderboardResponse(_message.Message):
    __slots__ = ("pool", "standings")
    POOL_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    pool: str
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    def __init__(self, pool: _Optional[str] = ..., standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ...) -> None: ...

class RequestMatchRequest(_message.Message):
    __slots__ = ("bots", "rules", "matches", "decision_ms")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedScalarFieldContainer[str]
    rules: str
    matches: int
    decision_ms: int
    def __init__(self, bots: _Optional[_Iterable[str]] = ..., rules: _Optional[str] = ..., matches: _Optional[int] = ..., decision_ms: _Optional[int] = ...) -> None: ...

class RequestMatchResponse(_message.Message):
    __slots__ = ("match_ids",)
    MATCH_IDS_FIELD_NUMBER: _ClassVar[int]
    match_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("id", "pool", "rules", "status", "seats", "winner", "score", "finished_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    pool: str
    rules: str
    status: str
    seats: _containers.RepeatedScalarFieldContainer[str]
    winner: int
    score: _containers.RepeatedScalarFieldContainer[int]
    finished_at: str
    def __init__(self, id: _Optional[str] = ..., pool: _Optional[str] = ..., rules: _Optional[str] = ..., status: _Optional[str] = ..., seats: _Optional[_Iterable[str]] = ..., winner: _Optional[int] = ..., score: _Optional[_Iterable[int]] = ..., finished_at: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("bot", "pool", "page_size", "page_token", "since", "until")
    BOT_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    bot: str
    pool: str
    page_size: int
    page_token: str
    since: str
    until: str
    def __init__(self, bot: _Optional[str] = ..., pool: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., since: _Optional[str] = ..., until: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("match_id", "before", "after", "at")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    before: float
    after: float
    at: str
    def __init__(self, match_id: _Optional[str] = ..., before: _Optional[float] = ..., after: _Optional[float] = ..., at: _Optional[str] = ...) -> None: ...

class GetRatingHistoryResponse(_message.Message):
    __slots__ = ("changes",)
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    changes: _containers.RepeatedCompositeFieldContainer[RatingChange]
    def __init__(self, changes: _Optional[_Iterable[_Union[RatingChange, _Mapping]]] = ...) -> None: ...

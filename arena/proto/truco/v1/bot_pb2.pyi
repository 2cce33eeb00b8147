from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_TYPE_UNSPECIFIED: _ClassVar[ActionType]
    ACTION_TYPE_PLAY: _ClassVar[ActionType]
    ACTION_TYPE_RAISE: _ClassVar[ActionType]
    ACTION_TYPE_ACCEPT: _ClassVar[ActionType]
    ACTION_TYPE_FOLD: _ClassVar[ActionType]

class HandKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HAND_KIND_UNSPECIFIED: _ClassVar[HandKind]
    HAND_KIND_NORMAL: _ClassVar[HandKind]
    HAND_KIND_SPECIAL: _ClassVar[HandKind]
    HAND_KIND_BOTH: _ClassVar[HandKind]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_DECIDE: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_ANSWER: _ClassVar[Phase]
    PHASE_OVER: _ClassVar[Phase]
ACTION_TYPE_UNSPECIFIED: ActionType
ACTION_TYPE_PLAY: ActionType
ACTION_TYPE_RAISE: ActionType
ACTION_TYPE_ACCEPT: ActionType
ACTION_TYPE_FOLD: ActionType
HAND_KIND_UNSPECIFIED: HandKind
HAND_KIND_NORMAL: HandKind
HAND_KIND_SPECIAL: HandKind
HAND_KIND_BOTH: HandKind
PHASE_UNSPECIFIED: Phase
PHASE_DECIDE: Phase
PHASE_PLAY: Phase
PHASE_ANSWER: Phase
PHASE_OVER: Phase

class BotMessage(_message.Message):
    __slots__ = ("hello", "action")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    action: ActionReply
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., action: _Optional[_Union[ActionReply, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("token", "protocol_version", "name", "version", "concurrency", "hand_results")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    HAND_RESULTS_FIELD_NUMBER: _ClassVar[int]
    token: str
    protocol_version: int
    name: str
    version: str
    concurrency: int
    hand_results: bool
    def __init__(self, token: _Optional[str] = ..., protocol_version: _Optional[int] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., concurrency: _Optional[int] = ..., hand_results: _Optional[bool] = ...) -> None: ...

class ActionReply(_message.Message):
    __slots__ = ("match_id", "request_id", "action", "error")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    action: Action
    error: str
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., error: _Optional[str] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("type", "card", "covered", "slot")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    COVERED_FIELD_NUMBER: _ClassVar[int]
    SLOT_FIELD_NUMBER: _ClassVar[int]
    type: ActionType
    card: str
    covered: bool
    slot: int
    def __init__(self, type: _Optional[_Union[ActionType, str]] = ..., card: _Optional[str] = ..., covered: _Optional[bool] = ..., slot: _Optional[int] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("welcome", "match_started", "decision", "rejected", "hand_ended", "match_ended")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_STARTED_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    HAND_ENDED_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_started: MatchStarted
    decision: DecisionRequest
    rejected: ActionRejected
    hand_ended: HandEnded
    match_ended: MatchEnded
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_started: _Optional[_Union[MatchStarted, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., rejected: _Optional[_Union[ActionRejected, _Mapping]] = ..., hand_ended: _Optional[_Union[HandEnded, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("bot", "protocol_version", "concurrency", "resumed_matches")
    BOT_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    RESUMED_MATCHES_FIELD_NUMBER: _ClassVar[int]
    bot: str
    protocol_version: int
    concurrency: int
    resumed_matches: int
    def __init__(self, bot: _Optional[str] = ..., protocol_version: _Optional[int] = ..., concurrency: _Optional[int] = ..., resumed_matches: _Optional[int] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("decision_ms", "time_bank_ms", "reconnect_grace_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    time_bank_ms: int
    reconnect_grace_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., reconnect_grace_ms: _Optional[int] = ...) -> None: ...

class MatchStarted(_message.Message):
    __slots__ = ("match_id", "seats", "rules", "seat_names", "clock", "resumed", "parameters")
    class ParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seats: _containers.RepeatedScalarFieldContainer[int]
    rules: str
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    clock: Clock
    resumed: bool
    parameters: _containers.ScalarMap[str, str]
    def __init__(self, match_id: _Optional[str] = ..., seats: _Optional[_Iterable[int]] = ..., rules: _Optional[str] = ..., seat_names: _Optional[_Iterable[str]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., resumed: _Optional[bool] = ..., parameters: _Optional[_Mapping[str, str]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("match_id", "request_id", "view", "deadline_ms", "time_bank_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    view: View
    deadline_ms: int
    time_bank_ms: int
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., view: _Optional[_Union[View, _Mapping]] = ..., deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class ActionRejected(_message.Message):
    __slots__ = ("match_id", "request_id", "reason", "deadline_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    reason: str
    deadline_ms: int
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., reason: _Optional[str] = ..., deadline_ms: _Optional[int] = ...) -> None: ...

class HandEnded(_message.Message):
    __slots__ = ("match_id", "hand_number", "points", "score", "games", "reason", "rounds")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hand_number: int
    points: _containers.RepeatedScalarFieldContainer[int]
    score: _containers.RepeatedScalarFieldContainer[int]
    games: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    rounds: _containers.RepeatedCompositeFieldContainer[Round]
    def __init__(self, match_id: _Optional[str] = ..., hand_number: _Optional[int] = ..., points: _Optional[_Iterable[int]] = ..., score: _Optional[_Iterable[int]] = ..., games: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., rounds: _Optional[_Iterable[_Union[Round, _Mapping]]] = ...) -> None: ...

class Faults(_message.Message):
    __slots__ = ("timeouts", "rejected", "disconnects", "substituted", "errors")
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    DISCONNECTS_FIELD_NUMBER: _ClassVar[int]
    SUBSTITUTED_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    timeouts: int
    rejected: int
    disconnects: int
    substituted: int
    errors: int
    def __init__(self, timeouts: _Optional[int] = ..., rejected: _Optional[int] = ..., disconnects: _Optional[int] = ..., substituted: _Optional[int] = ..., errors: _Optional[int] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("match_id", "last_hand", "winner", "score", "games", "termination", "faults")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    last_hand: HandEnded
    winner: int
    score: _containers.RepeatedScalarFieldContainer[int]
    games: _containers.RepeatedScalarFieldContainer[int]
    termination: str
    faults: Faults
    def __init__(self, match_id: _Optional[str] = ..., last_hand: _Optional[_Union[HandEnded, _Mapping]] = ..., winner: _Optional[int] = ..., score: _Optional[_Iterable[int]] = ..., games: _Optional[_Iterable[int]] = ..., termination: _Optional[str] = ..., faults: _Optional[_Union[Faults, _Mapping]] = ...) -> None: ...

class Play(_message.Message):
    __slots__ = ("seat", "card", "covered")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    COVERED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    covered: bool
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ..., covered: _Optional[bool] = ...) -> None: ...

class Round(_message.Message):
    __slots__ = ("plays", "winner")
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    plays: _containers.RepeatedCompositeFieldContainer[Play]
    winner: int
    def __init__(self, plays: _Optional[_Iterable[_Union[Play, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class SeatCards(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("seat", "rules", "hand_number", "dealer", "kind", "blind", "phase", "cards", "slots", "partners", "vira", "rounds", "table", "stake", "pending", "requester", "raised_by", "score", "games", "to_act", "legal", "seat_names", "last_hand", "manilhas", "refused")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    BLIND_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    SLOTS_FIELD_NUMBER: _ClassVar[int]
    PARTNERS_FIELD_NUMBER: _ClassVar[int]
    VIRA_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    REQUESTER_FIELD_NUMBER: _ClassVar[int]
    RAISED_BY_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_FIELD_NUMBER: _ClassVar[int]
    MANILHAS_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rules: str
    hand_number: int
    dealer: int
    kind: HandKind
    blind: bool
    phase: Phase
    cards: _containers.RepeatedScalarFieldContainer[str]
    slots: _containers.RepeatedScalarFieldContainer[int]
    partners: _containers.RepeatedCompositeFieldContainer[SeatCards]
    vira: str
    rounds: _containers.RepeatedCompositeFieldContainer[Round]
    table: _containers.RepeatedCompositeFieldContainer[Play]
    stake: int
    pending: int
    requester: int
    raised_by: int
    score: _containers.RepeatedScalarFieldContainer[int]
    games: _containers.RepeatedScalarFieldContainer[int]
    to_act: int
    legal: _containers.RepeatedCompositeFieldContainer[Action]
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    last_hand: HandEnded
    manilhas: _containers.RepeatedScalarFieldContainer[str]
    refused: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., rules: _Optional[str] = ..., hand_number: _Optional[int] = ..., dealer: _Optional[int] = ..., kind: _Optional[_Union[HandKind, str]] = ..., blind: _Optional[bool] = ..., phase: _Optional[_Union[Phase, str]] = ..., cards: _Optional[_Iterable[str]] = ..., slots: _Optional[_Iterable[int]] = ..., partners: _Optional[_Iterable[_Union[SeatCards, _Mapping]]] = ..., vira: _Optional[str] = ..., rounds: _Optional[_Iterable[_Union[Round, _Mapping]]] = ..., table: _Optional[_Iterable[_Union[Play, _Mapping]]] = ..., stake: _Optional[int] = ..., pending: _Optional[int] = ..., requester: _Optional[int] = ..., raised_by: _Optional[int] = ..., score: _Optional[_Iterable[int]] = ..., games: _Optional[_Iterable[int]] = ..., to_act: _Optional[int] = ..., legal: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., seat_names: _Optional[_Iterable[str]] = ..., last_hand: _Optional[_Union[HandEnded, _Mapping]] = ..., manilhas: _Optional[_Iterable[str]] = ..., refused: _Optional[_Iterable[int]] = ...) -> None: ...

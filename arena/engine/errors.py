"""The engine's errors: two levels, both ``ValueError``.

``MalformedAction`` means the input could not be understood at all (an unknown action
type, a card that does not exist). ``IllegalAction`` means it was understood but the
rules do not allow it now; its message says why, in words a bot author can act on.
"""


class TrucoError(ValueError):
    """Base of every error the engine raises about its input."""


class MalformedAction(TrucoError):
    """The action (or card) cannot be read."""


class IllegalAction(TrucoError):
    """The action is well formed but not allowed in the current state."""


class RulesError(TrucoError):
    """An unknown preset, parameter or value, or a combination that cannot be played."""


class RecordError(TrucoError):
    """A match record that is malformed or does not replay."""


QUOTE_LIMIT = 40


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """What a user sent, written as a literal for an error message (text in quotes, a
    number or a list as itself) and cut to about ``limit`` characters: an error never
    echoes a long input back whole."""
    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[:limit] + "...")
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."

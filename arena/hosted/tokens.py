"""Match tokens: what a hosted bot's process says in its hello, good for one seat of one
match and nothing else.

A token names the match and the version it seats, signed with a key derived from the
arena's secret (the store's deal key, which the workers that mint tokens and the referee
that reads them both hold), so the referee needs no table of them. It is refused unless
the referee is about to play or playing that very match with that version seated
(``referee.hub.Hub.expect``): before its match, in another match, and once its match is
over, it opens nothing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from arena.domain.identity import MATCH_TOKEN

PREFIX = MATCH_TOKEN  # arena.domain.identity's: how every match token begins


def token_key(secret: bytes) -> bytes:
    """The signing key, derived from the arena's secret for this use only."""
    return hmac.new(secret, b"truco arena: match tokens", hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(key: bytes, match_id: str, bot: str) -> bytes:
    return hmac.new(key, f"{match_id}\0{bot}".encode(), hashlib.sha256).digest()


def match_token(key: bytes, match_id: str, bot: str) -> str:
    """The token that seats ``bot`` in ``match_id``."""
    parts = (match_id.encode(), bot.encode(), _signature(key, match_id, bot))
    return PREFIX + ".".join(_b64(p) for p in parts)


def read_match_token(key: bytes, token: str) -> tuple[str, str] | None:
    """The (match id, bot) a genuine match token names; None for anything else."""
    if not token.startswith(PREFIX):
        return None
    try:
        match, bot, signature = (_unb64(p) for p in token[len(PREFIX) :].split("."))
        match_id, name = match.decode(), bot.decode()
    except ValueError:  # wrong count of parts, bad base64, bad UTF-8
        return None
    if not hmac.compare_digest(signature, _signature(key, match_id, name)):
        return None
    return match_id, name

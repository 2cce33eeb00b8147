"""Tokens: making them (:func:`new_token`), and slowing down their guessing: refusals of
bad tokens are held longer and longer for each peer address that keeps sending them. The
referee holds bad bot tokens with it, the web pages bad organizer tokens.

Tokens are 32 random bytes, so guessing one is hopeless; this makes trying expensive too
and keeps a misconfigured client from spinning. After ``FREE_FAILURES`` bad tokens from
one address, each refusal waits ``FIRST_DELAY_S``, doubling up to ``MAX_DELAY_S``. An
address is forgotten after ``FORGET_AFTER_S`` without a failure; at most ``MAX_ADDRESSES``
are remembered (the quietest are forgotten first). While ``MAX_WAITING`` refusals of one
address are being held, its further attempts are refused at once (:meth:`FailedTokens.busy`).
A good token is never delayed, whatever its address did before.

Behind a reverse proxy every call comes from the proxy's address, and one guesser would
have every bot refused: :func:`caller_address` takes the address the proxy saw instead,
from the ``x-forwarded-for`` the proxy adds, for the proxies the operator trusts
(``ARENA_TRUSTED_PROXIES``, docs/operations.md); from anyone else that header is ignored,
since a client may send whatever it likes in it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

FREE_FAILURES = 3
FIRST_DELAY_S = 0.1
MAX_DELAY_S = 5.0
FORGET_AFTER_S = 300.0
MAX_ADDRESSES = 10_000
MAX_WAITING = 16


def new_token() -> str:
    """A new secret: 32 random bytes, URL-safe. Never one that starts with ``-``, which
    a command line would take for an option (``--token -x...`` fails to parse)."""
    while (token := secrets.token_urlsafe(32)).startswith("-"):
        pass
    return token


@dataclass
class _Failures:
    count: int = 0
    last: float = 0.0
    waiting: int = 0  # refusals being held now


class FailedTokens:
    """Bad-token failures by peer address."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._by_address: OrderedDict[str, _Failures] = OrderedDict()  # quietest first

    def busy(self, address: str) -> bool:
        """Too many refusals of this address are held already: refuse the next at once."""
        failures = self._by_address.get(address)
        return failures is not None and failures.waiting >= MAX_WAITING

    def delay_s(self, address: str) -> float:
        """Count one more failure of ``address``; how long to hold its refusal."""
        now = self._clock()
        self._forget_quiet(now)
        failures = self._by_address.pop(address, None) or _Failures()
        failures.count += 1
        failures.last = now
        self._by_address[address] = failures
        while len(self._by_address) > MAX_ADDRESSES:
            self._by_address.popitem(last=False)
        over = failures.count - FREE_FAILURES
        return 0.0 if over <= 0 else min(MAX_DELAY_S, FIRST_DELAY_S * 2 ** (over - 1))

    async def hold(self, address: str) -> None:
        """Count a failure of ``address`` and wait out its delay."""
        delay = self.delay_s(address)
        if delay <= 0:
            return
        failures = self._by_address[address]
        failures.waiting += 1
        try:
            await asyncio.sleep(delay)
        finally:
            failures.waiting -= 1

    def __len__(self) -> int:
        return len(self._by_address)

    def _forget_quiet(self, now: float) -> None:
        while self._by_address:
            address, failures = next(iter(self._by_address.items()))
            if now - failures.last < FORGET_AFTER_S or failures.waiting:
                return
            del self._by_address[address]


def caller_address(
    peer: str, metadata: Iterable[tuple[str, str | bytes]] | None, proxies: Collection[str]
) -> str:
    """The address a call came from: its gRPC ``peer``'s (:func:`peer_address`), unless
    that is one of the trusted ``proxies``: then the last address of the call's
    ``x-forwarded-for`` (the one the proxy appended: those before it are the client's
    word), when it is an IP address; else the proxy's own."""
    address = peer_address(peer)
    if address not in proxies:
        return address
    forwarded = [v for k, v in metadata or () if k == "x-forwarded-for" and isinstance(v, str)]
    last = forwarded[-1].rpartition(",")[2].strip() if forwarded else ""
    try:
        return str(ipaddress.ip_address(last))
    except ValueError:
        return address


def trusted_proxies(text: str) -> frozenset[str]:
    """The proxies of ``ARENA_TRUSTED_PROXIES``: IP addresses, by commas or spaces;
    ValueError naming one that is not."""
    found = set()
    for item in text.replace(",", " ").split():
        try:
            found.add(str(ipaddress.ip_address(item)))
        except ValueError:
            raise ValueError(f"ARENA_TRUSTED_PROXIES: {item!r} is not an IP address") from None
    return frozenset(found)


def peer_address(peer: str) -> str:
    """The address part of a gRPC peer: ``ipv4:1.2.3.4:5678`` -> ``1.2.3.4``,
    ``ipv6:[::1]:5678`` -> ``::1``; anything else whole."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return peer
    host = rest.rpartition(":")[0] or rest
    return host.strip("[]")

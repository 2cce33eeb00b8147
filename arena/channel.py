"""gRPC channels to the referee, plaintext or TLS: the one place that makes them.

Bots and the CLI reach the arena over the internet, so tokens must not travel in clear.
With a CA file (``ARENA_CA_FILE``, ``--ca-file``) the channel uses TLS and trusts that
CA only (a self-signed referee, say); with ``ARENA_TLS=1`` (``--tls``) and no CA file, TLS
with the system's roots; with neither, plaintext (loopback, local matches, tests).

An arena may run as several referees (``arena serve`` nodes on one database): a bot is
given their addresses as a list, :func:`addresses` reads it, and it dials one at a time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import grpc

from arena.errors import Invalid

TRUE = {"1", "true", "yes", "on"}

# gRPC's own target schemes whose path is a list of addresses, separated by commas
LIST_SCHEMES = ("ipv4:", "ipv6:", "unix:", "unix-abstract:")


def addresses(value: str | Iterable[str]) -> list[str]:
    """The referees to dial, in order: ``value`` is addresses separated by commas
    (``a:50051,b:50051``), or several such strings. Each address is any gRPC target
    (``host:port``, ``dns:///name:port``, ``unix:PATH``...) and is passed on unchanged,
    but for the spaces around it. A target of one of gRPC's list schemes (``ipv4:``,
    ``ipv6:``, ``unix:``, ``unix-abstract:``) lists addresses of its own after commas:
    it takes the rest of its string, commas and all (``ipv4:10.0.0.1:50051,10.0.0.2:50051``
    is one target, whose addresses gRPC tries in turn)."""
    found = []
    for item in [value] if isinstance(value, str) else value:
        rest = item
        while rest:
            head, comma, rest = rest.partition(",")
            if head.strip().lower().startswith(LIST_SCHEMES):
                head, rest = _joined(head + comma + rest), ""
            if head.strip():
                found.append(head.strip())
    return found


def _joined(target: str) -> str:
    """A list scheme's target with no spaces or empty items between its commas."""
    return ",".join(part for part in (p.strip() for p in target.split(",")) if part)


def address_from_env(env: Mapping[str, str] = os.environ) -> str:
    """The arena's address as every command and bot reads it: ``ARENA_ADDRESS``, else its
    older name ``ARENA_REFEREE_ADDRESS`` (an alias: the first wins when both are set);
    "" when neither is."""
    return env.get("ARENA_ADDRESS") or env.get("ARENA_REFEREE_ADDRESS") or ""


def tls_from_env(env: Mapping[str, str] = os.environ) -> tuple[str | None, bool]:
    """``(ca_file, tls)`` from ``ARENA_CA_FILE`` and ``ARENA_TLS``."""
    return env.get("ARENA_CA_FILE") or None, env.get("ARENA_TLS", "").lower() in TRUE


def credentials(ca_file: str | None = None, tls: bool = False) -> grpc.ChannelCredentials | None:
    """TLS credentials for a channel, or None for plaintext; Invalid when the CA file
    cannot be read."""
    if ca_file:
        try:
            with open(ca_file, "rb") as f:
                return grpc.ssl_channel_credentials(root_certificates=f.read())
        except OSError as e:
            raise Invalid(f"cannot read the CA file {ca_file}: {e.strerror}") from None
    if tls:
        return grpc.ssl_channel_credentials()  # the system's roots
    return None


def tls_mismatch(details: str, address: str, ca_file: str | None, tls: bool) -> str:
    """What a failed connection's ``details`` (gRPC's words) suggest about TLS, as a
    sentence to add to them; "" when they suggest nothing. gRPC itself only says that a
    plaintext client's socket was closed (the server spoke TLS to it), or names the TLS
    library's error (a plaintext server's answer is no TLS record; a certificate that the
    CA given did not sign)."""
    secure = bool(ca_file or tls) and not address.startswith("unix:")
    if not secure and "Socket closed" in details:
        return (
            "the server may speak TLS: give its CA with --ca-file or ARENA_CA_FILE, "
            "or set ARENA_TLS=1 to trust the system's roots"
        )
    if secure and "WRONG_VERSION_NUMBER" in details:
        return "the server may not speak TLS: connect without --ca-file, ARENA_CA_FILE, ARENA_TLS"
    if secure and "CERTIFICATE_VERIFY_FAILED" in details:
        trusted = f"the CA file {ca_file}" if ca_file else "the system's roots"
        return f"the server's certificate is not one {trusted} trusts (--ca-file, ARENA_CA_FILE)"
    return ""


def open_channel(
    address: str,
    ca_file: str | None = None,
    tls: bool = False,
    options: Sequence[tuple[str, Any]] = (),
    *,
    aio: bool = False,
) -> Any:
    """A channel to ``address`` (a ``grpc.aio`` one with ``aio``): TLS when ``ca_file``
    or ``tls``, else plaintext. A unix socket (``unix:PATH``, the arena's own, local) is
    always plaintext."""
    secure = None if address.startswith("unix:") else credentials(ca_file, tls)
    kind: Any = grpc.aio if aio else grpc
    if secure is None:
        return kind.insecure_channel(address, options=list(options))
    return kind.secure_channel(address, secure, options=list(options))


def server_credentials(cert_file: str, key_file: str) -> grpc.ServerCredentials:
    """The referee's TLS credentials from a PEM certificate (chain) and its key."""
    with open(cert_file, "rb") as cert, open(key_file, "rb") as key:
        return grpc.ssl_server_credentials([(key.read(), cert.read())])

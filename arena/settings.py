"""Settings from the environment, read without starting anything.

``ARENA_HOME`` (default ``~/.local/share/truco-arena``) holds everything the embedded
services keep. ``ARENA_ADDRESS`` is the arena's address, for every command and bot (its
first address, where it lists several, for the servers and the CLI; the older name
``ARENA_REFEREE_ADDRESS`` is an alias). ``ARENA_DATABASE_URL`` selects a PostgreSQL server and
``ARENA_BROKER_URL`` the Celery broker (``redis://...`` or ``amqp://...``); where either
is not set, :mod:`arena.embedded` starts its embedded server under ``ARENA_HOME`` on first
use. ``arena serve``
also listens on a unix socket under ``ARENA_HOME``, where the CLI of the same user finds
it (:func:`referee_socket`); ``ARENA_HOME`` is made readable by its owner only, and the
sockets that do not fit there go to a folder of the user's own (:func:`private_socket`).
``ARENA_ORGANIZER_TOKEN`` is a named organizer's own token, which the CLI then sends
instead of the first organizer's (``ARENA_ADMIN_TOKEN``, or the one generated into
``ARENA_HOME`` on the embedded database; a configured one needs ``ARENA_ADMIN_TOKEN``
set); ``ARENA_TOKEN``, a bot's own token, is what the CLI's reading commands
send (then they show that bot's owner its own cards). Only the commands that start an
arena (serve, worker, web, demo) generate the organizer's token into ``ARENA_HOME``
when it is missing; the others use it when it is there. ``ARENA_CA_FILE``
and ``ARENA_TLS`` make the clients use TLS (see :mod:`arena.channel`);
``ARENA_TLS_CERT`` and ``ARENA_TLS_KEY`` make ``arena serve`` serve it.
``ARENA_TRUSTED_PROXIES`` lists the reverse proxies (IP addresses) in front of ``arena
serve`` whose ``x-forwarded-for`` it believes (docs/operations.md).
``ARENA_HOSTED_WARM`` (default 8) is how many ready hosted processes a worker keeps in
all (docs/hosting.md, the warm pool). ``ARENA_FIT_ABSENT_DAYS`` (default 14, the
store's) is how long a bot may go without a rated game in a pool before it leaves the
anchor of the pool's ratings (docs/ratings.md). ``ARENA_STANDBY=1`` keeps ``arena beat``
from sending anything, and ``ARENA_DISPATCH_S`` sends its dispatch every so many seconds
rather than every minute; ``ARENA_WORKER_DRAIN_S`` (default 20) is how long a stopping
worker waits for its tasks (docs/operations.md, the workers and the scheduler; stopping).
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.channel import TRUE, address_from_env, addresses, open_channel, tls_from_env
from arena.engine import quoted
from arena.errors import Invalid, Unavailable
from arena.guard import new_token, trusted_proxies

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Settings:
    home: Path
    database_url: str | None  # None: the embedded server under home
    referee_address: str
    admin_token_value: str | None  # None: generated into home
    broker_url: str | None = None  # None: the embedded Redis under home
    queue: str = "arena"  # the broker's queue for the arena's tasks
    visibility_timeout_s: int = 3600  # Redis: an unacknowledged task is redelivered after
    ca_file: str | None = None  # clients: trust this CA (TLS); see arena.channel
    tls: bool = False  # clients: TLS with the system's roots when there is no ca_file
    tls_cert: str | None = None  # arena serve: its certificate (PEM), for TLS
    tls_key: str | None = None  # arena serve: the certificate's key (PEM)
    referee_named: bool = False  # ARENA_ADDRESS was set (else the default is used)
    node: str = ""  # arena serve: its name as a node (default: the address it is reached at)
    node_address: str = ""  # arena serve: where other nodes and workers reach it (default:
    # the address it listens on)
    run_window: int = 32  # a run's matches in flight at most (docs/events.md)
    hosted_warm: int = 8  # a worker's ready hosted processes in all (docs/hosting.md)
    trusted_proxies: frozenset[str] = frozenset()  # arena serve: the reverse proxies
    # whose x-forwarded-for names the caller (arena.guard.caller_address)
    fit_absent_days: int | None = None  # a bot idle this long in a pool leaves its fit's
    # anchor (docs/ratings.md); None: the store's default (ABSENT_DAYS, arena/domain/pools.py)
    dispatch_s: int | None = None  # arena beat: send the dispatch this often (None: at
    # the start of every minute); docs/operations.md
    standby: bool = False  # arena beat: send nothing (a restored copy of the database)
    worker_drain_s: int = 20  # arena worker: how long a stop waits for its tasks in progress

    @property
    def control_queue(self) -> str:
        """The queue of the tasks that start, check and schedule (never behind matches)."""
        return f"{self.queue}.control"

    @property
    def analysis_queue(self) -> str:
        """The queue of the analyses of matches, asked after the matches' (docs/web.md)."""
        return f"{self.queue}.analyses"

    organizer_token_value: str | None = None  # the CLI's organizer calls: a named
    # organizer's own token (docs/events.md); None: admin_token()
    bot_token_value: str | None = None  # the CLI's reading calls: a bot's own token

    @staticmethod
    def from_env(env: Mapping[str, str] = os.environ) -> Settings:
        home = Path(env.get("ARENA_HOME") or Path.home() / ".local/share/truco-arena")
        ca_file, tls = tls_from_env(env)
        named = addresses(address_from_env(env))
        return Settings(
            home=home.expanduser(),
            database_url=env.get("ARENA_DATABASE_URL") or None,
            referee_address=named[0] if named else "127.0.0.1:50051",
            admin_token_value=env.get("ARENA_ADMIN_TOKEN") or None,
            broker_url=env.get("ARENA_BROKER_URL") or None,
            queue=env.get("ARENA_QUEUE") or "arena",
            visibility_timeout_s=_seconds(env, "ARENA_BROKER_VISIBILITY_S", 3600),
            ca_file=ca_file,
            tls=tls,
            tls_cert=env.get("ARENA_TLS_CERT") or None,
            tls_key=env.get("ARENA_TLS_KEY") or None,
            referee_named=bool(named),
            node=env.get("ARENA_NODE", ""),
            node_address=env.get("ARENA_NODE_ADDRESS", ""),
            run_window=max(1, _seconds(env, "ARENA_RUN_WINDOW", 32, "matches")),
            hosted_warm=_seconds(env, "ARENA_HOSTED_WARM", 8, "processes"),
            trusted_proxies=_proxies(env.get("ARENA_TRUSTED_PROXIES", "")),
            organizer_token_value=env.get("ARENA_ORGANIZER_TOKEN") or None,
            bot_token_value=env.get("ARENA_TOKEN") or None,
            fit_absent_days=(
                _seconds(env, "ARENA_FIT_ABSENT_DAYS", 0, "days")
                if env.get("ARENA_FIT_ABSENT_DAYS")
                else None
            ),
            dispatch_s=_interval(env, "ARENA_DISPATCH_S"),
            standby=_switch(env, "ARENA_STANDBY"),
            worker_drain_s=_seconds(env, "ARENA_WORKER_DRAIN_S", 20),
        )

    @property
    def fit_absent_s(self) -> float | None:
        """``fit_absent_days`` in seconds, as the store takes it."""
        return None if self.fit_absent_days is None else self.fit_absent_days * 86400.0

    def organizer_referee(self) -> str:
        """Where a process that carries the organizer's token finds the referee: the
        address the user named, else the home's own ``arena serve`` on its private socket
        (plaintext; only this user can have made it). Never a TCP port nobody named:
        whoever listened there first would be sent the token."""
        if self.referee_named:
            return self.referee_address
        return f"unix:{referee_socket(self.home)}"

    def channel(self, address: str | None = None) -> grpc.Channel:
        """A channel to the referee (``address``, default ``referee_address``), with TLS
        as configured."""
        return open_channel(address or self.referee_address, self.ca_file, self.tls)

    def organizer_token(self) -> str | None:
        """The token the CLI sends for an organizer's calls: ``ARENA_ORGANIZER_TOKEN`` (a
        named organizer's own, from ``arena organizer add``), else the first organizer's
        when this machine has it (:meth:`known_admin_token`); never one generated. Only
        the clients read it: the servers' first organizer is always :meth:`admin_token`'s,
        whoever runs them."""
        return self.organizer_token_value or self.known_admin_token()

    def known_admin_token(self) -> str | None:
        """The first organizer's token if this machine has it: ``ARENA_ADMIN_TOKEN``, else
        ``ARENA_HOME/admin-token`` when an arena started here made it; None: neither."""
        if self.admin_token_value:
            return self.admin_token_value
        path = self.home / "admin-token"
        return path.read_text().strip() if path.exists() else None

    def check_admin_token(self) -> None:
        """:class:`Invalid` where :meth:`admin_token` would refuse: on a configured
        database with ``ARENA_ADMIN_TOKEN`` unset. Makes nothing: the servers ask it before
        anything starts."""
        if self.database_url and not self.admin_token_value:
            raise Invalid(
                "ARENA_ADMIN_TOKEN is not set: on a configured database (ARENA_DATABASE_URL) "
                "every referee, worker and web process must carry the same organizer's "
                "token; make one with `arena organizer new-token` and set it on each "
                "(docs/operations.md)"
            )

    def admin_token(self) -> str:
        """The organizer's token: ``ARENA_ADMIN_TOKEN``, else, on the embedded database,
        one generated once into ``ARENA_HOME/admin-token`` (readable by its owner only).
        On a configured database (``ARENA_DATABASE_URL``) the processes may run on several
        machines, each with a home of its own whose tokens would disagree: there it must be
        set, and :class:`Invalid` says how to make one. For the processes that start an
        arena only: the others ask :meth:`known_admin_token`."""
        self.check_admin_token()
        if self.admin_token_value:
            return self.admin_token_value
        path = self.home / "admin-token"
        if not path.exists():
            make_home(self.home)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(new_token() + "\n")
            log.warning("generated the organizer's token into %s", path)
        return path.read_text().strip()


def _proxies(text: str) -> frozenset[str]:
    try:
        return trusted_proxies(text)
    except ValueError as e:
        raise Invalid(str(e)) from None


def _seconds(env: Mapping[str, str], name: str, default: int, unit: str = "seconds") -> int:
    """A whole number (of seconds) from the variable ``name``; Invalid saying so when it
    is something else."""
    text = env.get(name) or str(default)
    if not (text.isascii() and text.isdigit() and len(text) <= 9):
        raise Invalid(f"{name} must be a whole number of {unit}, not {quoted(text)}")
    return int(text)


def _interval(env: Mapping[str, str], name: str) -> int | None:
    """A whole number of seconds, at least one, from the variable ``name``; None: unset."""
    if not env.get(name):
        return None
    seconds = _seconds(env, name, 0)
    if seconds < 1:
        raise Invalid(f"{name} must be at least 1 second")
    return seconds


def _switch(env: Mapping[str, str], name: str) -> bool:
    """On or off from the variable ``name`` (unset: off); Invalid saying so when it is
    neither, rather than taking a mistyped "on" for off."""
    text = env.get(name, "").strip().lower()
    if text in TRUE:
        return True
    if text in ("", "0", "false", "no", "off"):
        return False
    raise Invalid(f"{name} must be 1 or 0 (or true/false, yes/no, on/off), not {quoted(text)}")


SOCKET_PATH_MAX = 100  # bytes: a unix socket's path must fit in sun_path (104 to 108)


def make_home(home: Path) -> Path:
    """``home`` (``ARENA_HOME``), made readable by its owner only when it is missing: it
    holds the organizer's token and the sockets of the arena's own servers."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    return home


def private_socket(folder: Path, name: str) -> Path:
    """Where a server of this arena listens on the unix socket ``name``: in ``folder``
    (under ``ARENA_HOME``), unless that path is too long for a unix socket; then in this
    user's own folder in the temporary folder (:func:`private_folder`), named after the
    path it stands for."""
    path = folder / name
    if len(os.fsencode(path)) < SOCKET_PATH_MAX:
        return path
    digest = hashlib.sha256(os.fsencode(path)).hexdigest()[:16]
    own = private_folder(Path(tempfile.gettempdir()) / f"truco-arena-{os.getuid()}")
    return own / f"{digest}-{name}"


def private_folder(path: Path) -> Path:
    """``path``, a folder only this user may use: made (0700) when missing, refused
    (:class:`Unavailable`) when it is not a folder, another user owns it or anyone else
    may enter it: someone else could have put their own socket there first."""
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = path.lstat()
    except OSError as e:
        raise Unavailable(f"cannot make the folder {path}: {e.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise Unavailable(
            f"{path} is not a folder of this user's only (owner uid {info.st_uid}, mode "
            f"{stat.filemode(info.st_mode)}): remove it, then try again"
        )
    return path


def own_socket(path: Path) -> bool:
    """Whether a server listens on the unix socket ``path`` that this user made, in a
    folder of this user's that no one else may write to: only such a server is sent the
    organizer's token unasked."""
    try:
        info, folder = path.lstat(), path.parent.stat()
    except OSError:
        return False
    uid = os.getuid()
    if not stat.S_ISSOCK(info.st_mode) or info.st_uid != uid:
        return False
    if folder.st_uid != uid or folder.st_mode & 0o022:
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(5)
        try:
            probe.connect(str(path))
        except OSError:
            return False  # a socket left behind by a server that is gone
    return True


def referee_socket(home: Path) -> Path:
    """Where ``arena serve`` also listens, in plaintext, for the CLI of ``home``'s owner."""
    return private_socket(home, "referee.sock")


def redis_socket(home: Path) -> Path:
    """Where the embedded Redis listens."""
    return private_socket(home / "redis", "redis.sock")

"""The commands that run a process of the arena: ``serve``, ``web``, ``worker``, ``beat``,
``bot run``, ``demo``, and the embedded servers' ``db migrate`` and ``stop-embedded``.

A referee that also serves the Arena API is wired in arena/cli/wiring.py.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import os
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.cli.common import logs_of
from arena.cli.wiring import arena_server, open_store, schema_ready
from arena.engine import quoted
from arena.errors import ArenaError, Invalid
from arena.settings import Settings

CLOSE_WAIT_S = 2.0  # a stopping process waits this long at most for its database pool
SAID = "%(asctime)s arena bot run: %(message)s"  # what arena bot run says of its connection

log = logging.getLogger(__name__)


def cmd_serve(args: argparse.Namespace) -> int:
    from arena.channel import server_credentials

    settings = Settings.from_env()
    address = args.address or settings.referee_address
    cert, key = args.tls_cert or settings.tls_cert, args.tls_key or settings.tls_key
    if bool(cert) != bool(key):
        print("arena serve: TLS needs both --tls-cert and --tls-key", file=sys.stderr)
        return 2
    try:
        credentials = server_credentials(cert, key) if cert and key else None
    except OSError as e:
        print(f"arena serve: cannot read the certificate or key: {e}", file=sys.stderr)
        return 1
    try:
        extra = bot_tokens(args.token_file, os.environ.get("ARENA_BOT_TOKENS", ""))
    except Invalid as e:
        print(f"arena serve: {e}", file=sys.stderr)
        return 2
    settings.check_admin_token()  # refused before anything starts where it must be set
    if not serve_metrics("serve", args.metrics_address):
        return 1
    store = open_store("serve", settings, migrate=args.migrate)
    local = local_socket(settings.home)

    async def serve() -> None:
        try:
            server = arena_server(
                store, settings, address, tokens=extra, credentials=credentials,
                local_socket=local, node=args.node or "", node_address=args.advertise or "",
            )  # fmt: skip
        except RuntimeError as e:  # grpc.aio could not bind: its message names the address
            raise OSError(str(e)) from None
        if args.metrics_address:
            from arena.metrics import watch_referee

            watch_referee(server.hub)
        await server.start()
        log.info(
            "referee listening on %s%s, node %s (reached at %s)", address,
            " (TLS)" if credentials else "", server.node.name, server.node.address,
        )  # fmt: skip
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop()
        store.close(CLOSE_WAIT_S)  # what still waits for a connection fails now, not in 30 s

    try:
        asyncio.run(serve())
    except OSError as e:
        print(f"arena serve: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()
    return 0


def bot_tokens(token_file: str | None, variable: str) -> list[tuple[str, str]]:
    """The extra bots ``arena serve`` accepts, as (bot, token): the lines of ``token_file``
    (blank lines and # comments skipped) and the pairs of ``$ARENA_BOT_TOKENS`` (split at
    commas and spaces); never the command line, which every user of the machine may read.
    :class:`~arena.errors.Invalid` names the line or pair at fault, never its token."""
    items = []
    if token_file:
        try:
            text = Path(token_file).read_text(encoding="utf-8")
        except OSError as e:
            raise Invalid(f"cannot read {token_file}: {e.strerror}") from None
        except UnicodeDecodeError:
            raise Invalid(f"{token_file} is not UTF-8 text") from None
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip() and not line.strip().startswith("#"):
                items.append((f"line {n} of {token_file}", line))
    for n, item in enumerate(variable.replace(",", " ").split(), 1):
        items.append((f"item {n} of ARENA_BOT_TOKENS", item))
    tokens: dict[str, str] = {}
    for where, item in items:
        bot, token = _bot_token(where, item)
        if bot in tokens:
            raise Invalid(f"{where}: {quoted(bot)} is given twice")
        tokens[bot] = token
    return list(tokens.items())


def _bot_token(where: str, item: str) -> tuple[str, str]:
    """``BOT=TOKEN`` read, spaces around either part dropped; Invalid saying what is wrong."""
    bot, eq, token = (part.strip() for part in item.partition("="))
    if not eq or any(c.isspace() for c in bot + token):
        raise Invalid(f"{where}: write BOT=TOKEN")
    if not bot:
        raise Invalid(f"{where}: the bot's name is missing")
    if not token:
        raise Invalid(f"{where}: the token of {quoted(bot)} is missing")
    return bot, token


def local_socket(home: Path) -> str | None:
    """The unix socket ``arena serve`` also listens on, for the CLI of ``home``'s owner
    (:class:`arena.cli.client.Arena`); None, with a warning, when another referee of the
    same home listens there already, or no private place for it can be had."""
    from arena.settings import make_home, own_socket, referee_socket

    try:
        path = referee_socket(make_home(home))
    except (ArenaError, OSError) as e:
        log.warning("no local socket for the CLI: %s", e)
        return None
    if own_socket(path):
        log.warning("another referee of %s listens on %s: this one leaves it be", home, path)
        return None
    return f"unix:{path}"


def cmd_web(args: argparse.Namespace) -> int:
    from arena.web import create_app
    from arena.web.server import serve

    settings = Settings.from_env()
    settings.check_admin_token()  # refused before anything starts where it must be set
    if not serve_metrics("web", args.metrics_address):  # and on its own pages' /metrics
        return 1
    store = open_store("web", settings, migrate=args.migrate)
    from workers.dispatch import Dispatcher

    app = create_app(
        store, organizer_token=settings.admin_token(), playing=playing(settings, args),
        analyse=Dispatcher(settings).analyse,
    )  # fmt: skip
    try:
        stopped = functools.partial(store.close, CLOSE_WAIT_S)
        started = serve(app, args.host, args.port, settings.trusted_proxies, stopped)
    finally:
        store.close(CLOSE_WAIT_S)
    return 0 if started else 1


def playing(settings: Settings, args: argparse.Namespace) -> Any:
    """How the web holds people's seats: on the workers' own referee (the arena's first
    address, else the home's), its matches sent to the workers."""
    from arena.web.play import Playing
    from workers.dispatch import Dispatcher

    send = Dispatcher(settings).play
    address = settings.organizer_referee()
    return Playing(address, send, settings.ca_file, settings.tls, guests=args.guests)


def cmd_worker(args: argparse.Namespace) -> int:
    from workers.app import configure, node_name

    settings = Settings.from_env()
    settings.check_admin_token()  # the referee's, refused before anything starts where unset
    if not serve_metrics("worker", args.metrics_address):  # its threads count in this process
        return 1
    schema_ready("worker", settings, args.migrate)
    app = configure(settings)
    argv = ["worker", "--pool", "threads", "--concurrency", str(args.concurrency)]
    argv += ["--hostname", args.name or node_name()]
    app.start(celery_argv(args, [*argv, "--without-gossip", "--without-mingle"]))
    return 0


def cmd_beat(args: argparse.Namespace) -> int:
    from workers.app import configure

    settings = Settings.from_env()
    if not serve_metrics("beat", args.metrics_address):
        return 1
    schema_ready("beat", settings, args.migrate)
    chosen = replace(settings, standby=True) if args.standby else settings
    configure(chosen).start(celery_argv(args, ["beat"]))
    return 0


def serve_metrics(command: str, address: tuple[str, int] | None) -> bool:
    """The process's metrics served on ``address`` (:func:`arena.metrics.serve_metrics`),
    when given; False, having said why, when they cannot be."""
    if address is None:
        return True
    from arena import metrics

    host, port = address
    try:
        metrics.serve_metrics(address)
    except OSError as e:
        print(f"arena {command}: cannot serve metrics on {host}:{port}: {e}", file=sys.stderr)
        return False
    log.info("metrics on http://%s:%d/metrics", host, port)
    return True


def celery_argv(args: argparse.Namespace, command: list[str]) -> list[str]:
    """Celery's arguments for ``command``: its lines go through the arena's logging
    (workers/app.py) at the command's level; in JSON, without the banner it prints on
    standard output."""
    level, form = logs_of(args)
    return [*(["--quiet"] if form == "json" else []), *command, "--loglevel", level]


def cmd_bot_run(args: argparse.Namespace) -> int:
    from arena.bots import house_bot
    from arena.sdk import BotError, run

    name = args.name.removeprefix("house:")
    try:
        settings = {} if args.budget_ms is None else {"budget_ms": args.budget_ms}
        if settings and name != "mc":
            raise Invalid("--budget-ms is a setting of house:mc only")
        bot = house_bot(name, seed=args.seed, **settings)
        said = logging.StreamHandler(sys.stderr)  # connected, to which node; reconnecting
        said.setFormatter(logging.Formatter(SAID, "%Y-%m-%d %H:%M:%S"))
        sdk_log = logging.getLogger("arena.sdk")
        sdk_log.setLevel(logging.INFO)
        sdk_log.addHandler(said)
        sdk_log.propagate = False
        run(
            bot, args.address, args.token, concurrency=args.concurrency, ca_file=args.ca_file,
            tls=args.tls,
        )  # fmt: skip
    except (Invalid, BotError) as e:
        print(f"arena bot run: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from arena.cli.demo import run_demo

    told = {"ARENA_LOG_LEVEL": args.log_level, "ARENA_LOG_FORMAT": args.log_format}
    logs = {k: v for k, told_v in told.items() if (v := told_v or os.environ.get(k))}
    return run_demo(args.matches, args.web_port, args.ladder_s, logs=logs, migrate=args.migrate)


def cmd_db_migrate(args: argparse.Namespace) -> int:
    import psycopg

    from arena.embedded import database_url
    from arena.store.migrate import migrate, schema_version

    try:
        url = database_url(Settings.from_env())
        applied = migrate(url)
        version = schema_version(url)
    except (psycopg.Error, ArenaError) as e:  # ArenaError: the database is newer than the code
        print(f"arena db migrate: {e}".strip(), file=sys.stderr)
        return 1
    names = ", ".join(f"{m.version:04d}_{m.name}" for m in applied) or "nothing to apply"
    print(f"schema version {version} ({names})")
    return 0


def cmd_db_status(args: argparse.Namespace) -> int:
    import psycopg

    from arena.cli.common import print_json
    from arena.embedded import database_url
    from arena.store.migrate import schema

    try:
        found = schema(database_url(Settings.from_env()))
    except psycopg.Error as e:
        print(f"arena db status: {e}".strip(), file=sys.stderr)
        return 1
    if args.json:
        print_json({
            "database": found.database, "code": found.code, "pending": found.names(),
            "state": found.state,
        })  # fmt: skip
        return 0
    print(f"database: schema version {found.database}")
    print(f"code:     schema version {found.code}")
    print(f"pending:  {', '.join(found.names()) or 'none'}")
    print(found.state)
    return 0


def cmd_stop_embedded(args: argparse.Namespace) -> int:
    from arena.embedded import stop_embedded_postgres, stop_embedded_redis

    home = Settings.from_env().home
    stopped = stop_embedded_postgres(home)
    print(f"embedded PostgreSQL in {home / 'pgdata'}: {'stopped' if stopped else 'not running'}")
    print(f"embedded Redis: {'stopped' if stop_embedded_redis(home) else 'not running'}")
    return 0

"""The grammar of the commands that run a process of the arena (``serve``, ``web``,
``worker``, ``beat``, ``demo``) or look after one (``nodes``, ``db migrate``,
``db status``, ``stop-embedded``)."""

from __future__ import annotations

import argparse
import contextlib
from typing import TYPE_CHECKING

from arena import logs
from arena.cli import reader, servers
from arena.cli.common import CONCURRENCY, MATCHES, PORT, count, node
from arena.engine import quoted

if TYPE_CHECKING:
    from arena.cli.common import Commands


def processes(sub: Commands) -> None:
    p = sub.add_parser("serve", help="run the referee: the Referee and Arena gRPC services")
    p.add_argument("--address", help="HOST:PORT (default $ARENA_ADDRESS or 127.0.0.1:50051)")
    p.add_argument(
        "--token-file",
        metavar="FILE",
        help="also accept these bots (besides the registered ones): lines BOT=TOKEN, # comments;"
        " and those of $ARENA_BOT_TOKENS (BOT=TOKEN pairs, by commas or spaces)",
    )
    p.add_argument("--tls-cert", metavar="FILE", help="serve TLS: the certificate, PEM "
                   "($ARENA_TLS_CERT)")  # fmt: skip
    p.add_argument("--tls-key", metavar="FILE", help="its private key, PEM ($ARENA_TLS_KEY)")
    p.add_argument(
        "--node",
        metavar="NAME",
        help="its name as one node of several on the database ($ARENA_NODE; default: the "
        "address it is reached at); see docs/cluster.md",
    )
    p.add_argument(
        "--advertise",
        metavar="HOST:PORT",
        help="where the other nodes and the workers reach it ($ARENA_NODE_ADDRESS; "
        "default: --address, with the port it got)",
    )
    metrics_option(p)
    server_options(p)
    p.set_defaults(run=servers.cmd_serve)

    p = sub.add_parser("nodes", help="the live referee nodes and their load (docs/cluster.md)")
    p.add_argument("--json", action="store_true", help="print them as JSON")
    p.set_defaults(run=reader.cmd_nodes)

    p = sub.add_parser("web", help="serve the web pages: leaderboards, bots, match replays")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1)")
    p.add_argument("--port", type=PORT, default=8080, help="the port (default 8080)")
    p.add_argument(
        "--guests", action="store_true",
        help="let visitors who are not signed in play bots too (docs/web.md, playing a bot)",
    )  # fmt: skip
    metrics_option(p)
    server_options(p)
    p.set_defaults(run=servers.cmd_web)

    p = sub.add_parser("worker", help="run a Celery worker: it plays tournament matches")
    p.add_argument(
        "--concurrency",
        type=CONCURRENCY,
        default=32,
        help="tasks at once (default 32); each bot's own concurrency still caps its matches",
    )
    p.add_argument(
        "--name",
        type=node,
        help="its Celery node name, NAME@HOST (%%h: this host's name; default: "
        "arena-PID-RANDOM@%%h, unique for every worker)",
    )
    metrics_option(p)
    server_options(p)
    p.set_defaults(run=servers.cmd_worker)
    p = sub.add_parser("beat", help="run the scheduler: it starts runs whose schedule is due")
    p.add_argument(
        "--standby",
        action="store_true",
        help="send nothing, for a restored copy of the database ($ARENA_STANDBY=1)",
    )
    metrics_option(p)
    server_options(p)
    p.set_defaults(run=servers.cmd_beat)

    group = sub.add_parser("db", help="the database")
    actions = group.add_subparsers(metavar="ACTION")
    p = actions.add_parser("migrate", help="apply the migrations ($ARENA_DATABASE_URL or embedded)")
    p.set_defaults(run=servers.cmd_db_migrate)
    p = actions.add_parser(
        "status", help="the database's schema version, the code's, and the migrations pending"
    )
    p.add_argument("--json", action="store_true", help="print it as JSON")
    p.set_defaults(run=servers.cmd_db_status)
    p = sub.add_parser(
        "stop-embedded",
        help="stop the embedded PostgreSQL and Redis of $ARENA_HOME (other commands leave "
        "them running for each other)",
    )
    p.set_defaults(run=servers.cmd_stop_embedded)

    p = sub.add_parser(
        "demo",
        help="the whole service here: referee, worker, scheduler, web, house bots, a tournament, "
        "the ladder",
    )
    p.add_argument("--matches", type=MATCHES, default=8, help="per pairing and leg (default 8)")
    p.add_argument("--web-port", type=PORT, default=8080, help="the web pages' port (8080)")
    p.add_argument(
        "--ladder-s",
        type=count(1, 3600),
        default=60,
        help="how long the ladder plays after the tournament, in seconds (default 60)",
    )
    server_options(p, default=None)  # the demo's own lines: WARNING; its processes: INFO
    p.set_defaults(run=servers.cmd_demo)


def metrics_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--metrics-address",
        metavar="HOST:PORT",
        type=host_port,
        help="serve the process's Prometheus metrics on this address (off by default; "
        "docs/operations.md)",
    )


def host_port(text: str) -> tuple[str, int]:
    """An argparse type: ``HOST:PORT`` (``[::1]:9464`` for IPv6), the port from 1 to
    65535; anything else is a usage error saying what to write."""
    host, colon, port = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    with contextlib.suppress(argparse.ArgumentTypeError):
        if colon and host.strip():
            return host, PORT(port)
    raise argparse.ArgumentTypeError(
        f"write HOST:PORT with a port from 1 to 65535 (127.0.0.1:9464), not {quoted(text)}"
    )


def server_options(p: argparse.ArgumentParser, default: str | None = "info") -> None:
    """``--log-level``, ``--log-format`` and ``--migrate``, the options of every command
    that runs a process of the arena; its logs at ``default`` unless told (None: the
    CLI's)."""
    levels, forms = "|".join(logs.LEVELS), "|".join(logs.FORMATS)
    p.add_argument(
        "--log-level",
        type=str.lower,
        choices=logs.LEVELS,
        metavar="LEVEL",
        help=f"log at {levels} and above ($ARENA_LOG_LEVEL; default {default or 'warning'})",
    )
    p.add_argument("--loglevel", dest="log_level", type=str.lower, choices=logs.LEVELS,
                   help=argparse.SUPPRESS)  # fmt: skip  # its older name
    p.add_argument(
        "--log-format",
        type=str.lower,
        choices=logs.FORMATS,
        metavar="FORMAT",
        help=f"{forms}: json is one object a line, for log shippers ($ARENA_LOG_FORMAT; "
        "default text)",
    )
    p.add_argument(
        "--migrate",
        action="store_true",
        help="apply the database's missing migrations first (on $ARENA_DATABASE_URL only "
        "with this; the embedded database is always migrated); see docs/operations.md",
    )
    if default is not None:
        p.set_defaults(log_default=default)

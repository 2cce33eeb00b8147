"""The ``arena`` command: parse the arguments, hand off, print.

The commands that run a referee (``serve``, ``match``) import ``referee`` when they
run: the CLI is the one edge that wires every part together.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from arena.engine import Match, Rules, TrucoError, disagreements, replay, to_record
from arena.engine.errors import quoted
from arena.engine.record import replayed_record
from arena.engine.rules import PRESET_NAMES
from arena.engine.sources import NOTES, SOURCES, SUMMARIES
from arena.errors import MAX_ID, ArenaError

log = logging.getLogger(__name__)


def main(argv: Sequence[str] | None = None) -> int:
    import os

    # gRPC's fork handlers only warn here: the embedded servers are started by fork+exec
    os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        code: int = args.run(args)
    except ArenaError as e:  # a kind of arena.errors: its message is meant for the user
        print(f"arena: {e}", file=sys.stderr)
        return 1
    return code


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, exit 2: what is wrong, and where the help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _count(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` in ASCII digits; anything
    else is a usage error (exit 2) that gives the range."""

    def parse(text: str) -> int:
        digits = text.removeprefix("-")
        if digits.isascii() and digits.isdigit() and len(digits) <= 20 and low <= int(text) <= high:
            return int(text)
        raise argparse.ArgumentTypeError(
            f"give a whole number from {low} to {high}, not {quoted(text)}"
        )

    return parse


MATCHES = _count(1, 1000)  # matches or games asked for at once
SEED = _count(0, 2**63 - 1)
DECISION_MS = _count(1, 60_000)
TIME_BANK_MS = _count(0, 600_000)
GRACE_MS = _count(0, 600_000)
ROW_ID = _count(1, MAX_ID)
LIMIT = _count(1, 200)  # the Arena API's largest page
PORT = _count(1, 65535)
CONCURRENCY = _count(1, 64)


def _rules(text: str) -> Rules:
    """``--rules`` values: argparse reports a bad one as a usage error (exit 2)."""
    try:
        return Rules.parse(text)
    except TrucoError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="arena", description="Truco Arena")
    sub = parser.add_subparsers(metavar="COMMAND")

    p = sub.add_parser("replay", help="replay a match record, checking every action")
    p.add_argument("file", help="the record (JSON), or - for standard input")
    p.set_defaults(run=cmd_replay)

    rules = sub.add_parser("rules", help="the rule presets and their parameters")
    rules_sub = rules.add_subparsers(metavar="ACTION")
    p = rules_sub.add_parser("list", help="the presets, one line each")
    p.set_defaults(run=cmd_rules_list)
    p = rules_sub.add_parser("show", help="every parameter of a preset, and where it comes from")
    p.add_argument(
        "rules", type=_rules, help="a preset, optionally with overrides: paulista:team_size=2"
    )
    p.add_argument("--json", action="store_true", help="print the parameters as JSON")
    p.set_defaults(run=cmd_rules_show)

    p = sub.add_parser(
        "match",
        help="play local matches between bots run as child processes (or: match show ID)",
        description="Play local matches between your own bots, each run as a child process. "
        "Matches come in pairs on the same deals with the seats exchanged, so the luck of "
        "the cards mostly cancels out, as engine testers use opening pairs. That is fair "
        "here because you run both sides: a bot that remembered its cards could read its "
        "opponent's hand in the second match of a pair, so the arena never duplicates deals "
        "between bots that dial in.",
    )
    p.add_argument("show", nargs="?", choices=["show"], help="show a recorded match instead")
    p.add_argument("id", nargs="?", help="with show: the match id")
    p.add_argument("--rules", type=_rules, default=Rules(), help="PRESET[:param=value,...]")
    p.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="CMD",
        help="house:NAME or a shell command; one per team, or one per seat",
    )
    p.add_argument("--games", type=MATCHES, default=2, help="matches to play (default 2)")
    p.add_argument("--seed", type=SEED, default=1)
    p.add_argument("--decision-ms", type=DECISION_MS, default=1000, help="time per decision")
    p.add_argument("--time-bank-ms", type=TIME_BANK_MS, default=10_000, help="extra time per match")
    p.add_argument(
        "--reconnect-grace-ms",
        type=GRACE_MS,
        default=60_000,
        help="how long a disconnected bot's seats are held before a house bot plays",
    )
    p.add_argument("--records", metavar="DIR", help="write every match record here")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(run=cmd_match)

    p = sub.add_parser("serve", help="run the referee: the Referee and Arena gRPC services")
    p.add_argument(
        "--address", help="HOST:PORT (default $ARENA_REFEREE_ADDRESS or 127.0.0.1:50051)"
    )
    p.add_argument(
        "--token-file",
        metavar="FILE",
        help="also accept these bots (besides the registered ones): lines BOT=TOKEN, # comments;"
        " and those of $ARENA_BOT_TOKENS (BOT=TOKEN pairs, by commas or spaces)",
    )
    p.add_argument("--tls-cert", metavar="FILE", help="serve TLS: the certificate, PEM "
                   "($ARENA_TLS_CERT)")  # fmt: skip
    p.add_argument("--tls-key", metavar="FILE", help="its private key, PEM ($ARENA_TLS_KEY)")
    p.set_defaults(run=cmd_serve)

    p = sub.add_parser("web", help="serve the web pages: leaderboards, bots, match replays")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1)")
    p.add_argument("--port", type=PORT, default=8080, help="the port (default 8080)")
    p.set_defaults(run=cmd_web)

    p = sub.add_parser(
        "challenge",
        help="rated matches between connected bots, played by the workers (organizer)",
        description="Rated matches between registered bots connected now, played by the "
        "workers (arena worker) through the referee and recorded with their Elo change. "
        "Every match is dealt its own secret cards: bots that dial in may remember what "
        "they saw, so no two matches share deals.",
    )
    p.add_argument("bots", nargs="+", metavar="BOT", help="two bots, or one per seat")
    p.add_argument("--rules", default="paulista", help="PRESET[:param=value,...]")
    p.add_argument(
        "--games", type=MATCHES, default=2, help="matches (default 2, seats swapped each time)"
    )
    p.add_argument("--wait", action="store_true", help="wait for the results")
    p.set_defaults(run=cmd_challenge)

    p = sub.add_parser("matches", help="recorded matches, newest first")
    p.add_argument("--bot", help="only this bot's")
    p.add_argument("--pool", help="only this pool's (PRESET/TEAM_SIZE)")
    p.add_argument("--since", default="", help="created at or after (e.g. 2026-11-29T10:00Z)")
    p.add_argument("--until", default="", help="created before")
    p.add_argument("--limit", type=LIMIT, default=20, help="at most this many (default 20)")
    p.set_defaults(run=cmd_matches)

    p = sub.add_parser("ratings", help="the leaderboard of a pool")
    p.add_argument("--pool", default="paulista/1", help="PRESET/TEAM_SIZE (default paulista/1)")
    p.add_argument("--json", action="store_true", help="print the standings as JSON")
    p.set_defaults(run=cmd_ratings)

    bot = sub.add_parser("bot", help="bots")
    bot_sub = bot.add_subparsers(metavar="ACTION")
    p = bot_sub.add_parser("register", help="register a bot (organizer); prints its token once")
    p.add_argument("name")
    p.add_argument("--owner", default="")
    p.set_defaults(run=cmd_bot_register)
    p = bot_sub.add_parser("list", help="the registered bots")
    p.set_defaults(run=cmd_bot_list)
    p = bot_sub.add_parser("run", help="run a house bot, connecting to $ARENA_ADDRESS")
    p.add_argument("name", help="house:random, house:heuristic or house:mc")
    p.add_argument("--address", help="the referee (default $ARENA_ADDRESS)")
    p.add_argument("--token", help="the bot's token (default $ARENA_TOKEN)")
    p.add_argument("--ca-file", help="TLS, trusting this CA certificate ($ARENA_CA_FILE)")
    p.add_argument(
        "--tls", action="store_true", default=None, help="TLS with the system's roots ($ARENA_TLS)"
    )
    p.add_argument("--concurrency", type=CONCURRENCY, default=16, help="matches at once (16)")
    p.add_argument("--seed", type=SEED, help="seed the bot's random choices")
    p.add_argument("--budget-ms", type=DECISION_MS, help="mc only: thinking time a decision (30)")
    p.set_defaults(run=cmd_bot_run)

    db = sub.add_parser("db", help="the database")
    db_sub = db.add_subparsers(metavar="ACTION")
    p = db_sub.add_parser("migrate", help="apply the migrations ($ARENA_DATABASE_URL or embedded)")
    p.set_defaults(run=cmd_db_migrate)

    _tournament_parsers(sub)

    p = sub.add_parser("worker", help="run a Celery worker: it plays tournament matches")
    p.add_argument(
        "--concurrency",
        type=CONCURRENCY,
        default=32,
        help="tasks at once (default 32); each bot's own concurrency still caps its matches",
    )
    p.add_argument("--loglevel", default="warning")
    p.set_defaults(run=cmd_worker)
    p = sub.add_parser(
        "stop-embedded",
        help="stop the embedded PostgreSQL and Redis of $ARENA_HOME (other commands leave "
        "them running for each other)",
    )
    p.set_defaults(run=cmd_stop_embedded)
    p = sub.add_parser("beat", help="run the scheduler: it starts runs whose schedule is due")
    p.add_argument("--loglevel", default="warning")
    p.set_defaults(run=cmd_beat)

    p = sub.add_parser(
        "demo",
        help="the whole service here: referee, worker, scheduler, web, house bots, a tournament",
    )
    p.add_argument("--matches", type=MATCHES, default=8, help="per pairing and leg (default 8)")
    p.add_argument("--web-port", type=PORT, default=8080, help="the web pages' port (8080)")
    p.set_defaults(run=cmd_demo)

    p = sub.add_parser("play", help="play and print a seeded match between two random players")
    p.add_argument("--rules", type=_rules, default=Rules(), help="PRESET[:param=value,...]")
    p.add_argument("--seed", type=SEED, default=2026)
    p.add_argument("--record", metavar="FILE", help="also write the match record here")
    p.set_defaults(run=cmd_play)
    return parser


def cmd_replay(args: argparse.Namespace) -> int:
    return replay_file(args.file, sys.stdin, sys.stdout, sys.stderr)


def replay_file(path: str, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """``arena replay``: the recomputed record on stdout (exit 0), or one line per
    problem on stderr and nothing on stdout (exit 1), whatever the input."""
    try:
        record = _read_record(path, stdin)
        match = replay(record)
        problems = disagreements(record, match)
        text = "" if problems else json.dumps(replayed_record(record, match), indent=2)
    except TrucoError as e:
        problems = [str(e)]
    except RecursionError:  # a value nested deeper than Python's stack, anywhere in the record
        problems = ["the record is nested too deeply"]
    for problem in problems:
        print(problem, file=stderr)
    if problems:
        return 1
    stdout.write(text + "\n")
    return 0


def _read_record(path: str, stdin: TextIO) -> Any:
    """The JSON value of the file ``path`` (``-``: standard input), read as UTF-8;
    :class:`RecordError` saying why it cannot be read."""
    from arena.engine.errors import RecordError

    try:
        if path == "-":
            data = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        where = f"byte 0x{e.object[e.start]:02x} at position {e.start}"
        raise RecordError(f"not UTF-8: {where}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"not JSON: {e}") from None
    except RecursionError:
        raise RecordError("not JSON: nested too deeply") from None
    except ValueError:  # the only other: a number too long to convert
        limit = sys.get_int_max_str_digits()
        raise RecordError(f"not JSON: a number has more than {limit} digits") from None


def cmd_rules_list(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    table = Table("preset", "in one line", "seats", "source", box=None)
    for name in PRESET_NAMES:
        rules = Rules.preset(name)
        default = " (default)" if name == "paulista" else ""
        table.add_row(name + default, SUMMARIES[name], str(rules.seats), SOURCES[name])
    Console().print(table)
    return 0


def cmd_rules_show(args: argparse.Namespace) -> int:
    rules = args.rules
    if args.json:
        print(json.dumps({"preset": rules.name, **rules.parameters()}, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    base = Rules.preset(rules.name).parameter_texts()
    table = Table("parameter", "value", "where it comes from", title=str(rules), box=None)
    for key, value in rules.parameter_texts().items():
        note = "override" if value != base[key] else NOTES[rules.name][key]
        table.add_row(key, value, note)
    console = Console()
    console.print(table)
    console.print(f"source: {SOURCES[rules.name]}; 'chosen' marks values the source leaves open")
    return 0


def cmd_db_migrate(args: argparse.Namespace) -> int:
    import psycopg

    from arena.settings import Settings
    from arena.store.migrate import migrate, schema_version

    try:
        url = Settings.from_env().database()
        applied = migrate(url)
        version = schema_version(url)
    except psycopg.Error as e:
        print(f"arena db migrate: {e}".strip(), file=sys.stderr)
        return 1
    names = ", ".join(f"{m.version:04d}_{m.name}" for m in applied) or "nothing to apply"
    print(f"schema version {version} ({names})")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from arena.demo import run_demo

    return run_demo(args.matches, args.web_port)


def cmd_play(args: argparse.Namespace) -> int:
    rules = args.rules
    names = [f"random-{i}" for i in range(rules.seats)]
    match = Match(rules, names, seed=args.seed)
    players = random.Random(args.seed)
    print(f"{rules} | seed {args.seed} | " + " vs ".join("+".join(names[t::2]) for t in (0, 1)))
    printed = 0
    while not match.is_over:
        match.apply(players.choice(match.legal_actions()))
        while printed < len(match.hands) and match.hands[printed].result is not None:
            print(_hand_line(match, printed))
            printed += 1
    assert match.outcome is not None
    team = match.outcome.winner
    print(f"winner: team {team} ({'+'.join(names[team::2])}) {match.score[0]}-{match.score[1]}")
    if args.record:
        with open(args.record, "w", encoding="utf-8") as f:
            json.dump(to_record(match), f, indent=2)
        print(f"record written to {args.record}; check it with: arena replay {args.record}")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    import asyncio

    if args.show:
        return _show_match(args)
    if len(args.bot) < 2:
        print("arena match: give at least two --bot (or: arena match show ID)", file=sys.stderr)
        return 2

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from arena.clock import TimeControl
    from referee.local import play_local

    rules = args.rules
    clock = TimeControl(args.decision_ms, args.time_bank_ms, args.reconnect_grace_ms)
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True, disable=args.json) as bar:
        task = bar.add_task("matches", total=args.games)
        try:
            summary = asyncio.run(
                play_local(
                    rules,
                    args.bot,
                    games=args.games,
                    seed=args.seed,
                    clock=clock,
                    records=Path(args.records) if args.records else None,
                    progress=lambda done, total: bar.update(task, completed=done),
                )
            )
        except (ValueError, RuntimeError) as e:
            print(f"arena match: {e}", file=sys.stderr)
            return 1
    result = summary.to_json()
    if args.json:
        print(json.dumps(result))
    else:
        _print_summary(result)
    return 0


def _print_summary(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table("bot", "wins", "points", "timeouts", "rejected", "disconnects", box=None)
    for bot in result["bots"]:
        f = result["faults"].get(bot, {})
        table.add_row(
            bot,
            f"{result['wins'][bot]}/{result['games']}",
            str(result["points"][bot]),
            *(str(f.get(k, 0)) for k in ("timeouts", "rejected", "disconnects")),
        )
    console = Console()
    console.print(table)
    low, high = (_signed(x) for x in result["elo_ci95"])
    sides = [" + ".join(side) for side in result["sides"]]
    console.print(
        f"{sides[0]} vs {sides[1]}: Elo difference {_signed(result['elo_diff'])} "
        f"(95%: {low} to {high}) over {result['games']} games of {result['rules']}"
    )


def _signed(x: float) -> str:
    return f"{round(x):+d}"


def cmd_serve(args: argparse.Namespace) -> int:
    import asyncio
    import os
    import signal

    from arena.channel import server_credentials
    from arena.dispatch import Dispatcher
    from arena.errors import Invalid
    from arena.settings import Settings
    from arena.store.store import StoreTokens
    from referee.api import ArenaServicer
    from referee.hub import Hub, MemoryTokens
    from referee.server import create_server

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
        extra = _bot_tokens(args.token_file, os.environ.get("ARENA_BOT_TOKENS", ""))
    except Invalid as e:
        print(f"arena serve: {e}", file=sys.stderr)
        return 2
    store = _open_store("serve", settings)
    tokens = MemoryTokens(fallback=StoreTokens(store))
    for bot, token in extra:
        tokens.add(bot, token)
    local = _local_socket(settings.home)

    async def serve() -> None:
        arena = ArenaServicer(store, settings.admin_token(), dispatch=Dispatcher(settings))
        try:
            server = create_server(address, Hub(tokens), arena, credentials, local)
        except RuntimeError as e:  # grpc.aio could not bind: its message names the address
            raise OSError(str(e)) from None
        await server.start()
        log.warning("referee listening on %s%s", address, " (TLS)" if credentials else "")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop()

    try:
        asyncio.run(serve())
    except OSError as e:
        print(f"arena serve: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()
    return 0


def _bot_tokens(token_file: str | None, variable: str) -> list[tuple[str, str]]:
    """The extra bots ``arena serve`` accepts, as (bot, token): the lines of ``token_file``
    (blank lines and # comments skipped) and the pairs of ``$ARENA_BOT_TOKENS`` (split at
    commas and spaces); never the command line, which every user of the machine may read.
    :class:`~arena.errors.Invalid` names the line or pair at fault, never its token."""
    from arena.errors import Invalid

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
    from arena.errors import Invalid

    bot, eq, token = (part.strip() for part in item.partition("="))
    if not eq or any(c.isspace() for c in bot + token):
        raise Invalid(f"{where}: write BOT=TOKEN")
    if not bot:
        raise Invalid(f"{where}: the bot's name is missing")
    if not token:
        raise Invalid(f"{where}: the token of {quoted(bot)} is missing")
    return bot, token


def _local_socket(home: Path) -> str | None:
    """The unix socket ``arena serve`` also listens on, for the CLI of ``home``'s owner
    (:func:`_arena_endpoint`); None, with a warning, when another referee of the same home
    listens there already, or no private place for it can be had."""
    from arena.errors import ArenaError
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


def _open_store(command: str, settings: Any, max_size: int = 8) -> Any:
    """The store on the settings' database, migrated; SystemExit (1) saying why not."""
    import psycopg

    from arena.store.migrate import migrate
    from arena.store.store import Store

    try:
        url = settings.database()
        migrate(url)
        return Store(url, max_size=max_size)
    except psycopg.Error as e:
        raise SystemExit(f"arena {command}: cannot use the database: {e}".strip()) from None


def cmd_web(args: argparse.Namespace) -> int:
    from arena.settings import Settings
    from arena.web import create_app
    from arena.web.server import serve

    settings = Settings.from_env()
    store = _open_store("web", settings)
    app = create_app(store, organizer_token=settings.admin_token())
    try:
        started = serve(app, args.host, args.port)
    finally:
        store.close()
    return 0 if started else 1


def _arena_call(method: str, request: Any, organizer: bool = False) -> Any:
    """One Arena API call; gRPC errors become SystemExit."""
    import grpc

    from arena.proto.truco.v1 import arena_pb2_grpc

    try:
        address, admin, settings = _arena_endpoint()
        channel = settings.channel(address)
    except ValueError as e:  # an unreadable CA file
        raise SystemExit(f"arena: {e}") from None
    metadata = [("authorization", f"Bearer {admin}")] if organizer else []
    with channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        try:
            return getattr(stub, method)(request, metadata=metadata, timeout=30)
        except grpc.RpcError as e:
            raise SystemExit(
                f"arena: {e.details()} ({e.code().name.lower()}, at {address})"
            ) from None


_ENDPOINT: list[tuple[str, str, Any]] = []


def _arena_endpoint() -> tuple[str, str, Any]:
    """The Arena API to ask, the organizer's token, and the settings to reach it with:
    ``$ARENA_REFEREE_ADDRESS`` when set; else the ``arena serve`` of ``$ARENA_HOME``, on its
    private socket (:func:`_own_referee`); else an Arena API started in this process on the
    store (``$ARENA_DATABASE_URL`` or the embedded PostgreSQL, plaintext on loopback), so
    that reading and organizing work with no server running. Never a TCP port nobody
    named: whoever listened there first would be sent the organizer's token."""
    import dataclasses
    import os

    from arena.settings import Settings

    if _ENDPOINT:
        return _ENDPOINT[0]
    settings = Settings.from_env()
    address = settings.referee_address
    if not os.environ.get("ARENA_REFEREE_ADDRESS"):
        address = _own_referee(settings.home) or _in_process_arena(settings)
        settings = dataclasses.replace(settings, ca_file=None, tls=False)
    _ENDPOINT.append((address, settings.admin_token(), settings))
    return _ENDPOINT[0]


def _own_referee(home: Path) -> str | None:
    """``unix:PATH`` of the referee of ``home`` when one listens on its socket, made by
    this user in a folder of this user's (:func:`arena.settings.own_socket`); else None."""
    from arena.errors import Unavailable
    from arena.settings import own_socket, referee_socket

    try:
        path = referee_socket(home)
    except Unavailable as e:
        log.warning("%s; the Arena API is served in this command", e)
        return None
    return f"unix:{path}" if own_socket(path) else None


def _in_process_arena(settings: Any) -> str:
    """Serve the Arena API on a free loopback port from a thread of this process."""
    import asyncio
    import threading

    from arena.dispatch import Dispatcher
    from arena.store.store import StoreTokens
    from referee.api import ArenaServicer
    from referee.hub import Hub, MemoryTokens
    from referee.server import create_server

    store = _open_store("(in-process Arena API)", settings, max_size=2)
    started: list[str] = []
    ready = threading.Event()

    async def serve() -> None:
        arena = ArenaServicer(store, settings.admin_token(), dispatch=Dispatcher(settings))
        server = create_server("127.0.0.1:0", Hub(MemoryTokens(fallback=StoreTokens(store))), arena)
        await server.start()
        started.append(server.address)
        ready.set()
        await asyncio.Event().wait()  # until the process exits

    threading.Thread(target=asyncio.run, args=(serve(),), daemon=True).start()
    if not ready.wait(60):
        raise SystemExit("arena: the in-process Arena API did not start")
    return started[0]


def cmd_bot_register(args: argparse.Namespace) -> int:
    from arena.proto.truco.v1 import arena_pb2 as api

    reply = _arena_call(
        "RegisterBot", api.RegisterBotRequest(name=args.name, owner=args.owner), True
    )
    print(f"registered {reply.bot.name}; its token (shown only now, keep it):")
    print(reply.token)
    return 0


def cmd_challenge(args: argparse.Namespace) -> int:
    import time

    from arena.proto.truco.v1 import arena_pb2 as api

    request = api.RequestMatchRequest(bots=args.bots, rules=args.rules, matches=args.games)
    ids = list(_arena_call("RequestMatch", request, organizer=True).match_ids)
    print("requested: " + " ".join(ids))
    if not args.wait:
        return 0
    pending, began, hinted = set(ids), time.monotonic(), False
    while pending:
        time.sleep(0.5)  # polling the server: nothing here to wait on but its answers
        statuses = set()
        for match_id in sorted(pending):
            summary = _arena_call("GetMatch", api.GetMatchRequest(id=match_id)).match
            statuses.add(summary.status)
            if summary.status in ("finished", "failed"):
                pending.discard(match_id)
                print(_match_line(summary))
        if statuses == {"scheduled"} and time.monotonic() - began > NO_WORKER_S and not hinted:
            hinted = True
            print(
                f"none of the matches has started after {NO_WORKER_S} s: the workers play "
                "them (is `arena worker` running on this arena's broker?)",
                file=sys.stderr,
            )
    return 0


NO_WORKER_S = 15  # `arena challenge --wait` says it is waiting for a worker after this


def _match_line(m: Any) -> str:
    if m.status != "finished":
        return f"{m.id}  {m.status:8}  {m.rules}  {' / '.join(m.seats)}"
    winners = "+".join(sorted(set(m.seats[m.winner :: 2])))
    score = "-".join(str(x) for x in m.score)
    return (
        f"{m.id}  {m.finished_at[:19]}  {m.rules}  {' / '.join(m.seats)}  {score}  won by {winners}"
    )


def cmd_matches(args: argparse.Namespace) -> int:
    from arena.proto.truco.v1 import arena_pb2 as api

    request = api.ListMatchesRequest(
        bot=args.bot or "",
        pool=args.pool or "",
        page_size=args.limit,
        since=args.since,
        until=args.until,
    )
    matches = _arena_call("ListMatches", request).matches
    for m in matches:
        print(_match_line(m))
    if not matches:
        print("no matches")
    return 0


def _show_match(args: argparse.Namespace) -> int:
    from arena.proto.truco.v1 import arena_pb2 as api

    if not args.id:
        print("arena match show: give the match id", file=sys.stderr)
        return 2
    reply = _arena_call("GetMatch", api.GetMatchRequest(id=args.id), organizer=True)
    if args.json:
        print(reply.record_json or "null")
        return 0
    print(_match_line(reply.match))
    if reply.record_json:
        record = json.loads(reply.record_json)
        for i, hand in enumerate(record["hands"]):
            acts = " ".join(
                f"{a['seat']}:{a.get('card', a['type'])}{'*' if a.get('covered') else ''}"
                for a in hand["actions"]
            )
            points = hand.get("result", {}).get("points", [0, 0])
            print(f"hand {i:2} vira {hand['vira'] or '-':3} {acts}  -> {points[0]}-{points[1]}")
    return 0


def cmd_bot_list(args: argparse.Namespace) -> int:
    from arena.proto.truco.v1 import arena_pb2 as api

    for bot in _arena_call("ListBots", api.ListBotsRequest()).bots:
        state = ("" if bot.active else " (inactive)") + (" connected" if bot.connected else "")
        print(f"{bot.name}{state}  owner={bot.owner or '-'}  since {bot.created_at[:10]}")
    return 0


def cmd_ratings(args: argparse.Namespace) -> int:
    from google.protobuf import json_format

    from arena.proto.truco.v1 import arena_pb2 as api

    reply = _arena_call("GetLeaderboard", api.GetLeaderboardRequest(pool=args.pool))
    if args.json:
        print(json_format.MessageToJson(reply, always_print_fields_with_no_presence=True))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table("rank", "bot", "Elo", "95%", "games", "W-L", "", title=reply.pool, box=None)
    for s in reply.standings:
        mark = "provisional" if s.provisional else ""
        interval = f"{s.low:.0f}-{s.high:.0f}" if s.high > s.low else "-"
        row = (str(s.rank), s.bot, f"{s.elo:.0f}", interval, str(s.games), f"{s.wins}-{s.losses}")
        table.add_row(*row, mark)
    Console().print(table if reply.standings else f"no rated games in {reply.pool} yet")
    return 0


def cmd_bot_run(args: argparse.Namespace) -> int:
    from arena.bots import house_bot
    from arena.sdk import BotError, run

    name = args.name.removeprefix("house:")
    try:
        settings = {} if args.budget_ms is None else {"budget_ms": args.budget_ms}
        if settings and name != "mc":
            raise ValueError("--budget-ms is a setting of house:mc only")
        bot = house_bot(name, seed=args.seed, **settings)
        run(
            bot, args.address, args.token, concurrency=args.concurrency, ca_file=args.ca_file,
            tls=args.tls,
        )  # fmt: skip
    except (ValueError, BotError) as e:
        print(f"arena bot run: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


# ---- tournaments and workers ---------------------------------------------------------------


def _tournament_parsers(sub: Any) -> None:
    t = sub.add_parser("tournament", help="tournaments: define, start, watch, show")
    t_sub = t.add_subparsers(metavar="ACTION")
    p = t_sub.add_parser("create", help="define a tournament (organizer)")
    p.add_argument("name")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--bots", help="the participants: BOT,BOT,...")
    who.add_argument("--pool", help="every active bot rated in this pool (PRESET/TEAM_SIZE)")
    p.add_argument("--rules", type=_rules, default=Rules(), help="PRESET[:param=value,...]")
    p.add_argument(
        "--format", default="round-robin", help="round-robin, double-round-robin or gauntlet"
    )
    p.add_argument("--challenger", help="gauntlet: the bot that meets every other")
    p.add_argument("--matches", type=MATCHES, default=2, help="per pairing, seats swapped (2)")
    p.add_argument(
        "--duplicate",
        action="store_true",
        help="each pair of matches on the same deals, seats exchanged (needs --trusted)",
    )
    p.add_argument(
        "--trusted",
        action="store_true",
        help="declare that no bot remembers one match in the next (house bots): only then "
        "may deals be duplicated or fixed by --seed",
    )
    p.add_argument("--decision-ms", type=DECISION_MS, default=1000)
    p.add_argument("--time-bank-ms", type=TIME_BANK_MS, default=10_000)
    p.add_argument(
        "--reconnect-grace-ms",
        type=GRACE_MS,
        default=60_000,
        help="how long a lost bot's seats are held before a house bot plays (60000)",
    )
    p.add_argument(
        "--seed", type=SEED, help="the same deals in every run (needs --trusted; default: new ones)"
    )
    p.add_argument("--schedule", help="cron, five fields, UTC: '0 3 * * *' is 03:00 daily")
    p.set_defaults(run=cmd_tournament_create)
    p = t_sub.add_parser("start", help="start a run now (organizer); prints its id")
    p.add_argument("tournament", help="name or id")
    p.add_argument("--watch", action="store_true", help="then watch it to the end")
    p.set_defaults(run=cmd_tournament_start)
    p = t_sub.add_parser("watch", help="follow a run with a progress bar, then show its table")
    p.add_argument("run_id", type=ROW_ID, metavar="RUN")
    p.set_defaults(run=cmd_tournament_watch)
    p = t_sub.add_parser("show", help="a run: progress, standings, crosstable")
    p.add_argument("run_id", type=ROW_ID, metavar="RUN")
    p.add_argument("--json", action="store_true", help="print the run as JSON")
    p.set_defaults(run=cmd_tournament_show)
    p = t_sub.add_parser("list", help="the tournaments and their last runs")
    p.set_defaults(run=cmd_tournament_list)


def cmd_tournament_create(args: argparse.Namespace) -> int:
    from arena.proto.truco.v1 import arena_pb2 as api

    definition = api.TournamentDefinition(
        name=args.name, rules=str(args.rules), bots=(args.bots or "").split(",") if args.bots
        else [], pool=args.pool or "", format=args.format, challenger=args.challenger or "",
        matches=args.matches, duplicate=args.duplicate, trusted=args.trusted,
        decision_ms=args.decision_ms, time_bank_ms=args.time_bank_ms,
        reconnect_grace_ms=args.reconnect_grace_ms, schedule=args.schedule or "",
    )  # fmt: skip
    if args.seed is not None:
        definition.seed = args.seed
    request = api.CreateTournamentRequest(definition=definition)
    t = _arena_call("CreateTournament", request, organizer=True)
    when = f"; next run {t.next_firing}" if t.next_firing else ""
    print(f"created tournament {t.definition.name} (id {t.id}){when}")
    return 0


def cmd_tournament_start(args: argparse.Namespace) -> int:
    from arena.proto.truco.v1 import arena_pb2 as api

    request = api.StartTournamentRequest(tournament=args.tournament)
    run = _arena_call("StartTournament", request, organizer=True)
    print(f"started run {run.id} of {run.tournament}")
    if args.watch:
        return _watch(run.id)
    return 0


def cmd_tournament_watch(args: argparse.Namespace) -> int:
    return _watch(args.run_id)


def _watch(run_id: int) -> int:
    import time

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from arena.proto.truco.v1 import arena_pb2 as api

    request = api.GetRunRequest(id=run_id)
    run = _arena_call("GetRun", request)
    columns = (
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"),
        TimeRemainingColumn(),
    )  # fmt: skip
    with Progress(*columns, transient=True) as progress:
        task = progress.add_task(f"run {run.id} {run.tournament}", total=None, rate="")
        while run.status in ("starting", "running"):
            done = run.finished + run.failed
            rate = _rate(run)
            progress.update(task, total=run.total or None, completed=done, rate=rate)
            time.sleep(0.5)  # polling the API: the progress lives in the database
            run = _arena_call("GetRun", request)
    _print_run(run)
    return 0 if run.status == "finished" else 1


def _rate(run: Any) -> str:
    from datetime import UTC, datetime

    if not run.first_started or not run.finished:
        return ""
    began = datetime.fromisoformat(run.first_started)
    seconds = (datetime.now(UTC) - began).total_seconds()
    return f"{run.finished / max(seconds, 1e-3):.1f} matches/s"


def cmd_tournament_show(args: argparse.Namespace) -> int:
    from google.protobuf import json_format

    from arena.proto.truco.v1 import arena_pb2 as api

    run = _arena_call("GetRun", api.GetRunRequest(id=args.run_id))
    if args.json:
        print(json_format.MessageToJson(run, preserving_proto_field_name=True))
        return 0
    _print_run(run)
    return 0


def _print_run(run: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    d = run.definition
    deals = ", duplicate deals" if d.duplicate else ""
    trust = ", bots declared trusted by the organizer" if d.trusted else ""
    kind = f"{d.format}, {d.matches} per pairing{deals}{trust}"
    console.print(f"run {run.id} of {run.tournament}: {run.status}, {d.rules}, {kind}")
    console.print(
        f"{run.finished} of {run.total} matches recorded"
        + (f", {run.failed} failed" if run.failed else "")
        + (f" ({run.error})" if run.error else "")
    )
    if not run.standings:
        return
    table = Table("rank", "bot", "pts", "W-L", "hand pts", "Elo", "95%", "LOS", "faults", box=None)
    for s in run.standings:
        elo = f"{s.elo:.0f}" if s.HasField("elo") else "-"
        interval = f"{s.elo_low:.0f}-{s.elo_high:.0f}" if s.HasField("elo_low") else "-"
        los = f"{s.los_next:.0%}" if s.HasField("los_next") else ""
        faults = " ".join(f"{k} {v}" for k, v in sorted(s.faults.items()) if v) or "-"
        table.add_row(
            str(s.rank), s.bot, str(s.points), f"{s.wins}-{s.losses}",
            f"{s.hand_points}-{s.hand_points_against}", elo, interval, los, faults,
        )  # fmt: skip
    console.print(table)
    names = [s.bot for s in run.standings]
    cells = {(c.bot, c.opponent): f"{c.wins}-{c.losses}" for c in run.crosstable}
    cross = Table("", *names, title="crosstable (row's wins-losses)", box=None)
    for a in names:
        cross.add_row(a, *(cells.get((a, b), "") for b in names))
    console.print(cross)


def cmd_tournament_list(args: argparse.Namespace) -> int:
    from arena.proto.truco.v1 import arena_pb2 as api

    tournaments = _arena_call("ListTournaments", api.ListTournamentsRequest()).tournaments
    for t in tournaments:
        d = t.definition
        who = ",".join(d.bots) or f"pool {d.pool}"
        last = f"last run {t.last_run} {t.last_status}" if t.last_run else "never run"
        when = f"  schedule '{d.schedule}' next {t.next_firing[:16]}" if d.schedule else ""
        print(f"{t.id:4}  {d.name}  {d.rules}  {d.format}  {who}  {t.runs} runs, {last}{when}")
    if not tournaments:
        print("no tournaments")
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from arena.settings import Settings
    from workers.app import configure

    app = configure(Settings.from_env())
    argv = ["worker", "--pool", "threads", "--concurrency", str(args.concurrency)]
    app.worker_main([*argv, "--loglevel", args.loglevel, "--without-gossip", "--without-mingle"])
    return 0


def cmd_stop_embedded(args: argparse.Namespace) -> int:
    from arena.settings import Settings, stop_embedded_postgres, stop_embedded_redis

    home = Settings.from_env().home
    stopped = stop_embedded_postgres(home)
    print(f"embedded PostgreSQL in {home / 'pgdata'}: {'stopped' if stopped else 'not running'}")
    print(f"embedded Redis: {'stopped' if stop_embedded_redis(home) else 'not running'}")
    return 0


def cmd_beat(args: argparse.Namespace) -> int:
    from arena.settings import Settings
    from workers.app import configure

    app = configure(Settings.from_env())
    app.start(["beat", "--loglevel", args.loglevel])
    return 0


def _hand_line(match: Match, i: int) -> str:
    hand = match.hands[i]
    vira = f"vira {hand.vira}" if hand.vira else "no vira"
    acts = " ".join(
        f"{s}:{a.card}{'*' if a.covered else ''}" if a.card else f"{s}:{a.type}"
        for s, a in hand.actions
    )
    assert hand.result is not None
    points = hand.result.points
    return f"hand {i:2} dealer {hand.dealer} {vira:8} {acts:<44} -> {points[0]}-{points[1]}"


if __name__ == "__main__":
    sys.exit(main())

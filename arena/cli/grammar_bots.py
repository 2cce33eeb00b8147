"""The grammar of a bot's commands (``arena bot ...``): register, a new token, list, run a
house bot, submit hosted code, its versions, its logs, its ladder switch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.cli import accounts, events, hosting, humans, ladder, organizer, reader, servers
from arena.cli.common import CONCURRENCY, DECISION_MS, RUN_HELP, SEED, run_ref
from arena.domain.versions import RUNTIMES

if TYPE_CHECKING:
    from arena.cli.common import Commands


def bots(sub: Commands) -> None:
    group = sub.add_parser("bot", help="bots")
    actions = group.add_subparsers(metavar="ACTION")
    p = actions.add_parser("register", help="register a bot (organizer); prints its token once")
    p.add_argument("name")
    p.add_argument("--owner", default="")
    p.set_defaults(run=organizer.cmd_bot_register)
    p = actions.add_parser(
        "token",
        help="a new token for a bot (organizer); prints it once, the old one refused at once",
        description="Rotate a bot's token: the new one is printed once and never kept; the "
        "old one is refused from now on, and a session it opened ends. An organizer's call "
        "(ARENA_ORGANIZER_TOKEN, else the first organizer's).",
    )
    p.add_argument("name")
    p.set_defaults(run=accounts.cmd_bot_token)
    p = actions.add_parser("list", help="the registered bots")
    p.set_defaults(run=reader.cmd_bot_list)
    p = actions.add_parser(
        "withdraw",
        help="withdraw a bot (organizer): its matches not started are never played",
        description="Withdraw a bot from every run not over (or from one, --from-run): its "
        "matches there not started are cancelled and count for nobody; those it played "
        "stand. Without --from-run it plays no more until reinstated (docs/events.md).",
    )
    p.add_argument("name")
    p.add_argument(
        "--from-run", type=run_ref, metavar="RUN", help=f"from this run only ({RUN_HELP})"
    )
    p.add_argument("--reason", default="", help="why: shown with the bot")
    p.set_defaults(run=events.cmd_bot_state, state="withdrawn")
    p = actions.add_parser(
        "disqualify",
        help="disqualify a bot (organizer): its matches in the runs not over count for nothing",
        description="Disqualify a bot: its matches in every run not over (or in --run, "
        "finished or not) are voided: they count for no table and no rating, which are "
        "counted and fitted again. It plays no more until reinstated (docs/events.md).",
    )
    p.add_argument("name")
    p.add_argument("--reason", required=True, help="why: shown with the bot and its matches")
    p.add_argument(
        "--run", dest="in_run", type=run_ref, metavar="RUN", help=f"in this run only ({RUN_HELP})"
    )
    p.set_defaults(run=events.cmd_bot_state, state="disqualified")
    p = actions.add_parser("reinstate", help="a withdrawn, disqualified or retired bot plays again")
    p.add_argument("name")
    p.set_defaults(run=events.cmd_bot_state, state="active")
    p = actions.add_parser(
        "retire", help="retire a bot (organizer): it plays no more; leaderboards hide it"
    )
    p.add_argument("name")
    p.add_argument("--reason", default="", help="why: shown with the bot")
    p.set_defaults(run=events.cmd_bot_state, state="retired")
    p = actions.add_parser(
        "run",
        help="run a house bot, connecting to $ARENA_ADDRESS",
        description="Run a house bot against a referee until stopped. An arena of several "
        "referees (arena serve nodes on one database): give each node's address, and the "
        "bot connects to the first that answers and moves to the next when its own goes "
        "away (docs/protocol.md section 2). It prints a line on standard error, with the "
        "time, when it connects (to which node, as which bot), when its connection ends "
        "or is lost (and when it tries again, or which node it moves to) and when it "
        "reconnects.",
    )
    p.add_argument("name", help="house:random, house:heuristic or house:mc")
    p.add_argument(
        "--address",
        action="append",
        metavar="ADDRESS",
        help="the referee, HOST:PORT (default $ARENA_ADDRESS, which takes the same "
        "forms); several nodes: repeat the option or separate addresses with commas. Any "
        "gRPC target works: dns:///NAME:PORT (every address of the name), "
        "ipv4:A:PORT,B:PORT (one target, commas and all)",
    )
    p.add_argument("--token", help="the bot's token (default $ARENA_TOKEN)")
    p.add_argument("--ca-file", help="TLS, trusting this CA certificate ($ARENA_CA_FILE)")
    p.add_argument(
        "--tls", action="store_true", default=None, help="TLS with the system's roots ($ARENA_TLS)"
    )
    p.add_argument("--concurrency", type=CONCURRENCY, default=16, help="matches at once (16)")
    p.add_argument("--seed", type=SEED, help="seed the bot's random choices")
    p.add_argument("--budget-ms", type=DECISION_MS, help="mc only: thinking time a decision (30)")
    p.set_defaults(run=servers.cmd_bot_run)
    p = actions.add_parser(
        "submit",
        help="submit a bot's code: the arena runs it (docs/hosting.md)",
        description="Submit a new version of a hosted bot: its folder or one file of code "
        "(packed here), or a .tar.gz, .tgz, .tar or .zip of its folder. With the bot's own "
        "token ($ARENA_TOKEN or --token), or else the organizer's. Then waits for the "
        "workers' check and prints how it ended. Files submitted before are the version "
        "they were, which is then made active (unless --candidate). Exit status 0 when the "
        "version is active (with --candidate: checked and not rejected; with --no-wait: "
        "stored), 1 when it is rejected or was not made active, 3 when the check has not "
        "ended within --wait-s.",
    )
    p.add_argument("name", help="the registered bot")
    p.add_argument("path", help="the bot's folder, one file of code, or an archive")
    p.add_argument(
        "--runtime",
        choices=RUNTIMES,
        help="default: by the entry's extension (.py, .js), else exec",
    )
    p.add_argument("--entry", help="the command that starts it, in its folder (bot.py, index.js)")
    p.add_argument("--token", help="the bot's token (default $ARENA_TOKEN)")
    p.add_argument(
        "--candidate",
        action="store_true",
        help="once checked, not active: it plays tests and challenges that name it (NAME@N) "
        "until `arena bot activate`",
    )
    p.add_argument("--no-wait", action="store_true", help="return once stored, not once checked")
    p.add_argument(
        "--wait-s", type=float, default=600.0, help="how long to wait for the check (600)"
    )
    p.set_defaults(run=hosting.cmd_bot_submit)
    p = actions.add_parser("versions", help="a hosted bot's versions")
    p.add_argument("name")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=hosting.cmd_bot_versions)
    p = actions.add_parser(
        "activate",
        help="make a version its bot's active one (its own token, or the organizer's)",
        description="Make version NAME@N the one its bot plays as (tournaments, the ladder, "
        "challenges by the bot's name); the version active before is retired. Any version "
        "checked and not rejected: a candidate, or one retired. Prints 'NAME@N: active "
        "(NAME@M retired)'. Exit status 0 when it is active, 1 when refused (no such "
        "version, still checking, rejected).",
    )
    p.add_argument("version", help="the version, NAME@N (arena bot versions NAME lists them)")
    p.add_argument("--token", help="the bot's token (default $ARENA_TOKEN; else the organizer's)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=hosting.cmd_bot_activate)
    p = actions.add_parser(
        "logs",
        help="what a hosted bot's processes printed in a match (its owner, or the organizer)",
    )
    p.add_argument("name", help="the bot (all its versions), or one version NAME@N")
    p.add_argument("match_id")
    p.add_argument("--token", help="the bot's token (default $ARENA_TOKEN; else the organizer's)")
    p.set_defaults(run=hosting.cmd_bot_logs)
    p = actions.add_parser(
        "ladder",
        help="opt a bot in to ladders or out of them (its own token, or the organizer's)",
        description="Whether ladders may schedule the bot (docs/ladder.md): one pool's "
        "(--pool), or every pool's, which replaces its choices for single pools. A bot that "
        "dials in plays on them once opted in, while it is connected; a hosted bot, which "
        "the arena starts for each match, unless it opted out. Prints what it chose and "
        "what that means for this bot (--json: the bot, with ladder and ladder_pools).",
    )
    p.add_argument("name")
    p.add_argument("switch", choices=("on", "off"))
    p.add_argument("--pool", help="one pool's ladder, PRESET/TEAM_SIZE (default: every pool's)")
    p.add_argument("--token", help="the bot's token (default $ARENA_TOKEN; else the organizer's)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=ladder.cmd_bot_ladder)
    p = actions.add_parser(
        "humans",
        help="let people challenge a bot from the web pages, or not (its own token, or the "
        "organizer's)",
        description="Whether people may play the bot in the browser, one a side (docs/web.md, "
        "playing a bot yourself); off until its owner turns it on. Its owner may always "
        "play it.",
    )
    p.add_argument("name")
    p.add_argument("switch", choices=("on", "off"))
    p.add_argument("--token", help="the bot's token (default $ARENA_TOKEN; else the organizer's)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=humans.cmd_bot_humans)

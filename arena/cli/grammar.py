"""Every command of ``arena`` and its arguments: the parser, and here the grammar of the
engine's commands, local matches, reading, tournaments, ladders and tests; a bot's
commands are in :mod:`arena.cli.grammar_bots`, the processes' in
:mod:`arena.cli.grammar_processes`, the list of matches in
:mod:`arena.cli.grammar_reading`, the exports' in :mod:`arena.cli.grammar_exports`. Each
command runs a ``cmd_*`` function of the module that holds its concern."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from arena.cli import analyse, audit, engine, events, ladder, match, organizer, reader, testing
from arena.cli.common import (
    MATCHES,
    RUN_HELP,
    SEED,
    Parser,
    clock_options,
    count,
    duration,
    rules,
    run_ref,
    sprt_options,
)
from arena.cli.grammar_accounts import organizers
from arena.cli.grammar_bots import bots
from arena.cli.grammar_exports import export_commands
from arena.cli.grammar_processes import processes
from arena.cli.grammar_reading import matches
from arena.domain.absence import DEFAULT_POLICY, POLICIES
from arena.domain.analyses import DEFAULT_SAMPLES, MAX_SAMPLES
from arena.domain.matchmaking import CONCURRENCY as LADDER_CONCURRENCY
from arena.domain.matchmaking import MAX_CONCURRENCY
from arena.domain.pools import DEFAULT_POOL
from arena.domain.standings import TIEBREAKS
from arena.domain.tournament import FORMATS
from arena.engine import Rules

if TYPE_CHECKING:
    from arena.cli.common import Commands


def parser() -> argparse.ArgumentParser:
    top = Parser(prog="arena", description="Truco Arena")
    sub = top.add_subparsers(metavar="COMMAND", dest="command")
    _engine(sub)
    _local(sub)
    _reading(sub)
    bots(sub)
    _tournaments(sub)
    _runs(sub)
    _ladders(sub)
    _tests(sub)
    _analyse(sub)
    _audit(sub)
    export_commands(sub)
    processes(sub)
    organizers(sub)
    return top


def _engine(sub: Commands) -> None:
    p = sub.add_parser("replay", help="replay a match record, checking every action")
    p.add_argument("file", help="the record (JSON), or - for standard input")
    p.set_defaults(run=engine.cmd_replay)

    group = sub.add_parser("rules", help="the rule presets and their parameters")
    actions = group.add_subparsers(metavar="ACTION")
    p = actions.add_parser("list", help="the presets, one line each")
    p.set_defaults(run=engine.cmd_rules_list)
    p = actions.add_parser("show", help="every parameter of a preset, and where it comes from")
    p.add_argument(
        "rules", type=rules, help="a preset, optionally with overrides: paulista:team_size=2"
    )
    p.add_argument("--json", action="store_true", help="print the parameters as JSON")
    p.set_defaults(run=engine.cmd_rules_show)

    p = sub.add_parser("play", help="play and print a seeded match between two random players")
    p.add_argument("--rules", type=rules, default=Rules(), help="PRESET[:param=value,...]")
    p.add_argument("--seed", type=SEED, default=2026)
    p.add_argument("--record", metavar="FILE", help="also write the match record here")
    p.set_defaults(run=engine.cmd_play)


def _local(sub: Commands) -> None:
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
    p.add_argument(
        "show",
        nargs="?",
        choices=["show"],
        help="print a recorded match instead: its line, then each hand's actions (--json: "
        "its record); with a bot's token in $ARENA_TOKEN as that bot's owner sees it (its "
        "own cards too), else as the organizer if this machine has the token, else as anyone",
    )
    p.add_argument("id", nargs="?", help="with show: the match id")
    p.add_argument("--rules", type=rules, default=Rules(), help="PRESET[:param=value,...]")
    p.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="CMD",
        help="house:NAME or a shell command; one per team, or one per seat",
    )
    p.add_argument(
        "--games",
        type=count(1, 100_000),
        help="matches to play (default 2; with --sprt, the most to play: default 20000)",
    )
    sprt_options(
        p,
        "play pairs until a sequential test decides whether the first --bot is stronger "
        "than the second by elo1 (H1) or not by elo0 (H0): exit 0 for H1, 1 for H0, 2 when "
        "--games ran out undecided (docs/testing.md)",
    )
    p.add_argument("--seed", type=SEED, default=1)
    clock_options(p)
    p.add_argument("--records", metavar="DIR", help="write every match record here")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(run=match.cmd_match)


def _reading(sub: Commands) -> None:
    matches(sub)

    p = sub.add_parser("ratings", help="the leaderboard of a pool")
    p.add_argument(
        "--pool", default=DEFAULT_POOL, help=f"PRESET/TEAM_SIZE (default {DEFAULT_POOL})"
    )
    p.add_argument("--json", action="store_true", help="print the standings as JSON")
    p.add_argument("--retired", action="store_true", help="list retired bots too")
    p.set_defaults(run=reader.cmd_ratings)

    p = sub.add_parser(
        "challenge",
        help="rated matches between connected bots, played by the workers (organizer); "
        "prints their ids, and with --wait each result",
        description="Rated matches between registered bots connected now, played by the "
        "workers (arena worker) through the referee and recorded. Prints the ids of the "
        "matches asked for; with --wait, each match's line (as `arena matches` prints it) "
        "as it ends. The ratings take them in at the pool's next fit: `arena ratings "
        "--pool POOL` shows them, `arena bot show BOT` a bot's history. "
        "Every match is dealt its own secret cards: bots that dial in may remember what "
        "they saw, so no two matches share deals.",
    )
    p.add_argument("bots", nargs="+", metavar="BOT", help="two bots, or one per seat")
    p.add_argument("--rules", default="paulista", help="PRESET[:param=value,...]")
    p.add_argument(
        "--games", type=MATCHES, default=2, help="matches (default 2, seats swapped each time)"
    )
    clock_options(p)
    p.add_argument("--wait", action="store_true", help="wait for the results")
    p.set_defaults(run=organizer.cmd_challenge)


def _tests(sub: Commands) -> None:
    p = sub.add_parser(
        "test",
        help="is NEW stronger than BASE? a sequential test played by the workers",
        description="Start a sequential test on the arena (docs/testing.md): the workers "
        "play pairs of matches, unrated unless --rated, until it accepts H1 (NEW is "
        "stronger by elo1: exit 0) or H0 (not by elo0: exit 1), or --games run out (exit "
        "2). With NEW's own token ($ARENA_TOKEN or --token), or the organizer's.",
    )
    p.add_argument("new", help="the bot (a hosted one plays as its active version), or NAME@N")
    p.add_argument("base", help="the bot it is compared with, or NAME@N")
    sprt_options(p, "the test's bounds, in logistic Elo of NEW over BASE", required=True)
    p.add_argument("--games", type=count(2, 10_000), help="the most matches (default 2000)")
    p.add_argument("--rules", type=rules, default=Rules(), help="PRESET[:param=value,...]")
    p.add_argument("--rated", action="store_true", help="its matches move the ratings")
    clock_options(p)
    p.add_argument("--token", help="NEW's bot's token (default $ARENA_TOKEN; else the organizer's)")
    p.add_argument("--no-wait", action="store_true", help="return once started")
    p.set_defaults(run=testing.cmd_test)


def _analyse(sub: Commands) -> None:
    p = sub.add_parser(
        "analyse",
        help="every decision of a finished match valued by the house mc bot (docs/web.md)",
        description="Ask the arena's workers to analyse a finished match (docs/web.md, "
        '"The analysis of a match"): each decision of a seat valued from what that seat '
        "saw, and the points the action taken lost against the best. With a bot's token "
        "($ARENA_TOKEN or --token) its own seats, else the organizer's: every seat.",
    )
    p.add_argument("match", help="the match's id")
    p.add_argument(
        "--samples",
        type=count(1, MAX_SAMPLES),
        help=f"drawn states per decision (default {DEFAULT_SAMPLES}): the budget",
    )
    p.add_argument("--token", help="a bot's token (default $ARENA_TOKEN; else the organizer's)")
    p.add_argument("--no-wait", action="store_true", help="return once asked")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=analyse.cmd_analyse)


def _ladders(sub: Commands) -> None:
    p = sub.add_parser(
        "ladder",
        help="a pool's ladder: rated matches the arena starts by itself (docs/ladder.md)",
        description="Switch a pool's ladder on or off (organizer), setting how many matches "
        "it keeps going and their clocks; options left out stay as they were. show prints "
        "the ladder and the pool's leaderboard.",
    )
    p.add_argument("switch", choices=("on", "off", "show"))
    p.add_argument("pool", nargs="?", default=DEFAULT_POOL, help=f"default {DEFAULT_POOL}")
    p.add_argument(
        "--concurrency",
        type=count(1, MAX_CONCURRENCY),
        help=f"matches at once (unchanged if left out; first {LADDER_CONCURRENCY})",
    )
    clock_options(p, keep=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=ladder.cmd_ladder)


def tiebreaks(text: str) -> list[str]:
    """An argparse type: tiebreaks separated by commas, each a known one."""
    from arena.domain.standings import parse_tiebreaks
    from arena.errors import Invalid

    try:
        return list(parse_tiebreaks(text.split(",")))
    except Invalid as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _definition_options(p: argparse.ArgumentParser, *, edit: bool = False) -> None:
    """The options of a tournament's definition: for ``create`` with their defaults, for
    ``edit`` each left out unchanged."""

    def default(value: object) -> object:
        return argparse.SUPPRESS if edit else value

    p.add_argument("name", help="name or id" if edit else "1 to 64 letters, digits, '.', '_', '-'")
    who = p.add_mutually_exclusive_group(required=not edit)
    who.add_argument("--bots", default=default(None), help="the participants: BOT,BOT,...")
    who.add_argument(
        "--pool",
        default=default(None),
        help="every active bot rated in this pool (PRESET/TEAM_SIZE)",
    )
    who.add_argument(
        "--seed-from",
        default=default(None),
        metavar="RUN",
        help="a later stage: the final table of run RUN (an id), or of the latest finished "
        "run of the tournament named RUN, seeded in its order (docs/formats.md)",
    )
    p.add_argument("--rules", type=rules, default=default(Rules()), help="PRESET[:param=value,...]")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default=default("round-robin"),
        help="round-robin (default), double-round-robin, gauntlet, groups, knockout or swiss",
    )
    p.add_argument(
        "--groups", type=count(2, 64), default=default(None), help="groups: how many (snake seeded)"
    )
    p.add_argument(
        "--rounds",
        type=count(1, 64),
        default=default(None),
        help="swiss: how many rounds (default: log2 of the field, rounded up)",
    )
    p.add_argument(
        "--tiebreaks",
        type=tiebreaks,
        default=default(None),
        metavar="T,T,...",
        help="the order of tiebreaks after match points, from " + ", ".join(TIEBREAKS)
        + " (default: the format's own; docs/formats.md)",
    )  # fmt: skip
    p.add_argument(
        "--top",
        type=count(2, 1024),
        default=default(None),
        help="only the best TOP of the field by its seeding (its rating, or --seed-from's table)",
    )
    p.add_argument(
        "--challenger", default=default(None), help="gauntlet: the bot that meets every other"
    )
    p.add_argument(
        "--matches", type=MATCHES, default=default(2), help="per pairing, seats swapped (2)"
    )
    flag = argparse.BooleanOptionalAction
    p.add_argument(
        "--duplicate",
        action=flag,
        default=default(False),
        help="each pair of matches on the same deals, seats exchanged (needs every bot "
        "hosted, or --trusted; bots that are all hosted get them anyway)",
    )
    p.add_argument(
        "--trusted",
        action=flag,
        default=default(False),
        help="declare that no bot remembers one match in the next (house bots): only then "
        "may dial-in bots get duplicate deals, or any run deals fixed by --seed",
    )
    p.add_argument(
        "--unrated",
        dest="rated",
        action="store_false",
        default=default(True),
        help="a casual or practice event: its matches are recorded and tabled but move no rating",
    )
    if edit:
        p.add_argument(
            "--rated", dest="rated", action="store_true", default=default(True),
            help="its matches move ratings again (undoes --unrated)",
        )  # fmt: skip
    p.add_argument(
        "--absent",
        choices=POLICIES,
        default=default(DEFAULT_POLICY),
        help="a bot away for more than half its decisions: its team loses the match "
        "(forfeit, the default), or the score stands (play-on, for casual events)",
    )
    clock_options(p, keep=edit)
    p.add_argument(
        "--seed",
        type=SEED,
        default=default(None),
        help="the same deals in every run (needs --trusted; default: new ones)",
    )
    p.add_argument(
        "--schedule",
        default=default(None),
        help="cron, five fields, UTC: '0 3 * * *' is 03:00 daily"
        + ("; '' for none" if edit else ""),
    )
    p.add_argument(
        "--entries-close",
        dest="entries_close_s",
        type=duration,
        default=default(None),
        metavar="DURATION",
        help="entries close this long before each run (30m, 2h, 1d): a run plays the hosted "
        "versions active then, and later ones play in the next run (default: those active "
        "when it starts)",
    )
    p.add_argument(
        "--live-delay-s",
        dest="live_delay_s",
        type=duration,
        default=default(None),
        metavar="SECONDS",
        help="its matches' live views lag this many seconds behind play (or 5m; at most 1h; "
        "default: 0, none)",
    )


def _tournaments(sub: Commands) -> None:
    group = sub.add_parser("tournament", help="tournaments: define, start, watch, show")
    actions = group.add_subparsers(metavar="ACTION")
    p = actions.add_parser("create", help="define a tournament (organizer)")
    _definition_options(p)
    p.set_defaults(run=organizer.cmd_tournament_create)
    p = actions.add_parser(
        "edit",
        help="change a tournament for its runs to come (organizer)",
        description="Change any option of a tournament's definition; those left out stay as "
        "they are. The runs made from now on play it; a run keeps the definition it was "
        "made with. A changed --schedule fires from now on.",
    )
    _definition_options(p, edit=True)
    p.set_defaults(run=events.cmd_tournament_edit)
    p = actions.add_parser(
        "unschedule", help="stop a tournament's schedule: it runs when started by hand only"
    )
    p.add_argument("name", help="name or id")
    p.set_defaults(run=events.cmd_tournament_unschedule)
    p = actions.add_parser(
        "delete",
        help="delete a tournament (organizer); its runs and their records stay",
        description="Delete a tournament: it fires no more and its name is free again. Its "
        "runs and their records stay. Refused while one of its runs is not over (cancel it "
        "first: arena run cancel ID).",
    )
    p.add_argument("name", help="name or id")
    p.set_defaults(run=events.cmd_tournament_delete)
    p = actions.add_parser("start", help="start a run now (organizer); prints its id")
    p.add_argument("tournament", help="name or id")
    p.add_argument(
        "--seed-from",
        metavar="RUN",
        help="this run alone: its field from run RUN's final table (an id, or a tournament's "
        "name: its latest finished run), in its order",
    )
    p.add_argument("--top", type=count(2, 1024), help="this run alone: only its best TOP")
    p.add_argument("--watch", action="store_true", help="then watch it to the end")
    p.set_defaults(run=organizer.cmd_tournament_start)
    p = actions.add_parser("watch", help="follow a run with a progress bar, then show its table")
    p.add_argument("run_id", type=run_ref, metavar="RUN", help=RUN_HELP)
    p.set_defaults(run=reader.cmd_tournament_watch)
    p = actions.add_parser("show", help="a run: progress, standings, crosstable")
    p.add_argument("run_id", type=run_ref, metavar="RUN", help=RUN_HELP)
    p.add_argument("--json", action="store_true", help="print the run as JSON")
    p.set_defaults(run=reader.cmd_tournament_show)
    p = actions.add_parser("list", help="the tournaments and their last runs")
    p.set_defaults(run=reader.cmd_tournament_list)


def _runs(sub: Commands) -> None:
    group = sub.add_parser(
        "run", help="a tournament's run: show, watch, pause, resume, cancel, void or replay a match"
    )
    actions = group.add_subparsers(metavar="ACTION")
    p = actions.add_parser("show", help="a run: progress, standings, crosstable")
    p.add_argument("run_id", type=run_ref, metavar="RUN", help=RUN_HELP)
    p.add_argument("--json", action="store_true", help="print the run as JSON")
    p.set_defaults(run=reader.cmd_tournament_show)
    p = actions.add_parser("watch", help="follow a run with a progress bar, then show its table")
    p.add_argument("run_id", type=run_ref, metavar="RUN", help=RUN_HELP)
    p.set_defaults(run=reader.cmd_tournament_watch)
    for name, text in (
        ("pause", "pause a running run: no match of it starts until resumed (organizer)"),
        ("resume", "resume a paused run (organizer)"),
        ("cancel", "cancel a run: matches not started are never played, those playing end "
         "and are recorded, and it ends as cancelled with the table of what was played "
         "(organizer)"),
    ):  # fmt: skip
        p = actions.add_parser(name, help=text)
        p.add_argument("run_id", type=run_ref, metavar="RUN", help=RUN_HELP)
        if name == "cancel":
            p.add_argument("--reason", default="", help="why, for the action log")
        p.set_defaults(run=events.cmd_run_control, action=name)
    p = actions.add_parser(
        "void",
        help="void a finished match of a run: it counts for no table and no rating (organizer)",
    )
    p.add_argument("run_id", type=run_ref, metavar="RUN", help=RUN_HELP)
    p.add_argument("match_id", metavar="MATCH")
    p.add_argument("--reason", required=True, help="why: shown on the run's pages")
    p.set_defaults(run=events.cmd_run_void)
    p = actions.add_parser(
        "replay-match",
        help="play a failed (or finished) match of a run again; its new result counts (organizer)",
        description="Play a failed or finished match of a run again, as a new match of the "
        "run with the same seats; a finished one is voided first. Its deals are the same "
        "only where no bot can remember them (every bot hosted, or declared trusted), "
        "otherwise new secret ones. A finished run opens again until it is recorded.",
    )
    p.add_argument("run_id", type=run_ref, metavar="RUN", help=RUN_HELP)
    p.add_argument("match_id", metavar="MATCH")
    p.add_argument("--reason", required=True, help="why: shown on the run's pages")
    p.set_defaults(run=events.cmd_run_replay)


def _audit(sub: Commands) -> None:
    p = sub.add_parser(
        "audit",
        help="check that nothing was lost or counted twice (organizer); exit 1 on a finding",
        description="Check from the database alone (docs/events.md, The audit) that every "
        "finished match is counted once in every kept count, every rating change was "
        "applied once, every run has all its planned matches and none is stuck; print the "
        "tally of what was looked at and each finding. Exit 0 when clean, 1 on any finding. "
        "Read-only: nothing is recounted or repaired.",
    )
    p.add_argument(
        "--run", type=run_ref, metavar="RUN", dest="run_id",
        help="only this run (its id, or a tournament's name: its latest run): its matches, "
        "its total, its standings, its pools' counts",
    )  # fmt: skip
    p.add_argument("--json", action="store_true", help="print the audit as one JSON object")
    p.set_defaults(run=audit.cmd_audit)

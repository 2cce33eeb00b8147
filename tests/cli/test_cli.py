"""The ``arena`` command as a user runs it: a real process, real files, exit codes."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import random
import select
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.service import free_address, wait_serving
from arena.usecases.matches import request as request_match

# Dealer 1, so seat 0 leads. Vira 4D: the 5s are manilhas.
RECORD: dict[str, Any] = {
    "format": "truco-match/1",
    "rules": {"preset": "paulista", "team_size": 1},
    "seats": ["alpha", "beta"],
    "hands": [
        {
            "dealer": 1,
            "vira": "4D",
            "cards": [["5C", "3D", "QS"], ["7H", "AS", "2D"]],
            "actions": [
                {"seat": 0, "type": "raise"},
                {"seat": 1, "type": "accept"},
                {"seat": 0, "type": "play", "card": "5C"},
                {"seat": 1, "type": "play", "card": "7H"},
                {"seat": 0, "type": "play", "card": "3D"},
                {"seat": 1, "type": "play", "card": "2D", "covered": True},
            ],
            "result": {"points": [3, 0]},
        }
    ],
    "result": {"score": [3, 0], "winner": None},
}


# what a process stopping cleanly never prints (grpc's lines when a handler is cancelled)
UNCLEAN = ("Traceback", "CancelledError", "Exception not handled")


def arena(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_replay_prints_the_recomputed_record_and_who_acts_next(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    path.write_text(json.dumps(RECORD))
    done = arena("replay", str(path))
    assert (done.returncode, done.stderr) == (0, "")
    out = json.loads(done.stdout)
    assert out["hands"][0]["result"] == {"points": [3, 0], "score": [3, 0]}
    assert out["result"] == {"score": [3, 0], "winner": None}
    # the hand is over and the match is not: the next step is a deal by seat 0
    assert out["next"] == {"deal": True, "dealer": 0}


def test_replay_reads_standard_input_and_lists_every_legal_action() -> None:
    record = json.loads(json.dumps(RECORD))
    hand = record["hands"][0]
    hand["actions"] = hand["actions"][:2]  # truco asked and accepted, no card yet
    del hand["result"]
    del record["result"]
    done = arena("replay", "-", stdin=json.dumps(record))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    # seat 0 raised, so it cannot raise again; round 1 forbids covered cards;
    # plays come by plain rank, then suit
    assert out["next"] == {
        "seat": 0,
        "legal": [
            {"type": "play", "card": "5C"},
            {"type": "play", "card": "QS"},
            {"type": "play", "card": "3D"},
            {"type": "fold"},
        ],
    }
    assert "result" not in out["hands"][0]


def test_an_illegal_action_is_one_line_naming_hand_and_action() -> None:
    record = json.loads(json.dumps(RECORD))
    actions = record["hands"][0]["actions"]
    actions[4] = {"seat": 0, "type": "raise"}  # seat 0 won round 1 and leads round 2
    done = arena("replay", "-", stdin=json.dumps(record))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == "hand 0, action 4: seat 0 cannot raise over its own request\n"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["hands"][0]["actions"].__setitem__(2, {"seat": 0, "type": "dance"}),
         "hand 0, action 2: unknown action type 'dance'"),
        (lambda r: r["hands"][0]["actions"].__setitem__(2, {"seat": 0, "type": "play",
                                                            "card": "7H"}),
         "hand 0, action 2: seat 0 does not hold 7H"),
        (lambda r: r["hands"][0]["cards"][1].__setitem__(0, "5C"),
         "hand 0: a card is dealt twice: 5C"),
        (lambda r: r["hands"][0].__setitem__("vira", "8D"),
         "hand 0: 8D is not in deck std40"),
        (lambda r: r.__setitem__("rules", "mineiro"),
         "unknown preset 'mineiro'"),
        (lambda r: r.__setitem__("seats", ["a", "b", "c"]),
         "needs 2 seats, not 3"),
    ],
)  # fmt: skip
def test_malformed_records_are_refused_with_a_reason(change: Any, message: str) -> None:
    record = json.loads(json.dumps(RECORD))
    change(record)
    done = arena("replay", "-", stdin=json.dumps(record))
    assert (done.returncode, done.stdout) == (1, "")
    assert message in done.stderr and done.stderr.count("\n") == 1


def test_results_that_disagree_with_the_replay_are_reported() -> None:
    record = json.loads(json.dumps(RECORD))
    record["hands"][0]["result"]["points"] = [1, 0]
    record["result"]["score"] = [1, 0]
    done = arena("replay", "-", stdin=json.dumps(record))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        "hand 0: the record gives points [1, 0], the replay gives [3, 0]",
        "result: the record gives score [1, 0], the replay gives [3, 0]",
    ]


def test_not_json_and_missing_files_fail_cleanly(tmp_path: Path) -> None:
    assert arena("replay", "-", stdin="{nope").returncode == 1
    missing = arena("replay", str(tmp_path / "absent.json"))
    assert missing.returncode == 1 and "cannot read" in missing.stderr


def test_rules_list_names_every_preset() -> None:
    done = arena("rules", "list")
    assert done.returncode == 0
    for name in ("paulista", "inteligente", "solver", "tradicional", "megajogos"):
        assert name in done.stdout


def test_rules_show_gives_every_parameter_and_its_origin() -> None:
    done = arena("rules", "show", "megajogos", "--json")
    assert done.returncode == 0
    params = json.loads(done.stdout)
    assert params["preset"] == "megajogos" and params["special_raise"] == "forfeit_match"
    table = arena("rules", "show", "tradicional:deck=short24")
    assert table.returncode == 0
    assert "override" in table.stdout and "chosen" in table.stdout
    bad = arena("rules", "show", "paulista:team_size=9")
    assert bad.returncode == 2 and "team_size must be 1 to 4" in bad.stderr


def test_play_plays_a_whole_match_and_writes_a_record_that_replays(tmp_path: Path) -> None:
    path = tmp_path / "play.json"
    done = arena("play", "--seed", "5", "--record", str(path))
    assert done.returncode == 0, done.stderr
    assert "winner: team" in done.stdout
    again = arena("replay", str(path))
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["result"]["winner"] in (0, 1)


@pytest.mark.parametrize("rules", ["paulista", "inteligente", "solver", "tradicional", "megajogos"])
def test_arena_match_plays_every_preset_with_house_bots(tmp_path: Path, rules: str) -> None:
    done = arena(
        "match",
        "--rules",
        rules,
        "--bot",
        "house:random",
        "--bot",
        "house:heuristic",
        "--games",
        "2",
        "--records",
        str(tmp_path),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["games"] == 2 and summary["bots"] == ["random", "heuristic"]
    assert sum(summary["wins"].values()) == 2
    elo, (low, high) = summary["elo_diff"], summary["elo_ci95"]
    if elo is None:  # a clean sweep: one bound, the other end open
        assert (low is None) != (high is None)
    else:
        assert low <= elo <= high
    assert set(summary["faults"]) == {"random", "heuristic"}
    for faults in summary["faults"].values():
        assert set(faults) == {"timeouts", "rejected", "disconnects", "substituted", "errors"}
    records = sorted(tmp_path.glob("*.json"))
    assert len(records) == 2
    for path in records:
        assert arena("replay", str(path)).returncode == 0


def test_arena_match_with_the_example_bot_prints_a_table(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "random_bot.py"
    done = arena("match", "--bot", f"{sys.executable} {example}", "--bot", "house:random")
    assert done.returncode == 0, done.stderr
    assert "example-random" in done.stdout and "Elo difference" in done.stdout  # its Hello's


def test_arena_match_shows_substitutions_and_a_bot_that_died_mid_run(tmp_path: Path) -> None:
    # the bot crashes at its second request (exit status 3): a house bot plays the rest
    fakebot = Path(__file__).resolve().parents[1] / "fakebot.py"
    crash = f"{sys.executable} {fakebot} crash --after 1"
    done = arena(
        "match", "--bot", crash, "--bot", "house:random", "--reconnect-grace-ms", "300",
        "--records", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    header, *rows = [line.split() for line in done.stdout.splitlines() if line][:3]
    assert header == [
        "bot",
        "wins",
        "points",
        "timeouts",
        "rejected",
        "disconnects",
        "substituted",
        "errors",
    ]
    table = {row[0]: row[1:] for row in rows}
    records = [json.loads(path.read_text()) for path in tmp_path.glob("*.json")]
    for column, fault in ((4, "disconnects"), (5, "substituted")):
        counted = sum(r["faults"]["fake-crash"][fault] for r in records)
        assert table["fake-crash"][column] == str(counted) != "0"
    assert f"bot fake-crash ({crash}) exited with status 3 before its matches ended" in (
        done.stderr
    )


def test_arena_match_gives_a_clean_sweep_its_one_bound(capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli.match import print_summary as _print_summary
    from referee.local import Summary

    sides = [["ana"], ["bia"]]
    summary = Summary("paulista", 10, ["ana", "bia"], sides, {"ana": 10, "bia": 0})
    summary.points = {"ana": 120, "bia": 41}
    result = summary.to_json()
    # JSON has no infinity: the estimate and the open end are null
    assert (result["elo_diff"], result["elo_ci95"]) == (None, [182.7, None])
    json.dumps(result, allow_nan=False)
    _print_summary(result, summary.elo())
    line = " ".join(capsys.readouterr().out.split())
    assert "ana vs bia: Elo difference > +183 (95%, every game won) over 10 games" in line


def test_arena_match_ends_the_stream_of_a_bot_it_did_not_start_with_ok(tmp_path: Path) -> None:
    """The first --bot only hands its address and token over (through a FIFO) and waits;
    the bot that connects with them, here, is no process of arena match's. It plays the
    match; at the end its stream ends with OK, a reconnection (what a bot does after OK)
    is turned away, and arena match's stderr stays clean."""
    from arena.proto.truco.v1 import bot_pb2 as pb
    from tests.referee.test_sessions import Client

    fifo = tmp_path / "handover"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    handover = f'echo "$ARENA_ADDRESS $ARENA_TOKEN" > {fifo} && exec sleep 600'
    argv = [sys.executable, "-m", "arena.cli", "match", "--json", "--games", "1"]
    with tempfile.TemporaryFile("w+") as stderr:
        match = subprocess.Popen(
            [*argv, "--bot", handover, "--bot", "house:random"],
            stdout=subprocess.PIPE, stderr=stderr, text=True,
        )  # fmt: skip
        exited = os.pidfd_open(match.pid)
        try:
            ready, _, _ = select.select([reader, exited], [], [])  # whichever comes first
            assert reader in ready, "arena match exited before the first bot ran"
            address, token = os.read(reader, 4096).decode().split()
            client = Client(address)
            client.hello(token)
            for message in client.stream:
                if message.HasField("decision"):
                    asked = message.decision
                    action = pb.ActionReply(
                        match_id=asked.match_id,
                        request_id=asked.request_id,
                        action=asked.view.legal[0],
                    )
                    client.send(pb.BotMessage(action=action))
            assert client.stream.code() == grpc.StatusCode.OK
            client.close()
            again = Client(address)
            again.hello(token)
            with pytest.raises(grpc.RpcError) as refused:
                next(again.stream)
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
            again.close()
            out, _ = match.communicate(timeout=60)
        finally:
            os.close(reader)
            os.close(exited)
            match.kill()
            match.wait()
        stderr.seek(0)
        log = stderr.read()
    assert match.returncode == 0, log
    assert json.loads(out)["bots"] == ["echo", "random"]
    assert not [word for word in UNCLEAN if word in log], log


def test_arena_match_explains_a_bot_that_cannot_start() -> None:
    done = arena("match", "--bot", "exit 7", "--bot", "house:random")
    assert done.returncode == 1
    assert "exited with status 7 before connecting" in done.stderr
    unknown = arena("match", "--bot", "house:nobody", "--bot", "house:random")
    assert unknown.returncode == 1 and "unknown house bot 'nobody'" in unknown.stderr


# ---- the organizer's token reaches only a referee the user can trust -------------------------


class Impostor(grpc.GenericRpcHandler):
    """Whatever listens at the default address first: it answers every call of any service
    with an empty message, and keeps the metadata each call brought."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, str]]] = []

    def service(self, details: Any) -> Any:
        def answer(request: bytes, context: Any) -> bytes:
            self.seen.append((details.method, dict(context.invocation_metadata())))
            return b""

        return grpc.unary_unary_rpc_method_handler(answer)


@pytest.fixture
def impostor() -> Iterator[Impostor]:
    """An impostor listening on 127.0.0.1:50051, the referee's default address."""
    handler = Impostor()
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=2), handlers=[handler],
        options=[("grpc.so_reuseport", 0)],
    )  # fmt: skip
    try:
        server.add_insecure_port("127.0.0.1:50051")
    except RuntimeError:
        pytest.skip("127.0.0.1:50051 is in use here: the impostor cannot listen there")
    server.start()
    yield handler
    server.stop(grace=None)


def organizer_env(database: str, home: Path) -> dict[str, str]:
    """The environment of an organizer with no referee address configured."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return env | {
        "ARENA_HOME": str(home),
        "ARENA_DATABASE_URL": database,
        "ARENA_ADMIN_TOKEN": "organizer-secret",
    }


@pytest.mark.hostile
def test_the_organizer_token_never_goes_to_whoever_answers_at_the_default_address(
    impostor: Impostor, database: str, tmp_path: Path
) -> None:
    env = organizer_env(database, tmp_path / "home")
    done = arena("bot", "register", "x", env=env)
    assert [meta for _, meta in impostor.seen if "authorization" in meta] == []
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("registered x;")  # by the Arena API served in-process


@contextlib.contextmanager
def serving(env: dict[str, str], *options: str) -> Iterator[str]:
    """`arena serve` on a free loopback address with ``options``, once it answers; its
    address. It must stop cleanly on SIGTERM at the end: exit 0, nothing on stderr but
    log lines."""
    address = free_address()
    argv = [sys.executable, "-m", "arena.cli", "serve", "--address", address, *options]
    with tempfile.TemporaryFile("w+") as stderr:
        serve = subprocess.Popen(argv, env=env, text=True, stderr=stderr)
        try:
            wait_serving(address)
            yield address
            serve.send_signal(signal.SIGTERM)
            assert serve.wait(timeout=20) == 0
        finally:
            serve.kill()
            serve.wait()
        stderr.seek(0)
        log = stderr.read()
    assert not [word for word in UNCLEAN if word in log], log


def test_a_bot_connected_when_arena_serve_stops_sees_its_stream_end_with_ok(
    database: str, tmp_path: Path
) -> None:
    from tests.referee.test_sessions import Client

    env = organizer_env(database, tmp_path / "home") | {"ARENA_BOT_TOKENS": "alpha=secret-a"}
    with serving(env) as address:
        client = Client(address)
        client.hello("secret-a")
        assert client.next().welcome.bot == "alpha"
    # arena serve has exited: the stream holds all it will ever hold
    assert list(client.stream) == []  # no RpcError: the stream ended with OK
    assert client.stream.code() == grpc.StatusCode.OK
    client.close()


def test_the_cli_reaches_the_arena_of_its_home_through_a_private_socket(
    database: str, tmp_path: Path
) -> None:
    from tests.referee.test_sessions import Client

    env = organizer_env(database, tmp_path / "home")
    with serving(env) as address:
        done = arena("bot", "register", "alpha", env=env)
        assert done.returncode == 0, done.stderr
        client = Client(address)  # the bot connects to the referee over TCP
        client.hello(done.stdout.splitlines()[-1])
        assert client.next().welcome.bot == "alpha"
        # only the running referee knows the bot is connected: the CLI asked it
        listed = arena("bot", "list", env=env)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.startswith("alpha connected"), listed.stdout
        client.close()


def test_sockets_too_long_for_home_go_to_a_folder_of_the_users_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.errors import Unavailable
    from arena.settings import private_socket

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    assert private_socket(tmp_path, "referee.sock") == tmp_path / "referee.sock"
    deep = tmp_path / ("x" * 100)
    path = private_socket(deep, "referee.sock")
    own = tmp_path / "tmp" / f"truco-arena-{os.getuid()}"
    assert path.parent == own and path.name.endswith("-referee.sock")
    assert own.stat().st_mode & 0o777 == 0o700
    assert private_socket(deep / "redis", "redis.sock").parent == own
    assert private_socket(deep / "redis", "redis.sock") != path
    own.chmod(0o755)  # someone else could have entered it: refused, not repaired
    with pytest.raises(Unavailable, match="is not a folder of this user's only"):
        private_socket(deep, "referee.sock")
    if os.getuid() == 0:  # root can make the folder another user's, as a squatter would
        own.chmod(0o700)
        os.chown(own, 12345, 12345)
        with pytest.raises(Unavailable, match="owner uid 12345"):
            private_socket(deep, "referee.sock")


# ---- arena serve: bots' tokens from a file and the environment, never the command line --------


def test_arena_serve_takes_bot_tokens_from_a_file_and_from_the_environment(
    database: str, tmp_path: Path
) -> None:
    from tests.referee.test_sessions import Client

    tokens = tmp_path / "tokens"
    tokens.write_text("# bots that play here unregistered\n\n  alpha=secret-a  \n# beta=old\n")
    env = organizer_env(database, tmp_path / "home")
    env["ARENA_BOT_TOKENS"] = "beta=secret-b, gamma=secret-g\ndelta=secret-d"
    with serving(env, "--token-file", str(tokens)) as address:
        for bot in ("alpha", "beta", "gamma", "delta"):
            client = Client(address)
            client.hello(f"secret-{bot[0]}")
            assert client.next().welcome.bot == bot
            client.close()


@pytest.mark.parametrize(
    ("file", "variable", "message"),
    [
        ("alpha=a\nbeta secret\n", "", "line 2 of {file}: write BOT=TOKEN"),
        ("=secret\n", "", "line 1 of {file}: the bot's name is missing"),
        ("alpha=\n", "", "line 1 of {file}: the token of 'alpha' is missing"),
        ("alpha=a\nalpha=b\n", "", "line 2 of {file}: 'alpha' is given twice"),
        ("alpha=a b\n", "", "line 1 of {file}: write BOT=TOKEN"),
        ("", "alpha=a,beta", "item 2 of ARENA_BOT_TOKENS: write BOT=TOKEN"),
        ("alpha=a\n", "alpha=b", "item 1 of ARENA_BOT_TOKENS: 'alpha' is given twice"),
        (None, "", "cannot read {file}: No such file or directory"),
    ],
)
def test_a_malformed_token_is_one_line_and_exit_2(
    tmp_path: Path, file: str | None, variable: str, message: str
) -> None:
    path = tmp_path / "tokens"
    if file is not None:
        path.write_text(file)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env |= {"ARENA_HOME": str(tmp_path / "home"), "ARENA_BOT_TOKENS": variable}
    done = arena("serve", "--address", free_address(), "--token-file", str(path), env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"arena serve: {message.format(file=path)}\n"
    assert "secret" not in done.stderr and "Traceback" not in done.stderr


# ---- numbers at the command line --------------------------------------------------------------

BIG = str(2**64)
CREATE = ("tournament", "create", "cup", "--bots", "a,b")
BAD_NUMBERS = [
    (("match", "--games", "0"), "--games", "1 to 100000"),
    (("match", "--games", "-2"), "--games", "1 to 100000"),
    (("match", "--seed", BIG), "--seed", "0 to 9223372036854775807"),
    (("match", "--decision-ms", "0"), "--decision-ms", "1 to 60000"),
    (("match", "--decision-ms", "60001"), "--decision-ms", "1 to 60000"),
    (("match", "--time-bank-ms", "-1"), "--time-bank-ms", "0 to 600000"),
    (("match", "--reconnect-grace-ms", "600001"), "--reconnect-grace-ms", "0 to 600000"),
    (("web", "--port", "0"), "--port", "1 to 65535"),
    (("web", "--port", "65536"), "--port", "1 to 65535"),
    (("challenge", "a", "b", "--games", "1001"), "--games", "1 to 1000"),
    (("matches", "--limit", "-5"), "--limit", "1 to 200"),
    (("matches", "--limit", "0"), "--limit", "1 to 200"),
    (("matches", "--limit", "201"), "--limit", "1 to 200"),
    (("bot", "run", "house:mc", "--concurrency", "0"), "--concurrency", "1 to 64"),
    (("bot", "run", "house:mc", "--seed", "-1"), "--seed", "0 to 9223372036854775807"),
    (("bot", "run", "house:mc", "--budget-ms", "0"), "--budget-ms", "1 to 60000"),
    (("worker", "--concurrency", "65"), "--concurrency", "1 to 64"),
    (("demo", "--matches", "0"), "--matches", "1 to 1000"),
    (("demo", "--web-port", "70000"), "--web-port", "1 to 65535"),
    (("play", "--seed", BIG), "--seed", "0 to 9223372036854775807"),
    ((*CREATE, "--matches", "0"), "--matches", "1 to 1000"),
    ((*CREATE, "--decision-ms", "-3"), "--decision-ms", "1 to 60000"),
    ((*CREATE, "--time-bank-ms", "600001"), "--time-bank-ms", "0 to 600000"),
    ((*CREATE, "--seed", BIG), "--seed", "0 to 9223372036854775807"),
    (("tournament", "watch", "0"), "RUN", "1 to 9223372036854775807"),
    (("tournament", "show", "-1"), "RUN", "1 to 9223372036854775807"),
    (("tournament", "show", BIG), "RUN", "1 to 9223372036854775807"),
    (("match", "--games", "two"), "--games", "1 to 100000"),
    (("match", "--games", "1e3"), "--games", "1 to 100000"),
    (("match", "--games", "\u0663"), "--games", "1 to 100000"),  # an Arabic-Indic three
    (("matches", "--limit", "9" * 5000), "--limit", "1 to 200"),
]


@pytest.mark.parametrize(
    ("argv", "option", "allowed"), BAD_NUMBERS, ids=[" ".join(a)[:40] for a, _, _ in BAD_NUMBERS]
)
def test_a_number_out_of_range_is_one_line_naming_the_option_and_the_range(
    argv: tuple[str, ...], option: str, allowed: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_HOME"] = str(tmp_path / "home")  # nothing may start, should a value get through
    done = arena(*argv, env=env)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert f"argument {option}: " in done.stderr and allowed in done.stderr
    assert len(done.stderr) < 200  # a long value is quoted cut short


def test_clocks_may_be_zero_where_zero_means_something() -> None:
    from arena.cli.grammar import parser as _parser

    args = _parser().parse_args(
        ["match", "--time-bank-ms", "0", "--reconnect-grace-ms", "0", "--seed", "0"]
    )
    assert (args.time_bank_ms, args.reconnect_grace_ms, args.seed) == (0, 0, 0)
    top = _parser().parse_args(["matches", "--limit", "200"])
    assert top.limit == 200


def test_a_tournament_created_with_zero_clocks_keeps_the_zeros(
    database: str, tmp_path: Path
) -> None:
    # the Arena API read a proto3 zero as "unset" and stored the default (10000, 60000)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env |= {"ARENA_HOME": str(tmp_path / "home"), "ARENA_DATABASE_URL": database}
    for bot in ("ana", "bia"):
        assert arena("bot", "register", bot, env=env).returncode == 0
    made = arena(
        "tournament", "create", "quick", "--bots", "ana,bia", "--time-bank-ms", "0",
        "--reconnect-grace-ms", "0", env=env,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    with psycopg.connect(database) as conn:
        row = conn.execute("SELECT definition FROM tournaments WHERE name = 'quick'").fetchone()
    assert row is not None
    assert (row[0]["time_bank_ms"], row[0]["reconnect_grace_ms"]) == (0, 0)
    refused = arena("tournament", "create", "none", "--bots", "ana,bia", "--matches", "0", env=env)
    assert refused.returncode == 2 and "--matches" in refused.stderr


def test_ratings_of_a_pool_that_cannot_exist_are_refused(database: str, tmp_path: Path) -> None:
    env = organizer_env(database, tmp_path / "home")  # the Arena API served in the command
    refused = arena("ratings", "--pool", "nonsense", env=env)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert "no pool 'nonsense'" in refused.stderr and "invalid_argument" in refused.stderr
    empty = arena("ratings", "--pool", "tradicional/2", env=env)
    assert empty.returncode == 0, empty.stderr
    assert empty.stdout == "no rated games in tradicional/2 yet\n"


def test_an_arena_error_is_one_line_and_exit_1(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env |= {"ARENA_HOME": str(tmp_path / "home"), "ARENA_BROKER_VISIBILITY_S": "soon"}
    done = arena("stop-embedded", env=env)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "arena: ARENA_BROKER_VISIBILITY_S must be a whole number of seconds, not 'soon'\n"
    )


# ---- times at the command line ------------------------------------------------------------------


def test_arena_matches_takes_the_times_people_type(database: str, tmp_path: Path) -> None:
    from arena.engine import Rules
    from arena.store.migrate import migrate
    from arena.store.store import Store

    migrate(database)
    with contextlib.closing(Store(database)) as store:
        seats = [store.register_bot(name)[0].id for name in ("ana", "bia")]
        request_match(store, "m-today", Rules(), seats)
    env = organizer_env(database, tmp_path / "home")
    since = arena("matches", "--since", "yesterday", env=env)
    assert since.returncode == 0, since.stderr
    assert since.stdout.startswith("m-today  scheduled"), since.stdout
    until = arena("matches", "--until", "2000-01-01", env=env)
    assert (until.returncode, until.stdout) == (0, "no matches\n"), until.stderr


@pytest.mark.parametrize(
    ("option", "value"), [("--since", "foo"), ("--until", "2026-02-30"), ("--since", "")]
)
def test_a_time_that_is_not_one_is_one_line_naming_the_option(
    option: str, value: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_HOME"] = str(tmp_path / "home")  # nothing may start, should a value get through
    done = arena("matches", option, value, env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"arena matches: error: argument {option}: {value!r} is not a time: give an RFC 3339 "
        "time, a date, or an age such as 2h or 3d (see arena matches --help)\n"
    )


# ---- output into a pipe whose reader goes away (arena matches | head -2) ----------------------

BUFFERINGS = {"buffered": "", "unbuffered": "1"}  # the values of PYTHONUNBUFFERED


def no_reader(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` with standard output a pipe whose reader has gone before it starts:
    whatever it prints, whenever, meets a broken pipe."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "arena.cli", *args], stdout=write, stderr=subprocess.PIPE,
            text=True, timeout=60, env=env,
        )  # fmt: skip
    finally:
        os.close(write)


@pytest.mark.parametrize("buffering", BUFFERINGS.values(), ids=BUFFERINGS.keys())
@pytest.mark.parametrize(
    "argv",
    [("rules", "list"), ("rules", "show", "paulista"), ("rules", "show", "solver", "--json"),
     ("play",)],
    ids=" ".join,
)  # fmt: skip
def test_a_command_whose_reader_is_gone_exits_quietly_with_141(
    argv: tuple[str, ...], buffering: str
) -> None:
    # unbuffered, the first write fails; buffered, the flush at exit (rich's table or print)
    done = no_reader(*argv, env=os.environ | {"PYTHONUNBUFFERED": buffering})
    assert (done.returncode, done.stderr) == (141, "")


def test_arena_matches_whose_reader_is_gone_exits_quietly(database: str, tmp_path: Path) -> None:
    done = no_reader("matches", env=organizer_env(database, tmp_path / "home"))
    assert (done.returncode, done.stderr) == (141, "")


def test_a_reader_that_leaves_after_two_lines_ends_the_output_quietly(tmp_path: Path) -> None:
    from arena.cli.engine import replay_file
    from arena.engine import Match, Rules, to_record

    match = Match(Rules.parse("paulista:team_size=4"), seed=3)
    choices = random.Random(3)
    while not match.is_over:
        match.apply(choices.choice(match.legal_actions()))
    path = tmp_path / "record.json"
    path.write_text(json.dumps(to_record(match)))
    expected = io.StringIO()
    assert replay_file(str(path), io.StringIO(), expected, io.StringIO()) == 0
    read, write = os.pipe()
    # the pipe made as small as it gets, and the output more than twice that: the command
    # is still writing when the reader leaves, however fast either is
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)
    assert len(expected.getvalue()) > 2 * fcntl.fcntl(write, fcntl.F_GETPIPE_SZ)
    # block-buffered, as standard output into a pipe is unless PYTHONUNBUFFERED says not
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    argv = [sys.executable, "-m", "arena.cli", "replay", str(path)]
    with subprocess.Popen(
        argv, stdout=write, stderr=subprocess.PIPE, text=True, env=env
    ) as process:
        os.close(write)
        head = b""
        while head.count(b"\n") < 2:
            chunk = os.read(read, 64)
            assert chunk, "the output ended before two lines"
            head += chunk
        os.close(read)
        _, err = process.communicate(timeout=60)
    assert expected.getvalue().startswith(head.decode())
    assert (process.returncode, err) == (141, "")


# ---- arena replay never crashes ---------------------------------------------------------------


def replay_bytes(data: bytes, tmp_path: Path) -> list[subprocess.CompletedProcess[bytes]]:
    """``arena replay`` of ``data``, from a file and from standard input."""
    path = tmp_path / "record.json"
    path.write_bytes(data)
    argv = [sys.executable, "-m", "arena.cli", "replay"]
    return [
        subprocess.run([*argv, str(path)], capture_output=True, timeout=60),
        subprocess.run([*argv, "-"], input=data, capture_output=True, timeout=60),
    ]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (nested(100_000), "not JSON: nested too deeply"),
        ('{"rules": ' + nested(950) + "}", "rules must be a preset name or an object, not [[["),
        ('{"seed": ' + "7" * 5000 + "}", "not JSON: a number has more than 4300 digits"),
        ('{"hands": [], "result": [3, 0]}', "result must be an object, not [3, 0]\n"),
    ],
    ids=["deep", "deep-inside", "long-number", "result"],
)
def test_replay_refuses_what_json_or_python_cannot_take_in_one_line(
    tmp_path: Path, text: str, message: str
) -> None:
    for done in replay_bytes(text.encode(), tmp_path):
        assert (done.returncode, done.stdout) == (1, b"")
        err = done.stderr.decode()
        assert message in err and err.count("\n") == 1 and len(err) < 200, err


def test_replay_refuses_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    data = json.dumps(RECORD).replace("alpha", "\u00e1lpha").encode("latin-1")
    for done in replay_bytes(data, tmp_path):
        assert (done.returncode, done.stdout) == (1, b"")
        assert done.stderr.decode() == f"not UTF-8: byte 0xe1 at position {data.index(0xE1)}\n"


def test_a_hand_result_that_is_not_an_object_is_refused() -> None:
    record = json.loads(json.dumps(RECORD))
    record["hands"][0]["result"] = 3
    done = arena("replay", "-", stdin=json.dumps(record))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "hand 0: result must be an object, not 3\n"


KEYS = st.sampled_from(
    ["format", "rules", "preset", "team_size", "seats", "start_score", "start_games", "seed",
     "hands", "dealer", "vira", "cards", "actions", "seat", "type", "card", "covered", "slot",
     "result", "points", "score", "reason", "winner", "games", "next"]
)  # fmt: skip
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
    | st.sampled_from(["4C", "5C", "play", "raise", "accept", "fold", "paulista", "truco-match/1"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=6), inner,
                                                                max_size=4),
    max_leaves=16,
)  # fmt: skip


@st.composite
def played_records(draw: st.DrawFn) -> Any:
    """The record of a seeded match, played by random choices to its end or part way."""
    from arena.engine import PRESET_NAMES, Match, Rules, to_record

    rules = Rules.preset(draw(st.sampled_from(PRESET_NAMES)))
    seed = draw(st.integers(0, 2**32))
    match, choose = Match(rules, seed=seed), random.Random(seed)
    for _ in range(draw(st.integers(0, 300))):
        if match.is_over:
            break
        match.apply(choose.choice(match.legal_actions()))
    return to_record(match)


def mutated(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with one part replaced by any JSON value, or removed."""
    if isinstance(value, dict | list) and value and draw(st.integers(0, 4)):
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        key = draw(st.sampled_from(keys))
        copy = type(value)(value)
        if draw(st.integers(0, 5)) == 0:
            del copy[key]
        else:
            copy[key] = mutated(draw, value[key])
        return copy
    return draw(JSON_VALUES)


@st.composite
def mutated_records(draw: st.DrawFn) -> Any:
    record = draw(played_records())
    for _ in range(draw(st.integers(1, 3))):
        record = mutated(draw, record)
    return record


def wrapped(text: str, depth: int) -> str:
    """``text`` inside ``depth`` arrays and objects, alternately."""
    for k in range(depth):
        text = f'{{"x": {text}}}' if k % 2 else f"[{text}]"
    return text


RECORD_TEXTS = st.one_of(
    st.one_of(JSON_VALUES, played_records(), mutated_records()).map(json.dumps),
    st.builds(wrapped, st.sampled_from(["0", "[]", json.dumps(RECORD)]), st.integers(1, 3000)),
    st.builds(lambda n, where: json.dumps({**RECORD, where: "N"}).replace('"N"', "9" * n),
              st.integers(4000, 6000), KEYS),
)  # fmt: skip


def stated_results_are_objects(record: Any) -> bool:
    """Whether every result the record states (its own, its hands') is an object."""
    if not isinstance(record, dict):
        return True
    parts = [record, *(h for h in record.get("hands", []) if isinstance(h, dict))]
    return all(isinstance(part.get("result", {}), dict) for part in parts)


@settings(max_examples=400, deadline=None)
@given(RECORD_TEXTS)
def test_replay_answers_anything_with_an_exit_status_never_an_exception(text: str) -> None:
    from arena.cli.engine import replay_file

    out, err = io.StringIO(), io.StringIO()
    code = replay_file("-", io.StringIO(text), out, err)
    assert code in (0, 1)
    assert (out.getvalue() == "") == (code == 1) and (err.getvalue() == "") == (code == 0)
    if code == 0:
        assert isinstance(json.loads(out.getvalue()), dict)
        assert stated_results_are_objects(json.loads(text))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=64) | RECORD_TEXTS.map(str.encode) | st.just(b'"\xe1"'))
def test_replay_answers_any_bytes_with_an_exit_status(data: bytes) -> None:
    from arena.cli.engine import replay_file

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "record.json"
        path.write_bytes(data)
        out, err = io.StringIO(), io.StringIO()
        code = replay_file(str(path), io.StringIO(), out, err)
    assert code in (0, 1) and (out.getvalue() == "" or err.getvalue() == "")


def test_arena_serve_on_an_address_in_use_is_one_line_and_exit_1(
    database: str, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        done = arena("serve", "--address", address, env=organizer_env(database, tmp_path / "h"))
    assert (done.returncode, done.stdout) == (1, "")
    assert "Traceback" not in done.stderr, done.stderr
    # gRPC's core logs its own line first; ours is the last
    last = done.stderr.splitlines()[-1]
    assert last.startswith("arena serve: ") and address in last, done.stderr


def test_only_a_live_socket_of_this_user_in_a_private_folder_is_trusted(tmp_path: Path) -> None:
    from arena.cli.servers import local_socket as _local_socket
    from arena.settings import make_home, own_socket, referee_socket

    home = make_home(tmp_path / "h")
    assert home.stat().st_mode & 0o777 == 0o700
    path = referee_socket(home)
    assert path.parent == home
    assert _local_socket(home) == f"unix:{path}"  # nothing listens: arena serve takes it
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        listener.listen()
        assert own_socket(path)
        assert _local_socket(home) is None  # another arena serve of this home has it
        home.chmod(0o777)  # anyone could have put a socket there
        assert not own_socket(path)
        home.chmod(0o700)
        if os.getuid() == 0:  # root can give the socket to another user, as a squatter's
            os.chown(path, 12345, -1)
            assert not own_socket(path)
            os.chown(path, 0, -1)
    assert path.exists() and not own_socket(path)  # left behind by a server that is gone
    assert _local_socket(home) == f"unix:{path}"


def test_a_new_token_never_reads_as_an_option(monkeypatch: pytest.MonkeyPatch) -> None:
    # `arena bot run --token -x...` fails to parse: one random token in 64 started with "-"
    import arena.guard

    drawn = iter(["-looks-like-an-option", "plain"])
    monkeypatch.setattr(arena.guard.secrets, "token_urlsafe", lambda n: next(drawn))
    assert arena.guard.new_token() == "plain"

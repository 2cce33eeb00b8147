"""`arena serve`: the organizer's token reaches only a referee the user can trust (its home's
private socket), bots' tokens come from a file or the environment, an address in use is
one line, and a bot connected when it stops sees its stream end."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.service import free_address
from tests.cli.common import arena, organizer_env, serving

pytestmark = pytest.mark.usefixtures("migrated")  # its processes do not migrate the database


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


@pytest.mark.hostile
def test_the_organizer_token_never_goes_to_whoever_answers_at_the_default_address(
    impostor: Impostor, database: str, tmp_path: Path
) -> None:
    env = organizer_env(database, tmp_path / "home")
    done = arena("bot", "register", "x", env=env)
    assert [meta for _, meta in impostor.seen if "authorization" in meta] == []
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("registered x;")  # by the Arena API served in-process


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


# ---- arena serve's address and the one socket it trusts; a new bot's token -------------------


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


@pytest.mark.parametrize("command", ["serve", "worker", "web"])
def test_a_process_on_a_configured_database_needs_the_organizers_token_set(
    command: str, database: str, tmp_path: Path
) -> None:
    # each machine's home would make a token of its own, and they would disagree
    env = organizer_env(database, tmp_path / "home")
    del env["ARENA_ADMIN_TOKEN"]
    done = arena(command, env=env)
    assert done.returncode == 1, done.stderr
    assert "ARENA_ADMIN_TOKEN is not set" in done.stderr
    assert "arena organizer new-token" in done.stderr
    assert not (tmp_path / "home" / "admin-token").exists()


def test_new_token_prints_a_fresh_token_and_asks_no_server() -> None:
    env = {"PATH": os.environ["PATH"], "ARENA_ADDRESS": "127.0.0.1:1"}  # nothing listens
    made = [arena("organizer", "new-token", env=env) for _ in range(2)]
    assert [done.returncode for done in made] == [0, 0]
    first, second = (done.stdout.split() for done in made)
    assert len(first) == 1 and len(first[0]) >= 43 and first != second

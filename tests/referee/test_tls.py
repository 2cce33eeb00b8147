"""A whole match over TLS: `arena serve --tls-cert --tls-key` with a self-signed
certificate, bots registered through the CLI and run as processes that trust that
certificate, and `arena challenge` played to the end; plaintext clients, and clients
that do not trust the certificate, get nowhere."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.channel import open_channel
from arena.embedded import stop_embedded_redis
from arena.service import Organizer, Processes, free_address, wait_serving

pytestmark = pytest.mark.faults

ADMIN = "organizer-secret"


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, and its key, made by openssl."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a certificate")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def health(channel: grpc.Channel) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    request = health_pb2.HealthCheckRequest(service="truco.v1.Referee")
    return int(stub.Check(request, timeout=10).status)


@contextlib.contextmanager
def embedded_redis_stopped(env: dict[str, str]) -> Iterator[None]:
    """The worker's broker, the embedded Redis under the home, stopped at the end."""
    try:
        yield
    finally:
        stop_embedded_redis(Path(env["ARENA_HOME"]))


@pytest.mark.usefixtures("migrated")  # its processes do not migrate
def test_a_whole_match_over_tls_with_a_self_signed_certificate(
    database: str, tmp_path: Path
) -> None:
    cert, key = self_signed(tmp_path)
    address = free_address()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {
        "ARENA_HOME": str(tmp_path / "home"),
        "ARENA_DATABASE_URL": database,
        "ARENA_REFEREE_ADDRESS": address,
        "ARENA_ADMIN_TOKEN": ADMIN,
    }
    trusting = {**env, "ARENA_CA_FILE": str(cert)}

    def arena(*args: str, extra: dict[str, str] = trusting) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena.cli", *args],
            env=extra, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    with embedded_redis_stopped(env), Processes(env, tmp_path / "logs") as processes:
        processes.start("serve", "serve", "--tls-cert", str(cert), "--tls-key", str(key))
        # the workers play what `arena challenge` asks for, reaching the referee over TLS
        processes.start("worker", "worker", "--concurrency", "4", env={"ARENA_CA_FILE": str(cert)})
        wait_serving(address, ca_file=str(cert))
        tokens = {}
        for name in ("alpha", "beta"):
            registered = arena("bot", "register", name)
            assert registered.returncode == 0, registered.stderr
            tokens[name] = registered.stdout.splitlines()[-1]
        # one bot finds the CA in its environment, the other is told on its command line
        bot_env = {**env, "ARENA_ADDRESS": address}
        processes.start(
            "alpha", "bot", "run", "house:random",
            env={**bot_env, "ARENA_TOKEN": tokens["alpha"], "ARENA_CA_FILE": str(cert)},
        )  # fmt: skip
        processes.start(
            "beta", "bot", "run", "house:heuristic", "--ca-file", str(cert),
            env={**bot_env, "ARENA_TOKEN": tokens["beta"]},
        )  # fmt: skip
        organizer = Organizer(address, ADMIN, ca_file=str(cert))
        try:
            organizer.wait_connected(["alpha", "beta"])
        finally:
            organizer.close()
        played = arena("challenge", "alpha", "beta", "--games", "2", "--wait")
        assert played.returncode == 0, played.stderr
        assert played.stdout.count("won by") == 2, played.stdout

        # plaintext reaches nothing: not the CLI, not a raw channel
        plain = arena("bot", "list", extra=env)
        assert plain.returncode != 0 and "unavailable" in plain.stderr, plain.stderr
        told = "the server may speak TLS: give its CA with --ca-file or ARENA_CA_FILE, or set"
        assert f"at {address}): {told} ARENA_TLS=1" in plain.stderr, plain.stderr
        with open_channel(address) as channel, pytest.raises(grpc.RpcError) as caught:
            health(channel)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        # TLS without the CA: the system's roots do not know a self-signed certificate
        untrusting = arena("bot", "list", extra={**env, "ARENA_TLS": "1"})
        assert untrusting.returncode != 0 and "unavailable" in untrusting.stderr
        assert "certificate is not one the system's roots trusts" in untrusting.stderr
        with open_channel(address, tls=True) as channel, pytest.raises(grpc.RpcError) as caught:
            health(channel)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        # and with it, all is well
        with open_channel(address, ca_file=str(cert)) as channel:
            assert health(channel) == health_pb2.HealthCheckResponse.SERVING
        assert processes.running["alpha"].poll() is None  # the bots still play on
        missing = arena("bot", "list", extra={**env, "ARENA_CA_FILE": str(tmp_path / "none")})
        assert missing.returncode != 0 and "cannot read the CA file" in missing.stderr


def wait_line(processes: Processes, name: str, text: str, timeout_s: float = 60.0) -> str:
    """Until the process's log has a line holding ``text``: that line."""
    deadline = time.monotonic() + timeout_s
    while True:
        for line in processes.log(name, lines=200).splitlines():
            if text in line:
                return line
        assert time.monotonic() < deadline, processes.log(name)
        time.sleep(0.05)  # polling the log file, where the process says what it did


@pytest.mark.usefixtures("migrated")  # arena serve migrates only the embedded database
def test_a_client_connecting_the_wrong_way_is_told_about_tls(database: str, tmp_path: Path) -> None:
    """A plaintext bot at a TLS referee, a TLS command at a plaintext one: each says which."""
    cert, key = self_signed(tmp_path)
    secure, plain = free_address(), free_address()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {
        "ARENA_HOME": str(tmp_path / "home"),
        "ARENA_DATABASE_URL": database,
        "ARENA_ADMIN_TOKEN": ADMIN,
    }
    with Processes(env, tmp_path / "logs") as processes:
        processes.start("tls", "serve", "--address", secure, "--tls-cert", str(cert),
                        "--tls-key", str(key))  # fmt: skip
        wait_serving(secure, ca_file=str(cert))
        processes.start(
            "plain", "serve", "--address", plain, env={"ARENA_HOME": str(tmp_path / "other")}
        )
        wait_serving(plain)
        bot_env = {"ARENA_ADDRESS": secure, "ARENA_TOKEN": "any"}
        processes.start("bot", "bot", "run", "house:random", env=bot_env)
        line = wait_line(processes, "bot", f"connection to {secure} lost (UNAVAILABLE)")
        assert "the server may speak TLS: give its CA with --ca-file or ARENA_CA_FILE" in line

        told = subprocess.run(
            [sys.executable, "-m", "arena.cli", "bot", "list"],
            env={**env, "ARENA_ADDRESS": plain, "ARENA_CA_FILE": str(cert)},
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert told.returncode != 0, told.stdout
        assert f"at {plain}): the server may not speak TLS" in told.stderr, told.stderr

"""The arena's processes on one machine, for ``arena demo`` and the end-to-end tests:
start ``arena serve``, workers, the scheduler and bots as child processes (each in its
own process group, its output in a log file), wait until they answer, stop them all."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import grpc

from arena.channel import open_channel
from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc

ARENA = [sys.executable, "-m", "arena.cli"]


def free_address() -> str:
    """A free loopback address for a server, with a port below the kernel's range of
    ephemeral ports: outgoing connections never take it, so a server may stop and start
    again on it (a client retrying a connection to a dead port in that range can end up
    connected to itself, and the port is then taken)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    ports = list(range(max(1024, low - 12_000), low))
    random.shuffle(ports)
    for port in ports:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return f"127.0.0.1:{port}"
    raise OSError("no free port below the ephemeral range")


class Processes:
    """Child processes by name, stopped (TERM, then KILL) on exit."""

    def __init__(self, env: Mapping[str, str], logs: Path) -> None:
        self.env = dict(env)
        self.logs = logs
        self.running: dict[str, subprocess.Popen[bytes]] = {}
        logs.mkdir(parents=True, exist_ok=True)

    def start(
        self,
        name: str,
        *args: str,
        env: Mapping[str, str] = {},
        command: Iterable[str] = ARENA,
    ) -> subprocess.Popen[bytes]:
        """``arena ARGS`` (or ``command ARGS``) as the process ``name``."""
        with open(self.logs / f"{name}.log", "ab") as log:
            process = subprocess.Popen(
                [*command, *args],
                env={**self.env, **env},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.running[name] = process
        return process

    def log(self, name: str, lines: int = 20) -> str:
        path = self.logs / f"{name}.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "".join(text.splitlines(True)[-lines:])

    def kill(self, name: str) -> None:
        """SIGKILL, as a crash would: no clean-up of any kind."""
        process = self.running.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def stop(self, names: Iterable[str] | None = None, timeout_s: float = 15.0) -> None:
        chosen = list(self.running if names is None else names)
        for name in chosen:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.running[name].pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        for name in chosen:
            process = self.running.pop(name)
            try:
                process.wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_serving(
    address: str, timeout_s: float = 60.0, ca_file: str | None = None, tls: bool = False
) -> None:
    """Until a server answers at ``address``. Each try is a channel of its own that shares
    no connection state with this process's other channels: a server that has just come
    back is not waited for through their reconnection backoff."""
    options = [("grpc.use_local_subchannel_pool", 1), ("grpc.initial_reconnect_backoff_ms", 100)]
    deadline = time.monotonic() + timeout_s
    while True:
        with open_channel(address, ca_file, tls, options) as channel:
            try:
                left = deadline - time.monotonic()
                grpc.channel_ready_future(channel).result(timeout=max(0.1, min(2.0, left)))
                return
            except grpc.FutureTimeoutError:
                if time.monotonic() >= deadline:
                    message = f"no server answered at {address} in {timeout_s:.0f} s"
                    raise TimeoutError(message) from None


class Organizer:
    """The Arena API with the organizer's token."""

    def __init__(
        self, address: str, admin_token: str, ca_file: str | None = None, tls: bool = False
    ) -> None:
        self.channel = open_channel(address, ca_file, tls)
        self.stub: Any = arena_pb2_grpc.ArenaStub(self.channel)
        self.metadata = [("authorization", f"Bearer {admin_token}")]

    def close(self) -> None:
        self.channel.close()

    def call(self, method: str, request: Any, timeout_s: float = 30.0) -> Any:
        return getattr(self.stub, method)(
            request, metadata=self.metadata, timeout=timeout_s, wait_for_ready=True
        )

    def bot_token(self, name: str) -> str:
        """Register the bot, or give it a new token when it exists."""
        try:
            return str(self.call("RegisterBot", api.RegisterBotRequest(name=name)).token)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.ALREADY_EXISTS:
                raise
            return str(self.call("RotateToken", api.RotateTokenRequest(name=name)).token)

    def wait_connected(self, names: Iterable[str], timeout_s: float = 60.0) -> None:
        """Until every bot named has a live session (asks every 50 ms)."""
        wanted = set(names)
        deadline = time.monotonic() + timeout_s
        while True:
            bots = self.call("ListBots", api.ListBotsRequest()).bots
            missing = wanted - {b.name for b in bots if b.connected}
            if not missing:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"not connected after {timeout_s:.0f} s: {sorted(missing)}")
            time.sleep(0.05)  # polling the referee: it has no way to tell us

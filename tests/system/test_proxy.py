"""The arena behind a real nginx with the shipped configuration (deploy/nginx/arena.conf,
its addresses and certificate paths replaced by this test's): two referee nodes on one
database and the web pages, TLS at nginx with a certificate of a CA made here. Bots dial
nginx with the CA and are spread over the two nodes; a match requested through nginx is
played and recorded; its page is read over TLS through nginx, and /healthz too."""

from __future__ import annotations

import getpass
import os
import re
import shutil
import ssl
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arena.proto.truco.v1 import arena_pb2 as api
from arena.service import Organizer, free_address, wait_serving
from tests.arenaproc import ADMIN, Arena
from tests.system.test_cluster import cluster, where

SHIPPED = Path(__file__).parents[2] / "deploy" / "nginx" / "arena.conf"
WAIT_S = 60.0
QUIET_S = 24 * 3600  # the least each timeout of a bot's stream must allow

MAIN = """worker_processes 1;
{user}pid {tmp}/nginx.pid;
error_log {tmp}/error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {tmp}/access.log;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/arena.conf;
}}
"""


def nginx_command() -> str:
    found = shutil.which("nginx") or (
        "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None
    )
    if found is None:
        pytest.skip("nginx is missing: install Debian's nginx (apt-get install nginx; make nginx)")
    return found


def openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


def certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA, and a certificate it signed for 127.0.0.1 and localhost with its key."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make the certificates")
    ca, ca_key = folder / "ca.pem", folder / "ca.key"
    cert, key, request = folder / "arena.pem", folder / "arena.key", folder / "arena.csr"
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout",
            str(ca_key), "-out", str(ca), "-subj", "/CN=arena test CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign")  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
            str(request), "-subj", "/CN=localhost")  # fmt: skip
    names = folder / "names.cnf"
    names.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key),
            "-CAcreateserial", "-days", "1", "-out", str(cert), "-extfile", str(names))  # fmt: skip
    return ca, cert, key


def rendered(replacements: dict[str, str]) -> str:
    """The shipped configuration with this test's values for its example ones (each
    must be there: a change of the shipped file fails here, not quietly)."""
    text = SHIPPED.read_text()
    for old, new in replacements.items():
        assert old in text, f"{SHIPPED} has no {old!r} any more"
        text = text.replace(old, new)
    return text


def seconds(value: str) -> float:
    """An nginx time (``7d``, ``10m``, ``60s``, ``60``) in seconds."""
    number, unit = re.fullmatch(r"(\d+)([smhd]?)", value).groups()  # type: ignore[union-attr]
    return int(number) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[unit]


def test_the_shipped_grpc_timeouts_outlast_a_quiet_bot() -> None:
    text = SHIPPED.read_text()
    for directive in ("client_body_timeout", "grpc_read_timeout", "grpc_send_timeout"):
        found = re.search(rf"^\s*{directive}\s+(\S+);", text, re.M)
        assert found and seconds(found.group(1)) >= QUIET_S, directive
    assert re.search(r"^\s*client_max_body_size 0;", text, re.M)  # a stream's messages add up


def get(url: str, context: ssl.SSLContext | None) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30, context=context) as answer:
        return answer.status, answer.read().decode()


def wait_answering(url: str, context: ssl.SSLContext | None, nginx: Any = None) -> None:
    """Until ``url`` answers 200 (nginx's process, when given, must still be running)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            if get(url, context)[0] == 200:
                return
        except OSError:
            pass
        assert nginx is None or nginx.poll() is None, "nginx exited"
        assert time.monotonic() < deadline, f"{url} did not answer"
        time.sleep(0.1)  # polling the server, which says nothing when it is ready


def test_bots_play_through_nginx_spread_over_two_nodes(arena_factory: Any, tmp_path: Path) -> None:
    nginx = nginx_command()
    ca, cert, key = certificates(tmp_path)
    arena, nodes = cluster(arena_factory, "n2")
    web = free_address()
    arena.processes.start("web", "web", "--port", web.rsplit(":", 1)[1])
    arena.worker()
    wait_answering(f"http://{web}/healthz", None)

    grpc_address, web_address = free_address(), free_address()
    conf = tmp_path / "nginx"
    conf.mkdir()
    (conf / "arena.conf").write_text(rendered({
        "127.0.0.1:50051": nodes["n1"],
        "127.0.0.1:50052": nodes["n2"],
        "127.0.0.1:8080": web,
        "listen 50443 ": f"listen {grpc_address} ",
        "listen 443 ": f"listen {web_address} ",
        "/etc/truco-arena/tls/arena.pem": str(cert),
        "/etc/truco-arena/tls/arena.key": str(key),
    }))  # fmt: skip
    # run as root, nginx's workers would be another user's: they stay this one's
    user = f"user {getpass.getuser()};\n" if os.geteuid() == 0 else ""
    (conf / "nginx.conf").write_text(MAIN.format(tmp=conf, user=user))
    proxy = arena.processes.start(
        "nginx", "-p", str(conf), "-c", str(conf / "nginx.conf"), "-e", str(conf / "error.log"),
        "-g", "daemon off;", command=[nginx],
    )  # fmt: skip
    context = ssl.create_default_context(cafile=str(ca))
    wait_answering(f"https://{web_address}/healthz", context, proxy)
    wait_serving(grpc_address, ca_file=str(ca))

    # the bots know only nginx's address and the CA
    through = Organizer(grpc_address, ADMIN, ca_file=str(ca))
    try:
        play_through(arena, through, grpc_address, ca, nodes)
        match_id = play_match(arena, through)
    finally:
        through.close()
    status, page = get(f"https://{web_address}/matches/{match_id}", context)
    assert status == 200 and "alpha" in page and "beta" in page
    assert get(f"https://{web_address}/healthz", context) == (200, "ok")
    assert "[emerg]" not in (conf / "error.log").read_text()


def play_through(
    arena: Arena, through: Organizer, address: str, ca: Path, nodes: dict[str, str]
) -> None:
    """Two bots dial nginx at once, and no other call goes through nginx meanwhile (the
    test waits for them on n1 directly): nginx sends each call to the next node in turn,
    so each bot lands on a node of its own."""
    bots = {"alpha": "house:random", "beta": "house:heuristic"}
    for name, house in bots.items():
        arena.tokens[name] = through.bot_token(name)
        arena.houses[name] = house
    for name, house in bots.items():
        env = {"ARENA_ADDRESS": address, "ARENA_TOKEN": arena.tokens[name]}
        arena.processes.start(name, "bot", "run", house, "--ca-file", str(ca), env=env)
    arena.organizer.wait_connected(bots)
    assert sorted(where(arena).values()) == sorted(nodes)


def play_match(arena: Arena, through: Organizer) -> str:
    """A rated match requested through nginx, until it is recorded: its id."""
    request = api.RequestMatchRequest(bots=["alpha", "beta"], matches=1)
    (match_id,) = through.call("RequestMatch", request).match_ids
    arena.wait_matches([match_id], 1)
    return str(match_id)

"""`arena match`: every preset with house bots, the example bot, a bot that dies mid-run
or cannot start, and a stream it did not start ending cleanly."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
from pathlib import Path

import grpc
import pytest

from tests.cli.common import UNCLEAN, arena


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

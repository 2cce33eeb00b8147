"""The red team's cross-match bot, end to end: `arena serve`, a Celery worker, and two
hosted bots in their sandboxes play an all-hosted tournament, which gets duplicate deals.
The spy, holding its owner's token in its code, tries every call of the Arena API (and
health, reflection, Play with its owner's token) through its socket, and tries to read
the record of its match's twin to know its opponent's cards. Every call is refused at
the relay, its guesses are right only as often as chance allows, and no twin's result or
record is shown to an anonymous reader before both twins are played."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.hosted.sandbox import unavailable
from arena.proto.truco.v1 import arena_pb2 as api
from arena.proto.truco.v1 import arena_pb2_grpc
from tests.arenaproc import Arena, broker_url
from tests.system.test_hosting import judged, submit

pytestmark = [
    pytest.mark.hostile,
    pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}"),
]

HERE = Path(__file__).resolve().parents[1]
MATCHES = 8  # four duplicate pairs
SPY = """\
import json, os, random
import grpc
from relayprobe import calls
from arena.proto.truco.v1 import arena_pb2 as api, arena_pb2_grpc
from arena.sdk import run

OWNER = {owner!r}
ADDRESS = os.environ["ARENA_ADDRESS"]
PROBE = calls(ADDRESS, {{"none": "", "owner": OWNER}}, {{"owner": OWNER}})


class Spy:
    name = "spy"

    def __init__(self):
        self.twin = {{}}  # hand number: the cards the spy held in the twin (the opponent's now)
        self.read = None  # what reading the twin's record got
        self.hands = {{}}
        self.rng = random.Random()

    def decide(self, view):
        h = view.hand_number
        if h not in self.hands and len(view.cards) == 3:
            seen = {{str(c) for c in view.cards}} | ({{str(view.vira)}} if view.vira else set())
            pool = [c for c in ALL if c not in seen]
            guess = self.twin.get(h) or self.rng.sample(pool, 3)
            self.hands[h] = {{"mine": sorted(str(c) for c in view.cards), "guess": sorted(guess)}}
        return self.rng.choice(view.legal)

    def on_hand_end(self, match_id, hand):
        if self.read is None:
            self.read = self.read_twin(match_id)

    def read_twin(self, match_id):
        prefix, _, number = match_id.rpartition("-")
        n = int(number)
        twin = f"{{prefix}}-{{(n + 1 if n % 2 else n - 1):04d}}"
        with grpc.insecure_channel(ADDRESS) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            try:
                reply = stub.GetMatch(api.GetMatchRequest(id=twin), timeout=30)
            except grpc.RpcError as e:
                return f"{{e.code().name}}: {{e.details()}}"
        record = json.loads(reply.record_json or "null")
        if record:
            me = record["seats"].index(next(s for s in record["seats"] if s.startswith("spy")))
            for k, dealt in enumerate(record["hands"]):
                self.twin[k] = [c for c in dealt["cards"][me] if c]
        return "OK"

    def on_match_end(self, match_id, ended):
        print(json.dumps({{"match_id": match_id, "probe": PROBE, "read": self.read,
                          "hands": self.hands}}), flush=True)


ALL = [r + s for r in ("4", "5", "6", "7", "Q", "J", "K", "A", "2", "3") for s in "CHSD"]
run(Spy())
"""


def spy_folder(tmp_path: Path, owner_token: str) -> dict[str, bytes]:
    files = {
        "bot.py": SPY.format(owner=owner_token).encode(),
        "relayprobe.py": (HERE / "relayprobe.py").read_bytes(),
    }
    folder = tmp_path / "spy"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return files


class Watcher:
    """An anonymous reader of the run's matches while it plays: every match it was shown
    with a result must have had its twin played already (a twin cannot be unplayed
    again, so a twin found unfinished just after is a leak); and how often it saw a
    match sealed while its twin was still to play (the mechanism at work)."""

    def __init__(self, arena: Arena, run_id: int) -> None:
        self.arena, self.run_id = arena, run_id
        self.leaks: list[str] = []
        self.sealed_seen = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        with grpc.insecure_channel(self.arena.address) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            while not self.done.is_set():
                for m in stub.ListMatches(
                    api.ListMatchesRequest(page_size=200), timeout=30
                ).matches:
                    if not m.twin:
                        continue
                    twin = self.arena.store.match(m.twin)
                    twin_status = twin[0].status if twin else "missing"
                    if m.status == "finished" and not m.sealed and twin_status != "finished":
                        self.leaks.append(f"{m.id} shown while {m.twin} was {twin_status}")
                    if m.sealed and twin_status not in ("finished", "failed"):
                        self.sealed_seen += 1
                        record = stub.GetMatch(api.GetMatchRequest(id=m.id), timeout=30)
                        after = self.arena.store.match(m.twin)
                        still = after is not None and after[0].status not in ("finished", "failed")
                        if still and (record.record_json or record.match.score):
                            # its twin unplayed after the answer came: so it was when asked
                            self.leaks.append(f"{m.id}: its record was given while sealed")

    def stop(self) -> None:
        self.done.set()
        self.thread.join(60)


def test_a_hosted_spy_learns_nothing_across_duplicate_twins(
    arena_factory: Any, tmp_path: Path
) -> None:
    arena = arena_factory(broker_url("redis"))
    # one match at a time: a pair's first match is recorded while its twin still waits
    arena.processes.start("worker", "worker", "--concurrency", "1", "--loglevel", "info")
    owner = arena.organizer.bot_token("spy")
    arena.organizer.bot_token("mark")
    assert judged(arena, submit(arena, "spy", spy_folder(tmp_path, owner)).name).status == (
        "active"
    )
    random_bot = {"bot.py": (HERE.parent / "examples" / "random_bot.py").read_bytes()}
    assert judged(arena, submit(arena, "mark", random_bot).name).status == "active"
    arena.tournament("twins", ["spy", "mark"], matches=MATCHES)
    run_id = arena.start("twins")
    watcher = Watcher(arena, run_id)
    try:
        run = arena.wait_run(run_id, timeout_s=600)
    finally:
        watcher.stop()
    assert run.status == "finished" and run.deals == "duplicate-hosted"
    assert watcher.leaks == []
    assert watcher.sealed_seen > 0  # a first twin was seen sealed, its twin to come

    overlap, hands = 0, 0
    for m, seats in arena.store.run_matches(run_id):
        (log,) = arena.store.bot_logs(m.id, "spy@1")
        (line,) = [json.loads(x) for x in log["log"].splitlines() if x.startswith("{")]
        probed = line["probe"]
        methods = len(api.DESCRIPTOR.services_by_name["Arena"].methods)
        assert len(probed) > 2 * methods and all(
            v.startswith("PERMISSION_DENIED") for v in probed.values()
        )
        assert line["read"].startswith("PERMISSION_DENIED"), line["read"]
        assert m.record is not None
        opponent = next(s for s, name in enumerate(seats) if name == "mark@1")
        for number, hand in line["hands"].items():
            held = set(m.record["hands"][int(number)]["cards"][opponent])
            overlap += len(held & set(hand["guess"]))
            hands += 1
    # a random guess of three cards shares 3 x 3 / 37 of one with the opponent's hand
    # on average; the red team's spy, reading the twin, named 8 of 9 hands whole
    assert hands >= 30 and overlap / hands < 1.0, (overlap, hands)

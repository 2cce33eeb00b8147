"""A hosted bot across its versions, for the tests of one bot across them: ``hc``, whose
first version played rated matches in paulista/1 and was retired when its second was
checked, which played on and is now being tested against ``ana``; and a finished test of
two bots that dial in."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.cli.hosting import packed
from arena.domain.clock import TimeControl
from arena.domain.sprt import Asked, Sprt
from arena.domain.versions import Manifest
from arena.engine import Rules
from arena.hosted.archive import check
from arena.store.rows import BotVersionRow
from arena.store.store import Store
from arena.usecases.matches import request as request_match
from arena.usecases.sprts import start_sprt, step_sprt
from arena.usecases.versions import judge, submit
from tests.usecases.test_ladder import EXAMPLE
from tests.web.test_ladder import record
from tests.web.test_sprt import play_to_verdict

POOL = "paulista/1"


@dataclass
class Versions:
    matches: dict[str, list[str]]  # the match ids each row played: hc@1, hc@2, ana, bia
    test: int  # hc (its active version, hc@2) against ana: running, its first pair recorded
    test_matches: list[str]  # those two
    finished_test: int  # ana against bia, decided
    versions: list[BotVersionRow]  # hc@1, hc@2, ...


def version(store: Store, bot: str, folder: Path, n: int) -> BotVersionRow:
    """A new version of ``bot``: the example bot's file with a line of its own, checked."""
    folder.mkdir(parents=True, exist_ok=True)
    code = folder / EXAMPLE.name
    code.write_text(EXAMPLE.read_text() + f"\n# version {n}\n")
    data = packed(code)
    manifest = Manifest("python", EXAMPLE.name)
    submitted = submit(store, bot, manifest, data, check(data, manifest))
    assert submitted.new
    return judge(store, submitted.version.id)


def fill(store: Store, folder: Path) -> Versions:
    ana = store.register_bot("ana", owner="ana")[0]
    bia = store.register_bot("bia", owner="bia")[0]
    store.register_bot("hc", owner="hana")
    rules = Rules()
    mine: dict[str, list[str]] = {"hc@1": [], "hc@2": [], "ana": [], "bia": []}
    first = version(store, "hc", folder / "v1", 1)
    plays = [(first, ana, "hc@1", "ana")] * 3
    rows = [first]
    seed = 0
    for k, (v, other, name, other_name) in enumerate(plays):
        match_id = f"v1-{k}"
        seats = [v.id, other.id] if k % 2 == 0 else [other.id, v.id]
        request_match(store, match_id, rules, seats, seed=seed)
        record(store, match_id, seed)
        mine[name].append(match_id)
        mine[other_name].append(match_id)
        seed += 1
    second = version(store, "hc", folder / "v2", 2)
    rows.append(second)
    for k in range(2):
        match_id = f"v2-{k}"
        request_match(store, match_id, rules, [second.id, bia.id], seed=seed)
        record(store, match_id, seed)
        mine["hc@2"].append(match_id)
        mine["bia"].append(match_id)
        seed += 1
    asked = Asked(rules, TimeControl(), max_games=100, at_once=2)
    test = start_sprt(store, "hc", "ana", Sprt(0, 200), asked, "organizer")
    made = step_sprt(store, test.id)
    for k, match_id in enumerate(made):
        record(store, match_id, 100 + k)
        mine["hc@2"].append(match_id)
        mine["ana"].append(match_id)
    for match_id in step_sprt(store, test.id):  # its next pair, not played yet
        mine["hc@2"].append(match_id)
        mine["ana"].append(match_id)
    done = start_sprt(store, "ana", "bia", Sprt(0, 200), asked, "organizer")
    play_to_verdict(store, done.id)  # ana wins every match: H1
    return Versions(mine, test.id, made, done.id, rows)

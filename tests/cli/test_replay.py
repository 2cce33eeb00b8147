"""`arena replay`: a record recomputed and checked, malformed input refused with a reason,
and anything at all, text or bytes, answered with an exit status, never an exception."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.cli.common import RECORD, arena


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


def test_replay_keeps_what_the_referee_wrote_beside_each_action() -> None:
    record = json.loads(json.dumps(RECORD))
    actions = record["hands"][0]["actions"]
    actions[0] |= {"ms": 12, "deadline_ms": 10000}
    actions[1] |= {"by": "timeout", "ms": 10000, "deadline_ms": 10000, "rejected": 1}
    done = arena("replay", "-", stdin=json.dumps(record))
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout)["hands"][0]["actions"] == actions
    bare = arena("replay", "-", stdin=json.dumps(RECORD))  # and replays without them
    assert json.loads(bare.stdout)["hands"][0]["actions"] == RECORD["hands"][0]["actions"]


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

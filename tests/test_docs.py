"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from arena.engine import Match, view

README = Path(__file__).resolve().parent.parent / "README.md"


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def run_block(marker: str) -> dict[str, Any]:
    (code,) = [b for b in blocks() if marker in b]
    scope: dict[str, Any] = {"__name__": "readme"}
    exec(code, scope)
    return scope


def test_the_engine_example_plays_a_match() -> None:
    assert run_block("Match(")["match"].is_over


def test_the_bot_example_decides_legally() -> None:
    bot = run_block("class RandomBot")["RandomBot"]()
    match = Match(seed=4)
    for _ in range(30):
        if match.is_over:
            break
        seen = view(match, match.to_act)  # type: ignore[arg-type]
        action = bot.decide(seen)
        assert action in seen.legal
        match.apply(action)


ROOT = README.parent


def test_every_variable_the_code_reads_is_in_the_operators_table() -> None:
    """docs/operations.md's table of settings names every ``ARENA_`` variable of the
    arena's code, and only those."""
    code = {
        name
        for folder in ("arena", "referee", "workers")
        for path in (ROOT / folder).rglob("*.py")
        for name in re.findall(r"\bARENA_[A-Z0-9_]+\b", path.read_text())
    }
    page = (ROOT / "docs" / "operations.md").read_text()
    table = page.split("## Settings", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    listed = {name for row in rows for name in re.findall(r"ARENA_[A-Z0-9_]+", row)}
    assert sorted(code - listed) == [], "read by the code, missing from the table"
    assert sorted(listed - code) == [], "in the table, read by no code"

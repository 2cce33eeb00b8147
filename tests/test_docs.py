"""The README's Python example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_example_plays_a_match(capsys: object) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "the README shows the engine from Python"
    scope: dict[str, object] = {}
    exec(blocks[0], scope)
    assert scope["match"].is_over  # type: ignore[attr-defined]

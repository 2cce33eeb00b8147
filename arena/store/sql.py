"""Named queries from ``queries.sql``: ``QUERIES["finish_match"]``."""

from __future__ import annotations

import re
from importlib import resources

_HEADER = re.compile(r"^-- name: (\w+)\s*$", re.M)


def load(text: str) -> dict[str, str]:
    """Split a file of ``-- name: NAME`` sections into {name: sql}."""
    parts = _HEADER.split(text)
    named = {name: body.strip() for name, body in zip(parts[1::2], parts[2::2], strict=True)}
    if len(named) != len(parts[1::2]):
        raise ValueError("a query name is used twice")
    return named


QUERIES = load(resources.files("arena.store").joinpath("queries.sql").read_text(encoding="utf-8"))

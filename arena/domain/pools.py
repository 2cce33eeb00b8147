"""Rating pools: a rules preset and a team size, written ``PRESET/TEAM_SIZE``
(``paulista/1``). A bot has one rating in each pool it plays."""

from __future__ import annotations

from arena.engine import PRESET_NAMES, Rules, TrucoError, quoted
from arena.errors import Invalid

DEFAULT_POOL = "paulista/1"
# A bot with no rated game in a pool for this long (or retired) leaves the anchor of the
# pool's ratings (arena/domain/poolfit.py, docs/ratings.md); ARENA_FIT_ABSENT_DAYS
ABSENT_DAYS = 14


def pool_of(rules: Rules) -> str:
    """The pool that matches under ``rules`` are rated in."""
    return f"{rules.name}/{rules.team_size}"


def pool_rules(pool: str) -> Rules:
    """The rules a pool's matches are played under (a pool named as ``pool_of`` does)."""
    preset, _, size = pool.partition("/")
    return Rules.parse(f"{preset}:team_size={int(size)}")


def parse_pool(text: str) -> str:
    """A pool's name checked and written the usual way; Invalid says what is wrong."""
    preset, _, size = text.partition("/")
    if preset not in PRESET_NAMES or not (size.isascii() and size.isdigit()) or len(size) > 2:
        raise Invalid(f"no pool {quoted(text)}: a pool is PRESET/TEAM_SIZE, like {DEFAULT_POOL}")
    try:
        return pool_of(pool_rules(f"{preset}/{size}"))
    except TrucoError as e:
        raise Invalid(f"no pool {quoted(text)}: {e}") from None

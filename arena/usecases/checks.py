"""A new version's check: a few unrated matches against a house bot, each side in turn,
then the version judged on how it played them (docs/hosting.md)."""

from __future__ import annotations

from collections.abc import Callable

from arena.domain.identity import owner_bot
from arena.domain.matches import check_match_id
from arena.domain.versions import CHECK_MATCHES, check_faults, check_seats
from arena.engine import Rules
from arena.errors import ArenaError, Unavailable
from arena.store.rows import BotVersionRow
from arena.store.store import Store
from arena.usecases.house import house_version
from arena.usecases.matches import request
from arena.usecases.versions import judge


def check(
    store: Store, version: str, play: Callable[[str], object], *, last_try: bool = True
) -> BotVersionRow:
    """Check version ``version`` (``NAME@N``) and judge it: CHECK_MATCHES unrated matches
    against the random house bot, each played by ``play`` (a match id: the edge's way of
    having it played and recorded); active if it played them cleanly, else rejected
    saying why. A version judged before is returned as it is; matches recorded by an
    earlier try are not played again (``play`` sees them finished). Unavailable (no
    sandbox, the referee away) is raised for another try unless ``last_try``, when the
    version is rejected for it."""
    row = store.version(version)
    if row.status != "checking":
        return row
    faults: list[str] = []
    try:
        house = house_version(store)
        ids = {b.name: b.id for b in store.bots() if b.name in (version, house)}
        for number in range(1, CHECK_MATCHES + 1):
            match_id = check_match_id(row.id, number)
            seats = check_seats(version, house, number)
            request(store, match_id, Rules(), [ids[b] for b in seats], rated=False)
            play(match_id)
            found = store.match(match_id)
            if found is None:
                raise Unavailable(f"check match {match_id} was not recorded")
            faults += check_faults(match_id, found[0].faults.get(version, {}))
    except Unavailable as e:
        if not last_try:
            raise
        faults = [f"could not be checked: {e}"]
    except ArenaError as e:
        faults = [str(e)]
    reason = ""
    if faults:
        reason = f"{', '.join(faults)} (arena bot logs {owner_bot(version)} MATCH_ID)"
    return judge(store, row.id, reason)

"""The analyses of a match as a reader may see them (docs/web.md, "The analysis of a
match"): the analysis of a seat tells what that seat held, so its owner sees its own seats'
and the organizer every seat's; anyone else none, and nobody any while the match is
sealed. Of a seat analysed at several budgets, the largest one done is shown."""

from __future__ import annotations

from typing import Any, TypedDict

from arena.domain.analyses import marked, mean_loss
from arena.domain.identity import seats_of
from arena.store.store import Store


class SeatAnalysis(TypedDict):
    seat: int
    bot: str  # who sat there (a bot, or a version NAME@N)
    samples: int  # the budget: drawn states per decision
    status: str  # pending, done or failed
    started_at: str | None  # ISO time a worker began it; None while it waits for one
    error: str
    decisions: list[dict[str, Any]]  # each valued (arena/bots/analysis.py's to_json)
    line: list[float]  # the expected hand score of the action taken, decision by decision
    marks: list[int]  # the indexes in ``decisions`` of the costliest ones
    mean_loss: float | None  # points lost per decision against the reference bot


def analyses(
    store: Store, match_id: str, *, organizer: bool, owner: str | None = None
) -> list[SeatAnalysis]:
    """The match's analyses the reader may see, by seat (none of an unknown match)."""
    found = store.match(match_id)
    if found is None or store.sealed([match_id]):
        return []
    names = found[1]
    seats = set(range(len(names))) if organizer else set(seats_of(owner, names))
    best: dict[int, SeatAnalysis] = {}
    for row in store.match_analyses(match_id):  # the largest budget first
        if row.seat not in seats or (row.seat in best and best[row.seat]["status"] == "done"):
            continue
        # hands counted from 1, as the match's JSON and the replay's links count them
        decisions = [{**d, "hand": d["hand"] + 1} for d in row.decisions or []]
        best[row.seat] = SeatAnalysis(
            seat=row.seat, bot=names[row.seat], samples=row.samples, status=row.status,
            started_at=None if row.started_at is None else row.started_at.isoformat(),
            error=row.error, decisions=decisions,
            line=[d["values"][d["actions"].index(d["taken"])] for d in decisions],
            marks=marked(decisions), mean_loss=mean_loss(decisions),
        )  # fmt: skip
    return [best[s] for s in sorted(best)]


class VersionLoss(TypedDict):
    name: str
    decisions: int  # the decisions counted
    mean_loss: float | None  # points lost per decision against the reference bot


LATEST = 20  # the analysed seats a version's average loss is taken over, the latest


def version_loss(store: Store, name: str, seats: int = LATEST) -> VersionLoss:
    """The average loss per decision of ``name`` (a bot, or a version NAME@N) against the
    reference bot, over its latest ``seats`` analysed seats."""
    decisions = store.version_decisions(name, seats)
    return VersionLoss(name=name, decisions=len(decisions), mean_loss=mean_loss(decisions))


def bot_losses(
    store: Store, bot: str, versions: list[str], *, organizer: bool, owner: str | None = None
) -> list[VersionLoss]:
    """The average losses of the bot and each of its ``versions`` that has analysed
    seats, for its owner and the organizer (the analyses are theirs); none for anyone
    else."""
    if not organizer and owner != bot:
        return []
    found = [version_loss(store, name) for name in (bot, *versions)]
    return [v for v in found if v["decisions"]]

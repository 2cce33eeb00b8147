"""The read model of sequential tests on the arena (docs/testing.md): a test with its LLR
after each pair, and lists of tests (all of them, or a bot's and its hosted versions')."""

from __future__ import annotations

from typing import TypedDict

from arena.domain.identity import owner_bot
from arena.domain.sprt import Sprt, shown_estimate
from arena.engine import quoted
from arena.errors import NotFound
from arena.read import stamp
from arena.store.rows import SprtRow
from arena.store.store import Store

RUNNING_SHOWN = 100  # running tests a list shows (an owner may run only a few at once)
FINISHED_PAGE = 50  # finished tests a page of the list shows, then a link to older ones
BOT_TESTS = 10  # the latest tests a bot's page lists, then a link to all of them


class TestLine(TypedDict):
    """A test as lists show it."""

    id: int
    new_bot: str
    base_bot: str
    rules: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    rated: bool
    duplicate: bool
    status: str  # running, H1, H0 or undecided
    pairs: int
    lost_both: int
    split: int
    won_both: int
    llr: float
    lower: float
    upper: float
    elo: float | None  # None while infinite (one side won every pair) or before any pair
    elo_low: float | None
    elo_high: float | None
    games: int  # matches made
    created_at: str
    finished_at: str | None


class SprtTest(TestLine):
    history: list[float]  # the LLR after each pair, in the order they ended


def line(row: SprtRow, new: str, base: str) -> TestLine:
    test = Sprt(row.elo0, row.elo1, row.alpha, row.beta)
    elo, elo_low, elo_high = shown_estimate([row.lost_both, row.split, row.won_both])
    return TestLine(
        id=row.id, new_bot=new, base_bot=base, rules=row.rules, elo0=row.elo0,
        elo1=row.elo1, alpha=row.alpha, beta=row.beta, max_games=row.max_games,
        rated=row.rated, duplicate=row.duplicate, status=row.status,
        pairs=row.lost_both + row.split + row.won_both, lost_both=row.lost_both,
        split=row.split, won_both=row.won_both, llr=round(row.llr, 3),
        lower=round(test.lower, 3), upper=round(test.upper, 3),
        elo=elo, elo_low=elo_low, elo_high=elo_high,
        games=row.scheduled, created_at=stamp(row.created_at),
        finished_at=stamp(row.finished_at),
    )  # fmt: skip


def sprt(store: Store, test_id: int) -> SprtTest:
    found = store.sprt(test_id)
    if found is None:
        raise NotFound(f"no test {test_id}")
    history = [round(p.llr, 3) for p in store.sprt_pairs(test_id)]
    return SprtTest(**line(*found), history=history)


class Tests(TypedDict):
    bot: str | None  # the list's filter: the tests of this bot and its hosted versions
    running: list[TestLine]  # the latest first, RUNNING_SHOWN at most
    finished: list[TestLine]  # a page of them, the latest first
    next_before: int | None  # the page of older finished tests: ?before=ID (None: no more)
    bots: list[str]  # the bots of the tests listed (a version's: its bot's), to filter by


def tests(store: Store, bot: str | None = None, before: int | None = None) -> Tests:
    """The tests, running and finished (a page of FINISHED_PAGE of these, of ids below
    ``before``), of every bot or of ``bot`` (as NEW or BASE, itself or one of its hosted
    versions; a version, NAME@N, alone)."""
    if bot is not None and store.bot(bot) is None:
        raise NotFound(f"no bot named {quoted(bot)}")
    running = [] if before else store.sprts(bot, running=True, before=None, limit=RUNNING_SHOWN)
    finished = store.sprts(bot, running=False, before=before, limit=FINISHED_PAGE + 1)
    more = len(finished) > FINISHED_PAGE
    listed = [line(*t) for t in running] + [line(*t) for t in finished[:FINISHED_PAGE]]
    return Tests(
        bot=bot,
        running=listed[: len(running)],
        finished=listed[len(running) :],
        next_before=finished[FINISHED_PAGE - 1][0].id if more else None,
        bots=sorted({owner_bot(n) for t in listed for n in (t["new_bot"], t["base_bot"])}),
    )


def bot_tests(store: Store, bot: str) -> list[TestLine]:
    """A bot's latest BOT_TESTS tests, running or finished (its page's list)."""
    return [line(*t) for t in store.sprts(bot, running=None, before=None, limit=BOT_TESTS)]

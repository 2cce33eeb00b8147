"""Sequential tests in the store (migration 0012): is NEW stronger than BASE? A test makes
its matches in pairs, counts each pair once both its matches are recorded, and stops
making them once it has decided (docs/testing.md).

:meth:`Sprts.step_sprt` does all of it under the test row's lock, from what the store
holds: the test's recorded matches are read again each time, a pair is counted by the
insert of its row (once, whoever counts it first), and the matches made next are numbered
by the test's counter. A step may run twice, or after a crash, or from the minute's sweep:
it finds what is left to do and does only that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb

from arena.domain.clock import TimeControl
from arena.domain.identity import is_version
from arena.domain.pools import pool_of
from arena.domain.sprt import Room, Sprt
from arena.domain.tournament import deal_seed, seatings
from arena.engine import Rules, quoted
from arena.errors import Exhausted, NotFound
from arena.store.base import Connected
from arena.store.rows import SprtPairRow, SprtRow
from arena.store.sql import QUERIES as Q

MAX_GAMES = 2000  # a test's matches at most, unless it asks for another number


@dataclass(frozen=True, slots=True)
class Asked:
    """What a test is asked to play."""

    rules: Rules
    clock: TimeControl
    max_games: int = MAX_GAMES
    at_once: int = 8
    rated: bool = False


def sprt_match_id(test_id: int, number: int) -> str:
    return f"sprt{test_id}-{number:05d}"


class Sprts(Connected):
    def create_sprt(
        self,
        new: str,
        base: str,
        test: Sprt,
        asked: Asked,
        by: str,
        room: Room | None = None,
    ) -> SprtRow:
        """A new test of ``new`` against ``base``, each seated as who plays for it (its
        active hosted version, else itself). The pairs share their deals when both are
        hosted: each match is a fresh process then, with nothing to remember. ``by`` is
        the organizer or the bot whose token asked; with ``room``, the tests its owner
        (the bot's owner, or the bot when it has none) has running, this one included,
        must fit in it: Exhausted says what is over, checked under a lock per owner so
        that two asked at once cannot both squeeze in."""
        if new == base:
            raise ValueError("a test compares two different bots")
        seated = self.playing_as([new, base])  # type: ignore[attr-defined]
        missing = [name for name in (new, base) if name not in seated]
        if missing:
            raise NotFound(f"no active bot named {', '.join(map(quoted, missing))}")
        params = {
            "new_id": seated[new][0], "base_id": seated[base][0], "rules": str(asked.rules),
            "clock": Jsonb(asked.clock.to_json()), "elo0": test.elo0, "elo1": test.elo1,
            "alpha": test.alpha, "beta": test.beta, "max_games": asked.max_games,
            "at_once": asked.at_once, "rated": asked.rated,
            "duplicate": is_version(seated[new][1]) and is_version(seated[base][1]),
            "asked_by": by,
        }  # fmt: skip
        with self._transaction() as conn:
            if room is not None:
                _check_room(conn, by, asked.max_games, room)
            row = conn.execute(Q["insert_sprt"], params).fetchone()
        assert row is not None
        return SprtRow(**row)

    def sprt(self, test_id: int) -> tuple[SprtRow, str, str] | None:
        """A test, with the names of who plays NEW and BASE."""
        with self._statement() as conn:
            row = conn.execute(Q["sprt"], {"id": test_id}).fetchone()
        if row is None:
            return None
        new, base = row.pop("new_name"), row.pop("base_name")
        return SprtRow(**row), new, base

    def sprt_pairs(self, test_id: int) -> list[SprtPairRow]:
        """The test's pairs in the order they were counted, each with the LLR after it."""
        with self._statement() as conn:
            return [SprtPairRow(**r) for r in conn.execute(Q["sprt_pairs"], {"id": test_id})]

    def running_sprts(self) -> list[int]:
        with self._statement() as conn:
            return [r["id"] for r in conn.execute(Q["running_sprts"])]

    def step_sprt(self, test_id: int) -> list[str]:
        """Count the pairs whose matches are both recorded, decide if the evidence is
        enough, and make the next pairs while the test runs and has room; the new
        matches' ids (to send to the workers)."""
        key = self.deal_key()  # read now: not on a second connection while holding the lock
        with self._transaction() as conn:
            found = conn.execute(Q["lock_sprt"], {"id": test_id}).fetchone()
            if found is None:
                raise NotFound(f"no test {test_id}")
            row = SprtRow(**found)
            if row.status != "running":
                return []
            matches = conn.execute(Q["sprt_matches"], {"id": test_id}).fetchall()
            counted = {p["pair"] for p in conn.execute(Q["sprt_pairs"], {"id": test_id})}
            test = Sprt(row.elo0, row.elo1, row.alpha, row.beta)
            pairs = [row.lost_both, row.split, row.won_both]
            llr, verdict = row.llr, None
            for pair, score in _ended_pairs(matches, row.new_id, counted):
                pairs[score] += 1
                llr = test.llr(pairs)
                conn.execute(
                    Q["insert_sprt_pair"],
                    {"test_id": test_id, "pair": pair, "score": score,
                     "number": len(counted) + 1, "llr": llr},
                )  # fmt: skip
                counted.add(pair)
                verdict = test.verdict(llr)
                if verdict is not None:
                    break
            made: list[str] = []
            playing = sum(m["status"] not in ("finished", "failed") for m in matches)
            scheduled = row.scheduled
            while verdict is None and playing + 2 <= row.at_once and scheduled < row.max_games:
                made += self._pair(conn, row, scheduled // 2, key)
                scheduled += 2
                playing += 2
            if verdict is None and playing == 0 and scheduled >= row.max_games:
                verdict = "undecided"
            conn.execute(
                Q["update_sprt"],
                {"id": test_id, "status": verdict or "running", "scheduled": scheduled,
                 "lost_both": pairs[0], "split": pairs[1], "won_both": pairs[2], "llr": llr},
            )  # fmt: skip
        return made

    def _pair(self, conn: Any, row: SprtRow, pair: int, key: bytes) -> list[str]:
        """The pair's two matches, NEW on the first team then on the second."""
        rules = Rules.parse(row.rules)
        ids = [sprt_match_id(row.id, 2 * pair + k + 1) for k in range(2)]
        for k, seats in enumerate(seatings(rules, [str(row.new_id), str(row.base_id)], 2)):
            match_id = ids[k]
            deals = f"sprt{row.id}-pair{pair}" if row.duplicate else match_id
            match = {"id": match_id, "pool": pool_of(rules), "rules": row.rules,
                     "seed": deal_seed(key, deals), "clock": Jsonb(row.clock),
                     "rated": row.rated, "sprt_id": row.id,
                     "twin": ids[1 - k] if row.duplicate else None}  # fmt: skip
            self._insert_match(conn, match, [int(b) for b in seats])
        return ids


def _check_room(conn: Any, bot: str, games: int, room: Room) -> None:
    """Exhausted when the owner of ``bot`` would have more tests running, or more games
    in them, than ``room`` allows with one more of ``games``."""
    conn.execute(Q["lock_owner"], {"bot": bot})
    found = conn.execute(Q["owner_tests"], {"bot": bot}).fetchone()
    owner, tests, running = found["owner"], found["tests"], found["games"]
    who = f"owner {quoted(owner)}" if owner else f"bot {quoted(bot)}"
    if tests + 1 > room.tests:
        raise Exhausted(
            f"{who} has {tests} tests running, the most at once: wait for one to decide "
            "(arena test show ID), or ask the organizer"
        )
    if running + games > room.games:
        raise Exhausted(
            f"{who} has tests of {running} matches running; with {games} more that is over "
            f"the {room.games} allowed at once: ask for fewer (--max-games) or wait"
        )


def _ended_pairs(
    matches: list[dict[str, Any]], new_id: int, counted: set[int]
) -> list[tuple[int, int]]:
    """The pairs not yet counted whose two matches are recorded, in the order their
    second match ended: each with NEW's matches won (0, 1 or 2), as credited (a match
    NEW's bot was absent from is lost: arena/domain/absence.py). A pair with a failed match, or
    one that both sides forfeited (nobody credited), is never counted."""
    by_pair: dict[int, list[dict[str, Any]]] = {}
    for m in matches:
        number = int(m["id"].rpartition("-")[2])
        by_pair.setdefault((number - 1) // 2, []).append(m)
    ended = []
    for pair, both in by_pair.items():
        if pair in counted or len(both) < 2 or any(m["status"] != "finished" for m in both):
            continue
        if any(m["winner"] is None for m in both):
            continue
        won = sum(m["winner"] == (0 if m["first"] == new_id else 1) for m in both)
        ended.append((max(m["finished_at"] for m in both), pair, won))
    return [(pair, won) for _, pair, won in sorted(ended)]

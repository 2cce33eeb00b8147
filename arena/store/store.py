"""The store: bots, matches and ratings in PostgreSQL, through a connection pool.

``finish_match`` is the exactly-once path: in one statement (a function of migration
0006) it locks the match row, writes the record and result, and applies the Elo change; a
second call for the same match finds it finished and changes nothing. Rating rows are
locked in bot-id order, so concurrent finishes of matches that share bots wait for each
other instead of losing an update or deadlocking. The connection pool and the one
translation of the driver's errors are :mod:`arena.store.base`'s; tournaments and runs are
:mod:`arena.store.runs`'s.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from psycopg.types.json import Jsonb

from arena.domain.absence import Credit
from arena.domain.humans import HUMAN_STALL_S
from arena.domain.identity import is_version
from arena.domain.standings import hand_points
from arena.engine import quoted
from arena.errors import Exists, Invalid, NotFound
from arena.guard import new_token
from arena.store.actions import Actions
from arena.store.analyses import Analyses
from arena.store.audit import Audits
from arena.store.base import Unit, bot_rows, token_hash
from arena.store.exports import Exports
from arena.store.fits import Fits
from arena.store.humans import Humans
from arena.store.ladders import Ladders
from arena.store.nodes import Nodes
from arena.store.rows import BotRow, MatchRow, RatingRow
from arena.store.runs import Runs
from arena.store.sprts import Sprts
from arena.store.sql import QUERIES as Q
from arena.store.versions import Versions

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Finish:
    """What finishing a match did: ``recorded`` is False when it had been recorded before;
    ``rated``: it counts for the ratings of its ``pool`` (arena/usecases/ratings.py fits
    them)."""

    recorded: bool
    rated: bool
    run_done: bool  # the match is a run's, and none of its matches is left to play
    pool: str


class Claimed(NamedTuple):
    """A match claimed to be played (:meth:`Store.claim_match`): the row as it was, the bot
    at each seat, and its run's status (None outside runs)."""

    match: MatchRow
    seats: list[str]
    run_status: str | None


@dataclass(frozen=True, slots=True)
class Standing:
    name: str  # the row rated: the bot, or its active hosted version (NAME@N)
    rating: RatingRow
    state: str  # the bot's (a version's: its bot's)
    bot: str  # the bot it is, or is a version of


BAD_NAME = (
    "{} is not a bot name: use 1 to 64 letters, digits, '.', '_' or '-', starting with a "
    "letter or digit"
)


class StoreTokens:
    """The store as the referee's token book: a token names its (active) bot."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def lookup(self, token: str) -> str | None:
        bot = self.store.bot_for_token(token)
        return None if bot is None else bot.name


class Store(
    Runs, Versions, Ladders, Sprts, Nodes, Fits, Actions, Audits, Exports, Humans, Analyses
):
    """The arena's database: bots and their tokens, matches and their exactly-once
    recording with the ratings they move, what the pages read (and, from :class:`Runs`,
    tournaments and their runs; from :class:`Versions`, hosted bots' versions; from
    :class:`Ladders`, the ladders; from :class:`Sprts`, sequential tests; from
    :class:`Nodes`, the referee nodes and where bots are connected; from :class:`Exports`,
    matches read a batch at a time for an export)."""

    # ---- bots -----------------------------------------------------------------------

    def register_bot(
        self, name: str, owner: str = "", conn: Unit | None = None
    ) -> tuple[BotRow, str]:
        """A new bot and its token; only the token's hash is kept, so this is the one
        time the token is seen. Names are taken in their Unicode normal form (NFKC) and are
        unique whatever their case (migration 0007). On ``conn``, a use case's unit of
        work (arena/usecases/bots.py); without one, in a transaction of its own."""
        name = unicodedata.normalize("NFKC", name)
        if is_version(name):  # NAME@N is a hosted version's row (migration 0010)
            raise Invalid(BAD_NAME.format(quoted(name)))
        token = new_token()
        params = {"name": name, "owner": owner, "token_hash": token_hash(token)}
        try:
            with self._within(conn) as c:
                row = c.execute(Q["insert_bot"], params).fetchone()
        except Invalid as e:
            raise Invalid(BAD_NAME.format(quoted(name))) from e
        except Exists as e:
            raise Exists(f"a bot named {quoted(name)} already exists") from e
        assert row is not None
        return BotRow(**row), token

    def rotate_token(self, name: str, conn: Unit | None = None) -> tuple[BotRow, str]:
        """A new token for the bot; the old one stops working (on ``conn`` when given,
        as :meth:`register_bot`)."""
        token = new_token()
        with self._within(conn) as c:
            row = c.execute(
                Q["rotate_token"], {"name": name, "token_hash": token_hash(token)}
            ).fetchone()
        if row is None:
            raise NotFound(f"no bot named {quoted(name)}")
        return BotRow(**row), token

    def set_bot_state(self, conn: Unit, name: str, state: str, reason: str) -> BotRow:
        """A bot's state (active, withdrawn, disqualified, retired) and why."""
        params = {"name": name, "state": state, "reason": reason}
        row = conn.execute(Q["set_bot_state"], params).fetchone()
        if row is None:
            raise NotFound(f"no bot named {quoted(name)}")
        return BotRow(**row)

    def lock_bot(self, conn: Unit, name: str) -> BotRow:
        """A registered bot (any state), locked until the unit of work ends."""
        row = conn.execute(Q["lock_registered_bot"], {"name": name}).fetchone()
        if row is None:
            raise NotFound(f"no bot named {quoted(name)}")
        return BotRow(**row)

    def rating_history(self, bot: str, pool: str, limit: int) -> list[dict[str, Any]]:
        """The latest ``limit`` rating changes in the pool of the bot and its hosted
        versions (of a version, NAME@N: its own), oldest first, each with the name of the
        row it changed (``played_as``)."""
        with self._transaction() as conn:
            params = {"rows": bot_rows(conn, bot), "pool": pool, "limit": limit}
            return list(reversed(conn.execute(Q["rating_history"], params).fetchall()))

    def pool_wins(self, pool: str) -> dict[tuple[str, str], int]:
        """How often each bot's team beat each other bot's in the pool's rated matches
        (kept as matches are recorded: a read of the pool's pairs, not of its history)."""
        with self._statement() as conn:
            rows = conn.execute(Q["pool_wins"], {"pool": pool}).fetchall()
        return {(r["winner"], r["loser"]): r["wins"] for r in rows}

    def recount(self) -> None:
        """Count every pool's pairs and faults again from the whole history (migration
        0008 keeps them as matches are recorded; this is the check, and the way to load
        a history written around the recording path)."""
        with self._statement() as conn:
            conn.execute(Q["recount"])

    def bots(self) -> list[BotRow]:
        with self._transaction() as conn:
            return [BotRow(**r) for r in conn.execute(Q["list_bots"]).fetchall()]

    def bot_for_token(self, token: str) -> BotRow | None:
        with self._transaction() as conn:
            row = conn.execute(Q["bot_by_token_hash"], {"token_hash": token_hash(token)}).fetchone()
        return None if row is None else BotRow(**row)

    def finish_match(
        self,
        match_id: str,
        record: dict[str, Any],
        credited: Credit | None = None,
        text: str | None = None,
    ) -> Finish:
        """Write the record and the result it is ``credited`` with (None: the result as
        played) and apply the Elo change, once per match, and say whether the match's run
        has any match left to play: one statement, the ``finish_match`` function of
        migration 0014. ``text``: the record as JSON text, as the referee sent it: then
        written as it is, not encoded again."""
        if record.get("result", {}).get("winner") not in (0, 1):
            raise Invalid(f"match {match_id}: the record has no winner")
        result = Credit(record["result"]["winner"]) if credited is None else credited
        params = {
            "id": match_id,
            "record": Jsonb(record) if text is None else Jsonb(text, dumps=str),
            "winner": result.winner,
            "forfeit": list(result.forfeits) or None,
            "score": record["result"]["score"],
            "points": list(hand_points(record)),
            "faults": Jsonb(record.get("faults", {})),
        }
        with self._statement() as conn:
            row = conn.execute(Q["finish_match"], params).fetchone()
        if row is None:
            raise NotFound(f"no match {quoted(match_id)}")
        if not row["recorded"]:
            log.info("match %s was recorded before; nothing changes", match_id)
        return Finish(row["recorded"], row["rated"], row["run_done"], row["pool"])

    def match(self, match_id: str) -> tuple[MatchRow, list[str]] | None:
        """A match and the bot at each seat."""
        with self._transaction() as conn:
            row = conn.execute(Q["match_with_seats"], {"id": match_id}).fetchone()
        if row is None:
            return None
        names = row.pop("seat_names")
        return MatchRow(**row), names

    def matches(
        self,
        *,
        bot: str | None = None,
        pool: str | None = None,
        run: int | None = None,
        limit: int = 20,
        after: tuple[datetime, str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[tuple[MatchRow, list[str]]]:
        """Matches newest first by the time lists show (``listed_at``, migration 0018),
        listed in [since, until); ``after`` is the (listed_at, id) the previous page ended
        on. A bot's are those of its hosted versions too (a version's, NAME@N, its own);
        its matches of one run are read among the run's."""
        params: dict[str, Any] = {
            "pool": pool,
            "run": run,
            "since": since,
            "until": until,
            "limit": limit,
            "after_time": after[0] if after else None,
            "after_id": after[1] if after else None,
        }
        if bot is None or run is not None:
            query = Q["list_matches"]
        else:
            query = Q["list_bot_matches" if pool is None else "list_bot_pool_matches"]
        with self._transaction() as conn:
            params["rows"] = None if bot is None else bot_rows(conn, bot)
            rows = conn.execute(query, params).fetchall()
        out = []
        for row in rows:
            names = row.pop("seat_names")
            out.append((MatchRow(**row), names))
        return out

    def run_matches(self, run_id: int, limit: int = 100) -> list[tuple[MatchRow, list[str]]]:
        """A run's matches and the bot at each seat, the latest listed first."""
        return self.matches(run=run_id, limit=limit)

    def sealed(self, match_ids: Sequence[str]) -> set[str]:
        """Those of the matches whose duplicate twin is neither finished nor failed."""
        if not match_ids:
            return set()
        with self._statement() as conn:
            rows = conn.execute(Q["sealed_matches"], {"ids": list(match_ids)})
            return {r["id"] for r in rows}

    def set_status(self, match_id: str, status: str) -> None:
        """Mark a match running or failed (a finished one stays finished)."""
        with self._transaction() as conn:
            conn.execute(Q["set_status"], {"id": match_id, "status": status})

    def leaderboard(self, pool: str, *, retired: bool = False) -> list[Standing]:
        """The pool's rated bots (retired ones too with ``retired``) and their states."""
        with self._transaction() as conn:
            rows = conn.execute(Q["leaderboard"], {"pool": pool, "retired": retired}).fetchall()
        out = []
        for r in rows:
            name, state, bot = r.pop("name"), r.pop("state"), r.pop("bot")
            out.append(Standing(name, RatingRow(**r), state, bot))
        return out

    def stalled_matches(self, now: datetime, stall_s: float) -> list[str]:
        """Matches outside runs that need sending again at ``now`` (no progress for
        ``stall_s`` seconds; a person's match that is playing, for HUMAN_STALL_S: people
        take minutes)."""
        params = {"now": now, "stall_s": stall_s, "human_stall_s": HUMAN_STALL_S}
        with self._statement() as conn:
            return [r["id"] for r in conn.execute(Q["stalled_matches"], params)]

    def claim_match(self, match_id: str) -> Claimed:
        """A match to play and the bot at each seat, marked running (started now) unless
        it was finished, failed or cancelled, or its run is not running (then it goes back
        to the unsent), in one statement; the row returned is as it was before."""
        with self._statement() as conn:
            row = conn.execute(Q["claim_match"], {"id": match_id}).fetchone()
        if row is None:
            raise NotFound(f"no match {quoted(match_id)}")
        names = row.pop("seat_names")
        run_status = row.pop("run_status")
        return Claimed(MatchRow(**row), names, run_status)

    def pools(self) -> list[str]:
        """Every pool with a rating or a match, the most played first."""
        with self._transaction() as conn:
            return [r["pool"] for r in conn.execute(Q["pools"])]

    def rating_trends(self, pool: str, points: int = 20) -> dict[str, list[float]]:
        """Each bot's rating before its latest ``points`` changes in the pool, then after
        each of them."""
        with self._transaction() as conn:
            rows = conn.execute(Q["rating_trends"], {"pool": pool, "points": points})
            return {r["name"]: [r["start"], *r["elos"]] for r in rows}

    def bot(self, name: str) -> BotRow | None:
        with self._transaction() as conn:
            row = conn.execute(Q["bot_by_name"], {"name": name}).fetchone()
        return None if row is None else BotRow(**row)

    def bot_ratings(self, name: str) -> list[RatingRow]:
        """The bot's rating in every pool it has played, the most played first."""
        with self._transaction() as conn:
            return [RatingRow(**r) for r in conn.execute(Q["bot_ratings"], {"name": name})]

    def bot_index(self) -> list[dict[str, Any]]:
        """Every bot once (its hosted versions under it), by name: the name it plays as
        (``played_as``: its active version's, else its own), its number of ``versions``,
        and the ratings (pool, elo, games) of the row it plays as."""
        with self._transaction() as conn:
            return list(conn.execute(Q["bot_index"]))

    def bot_faults(self, name: str, pool: str) -> dict[str, int]:
        """The bot's finished matches in the pool and its faults summed over them."""
        with self._transaction() as conn:
            row = conn.execute(Q["bot_faults"], {"name": name, "pool": pool}).fetchone()
        assert row is not None  # an aggregate always has a row
        return {k: int(v) for k, v in row.items()}

    def head_to_head(self, name: str, pool: str) -> list[dict[str, Any]]:
        """Per opponent: finished matches in the pool and the bot's wins."""
        with self._transaction() as conn:
            return list(conn.execute(Q["head_to_head"], {"name": name, "pool": pool}))

    def rating_changes(self, seats: Sequence[tuple[str, str]]) -> dict[str, tuple[float, float]]:
        """For each (match id, bot) that rated the bot (a bot, or a version of one): its
        (before, after) Elo, by match id."""
        params = {"match_ids": [m for m, _ in seats], "names": [n for _, n in seats]}
        with self._transaction() as conn:
            rows = conn.execute(Q["rating_changes"], params)
            return {r["match_id"]: (r["before"], r["after"]) for r in rows}

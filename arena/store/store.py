"""The store: bots, matches and ratings in PostgreSQL, through a connection pool.

``finish_match`` is the exactly-once path: in one statement (a function of migration
0006) it locks the match row, writes the record and result, and applies the Elo change; a
second call for the same match finds it finished and changes nothing. Rating rows are
locked in bot-id order, so concurrent finishes of matches that share bots wait for each
other instead of losing an update or deadlocking. psycopg errors become the kinds of
:mod:`arena.errors` here, at one boundary (:func:`_translated`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import select
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from arena import rating
from arena.clock import TimeControl
from arena.engine import Rules, quoted
from arena.errors import Exists, Invalid, NotFound, Unavailable, parse_id
from arena.pools import pool_of
from arena.store.rows import BotRow, MatchRow, RatingRow, RunRow, TournamentRow
from arena.store.sql import QUERIES as Q
from arena.tournament import Definition, Result, deal_seed, hand_points, plan, standings

log = logging.getLogger(__name__)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


@dataclass(frozen=True, slots=True)
class Finish:
    """What finishing a match did: ``recorded`` is False when it had been recorded before."""

    recorded: bool
    changes: dict[int, tuple[float, float]]  # bot id -> (Elo before, after)
    run_done: bool  # the match is a run's, and none of its matches is left to play


@dataclass(frozen=True, slots=True)
class Standing:
    name: str
    rating: RatingRow

    @property
    def provisional(self) -> bool:
        return rating.is_provisional(self.rating.games)


class StoreTokens:
    """The store as the referee's token book: a token names its (active) bot."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def lookup(self, token: str) -> str | None:
        bot = self.store.bot_for_token(token)
        return None if bot is None else bot.name


def _check(conn: psycopg.Connection[Any]) -> None:
    """The pool's check of a connection it hands out. A round trip to the server costs as
    much as the statement it guards, so it is made only when the server has written to
    the connection while it sat idle: a server that shuts down or restarts says so, then
    closes it. A connection that breaks later fails its statement, as it would anyway."""
    if conn.closed or select.select([conn.fileno()], [], [], 0)[0]:
        ConnectionPool.check_connection(conn)


class Store:
    def __init__(self, conninfo: str, *, max_size: int = 8) -> None:
        self.pool = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=max_size,
            # autocommit: a transaction is opened explicitly (_transaction), and a single
            # statement (_statement) is its own transaction, without BEGIN and COMMIT
            kwargs={"row_factory": dict_row, "autocommit": True},
            check=_check,  # a restarted server's broken ones go
            open=True,
        )
        self._deal_key: bytes | None = None

    def close(self) -> None:
        self.pool.close()

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Connection[Any]]:
        with _translated(), self.pool.connection() as conn, conn.transaction():
            yield conn

    @contextmanager
    def _statement(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection for one statement, atomic by itself: one round trip, not three."""
        with _translated(), self.pool.connection() as conn:
            yield conn

    # ---- bots -----------------------------------------------------------------------

    def register_bot(self, name: str, owner: str = "") -> tuple[BotRow, str]:
        """A new bot and its token; only the token's hash is kept, so this is the one
        time the token is seen. Names are taken in their Unicode normal form (NFKC) and are
        unique whatever their case (migration 0007)."""
        name = unicodedata.normalize("NFKC", name)
        token = secrets.token_urlsafe(32)
        params = {"name": name, "owner": owner, "token_hash": token_hash(token)}
        try:
            with self._transaction() as conn:
                row = conn.execute(Q["insert_bot"], params).fetchone()
        except Invalid as e:
            raise Invalid(
                f"{quoted(name)} is not a bot name: use 1 to 64 letters, digits, '.', '_' or "
                "'-', starting with a letter or digit"
            ) from e
        except Exists as e:
            raise Exists(f"a bot named {quoted(name)} already exists") from e
        assert row is not None
        return BotRow(**row), token

    def rotate_token(self, name: str) -> tuple[BotRow, str]:
        """A new token for the bot; the old one stops working."""
        token = secrets.token_urlsafe(32)
        with self._transaction() as conn:
            row = conn.execute(
                Q["rotate_token"], {"name": name, "token_hash": token_hash(token)}
            ).fetchone()
        if row is None:
            raise NotFound(f"no bot named {quoted(name)}")
        return BotRow(**row), token

    def rating_history(self, bot: str, pool: str) -> list[dict[str, Any]]:
        with self._transaction() as conn:
            return list(conn.execute(Q["rating_history"], {"bot": bot, "pool": pool}))

    def pool_results(self, pool: str) -> list[tuple[str, str]]:
        """Every (winner, loser) pair of bots across the teams of the pool's rated
        matches (each member of the winning team over each of the losing team)."""
        with self._transaction() as conn:
            rows = conn.execute(Q["pool_results"], {"pool": pool}).fetchall()
        pairs = []
        for row in rows:
            seats, winner = row["seat_names"], row["winner"]
            for w in dict.fromkeys(seats[winner::2]):
                pairs += [(w, loser) for loser in dict.fromkeys(seats[1 - winner :: 2])]
        return pairs

    def bots(self) -> list[BotRow]:
        with self._transaction() as conn:
            return [BotRow(**r) for r in conn.execute(Q["list_bots"]).fetchall()]

    def bot_for_token(self, token: str) -> BotRow | None:
        with self._transaction() as conn:
            row = conn.execute(Q["bot_by_token_hash"], {"token_hash": token_hash(token)}).fetchone()
        return None if row is None else BotRow(**row)

    # ---- matches and ratings -----------------------------------------------------------

    def deal_key(self) -> bytes:
        """The arena's secret deal key (migration 0007), read once."""
        if self._deal_key is None:
            with self._statement() as conn:
                row = conn.execute(Q["deal_key"]).fetchone()
            assert row is not None  # the migration made it
            self._deal_key = bytes(row["deal_key"])
        return self._deal_key

    def create_match(
        self,
        match_id: str,
        rules: Rules,
        seat_bots: Sequence[int],
        *,
        clock: TimeControl | None = None,
        seed: int | None = None,
        rated: bool = True,
        run_id: int | None = None,
    ) -> None:
        """Record a match to be played (again with the same id: nothing happens). Its
        deals come from the arena's secret and its id unless a ``seed`` is given."""
        if len(seat_bots) != rules.seats:
            raise Invalid(f"{rules} has {rules.seats} seats, not {len(seat_bots)}")
        params = {
            "id": match_id,
            "pool": pool_of(rules),
            "rules": str(rules),
            "seed": deal_seed(self.deal_key(), match_id) if seed is None else seed,
            "clock": Jsonb((clock or TimeControl()).to_json()),
            "rated": rated,
            "run_id": run_id,
        }
        with self._transaction() as conn:
            conn.execute(Q["insert_match"], params)
            for seat, bot_id in enumerate(seat_bots):
                conn.execute(
                    Q["insert_seat"], {"match_id": match_id, "seat": seat, "bot_id": bot_id}
                )

    def finish_match(self, match_id: str, record: dict[str, Any] | str) -> Finish:
        """Write the record and result and apply the Elo change, once per match, and say
        whether the match's run has any match left to play: one statement, the
        ``finish_match`` function of migration 0006. The record may come as JSON text, as
        the referee sends it: it is then written as it is, not decoded and encoded again."""
        text = record if isinstance(record, str) else None
        if isinstance(record, str):
            record = json.loads(record)
        assert isinstance(record, dict)
        winner = record.get("result", {}).get("winner")
        if winner not in (0, 1):
            raise Invalid(f"match {match_id}: the record has no winner")
        params = {
            "id": match_id,
            "record": Jsonb(record) if text is None else Jsonb(text, dumps=str),
            "winner": winner,
            "score": record["result"]["score"],
            "points": list(hand_points(record)),
            "faults": Jsonb(record.get("faults", {})),
            "k": rating.K,
            "scale": rating.SCALE,
        }
        with self._statement() as conn:
            row = conn.execute(Q["finish_match"], params).fetchone()
        if row is None:
            raise NotFound(f"no match {quoted(match_id)}")
        if not row["recorded"]:
            log.info("match %s was recorded before; nothing changes", match_id)
        elif row["rated"] and not row["bot_ids"]:
            log.warning("match %s: a bot sat on both teams; no rating change", match_id)
        moves = zip(row["befores"], row["afters"], strict=True)
        changes = dict(zip(row["bot_ids"], moves, strict=True))
        return Finish(row["recorded"], changes, row["run_done"])

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
        limit: int = 20,
        after: tuple[datetime, str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[tuple[MatchRow, list[str]]]:
        """Matches newest first, created in [since, until); ``after`` is the (created_at,
        id) the previous page ended on."""
        params = {
            "bot": bot,
            "pool": pool,
            "since": since,
            "until": until,
            "limit": limit,
            "after_time": after[0] if after else None,
            "after_id": after[1] if after else None,
        }
        with self._transaction() as conn:
            rows = conn.execute(Q["list_matches"], params).fetchall()
        out = []
        for row in rows:
            names = row.pop("seat_names")
            out.append((MatchRow(**row), names))
        return out

    def set_status(self, match_id: str, status: str) -> None:
        """Mark a match running or failed (a finished one stays finished)."""
        with self._transaction() as conn:
            conn.execute(Q["set_status"], {"id": match_id, "status": status})

    def leaderboard(self, pool: str) -> list[Standing]:
        with self._transaction() as conn:
            rows = conn.execute(Q["leaderboard"], {"pool": pool}).fetchall()
        return [Standing(r.pop("name"), RatingRow(**r)) for r in rows]

    # ---- tournaments ------------------------------------------------------------------

    def create_tournament(self, definition: Definition) -> TournamentRow:
        """Keep a definition; its listed bots must be registered."""
        listed = [*definition.bots, *([definition.challenger] if definition.challenger else [])]
        if listed:
            with self._transaction() as conn:
                found = conn.execute(Q["active_bots"], {"names": listed})
                known = {r["name"] for r in found}
            missing = [b for b in dict.fromkeys(listed) if b not in known]
            if missing:
                raise NotFound(f"no active bot named {', '.join(map(quoted, missing))}")
        params = {
            "name": definition.name,
            "definition": Jsonb(definition.to_json()),
            "schedule": definition.schedule,
        }
        try:
            with self._transaction() as conn:
                row = conn.execute(Q["insert_tournament"], params).fetchone()
        except Exists as e:
            raise Exists(f"a tournament named {quoted(definition.name)} already exists") from e
        assert row is not None
        return TournamentRow(**row)

    def tournament(self, key: str) -> TournamentRow | None:
        """A tournament by id or by name."""
        params = {"id": parse_id(key), "name": key}
        with self._transaction() as conn:
            row = conn.execute(Q["tournament"], params).fetchone()
        return None if row is None else TournamentRow(**row)

    def tournaments(self) -> list[tuple[TournamentRow, dict[str, Any]]]:
        """Every tournament with its number of runs and its last run's id and status."""
        with self._transaction() as conn:
            rows = conn.execute(Q["list_tournaments"]).fetchall()
        out = []
        for row in rows:
            extra = {k: row.pop(k) for k in ("last_run", "last_status", "runs")}
            out.append((TournamentRow(**row), extra))
        return out

    def scheduled_tournaments(self) -> list[TournamentRow]:
        with self._transaction() as conn:
            return [TournamentRow(**r) for r in conn.execute(Q["scheduled_tournaments"])]

    def create_run(
        self, tournament: TournamentRow, *, fired_for: datetime | None = None
    ) -> RunRow | None:
        """A new run of the tournament as it is defined now. For a scheduled firing, None
        when that firing already has its run."""
        definition = Definition.from_json(tournament.definition)
        seed = definition.seed if definition.seed is not None else secrets.randbits(62)
        params = {
            "tournament_id": tournament.id,
            "definition": Jsonb(tournament.definition),
            "seed": seed,
            "fired_for": fired_for,
        }
        with self._transaction() as conn:
            row = conn.execute(Q["insert_run"], params).fetchone()
            if fired_for is not None:
                conn.execute(Q["mark_fired"], {"id": tournament.id, "fired_for": fired_for})
        return None if row is None else RunRow(**row)

    def plan_run(self, run_id: int) -> list[str]:
        """Create the run's matches (once: the run row is locked while planning) and return
        the ids of those not yet finished or failed."""
        with self._transaction() as conn:
            row = conn.execute(Q["lock_run"], {"id": run_id}).fetchone()
            if row is None:
                raise NotFound(f"no run {run_id}")
            if row["status"] == "starting":
                try:
                    self._plan(conn, RunRow(**row))
                except ValueError as e:
                    conn.execute(Q["fail_run"], {"id": run_id, "error": str(e)})
                    log.warning("run %d cannot start: %s", run_id, e)
                    return []
        return self.run_unfinished(run_id)

    def _plan(self, conn: psycopg.Connection[Any], run: RunRow) -> None:
        definition = Definition.from_json(run.definition)
        if definition.pool:
            found = conn.execute(Q["pool_bots"], {"pool": definition.pool}).fetchall()
        else:
            found = conn.execute(Q["active_bots"], {"names": list(definition.bots)}).fetchall()
        ids = {r["name"]: r["id"] for r in found}
        gone = [b for b in definition.bots if b not in ids]
        if gone:
            log.warning("run %d: %s no longer active; playing without", run.id, gone)
        matches = plan(definition, sorted(ids), run.seed, self.deal_key())
        rules = Rules.parse(definition.rules)
        clock = Jsonb(definition.clock.to_json())
        conn.cursor().executemany(
            Q["insert_match"],
            [
                {"id": run_match_id(run.id, m.number), "pool": pool_of(rules),
                 "rules": str(rules), "seed": m.seed, "clock": clock, "rated": True,
                 "run_id": run.id}
                for m in matches
            ],
        )  # fmt: skip
        conn.cursor().executemany(
            Q["insert_seat"],
            [
                {"match_id": run_match_id(run.id, m.number), "seat": seat, "bot_id": ids[bot]}
                for m in matches
                for seat, bot in enumerate(m.seats)
            ],
        )
        conn.execute(
            Q["planned_run"], {"id": run.id, "total": len(matches), "participants": sorted(ids)}
        )

    def run(self, run_id: int) -> tuple[RunRow, str] | None:
        """A run and its tournament's name."""
        with self._transaction() as conn:
            row = conn.execute(Q["run"], {"id": run_id}).fetchone()
        return None if row is None else _run_and_name(row)

    def runs(self, tournament_id: int | None = None, limit: int = 50) -> list[tuple[RunRow, str]]:
        with self._transaction() as conn:
            rows = conn.execute(
                Q["list_runs"], {"tournament_id": tournament_id, "limit": limit}
            ).fetchall()
        return [_run_and_name(r) for r in rows]

    def run_progress(self, run_id: int) -> dict[str, Any]:
        """How many of the run's matches are finished, failed and running."""
        with self._transaction() as conn:
            row = conn.execute(Q["run_progress"], {"id": run_id}).fetchone()
        assert row is not None
        return dict(row)

    def run_standings(self, run: RunRow) -> dict[str, Any]:
        """The run's table from the matches finished so far."""
        with self._transaction() as conn:
            rows = conn.execute(Q["run_results"], {"id": run.id}).fetchall()
        results = [
            Result(r["id"], r["seat_names"], r["winner"], tuple(r["points"]), r["faults"])
            for r in rows
        ]
        return standings(run.participants, results)

    def finish_run(self, run_id: int) -> bool:
        """Write the final table of a run whose matches are all done; False when it was
        finished before or still has matches to play."""
        found = self.run(run_id)
        if found is None:
            raise NotFound(f"no run {run_id}")
        run = found[0]
        if run.status != "running":
            return False
        if not self.run_done(run_id):
            return False
        table = self.run_standings(run)
        with self._transaction() as conn:
            done = conn.execute(
                Q["finish_run"], {"id": run_id, "standings": Jsonb(table)}
            ).fetchone()
        return done is not None

    def run_matches(self, run_id: int, limit: int = 100) -> list[tuple[MatchRow, list[str]]]:
        """A run's matches and the bot at each seat, the latest played first."""
        with self._transaction() as conn:
            rows = conn.execute(Q["run_matches"], {"id": run_id, "limit": limit}).fetchall()
        out = []
        for row in rows:
            names = row.pop("seat_names")
            out.append((MatchRow(**row), names))
        return out

    def run_unfinished(self, run_id: int) -> list[str]:
        """The ids of the run's matches neither finished nor failed."""
        with self._transaction() as conn:
            return [r["id"] for r in conn.execute(Q["run_unfinished"], {"id": run_id})]

    def run_done(self, run_id: int) -> bool:
        """True when none of the run's matches is left to play (finished or failed)."""
        with self._statement() as conn:
            row = conn.execute(Q["run_done"], {"id": run_id}).fetchone()
        return bool(row and row["done"])

    def stalled_runs(self, now: datetime, stall_s: float) -> list[tuple[int, str, list[str]]]:
        """Runs that need a push at ``now``: (id, status, matches left to play)."""
        params = {"now": now, "stall_s": stall_s}
        with self._transaction() as conn:
            rows = conn.execute(Q["stalled_runs"], params).fetchall()
        return [(r["id"], r["status"], r["unfinished"]) for r in rows]

    def stalled_matches(self, now: datetime, stall_s: float) -> list[str]:
        """Matches outside runs that need sending again at ``now`` (no progress for
        ``stall_s`` seconds)."""
        with self._statement() as conn:
            rows = conn.execute(Q["stalled_matches"], {"now": now, "stall_s": stall_s})
            return [r["id"] for r in rows]

    def claim_match(self, match_id: str) -> tuple[MatchRow, list[str]]:
        """A match to play and the bot at each seat, marked running (started now) unless
        it was finished or failed, in one statement; the row returned is as it was
        before."""
        with self._statement() as conn:
            row = conn.execute(Q["claim_match"], {"id": match_id}).fetchone()
        if row is None:
            raise NotFound(f"no match {quoted(match_id)}")
        names = row.pop("seat_names")
        return MatchRow(**row), names

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
        """Every bot with its ratings (pool, elo, games), by name."""
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

    def rating_changes(self, name: str, match_ids: Sequence[str]) -> dict[str, tuple[float, float]]:
        """The (before, after) Elo of the bot for each of the matches that rated it."""
        with self._transaction() as conn:
            rows = conn.execute(Q["rating_changes"], {"name": name, "match_ids": list(match_ids)})
            return {r["match_id"]: (r["before"], r["after"]) for r in rows}


@contextmanager
def _translated() -> Iterator[None]:
    """psycopg's errors as the kinds of :mod:`arena.errors`: the one place that knows the
    driver's. A value the database cannot hold (a NUL byte in text, a number out of range,
    a broken constraint) is the request's fault; a lost connection is not."""
    try:
        yield
    except psycopg.errors.UniqueViolation as e:
        raise Exists(f"already exists: {e.diag.message_detail or e}") from e
    except (psycopg.DataError, psycopg.IntegrityError) as e:
        raise Invalid(f"the database cannot take this: {str(e).splitlines()[0]}") from e
    except psycopg.OperationalError as e:
        raise Unavailable(f"the database is unreachable: {e}") from e


def run_match_id(run_id: int, number: int) -> str:
    return f"r{run_id}-{number:04d}"


def _run_and_name(row: dict[str, Any]) -> tuple[RunRow, str]:
    name = row.pop("tournament")
    return RunRow(**row), name
    # ---- what the web pages read -------------------------------------------------------

-- A pool's ratings are one fit of all its rated results (arena/poolfit.py, docs/ratings.md),
-- no longer an online Elo moved match by match. What the fit needs is kept as matches are
-- recorded, exactly once, like the other running counts:
--   lineup_stats     per pool and pairing of teams (each a sorted array of bot ids, the
--                    pair of arrays in order): rated matches, the first team's credited
--                    wins, and of the duplicate pairs played whole, how many the first
--                    team lost both of, split, and won both of;
--   ratings          elo and deviation are the latest fit's (deviation NULL until fitted);
--                    games, wins and losses are still counted as each match is recorded;
--   matches.fitted   whether a fit has counted the rated match (and written its rating
--                    events: each bot's rating before and after the fit that first
--                    counted it);
--   pool_fits        also keeps the pairs' measured dispersion and when it was fitted.
-- The online Elo's old history goes: its numbers were of another model.

CREATE TABLE lineup_stats (
    pool       text NOT NULL,
    team_a     bigint[] NOT NULL,
    team_b     bigint[] NOT NULL,
    games      integer NOT NULL,
    wins       integer NOT NULL,  -- of team_a
    lost_both  integer NOT NULL DEFAULT 0,  -- duplicate pairs, by team_a's wins in them
    split      integer NOT NULL DEFAULT 0,
    won_both   integer NOT NULL DEFAULT 0,
    PRIMARY KEY (pool, team_a, team_b),
    CHECK (team_a < team_b)
);

ALTER TABLE ratings ADD COLUMN deviation double precision;
ALTER TABLE matches ADD COLUMN fitted boolean NOT NULL DEFAULT false;
CREATE INDEX matches_to_fit ON matches (pool) WHERE status = 'finished' AND rated AND NOT fitted;
ALTER TABLE pool_fits
    ADD COLUMN dispersion double precision NOT NULL DEFAULT 1,
    ADD COLUMN fitted_at timestamptz NOT NULL DEFAULT now();

-- The teams of a recorded match, in the order lineup_stats keeps them, and whether the
-- first of them won; no row when a bot sits on both teams (it rates nobody).
CREATE FUNCTION match_lineup(the_match text, OUT team_a bigint[], OUT team_b bigint[],
                             OUT a_won boolean) RETURNS SETOF record LANGUAGE sql AS $$
    WITH sides AS (
        SELECT array_agg(DISTINCT s.bot_id ORDER BY s.bot_id) FILTER (WHERE s.seat % 2 = 0) AS t0,
               array_agg(DISTINCT s.bot_id ORDER BY s.bot_id) FILTER (WHERE s.seat % 2 = 1) AS t1,
               (SELECT m.winner FROM matches m WHERE m.id = the_match) AS winner
        FROM match_seats s WHERE s.match_id = the_match
    )
    SELECT least(t0, t1), greatest(t0, t1), (winner = 0) <> (t0 > t1)
    FROM sides WHERE winner IS NOT NULL AND NOT (t0 && t1);
$$;

-- The exactly-once path of migration 0014 without the online Elo: a rated match with a
-- credited winner counts a game (and a win or a loss) for each of its bots; the ratings
-- themselves are the fit's. The match and its duplicate twin are locked first, in id
-- order, so that the second twin to be recorded sees the first (and counts their pair).
DROP FUNCTION finish_match(text, jsonb, smallint, smallint[], smallint[], smallint[], jsonb,
                           float8, float8);
CREATE FUNCTION finish_match(
    the_match text, new_record jsonb, new_winner smallint, new_forfeit smallint[],
    new_score smallint[], new_points smallint[], new_faults jsonb,
    OUT recorded boolean, OUT run_done boolean, OUT rated boolean, OUT pool text
) RETURNS SETOF record LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    m record;
BEGIN
    PERFORM 1 FROM matches x
    WHERE x.id = the_match OR x.id = (SELECT y.twin FROM matches y WHERE y.id = the_match)
    ORDER BY x.id FOR UPDATE;
    UPDATE matches x
    SET status = 'finished', record = new_record, winner = new_winner, forfeit = new_forfeit,
        score = new_score, points = new_points, faults = new_faults, finished_at = now()
    WHERE x.id = the_match AND x.status <> 'finished'
    RETURNING x.pool, x.rated, x.run_id INTO m;
    recorded := FOUND;
    IF NOT recorded THEN
        SELECT x.pool, x.rated, x.run_id INTO m FROM matches x WHERE x.id = the_match;
        IF NOT FOUND THEN
            RETURN;
        END IF;
    END IF;
    rated := m.rated;
    pool := m.pool;
    IF recorded AND m.rated AND new_winner IS NOT NULL AND (  -- and no bot on both teams
        SELECT count(DISTINCT s.bot_id) = count(DISTINCT (s.bot_id, s.seat % 2))
        FROM match_seats s WHERE s.match_id = the_match
    ) THEN
        -- each bot's rating row, counted in bot-id order (no deadlocks)
        INSERT INTO ratings AS r (bot_id, pool, games, wins, losses)
        SELECT s.bot_id, m.pool, 1, (min(s.seat) % 2 = new_winner)::int,
               (min(s.seat) % 2 <> new_winner)::int
        FROM match_seats s WHERE s.match_id = the_match GROUP BY s.bot_id ORDER BY s.bot_id
        ON CONFLICT ON CONSTRAINT ratings_pkey DO UPDATE
        SET games = r.games + 1, wins = r.wins + excluded.wins,
            losses = r.losses + excluded.losses, updated_at = now();
    END IF;
    run_done := m.run_id IS NOT NULL AND no_match_left(m.run_id);
    RETURN NEXT;
END $$;

-- The running counts (migrations 0008 and 0014) and the lineups the fit reads.
CREATE OR REPLACE FUNCTION count_finished_match() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    mine record;
    other record;
BEGIN
    WITH seated AS (
        SELECT DISTINCT bot_id, seat % 2 AS team FROM match_seats WHERE match_id = NEW.id
    )
    INSERT INTO pair_stats AS p (pool, bot_id, opponent_id, games, wins, rated_wins)
    SELECT NEW.pool, a.bot_id, o.bot_id, 1, max(coalesce(a.team = NEW.winner, false)::int),
           max(coalesce(NEW.rated AND a.team = NEW.winner, false)::int)
    FROM seated a JOIN seated o ON o.team <> a.team
    GROUP BY a.bot_id, o.bot_id ORDER BY a.bot_id, o.bot_id
    ON CONFLICT (pool, bot_id, opponent_id) DO UPDATE
    SET games = p.games + 1, wins = p.wins + excluded.wins,
        rated_wins = p.rated_wins + excluded.rated_wins;

    INSERT INTO bot_pool_stats AS s
        (bot_id, pool, matches, timeouts, rejected, disconnects, substituted, errors, forfeits)
    SELECT b.id, NEW.pool, 1,
        coalesce((NEW.faults -> b.name ->> 'timeouts')::int, 0),
        coalesce((NEW.faults -> b.name ->> 'rejected')::int, 0),
        coalesce((NEW.faults -> b.name ->> 'disconnects')::int, 0),
        coalesce((NEW.faults -> b.name ->> 'substituted')::int, 0),
        coalesce((NEW.faults -> b.name ->> 'errors')::int, 0),
        EXISTS (SELECT 1 FROM match_seats x WHERE x.match_id = NEW.id AND x.bot_id = b.id
                AND x.seat % 2 = ANY (coalesce(NEW.forfeit, '{}')))::int
    FROM bots b
    WHERE b.id IN (SELECT bot_id FROM match_seats WHERE match_id = NEW.id)
    ORDER BY b.id
    ON CONFLICT (bot_id, pool) DO UPDATE
    SET matches = s.matches + 1, timeouts = s.timeouts + excluded.timeouts,
        rejected = s.rejected + excluded.rejected,
        disconnects = s.disconnects + excluded.disconnects,
        substituted = s.substituted + excluded.substituted,
        errors = s.errors + excluded.errors, forfeits = s.forfeits + excluded.forfeits;

    IF NOT NEW.rated THEN
        RETURN NULL;
    END IF;
    SELECT * INTO mine FROM match_lineup(NEW.id);
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO lineup_stats AS l (pool, team_a, team_b, games, wins)
    VALUES (NEW.pool, mine.team_a, mine.team_b, 1, mine.a_won::int)
    ON CONFLICT (pool, team_a, team_b) DO UPDATE
    SET games = l.games + 1, wins = l.wins + excluded.wins;
    -- the second of a duplicate pair to be recorded counts the pair (finish_match locked
    -- the twin, so a twin recorded just before is seen finished here)
    IF NEW.twin IS NOT NULL AND EXISTS (
        SELECT 1 FROM matches t WHERE t.id = NEW.twin AND t.status = 'finished' AND t.rated
    ) THEN
        SELECT * INTO other FROM match_lineup(NEW.twin);
        IF FOUND AND other.team_a = mine.team_a AND other.team_b = mine.team_b THEN
            UPDATE lineup_stats l
            SET lost_both = l.lost_both + (NOT mine.a_won AND NOT other.a_won)::int,
                split = l.split + (mine.a_won <> other.a_won)::int,
                won_both = l.won_both + (mine.a_won AND other.a_won)::int
            WHERE l.pool = NEW.pool AND l.team_a = mine.team_a AND l.team_b = mine.team_b;
        END IF;
    END IF;
    RETURN NULL;
END $$;

-- The same lineups from the whole history (arena.store.Store.recount).
CREATE FUNCTION recount_lineups() RETURNS void LANGUAGE sql AS $$
    TRUNCATE lineup_stats;
    WITH played AS (
        SELECT m.id, m.pool, m.twin, l.team_a, l.team_b, l.a_won
        FROM matches m, LATERAL match_lineup(m.id) l
        WHERE m.status = 'finished' AND m.rated
    ), pairs AS (
        SELECT p.pool, p.team_a, p.team_b, p.a_won::int + q.a_won::int AS k
        FROM played p JOIN played q ON q.id = p.twin AND p.id < q.id
             AND q.team_a = p.team_a AND q.team_b = p.team_b
    ), singles AS (
        SELECT pool, team_a, team_b, count(*) AS games, sum(a_won::int) AS wins
        FROM played GROUP BY pool, team_a, team_b
    ), paired AS (
        SELECT pool, team_a, team_b, count(*) FILTER (WHERE k = 0) AS lost_both,
               count(*) FILTER (WHERE k = 1) AS split, count(*) FILTER (WHERE k = 2) AS won_both
        FROM pairs GROUP BY pool, team_a, team_b
    )
    INSERT INTO lineup_stats (pool, team_a, team_b, games, wins, lost_both, split, won_both)
    SELECT s.pool, s.team_a, s.team_b, s.games, s.wins, coalesce(p.lost_both, 0),
           coalesce(p.split, 0), coalesce(p.won_both, 0)
    FROM singles s LEFT JOIN paired p USING (pool, team_a, team_b);
$$;
SELECT recount_lineups();

-- Start the history afresh: the events of the online Elo go, every recorded match is
-- counted by the first fit of its pool (which writes its events anew), and the pools are
-- fitted again when next read.
DELETE FROM rating_events;
UPDATE ratings SET elo = 1500, deviation = NULL;
TRUNCATE pool_fits;

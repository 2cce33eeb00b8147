-- Results an organizer can stake a course on.
--   matches.twin     the match dealt the same cards with the seats exchanged (a duplicate
--                    pair's other half): a match is sealed, its record and result shown to
--                    the organizer only, until its twin is played (docs/web.md);
--   matches.absent   what a bot's absence does to the result: 'forfeit' (a bot whose seats
--                    were played for it in more than half its decisions loses the match for
--                    its team, whatever the score) or 'play-on' (the score stands);
--   matches.forfeit  the teams that lost by forfeit (NULL: none). `winner` is the team
--                    credited with the match: the one that won at the table, or the other
--                    when the first forfeited; NULL when both did (nobody gains);
--   runs.deals       the deals a run's matches got: secret per match, duplicate because
--                    every bot is hosted, duplicate because the organizer trusted them, or
--                    those of a fixed seed (trusted too): arena.tournament.DEALS;
--   bot_pool_stats   also counts errors (the bot's own code failed to decide) and forfeits.

ALTER TABLE matches
    ADD COLUMN twin text,
    ADD COLUMN absent text NOT NULL DEFAULT 'forfeit' CHECK (absent IN ('forfeit', 'play-on')),
    ADD COLUMN forfeit smallint[];

ALTER TABLE runs
    ADD COLUMN deals text
        CHECK (deals IN ('secret', 'duplicate-hosted', 'duplicate-trusted', 'fixed-trusted'));

ALTER TABLE bot_pool_stats
    ADD COLUMN errors integer NOT NULL DEFAULT 0,
    ADD COLUMN forfeits integer NOT NULL DEFAULT 0;

-- The exactly-once path of migration 0006, taking the credited result: `new_winner` is the
-- team credited with the match (NULL when both teams forfeited: no rating moves) and
-- `new_forfeit` the teams that forfeited.
DROP FUNCTION finish_match(text, jsonb, smallint, smallint[], smallint[], jsonb, float8, float8);
CREATE FUNCTION finish_match(
    the_match text, new_record jsonb, new_winner smallint, new_forfeit smallint[],
    new_score smallint[], new_points smallint[], new_faults jsonb, k float8, scale float8,
    OUT recorded boolean, OUT run_done boolean, OUT rated boolean,
    OUT bot_ids bigint[], OUT befores float8[], OUT afters float8[]
) RETURNS SETOF record LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    m record;
BEGIN
    -- a second finisher waits on the row lock, re-checks the status and gets no row
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
    bot_ids := '{}';
    befores := '{}';
    afters := '{}';
    IF recorded AND m.rated AND new_winner IS NOT NULL AND (  -- and no bot on both teams
        SELECT count(DISTINCT s.bot_id) = count(DISTINCT (s.bot_id, s.seat % 2))
        FROM match_seats s WHERE s.match_id = the_match
    ) THEN
        -- create the missing ratings and lock them all, in bot-id order (no deadlocks)
        INSERT INTO ratings AS r (bot_id, pool)
        SELECT DISTINCT s.bot_id, m.pool FROM match_seats s WHERE s.match_id = the_match ORDER BY 1
        ON CONFLICT ON CONSTRAINT ratings_pkey DO UPDATE SET pool = r.pool;
        -- a new query, so it reads the ratings as the locks left them
        WITH seated AS (
            SELECT DISTINCT s.bot_id, s.seat % 2 AS team, r.elo
            FROM match_seats s JOIN ratings r ON r.bot_id = s.bot_id AND r.pool = m.pool
            WHERE s.match_id = the_match
        ), change AS (
            SELECT k * ((new_winner = 0)::int - 1.0 / (1.0 + power(10::float8,
                (avg(elo) FILTER (WHERE team = 1) - avg(elo) FILTER (WHERE team = 0)) / scale)))
                AS d
            FROM seated
        ), moved AS (
            SELECT s.bot_id, s.team, s.elo AS before,
                   s.elo + CASE WHEN s.team = 0 THEN c.d ELSE -c.d END AS after
            FROM seated s, change c
        ), updated AS (
            UPDATE ratings r
            SET elo = v.after, games = r.games + 1, wins = r.wins + (v.team = new_winner)::int,
                losses = r.losses + (v.team <> new_winner)::int, updated_at = now()
            FROM moved v WHERE r.bot_id = v.bot_id AND r.pool = m.pool
        ), events AS (
            INSERT INTO rating_events (bot_id, match_id, pool, before, after)
            SELECT v.bot_id, the_match, m.pool, v.before, v.after FROM moved v ORDER BY v.bot_id
        )
        SELECT array_agg(v.bot_id ORDER BY v.bot_id), array_agg(v.before ORDER BY v.bot_id),
               array_agg(v.after ORDER BY v.bot_id)
        INTO bot_ids, befores, afters
        FROM moved v;
    END IF;
    run_done := m.run_id IS NOT NULL AND no_match_left(m.run_id);
    RETURN NEXT;
END $$;

-- The running counts of migration 0008, with errors and forfeits, and a credited winner
-- that may be nobody (both teams forfeited: neither side won).
CREATE OR REPLACE FUNCTION count_finished_match() RETURNS trigger LANGUAGE plpgsql AS $$
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
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION recount_finished_matches() RETURNS void LANGUAGE sql AS $$
    TRUNCATE pair_stats, bot_pool_stats, pool_fits;
    WITH seated AS (
        SELECT DISTINCT s.match_id, s.bot_id, s.seat % 2 AS team
        FROM match_seats s JOIN matches m ON m.id = s.match_id AND m.status = 'finished'
    ), pairs AS (
        SELECT m.pool, a.bot_id, o.bot_id AS opponent_id, m.id,
               max(coalesce(a.team = m.winner, false)::int) AS won,
               max(coalesce(m.rated AND a.team = m.winner, false)::int) AS rated_won
        FROM seated a JOIN seated o ON o.match_id = a.match_id AND o.team <> a.team
        JOIN matches m ON m.id = a.match_id
        GROUP BY m.pool, a.bot_id, o.bot_id, m.id
    )
    INSERT INTO pair_stats (pool, bot_id, opponent_id, games, wins, rated_wins)
    SELECT pool, bot_id, opponent_id, count(*), sum(won), sum(rated_won)
    FROM pairs GROUP BY pool, bot_id, opponent_id;
    INSERT INTO bot_pool_stats
        (bot_id, pool, matches, timeouts, rejected, disconnects, substituted, errors, forfeits)
    SELECT b.id, m.pool, count(*),
        coalesce(sum((m.faults -> b.name ->> 'timeouts')::int), 0),
        coalesce(sum((m.faults -> b.name ->> 'rejected')::int), 0),
        coalesce(sum((m.faults -> b.name ->> 'disconnects')::int), 0),
        coalesce(sum((m.faults -> b.name ->> 'substituted')::int), 0),
        coalesce(sum((m.faults -> b.name ->> 'errors')::int), 0),
        count(*) FILTER (WHERE EXISTS (
            SELECT 1 FROM match_seats x WHERE x.match_id = m.id AND x.bot_id = b.id
            AND x.seat % 2 = ANY (coalesce(m.forfeit, '{}'))))
    FROM matches m
    JOIN (SELECT DISTINCT match_id, bot_id FROM match_seats) s ON s.match_id = m.id
    JOIN bots b ON b.id = s.bot_id
    WHERE m.status = 'finished'
    GROUP BY b.id, m.pool;
$$;

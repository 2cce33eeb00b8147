-- Reads that cost the same whatever the number of matches stored. What a page shows of a
-- pool's history is kept up to date as each match is recorded, in the same transaction
-- (a trigger on the match becoming finished, so the exactly-once path of migration 0006
-- counts it exactly once), instead of being summed from every match on every view:
--   pair_stats      per pool and ordered pair of bots on opposite teams: matches, wins,
--                   rated wins (the leaderboard's Bradley-Terry fit, a bot's results
--                   against each opponent);
--   bot_pool_stats  per bot and pool: finished matches and the faults summed (a bot's
--                   page), and through their sum a pool's version;
--   pool_fits       the pool's Bradley-Terry intervals, computed once per version.

CREATE TABLE pair_stats (
    pool         text NOT NULL,
    bot_id       bigint NOT NULL REFERENCES bots (id),
    opponent_id  bigint NOT NULL REFERENCES bots (id),
    games        integer NOT NULL,  -- finished matches with the two on opposite teams
    wins         integer NOT NULL,  -- of which bot_id's team won
    rated_wins   integer NOT NULL,  -- of which rated, and bot_id's team won
    PRIMARY KEY (pool, bot_id, opponent_id)
);

CREATE TABLE bot_pool_stats (
    bot_id       bigint NOT NULL REFERENCES bots (id),
    pool         text NOT NULL,
    matches      integer NOT NULL,  -- finished matches the bot sat in
    timeouts     integer NOT NULL,
    rejected     integer NOT NULL,
    disconnects  integer NOT NULL,
    substituted  integer NOT NULL,
    PRIMARY KEY (bot_id, pool)
);
CREATE INDEX bot_pool_stats_by_pool ON bot_pool_stats (pool);

CREATE TABLE pool_fits (
    pool     text PRIMARY KEY,
    version  bigint NOT NULL,  -- the pool's finished matches (bot_pool_stats) when fitted
    halves   jsonb NOT NULL    -- bot name -> half the 95% interval, in Elo points
);

-- The counts of one finished match, added once: pairs are taken in (bot, opponent) order
-- and bots in id order, so that two matches recorded at once lock rows in one order.
CREATE FUNCTION count_finished_match() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH seated AS (
        SELECT DISTINCT bot_id, seat % 2 AS team FROM match_seats WHERE match_id = NEW.id
    )
    INSERT INTO pair_stats AS p (pool, bot_id, opponent_id, games, wins, rated_wins)
    SELECT NEW.pool, a.bot_id, o.bot_id, 1, max((a.team = NEW.winner)::int),
           max((NEW.rated AND a.team = NEW.winner)::int)
    FROM seated a JOIN seated o ON o.team <> a.team
    GROUP BY a.bot_id, o.bot_id ORDER BY a.bot_id, o.bot_id
    ON CONFLICT (pool, bot_id, opponent_id) DO UPDATE
    SET games = p.games + 1, wins = p.wins + excluded.wins,
        rated_wins = p.rated_wins + excluded.rated_wins;

    INSERT INTO bot_pool_stats AS s
        (bot_id, pool, matches, timeouts, rejected, disconnects, substituted)
    SELECT b.id, NEW.pool, 1,
        coalesce((NEW.faults -> b.name ->> 'timeouts')::int, 0),
        coalesce((NEW.faults -> b.name ->> 'rejected')::int, 0),
        coalesce((NEW.faults -> b.name ->> 'disconnects')::int, 0),
        coalesce((NEW.faults -> b.name ->> 'substituted')::int, 0)
    FROM bots b
    WHERE b.id IN (SELECT bot_id FROM match_seats WHERE match_id = NEW.id)
    ORDER BY b.id
    ON CONFLICT (bot_id, pool) DO UPDATE
    SET matches = s.matches + 1, timeouts = s.timeouts + excluded.timeouts,
        rejected = s.rejected + excluded.rejected,
        disconnects = s.disconnects + excluded.disconnects,
        substituted = s.substituted + excluded.substituted;
    RETURN NULL;
END $$;

CREATE TRIGGER match_finished AFTER UPDATE OF status ON matches
FOR EACH ROW WHEN (OLD.status <> 'finished' AND NEW.status = 'finished')
EXECUTE FUNCTION count_finished_match();

-- The same counts from the whole history at once: for the matches recorded before this
-- migration, and to check the running counts against (arena.store.Store.recount).
CREATE FUNCTION recount_finished_matches() RETURNS void LANGUAGE sql AS $$
    TRUNCATE pair_stats, bot_pool_stats, pool_fits;
    WITH seated AS (
        SELECT DISTINCT s.match_id, s.bot_id, s.seat % 2 AS team
        FROM match_seats s JOIN matches m ON m.id = s.match_id AND m.status = 'finished'
    ), pairs AS (
        SELECT m.pool, a.bot_id, o.bot_id AS opponent_id, m.id,
               max((a.team = m.winner)::int) AS won,
               max((m.rated AND a.team = m.winner)::int) AS rated_won
        FROM seated a JOIN seated o ON o.match_id = a.match_id AND o.team <> a.team
        JOIN matches m ON m.id = a.match_id
        GROUP BY m.pool, a.bot_id, o.bot_id, m.id
    )
    INSERT INTO pair_stats (pool, bot_id, opponent_id, games, wins, rated_wins)
    SELECT pool, bot_id, opponent_id, count(*), sum(won), sum(rated_won)
    FROM pairs GROUP BY pool, bot_id, opponent_id;
    INSERT INTO bot_pool_stats
        (bot_id, pool, matches, timeouts, rejected, disconnects, substituted)
    SELECT b.id, m.pool, count(*),
        coalesce(sum((m.faults -> b.name ->> 'timeouts')::int), 0),
        coalesce(sum((m.faults -> b.name ->> 'rejected')::int), 0),
        coalesce(sum((m.faults -> b.name ->> 'disconnects')::int), 0),
        coalesce(sum((m.faults -> b.name ->> 'substituted')::int), 0)
    FROM matches m
    JOIN (SELECT DISTINCT match_id, bot_id FROM match_seats) s ON s.match_id = m.id
    JOIN bots b ON b.id = s.bot_id
    WHERE m.status = 'finished'
    GROUP BY b.id, m.pool;
$$;
SELECT recount_finished_matches();

-- The rest of the reads through indexes: a bot's latest rating changes in a pool (its
-- history, the leaderboard's trend lines: in time order, which the primary key cannot
-- give, so that no plan walks every newer event back to a bot that stopped playing);
-- the latest matches, of a pool or of all.
CREATE INDEX rating_events_by_bot ON rating_events (bot_id, pool, created_at DESC, id DESC);
CREATE INDEX matches_by_pool_created ON matches (pool, created_at DESC, id DESC);
CREATE INDEX matches_by_created ON matches (created_at DESC, id DESC);

-- A bot's latest matches, of all pools or of one, through indexes of its seats by time: a
-- seat carries its match's pool and creation time (copied from the match as it is written).
ALTER TABLE match_seats ADD COLUMN pool text, ADD COLUMN created_at timestamptz;
UPDATE match_seats s SET pool = m.pool, created_at = m.created_at
FROM matches m WHERE m.id = s.match_id;
ALTER TABLE match_seats ALTER COLUMN pool SET NOT NULL, ALTER COLUMN created_at SET NOT NULL;
CREATE INDEX match_seats_by_bot_created ON match_seats (bot_id, created_at DESC, match_id DESC);
CREATE INDEX match_seats_by_bot_pool_created
    ON match_seats (bot_id, pool, created_at DESC, match_id DESC);
DROP INDEX match_seats_by_bot;

-- The organizer in control (docs/events.md): tournaments edited, unscheduled and deleted;
-- runs paused, resumed and cancelled; matches cancelled, voided and replayed; bots
-- withdrawn, disqualified, reinstated and retired; who did what, in an action log; more
-- than one organizer.

-- A deleted tournament keeps its row (its runs keep their records); its name is free again.
ALTER TABLE tournaments ADD COLUMN deleted_at timestamptz;
ALTER TABLE tournaments DROP CONSTRAINT tournaments_name_key;
CREATE UNIQUE INDEX tournaments_live_name ON tournaments (name) WHERE deleted_at IS NULL;

-- A run may be paused (nothing new starts) and cancelled (what had not started never
-- will). Its entries are frozen when it is made: each participant and who plays for it
-- (its active hosted version then, or itself), as {name: [bot row id, seat name]}.
ALTER TABLE runs DROP CONSTRAINT runs_status_check;
ALTER TABLE runs ADD CONSTRAINT runs_status_check
    CHECK (status IN ('starting', 'running', 'paused', 'finished', 'cancelled', 'failed'));
ALTER TABLE runs ADD COLUMN entries jsonb;

-- A match not started when its run was cancelled, or its bot withdrawn, is cancelled: it
-- is never played. A finished match may be voided (its result no longer counts, for the
-- run's table or for any rating), and a failed or voided match of a run replayed: a new
-- match on the same deals and seats, `replay_of` naming the one it replaces. `sent_at`:
-- when its task was last handed to the broker (a run keeps a bounded window in flight).
ALTER TABLE matches DROP CONSTRAINT matches_status_check;
ALTER TABLE matches ADD CONSTRAINT matches_status_check
    CHECK (status IN ('scheduled', 'running', 'finished', 'failed', 'cancelled'));
ALTER TABLE matches
    ADD COLUMN voided text,  -- why its result no longer counts; NULL: it counts
    ADD COLUMN replay_of text REFERENCES matches (id),
    ADD COLUMN sent_at timestamptz;
CREATE UNIQUE INDEX matches_replayed_once ON matches (replay_of) WHERE replay_of IS NOT NULL;
DROP INDEX matches_unfinished_outside_runs;
CREATE INDEX matches_unfinished_outside_runs ON matches (created_at)
WHERE run_id IS NULL AND status IN ('scheduled', 'running');
CREATE INDEX matches_run_unsent ON matches (run_id, id)
WHERE run_id IS NOT NULL AND status = 'scheduled';

CREATE OR REPLACE FUNCTION no_match_left(the_run bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM runs r WHERE r.id = the_run FOR UPDATE;
    RETURN NOT EXISTS (SELECT 1 FROM matches m
                       WHERE m.run_id = the_run AND m.status IN ('scheduled', 'running'));
END $$;

-- A bot's standing: active, or withdrawn, disqualified or retired (with the reason). Only
-- an active bot connects, is scheduled, or enters a run; `active` is kept as it was read.
ALTER TABLE bots
    ADD COLUMN state text NOT NULL DEFAULT 'active'
        CHECK (state IN ('active', 'withdrawn', 'disqualified', 'retired')),
    ADD COLUMN state_reason text NOT NULL DEFAULT '';
UPDATE bots SET state = 'retired', state_reason = 'made inactive before states existed'
WHERE NOT active;
ALTER TABLE bots DROP COLUMN active;
ALTER TABLE bots ADD COLUMN active boolean GENERATED ALWAYS AS (state = 'active') STORED;

-- Who did what: every organizer's and owner's action, as it was done (arena log).
CREATE TABLE action_log (
    id       bigserial PRIMARY KEY,
    at       timestamptz NOT NULL DEFAULT now(),
    actor    text NOT NULL,  -- an organizer's name, or "bot NAME" for a bot's own token
    action   text NOT NULL,  -- register, submit, create, edit, start, cancel, ...
    subject  text NOT NULL,  -- what it was done to: a bot, a tournament, a run, a match
    detail   jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX action_log_by_subject ON action_log (subject, id DESC);

-- Named organizers, each with a token of their own (only its hash is kept). The one from
-- ARENA_ADMIN_TOKEN or ARENA_HOME is not a row: it is the first, named "organizer".
CREATE TABLE organizers (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    token_hash  bytea NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    removed_at  timestamptz
);

-- A voided match counts nowhere: not in a run's table, not in any kept count, not for any
-- rating. Voiding one also makes it unrated (so that a twin recorded later does not pair
-- with it), and one voided before it finished (a disqualified bot's match still playing)
-- is recorded without being counted.
DROP TRIGGER match_finished ON matches;
CREATE TRIGGER match_finished AFTER UPDATE OF status ON matches
FOR EACH ROW WHEN (OLD.status <> 'finished' AND NEW.status = 'finished' AND NEW.voided IS NULL)
EXECUTE FUNCTION count_finished_match();

CREATE OR REPLACE FUNCTION recount_finished_matches() RETURNS void LANGUAGE sql AS $$
    TRUNCATE pair_stats, bot_pool_stats, pool_fits;
    WITH seated AS (
        SELECT DISTINCT s.match_id, s.bot_id, s.seat % 2 AS team
        FROM match_seats s JOIN matches m ON m.id = s.match_id AND m.status = 'finished'
            AND m.voided IS NULL
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
    WHERE m.status = 'finished' AND m.voided IS NULL
    GROUP BY b.id, m.pool;
$$;

-- Each rating row's games, wins and losses again from the history, as finish_match counts
-- them: rated matches with a credited winner and no bot on both teams.
CREATE FUNCTION recount_ratings() RETURNS void LANGUAGE sql AS $$
    WITH counted AS (
        SELECT m.id, m.pool, m.winner FROM matches m
        WHERE m.status = 'finished' AND m.rated AND m.voided IS NULL AND m.winner IS NOT NULL
          AND (SELECT count(DISTINCT s.bot_id) = count(DISTINCT (s.bot_id, s.seat % 2))
               FROM match_seats s WHERE s.match_id = m.id)
    ), per_bot AS (
        SELECT s.bot_id, c.pool, count(*) AS games,
               count(*) FILTER (WHERE s.team = c.winner) AS wins
        FROM counted c
        JOIN LATERAL (SELECT x.bot_id, min(x.seat) % 2 AS team FROM match_seats x
                      WHERE x.match_id = c.id GROUP BY x.bot_id) s ON true
        GROUP BY s.bot_id, c.pool
    ), wanted AS (
        SELECT r.bot_id, r.pool, coalesce(p.games, 0) AS games, coalesce(p.wins, 0) AS wins,
               coalesce(p.games - p.wins, 0) AS losses
        FROM ratings r LEFT JOIN per_bot p ON p.bot_id = r.bot_id AND p.pool = r.pool
    )
    UPDATE ratings r SET games = w.games, wins = w.wins, losses = w.losses
    FROM wanted w
    WHERE r.bot_id = w.bot_id AND r.pool = w.pool
      AND (r.games, r.wins, r.losses) IS DISTINCT FROM (w.games, w.wins, w.losses);
$$;

CREATE OR REPLACE FUNCTION recount_lineups() RETURNS void LANGUAGE sql AS $$
    TRUNCATE lineup_stats;
    WITH played AS (
        SELECT m.id, m.pool, m.twin, l.team_a, l.team_b, l.a_won
        FROM matches m, LATERAL match_lineup(m.id) l
        WHERE m.status = 'finished' AND m.rated AND m.voided IS NULL
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

-- Named queries: each starts with a "-- name: NAME" line (loaded by arena/store/sql.py).

-- name: insert_bot
INSERT INTO bots (name, owner, token_hash) VALUES (%(name)s, %(owner)s, %(token_hash)s)
RETURNING *;

-- name: bot_by_token_hash
SELECT * FROM bots WHERE token_hash = %(token_hash)s AND active;

-- name: insert_match
INSERT INTO matches (id, pool, rules, seed, clock, rated, run_id)
VALUES (%(id)s, %(pool)s, %(rules)s, %(seed)s, %(clock)s, %(rated)s, %(run_id)s)
ON CONFLICT (id) DO NOTHING;

-- name: deal_key
SELECT deal_key FROM arena_secret;

-- name: insert_seat
INSERT INTO match_seats (match_id, seat, bot_id) VALUES (%(match_id)s, %(seat)s, %(bot_id)s)
ON CONFLICT DO NOTHING;

-- name: finish_match
-- The exactly-once path, in one statement (migration 0006).
SELECT * FROM finish_match(%(id)s, %(record)s, %(winner)s::smallint, %(score)s::smallint[],
                           %(points)s::smallint[], %(faults)s, %(k)s, %(scale)s);

-- name: leaderboard
SELECT r.*, b.name FROM ratings r JOIN bots b ON b.id = r.bot_id
WHERE r.pool = %(pool)s ORDER BY r.elo DESC, b.name;

-- name: list_bots
SELECT * FROM bots ORDER BY name;

-- name: match_with_seats
SELECT m.*, ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
                  WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM matches m WHERE m.id = %(id)s;

-- name: list_matches
-- Newest first; the page token is the (created_at, id) of the last row of the page before.
SELECT m.*, ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
                  WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM matches m
WHERE (%(pool)s::text IS NULL OR m.pool = %(pool)s)
  AND (%(bot)s::text IS NULL OR EXISTS (
        SELECT 1 FROM match_seats s JOIN bots b ON b.id = s.bot_id
        WHERE s.match_id = m.id AND b.name = %(bot)s))
  AND (%(after_time)s::timestamptz IS NULL OR (m.created_at, m.id) < (%(after_time)s, %(after_id)s))
  AND (%(since)s::timestamptz IS NULL OR m.created_at >= %(since)s)
  AND (%(until)s::timestamptz IS NULL OR m.created_at < %(until)s)
ORDER BY m.created_at DESC, m.id DESC
LIMIT %(limit)s;

-- name: set_status
UPDATE matches SET status = %(status)s,
    started_at = CASE WHEN %(status)s = 'running' THEN now() ELSE started_at END
WHERE id = %(id)s AND status <> 'finished';

-- name: rotate_token
UPDATE bots SET token_hash = %(token_hash)s WHERE name = %(name)s RETURNING *;

-- name: rating_history
SELECT e.match_id, e.before, e.after, e.created_at
FROM rating_events e JOIN bots b ON b.id = e.bot_id
WHERE b.name = %(bot)s AND e.pool = %(pool)s ORDER BY e.id;

-- name: pool_results
SELECT m.winner, ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
                       WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM matches m WHERE m.pool = %(pool)s AND m.status = 'finished' AND m.rated;

-- ---- tournaments --------------------------------------------------------------------

-- name: insert_tournament
INSERT INTO tournaments (name, definition, schedule)
VALUES (%(name)s, %(definition)s, %(schedule)s) RETURNING *;

-- name: tournament
SELECT * FROM tournaments WHERE id = %(id)s OR name = %(name)s;

-- name: list_tournaments
SELECT t.*, last.id AS last_run, last.status AS last_status,
       (SELECT count(*) FROM runs WHERE tournament_id = t.id) AS runs
FROM tournaments t
LEFT JOIN LATERAL (SELECT id, status FROM runs WHERE tournament_id = t.id
                   ORDER BY id DESC LIMIT 1) last ON true
ORDER BY t.name;

-- name: scheduled_tournaments
SELECT * FROM tournaments WHERE schedule IS NOT NULL ORDER BY id;

-- name: insert_run
-- A scheduled time fires once: a second beat (or a retry) gets no row back.
INSERT INTO runs (tournament_id, definition, seed, fired_for)
VALUES (%(tournament_id)s, %(definition)s, %(seed)s, %(fired_for)s)
ON CONFLICT (tournament_id, fired_for) DO NOTHING
RETURNING *;

-- name: mark_fired
UPDATE tournaments SET fired_at = %(fired_for)s WHERE id = %(id)s AND fired_at < %(fired_for)s;

-- name: lock_run
SELECT * FROM runs WHERE id = %(id)s FOR UPDATE;

-- name: active_bots
SELECT id, name FROM bots WHERE active AND name = ANY(%(names)s::text[]);

-- name: pool_bots
SELECT b.id, b.name FROM bots b JOIN ratings r ON r.bot_id = b.id
WHERE b.active AND r.pool = %(pool)s ORDER BY b.name;

-- name: planned_run
UPDATE runs SET status = 'running', total = %(total)s, participants = %(participants)s
WHERE id = %(id)s;

-- name: run
SELECT r.*, t.name AS tournament FROM runs r JOIN tournaments t ON t.id = r.tournament_id
WHERE r.id = %(id)s;

-- name: list_runs
SELECT r.*, t.name AS tournament FROM runs r JOIN tournaments t ON t.id = r.tournament_id
WHERE (%(tournament_id)s::bigint IS NULL OR r.tournament_id = %(tournament_id)s)
ORDER BY r.id DESC LIMIT %(limit)s;

-- name: run_progress
SELECT count(*) FILTER (WHERE status = 'finished') AS finished,
       count(*) FILTER (WHERE status = 'failed') AS failed,
       count(*) FILTER (WHERE status = 'running') AS running,
       min(started_at) AS first_started, max(finished_at) AS last_finished
FROM matches WHERE run_id = %(id)s;

-- name: run_results
-- Every finished match of a run, with the hand points each team won.
SELECT m.id, m.winner, m.faults, m.points,
    ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
          WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM matches m WHERE m.run_id = %(id)s AND m.status = 'finished' ORDER BY m.id;

-- name: run_done
-- No match of the run is left to play (asked under the run's row lock: migration 0006).
SELECT no_match_left(%(id)s) AS done;

-- name: run_unfinished
SELECT id FROM matches WHERE run_id = %(id)s AND status NOT IN ('finished', 'failed')
ORDER BY id;

-- name: finish_run
UPDATE runs SET status = 'finished', standings = %(standings)s, finished_at = now()
WHERE id = %(id)s AND status = 'running' RETURNING id;

-- name: stalled_runs
-- Runs left behind at %(now)s: never planned a minute after they were made; every match
-- done but the run not finished; or matches left to play and no progress for a while (a
-- task was lost: Redis can drop one that a killed worker had just taken).
SELECT r.id, r.status, ARRAY(
        SELECT m.id FROM matches m WHERE m.run_id = r.id
        AND m.status NOT IN ('finished', 'failed') ORDER BY m.id) AS unfinished
FROM runs r
WHERE (r.status = 'starting' AND r.created_at < %(now)s - interval '1 minute')
   OR (r.status = 'running' AND greatest(r.created_at, (
        SELECT greatest(max(m.started_at), max(m.finished_at)) FROM matches m
        WHERE m.run_id = r.id)) < %(now)s - make_interval(secs => %(stall_s)s))
   OR (r.status = 'running' AND NOT EXISTS (
        SELECT 1 FROM matches m WHERE m.run_id = r.id AND m.status NOT IN ('finished', 'failed')))
ORDER BY r.id;

-- name: stalled_matches
-- Matches outside runs (challenges) left to play with no progress since %(stall_s)s
-- seconds before %(now)s: their task was lost, or the referee died while playing them.
SELECT id FROM matches
WHERE run_id IS NULL AND status NOT IN ('finished', 'failed')
  AND coalesce(started_at, created_at) < %(now)s - make_interval(secs => %(stall_s)s)
ORDER BY created_at;

-- name: claim_match
-- A match with the bot at each seat, marked running (started now) unless it was finished
-- or failed: one statement for a worker about to play it. The SELECT sees the row as it
-- was before the UPDATE, so status is the one the match had.
WITH claimed AS (
    UPDATE matches SET status = 'running', started_at = now()
    WHERE id = %(id)s AND status NOT IN ('finished', 'failed')
)
SELECT m.*,
    ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
          WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM matches m WHERE m.id = %(id)s;

-- name: fail_run
UPDATE runs SET status = 'failed', error = %(error)s, finished_at = now()
WHERE id = %(id)s AND status = 'starting';
-- name: pools
-- Every pool that has a rating or a match, the most played first.
SELECT pool FROM (
    SELECT pool, count(*) AS n FROM matches GROUP BY pool
    UNION ALL
    SELECT pool, 0 FROM ratings GROUP BY pool
) p GROUP BY pool ORDER BY sum(n) DESC, pool;

-- name: rating_trends
-- Each bot's latest rating changes in the pool, oldest first (the leaderboard's trend).
SELECT b.name, array_agg(e.after ORDER BY e.id) AS elos, (array_agg(e.before ORDER BY e.id))[1] AS start
FROM (
    SELECT e.*, row_number() OVER (PARTITION BY e.bot_id ORDER BY e.id DESC) AS k
    FROM rating_events e WHERE e.pool = %(pool)s
) e JOIN bots b ON b.id = e.bot_id
WHERE e.k <= %(points)s
GROUP BY b.name;

-- name: bot_by_name
SELECT * FROM bots WHERE name = %(name)s;

-- name: bot_ratings
-- A bot's rating in every pool it has played, the most played first.
SELECT r.* FROM ratings r JOIN bots b ON b.id = r.bot_id
WHERE b.name = %(name)s ORDER BY r.games DESC, r.pool;

-- name: bot_index
SELECT b.name, b.owner, b.active, b.created_at,
    coalesce(json_agg(json_build_object('pool', r.pool, 'elo', r.elo, 'games', r.games)
                      ORDER BY r.games DESC, r.pool) FILTER (WHERE r.pool IS NOT NULL),
             '[]') AS ratings
FROM bots b LEFT JOIN ratings r ON r.bot_id = b.id
GROUP BY b.id ORDER BY b.name;

-- name: bot_faults
-- A bot's faults summed over its finished matches in the pool (the referee writes them
-- per bot name in matches.faults).
SELECT count(*) AS matches,
    coalesce(sum((m.faults -> %(name)s ->> 'timeouts')::int), 0) AS timeouts,
    coalesce(sum((m.faults -> %(name)s ->> 'rejected')::int), 0) AS rejected,
    coalesce(sum((m.faults -> %(name)s ->> 'disconnects')::int), 0) AS disconnects,
    coalesce(sum((m.faults -> %(name)s ->> 'substituted')::int), 0) AS substituted
FROM matches m
WHERE m.pool = %(pool)s AND m.status = 'finished' AND EXISTS (
    SELECT 1 FROM match_seats s JOIN bots b ON b.id = s.bot_id
    WHERE s.match_id = m.id AND b.name = %(name)s);

-- name: head_to_head
-- A bot's finished matches in the pool against each bot of the other team.
SELECT o.name AS opponent, count(DISTINCT m.id) AS games,
    count(DISTINCT m.id) FILTER (WHERE m.winner = s.seat %% 2) AS wins
FROM match_seats s
JOIN bots b ON b.id = s.bot_id AND b.name = %(name)s
JOIN matches m ON m.id = s.match_id AND m.status = 'finished' AND m.pool = %(pool)s
JOIN match_seats os ON os.match_id = m.id AND os.seat %% 2 <> s.seat %% 2
JOIN bots o ON o.id = os.bot_id AND o.id <> b.id
GROUP BY o.name ORDER BY count(DISTINCT m.id) DESC, o.name;

-- name: rating_changes
-- The rating change each of the given matches made to the bot.
SELECT e.match_id, e.before, e.after FROM rating_events e JOIN bots b ON b.id = e.bot_id
WHERE b.name = %(name)s AND e.match_id = ANY(%(match_ids)s::text[]);

-- name: run_matches
-- A run's matches, the latest played first (then those not started, by number).
SELECT m.*, ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
                  WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM matches m WHERE m.run_id = %(id)s
ORDER BY coalesce(m.finished_at, m.started_at) DESC NULLS LAST, m.id DESC
LIMIT %(limit)s;

-- Named queries: each starts with a "-- name: NAME" line (loaded by arena/store/sql.py).

-- name: insert_bot
INSERT INTO bots (name, owner, token_hash) VALUES (%(name)s, %(owner)s, %(token_hash)s)
RETURNING *;

-- name: bot_by_token_hash
SELECT * FROM bots WHERE token_hash = %(token_hash)s AND active;

-- name: insert_match
-- A match to play, of a run, a ladder or a test when it is one's, with its duplicate twin
-- when it has one, what absence does to its result and who holds its human seat
-- (Connected.insert_matches).
INSERT INTO matches (id, pool, rules, seed, clock, rated, run_id, ladder_id, sprt_id, twin,
                     absent, round, human)
VALUES (%(id)s, %(pool)s, %(rules)s, %(seed)s, %(clock)s, %(rated)s, %(run_id)s,
        %(ladder_id)s, %(sprt_id)s, %(twin)s, %(absent)s, %(round)s, %(human)s)
ON CONFLICT (id) DO NOTHING;

-- name: ping
-- A round trip, for the web's /healthz (Connected.ping).
SELECT 1;

-- name: deal_key
SELECT deal_key FROM arena_secret;

-- name: insert_seat
-- A seat carries its match's pool and times, for a bot's matches in order (migrations 0008
-- and 0017), and whether it is a ladder's, for a bot's ladder matches (migration 0011).
INSERT INTO match_seats (match_id, seat, bot_id, pool, created_at, ladder, listed_at)
SELECT %(match_id)s, %(seat)s, %(bot_id)s, m.pool, m.created_at, m.ladder_id IS NOT NULL,
       m.listed_at
FROM matches m
WHERE m.id = %(match_id)s
ON CONFLICT DO NOTHING;

-- name: finish_match
-- The exactly-once path, in one statement (migration 0006). Once recorded, the live
-- feed's channel (arena/store/live.py) is told, at the commit: its pages turn to the
-- replay and redraw the run's standings and the pool's board.
SELECT f.*,
       CASE WHEN f.recorded THEN pg_notify('arena_live', json_build_object(
           'recorded', %(id)s::text, 'pool', f.pool,
           'run', (SELECT m.run_id FROM matches m WHERE m.id = %(id)s))::text) END AS told
FROM finish_match(%(id)s, %(record)s, %(winner)s::smallint, %(forfeit)s::smallint[],
                  %(score)s::smallint[], %(points)s::smallint[], %(faults)s) f;

-- name: leaderboard
-- Every bot rated in the pool, once: of hosted versions only each bot's active one (its
-- own row too only while it has none), with the name it plays as (NAME@N), its bot's
-- name and state; retired ones unless %(retired)s.
SELECT r.*, b.name, o.name AS bot, o.state FROM ratings r JOIN bots b ON b.id = r.bot_id
LEFT JOIN bot_versions v ON v.id = b.id
JOIN bots o ON o.id = coalesce(v.bot_id, b.id)
WHERE r.pool = %(pool)s AND coalesce(v.status, 'active') = 'active'
  AND (v.id IS NOT NULL OR NOT EXISTS (
        SELECT 1 FROM bot_versions a WHERE a.bot_id = b.id AND a.status = 'active'))
  AND (%(retired)s OR o.state <> 'retired')
ORDER BY r.elo DESC, b.name;

-- name: list_bots
SELECT * FROM bots ORDER BY name;

-- name: match_with_seats
SELECT m.*, ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
                  WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM matches m WHERE m.id = %(id)s;

-- name: list_matches
-- Newest first by the time lists show (migration 0017), walking an index in that order:
-- of a run's matches, of the pool's, or of all. A bot's matches of one run are looked for
-- among the run's. The page token is the (listed_at, id) of the last row of the page
-- before.
SELECT m.*, ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
                  WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM matches m
WHERE (%(pool)s::text IS NULL OR m.pool = %(pool)s)
  AND (%(run)s::bigint IS NULL OR m.run_id = %(run)s)
  AND (%(rows)s::bigint[] IS NULL OR EXISTS (
        SELECT 1 FROM match_seats s WHERE s.match_id = m.id AND s.bot_id = ANY (%(rows)s)))
  AND (%(after_time)s::timestamptz IS NULL OR (m.listed_at, m.id) < (%(after_time)s, %(after_id)s))
  AND (%(since)s::timestamptz IS NULL OR m.listed_at >= %(since)s)
  AND (%(until)s::timestamptz IS NULL OR m.listed_at < %(until)s)
ORDER BY m.listed_at DESC, m.id DESC
LIMIT %(limit)s;

-- name: list_bot_matches
-- The matches of a bot's rows (%(rows)s: the bot and its hosted versions, or one version),
-- newest first: the latest %(limit)s of each row, walking the index of its seats by the
-- listed time, merged (a read of at most rows x limit seats, in one statement).
SELECT m.*, ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
                  WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM (
    SELECT DISTINCT ON (mine.listed_at, mine.match_id) mine.listed_at, mine.match_id
    FROM unnest(%(rows)s::bigint[]) AS me (id)
    CROSS JOIN LATERAL (
        SELECT s.listed_at, s.match_id FROM match_seats s
        WHERE s.bot_id = me.id
          AND NOT EXISTS (  -- one row per match and row: its first seat in it
                SELECT 1 FROM match_seats t
                WHERE t.match_id = s.match_id AND t.bot_id = s.bot_id AND t.seat < s.seat)
          AND (%(after_time)s::timestamptz IS NULL
               OR (s.listed_at, s.match_id) < (%(after_time)s, %(after_id)s))
          AND (%(since)s::timestamptz IS NULL OR s.listed_at >= %(since)s)
          AND (%(until)s::timestamptz IS NULL OR s.listed_at < %(until)s)
        ORDER BY s.listed_at DESC, s.match_id DESC
        LIMIT %(limit)s
    ) mine
    ORDER BY mine.listed_at DESC, mine.match_id DESC  -- a match two of its rows sat in, once
    LIMIT %(limit)s
) mine JOIN matches m ON m.id = mine.match_id
ORDER BY m.listed_at DESC, m.id DESC;

-- name: list_bot_pool_matches
-- The matches of a bot's rows in one pool, newest first (the bot page): the same, through
-- the index of its seats by pool and listed time.
SELECT m.*, ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
                  WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM (
    SELECT DISTINCT ON (mine.listed_at, mine.match_id) mine.listed_at, mine.match_id
    FROM unnest(%(rows)s::bigint[]) AS me (id)
    CROSS JOIN LATERAL (
        SELECT s.listed_at, s.match_id FROM match_seats s
        WHERE s.bot_id = me.id AND s.pool = %(pool)s
          AND NOT EXISTS (  -- one row per match and row: its first seat in it
                SELECT 1 FROM match_seats t
                WHERE t.match_id = s.match_id AND t.bot_id = s.bot_id AND t.seat < s.seat)
          AND (%(after_time)s::timestamptz IS NULL
               OR (s.listed_at, s.match_id) < (%(after_time)s, %(after_id)s))
          AND (%(since)s::timestamptz IS NULL OR s.listed_at >= %(since)s)
          AND (%(until)s::timestamptz IS NULL OR s.listed_at < %(until)s)
        ORDER BY s.listed_at DESC, s.match_id DESC
        LIMIT %(limit)s
    ) mine
    ORDER BY mine.listed_at DESC, mine.match_id DESC  -- a match two of its rows sat in, once
    LIMIT %(limit)s
) mine JOIN matches m ON m.id = mine.match_id
ORDER BY m.listed_at DESC, m.id DESC;

-- name: set_status
UPDATE matches SET status = %(status)s,
    started_at = CASE WHEN %(status)s = 'running' THEN now() ELSE started_at END
WHERE id = %(id)s AND status <> 'finished';

-- name: rotate_token
UPDATE bots SET token_hash = %(token_hash)s WHERE name = %(name)s RETURNING *;

-- name: rating_history
-- The latest rating changes in the pool of a bot's rows (%(rows)s: the bot and its hosted
-- versions, or one version), newest first, each with the row's name: the latest %(limit)s
-- of each row through rating_events_by_bot, merged.
SELECT b.name AS played_as, e.match_id, e.before, e.after, e.created_at
FROM unnest(%(rows)s::bigint[]) AS me (id)
JOIN bots b ON b.id = me.id
CROSS JOIN LATERAL (
    SELECT x.id, x.match_id, x.before, x.after, x.created_at FROM rating_events x
    WHERE x.bot_id = me.id AND x.pool = %(pool)s
    ORDER BY x.created_at DESC, x.id DESC LIMIT %(limit)s  -- rating_events_by_bot's order
) e
ORDER BY e.created_at DESC, e.id DESC LIMIT %(limit)s;

-- name: bot_rows
-- The rows a name stands for: a bot and its hosted versions (the bot first), or a version
-- alone (NAME@N has no versions); none for no such bot.
SELECT b.id FROM bots b WHERE b.name = %(name)s
UNION ALL
SELECT v.id FROM bot_versions v JOIN bots b ON b.id = v.bot_id WHERE b.name = %(name)s;

-- name: pool_wins
-- How often each bot's team beat each other bot's in the pool's rated matches (a bot
-- seated on both teams tells nothing of its strength).
SELECT w.name AS winner, l.name AS loser, p.rated_wins AS wins
FROM pair_stats p JOIN bots w ON w.id = p.bot_id JOIN bots l ON l.id = p.opponent_id
WHERE p.pool = %(pool)s AND p.rated_wins > 0 AND p.bot_id <> p.opponent_id;

-- name: recount
-- Every pool's kept counts again, from the whole history (migrations 0008 and 0015).
SELECT recount_finished_matches(), recount_lineups(), recount_ratings();

-- name: pool_version
-- Changes whenever a match of the pool is recorded: the key of its cached fit.
SELECT coalesce(sum(matches), 0)::bigint AS version FROM bot_pool_stats WHERE pool = %(pool)s;

-- name: pool_fit
SELECT * FROM pool_fits
WHERE pool = %(pool)s AND (%(version)s::bigint IS NULL OR version = %(version)s);

-- name: lock_pool_fit
-- One fit of a pool at a time, until the transaction ends.
SELECT pg_advisory_xact_lock(hashtext('pool-fit/' || %(pool)s));

-- name: pool_lineups
-- The pool's results as the fit reads them (migration 0015), with the bots' names.
SELECT l.games, l.wins, l.lost_both, l.split, l.won_both,
    ARRAY(SELECT b.name FROM unnest(l.team_a) AS t (id) JOIN bots b ON b.id = t.id
          ORDER BY b.name) AS team_a,
    ARRAY(SELECT b.name FROM unnest(l.team_b) AS t (id) JOIN bots b ON b.id = t.id
          ORDER BY b.name) AS team_b
FROM lineup_stats l WHERE l.pool = %(pool)s;

-- name: matches_to_fit
-- The pool's rated matches recorded since its last fit, with their bots (through the
-- partial index matches_to_fit).
-- (counted: it rates its bots, having a credited winner and no bot on both teams).
SELECT m.id, ARRAY(SELECT DISTINCT s.bot_id FROM match_seats s WHERE s.match_id = m.id)
    AS bot_ids, m.winner IS NOT NULL AND EXISTS (SELECT 1 FROM match_lineup(m.id)) AS counted
FROM matches m WHERE m.pool = %(pool)s AND m.status = 'finished' AND m.rated AND NOT m.fitted
  AND m.voided IS NULL;

-- name: fit_members
-- The pool's rated bots, each with whether it is retired (the bot, or a hosted version
-- no longer its active one) and the seconds since its latest rated game in the pool.
SELECT b.name, (o.state = 'retired' OR coalesce(v.status = 'retired', false)) AS retired,
       extract(epoch FROM now() - r.updated_at)::float8 AS idle_s
FROM ratings r JOIN bots b ON b.id = r.bot_id
LEFT JOIN bot_versions v ON v.id = b.id
JOIN bots o ON o.id = coalesce(v.bot_id, b.id)
WHERE r.pool = %(pool)s;

-- name: pool_ratings
SELECT r.bot_id, b.name, r.elo FROM ratings r JOIN bots b ON b.id = r.bot_id
WHERE r.pool = %(pool)s;

-- name: set_ratings
UPDATE ratings r SET elo = v.elo, deviation = v.deviation
FROM unnest(%(bot_ids)s::bigint[], %(elos)s::float8[], %(deviations)s::float8[])
    AS v (bot_id, elo, deviation)
WHERE r.pool = %(pool)s AND r.bot_id = v.bot_id;

-- name: insert_rating_events
INSERT INTO rating_events (bot_id, match_id, pool, before, after)
SELECT v.bot_id, v.match_id, %(pool)s, v.before, v.after
FROM unnest(%(bot_ids)s::bigint[], %(match_ids)s::text[], %(befores)s::float8[],
            %(afters)s::float8[]) AS v (bot_id, match_id, before, after)
ORDER BY v.bot_id
ON CONFLICT (bot_id, match_id) DO NOTHING;

-- name: mark_fitted
UPDATE matches SET fitted = true WHERE id = ANY (%(ids)s::text[]);

-- name: keep_pool_fit
-- (a fit of the same version again: its anchors changed, a bot having left them)
INSERT INTO pool_fits (pool, version, halves, dispersion, fitted_at, anchors)
VALUES (%(pool)s, %(version)s, %(halves)s, %(dispersion)s, now(), %(anchors)s)
ON CONFLICT (pool) DO UPDATE SET version = excluded.version, halves = excluded.halves,
    dispersion = excluded.dispersion, fitted_at = excluded.fitted_at,
    anchors = excluded.anchors
WHERE pool_fits.version <= excluded.version;

-- ---- tournaments --------------------------------------------------------------------

-- name: insert_tournament
INSERT INTO tournaments (name, definition, schedule)
VALUES (%(name)s, %(definition)s, %(schedule)s) RETURNING *;

-- name: tournament
-- A tournament by id or name, not deleted.
SELECT * FROM tournaments WHERE (id = %(id)s OR name = %(name)s) AND deleted_at IS NULL;

-- name: lock_tournament
SELECT * FROM tournaments
WHERE (id = %(id)s OR name = %(name)s) AND deleted_at IS NULL FOR UPDATE;

-- name: update_tournament
-- A changed definition; a changed schedule fires from now on (not for the times passed).
UPDATE tournaments SET definition = %(definition)s, schedule = %(schedule)s,
    fired_at = CASE WHEN schedule IS DISTINCT FROM %(schedule)s THEN now() ELSE fired_at END
WHERE id = %(id)s RETURNING *;

-- name: delete_tournament
UPDATE tournaments SET deleted_at = now(), schedule = NULL WHERE id = %(id)s;

-- name: active_runs
-- The tournament's runs that are not over.
SELECT id FROM runs WHERE tournament_id = %(id)s
  AND status IN ('starting', 'running', 'paused') ORDER BY id;

-- name: list_tournaments
SELECT t.*, last.id AS last_run, last.status AS last_status,
       (SELECT count(*) FROM runs WHERE tournament_id = t.id) AS runs
FROM tournaments t
LEFT JOIN LATERAL (SELECT id, status FROM runs WHERE tournament_id = t.id
                   ORDER BY id DESC LIMIT 1) last ON true
WHERE t.deleted_at IS NULL
ORDER BY t.name;

-- name: scheduled_tournaments
SELECT * FROM tournaments WHERE schedule IS NOT NULL AND deleted_at IS NULL ORDER BY id;

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
-- The active bots named, each with who plays for it: its hosted version active at
-- %(as_of)s (NULL: now; playing_version, migration 0019; id and NAME@N), else itself.
SELECT coalesce(vb.id, b.id) AS id, b.name, coalesce(vb.name, b.name) AS seat
FROM bots b
LEFT JOIN bots vb ON vb.id = playing_version(b.id, %(as_of)s::timestamptz)
WHERE b.active AND b.name = ANY(%(names)s::text[]);

-- name: pool_bots
-- The active bots rated in the pool (themselves or by a version), with who plays for
-- each, as active_bots.
SELECT coalesce(vb.id, b.id) AS id, b.name, coalesce(vb.name, b.name) AS seat
FROM bots b
LEFT JOIN bots vb ON vb.id = playing_version(b.id, %(as_of)s::timestamptz)
WHERE b.active AND b.token_hash IS NOT NULL AND b.id IN (
    SELECT coalesce(own.bot_id, r.bot_id) FROM ratings r
    LEFT JOIN bot_versions own ON own.id = r.bot_id
    WHERE r.pool = %(pool)s)
ORDER BY b.name;

-- name: planned_run
UPDATE runs SET status = 'running', total = %(total)s, participants = %(participants)s,
    deals = %(deals)s, rounds = %(rounds)s
WHERE id = %(id)s;

-- name: add_round
-- A run in rounds paired further: its total grows by the matches made.
UPDATE runs SET total = total + %(made)s, rounds = %(rounds)s WHERE id = %(id)s;

-- name: set_entries
UPDATE runs SET entries = %(entries)s, seeds = %(seeds)s WHERE id = %(id)s;

-- name: source_run
-- The run a stage is seeded from: the run with that id, else the latest finished run of
-- the tournament of that name (not deleted).
SELECT r.*, t.name AS tournament FROM runs r JOIN tournaments t ON t.id = r.tournament_id
WHERE r.id = %(id)s
   OR (%(id)s::bigint IS NULL AND t.name = %(name)s AND t.deleted_at IS NULL
       AND r.status = 'finished')
ORDER BY r.id DESC LIMIT 1;

-- name: pool_elos
-- The ratings in the pool of the bot rows given (those rated there).
SELECT bot_id, elo FROM ratings WHERE pool = %(pool)s AND bot_id = ANY(%(ids)s::bigint[]);

-- name: set_run_status
UPDATE runs SET status = %(status)s WHERE id = %(id)s;

-- name: cancel_run_matches
-- The run's matches not started are cancelled (never played); their ids.
UPDATE matches SET status = 'cancelled' WHERE run_id = %(id)s AND status = 'scheduled'
RETURNING id;

-- name: send_run_matches
-- The run's next matches to hand to the broker, in order, so that at most %(window)s are
-- in flight (sent and not done; asked under the run's lock): marked sent, their ids.
UPDATE matches m SET sent_at = now()
WHERE m.id IN (
    SELECT x.id FROM matches x
    WHERE x.run_id = %(id)s AND x.status = 'scheduled' AND x.sent_at IS NULL
    ORDER BY x.id
    LIMIT greatest(0, %(window)s - (
        SELECT count(*) FROM matches f WHERE f.run_id = %(id)s
        AND (f.status = 'running' OR (f.status = 'scheduled' AND f.sent_at IS NOT NULL)))))
RETURNING m.id;

-- name: run_in_flight
-- The run's matches handed to the broker and not done (a lost task's is sent again).
SELECT id FROM matches
WHERE run_id = %(id)s
  AND ((%(started)s AND status = 'running') OR (status = 'scheduled' AND sent_at IS NOT NULL))
ORDER BY id;

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
       count(*) FILTER (WHERE status = 'cancelled') AS cancelled,
       count(*) FILTER (WHERE status = 'finished' AND voided IS NOT NULL) AS voided,
       count(*) FILTER (WHERE replay_of IS NOT NULL) AS replays,
       min(started_at) AS first_started, max(finished_at) AS last_finished
FROM matches WHERE run_id = %(id)s;

-- name: run_games
-- Every match of a run with its status, round and seats, and, once finished, its winner,
-- the hand points each team won, the teams that forfeited it, whether it was voided, and
-- whether it is sealed (its duplicate twin not played yet).
SELECT m.id, m.status, m.round, m.winner, m.faults, m.points, m.forfeit, m.voided,
    ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
          WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names,
    EXISTS (SELECT 1 FROM matches t
            WHERE t.id = m.twin AND t.status IN ('scheduled', 'running')) AS sealed
FROM matches m WHERE m.run_id = %(id)s
ORDER BY m.id;

-- name: run_done
-- No match of the run is left to play (asked under the run's row lock: migration 0006).
SELECT no_match_left(%(id)s) AS done;

-- name: finish_run
-- The final table of a run whose matches are done: a running run is finished, a cancelled
-- one stays cancelled.
UPDATE runs SET standings = %(standings)s, finished_at = now(),
    status = CASE status WHEN 'cancelled' THEN 'cancelled' ELSE 'finished' END
WHERE id = %(id)s AND status IN ('running', 'cancelled') AND standings IS NULL RETURNING id;

-- name: stalled_runs
-- Runs left behind at %(now)s: never planned a minute after they were made; every match
-- done but the run not finished; or matches left to play and no progress for a while (a
-- task was lost: Redis can drop one that a killed worker had just taken).
SELECT r.id, r.status, NOT EXISTS (
        SELECT 1 FROM matches m WHERE m.run_id = r.id
        AND m.status IN ('scheduled', 'running')) AS done
FROM runs r
WHERE (r.status = 'starting' AND r.created_at < %(now)s - interval '1 minute')
   OR (r.status = 'running' AND greatest(r.created_at, (
        SELECT greatest(max(m.started_at), max(m.finished_at), max(m.sent_at)) FROM matches m
        WHERE m.run_id = r.id)) < %(now)s - make_interval(secs => %(stall_s)s))
   OR (r.status IN ('running', 'cancelled') AND r.standings IS NULL AND NOT EXISTS (
        SELECT 1 FROM matches m WHERE m.run_id = r.id AND m.status IN ('scheduled', 'running')))
ORDER BY r.id;

-- name: stalled_matches
-- Matches outside runs (challenges) left to play with no progress since %(stall_s)s
-- seconds before %(now)s: their task was lost, or the referee died while playing them.
-- A person's match that is playing takes minutes, not seconds: it is taken up again only
-- after %(human_stall_s)s (a copy sent meanwhile would hold a worker until its end).
SELECT id FROM matches
WHERE run_id IS NULL AND status IN ('scheduled', 'running')
  AND coalesce(started_at, created_at) < %(now)s - make_interval(secs => %(stall_s)s)
  AND (human IS NULL OR status = 'scheduled'
       OR started_at < %(now)s - make_interval(secs => %(human_stall_s)s))
ORDER BY created_at;

-- name: claim_match
-- A match with the bot at each seat, marked running (started now) unless it was finished
-- or failed: one statement for a worker about to play it. The SELECT sees the row as it
-- was before the UPDATE, so status is the one the match had.
-- A match of a run that is not running (paused) is not started: it goes back to the
-- unsent (resuming the run sends it again); `run_status` says why.
WITH run AS (
    SELECT r.status FROM runs r WHERE r.id = (SELECT run_id FROM matches WHERE id = %(id)s)
    FOR SHARE
), claimed AS (
    UPDATE matches SET status = 'running', started_at = now()
    WHERE id = %(id)s AND (status = 'running' OR (status = 'scheduled'
        AND coalesce((SELECT status FROM run), 'running') = 'running'))
), held AS (
    UPDATE matches SET sent_at = NULL
    WHERE id = %(id)s AND status = 'scheduled' AND (SELECT status FROM run) <> 'running'
)
SELECT m.*, (SELECT status FROM run) AS run_status,
    ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
          WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM matches m WHERE m.id = %(id)s;

-- name: fail_run
UPDATE runs SET status = 'failed', error = %(error)s, finished_at = now()
WHERE id = %(id)s AND status = 'starting';
-- name: pools
-- Every pool with a finished match, the most played first (in matches times the bots in
-- each).
SELECT pool FROM bot_pool_stats GROUP BY pool ORDER BY sum(matches) DESC, pool;

-- name: rating_trends
-- Each bot's latest rating changes in the pool, oldest first (the leaderboard's trend):
-- a few rows of the index per bot of the pool.
SELECT b.name, array_agg(e.after ORDER BY e.id) AS elos, (array_agg(e.before ORDER BY e.id))[1] AS start
FROM ratings r JOIN bots b ON b.id = r.bot_id
CROSS JOIN LATERAL (
    SELECT x.id, x.before, x.after FROM rating_events x
    WHERE x.bot_id = r.bot_id AND x.pool = r.pool
    ORDER BY x.created_at DESC, x.id DESC LIMIT %(points)s  -- rating_events_by_bot's order
) e
WHERE r.pool = %(pool)s
GROUP BY b.name;

-- name: bot_by_name
SELECT * FROM bots WHERE name = %(name)s;

-- name: bot_ratings
-- A bot's rating in every pool it has played, the most played first.
SELECT r.* FROM ratings r JOIN bots b ON b.id = r.bot_id
WHERE b.name = %(name)s ORDER BY r.games DESC, r.pool;

-- name: bot_index
-- Every bot, once (a hosted version is listed under its bot), by name: the name it plays
-- as (its active version's, NAME@N, else its own), how many versions it has, and the
-- ratings of the row it plays as.
SELECT b.name, b.owner, b.active, b.state, b.state_reason, b.created_at,
    coalesce(a.name, b.name) AS played_as,
    (SELECT count(*) FROM bot_versions n WHERE n.bot_id = b.id) AS versions,
    coalesce((SELECT json_agg(json_build_object('pool', r.pool, 'elo', r.elo, 'games', r.games)
                              ORDER BY r.games DESC, r.pool)
              FROM ratings r WHERE r.bot_id = coalesce(a.id, b.id)), '[]') AS ratings
FROM bots b
LEFT JOIN LATERAL (
    SELECT vb.id, vb.name FROM bot_versions v JOIN bots vb ON vb.id = v.id
    WHERE v.bot_id = b.id AND v.status = 'active'
) a ON true
WHERE NOT EXISTS (SELECT 1 FROM bot_versions v WHERE v.id = b.id)
  AND b.token_hash IS NOT NULL  -- not the human seats' row (migration 0021)
ORDER BY b.name;

-- name: bot_faults
-- A bot's faults summed over its finished matches in the pool (kept as they are recorded,
-- migration 0008).
SELECT coalesce(max(s.matches), 0) AS matches, coalesce(max(s.timeouts), 0) AS timeouts,
    coalesce(max(s.rejected), 0) AS rejected, coalesce(max(s.disconnects), 0) AS disconnects,
    coalesce(max(s.substituted), 0) AS substituted, coalesce(max(s.errors), 0) AS errors,
    coalesce(max(s.forfeits), 0) AS forfeits
FROM bot_pool_stats s JOIN bots b ON b.id = s.bot_id
WHERE b.name = %(name)s AND s.pool = %(pool)s;

-- name: head_to_head
-- A bot's finished matches in the pool against each bot of the other team.
SELECT o.name AS opponent, p.games, p.wins
FROM pair_stats p JOIN bots b ON b.id = p.bot_id JOIN bots o ON o.id = p.opponent_id
WHERE b.name = %(name)s AND p.pool = %(pool)s AND o.id <> b.id
ORDER BY p.games DESC, o.name;

-- name: rating_changes
-- The rating change each of the given matches made to the bot that played it (each match
-- with the name of its seat's bot: a bot, or a version of one): one lookup of its
-- (bot_id, match_id) key per match, whatever the length of the bot's history (the LIMIT
-- keeps the lookups apart: a join would be free to read all the bot's events at once).
SELECT e.match_id, e.before, e.after
FROM unnest(%(match_ids)s::text[], %(names)s::text[]) AS m (id, name)
CROSS JOIN LATERAL (
    SELECT * FROM rating_events e
    WHERE e.bot_id = (SELECT id FROM bots WHERE name = m.name) AND e.match_id = m.id
    LIMIT 1
) e;

-- name: sealed_matches
-- Of the matches given, those whose duplicate twin is neither finished nor failed.
-- (each looked up by its key, and its twin by its own: as many rows read as ids given)
SELECT m.id FROM matches m
WHERE m.id = ANY (%(ids)s) AND m.twin IS NOT NULL AND EXISTS (
    SELECT 1 FROM matches t WHERE t.id = m.twin AND t.status IN ('scheduled', 'running'));

-- ---- exports (arena/store/exports.py, docs/exports.md) ---------------------------------

-- name: export_matches
-- The matches of a run (%(run)s), in the order they were planned, those playing others
-- again last; or a bot's (%(rows)s: the bot and its hosted versions, or a version alone;
-- in %(pool)s or every pool), oldest first. With the bot
-- at each seat, and the record only with %(records)s (a list shows none): every column
-- of matches (arena/store/rows.py, MatchRow) as match_with_seats gives it. Read through a
-- server-side cursor, a batch at a time.
WITH chosen AS (
    SELECT m.id FROM matches m WHERE m.run_id = %(run)s
    UNION ALL
    SELECT s.match_id FROM match_seats s
    WHERE s.bot_id = ANY (%(rows)s::bigint[])
      AND (%(pool)s::text IS NULL OR s.pool = %(pool)s)
      AND NOT EXISTS (  -- one row per match: the first seat of the bot's rows in it
            SELECT 1 FROM match_seats t
            WHERE t.match_id = s.match_id AND t.bot_id = ANY (%(rows)s::bigint[])
              AND t.seat < s.seat)
)
SELECT m.id, m.pool, m.rules, m.status, m.rated, m.seed,
    CASE WHEN %(records)s THEN m.record END AS record,
    m.winner, m.score, m.faults, m.run_id, m.created_at, m.started_at, m.finished_at,
    m.points, m.clock, m.ladder_id, m.sprt_id, m.twin, m.absent, m.forfeit, m.fitted,
    m.voided, m.replay_of, m.sent_at, m.round, m.listed_at, m.human,
    ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
          WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM chosen JOIN matches m ON m.id = chosen.id
ORDER BY m.created_at, length(m.id), m.id;

-- name: bot_owners
-- The owner of each of the bots named ('' for none).
SELECT name, owner FROM bots WHERE name = ANY (%(names)s::text[]);

-- name: lock_bot
-- The bot a version is submitted for, locked: its versions are numbered one at a time.
SELECT * FROM bots WHERE name = %(name)s AND token_hash IS NOT NULL AND active FOR UPDATE;

-- name: version_by_hash
SELECT * FROM bot_versions WHERE bot_id = %(bot_id)s AND hash = %(hash)s;

-- name: insert_version
-- A new version of the bot: its own bot row NAME@N (no token), then the version.
WITH n AS (
    SELECT coalesce(max(number), 0) + 1 AS number FROM bot_versions WHERE bot_id = %(bot_id)s
), made AS (
    INSERT INTO bots (name, owner, token_hash)
    SELECT %(name)s || '@' || n.number, %(owner)s, NULL FROM n
    RETURNING id
)
INSERT INTO bot_versions (id, bot_id, number, hash, archive, runtime, entry, size, unpacked,
                          files, candidate)
SELECT made.id, %(bot_id)s, n.number, %(hash)s, %(archive)s, %(runtime)s, %(entry)s,
       %(size)s, %(unpacked)s, %(files)s, %(candidate)s
FROM made, n
RETURNING *;

-- name: bot_versions
-- A bot's versions, the latest first.
SELECT v.* FROM bot_versions v JOIN bots b ON b.id = v.bot_id
WHERE b.name = %(name)s ORDER BY v.number DESC;

-- name: version_by_name
-- A version by its own bot row's name (NAME@N).
SELECT v.* FROM bot_versions v JOIN bots b ON b.id = v.id WHERE b.name = %(name)s;

-- name: keep_log
INSERT INTO bot_logs (match_id, bot_id, log, status)
VALUES (%(match_id)s, %(bot_id)s, %(log)s, %(status)s)
ON CONFLICT (match_id, bot_id) DO UPDATE SET log = excluded.log, status = excluded.status;

-- name: bot_logs
-- The logs kept in a match of a version (NAME@N), or of every version of a bot (NAME).
SELECT vb.name AS version, l.status, l.log
FROM bot_logs l
JOIN bot_versions v ON v.id = l.bot_id
JOIN bots vb ON vb.id = v.id
JOIN bots b ON b.id = v.bot_id
WHERE l.match_id = %(match_id)s AND %(name)s IN (b.name, vb.name)
ORDER BY v.number;

-- name: lock_version
-- A version by its own row's id or name (NAME@N), with its bot's row locked until the
-- unit of work ends: what becomes of a bot's versions is decided one at a time.
SELECT v.* FROM bot_versions v JOIN bots vb ON vb.id = v.id JOIN bots b ON b.id = v.bot_id
WHERE v.id = %(id)s OR vb.name = %(name)s
FOR UPDATE OF b;

-- name: retire_active
-- The bot's active version, retired; its row as it is now (none: it had none).
UPDATE bot_versions SET status = 'retired'
WHERE bot_id = (SELECT bot_id FROM bot_versions WHERE id = %(id)s) AND status = 'active'
  AND id <> %(id)s
RETURNING *;

-- name: activate_version
WITH made AS (
    UPDATE bot_versions SET status = 'active' WHERE id = %(id)s RETURNING *
), logged AS (
    INSERT INTO version_activations (bot_id, version_id) SELECT bot_id, id FROM made
)
SELECT * FROM made;

-- name: set_version_status
-- A version's check is over: rejected, or a candidate.
UPDATE bot_versions SET status = %(status)s, reason = %(reason)s, checked_at = now()
WHERE id = %(id)s RETURNING *;

-- name: version_not_candidate
-- A version being checked is to become active once it passes after all.
UPDATE bot_versions SET candidate = false WHERE id = %(id)s RETURNING *;

-- name: version_ratings
-- The rating of each version of the bot in each pool it has played.
SELECT v.number, r.pool, r.elo, r.games
FROM bot_versions v JOIN bots b ON b.id = v.bot_id JOIN ratings r ON r.bot_id = v.id
WHERE b.name = %(name)s ORDER BY v.number DESC, r.games DESC, r.pool;

-- ---- the ladder (migration 0011) -----------------------------------------------------

-- name: insert_ladder
INSERT INTO ladders (pool, running, concurrency, clock)
VALUES (%(pool)s, false, %(concurrency)s, %(clock)s)
ON CONFLICT (pool) DO NOTHING;

-- name: lock_ladder
SELECT * FROM ladders WHERE pool = %(pool)s FOR UPDATE;

-- name: update_ladder
-- (on_since: when it was switched on, kept while it stays on)
UPDATE ladders SET running = %(running)s, concurrency = %(concurrency)s, clock = %(clock)s,
    updated_at = now(),
    on_since = CASE WHEN %(running)s THEN coalesce(on_since, now()) END
WHERE id = %(id)s RETURNING *;

-- name: ladder
SELECT * FROM ladders WHERE pool = %(pool)s;

-- name: running_ladders
SELECT pool FROM ladders WHERE running ORDER BY pool;

-- name: ladder_open
-- Every ladder's matches neither finished nor failed (its slots taken), with their seats.
SELECT m.id, m.ladder_id, ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
                                WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM matches m
WHERE m.ladder_id IS NOT NULL AND m.status IN ('scheduled', 'running');

-- name: ladder_recent
-- The ladder's latest pairings, newest first.
SELECT ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
             WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM matches m WHERE m.ladder_id = %(id)s
ORDER BY m.id DESC LIMIT %(limit)s;  -- made in order: matches made at once share a time

-- name: ladder_scheduled
UPDATE ladders SET scheduled = %(scheduled)s, available = %(available)s, looked_at = now()
WHERE id = %(id)s;

-- name: ladder_bots
-- The bots the pool's ladder may pair, each with who plays for it (as active_bots) and
-- whether that is a hosted version: as each chose for this pool, else for every pool
-- (migration 0020), else by default: hosted bots in, bots that dial in out (the
-- scheduler then keeps those of them that are connected).
SELECT coalesce(v.id, b.id) AS id, b.name, coalesce(vb.name, b.name) AS seat,
       v.id IS NOT NULL AS hosted
FROM bots b
LEFT JOIN bot_versions v ON v.bot_id = b.id AND v.status = 'active'
LEFT JOIN bots vb ON vb.id = v.id
LEFT JOIN bot_ladders l ON l.bot_id = b.id AND l.pool = %(pool)s
WHERE b.active AND b.token_hash IS NOT NULL AND coalesce(l.ladder, b.ladder, v.id IS NOT NULL)
ORDER BY b.name;

-- name: set_bot_ladder
-- The bot's choice for every pool, which replaces its choices for single pools.
WITH b AS (
    UPDATE bots SET ladder = %(on)s WHERE name = %(name)s AND token_hash IS NOT NULL
    RETURNING *
), gone AS (
    DELETE FROM bot_ladders l USING b WHERE l.bot_id = b.id
)
SELECT * FROM b;

-- name: set_bot_pool_ladder
-- The bot's choice for one pool's ladder.
WITH b AS (
    SELECT * FROM bots WHERE name = %(name)s AND token_hash IS NOT NULL
), kept AS (
    INSERT INTO bot_ladders (bot_id, pool, ladder) SELECT id, %(pool)s, %(on)s FROM b
    ON CONFLICT (bot_id, pool) DO UPDATE SET ladder = excluded.ladder
)
SELECT * FROM b;

-- name: ladder_choices
-- Of bot %(name)s, or (NULL) of every bot: its choices for single pools' ladders, and
-- whether it has an active hosted version (which kind's default it follows).
SELECT b.name,
    EXISTS (SELECT 1 FROM bot_versions v WHERE v.bot_id = b.id AND v.status = 'active')
        AS hosted,
    coalesce((SELECT jsonb_object_agg(l.pool, l.ladder) FROM bot_ladders l
              WHERE l.bot_id = b.id), '{}') AS pools
FROM bots b WHERE %(name)s::text IS NULL OR b.name = %(name)s;

-- name: ladder_activity
-- What a ladder did lately: its matches playing now; its pace, the matches it finished
-- while on in the last hour, to the minute (this minute and the 59 before it: 60 rows of
-- ladder_pace at most, migration 0020); the last one finished; and how many seconds ago
-- it was switched on (NULL: it is off) and last looked (NULL: never).
SELECT
    (SELECT count(*) FROM matches m WHERE m.ladder_id = %(id)s
        AND m.status IN ('scheduled', 'running'))::integer AS playing,
    (SELECT coalesce(sum(p.finished), 0) FROM ladder_pace p WHERE p.ladder_id = %(id)s
        AND p.minute >= date_trunc('minute', now()) - interval '59 minutes')::integer
        AS per_hour,
    (SELECT m.id FROM matches m WHERE m.ladder_id = %(id)s AND m.status = 'finished'
     ORDER BY m.finished_at DESC LIMIT 1) AS last_match,
    extract(epoch FROM now() - l.on_since)::float8 AS on_for_s,
    extract(epoch FROM now() - l.looked_at)::float8 AS looked_s
FROM ladders l WHERE l.id = %(id)s;

-- name: bot_ladder_matches
-- A bot's ladder matches in the pool, newest first (its page), through the index of its
-- ladder seats.
SELECT m.*, ARRAY(SELECT b.name FROM match_seats s JOIN bots b ON b.id = s.bot_id
                  WHERE s.match_id = m.id ORDER BY s.seat) AS seat_names
FROM match_seats s JOIN matches m ON m.id = s.match_id
WHERE s.bot_id = (SELECT id FROM bots WHERE name = %(bot)s) AND s.pool = %(pool)s
  AND s.ladder
  AND NOT EXISTS (SELECT 1 FROM match_seats t
                  WHERE t.match_id = s.match_id AND t.bot_id = s.bot_id AND t.seat < s.seat)
ORDER BY s.created_at DESC, s.match_id DESC
LIMIT %(limit)s;

-- ---- sequential tests (migration 0012) ----------------------------------------------

-- name: lock_owner
-- Tests are added one at a time per owner of %(bot)s (its bots' owner, or itself when it
-- has none), until the transaction ends.
SELECT pg_advisory_xact_lock(hashtext('sprt-owner/' || coalesce(
    (SELECT nullif(owner, '') FROM bots WHERE name = %(bot)s), %(bot)s)));

-- name: owner_tests
-- The running tests asked for by the bots of the owner of %(bot)s (or by itself when it
-- has none), and their matches in all.
WITH me AS (SELECT owner FROM bots WHERE name = %(bot)s)
SELECT (SELECT owner FROM me) AS owner, count(*) AS tests,
       coalesce(sum(t.max_games), 0) AS games
FROM sprt_tests t JOIN bots b ON b.name = t.asked_by
WHERE t.status = 'running'
  AND (b.name = %(bot)s OR b.owner <> '' AND b.owner = (SELECT owner FROM me));

-- name: insert_sprt
INSERT INTO sprt_tests (new_id, base_id, rules, clock, elo0, elo1, alpha, beta, max_games,
                        at_once, rated, duplicate, asked_by)
VALUES (%(new_id)s, %(base_id)s, %(rules)s, %(clock)s, %(elo0)s, %(elo1)s, %(alpha)s,
        %(beta)s, %(max_games)s, %(at_once)s, %(rated)s, %(duplicate)s, %(asked_by)s)
RETURNING *;

-- name: sprt
SELECT t.*, n.name AS new_name, b.name AS base_name
FROM sprt_tests t JOIN bots n ON n.id = t.new_id JOIN bots b ON b.id = t.base_id
WHERE t.id = %(id)s;

-- name: list_sprts
-- Tests, the latest first: of a bot's rows (%(rows)s: a bot and its hosted versions, or a
-- version; NULL: of every bot) as NEW or BASE, running or finished (%(running)s; NULL:
-- both), of ids below %(before)s when given. Tests are few beside their matches (each
-- makes up to max_games of them): walked by id, without an index by bot.
SELECT t.*, n.name AS new_name, b.name AS base_name
FROM sprt_tests t JOIN bots n ON n.id = t.new_id JOIN bots b ON b.id = t.base_id
WHERE (%(rows)s::bigint[] IS NULL OR t.new_id = ANY (%(rows)s) OR t.base_id = ANY (%(rows)s))
  AND (%(running)s::boolean IS NULL OR (t.status = 'running') = %(running)s)
  AND (%(before)s::bigint IS NULL OR t.id < %(before)s)
ORDER BY t.id DESC
LIMIT %(limit)s;

-- name: lock_sprt
SELECT * FROM sprt_tests WHERE id = %(id)s FOR UPDATE;

-- name: sprt_matches
-- A test's matches in order, with the bot in each's first seat (NEW's team is its team).
SELECT m.id, m.status, m.winner, m.finished_at,
       (SELECT s.bot_id FROM match_seats s WHERE s.match_id = m.id AND s.seat = 0) AS first
FROM matches m WHERE m.sprt_id = %(id)s ORDER BY m.id;

-- name: sprt_pairs
SELECT * FROM sprt_pairs WHERE test_id = %(id)s ORDER BY number;

-- name: insert_sprt_pair
INSERT INTO sprt_pairs (test_id, pair, score, number, llr)
VALUES (%(test_id)s, %(pair)s, %(score)s, %(number)s, %(llr)s);

-- name: update_sprt
UPDATE sprt_tests SET status = %(status)s, scheduled = %(scheduled)s,
    lost_both = %(lost_both)s, split = %(split)s, won_both = %(won_both)s, llr = %(llr)s,
    finished_at = CASE WHEN %(status)s <> 'running' THEN now() END
WHERE id = %(id)s;

-- name: running_sprts
SELECT id FROM sprt_tests WHERE status = 'running' ORDER BY id;

-- name: renew_node
-- A node's lease, with its load; rows of leases long gone are cleared on the way.
WITH gone AS (DELETE FROM nodes WHERE expires_at < now() - interval '1 hour')
INSERT INTO nodes (name, address, expires_at, bots, matches, relayed)
VALUES (%(name)s, %(address)s, now() + %(lease)s * interval '1 second', %(bots)s, %(matches)s,
        %(relayed)s)
ON CONFLICT (name) DO UPDATE SET address = excluded.address, renewed_at = now(),
    expires_at = excluded.expires_at, bots = excluded.bots, matches = excluded.matches,
    relayed = excluded.relayed;

-- name: renew_presence
-- The node's bots' leases, with their load; the bots whose row another node has taken
-- are not returned.
UPDATE presence p SET expires_at = now() + %(lease)s * interval '1 second',
    concurrency = b.concurrency, playing = b.playing
FROM unnest(%(bots)s::text[], %(concurrency)s::int[], %(playing)s::int[])
     AS b (bot, concurrency, playing)
WHERE p.bot = b.bot AND p.node = %(node)s
RETURNING p.bot;

-- name: arrive
INSERT INTO presence (bot, node, concurrency, playing, expires_at)
VALUES (%(bot)s, %(node)s, %(concurrency)s, %(playing)s, now() + %(lease)s * interval '1 second')
ON CONFLICT (bot) DO UPDATE SET node = excluded.node, concurrency = excluded.concurrency,
    playing = excluded.playing, since = now(), expires_at = excluded.expires_at;

-- name: depart
DELETE FROM presence WHERE bot = %(bot)s AND node = %(node)s;

-- name: drop_node
WITH bots AS (DELETE FROM presence WHERE node = %(name)s)
DELETE FROM nodes WHERE name = %(name)s;

-- name: live_nodes
SELECT name, address, bots, matches, relayed, started_at, renewed_at FROM nodes
WHERE expires_at > now() ORDER BY name;

-- name: presence
-- Where bots are connected (all, or those named), on nodes whose lease holds.
SELECT p.bot, p.node, n.address, p.concurrency, p.playing
FROM presence p JOIN nodes n ON n.name = p.node
WHERE p.expires_at > now() AND n.expires_at > now()
  AND (%(bots)s::text[] IS NULL OR p.bot = ANY (%(bots)s::text[]))
ORDER BY p.bot;

-- ---- uploads: archives streamed in and out, what a bot keeps (arena/hosted/uploads.py) ----

-- name: bot_keeps
-- What the store keeps of a bot (locked by lock_bot): its versions, the bytes of their
-- archives (each archive once), and whether the archive named is one of them.
SELECT count(*)::int AS versions,
       coalesce((SELECT sum(a.size) FROM (SELECT DISTINCT archive, size FROM bot_versions
                                          WHERE bot_id = %(bot_id)s) a), 0)::bigint AS kept,
       coalesce(bool_or(archive = %(archive)s), false) AS has_archive
FROM bot_versions WHERE bot_id = %(bot_id)s;

-- name: lock_archive
-- One transaction at a time stores an archive of a given hash (two bots may send the
-- same): held to the end of the transaction. The two-key form, apart from the migrator's.
SELECT pg_advisory_xact_lock(1634886504, hashtext(%(hash)s));  -- 1634886504: "arch"

-- name: archive_kept
SELECT 1 AS kept FROM bot_archives WHERE hash = %(hash)s;

-- name: copy_archive
-- An archive's row, sent in COPY's binary format a chunk at a time (arena/store/versions.py).
COPY bot_archives (hash, data) FROM STDIN (FORMAT BINARY);

-- name: archive_part
-- COUNT bytes of an archive from byte FROM (1 the first): it is read a part at a time.
SELECT substring(data FROM %(from)s FOR %(count)s) AS part FROM bot_archives
WHERE hash = %(hash)s;

-- name: live_version_hashes
-- Of the version hashes named, those of a version that is active, a candidate (waiting
-- on its tests) or being checked.
SELECT DISTINCT hash FROM bot_versions
WHERE hash = ANY(%(hashes)s::text[]) AND status IN ('active', 'candidate', 'checking');

-- name: version_by_id
SELECT * FROM bot_versions WHERE id = %(id)s;

-- name: log_action
INSERT INTO action_log (actor, action, subject, detail)
VALUES (%(actor)s, %(action)s, %(subject)s, %(detail)s);

-- name: lock_match
SELECT * FROM matches WHERE id = %(id)s FOR UPDATE;

-- name: insert_replay
-- A match of a run played again: the same seats, rules and clocks, under a new id.
WITH made AS (
    INSERT INTO matches (id, pool, rules, seed, clock, rated, run_id, absent, replay_of, round)
    SELECT %(new_id)s, pool, rules, %(seed)s, clock, %(rated)s, run_id, absent, id, round
    FROM matches WHERE id = %(id)s
    ON CONFLICT DO NOTHING
    RETURNING id, pool, created_at, listed_at
), seated AS (
    INSERT INTO match_seats (match_id, seat, bot_id, pool, created_at, ladder, listed_at)
    SELECT made.id, s.seat, s.bot_id, made.pool, made.created_at, false, made.listed_at
    FROM made, match_seats s WHERE s.match_id = %(id)s
)
SELECT count(*) AS made FROM made;

-- name: void_matches
-- Their results no longer count (and they are no longer rated): those finished or still
-- to finish, not voided before. Their ids.
UPDATE matches SET voided = %(reason)s, rated = false
WHERE id = ANY(%(ids)s::text[]) AND voided IS NULL AND status IN ('scheduled', 'running', 'finished')
RETURNING id;

-- name: bot_run_matches
-- The matches of a bot (any of its versions) in the runs given, with their status and run.
SELECT m.id, m.status, m.run_id FROM matches m
WHERE m.run_id = ANY(%(runs)s::bigint[]) AND EXISTS (
    SELECT 1 FROM match_seats s JOIN bots b ON b.id = s.bot_id
    LEFT JOIN bot_versions v ON v.id = b.id
    WHERE s.match_id = m.id AND coalesce(v.bot_id, b.id) = %(bot_id)s)
ORDER BY m.id;

-- name: cancel_matches
UPDATE matches SET status = 'cancelled' WHERE id = ANY(%(ids)s::text[]) AND status = 'scheduled'
RETURNING id;

-- name: open_runs
-- The runs not over (starting, running or paused).
SELECT id FROM runs WHERE status IN ('starting', 'running', 'paused') ORDER BY id;

-- name: set_bot_state
UPDATE bots SET state = %(state)s, state_reason = %(reason)s
WHERE name = %(name)s AND token_hash IS NOT NULL RETURNING *;

-- name: lock_registered_bot
SELECT * FROM bots WHERE name = %(name)s AND token_hash IS NOT NULL FOR UPDATE;

-- name: reopen_run
-- A finished run with a match to play again: running until its table is written again.
UPDATE runs SET status = 'running', standings = NULL, finished_at = NULL
WHERE id = %(id)s AND status = 'finished';

-- name: match_pools
SELECT DISTINCT pool FROM matches WHERE id = ANY(%(ids)s::text[]) ORDER BY pool;

-- name: rewrite_run_table
UPDATE runs SET standings = %(standings)s WHERE id = %(id)s AND standings IS NOT NULL;

-- name: run_notes
-- A run's matches voided or playing again another.
SELECT id AS match_id, status, voided, replay_of FROM matches
WHERE run_id = %(id)s AND (voided IS NOT NULL OR replay_of IS NOT NULL)
ORDER BY id LIMIT 500;
-- ---- organizers and the action log (docs/events.md; arena/store/actions.py) ----

-- name: insert_organizer
-- A named organizer with the hash of a new token. One removed before comes back under the
-- same name with the new token; a live one is left as it is (no row returned).
INSERT INTO organizers (name, token_hash) VALUES (%(name)s, %(token_hash)s)
ON CONFLICT (name) DO UPDATE
SET token_hash = excluded.token_hash, created_at = now(), removed_at = NULL
WHERE organizers.removed_at IS NOT NULL
RETURNING *;

-- name: remove_organizer
-- An organizer removed: its token is refused from the next call on.
UPDATE organizers SET removed_at = now() WHERE name = %(name)s AND removed_at IS NULL
RETURNING *;

-- name: organizer_by_token_hash
SELECT name FROM organizers WHERE token_hash = %(token_hash)s AND removed_at IS NULL;

-- name: list_organizers
SELECT * FROM organizers ORDER BY created_at, id;

-- name: list_actions
-- The action log newest first, of one subject and/or one actor, before an entry's id.
SELECT * FROM action_log
WHERE (%(subject)s::text IS NULL OR subject = %(subject)s)
  AND (%(actor)s::text IS NULL OR actor = %(actor)s)
  AND (%(before)s::bigint IS NULL OR id < %(before)s)
ORDER BY id DESC LIMIT %(limit)s;


-- ---- the audit (docs/events.md "The audit"; arena/store/audit.py) -------------------
-- Read-only, in one REPEATABLE READ transaction. The kept counts are recounted from the
-- history by SELECTs that mirror the counting functions (count_finished_match,
-- finish_match, recount_finished_matches, recount_lineups: migrations 0008, 0014, 0015);
-- the parameters pools (NULL: every pool) and run (NULL: every run) narrow what is read.

-- name: audit_snapshot
-- The first statement of the audit's transaction: all of it reads one snapshot, and
-- cannot write.
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY;

-- name: audit_counted
-- Not a statement: the head of every recount, prepended to it (Audits.audit_counts). The
-- matches each kept count counts, the one place that says so (migration 0016): only
-- finished matches (a cancelled one was never played), and of those not the voided ones,
-- neither in pair_stats and bot_pool_stats (in_tables) nor in lineup_stats and the
-- ratings' games, wins and losses (in_ratings). Then each counted match's teams (each a sorted
-- array of bot ids: t0 the even seats', t1 the odd seats'), and its lineup as
-- match_lineup() gives it (migration 0015: no row when a bot sits on both teams or
-- nobody was credited), for all the matches at once.
WITH counted AS (
    SELECT m.id, m.pool, m.winner, m.rated, m.twin, m.faults, m.forfeit, m.fitted,
           m.voided IS NULL AS in_tables,
           m.voided IS NULL AS in_ratings
    FROM matches m
    WHERE m.status = 'finished'
      AND (%(pools)s::text[] IS NULL OR m.pool = ANY (%(pools)s::text[]))
), sides AS (
    SELECT s.match_id,
           array_agg(DISTINCT s.bot_id ORDER BY s.bot_id) FILTER (WHERE s.seat %% 2 = 0) AS t0,
           array_agg(DISTINCT s.bot_id ORDER BY s.bot_id) FILTER (WHERE s.seat %% 2 = 1) AS t1
    FROM match_seats s JOIN counted m ON m.id = s.match_id
    GROUP BY s.match_id
), lineups AS (
    SELECT m.id, least(x.t0, x.t1) AS team_a, greatest(x.t0, x.t1) AS team_b,
           (m.winner = 0) <> (x.t0 > x.t1) AS a_won
    FROM counted m JOIN sides x ON x.match_id = m.id
    WHERE m.winner IS NOT NULL AND NOT (x.t0 && x.t1)
)

-- name: audit_recount_bot_pool_stats
-- bot_pool_stats as the history gives it (recount_finished_matches).
SELECT m.pool, b.name AS bot, count(*) AS matches,
    coalesce(sum((m.faults -> b.name ->> 'timeouts')::int), 0) AS timeouts,
    coalesce(sum((m.faults -> b.name ->> 'rejected')::int), 0) AS rejected,
    coalesce(sum((m.faults -> b.name ->> 'disconnects')::int), 0) AS disconnects,
    coalesce(sum((m.faults -> b.name ->> 'substituted')::int), 0) AS substituted,
    coalesce(sum((m.faults -> b.name ->> 'errors')::int), 0) AS errors,
    count(*) FILTER (WHERE EXISTS (
        SELECT 1 FROM match_seats x WHERE x.match_id = m.id AND x.bot_id = b.id
        AND x.seat %% 2 = ANY (coalesce(m.forfeit, '{}')))) AS forfeits
FROM counted m
JOIN (SELECT DISTINCT match_id, bot_id FROM match_seats) s ON s.match_id = m.id
JOIN bots b ON b.id = s.bot_id
WHERE m.in_tables
GROUP BY m.pool, b.name;

-- name: audit_kept_bot_pool_stats
SELECT s.pool, b.name AS bot, s.matches, s.timeouts, s.rejected, s.disconnects,
       s.substituted, s.errors, s.forfeits
FROM bot_pool_stats s JOIN bots b ON b.id = s.bot_id
WHERE %(pools)s::text[] IS NULL OR s.pool = ANY (%(pools)s::text[]);

-- name: audit_recount_pair_stats
-- pair_stats as the history gives it (recount_finished_matches).
, seated AS (
    SELECT DISTINCT s.match_id, s.bot_id, s.seat %% 2 AS team
    FROM match_seats s JOIN counted m ON m.id = s.match_id AND m.in_tables
), pairs AS (
    SELECT m.pool, a.bot_id, o.bot_id AS opponent_id, m.id,
           max(coalesce(a.team = m.winner, false)::int) AS won,
           max(coalesce(m.rated AND a.team = m.winner, false)::int) AS rated_won
    FROM seated a JOIN seated o ON o.match_id = a.match_id AND o.team <> a.team
    JOIN counted m ON m.id = a.match_id
    GROUP BY m.pool, a.bot_id, o.bot_id, m.id
)
SELECT p.pool, b.name AS bot, o.name AS opponent, count(*) AS games, sum(p.won) AS wins,
       sum(p.rated_won) AS rated_wins
FROM pairs p JOIN bots b ON b.id = p.bot_id JOIN bots o ON o.id = p.opponent_id
GROUP BY p.pool, b.name, o.name;

-- name: audit_kept_pair_stats
SELECT p.pool, b.name AS bot, o.name AS opponent, p.games, p.wins, p.rated_wins
FROM pair_stats p JOIN bots b ON b.id = p.bot_id JOIN bots o ON o.id = p.opponent_id
WHERE %(pools)s::text[] IS NULL OR p.pool = ANY (%(pools)s::text[]);

-- name: audit_recount_lineup_stats
-- lineup_stats as the history gives it (recount_lineups); each team by its bots' names.
, played AS (
    SELECT m.id, m.pool, m.twin, l.team_a, l.team_b, l.a_won
    FROM counted m JOIN lineups l ON l.id = m.id
    WHERE m.rated AND m.in_ratings
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
SELECT s.pool,
    array_to_string(ARRAY(SELECT b.name FROM unnest(s.team_a) t (id) JOIN bots b ON b.id = t.id
                          ORDER BY b.name), '+') AS team_a,
    array_to_string(ARRAY(SELECT b.name FROM unnest(s.team_b) t (id) JOIN bots b ON b.id = t.id
                          ORDER BY b.name), '+') AS team_b,
    s.games, s.wins, coalesce(p.lost_both, 0) AS lost_both, coalesce(p.split, 0) AS split,
    coalesce(p.won_both, 0) AS won_both
FROM singles s LEFT JOIN paired p USING (pool, team_a, team_b);

-- name: audit_kept_lineup_stats
SELECT l.pool,
    array_to_string(ARRAY(SELECT b.name FROM unnest(l.team_a) t (id) JOIN bots b ON b.id = t.id
                          ORDER BY b.name), '+') AS team_a,
    array_to_string(ARRAY(SELECT b.name FROM unnest(l.team_b) t (id) JOIN bots b ON b.id = t.id
                          ORDER BY b.name), '+') AS team_b,
    l.games, l.wins, l.lost_both, l.split, l.won_both
FROM lineup_stats l
WHERE %(pools)s::text[] IS NULL OR l.pool = ANY (%(pools)s::text[]);

-- name: audit_recount_ratings
-- The ratings' games, wins and losses as the history gives them (finish_match: a rated
-- match with a credited winner and no bot on both teams; a bot's team is its first seat's).
, rating_seats AS (
    SELECT m.pool, m.winner, s.bot_id, min(s.seat) %% 2 AS team
    FROM counted m JOIN sides x ON x.match_id = m.id JOIN match_seats s ON s.match_id = m.id
    WHERE m.in_ratings AND m.rated AND m.winner IS NOT NULL AND NOT coalesce(x.t0 && x.t1, false)
    GROUP BY m.id, m.pool, m.winner, s.bot_id
)
SELECT r.pool, b.name AS bot, count(*) AS games,
       count(*) FILTER (WHERE r.team = r.winner) AS wins,
       count(*) FILTER (WHERE r.team <> r.winner) AS losses
FROM rating_seats r JOIN bots b ON b.id = r.bot_id
GROUP BY r.pool, b.name;

-- name: audit_kept_ratings
SELECT r.pool, b.name AS bot, r.games, r.wins, r.losses
FROM ratings r JOIN bots b ON b.id = r.bot_id
WHERE %(pools)s::text[] IS NULL OR r.pool = ANY (%(pools)s::text[]);

-- name: audit_odd_events
-- Rating events that are not the one event of a bot seated in a fitted, finished, rated
-- match of the same pool (or one voided since: voiding unrates it, its events stay), with
-- what is known of them (arena/domain/audit.py words it).
SELECT * FROM (
    SELECT e.match_id, b.name AS bot, e.pool, m.pool AS match_pool, m.status, m.rated,
           m.voided IS NOT NULL AS voided, m.fitted, EXISTS (SELECT 1 FROM match_seats s
                             WHERE s.match_id = e.match_id AND s.bot_id = e.bot_id) AS seated,
           count(*) OVER (PARTITION BY e.bot_id, e.match_id) AS times
    FROM rating_events e JOIN bots b ON b.id = e.bot_id
    LEFT JOIN matches m ON m.id = e.match_id
    WHERE (%(pools)s::text[] IS NULL OR e.pool = ANY (%(pools)s::text[]))
      AND (%(run)s::bigint IS NULL OR m.run_id = %(run)s)
) e
WHERE times > 1 OR status IS DISTINCT FROM 'finished' OR NOT (rated OR voided) OR NOT fitted
   OR pool IS DISTINCT FROM match_pool OR NOT seated
ORDER BY match_id, bot;

-- name: audit_missing_events
-- The bots of fitted matches that count for the ratings with no rating event of theirs
-- (a fit writes one for each bot of every such match it is the first to count).
, rating_matches AS (
    SELECT m.id, m.pool FROM counted m JOIN lineups l ON l.id = m.id
    WHERE m.fitted AND m.rated AND m.in_ratings
      AND (%(run)s::bigint IS NULL
           OR m.id IN (SELECT x.id FROM matches x WHERE x.run_id = %(run)s))
)
SELECT m.id AS match_id, m.pool, b.name AS bot
FROM rating_matches m
JOIN (SELECT DISTINCT match_id, bot_id FROM match_seats) s ON s.match_id = m.id
JOIN bots b ON b.id = s.bot_id
WHERE NOT EXISTS (SELECT 1 FROM rating_events e
                  WHERE e.match_id = m.id AND e.bot_id = s.bot_id)
ORDER BY m.id, b.name;

-- name: audit_unfitted
-- Rated matches recorded before %(before)s that no fit of their pool has counted yet.
SELECT m.id AS match_id, m.pool, m.finished_at FROM matches m
WHERE m.status = 'finished' AND m.rated AND NOT m.fitted AND m.finished_at < %(before)s
  AND (%(pools)s::text[] IS NULL OR m.pool = ANY (%(pools)s::text[]))
  AND (%(run)s::bigint IS NULL OR m.run_id = %(run)s)
ORDER BY m.finished_at, m.id;

-- name: audit_stuck
-- Matches running since before %(before)s.
SELECT m.id AS match_id, m.run_id, coalesce(m.started_at, m.created_at) AS since
FROM matches m
WHERE m.status = 'running' AND coalesce(m.started_at, m.created_at) < %(before)s
  AND (%(run)s::bigint IS NULL OR m.run_id = %(run)s)
ORDER BY since, m.id;

-- name: audit_runs
-- Each run with its plan's total and what its matches are: those planned (not replays),
-- those still scheduled or running.
SELECT r.id, t.name AS tournament, r.status, r.total, r.standings IS NOT NULL AS has_standings,
       count(m.id) FILTER (WHERE m.replay_of IS NULL) AS planned,
       count(m.id) FILTER (WHERE m.status = 'scheduled') AS scheduled,
       count(m.id) FILTER (WHERE m.status = 'running') AS running
FROM runs r JOIN tournaments t ON t.id = r.tournament_id
LEFT JOIN matches m ON m.run_id = r.id
WHERE %(run)s::bigint IS NULL OR r.id = %(run)s
GROUP BY r.id, t.name
ORDER BY r.id;

-- name: audit_strays
-- Matches of a run that does not exist, and matches without a seat.
SELECT m.id AS match_id, m.run_id,
       NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = m.run_id) AND m.run_id IS NOT NULL
           AS no_run,
       NOT EXISTS (SELECT 1 FROM match_seats s WHERE s.match_id = m.id) AS no_seats
FROM matches m
WHERE (%(run)s::bigint IS NULL OR m.run_id = %(run)s)
  AND ((m.run_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = m.run_id))
       OR NOT EXISTS (SELECT 1 FROM match_seats s WHERE s.match_id = m.id))
ORDER BY m.id;

-- name: audit_tally
-- What the audit looked at: matches and runs by status, the matches voided and the
-- replays, the rating rows and events; and the snapshot's time.
SELECT now() AS at,
    (SELECT coalesce(jsonb_object_agg(status, n), '{}') FROM (
        SELECT status, count(*) AS n FROM matches m
        WHERE (%(run)s::bigint IS NULL OR m.run_id = %(run)s) GROUP BY status) x) AS matches,
    (SELECT coalesce(jsonb_object_agg(status, n), '{}') FROM (
        SELECT status, count(*) AS n FROM runs r
        WHERE (%(run)s::bigint IS NULL OR r.id = %(run)s) GROUP BY status) x) AS runs,
    (SELECT count(*) FROM matches m WHERE m.voided IS NOT NULL
        AND (%(run)s::bigint IS NULL OR m.run_id = %(run)s)) AS voided,
    (SELECT count(*) FROM matches m WHERE m.replay_of IS NOT NULL
        AND (%(run)s::bigint IS NULL OR m.run_id = %(run)s)) AS replays,
    (SELECT count(*) FROM ratings r
        WHERE %(pools)s::text[] IS NULL OR r.pool = ANY (%(pools)s::text[])) AS ratings,
    (SELECT count(*) FROM rating_events e
        WHERE (%(pools)s::text[] IS NULL OR e.pool = ANY (%(pools)s::text[]))
          AND (%(run)s::bigint IS NULL
               OR e.match_id IN (SELECT x.id FROM matches x WHERE x.run_id = %(run)s)))
        AS events;

-- name: audit_fitted_elos
-- The kept ratings of every pool whose kept fit is of its current version, and the bots
-- that fit's mean is of (NULL: every bot).
SELECT r.pool, b.name AS bot, r.elo, f.anchors
FROM pool_fits f JOIN ratings r ON r.pool = f.pool JOIN bots b ON b.id = r.bot_id
WHERE (%(pools)s::text[] IS NULL OR f.pool = ANY (%(pools)s::text[]))
  AND f.version = (SELECT coalesce(sum(s.matches), 0) FROM bot_pool_stats s
                   WHERE s.pool = f.pool);

-- name: audit_run_pools
-- The pools a run's matches are played in.
SELECT coalesce(array_agg(DISTINCT pool), '{}') AS pools FROM matches WHERE run_id = %(run)s;

-- name: audit_run
SELECT id, status, definition, participants, rounds, standings FROM runs WHERE id = %(run)s;

-- name: set_bot_humans
-- Whether people may challenge the bot from the web pages (migration 0021).
UPDATE bots SET humans = %(on)s WHERE name = %(name)s AND token_hash IS NOT NULL
RETURNING *;

-- name: make_human_row
-- The bot row of every human seat (migration 0021), unless a bot has the name.
INSERT INTO bots (name, owner, token_hash, state, state_reason)
VALUES ('human', 'arena', NULL, 'retired', 'the seat of a person playing from the web pages')
ON CONFLICT DO NOTHING;

-- name: human_row
-- The bot row of every human seat: the token-less, version-less 'human'.
SELECT b.* FROM bots b
WHERE b.name = 'human' AND b.token_hash IS NULL
  AND NOT EXISTS (SELECT 1 FROM bot_versions v WHERE v.id = b.id);

-- name: human_opponents
-- The bots people may challenge from the web: active, registered, and their owners said
-- so; each with who plays for it (its active hosted version, else itself), by name.
SELECT b.name, coalesce(vb.name, b.name) AS seat
FROM bots b
LEFT JOIN bots vb ON vb.id = playing_version(b.id, NULL::timestamptz)
WHERE b.active AND b.humans AND b.token_hash IS NOT NULL
ORDER BY b.name;

-- name: human_matches_going
-- A person's matches not over yet (few: the web lets a person have two at once).
SELECT count(*) AS going FROM matches
WHERE human = %(human)s AND status IN ('scheduled', 'running');

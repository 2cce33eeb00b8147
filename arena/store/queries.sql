-- Named queries: each starts with a "-- name: NAME" line (loaded by arena/store/sql.py).

-- name: insert_bot
INSERT INTO bots (name, owner, token_hash) VALUES (%(name)s, %(owner)s, %(token_hash)s)
RETURNING *;

-- name: bot_by_token_hash
SELECT * FROM bots WHERE token_hash = %(token_hash)s AND active;

-- name: bot_by_name
SELECT * FROM bots WHERE name = %(name)s;

-- name: insert_match
INSERT INTO matches (id, pool, rules, seed, rated, run_id)
VALUES (%(id)s, %(pool)s, %(rules)s, %(seed)s, %(rated)s, %(run_id)s)
ON CONFLICT (id) DO NOTHING;

-- name: insert_seat
INSERT INTO match_seats (match_id, seat, bot_id) VALUES (%(match_id)s, %(seat)s, %(bot_id)s)
ON CONFLICT DO NOTHING;

-- name: lock_match
SELECT * FROM matches WHERE id = %(id)s FOR UPDATE;

-- name: match_seats
SELECT * FROM match_seats WHERE match_id = %(match_id)s ORDER BY seat;

-- name: finish_match
UPDATE matches
SET status = 'finished', record = %(record)s, winner = %(winner)s, score = %(score)s,
    faults = %(faults)s, finished_at = now()
WHERE id = %(id)s;

-- name: ensure_rating
INSERT INTO ratings (bot_id, pool) VALUES (%(bot_id)s, %(pool)s) ON CONFLICT DO NOTHING;

-- name: lock_ratings
SELECT * FROM ratings WHERE pool = %(pool)s AND bot_id = ANY(%(bot_ids)s)
ORDER BY bot_id FOR UPDATE;

-- name: update_rating
UPDATE ratings
SET elo = %(elo)s, games = games + 1, wins = wins + %(won)s, losses = losses + 1 - %(won)s,
    updated_at = now()
WHERE bot_id = %(bot_id)s AND pool = %(pool)s;

-- name: insert_rating_event
INSERT INTO rating_events (bot_id, match_id, pool, before, after)
VALUES (%(bot_id)s, %(match_id)s, %(pool)s, %(before)s, %(after)s);

-- name: leaderboard
SELECT r.*, b.name FROM ratings r JOIN bots b ON b.id = r.bot_id
WHERE r.pool = %(pool)s ORDER BY r.elo DESC, b.name;

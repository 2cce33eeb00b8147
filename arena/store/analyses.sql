-- The analyses of matches (migration 0022): arena/store/analyses.py.

-- name: lock_analyses_owner
-- Analyses are asked one at a time per owner, until the transaction ends.
SELECT pg_advisory_xact_lock(hashtext('analyses-owner/' || %(owner)s));

-- name: owner_analyses
-- How many analyses the owner asked for since %(since)s.
SELECT count(*) AS n FROM analyses WHERE owner = %(owner)s AND created_at >= %(since)s;

-- name: insert_analysis
-- A seat's analysis asked; nothing when it is stored (or asked) already.
INSERT INTO analyses (match_id, seat, samples, asked_by, owner)
VALUES (%(match_id)s, %(seat)s, %(samples)s, %(asked_by)s, %(owner)s)
ON CONFLICT DO NOTHING
RETURNING seat;

-- name: pending_analyses
SELECT seat FROM analyses
WHERE match_id = %(match_id)s AND samples = %(samples)s AND status = 'pending'
ORDER BY seat;

-- name: finish_analysis
UPDATE analyses
SET status = %(status)s, decisions = %(decisions)s, error = %(error)s, finished_at = now()
WHERE match_id = %(match_id)s AND samples = %(samples)s AND seat = %(seat)s
  AND status = 'pending';

-- name: match_analyses
SELECT * FROM analyses WHERE match_id = %(match_id)s ORDER BY samples DESC, seat;

-- name: version_losses
-- The decisions of %(name)s's latest analysed matches (where it sat as that name).
SELECT a.match_id, a.seat, a.decisions
FROM analyses a JOIN match_seats s ON s.match_id = a.match_id AND s.seat = a.seat
JOIN bots b ON b.id = s.bot_id
WHERE b.name = %(name)s AND a.status = 'done'
ORDER BY a.finished_at DESC
LIMIT %(limit)s;

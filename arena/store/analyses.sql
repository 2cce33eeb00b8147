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

-- name: begin_analysis
-- A worker begins the seat's analysis (the sweep leaves it alone for a while).
UPDATE analyses SET started_at = now()
WHERE match_id = %(match_id)s AND samples = %(samples)s AND seat = %(seat)s
  AND status = 'pending';

-- name: sent_analysis
-- The match's pending analyses at the budget handed to the workers again.
UPDATE analyses SET sent_at = now()
WHERE match_id = %(match_id)s AND samples = %(samples)s AND status = 'pending';

-- name: lost_analyses
-- The pending analyses that no worker was sent or began for %(stall_s)s seconds before
-- %(now)s, marked sent at %(now)s: one row per match and budget, the longest lost
-- first, at most %(limit)s.
WITH lost AS (
    SELECT match_id, samples, min(greatest(sent_at, started_at)) AS seen
    FROM analyses
    WHERE status = 'pending'
    GROUP BY match_id, samples
    HAVING max(greatest(sent_at, started_at)) < %(now)s - make_interval(secs => %(stall_s)s)
    ORDER BY seen, match_id, samples
    LIMIT %(limit)s
), sent AS (
    UPDATE analyses a SET sent_at = %(now)s
    FROM lost
    WHERE a.match_id = lost.match_id AND a.samples = lost.samples AND a.status = 'pending'
)
SELECT match_id, samples FROM lost ORDER BY seen, match_id, samples;

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

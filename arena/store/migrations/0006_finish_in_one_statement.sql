-- Finishing a match in one statement. A worker records every match it plays, and each
-- statement costs the client and the server about as much whatever it does, so the whole
-- exactly-once path runs here, in one call: the match claimed and finished, the ratings
-- locked and moved, one event per bot, and whether the match's run has any match left.
-- (It took six statements in three round trips before: BEGIN, the match, the rating
-- locks, the rating changes, COMMIT, and whether the run was done.)

-- Whether none of the run's matches is left to play. The run's row is locked first, so
-- that two workers finishing a run's last two matches at once ask one after the other:
-- the second one's query starts after the first one's commit, sees both matches ended,
-- and answers true (a VOLATILE function takes a new snapshot for each query).
CREATE FUNCTION no_match_left(the_run bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM runs r WHERE r.id = the_run FOR UPDATE;
    RETURN NOT EXISTS (SELECT 1 FROM matches m
                       WHERE m.run_id = the_run AND m.status NOT IN ('finished', 'failed'));
END $$;

-- One row for a match that exists (none otherwise): whether this call recorded it (false:
-- it was recorded before, and nothing changed), whether its run is done (false outside a
-- run), whether it is rated, and the rating of each bot before and after, in bot-id order
-- (empty when nothing moved: unrated, recorded before, or a bot seated on both teams).
-- The online Elo (README, "Running an arena"): each team plays at its members' mean rating, the
-- expected score is logistic in base 10 over `scale` points, and every member of the
-- winning team gains k times (1 - expected) while the losers lose as much. The store
-- passes arena.rating's K and SCALE.
CREATE FUNCTION finish_match(
    the_match text, new_record jsonb, new_winner smallint, new_score smallint[],
    new_points smallint[], new_faults jsonb, k float8, scale float8,
    OUT recorded boolean, OUT run_done boolean, OUT rated boolean,
    OUT bot_ids bigint[], OUT befores float8[], OUT afters float8[]
) RETURNS SETOF record LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    m record;
BEGIN
    -- a second finisher waits on the row lock, re-checks the status and gets no row
    UPDATE matches x
    SET status = 'finished', record = new_record, winner = new_winner, score = new_score,
        points = new_points, faults = new_faults, finished_at = now()
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
    IF recorded AND m.rated AND (  -- and no bot sits on both teams
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

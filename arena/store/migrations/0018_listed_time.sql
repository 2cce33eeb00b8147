-- The time a list of matches shows, and the one it is ordered, filtered (since, until) and
-- paged by: when the match finished; before that, when it started; before that, when it
-- was made. A tournament's matches are all made as its run is planned, so their creation
-- tells nothing of when they were played; a list showing one time and filtering on
-- another would leave out what it shows and show what it left out.
--
-- `listed_at` is kept on the match (a generated column: nothing writes it) and on each of
-- its seats (copied as the seat is written, and again by a trigger whenever the match's
-- own changes: as it starts and as it finishes, so two to eight seat rows a match, twice),
-- so that every list walks an index in its own order, whatever the history's length: all
-- matches, a pool's, a run's, a bot's, a bot's in one pool.

ALTER TABLE matches ADD COLUMN listed_at timestamptz
    GENERATED ALWAYS AS (coalesce(finished_at, started_at, created_at)) STORED;

ALTER TABLE match_seats ADD COLUMN listed_at timestamptz;
UPDATE match_seats s SET listed_at = m.listed_at FROM matches m WHERE m.id = s.match_id;
ALTER TABLE match_seats ALTER COLUMN listed_at SET NOT NULL;

CREATE FUNCTION list_seats_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE match_seats SET listed_at = NEW.listed_at WHERE match_id = NEW.id;
    RETURN NULL;
END $$;

CREATE TRIGGER match_listed_again AFTER UPDATE OF started_at, finished_at ON matches
FOR EACH ROW WHEN (OLD.listed_at IS DISTINCT FROM NEW.listed_at)
EXECUTE FUNCTION list_seats_again();

-- The lists' indexes by the listed time replace those by creation (migration 0008); a
-- run's, which also serves every lookup of a run's matches, replaces the plain one.
DROP INDEX matches_by_created;
DROP INDEX matches_by_pool_created;
DROP INDEX matches_by_run;
CREATE INDEX matches_by_listed ON matches (listed_at DESC, id DESC);
CREATE INDEX matches_by_pool_listed ON matches (pool, listed_at DESC, id DESC);
CREATE INDEX matches_by_run_listed ON matches (run_id, listed_at DESC, id DESC)
WHERE run_id IS NOT NULL;

DROP INDEX match_seats_by_bot_created;
DROP INDEX match_seats_by_bot_pool_created;
CREATE INDEX match_seats_by_bot_listed ON match_seats (bot_id, listed_at DESC, match_id DESC);
CREATE INDEX match_seats_by_bot_pool_listed
    ON match_seats (bot_id, pool, listed_at DESC, match_id DESC);

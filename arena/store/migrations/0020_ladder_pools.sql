-- The ladder per pool (issue 32, docs/ladder.md).

-- A bot's choice for one pool's ladder, over its choice for every pool (bots.ladder,
-- migration 0011, unchanged: NULL is the default, a hosted bot in and a bot that dials
-- in out). A choice for every pool removes the bot's choices for single pools.
CREATE TABLE bot_ladders (
    bot_id  bigint NOT NULL REFERENCES bots (id),
    pool    text NOT NULL,
    ladder  boolean NOT NULL,
    PRIMARY KEY (bot_id, pool)
);

-- Since when a ladder is on (NULL while it is off; a ladder on now is taken to be on
-- since its last change).
ALTER TABLE ladders ADD COLUMN on_since timestamptz;
UPDATE ladders SET on_since = updated_at WHERE running;

-- A ladder's pace: the matches it finished while it was on, by minute, counted as each
-- is recorded (the trigger below), so that the last hour's is read from 60 rows at most
-- however busy the ladder is. The minutes over two hours old go as matches are counted.
CREATE TABLE ladder_pace (
    ladder_id  integer NOT NULL REFERENCES ladders (id),
    minute     timestamptz NOT NULL,
    finished   integer NOT NULL,
    PRIMARY KEY (ladder_id, minute)
);

CREATE FUNCTION count_ladder_match() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ladder_pace AS p (ladder_id, minute, finished)
    SELECT l.id, date_trunc('minute', NEW.finished_at), 1
    FROM ladders l WHERE l.id = NEW.ladder_id AND l.running
    ON CONFLICT (ladder_id, minute) DO UPDATE SET finished = p.finished + 1;
    DELETE FROM ladder_pace
    WHERE ladder_id = NEW.ladder_id AND minute < now() - interval '2 hours';
    RETURN NULL;
END $$;
CREATE TRIGGER ladder_match_finished AFTER UPDATE OF status ON matches
FOR EACH ROW WHEN (OLD.status <> 'finished' AND NEW.status = 'finished'
                   AND NEW.ladder_id IS NOT NULL)
EXECUTE FUNCTION count_ladder_match();

-- the last hour's matches of the ladders on now, as their pace so far
INSERT INTO ladder_pace (ladder_id, minute, finished)
SELECT m.ladder_id, date_trunc('minute', m.finished_at), count(*)
FROM matches m JOIN ladders l ON l.id = m.ladder_id
WHERE l.running AND m.status = 'finished' AND m.finished_at > now() - interval '1 hour'
GROUP BY 1, 2;

-- The bots whose mean a pool's fit puts at 1500 (docs/ratings.md, "The anchor"): those
-- neither retired nor absent for long; NULL for a fit kept before, of every bot it rated.
ALTER TABLE pool_fits ADD COLUMN anchors text[];

-- Fair play (docs/protocol.md, "Fair play"). Every deal comes from a secret that only the
-- arena holds: 32 random bytes drawn once, here, by the database's strong generator, and
-- readable only with the database's own credentials. A match's seed is a keyed hash of
-- that secret and the match's id (arena/tournament.py, deal_seed), kept in matches.seed,
-- which only the organizer ever sees.
CREATE TABLE arena_secret (
    only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    deal_key  bytea NOT NULL CHECK (length(deal_key) = 32)
);
INSERT INTO arena_secret (deal_key)
VALUES (decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));

-- A match keeps its own clocks (arena/clock.py's TimeControl as JSON; NULL: its
-- defaults), whoever asked for it: a tournament run or a challenge. Matches planned before
-- take their run's.
ALTER TABLE matches ADD COLUMN clock jsonb;
-- Challenges are played by the workers too: the scheduler's sweep sends again those left
-- behind (a referee that died mid-match, a lost task), found through this index.
CREATE INDEX matches_unfinished_outside_runs ON matches (created_at)
WHERE run_id IS NULL AND status NOT IN ('finished', 'failed');
UPDATE matches m SET clock = jsonb_strip_nulls(jsonb_build_object(
        'decision_ms', r.definition -> 'decision_ms',
        'time_bank_ms', r.definition -> 'time_bank_ms',
        'reconnect_grace_ms', r.definition -> 'reconnect_grace_ms'))
FROM runs r WHERE r.id = m.run_id;

-- Bot names are unique whatever their case: 'alpha', 'Alpha' and 'ALPHA' are one name.
-- Bots registered before under names that now collide keep the first, by id; the later
-- ones get their id added to their name.
UPDATE bots b SET name = left(b.name, 40) || '-' || b.id
WHERE EXISTS (SELECT 1 FROM bots o WHERE lower(o.name) = lower(b.name) AND o.id < b.id);
CREATE UNIQUE INDEX bots_by_folded_name ON bots (lower(name));

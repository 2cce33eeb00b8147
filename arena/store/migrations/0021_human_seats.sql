-- Playing a bot yourself in the browser (issue 35, docs/web.md "Playing a bot yourself").

-- Whether the bot's owner lets people challenge it from the web pages (off: only the
-- owner plays it).
ALTER TABLE bots ADD COLUMN humans boolean NOT NULL DEFAULT false;

-- Who holds the match's human seat, the seat of the bot row 'human': 'owner:NAME'
-- (the owner of bot NAME, signed in) or 'guest:ID' (a guest's cookie); NULL for a match
-- of bots alone. Such a match is never rated, nor a test's, a run's or a ladder's.
ALTER TABLE matches ADD COLUMN human text;

-- The row of every human seat, made by the first person's match (queries.sql,
-- make_human_row): 'human', without a token (nobody dials in as it: the web holds each
-- seat with a token of its one match), owned by the arena and retired, so that nothing
-- schedules it (no run, challenge, test or ladder).

-- A person's matches not over yet, counted as they start another.
CREATE INDEX matches_by_human ON matches (human) WHERE human IS NOT NULL;

-- The analysis of a finished match's decisions (docs/web.md, "The analysis of a match"):
-- one row per match, seat and budget (the drawn states per decision), stored once. The
-- workers fill in the decisions; who asked is kept to bound each owner's analyses a day.
CREATE TABLE analyses (
    match_id    text NOT NULL REFERENCES matches (id),
    seat        smallint NOT NULL CHECK (seat BETWEEN 0 AND 7),
    samples     integer NOT NULL CHECK (samples BETWEEN 1 AND 1024),
    status      text NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'done', 'failed')),
    decisions   jsonb,  -- the seat's decisions valued (arena/bots/analysis.py), once done
    error       text NOT NULL DEFAULT '',
    asked_by    text NOT NULL,  -- the organizer, or "bot NAME" whose token asked
    owner       text NOT NULL,  -- whose cap it counts in: the bot's owner, else the bot;
                                -- empty for an organizer
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    PRIMARY KEY (match_id, samples, seat)
);
CREATE INDEX analyses_by_owner ON analyses (owner, created_at) WHERE owner <> '';

-- Sequential tests on the arena (docs/testing.md): is NEW stronger than BASE? The workers
-- play pairs of matches until the test decides; a pair is counted once, when its second
-- match is recorded (sprt_pairs: one row per pair, whoever counts it first).
CREATE TABLE sprt_tests (
    id          bigserial PRIMARY KEY,
    new_id      bigint NOT NULL REFERENCES bots (id),  -- who plays for each: the seat rows
    base_id     bigint NOT NULL REFERENCES bots (id),  -- (an active hosted version, or the bot)
    rules       text NOT NULL,
    clock       jsonb NOT NULL,
    elo0        double precision NOT NULL,
    elo1        double precision NOT NULL,
    alpha       double precision NOT NULL,
    beta        double precision NOT NULL,
    max_games   integer NOT NULL CHECK (max_games BETWEEN 2 AND 10000),
    at_once     integer NOT NULL CHECK (at_once BETWEEN 2 AND 64),  -- matches in play at once
    rated       boolean NOT NULL DEFAULT false,
    duplicate   boolean NOT NULL,  -- a pair's two matches share their deals
    status      text NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'H1', 'H0', 'undecided')),
    scheduled   integer NOT NULL DEFAULT 0,  -- matches made: sprtID-00001, ...
    lost_both   integer NOT NULL DEFAULT 0,
    split       integer NOT NULL DEFAULT 0,
    won_both    integer NOT NULL DEFAULT 0,
    llr         double precision NOT NULL DEFAULT 0,
    asked_by    text NOT NULL DEFAULT '',  -- the organizer, or the bot whose token asked
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);

CREATE TABLE sprt_pairs (
    test_id     bigint NOT NULL REFERENCES sprt_tests (id),
    pair        integer NOT NULL,
    score       smallint NOT NULL CHECK (score BETWEEN 0 AND 2),  -- NEW's matches won
    number      integer NOT NULL,  -- the order it was counted in, from 1
    llr         double precision NOT NULL,  -- the test's LLR once it was counted
    PRIMARY KEY (test_id, pair)
);

ALTER TABLE matches ADD COLUMN sprt_id bigint REFERENCES sprt_tests (id);
CREATE INDEX matches_by_sprt ON matches (sprt_id, id) WHERE sprt_id IS NOT NULL;

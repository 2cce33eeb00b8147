-- Bots, matches with their records, ratings per pool, and every rating change.
-- A pool is a rules preset plus a team size ("paulista/1"): a bot has one rating per pool.

CREATE TABLE bots (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    owner       text NOT NULL DEFAULT '',
    token_hash  bytea NOT NULL UNIQUE,  -- SHA-256 of the token; the token itself is never kept
    active      boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE matches (
    id           text PRIMARY KEY,
    pool         text NOT NULL,
    rules        text NOT NULL,  -- PRESET[:param=value,...]
    status       text NOT NULL DEFAULT 'scheduled'
                 CHECK (status IN ('scheduled', 'running', 'finished', 'failed')),
    rated        boolean NOT NULL DEFAULT true,
    seed         bigint NOT NULL,
    record       jsonb,  -- the match record (docs/rules.md, "Match records"), once finished
    winner       smallint CHECK (winner IN (0, 1)),
    score        smallint[],
    faults       jsonb NOT NULL DEFAULT '{}',
    run_id       bigint,  -- the tournament run, when there is one (tournaments come later)
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz
);
CREATE INDEX matches_by_pool ON matches (pool, finished_at DESC);
CREATE INDEX matches_by_run ON matches (run_id) WHERE run_id IS NOT NULL;

CREATE TABLE match_seats (
    match_id  text NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat      smallint NOT NULL CHECK (seat BETWEEN 0 AND 7),
    bot_id    bigint NOT NULL REFERENCES bots (id),
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX match_seats_by_bot ON match_seats (bot_id);

CREATE TABLE ratings (
    bot_id      bigint NOT NULL REFERENCES bots (id),
    pool        text NOT NULL,
    elo         double precision NOT NULL DEFAULT 1500,
    games       integer NOT NULL DEFAULT 0,
    wins        integer NOT NULL DEFAULT 0,
    losses      integer NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (bot_id, pool)
);
CREATE INDEX ratings_by_pool ON ratings (pool, elo DESC);

CREATE TABLE rating_events (
    id          bigserial PRIMARY KEY,
    bot_id      bigint NOT NULL REFERENCES bots (id),
    match_id    text NOT NULL REFERENCES matches (id),
    pool        text NOT NULL,
    before      double precision NOT NULL,
    after       double precision NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (bot_id, match_id)  -- a match changes a bot's rating once
);

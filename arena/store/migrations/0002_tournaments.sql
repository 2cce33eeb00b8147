-- Tournaments: a definition (with an optional cron schedule) and its runs. A run keeps a
-- copy of the definition it plays, so editing or deleting the definition never changes a
-- run; its matches are rows of `matches` with `run_id` set.

CREATE TABLE tournaments (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    definition  jsonb NOT NULL,
    schedule    text,  -- cron, five fields, UTC; NULL: started by hand only
    fired_at    timestamptz NOT NULL DEFAULT now(),  -- the schedule fires after this time
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE runs (
    id             bigserial PRIMARY KEY,
    tournament_id  bigint NOT NULL REFERENCES tournaments (id),
    definition     jsonb NOT NULL,  -- as it was when the run started
    seed           bigint NOT NULL,
    status         text NOT NULL DEFAULT 'starting'
                   CHECK (status IN ('starting', 'running', 'finished', 'failed')),
    error          text,  -- why it failed
    participants   text[] NOT NULL DEFAULT '{}',
    total          integer NOT NULL DEFAULT 0,  -- matches, once planned
    fired_for      timestamptz,  -- the scheduled time that started it; NULL when by hand
    standings      jsonb,  -- once finished
    created_at     timestamptz NOT NULL DEFAULT now(),
    finished_at    timestamptz,
    UNIQUE (tournament_id, fired_for)  -- a schedule fires once per time, however many beats
);
CREATE INDEX runs_by_tournament ON runs (tournament_id, id DESC);

ALTER TABLE matches ADD CONSTRAINT matches_run_fk FOREIGN KEY (run_id) REFERENCES runs (id);
